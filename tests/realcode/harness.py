"""The real-code corpus harness: runs a pasted PyTorch script three ways and
compares what it computed with PyTorch's recorded answers.

A corpus script is a public script or notebook, kept as written, with a header
of comments recording where it comes from and how it was adapted (see
README.md), and these machine-read lines:

    # realcode-input: NAME = MAKER(...)   a synthetic input bound before the run
                                          (randn, rand, randint, arange, normal, text;
                                           made with NumPy, recorded in the .npz)
    # realcode-output: NAME               a value to compare (a dotted path such as
                                          ``model.fc.weight``; ``model.*`` is every
                                          entry of model.state_dict()); its ``.grad``
                                          is compared too where PyTorch has one
    # realcode-shape-only: NAME ... (why)  compared by shape and dtype only (random draws)
    # realcode-rtol: 1e-3 (why)           the tolerance, relative to each tensor's
                                          largest magnitude (default below)

and cell markers in the body: every ``# %%`` line starts a cell (cells run one
after the other in the same session, as a notebook kernel runs them), and

    # %% realcode-load: NAME ...

also names values to copy in. Before the cell after such a marker runs, the
harness copies PyTorch's values of the named objects (a module's state_dict, or
a tensor) into the session, so that both sides start from PyTorch's own
initialisation and random draws.

Modes: ``inprocess`` executes the script in this process with ``torch`` mapped to
``gradserve.engine``; ``interp`` runs it through the program interpreter
(``gradserve.engine.program.run``); ``http`` runs it over HTTP on a live server.
``torch`` (used by regenerate.py) runs it with PyTorch itself.
"""
import builtins
import importlib
import io
import pathlib
import random
import re
import sys
import traceback
import warnings
from dataclasses import dataclass, field

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
SCRIPTS = HERE / "scripts"
MODES = ("inprocess", "interp", "http")

# Wall time per cell in the interpreter and HTTP modes: the corpus checks answers, not speed, and a
# training script (time_sequence_prediction's LBFGS over an LSTM) takes 10-30 s on a busy 2-core machine.
CORPUS_WALL_TIME_S = 180.0

DEFAULT_RTOL = {"float32": 2e-4, "float64": 1e-7, "float16": 2e-3}   # of the largest magnitude
_MARKER = re.compile(r"^# %%(?: realcode-load:(.*))?")   # every '# %%' line starts a cell, as in a notebook
_HEADER = re.compile(r"^# realcode-(input|output|shape-only|rtol|atol|seed):\s*(.*)$")


# --------------------------------------------------------------------------- scripts
@dataclass
class Cell:
    source: str        # the cell's text, preceded by blank lines so line numbers are the script's
    load_before: list  # names whose PyTorch values are copied in before this cell runs


@dataclass
class Script:
    id: str            # "source/name"
    path: pathlib.Path
    text: str
    inputs: dict = field(default_factory=dict)     # name -> maker expression
    outputs: list = field(default_factory=list)
    shape_only: set = field(default_factory=set)
    rtol: float | None = None
    atol: float = 0.0
    seed: int = 0
    cells: list = field(default_factory=list)

    @property
    def expected_path(self):
        return self.path.with_suffix(".npz")

    @property
    def source(self):
        return self.id.split("/")[0]


def discover():
    """Every corpus script, sorted by id."""
    return [load_script(p) for p in sorted(SCRIPTS.glob("*/*.py"))]


