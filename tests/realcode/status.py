"""Runs the whole real-code corpus three ways and writes what happened.

    .venv/bin/python tests/realcode/status.py [--failures PATH]

Writes ``STATUS.md`` (per script and mode: pass, wrong values, or the error
type, line and message; and a per-source table) and ``xfail.json`` (the
recorded cause of each script x mode that fails, read by test_realcode.py),
both beside this file. With ``--failures PATH`` it also writes the failures
grouped by cause, most scripts blocked first, for the helpers fixing them.
"""
import collections
import json
import re
import sys
import time

import harness

# What a failure message means, whose area fixes it, and a one-line reproducer:
# (pattern, cause, area, reproducer). The first pattern that matches the verdict wins.
CAUSES = [
    (r"name 'eval' is not defined", "`eval` of a string in programs (tonyduan/normalizing-flows picks its flow class with "
     "`eval(args.flow)`): SPEC section 2 keeps eval out of programs' reach", "lead (SPEC decision)",
     "flow = eval('NSF_CL')"),
    (r"No module named 'torch\._utils'", "torch._utils (_flatten_dense_tensors, imported by improved-diffusion's fp16_util.py): "
     "SPEC keeps names beginning with '_' out of programs' reach (in-process it works)", "lead (SPEC decision)",
     "from torch._utils import _flatten_dense_tensors"),
    (r"attribute '_Loss' is not accessible", "torch.nn.modules.loss._Loss (IBM/pytorch-seq2seq checks "
     "issubclass(type(criterion), nn.modules.loss._Loss)): SPEC keeps names beginning with '_' out of programs' reach "
     "(in-process it works)", "lead (SPEC decision)", "import torch.nn as nn; nn.modules.loss._Loss"),
    (r"attribute '__init__' is not accessible", "an explicit base-class call `nn.Embedding.__init__(self, ...)` "
     "(microsoft/LoRA's layers derive from an nn layer and LoRALayer): SPEC keeps names beginning with '_' on the "
     "engine's classes out of programs' reach (`super().__init__(...)` works)", "lead (SPEC decision)",
     "import torch.nn as nn\nclass L(nn.Linear):\n    def __init__(self):\n        nn.Linear.__init__(self, 2, 2)\nL()"),
    (r"attribute '_modules' of|attribute '_parameters' is not accessible", "nn.Module's private registries "
     "(vgsatorras/egnn's `self._modules['gcl_%d' % i]`, the spectral-norm GAN's `del module._parameters[name]`): "
     "SPEC keeps names beginning with '_' on the engine's classes out of programs' reach (in-process it works)",
     "lead (SPEC decision)", "import torch.nn as nn\nm = nn.Sequential(nn.Linear(2, 2))\nm._modules['0']"),
    (r"__dict__ is available in programs only on objects of program classes", "`self.__dict__[k]` on an nn.Module "
     "subclass (pytorch-multi-class-focal-loss's FocalLoss.__repr__): the instance dict of an engine class holds "
     "the engine's own state, which SPEC keeps from programs (in-process it works)", "lead (SPEC decision)",
     "import torch.nn as nn\nclass M(nn.Module):\n    pass\nM().__dict__"),
    (r"no attribute 'bfloat16'|bfloat16 is not supported", "torch.bfloat16 can be named but holds no tensors (NumPy has "
     "no bfloat16): rasbt's Llama 2 keeps its weights in it",
     "engineapi (dtypes)", "torch.bfloat16; torch.ones(2, dtype=torch.bfloat16)"),
    (r"'_BatchNorm'", "torch.nn.modules.batchnorm._BatchNorm (davda54/sam's bypass_bn.py checks "
     "isinstance(module, _BatchNorm)): SPEC keeps names beginning with '_' out of programs' reach (in-process it works)",
     "lead (SPEC decision)", "from torch.nn.modules.batchnorm import _BatchNorm"),
    (r"attribute '_LRScheduler' is not accessible", "torch.optim.lr_scheduler._LRScheduler (uvadlc's "
     "CosineWarmupScheduler subclasses PyTorch's old name; LRScheduler works): SPEC keeps names beginning with '_' out "
     "of programs' reach (in-process it works)", "lead (SPEC decision)",
     "import torch.optim as optim\nclass S(optim.lr_scheduler._LRScheduler):\n    pass"),
    (r"attribute '__setattr__' is not accessible", "`object.__setattr__(self, name, value)` in a program class's "
     "__setattr__ (torchattacks' Attack): SPEC keeps the builtins' names beginning with '_' out of programs' reach "
     "(super().__setattr__ works)", "lead (SPEC decision)",
     "class A:\n    def __setattr__(self, name, value):\n        object.__setattr__(self, name, value)\nA().x = 1"),
    (r"attribute '_last_lr' of .* belongs to the engine's base class", "a program subclass of LRScheduler setting "
     "`self._last_lr` (ildoonet/pytorch-gradual-warmup-lr's GradualWarmupScheduler.step, as PyTorch's own schedulers "
     "do): SPEC keeps the engine's private names from program subclasses; `_last_lr` is not among the underscore names "
     "listed as PyTorch's de-facto API (in-process it works)", "lead (SPEC decision)",
     "import torch\nclass S(torch.optim.lr_scheduler.LRScheduler):\n    def step(self, epoch=None):\n"
     "        self._last_lr = [0.1]\nS(torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], 0.1)).step()"),
    (r"no attribute 'backends'", "torch.backends (cudnn.benchmark / cudnn.deterministic, mps.is_available) is missing", "engineapi",
     "torch.backends.cudnn.deterministic = True; torch.backends.mps.is_available()"),
    (r"cannot import 'os'|No module named 'os'", "`import os` refused in programs (scripts use it for os.path.join / os.makedirs, or import it unused)",
     "lead (SPEC decision), then programs", "import os"),
    (r"to_sparse|sparse_coo_tensor|spmm", "sparse tensors (Tensor.to_sparse, torch.sparse_coo_tensor, torch.spmm, sparse @ dense)", "engineapi",
     "torch.diag(torch.ones(3)).to_sparse() @ torch.ones(3, 2)"),
    (r"nn\.parallel", "torch.nn.parallel (imported by DCGAN; data_parallel only taken with several GPUs)", "engineapi (module) + programs (import)",
     "import torch.nn.parallel"),
    (r"is_xpu", "Tensor.is_xpu is missing (DCGAN's forward: `if (input.is_cuda or input.is_xpu) and self.ngpu > 1`)", "engineapi",
     "torch.ones(1).is_xpu   # PyTorch: False"),
    (r"np\.\w+\(out=", "NumPy ufuncs with out= refused in programs", "programs", "import numpy as np; n = np.ones(5); np.add(n, 1, out=n)"),
    (r"wall_time", "the interpreter's 30 s wall-time limit stops a run that finishes in-process and over HTTP", "programs (limits)",
     "(yunjey/deep_residual_network: a ResNet-20-ish CIFAR model, 2 Adam steps on a batch of 100 32x32 images)"),
    (r"y3: max error .* z3: max error", "torch.matmul(a, b, out=y) / torch.mul(a, b, out=z) ignore out= (the result is returned, y and z are left as they were)",
     "engineapi", "y = torch.zeros(2, 2); torch.matmul(torch.ones(2, 2), torch.ones(2, 2), out=y); y   # PyTorch: all 2"),
    (r"InternalError", "the server answers 500 (InternalError) for a program-side NumPy array among the outputs", "wire (output walking)",
     "POST /run {\"program\": \"import torch\\na = torch.ones(2).numpy()\", \"outputs\": [\"a\"]}"),
    (r"Expected target size \[64, 10\]", "nn.Dropout2d on a 2-D input returns (N, N, C)", "engineapi/fused (dropout)",
     "nn.Dropout2d(0.25)(torch.ones(64, 32)).shape   # PyTorch: (64, 32)"),
    (r"no attribute 'Function'|\.forward\(\) missing 1 required positional|save_for_backward|ctx\.",
     "torch.autograd.Function (PyTorch's contract: static forward/backward with ctx, .apply)", "engineapi",
     "class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x): ctx.save_for_backward(x); return x.clamp(min=0)\n"
     "    @staticmethod\n    def backward(ctx, g): x, = ctx.saved_tensors; return g * (x > 0)\ny = F.apply(torch.randn(3, requires_grad=True))"),
    (r"utils\.data|engine\.utils|no attribute 'utils'|torch\.utils is not available",
     "torch.utils.data (Dataset, TensorDataset, DataLoader) is missing / not importable", "engineapi (module) + programs (import)",
     "import torch.utils.data as Data; loader = Data.DataLoader(Data.TensorDataset(torch.ones(4, 2)), batch_size=2)"),
    (r"import numpy", "`import numpy as np` refused in programs", "programs", "import numpy as np; a = np.arange(6).reshape(2, 3)"),
    (r"from __future__", "`from __future__ import print_function` refused", "programs", "from __future__ import print_function"),
    (r"from torch\.autograd import Variable|no attribute 'Variable'", "`torch.autograd.Variable` (import and the name)",
     "programs (import) + engineapi (Variable)", "from torch.autograd import Variable; v = Variable(torch.ones(2), requires_grad=True)"),
    (r"from torch import|from torch\.nn import|import torch\.\w+(\.\w+)* as|from torch\.\w+ import",
     "`from torch[.sub] import name` / `import torch.sub as x` refused", "programs",
     "from torch import tensor, nn; from torch.nn import init; import torch.optim as optim"),
    (r"NumPy dtype '<U",
     "NumPy string arrays (np.array(list of str), the '<U' dtypes) are refused in programs", "programs (NumPy subset)",
     "import numpy as np; chars = np.array(sorted(set('hello'))); ''.join(chars[np.array([1, 0])])"),
    (r"No module named 'pprint'|No module named 'tqdm'",
     "`from pprint import pprint` / `from tqdm.auto import tqdm` refused in programs (not among SPEC section 2's standard modules)",
     "lead (SPEC decision), then programs", "from pprint import pprint; pprint({'a': 1})"),
    (r"import sys|import pdb|import os\\b",
     "`import sys` / `import pdb` refused (by SPEC's design today; real scripts use sys.stdout.write and leave `import pdb` in)",
     "lead (SPEC decision), then programs", "import sys; sys.stdout.write('x')"),
    (r"import random|import math|import string|import itertools|from itertools|import copy|import time|import inspect|from dataclasses|from typing",
     "standard-library import refused (SPEC section 2 lists random, time, inspect, itertools, dataclasses, typing, ...)", "programs",
     "import random; random.seed(0); random.randint(0, 3)\nimport time; import inspect; from dataclasses import dataclass"),
    (r"LongTensor|FloatTensor|DoubleTensor|IntTensor|ByteTensor|BoolTensor|no attribute 'Tensor'",
     "legacy typed constructors (torch.FloatTensor / LongTensor / ...)", "engineapi", "torch.FloatTensor([[1, 2], [3, 4]]); torch.LongTensor([1, 0])"),
    (r"keyword argument '(keepdims|axis|size|input|other)'",
     "keyword aliases PyTorch accepts (keepdims=, axis=, size= on factories)", "engineapi",
     "x = torch.ones(2, 3); x.sum(1, keepdims=True); torch.randn(size=(2, 3))"),
    (r"name '(id|type|vars|globals|setattr|iter|next)' is not defined", "a builtin missing in programs", "programs", "id(torch.ones(1))"),
    (r"lr_scheduler|StepLR|LBFGS|Adadelta|Adamax|NAdam|RAdam", "optimisers and schedulers (LBFGS, Adadelta, StepLR import, ...)",
     "engineapi (+ programs for the import)", "from torch.optim.lr_scheduler import StepLR; opt = torch.optim.LBFGS([torch.zeros(2, requires_grad=True)])"),
    (r"accelerator", "torch.accelerator (is_available / current_accelerator)", "engineapi", "torch.accelerator.is_available()"),
    (r"Could not infer dtype of ndarray|only one element tensors can be converted",
     "torch.tensor / FloatTensor / LongTensor / Tensor of a list of NumPy arrays (graykode builds every batch so)", "engineapi",
     "import numpy as np; torch.tensor([np.array([1., 2.]), np.array([3., 4.])])   # PyTorch: shape (2, 2)"),
    (r"no attribute 'inf'", "torch.inf is missing (masked_fill(mask, -torch.inf))", "engineapi", "torch.inf   # PyTorch: inf"),
    (r"'__version__' is not accessible", "torch.__version__ refused in programs (a dunder read on the module)", "sandbox",
     "print(torch.__version__)"),
    (r"'__dict__' is not accessible", "obj.__dict__ refused in programs (minGPT's CfgNode: self.__dict__.update(kwargs))", "sandbox",
     "class C:\n    def __init__(self, **kw): self.__dict__.update(kw)\nC(a=1).a"),
    (r"no attribute 'pi'", "torch.pi is missing (GELU's torch.sqrt(torch.tensor(2.0 / torch.pi)))", "engineapi", "torch.pi   # PyTorch: 3.14159..."),
    (r"no attribute 'resize_'", "Tensor.resize_ is missing (images.resize_(64, 784))", "engineapi",
     "t = torch.ones(64, 1, 28, 28); t.resize_(64, 784).shape   # PyTorch: (64, 784)"),
    (r"no attribute 'RMSNorm'", "nn.RMSNorm is missing", "engineapi", "torch.nn.RMSNorm(4, eps=1e-5)(torch.ones(2, 4))"),
    (r"matrix_power|no attribute 'unique'", "Tensor.matrix_power and Tensor.unique / torch.unique are missing", "engineapi",
     "torch.eye(2).matrix_power(3); torch.tensor([0, 0, 1, 2, 2]).unique()   # PyTorch: eye(2); tensor([0, 1, 2])"),
    (r"index_fill", "Tensor.index_fill_ / index_fill are missing (annotated transformer's LabelSmoothing)", "engineapi",
     "t = torch.ones(3, 2); t.index_fill_(0, torch.tensor([1]), 0.0)   # PyTorch: row 1 zeroed"),
    (r"'Tensor' object has no attribute 'new'", "Tensor.new (legacy constructor: weight.new(2, 3).zero_())", "engineapi",
     "torch.ones(2).new(3, 4).zero_().shape   # PyTorch: (3, 4)"),
    (r"'ndarray' object has no attribute 'resize'", "ndarray.resize (in place) missing on a program's NumPy arrays", "programs",
     "import numpy as np; a = np.sin(np.linspace(0, 1, 4)); a.resize((4, 1)); a.shape"),
    (r"generator functions \(yield\)", "generator functions (yield) refused in programs", "programs",
     "def g():\n    yield 1\nnext(g())"),
    (r"No module named 're'", "`import re` refused in programs", "lead (SPEC decision), then programs", "import re; re.sub('[.,]', '', 'a.b')"),
    (r"private to the host|starting with '_'", "a program's own private names are refused", "sandbox", "class A:\n    def _f(self): return 1\nA()._f()"),
    (r"Transformer|scaled_dot_product|LazyLinear", "transformer layers / SDPA / LazyLinear", "engineapi", "nn.TransformerEncoderLayer(8, 2)"),
    (r"'method' is not available|decorator|property|classmethod|staticmethod",
     "decorators and descriptors on program classes", "programs", "class A:\n    @property\n    def x(self): return 1"),
    (r"format", "str.format / format()", "programs", "'{:+.2f}'.format(torch.tensor(1.5))"),
    (r"__name__", "__name__ in programs", "programs", "if __name__ == '__main__': pass"),
    (r"No module named 'sys'", "`import sys` refused in programs (SPEC: by design; PyTorch-GAN's WGAN scripts import it unused)",
     "lead (SPEC decision)", "import sys"),
    (r"ImportError|ModuleNotFoundError|No module named", "another import is refused or missing", "programs", ""),
    (r"got range\)", "indexing a tensor with a Python range (x[range(n), y])", "engineapi",
     "x = torch.ones(3, 4); x[range(3), torch.tensor([0, 1, 2])]"),
    (r"name '__name__'", "__name__ in programs", "programs", "if __name__ == '__main__': pass"),
    (r"is not available|not allowed", "a name or attribute the sandbox refuses", "sandbox", ""),
    (r"has no attribute|unexpected keyword|takes .* positional|missing .* required",
     "engine API missing or different", "engineapi", ""),
    (r"^wrong values", "wrong values (a fidelity bug)", "the op's owner (see the message)", ""),
]


