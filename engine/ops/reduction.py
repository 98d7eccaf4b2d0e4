"""Reductions: sum, mean, prod, max/min, var/std, logsumexp, norm, cumsum, all/any."""
import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..device import get_array_module
from ..tensor import Tensor, _wrap_dim

__all__ = ["sum", "mean"]


def _xp(x):
    return np if type(x) is np.ndarray else get_array_module(x)


def _dims(dim, ndim):
    """Normalises dim (None, int, or tuple) to a sorted tuple of axes, or None for all."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        return tuple(sorted(_wrap_dim(d, ndim) for d in dim))
    return (_wrap_dim(dim, ndim),)


def _unsqueeze_to(g, in_shape, axes, keepdim, F):
    """Reshapes a reduced gradient so it broadcasts against the input again."""
    if keepdim or axes is None and g.ndim == len(in_shape):
        return g
    if axes is None:
        return F.reshape(g, (1,) * len(in_shape))
    shape = list(in_shape)
    for a in axes:
        shape[a] = 1
    return F.reshape(g, tuple(shape))


class Sum(Function):
    __slots__ = ("in_shape", "axes", "keepdim")
    op = "sum"

    def forward(self, x, axes, keepdim, dtype):
        self.in_shape, self.axes, self.keepdim = x.shape, axes, keepdim
        if dtype is None and x.dtype.kind in "biu":
            dtype = np.int64  # PyTorch sums integers and bools in int64
        return x.sum(axis=axes, keepdims=keepdim, dtype=dtype)

    def backward(self, F, g):
        return (F.expand(_unsqueeze_to(g, self.in_shape, self.axes, self.keepdim, F), self.in_shape),)


class Mean(Function):
    __slots__ = ("in_shape", "axes", "keepdim", "count")
    op = "mean"

    def forward(self, x, axes, keepdim, dtype):
        if x.dtype.kind != "f" and dtype is None:
            raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating "
                               f"point or complex dtype. Got: {_dt.from_numpy_dtype(x.dtype).name.capitalize()}")
        self.in_shape, self.axes, self.keepdim = x.shape, axes, keepdim
        n = x.size if axes is None else int(np.prod([x.shape[a] for a in axes]))
        self.count = n
        return x.mean(axis=axes, keepdims=keepdim, dtype=dtype)

    def backward(self, F, g):
        g = _unsqueeze_to(g, self.in_shape, self.axes, self.keepdim, F)
        return (F.expand(g / self.count, self.in_shape),)


def sum(input, dim=None, keepdim=False, *, dtype=None, axis=None):
    """Returns the sum of all elements, or over the given dimension(s)."""
    dim = axis if dim is None else dim
    axes = _dims(dim, input._data.ndim)
    return Sum.apply(input, axes=axes, keepdim=keepdim, dtype=_dt.as_dtype(dtype).np if dtype else None)


def mean(input, dim=None, keepdim=False, *, dtype=None, axis=None):
    """Returns the mean of all elements, or over the given dimension(s)."""
    dim = axis if dim is None else dim
    axes = _dims(dim, input._data.ndim)
    return Mean.apply(input, axes=axes, keepdim=keepdim, dtype=_dt.as_dtype(dtype).np if dtype else None)


Tensor.sum = sum
Tensor.mean = mean
