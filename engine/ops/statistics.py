"""Statistics real code reaches for, composed of the engine's differentiable ops: quantile and
nanquantile (sort, then gather and interpolate), cov and corrcoef, aminmax, trapezoid/trapz and
cumulative_trapezoid; and two that are not differentiable in PyTorch either: heaviside and histc.
Each follows PyTorch's signature, values, dtypes and errors."""
import math
import warnings

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..device import get_array_module
from ..tensor import Tensor, _wrap_dim
from . import creation, elementwise, reduction
from .factorizations import _named_tuple

__all__ = ["quantile", "nanquantile", "cov", "corrcoef", "aminmax", "trapezoid", "trapz", "cumulative_trapezoid",
           "heaviside", "histc"]

_aminmax = _named_tuple("aminmax", ["min", "max"])
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, fn):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input.dtype not in (_dt.float32, _dt.float64):
        raise RuntimeError(f"{fn}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{fn}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    scalar_q = not isinstance(q, Tensor) or q.ndim == 0   # a 0-d q adds no dimension, as a number
    if not isinstance(q, Tensor):
        if not 0 <= q <= 1:
            raise RuntimeError(f"{fn}() q must be in the range [0, 1] but got {q}")
        qs = creation.tensor([float(q)], dtype=input.dtype)
    else:
        if q.ndim > 1:
            raise RuntimeError(f"{fn}() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError(f"{fn}() q tensor must be same dtype as the input tensor")
        qd = q.detach()
        if bool(((qd < 0) | (qd > 1)).any()):
            raise RuntimeError(f"{fn}() q values must be in the range [0, 1]")
        qs = q.reshape(-1)   # q keeps its graph: the linear weight below is differentiable in q, as PyTorch's
    if input.numel() == 0:
        raise RuntimeError(f"{fn}() input tensor must be non-empty")
    if dim is None:
        x, d = input.reshape(-1), 0
    else:
        d = _wrap_dim(dim, input.ndim)
        x = input
    x = x.movedim(d, -1) if x.ndim else x.reshape(1)
    if x.shape[-1] == 0:
        raise RuntimeError(f"{fn}() input tensor must be non-empty")
    from ..limits import check_elements
    check_elements(tuple(x.shape[:-1]) + (qs.shape[0],), "quantile")   # each q's gather, before the ranks are built
    values, _ = x.sort(-1)   # NaNs sort last
    n = x.shape[-1]
    nan = elementwise.isnan(x).detach()
    q_row = qs.reshape((1,) * (x.ndim - 1) + (-1,))
    # PyTorch's ranks: q (count - 1) among the valid values; quantile points a slice with a NaN at
    # its last (a NaN: sorted last) and nanquantile an all-NaN slice at its first, so the NaN is the
    # value and takes the gradient, and q none there
    if ignore_nan:
        rank = q_row * ((n - nan.sum(-1, keepdim=True)).to(input.dtype) - 1)
        rank = elementwise.where(rank < 0, 0.0, rank)
    else:
        rank = elementwise.where(nan.any(-1, keepdim=True), float(n - 1), q_row * float(n - 1))
    if interpolation in ("lower", "higher", "nearest"):   # a rounded rank: q has no gradient, as PyTorch's
        rank = {"lower": rank.detach().floor, "higher": rank.detach().ceil, "nearest": rank.detach().round}[
            interpolation]()
    below = rank.detach().floor().long()
    out = values.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weight = 0.5 if interpolation == "midpoint" else rank - below.to(input.dtype)
        hi = values.gather(-1, rank.detach().ceil().long())
        out = out + (hi - out) * weight
    out = out.movedim(-1, 0)   # q's dimension first, as PyTorch
    if keepdim:
        if dim is None or input.ndim == 0:
            out = out.reshape((out.shape[0],) + (1,) * input.ndim)
        else:
            out = out.unsqueeze(d + 1)
    if scalar_q:
        out = out.squeeze(0)
    return out


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """The q-th quantiles of input (all of it, or along dim), interpolated as ``interpolation`` says."""
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """quantile ignoring NaNs (NaN only where a slice is all NaN)."""
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


def aminmax(input, *, dim=None, keepdim=False):
    """(min, max) of input, or along ``dim``, as a named tuple."""
    if input.numel() == 0 and dim is None:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    if dim is None:
        return _aminmax(reduction.amin(input), reduction.amax(input))
    return _aminmax(reduction.amin(input, dim, keepdim), reduction.amax(input, dim, keepdim))


_SCALAR_NAME = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
                "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _check_weights(w, name, n, floating):
    kind = "floating point" if floating else "integral"
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with {w.ndim} "
                           f"dimensions")
    if w.is_floating_point() != floating or w.dtype == _dt.bool:
        raise RuntimeError(f"cov(): expected {name} to have {kind} dtype but got {name} with "
                           f"{_SCALAR_NAME.get(str(w.dtype)[6:], str(w.dtype)[6:])} dtype")
    if w.numel() != n:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input "
                           f"but got {w.numel()} != {n}")
    if n and bool((w.detach() < 0).any()):
        raise RuntimeError(f"cov(): {name} cannot be negative")


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance of the variables in input's rows (observations in its columns), with
    PyTorch's checks of the weights, its zeroed normaliser (and warning) where the degrees of
    freedom are <= 0, and its squeezed result."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    if input.dtype == _dt.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input if input.ndim == 2 else input.reshape(1, -1)
    if not x.is_floating_point():
        x = x.to(_dt.get_default_dtype())
    n = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights(fweights, "fweights", n, False)
        w = fweights
    if aweights is not None:
        _check_weights(aweights, "aweights", n, True)
        w = aweights if w is None else w * aweights
    if w is None:
        total = float(n)
        mean = x.sum(1, keepdim=True) / total
        norm = total - correction
    else:
        w = w.to(x.dtype)
        total = w.sum()
        if not bool(total.detach() != 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        mean = (x * w).sum(1, keepdim=True) / total
        if correction != 0 and aweights is not None:
            norm = total - correction * (w * aweights.to(x.dtype)).sum() / total
        else:
            norm = total - correction
    if bool(norm <= 0) if not isinstance(norm, Tensor) else bool(norm.detach() <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.")
        norm = creation.zeros_like(norm) if isinstance(norm, Tensor) else 0.0   # +0, as zero_()
    centred = x - mean
    weighted = centred if w is None else centred * w
    return (weighted.matmul(centred.transpose(0, 1)) / norm).squeeze()


def corrcoef(input):
    """Pearson's correlation coefficients of the variables in input's rows, clipped to [-1, 1]."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    stddev = d.sqrt()
    c = c / stddev.unsqueeze(1)
    c = c / stddev.unsqueeze(0)
    return c.clamp(-1, 1)


def _trapezoid_parts(y, x, dim):
    """(dim wrapped, left samples, right samples, the widths between sample points or None)."""
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, y.ndim)
    n = y.shape[d]
    left, right = y.narrow(d, 0, max(n - 1, 0)), y.narrow(d, min(n, 1), max(n - 1, 0))
    if x is None:
        return d, left, right, None
    if x.ndim == 1:
        if x.shape[0] != n:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        widths = x[1:] - x[:-1]
        widths = widths.reshape((-1,) + (1,) * (y.ndim - 1 - d))
    else:
        widths = x.narrow(d, 1, n - 1) - x.narrow(d, 0, n - 1)
    return d, left, right, widths


def _check_trapezoid_args(fn, x, dx):
    if (x is not None and dx is not None) or (x is not None and not isinstance(x, Tensor)):
        raise TypeError(f"{fn}() received an invalid combination of arguments: x is a Tensor of sample points, "
                        "dx a number given by keyword")


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along dim: sample spacing dx (1 by default), or sample points x; 0 over
    no samples. PyTorch's formulas: (sum - (first + last) / 2) dx, or sum(widths (left + right)) / 2."""
    _check_trapezoid_args("trapezoid", x, dx)
    d, left, right, widths = _trapezoid_parts(y, x, dim)
    if y.shape[d] == 0:
        return creation.zeros(tuple(y.shape[:d]) + tuple(y.shape[d + 1:]), dtype=y.dtype, device=y.device)
    if widths is None:
        return (y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * (1.0 if dx is None else dx)
    return (widths * (right + left)).sum(d) / 2.0


def trapz(y, x=None, *, dx=None, dim=-1):
    """trapezoid's older name."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal integral along dim (one fewer value than y; none over no samples)."""
    _check_trapezoid_args("cumulative_trapezoid", x, dx)
    d, left, right, widths = _trapezoid_parts(y, x, dim)
    if widths is None:
        return ((1.0 if dx is None else dx) / 2.0 * (left + right)).cumsum(d)
    return (widths / 2.0 * (left + right)).cumsum(d)


class Heaviside(Op):
    """The step function: 0 below 0, 1 above, ``values`` at 0. Not differentiable (PyTorch's error)."""
    __slots__ = ()
    op = "heaviside"
    saves = ()

    def forward(self, x, values):
        xp = get_array_module(x)
        if x.dtype != values.dtype:
            raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
        one = xp.ones((), dtype=x.dtype)
        zero = xp.zeros((), dtype=x.dtype)
        return xp.where(x == 0, values, xp.where(x > 0, one, zero)).astype(x.dtype, copy=False)

    def backward(self, F, g):
        raise RuntimeError("derivative for aten::heaviside is not implemented")


def heaviside(input, values, *, out=None):
    """0 where input < 0, 1 where input > 0, values where input == 0."""
    if not isinstance(values, Tensor):
        raise TypeError(f"heaviside(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    return Heaviside.apply(input, values)


def histc(input, bins=100, min=0, max=0, *, out=None):
    """A histogram of input's elements in ``bins`` equal bins over [min, max] (the data's range when
    min == max); elements outside are ignored. Not differentiable."""
    x = input._data
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)):
        raise TypeError(f"histc(): argument 'bins' must be int, not {type(bins).__name__}")
    if x.dtype.kind != "f":
        name = str(input.dtype)[6:]
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{_SCALAR_NAME.get(name, name)}'")
    if bins <= 0:
        raise RuntimeError("torch.histogram(): bins must be > 0, but got " + str(bins) + " for dimension 0")
    from ..limits import check_elements
    check_elements((bins,), "histogram")
    lo, hi = float(min), float(max)
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    data = np.asarray(x.get() if hasattr(x, "get") else x, dtype=np.float64).reshape(-1)
    if lo == hi and data.size:
        lo, hi = float(data.min()), float(data.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")   # C++'s stream format
    counts, _ = np.histogram(data, bins=int(bins), range=(lo, hi))
    return creation.tensor(counts.astype(x.dtype), device=input.device)


def _register():
    Tensor.quantile = quantile
    Tensor.nanquantile = nanquantile
    Tensor.aminmax = aminmax
    Tensor.heaviside = heaviside
    Tensor.histc = histc


_register()