# Seen while building the corpus, beside the per-script results.
NOTES = [
    "HTTP: a run whose `outputs` names a program-side NumPy array (`predicted = model(x).detach().numpy()`, "
    "yunjey/linear_regression) answers **500** `InternalError: AttributeError: 'ndarray' object has no attribute 'grad'`; "
    "it should answer the array (or a 422 naming the output). Reproducer: POST /run "
    "`{\"program\": \"import torch\\na = torch.ones(2).numpy()\", \"outputs\": [\"a\"]}`. Area: wire (output walking).",
    "`nn.Dropout2d` on a 2-D input (N, C) returns shape (N, N, C) (PyTorch: (N, C)): examples/mnist_rnn then fails "
    "in nll_loss with \"Expected target size [64, 10], got [64]\". Reproducer: `nn.Dropout2d(0.25)(torch.ones(64, 32)).shape`. "
    "Area: engineapi/fused (dropout).",
    "yunjey/convolutional_neural_network (behind torch.utils.data) gives wrong values once a DataLoader stand-in "
    "lets it run: BatchNorm2d running means and conv weight gradients differ by ~1.5e-3 relative. It trains Conv2d "
    "(with a bias) + BatchNorm2d with Adam: the bias's true gradient is 0, so Adam steps it by the sign of float noise "
    "(PyTorch ~1e-8, the engine ~1e-5), which moves running_mean; and in morvan/504 (an 8-layer Linear+BatchNorm stack) "
    "PyTorch's own float32 gradients differ from float64 by ~3e-3 relative, so such stacks are ill-conditioned. "
    "504 now compares its BatchNorm net by shape (its header says why); yunjey's CNN is left strict for the "
    "normalization owner (fused) to judge.",
]