def load_script(path):
    path = pathlib.Path(path)
    text = path.read_text()
    s = Script(id=f"{path.parent.name}/{path.stem}", path=path, text=text)
    for line in text.splitlines():
        m = _HEADER.match(line)
        if not m:
            continue
        kind, rest = m.groups()
        if kind == "input":
            name, _, expr = rest.partition("=")
            s.inputs[name.strip()] = expr.strip()
        elif kind == "output":
            s.outputs.extend(rest.split())
        elif kind == "shape-only":
            s.shape_only.update(rest.split("(")[0].split())
        elif kind == "rtol":
            s.rtol = float(rest.split()[0])
        elif kind == "atol":
            s.atol = float(rest.split()[0])
        elif kind == "seed":
            s.seed = int(rest.split()[0])
    lines = text.splitlines(keepends=True)
    start, load = 0, []
    for i, line in enumerate(lines):
        m = _MARKER.match(line.rstrip("\n"))
        if m:
            if "".join(lines[start:i]).strip():
                s.cells.append(Cell("\n" * start + "".join(lines[start:i]), load))
                load = []
            start = i + 1
            load = load + (m.group(1) or "").split()
    s.cells.append(Cell("\n" * start + "".join(lines[start:]), load))
    return s


# --------------------------------------------------------------------------- inputs
def make_inputs(script):
    """The script's synthetic inputs as NumPy arrays (deterministic: NumPy's PCG64)."""
    rng = np.random.default_rng(1234 + script.seed)
    out = {}

    def randn(*shape, dtype="float32", requires_grad=False):
        return _mark(rng.standard_normal(shape).astype(dtype), requires_grad)

    def rand(*shape, dtype="float32", requires_grad=False):
        return _mark(rng.random(shape).astype(dtype), requires_grad)

    def normal(mean, std, *shape, dtype="float32"):
        return rng.normal(mean, std, shape).astype(dtype)

    def randint(low, high, *shape):
        return rng.integers(low, high, shape).astype("int64")

    def arange(*args, dtype="float32"):
        return np.arange(*args).astype(dtype)

    def linspace(a, b, n, dtype="float32"):
        return np.linspace(a, b, n).astype(dtype)

    makers = dict(randn=randn, rand=rand, normal=normal, randint=randint, arange=arange,
                  linspace=linspace, np=np)
    for name, expr in script.inputs.items():
        out[name] = eval(expr, {"__builtins__": {}}, {**makers, **out})  # our own header, not user text
    return out


class _GradArray(np.ndarray):
    """An input array that should become a tensor with requires_grad=True."""


def _mark(a, requires_grad):
    return a.view(_GradArray) if requires_grad else a


def requires_grad(a):
    return isinstance(a, _GradArray)


# --------------------------------------------------------------------------- expected answers
@dataclass
class Expected:
    inputs: dict      # name -> array (with requires_grad names listed)
    grad_inputs: set
    init: dict        # dotted path -> array
    values: dict      # output name -> array
    grads: dict       # output name -> array
    dtypes: dict      # output name -> dtype name ("float32", "int", "float" for Python numbers)
    sampled: dict = field(default_factory=dict)   # "value/NAME" -> {"shape", "scale"} for large outputs


SAMPLE_ABOVE = 8192    # outputs with more elements are recorded as an evenly spaced sample
SAMPLE_SIZE = 2048


def sample_index(size):
    return np.linspace(0, size - 1, SAMPLE_SIZE).astype(np.int64)


