"""Differential testing against PyTorch: one call, run on gradserve.engine and on torch.

A ``Case`` names its target (``torch.add``, ``Tensor.add_``, ``F.pad``, ``op.add``) and its
arguments as library-free descriptions: ``Arg`` is a tensor (NumPy data, a dtype name, an optional
view, whether it requires grad), ``Dtype`` a dtype by name; anything else is passed as it is. Each
side builds its own tensors from the same data, calls, and ``check`` compares what came back:
values (tolerance by dtype), dtype, shape, requires_grad and grad_fn presence, the mutated
operand of an in-place call, the gradients of a random weighting of the outputs, and, where
PyTorch raises, that the engine raises the same kind of exception.
"""
import operator
import warnings
import zlib

import numpy as np

import gradserve.engine as gs

try:
    import torch
except ImportError:  # the suite passes without PyTorch
    torch = None

FLOAT_DTYPES = ("float32", "float64")
INT_DTYPES = ("uint8", "int32", "int64")
DTYPES = ("bool",) + INT_DTYPES + FLOAT_DTYPES
# the exception kinds compared, most specific first; PyTorch's NotImplementedError for a dtype a kernel
# lacks is a RuntimeError, and the engine raising RuntimeError there is the same to a program's except
ERROR_KINDS = (IndexError, TypeError, ValueError, RuntimeError)
TOLERANCE = {"float32": (1e-4, 2e-5), "float64": (1e-10, 1e-12)}   # float32: sums of broadcast gradients


class Dtype:
    """A dtype argument, resolved on each side."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


class Arg:
    """A tensor argument: its data (already of the NumPy dtype), a view applied after
    building ("T" transpose, "step" every other row, "expand" the first column broadcast), and
    whether the leaf requires grad (``clone``: the call sees a non-leaf copy, for in-place)."""

    def __init__(self, data, view="", grad=False, clone=False):
        self.data, self.view, self.grad, self.clone = data, view, grad, clone

    @property
    def dtype(self):
        return "bool" if self.data.dtype == np.bool_ else str(self.data.dtype)

    def __repr__(self):
        shape = ",".join(map(str, self.data.shape))
        return f"{self.dtype}[{shape}]{self.view}{'g' if self.grad else ''}"

    def build(self, T):
        base = self.data
        if self.view == "T":
            base = np.ascontiguousarray(np.swapaxes(base, -1, -2))
        elif self.view == "step":
            base = np.repeat(base, 2, axis=0)
        elif self.view == "expand":
            base = np.ascontiguousarray(base[..., :1])
        leaf = T.tensor(base.copy(), dtype=getattr(T, self.dtype))
        if self.grad:
            leaf.requires_grad_()
        value = leaf.clone() if self.clone else leaf
        if self.view == "T":
            value = value.transpose(-1, -2)
        elif self.view == "step":
            value = value[::2]
        elif self.view == "expand":
            value = value.expand(*self.data.shape)
        return leaf, value


class Case:
    __slots__ = ("target", "args", "kwargs", "id")

    def __init__(self, target, *args, **kwargs):
        self.target, self.args, self.kwargs = target, args, kwargs
        shown = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
        self.id = f"{target}({', '.join(shown)})"


def _shape_of(fn):
    """For calls whose values are random or uninitialised: compare what else they give."""
    def call(*args, **kwargs):
        out = fn(*args, **kwargs)
        return tuple(out.shape), out.dtype, out.requires_grad
    return call


def _resolve(T, target, args):
    if target.startswith("shape:"):
        fn, args = _resolve(T, target.removeprefix("shape:"), args)
        return _shape_of(fn), args
    where, _, name = target.partition(".")
    if where == "torch":
        return getattr(T, name), args
    if where == "F":
        return getattr(T.nn.functional, name), args
    if where == "linalg":
        return getattr(T.linalg, name), args
    if where == "special":
        return getattr(T.special, name), args
    if where == "op":
        return getattr(operator, name), args
    if where == "Tensor":
        return getattr(args[0], name), args[1:]
    raise ValueError(target)


def _convert(T, value, leaves, first):
    if isinstance(value, Arg):
        leaf, built = value.build(T)
        if value.grad:
            leaves.append(leaf)
        first.append(built)
        return built
    if isinstance(value, Dtype):
        return getattr(T, value.name)
    if isinstance(value, list):
        return [_convert(T, v, leaves, first) for v in value]
    if isinstance(value, tuple):
        return tuple(_convert(T, v, leaves, first) for v in value)
    return value


class Outcome:
    __slots__ = ("out", "error", "leaves", "tensors")

    def __init__(self, out=None, error=None, leaves=(), tensors=()):
        self.out, self.error, self.leaves, self.tensors = out, error, leaves, tensors


def run(case, T):
    """The case on library T: what it returned or raised, its grad leaves and built tensors."""
    leaves, tensors = [], []
    args = [_convert(T, a, leaves, tensors) for a in case.args]
    kwargs = {k: _convert(T, v, leaves, tensors) for k, v in case.kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn, args = _resolve(T, case.target, args)
            out = fn(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - what is compared is which kind
            return Outcome(error=error)
    return Outcome(out=out, leaves=leaves, tensors=tensors)


def error_kind(error):
    for kind in ERROR_KINDS:
        if isinstance(error, kind):
            return kind
    return type(error)


def _numpy(t):
    if torch is not None and isinstance(t, torch.Tensor) and t._is_zerotensor():   # PyTorch's lazy zero gradient
        return np.zeros(tuple(t.shape), dtype=str(t.dtype).removeprefix("torch."))
    return np.asarray(t.detach().cpu().numpy())


def compare(ours, theirs, where="out", tolerance=None):
    """Asserts that the engine's result matches PyTorch's, recursively (floats within the
    tolerance of their dtype, or the looser one given)."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, gs.Tensor), f"{where}: {type(ours).__name__}, PyTorch gives a Tensor"
        assert tuple(ours.shape) == tuple(theirs.shape), f"{where}: shape {tuple(ours.shape)} != {tuple(theirs.shape)}"
        assert str(ours.dtype) == str(theirs.dtype), f"{where}: dtype {ours.dtype} != {theirs.dtype}"
        a, b = _numpy(ours), _numpy(theirs)
        dtype = str(theirs.dtype).removeprefix("torch.")
        if dtype in TOLERANCE:
            rtol, atol = max(TOLERANCE[dtype], tolerance or (0, 0))
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(a, b, err_msg=where)
        assert ours.requires_grad == theirs.requires_grad, f"{where}: requires_grad {ours.requires_grad}"
        assert (ours.grad_fn is None) == (theirs.grad_fn is None), f"{where}: grad_fn {ours.grad_fn}"
    elif isinstance(theirs, torch.Size):
        assert tuple(ours) == tuple(theirs), f"{where}: {ours} != {theirs}"
    elif isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)), f"{where}: {type(ours).__name__}, PyTorch gives {type(theirs).__name__}"
        assert len(ours) == len(theirs), f"{where}: {len(ours)} items != {len(theirs)}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            compare(a, b, f"{where}[{i}]", tolerance)
    elif isinstance(theirs, torch.dtype):
        assert str(ours) == str(theirs), f"{where}: {ours} != {theirs}"
    elif isinstance(theirs, bool):
        assert ours is theirs or (isinstance(ours, (bool, np.bool_)) and bool(ours) == theirs), f"{where}: {ours!r} != {theirs!r}"
    elif isinstance(theirs, int):
        assert isinstance(ours, int) and not isinstance(ours, bool) and ours == theirs, f"{where}: {ours!r} != {theirs!r}"
    elif isinstance(theirs, float):
        assert isinstance(ours, float) and (ours == theirs or (ours != ours and theirs != theirs)
                                            or abs(ours - theirs) <= 1e-5 * abs(theirs)), f"{where}: {ours!r} != {theirs!r}"
    elif theirs is None:
        assert ours is None, f"{where}: {ours!r}, PyTorch gives None"