def classify(verdict):
    m = re.match(r"ImportError at line \d+: (.*?) is not allowed", verdict)
    if m:   # judge by the refused statement, not the list of allowed ones that follows it
        verdict = "ImportError: " + m.group(1)
    for pattern, cause, area, repro in CAUSES:
        if re.search(pattern, verdict):
            return cause, area, repro
    return "other", "?", ""


def run_all(words=()):
    sys.path.insert(0, str(harness.HERE.parent / "server"))
    import httpx
    from server_harness import LiveServer

    server = LiveServer().start()
    rows = {}
    try:
        with httpx.Client(base_url=server.url, timeout=120) as client:
            for script in harness.discover():
                if words and not any(w in script.id for w in words):
                    continue
                expected = harness.load_expected(script)
                rows[script.id] = {}
                for mode in harness.MODES:
                    t0 = time.monotonic()
                    try:
                        result = harness.run_mode(script, expected, mode, client)
                        v = harness.verdict(script, expected, result)
                    except Exception as e:  # noqa: BLE001 - a harness problem is a result too
                        v = f"HarnessError: {type(e).__name__}: {e}"
                    rows[script.id][mode] = (v, time.monotonic() - t0)
                    print(f"{script.id:55s} {mode:9s} {time.monotonic() - t0:6.2f}s {v[:110]}", flush=True)
    finally:
        server.stop()
    return rows