def load_expected(script):
    with np.load(script.expected_path, allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    meta = data.pop("meta").item()
    meta = __import__("json").loads(meta)
    pick = lambda prefix: {k[len(prefix):]: v for k, v in data.items() if k.startswith(prefix)}
    inputs = pick("input/")
    sums = pick("inputsum/")
    if set(sums) - set(inputs):   # large inputs are not stored: remade from the header, checked by sum
        made = make_inputs(script)
        for name in set(sums) - set(inputs):
            arr = np.asarray(made.get(name, np.zeros(0)))
            if name not in made or float(np.sum(arr, dtype=np.float64)) != float(sums[name]):
                raise AssertionError(f"{script.id}: input {name} differs from the recorded one "
                                     "(header changed, or NumPy's generator stream did): run regenerate.py")
            inputs[name] = arr
    return Expected(inputs=inputs, grad_inputs=set(meta["grad_inputs"]), init=pick("init/"),
                    values=pick("value/"), grads=pick("grad/"), dtypes=meta["dtypes"],
                    sampled=meta.get("sampled", {}))


# --------------------------------------------------------------------------- results
@dataclass
class Result:
    ok: bool                        # ran to the end
    values: dict = field(default_factory=dict)
    grads: dict = field(default_factory=dict)
    error_type: str = ""
    line: int | None = None
    message: str = ""
    stdout: str = ""
    dtypes: dict = field(default_factory=dict)

    def describe(self):
        where = f" at line {self.line}" if self.line else ""
        return f"{self.error_type}{where}: {self.message}"


def to_numpy(v):
    """An output value (a tensor of either library, a number, a list of those) as an array."""
    if hasattr(v, "detach") and hasattr(v, "numpy"):
        return np.array(v.detach().cpu().numpy())
    if isinstance(v, np.ndarray):
        return np.array(v)
    if isinstance(v, (list, tuple)):
        parts = [to_numpy(x) for x in v]
        return np.stack(parts) if parts else np.zeros((0,))
    if isinstance(v, (bool, int, float, np.generic)):
        return np.array(v)
    if type(v).__name__ == "ndarray" and hasattr(v, "__array__"):
        return np.array(np.asarray(v))   # a program's NumPy array (its tolist counts steps: runs only)
    raise TypeError(f"cannot compare a {type(v).__name__}")


def kind_of(v):
    """The dtype name recorded for an output."""
    if hasattr(v, "dtype") and not isinstance(v, (np.ndarray, np.generic)):
        return str(v.dtype).replace("torch.", "")
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    return str(to_numpy(v).dtype)


def compare(script, expected, result):
    """A list of differences (empty when the result matches PyTorch's answers)."""
    problems = []
    for name, want in expected.values.items():
        if name not in result.values:
            problems.append(f"{name}: missing")
            continue
        problems += _compare_one(script, name, want, result.values[name], expected.dtypes.get(name),
                                 expected.sampled.get("value/" + name))
    for name, want in expected.grads.items():
        got = result.grads.get(name)
        if got is None:
            problems.append(f"{name}.grad: None, PyTorch has one")
            continue
        problems += _compare_one(script, name + ".grad", want, got, expected.dtypes.get(name),
                                 expected.sampled.get("grad/" + name))
    return problems


def is_shape_only(script, name):
    """Whether output ``name`` is compared by shape only (an entry names it or a prefix of its dotted path)."""
    return any(name == p or name.startswith(p + ".") for p in script.shape_only)


def _compare_one(script, name, want, got, dtype, sampled=None):
    got = np.asarray(got)
    scale = None
    if sampled:
        if got.shape != tuple(sampled["shape"]):
            return [f"{name}: shape {got.shape}, PyTorch {tuple(sampled['shape'])}"]
        got = got.reshape(-1)[sample_index(got.size)]
        scale = sampled["scale"]
    if got.shape != want.shape:
        return [f"{name}: shape {got.shape}, PyTorch {want.shape}"]
    if is_shape_only(script, name.removesuffix(".grad")):
        return []
    if want.dtype.kind in "biu":
        if not np.array_equal(got, want):
            bad = int(np.sum(got != want))
            return [f"{name}: {bad} of {want.size} values differ"]
        return []
    rtol = script.rtol or DEFAULT_RTOL.get(dtype, DEFAULT_RTOL["float32"])
    want64, got64 = want.astype(np.float64), got.astype(np.float64)
    if not np.array_equal(np.isfinite(want64), np.isfinite(got64)):
        return [f"{name}: non-finite values differ"]
    fin = np.isfinite(want64)
    if scale is None:
        scale = float(np.max(np.abs(want64[fin]))) if fin.any() else 0.0
    err = float(np.max(np.abs(want64[fin] - got64[fin]))) if fin.any() else 0.0
    if err > rtol * max(scale, 1e-6) + script.atol:
        extra = f", atol {script.atol:g}" if script.atol else ""
        return [f"{name}: max error {err:.3g} vs magnitude {scale:.3g} (rtol {rtol:g}{extra})"]
    return []


# --------------------------------------------------------------------------- paths into objects
def resolve(obj, path):
    for part in path.split("."):
        if isinstance(obj, dict):
            obj = obj[part]
        elif part.lstrip("-").isdigit() and not hasattr(obj, part):
            obj = obj[int(part)]
        else:
            obj = getattr(obj, part)
    return obj


def resolve_global(glob, path):
    head, _, rest = path.partition(".")
    obj = glob[head]
    return resolve(obj, rest) if rest else obj


# --------------------------------------------------------------------------- running with a Python library
class _Importer:
    """``__import__`` that maps ``torch`` and ``torch.*`` to a library (PyTorch or the engine), and
    ``functorch`` to the engine's own where the library is the engine."""

    def __init__(self, root):
        self.root = root          # "torch" or "gradserve.engine"
        self.real = builtins.__import__

    def __call__(self, name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and self.root != "torch" and (name == "functorch" or name.startswith("functorch.")):
            name = "torch.functorch" + name[len("functorch"):]   # the engine's functorch (PyTorch's is its own)
            mod = importlib.import_module(self.root + name[len("torch"):])
            return mod
        if level == 0 and (name == "torch" or name.startswith("torch.")):
            target = self.root + name[len("torch"):]
            mod = importlib.import_module(target)
            if fromlist:
                return mod
            return importlib.import_module(self.root)
        return self.real(name, globals, locals, fromlist, level)


def run_python(script, library, inputs, grad_inputs, init, record_init=None):
    """Runs the script in this process with ``torch`` meaning ``library`` ("torch" or
    "gradserve.engine"). ``init`` holds values to copy in at load markers;
    ``record_init`` (a dict) receives them instead, from the run itself."""
    lib = importlib.import_module(library)
    out = io.StringIO()
    bi = dict(vars(builtins))
    bi["__import__"] = _Importer(library)
    bi["print"] = lambda *a, **k: builtins.print(*a, **{**k, "file": out})
    glob = {"__name__": "__main__", "__builtins__": bi}
    for name, arr in inputs.items():
        t = lib.tensor(np.array(arr))
        if name in grad_inputs:
            t.requires_grad_(True)
        glob[name] = t
    random.seed(script.seed)
    np.random.seed(script.seed)
    lib.manual_seed(script.seed)
    # Each script starts as in a fresh kernel, with gradients on, and leaves the process's grad mode as it
    # found it: karpathy/pytorch-made's run.py ends on torch.set_grad_enabled(False) (its last test epoch),
    # which turned autograd off for every script run after it in this process.
    grad_was = lib.is_grad_enabled()
    lib.set_grad_enabled(True)
    settings = _process_settings(lib)
    try:
        return _run_cells(script, lib, glob, out, init, record_init)
    finally:
        lib.set_grad_enabled(grad_was)
        settings()


_PRINT_FIELDS = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")
_CUDNN_FLAGS = ("benchmark", "deterministic", "enabled", "allow_tf32")


def _process_settings(lib):
    """What a script may change for the whole process besides grad mode (tensor and NumPy print options,
    cudnn flags, the default dtype: rasbt's and mlbook's notebooks call set_printoptions, kuangliu sets cudnn.benchmark), saved;
    the function returned puts them back, so later tests in the process see the defaults."""
    if lib.__name__ == "torch":
        from torch._tensor_str import PRINT_OPTS as opts
    else:
        from gradserve.engine.autograd.state import state
        opts = state.print_options
    printing = {k: getattr(opts, k) for k in _PRINT_FIELDS}
    numpy = np.get_printoptions()
    cudnn = lib.backends.cudnn
    flags = {k: getattr(cudnn, k) for k in _CUDNN_FLAGS if hasattr(cudnn, k)}
    default_dtype = lib.get_default_dtype()   # ikostrikov's TRPO sets torch.DoubleTensor as the default type

    def restore():
        lib.set_default_dtype(default_dtype)
        for k, v in printing.items():
            setattr(opts, k, v)
        np.set_printoptions(**numpy)
        for k, v in flags.items():
            setattr(cudnn, k, v)
    return restore


def _run_cells(script, lib, glob, out, init, record_init):
    try:
        for index, cell in enumerate(script.cells):
            for name in cell.load_before:
                if record_init is not None:   # PyTorch's run: record (large ones rounded) and continue from them
                    captured = {k: _stored_init(v) for k, v in _capture(glob, name).items()}
                    record_init.update({f"{index}/{k}": v for k, v in captured.items()})
                    _load_python(lib, glob, name, captured)
                else:
                    _load_python(lib, glob, name, init_for(init, index, name))
            code = compile(cell.source, str(script.path), "exec")
            exec(code, glob)   # our own corpus file, in a test
    except BaseException as e:  # noqa: BLE001 - every failure of the script is a result
        if isinstance(e, KeyboardInterrupt):
            raise
        line = None
        for fs in traceback.extract_tb(e.__traceback__):
            if fs.filename == str(script.path):
                line = fs.lineno
        return Result(False, error_type=type(e).__name__, line=line, message=_short(str(e)),
                      stdout=out.getvalue())
    return _collect_python(script, glob, out.getvalue())


FLOAT16_INIT_ELEMENTS = 4096


def _stored_init(a):
    """Large float32 initial values are kept as float16 (both sides start from the rounded values)."""
    if a.dtype == np.float32 and a.size > FLOAT16_INIT_ELEMENTS:
        return a.astype(np.float16)
    return a


def _capture(glob, name):
    return _capture_obj(resolve_global(glob, name), name)   # a name or a dotted path (net.layers)


def _widen(dtype):
    return np.float32 if dtype == np.float16 else dtype


def _capture_obj(obj, name):
    """PyTorch's values of a tensor, a module (its state_dict) or a list of those, by dotted name."""
    if hasattr(obj, "state_dict") and callable(obj.state_dict):
        return {f"{name}.{k}": to_numpy(v) for k, v in obj.state_dict().items()}
    if isinstance(obj, (list, tuple)):
        out = {}
        for i, item in enumerate(obj):
            out.update(_capture_obj(item, f"{name}.{i}"))
        return out
    return {name: to_numpy(obj)}


def init_for(init, cell_index, name):
    """The recorded values of ``name`` (and its dotted entries) at the marker before cell ``cell_index``."""
    prefix = f"{cell_index}/"
    return {k[len(prefix):]: v for k, v in init.items()
            if k.startswith(prefix) and (k[len(prefix):] == name or k[len(prefix):].startswith(name + "."))}


def _load_python(lib, glob, name, init):
    items = {k: v for k, v in init.items() if k == name or k.startswith(name + ".")}
    if not items:
        raise KeyError(f"no recorded init for {name!r}")
    with lib.no_grad():
        for path, arr in items.items():
            target = resolve_global(glob, path)
            target.copy_(lib.tensor(np.array(arr, dtype=_widen(arr.dtype))))


def _collect_python(script, glob, stdout):
    values, grads, problems, dtypes = {}, {}, [], {}
    for name in output_names(script, glob):
        try:
            v = resolve_global(glob, name)
            values[name] = to_numpy(v)
            dtypes[name] = kind_of(v)
        except Exception as e:  # noqa: BLE001
            problems.append(f"output {name}: {type(e).__name__}: {e}")
            continue
        g = _grad(v)
        if g is not None:
            grads[name] = to_numpy(g)
    if problems:
        return Result(False, values, grads, "OutputError", None, "; ".join(problems), stdout)
    return Result(True, values, grads, stdout=stdout, dtypes=dtypes)


def _grad(v):
    """``v.grad`` where it is a tensor (without PyTorch's warning for non-leaves)."""
    if not hasattr(v, "requires_grad") or not getattr(v, "requires_grad", False):
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = getattr(v, "grad", None)
    return g if g is not None and hasattr(g, "numpy") else None


def output_names(script, glob=None, expected=None):
    """The outputs to compare: ``model.*`` expands to the state_dict's names."""
    names = []
    for name in script.outputs:
        if name.endswith(".*"):
            base = name[:-2]
            if expected is not None:
                names += [k for k in expected.values if k.startswith(base + ".")]
            else:
                names += [f"{base}.{k}" for k in resolve_global(glob, base).state_dict()]
        else:
            names.append(name)
    return names


def _short(msg, limit=300):
    msg = " ".join(str(msg).split())
    return msg if len(msg) <= limit else msg[:limit] + "..."


# --------------------------------------------------------------------------- the interpreter
def _numpy_seed_program(script):
    """A program seeding the session's NumPy generator and its random module as run_python seeds NumPy's
    and Python's (and the recording run did): scripts that draw with np.random (PyTorch-GAN's noise) or
    random (dair-ai's random.shuffle of the training set) draw the same numbers in every mode."""
    seed = int(script.seed)
    return (f"import numpy as _realcode_np\n_realcode_np.random.seed({seed})\ndel _realcode_np\n"
            f"import random as _realcode_random\n_realcode_random.seed({seed})\ndel _realcode_random\n")


def run_interp(script, expected):
    from gradserve.engine import tensor as etensor
    from gradserve.engine.program import Limits, Namespace, run

    ns = Namespace()
    limits = Limits(wall_time_s=CORPUS_WALL_TIME_S)
    for name, arr in expected.inputs.items():
        t = etensor(np.array(arr))
        if name in expected.grad_inputs:
            t.requires_grad_(True)
        ns.set(name, t)
    stdout = []
    seeded = run(_numpy_seed_program(script), ns, limits)
    if not seeded.ok:
        return Result(False, error_type="SeedError", message=_short(seeded.error.to_dict().get("message", "")))
    for index, cell in enumerate(script.cells):
        for name in cell.load_before:
            items = {k: etensor(np.array(v, dtype=_widen(v.dtype))) for k, v in init_for(expected.init, index, name).items()}
            try:
                ns.load_tensors(items)
            except Exception as e:  # noqa: BLE001
                return Result(False, error_type="LoadError", message=f"loading {name}: {type(e).__name__}: {e}",
                              stdout="".join(stdout))
        outcome = run(cell.source, ns, limits)
        stdout.append(outcome.stdout)
        if not outcome.ok:
            err = outcome.error.to_dict()
            return Result(False, error_type=err.get("type", "?"), line=err.get("line"),
                          message=_short(err.get("message", "")), stdout="".join(stdout))
    values, grads, problems = {}, {}, []
    for name in output_names(script, expected=expected):
        try:
            v = ns.resolve(name)
            if type(v).__name__ == "ndarray" and not isinstance(v, np.ndarray):
                # a program's NumPy array: converted by the program itself (its values live in the session)
                conv = run(f"realcode_output = torch.from_numpy({name})", ns)
                if not conv.ok:
                    raise RuntimeError(conv.error.to_dict().get("message"))
                v = ns.resolve("realcode_output")
            values[name] = to_numpy(_unwrap(v))
        except Exception as e:  # noqa: BLE001
            problems.append(f"output {name}: {type(e).__name__}: {e}")
            continue
        g = _grad(v)
        if g is not None:
            grads[name] = to_numpy(g)
    if problems:
        return Result(False, values, grads, "OutputError", None, "; ".join(problems), "".join(stdout))
    return Result(True, values, grads, stdout="".join(stdout))


def _unwrap(v):
    if isinstance(v, (list, tuple)):
        return [_unwrap(x) for x in v]
    if hasattr(v, "numpy") or isinstance(v, (int, float, bool, np.ndarray, np.generic)):
        return v
    inner = getattr(v, "value", None)   # a program-side number/array wrapper, if any
    return inner if inner is not None else v


# --------------------------------------------------------------------------- over HTTP
def _wire_tensor(arr, grad):
    arr = np.asarray(arr)
    return {"data": arr.tolist(), "dtype": str(arr.dtype), "requires_grad": bool(grad)}


def _from_wire(v):
    if isinstance(v, dict) and "shape" in v:
        dtype = v.get("dtype", "float32")
        data = v["data"]
        a = np.array(_denan(data), dtype=np.float64 if dtype.startswith("float") else None)
        return a.astype(dtype).reshape(v["shape"])
    if isinstance(v, list):
        return np.stack([_from_wire(x) for x in v]) if v else np.zeros((0,))
    return np.array(v)


def _denan(d):
    if isinstance(d, list):
        return [_denan(x) for x in d]
    if isinstance(d, str):
        return float({"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}[d])
    return d


def run_http(script, expected, client):
    from safetensors.numpy import save as save_safetensors

    r = client.post("/v1/sessions", json={})
    if r.status_code != 201:
        return Result(False, error_type=f"HTTP {r.status_code}", message=_short(r.text))
    body = r.json()
    headers = {"Authorization": f"Bearer {body['token']}"}
    path = f"/v1/sessions/{body['id']}"
    stdout = []
    try:
        outputs = output_names(script, expected=expected)
        rr = client.post(path + "/run", json={"program": _numpy_seed_program(script)}, headers=headers)
        if rr.status_code != 200:
            return Result(False, error_type=f"SeedError (HTTP {rr.status_code})", message=_short(rr.text))
        for i, cell in enumerate(script.cells):
            for name in cell.load_before:
                items = {k: np.array(v, dtype=_widen(v.dtype), order="C")  # (ascontiguousarray makes 0-d arrays 1-d)
                         for k, v in init_for(expected.init, i, name).items()}
                rr = client.put(path + "/checkpoint", content=save_safetensors(items), headers=headers)
                if rr.status_code != 204:
                    return Result(False, error_type=f"LoadError (HTTP {rr.status_code})", message=_short(rr.text),
                                  stdout="".join(stdout))
            req = {"program": cell.source}
            if i == 0:
                req["inputs"] = {k: _wire_tensor(v, k in expected.grad_inputs) for k, v in expected.inputs.items()}
            last = i == len(script.cells) - 1
            req["outputs"] = outputs if last else []
            rr = client.post(path + "/run", json=req, headers=headers)
            if rr.status_code != 200:
                try:
                    err = rr.json()["error"]
                except Exception:  # noqa: BLE001
                    return Result(False, error_type=f"HTTP {rr.status_code}", message=_short(rr.text),
                                  stdout="".join(stdout))
                return Result(False, error_type=err.get("type", "?"), line=err.get("line"),
                              message=_short(err.get("message", "")), stdout="".join(stdout))
            answer = rr.json()
            stdout.append(answer.get("stdout", ""))
        values = {k: _from_wire(v) for k, v in answer.get("values", {}).items()}
        grads = {k: _from_wire(v) for k, v in answer.get("grads", {}).items() if k in outputs}
        return Result(True, values, grads, stdout="".join(stdout))
    finally:
        client.delete(path, headers=headers)


# --------------------------------------------------------------------------- one call for the tests
def run_mode(script, expected, mode, client=None):
    if mode == "inprocess":
        return run_python(script, "gradserve.engine", expected.inputs, expected.grad_inputs, expected.init)
    if mode == "interp":
        return run_interp(script, expected)
    if mode == "http":
        return run_http(script, expected, client)
    raise ValueError(mode)


def verdict(script, expected, result):
    """"pass", or a one-line description of what went wrong."""
    if not result.ok:
        return result.describe()
    problems = compare(script, expected, result)
    if problems:
        return "wrong values: " + "; ".join(problems[:3]) + (f" (+{len(problems) - 3} more)" if len(problems) > 3 else "")
    return "pass"


if __name__ == "__main__":  # python harness.py SCRIPT_ID MODE: one run, printed
    sid, mode = sys.argv[1], sys.argv[2]
    s = load_script(SCRIPTS / (sid + ".py"))
    e = load_expected(s)
    client = None
    if mode == "http":
        sys.path.insert(0, str(HERE.parent / "server"))
        import httpx
        from server_harness import LiveServer
        server = LiveServer().start()
        client = httpx.Client(base_url=server.url, timeout=120)
    res = run_mode(s, e, mode, client)
    print(verdict(s, e, res))
    print(res.stdout[-2000:])