def _outputs(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _outputs(o)]
    return [out] if torch is not None and isinstance(out, (torch.Tensor, gs.Tensor)) else []


def _grads(T, outcome, weights):
    outs = [o for o in _outputs(outcome.out) if o.requires_grad]
    if not outs or not outcome.leaves:
        return None
    loss = sum((o * T.tensor(w, dtype=o.dtype)).sum() for o, w in zip(outs, weights))
    return T.autograd.grad(loss, outcome.leaves, allow_unused=True)


def check(case):
    """Runs the case on both libraries and asserts that the engine behaves as PyTorch."""
    with warnings.catch_warnings():   # NaN and overflow warnings of both libraries are expected here
        warnings.simplefilter("ignore")
        _check(case)


def _check(case):
    theirs, ours = run(case, torch), run(case, gs)
    if theirs.error is not None:
        kind = error_kind(theirs.error)
        assert ours.error is not None, f"PyTorch raises {kind.__name__}: {theirs.error}; the engine returns {ours.out!r}"
        assert isinstance(ours.error, kind), (f"PyTorch raises {kind.__name__}: {theirs.error}; "
                                              f"the engine {type(ours.error).__name__}: {ours.error}")
        return
    assert ours.error is None, f"the engine raises {type(ours.error).__name__}: {ours.error}"
    compare(ours.out, theirs.out)
    if case.target.endswith("_") and case.target.startswith("Tensor.") or case.target.startswith("op.i") \
            or case.target == "op.setitem":
        compare(ours.tensors[0], theirs.tensors[0], "self after the call")
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    weights = [rng.standard_normal(tuple(o.shape)) for o in _outputs(theirs.out) if o.requires_grad]
    if not any(w.size for w in weights):  # nothing flows back (and torch.pdist's backward of nothing crashes)
        return
    try:
        grads_t = _grads(torch, theirs, weights)
    except RuntimeError:  # PyTorch has no derivative here: nothing to compare against
        return
    if grads_t is None:
        return
    grads_g = _grads(gs, ours, weights)
    # a float64 operand of a float32 result gets PyTorch's float32 gradient, cast
    widest = "float32" if any(str(t.dtype) == "torch.float32" for t in theirs.tensors) else "float64"
    for i, (a, b) in enumerate(zip(grads_g, grads_t)):
        if a is None or b is None:
            assert a is None or not np.any(_numpy(a)), f"grad[{i}]: engine {a}, PyTorch None"
            assert b is None or not np.any(_numpy(b)), f"grad[{i}]: engine None, PyTorch {b}"
            continue
        compare(a, b, f"grad[{i}]", tolerance=TOLERANCE[widest])