def source_table(rows):
    """The per-source table (markdown lines) and the totals."""
    lines = ["| source | scripts | in-process passes | interpreter passes | HTTP passes |",
             "| --- | ---: | ---: | ---: | ---: |"]
    by_source = collections.defaultdict(list)
    for sid, modes in rows.items():
        by_source[sid.split("/")[0]].append(modes)
    total = [0, 0, 0, 0]
    for source in sorted(by_source):
        ms = by_source[source]
        counts = [sum(m[mode][0] == "pass" for m in ms) for mode in harness.MODES]
        total = [total[0] + len(ms)] + [a + b for a, b in zip(total[1:], counts)]
        lines.append(f"| {source} | {len(ms)} | {counts[0]} | {counts[1]} | {counts[2]} |")
    lines.append(f"| **all** | **{total[0]}** | **{total[1]}** | **{total[2]}** | **{total[3]}** |")
    return lines, total


def write_status(rows):
    table, total = source_table(rows)
    lines = ["# Real-code corpus status", "",
             "Written by `tests/realcode/status.py`; each public script run in-process "
             "(`import gradserve.engine as torch`), through the interpreter, and over HTTP, compared "
             "with PyTorch's recorded answers. `pass` means every recorded value and gradient matched "
             "(outputs a script's header marks shape-only were compared by shape and dtype).", "",
             "## Per source", ""] + table
    lines += ["", "## Per script", "", "| script | in-process | interpreter | HTTP |", "| --- | --- | --- | --- |"]
    scripts = {sc.id: sc for sc in harness.discover()}
    for sid, modes in rows.items():
        weak = sorted(scripts[sid].shape_only)
        note = f" (by shape: {', '.join(weak)})" if weak else ""
        cells = [(modes[m][0] + (note if modes[m][0] == "pass" else "")).replace("|", "\\|") for m in harness.MODES]
        lines.append(f"| `{sid}` | " + " | ".join(cells) + " |")
    (harness.HERE / "STATUS.md").write_text("\n".join(lines) + "\n")
    xfail = {sid: {m: v for m, (v, _) in modes.items() if v != "pass"} for sid, modes in rows.items()}
    xfail = {k: v for k, v in xfail.items() if v}
    (harness.HERE / "xfail.json").write_text(json.dumps(xfail, indent=1, sort_keys=True) + "\n")
    return total


# --------------------------------------------------------------------------- lookahead
def _data_standin(lib):
    """A minimal stand-in for torch.utils.data (diagnostics only: never used by the tests)."""
    import types

    class Dataset:
        pass

    class TensorDataset(Dataset):
        def __init__(self, *tensors):
            self.tensors = tensors

        def __getitem__(self, i):
            return tuple(t[i] for t in self.tensors)

        def __len__(self):
            return len(self.tensors[0])

    def collate(items):
        first = items[0]
        if isinstance(first, (tuple, list)):
            return [collate([it[k] for it in items]) for k in range(len(first))]
        if isinstance(first, (int, float)):
            return lib.tensor(items)
        return lib.stack(items)

    class RandomSampler:
        def __init__(self, data_source, replacement=False, num_samples=None):
            self.n = len(data_source)

        def __iter__(self):
            return iter(lib.randperm(self.n).tolist())

    class DataLoader:
        def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, num_workers=0, collate_fn=None,
                     drop_last=False, **kw):
            self.dataset, self.batch_size, self.shuffle, self.drop_last = dataset, batch_size, shuffle, drop_last
            self.sampler, self.collate_fn = sampler, collate_fn or collate

        def __iter__(self):
            n = len(self.dataset)
            order = list(self.sampler) if self.sampler is not None else (
                lib.randperm(n).tolist() if self.shuffle else list(range(n)))
            for i in range(0, n, self.batch_size):
                idx = order[i:i + self.batch_size]
                if self.drop_last and len(idx) < self.batch_size:
                    break
                yield self.collate_fn([self.dataset[j] for j in idx])

        def __len__(self):
            return (len(self.dataset) + self.batch_size - 1) // self.batch_size

    data = types.ModuleType("gradserve.engine.utils.data")
    data.Dataset, data.TensorDataset, data.DataLoader, data.RandomSampler = Dataset, TensorDataset, DataLoader, RandomSampler
    data.dataloader = data
    utils = types.ModuleType("gradserve.engine.utils")
    utils.data = data
    return {"gradserve.engine.utils": utils, "gradserve.engine.utils.data": data,
            "gradserve.engine.utils.data.dataloader": data}


def lookahead(rows):
    """In-process verdicts, with a stand-in torch.utils.data, of scripts blocked by its absence."""
    import importlib
    import sys

    lib = importlib.import_module("gradserve.engine")
    blocked = [sid for sid, modes in rows.items() if "utils" in modes["inprocess"][0]]
    if not blocked or hasattr(lib, "utils"):
        return {}
    mods = _data_standin(lib)
    sys.modules.update(mods)
    lib.utils = mods["gradserve.engine.utils"]
    out = {}
    try:
        for script in harness.discover():
            if script.id in blocked:
                expected = harness.load_expected(script)
                out[script.id] = harness.verdict(script, expected, harness.run_mode(script, expected, "inprocess"))
    finally:
        for name in mods:
            sys.modules.pop(name, None)
        del lib.utils
    return out


def write_failures(rows, path, ahead=None):
    groups = collections.defaultdict(lambda: collections.defaultdict(list))
    repros = {}
    for sid, modes in rows.items():
        for mode, (v, _) in modes.items():
            if v != "pass":
                cause, area, repro = classify(v)
                groups[(cause, area)][sid].append((mode, v))
                repros[(cause, area)] = repro
    order = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    out = ["# Real-code corpus failures, by cause (most scripts blocked first)", "",
           f"Generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by tests/realcode/status.py on "
           "h/corpus. A script counts under the first error it meets in each mode; fixing one cause may "
           "uncover the next. Reproduce one: `cd /work/wt/corpus && .venv/bin/python tests/realcode/harness.py "
           "SCRIPT_ID MODE` (modes: inprocess, interp, http); scripts are tests/realcode/scripts/SCRIPT_ID.py.", ""]
    out += source_table(rows)[0] + [""]
    if NOTES:
        out += ["## Noticed beside the per-script results", ""] + [f"- {n}" for n in NOTES] + [""]
    for (cause, area), scripts in order:
        out.append(f"## {cause} - {len(scripts)} scripts - area: {area}")
        out.append("")
        if repros[(cause, area)]:
            out += ["Reproducer (a program):", "", "```python", repros[(cause, area)], "```", ""]
        for sid, fails in sorted(scripts.items()):
            for mode, v in fails:
                v = v.split("; programs may use:")[0]
                out.append(f"- `{sid}` [{mode}] {v[:240]}")
        out.append("")
    if ahead:
        out += ["## Next in line once torch.utils.data exists", "",
                "In-process runs of the scripts blocked by torch.utils.data, with a minimal stand-in "
                "(Dataset, TensorDataset, DataLoader with shuffle/collate, RandomSampler) put in its place "
                "for this diagnosis only:", ""]
        out += [f"- `{sid}` {v.split('; programs may use:')[0][:240]}" for sid, v in sorted(ahead.items())]
        out.append("")
    pathlib_write(path, "\n".join(out) + "\n")


def pathlib_write(path, text):
    import pathlib
    pathlib.Path(path).write_text(text)


def main(argv):
    failures = None
    if "--failures" in argv:
        i = argv.index("--failures")
        failures = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    rows = run_all(argv)
    if not argv:
        total = write_status(rows)
        print("scripts, in-process, interpreter, HTTP passes:", total)
    if failures:
        write_failures(rows, failures, lookahead(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
