"""Reductions: sum, mean, prod, max/min, var/std, logsumexp, norm, cumulative ops,
sort and selection.

A reduction remembers its input's shape and the axes it reduced; backward first
restores those axes as size-1 dims (torch's restore_reduced_dims) so the
gradient broadcasts against the input again. Ops that pick elements
(max/min over a dim, sort, topk, median) are gathers along the dim, so their
gradient goes back to the picked indices by gather's own rule.
"""
import collections
import math

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..device import get_array_module
from ..limits import check_elements
from ..tensor import Tensor, _wrap_dim
from .elementwise import FrexpResult, maximum, minimum
from .indexing import Gather

__all__ = ["sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "var", "std",
           "var_mean", "std_mean", "logsumexp", "logcumsumexp", "norm", "cumsum", "cumprod", "cummax", "cummin", "all",
           "any",
           "count_nonzero", "sort", "argsort", "topk", "median", "kthvalue", "mode", "searchsorted", "bucketize",
           "return_types"]

_int64 = np.int64


def _xp(x):
    return np if type(x) is np.ndarray else get_array_module(x)


def _array(out):
    return np.asarray(out) if isinstance(out, np.generic) else out


def _dims(dim, ndim):
    """Normalises dim (None, int, or tuple) to a sorted tuple of axes, or None for all of them."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        axes = tuple(sorted(_wrap_dim(d, ndim) for d in dim))
        if len(set(axes)) != len(axes):
            raise RuntimeError(f"dim {axes[0]} appears multiple times in the list of dims")
        return axes if axes and ndim else None
    axis = _wrap_dim(dim, ndim)
    return (axis,) if ndim else None


def _count(shape, axes):
    return math.prod(shape) if axes is None else math.prod(shape[a] for a in axes)


def _data(x):
    return x._data if isinstance(x, Tensor) else x


def _like(x, array):
    """A constant (mask, positions) in the namespace of ``x``: a Tensor under create_graph."""
    return Tensor._adopt_array(array, False, None) if isinstance(x, Tensor) else array


def _int_to_int64(x, dtype):
    if dtype is None and x.dtype.kind in "biu":
        return _int64  # PyTorch accumulates integers and bools in int64
    return dtype


def _require_float(x, name):
    if x.dtype.kind != "f":
        raise RuntimeError(f"{name}(): input dtype should be either floating point or complex dtypes. "
                           f"Got {_dt.from_numpy_dtype(x.dtype).name.capitalize()} instead.")


def _refuse_bool(x, kernel):
    if x.dtype == np.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _require_nonempty(x, name, axes):
    if x.size == 0:
        if axes is None:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                               f"Specify the reduction dim with the 'dim' argument.")
        for a in axes:
            if x.shape[a] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {a} to have non-zero size.")


def _check_result(x, axes):
    """A reduction's result is never larger than its input, except when the input is empty:
    ``zeros(0, 2**30).sum(0)`` has 2**30 elements. Checked before NumPy allocates it."""
    if x.size == 0 and axes is not None:
        check_elements(_reduced_shape(x.shape, axes), "reduction result")


class Reduction(Op):
    """An op that reduces ``axes`` (None: all) of its input, keeping them as size 1 with keepdim."""
    __slots__ = ("in_shape", "axes", "keepdim")
    # PyTorch's node for the reduction over dims, where its overload differs from the one over all
    dim_backward_name = None

    def name(self):
        if self.axes is not None and self.dim_backward_name is not None:
            return self.dim_backward_name
        return Op.name(self)

    def _remember(self, x, axes, keepdim):
        _check_result(x, axes)
        self.in_shape, self.axes, self.keepdim = x.shape, axes, keepdim

    def _restore(self, F, g):
        """``g`` (or the result) with the reduced dims put back as size 1."""
        if self.keepdim:
            return g
        if self.axes is None:
            return F.reshape(g, (1,) * len(self.in_shape))
        shape = list(g.shape)
        for a in self.axes:
            shape.insert(a, 1)
        return F.reshape(g, tuple(shape))


# --------------------------------------------------------------- sums and products
class Sum(Reduction):
    __slots__ = ()
    op = "sum"
    dim_backward_name = "SumBackward1"

    def forward(self, x, axes, keepdim, dtype):
        self._remember(x, axes, keepdim)
        return x.sum(axis=axes, keepdims=keepdim, dtype=_int_to_int64(x, dtype))

    def backward(self, F, g):
        return (F.expand(self._restore(F, g), self.in_shape),)


class Mean(Reduction):
    __slots__ = ()
    op = "mean"
    dim_backward_name = "MeanBackward1"

    def forward(self, x, axes, keepdim, dtype):
        if x.dtype.kind != "f" and dtype is None:
            raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating "
                               f"point or complex dtype. Got: {_dt.from_numpy_dtype(x.dtype).name.capitalize()}")
        self._remember(x, axes, keepdim)
        return x.mean(axis=axes, keepdims=keepdim, dtype=dtype)

    def backward(self, F, g):
        return (F.expand(self._restore(F, g) / _count(self.in_shape, self.axes), self.in_shape),)


class Prod(Reduction):
    """Each factor's gradient is the product of the others: result / x without zeros, and
    otherwise running products from either side, which stay exact (to second order) at zeros."""
    __slots__ = ()
    op = "prod"
    saves = (0, -1)
    dim_backward_name = "ProdBackward1"

    def forward(self, x, axes, keepdim, dtype):
        self._remember(x, axes, keepdim)
        return x.prod(axis=axes, keepdims=keepdim, dtype=_int_to_int64(x, dtype))

    def backward(self, F, g, x, y):
        g = self._restore(F, g)
        if not bool((x == 0).any()):
            return (g * self._restore(F, y) / x,)
        if self.axes is None:
            return (g * F.reshape(_products_of_others(F, F.reshape(x, (-1,)), 0), self.in_shape),)
        return (g * _products_of_others(F, x, self.axes[0]),)


def _positions(x, dim):
    """0..n-1 along ``dim`` of x, shaped to broadcast against it."""
    x = _data(x)
    n = x.shape[dim]
    return _xp(x).arange(n).reshape((n,) + (1,) * (x.ndim - dim - 1))


def _reverse_cumsum(F, x, dim):
    """Sums from each position to the end of ``dim``: cumsum's adjoint."""
    return F.flip(F.cumsum(F.flip(x, (dim,)), dim), (dim,))


def _products_of_others(F, x, dim):
    """prod_{m != i} x_m along ``dim`` for every i, as (product before i) * (product after i)."""
    pos = _positions(x, dim)
    n = pos.shape[0]
    before = F.where(_like(x, pos == 0), 1.0, F.roll(F.cumprod(x, dim), (1,), (dim,)))
    after = F.flip(F.cumprod(F.flip(x, (dim,)), dim), (dim,))
    after = F.where(_like(x, pos == n - 1), 1.0, F.roll(after, (-1,), (dim,)))
    return before * after


# --------------------------------------------------------------- extremes
def _share_among_ties(F, g, x, y, axes, nan_ties=False):
    """g split evenly among the elements equal to the result y (with ``nan_ties``, a NaN result's
    gradient is split among the NaNs; without, it is NaN, as torch's amax gives)."""
    ties = (x == y) | ((x != x) & (y != y)) if nan_ties else x == y
    return g / F.sum(ties, axes, keepdim=True) * ties


class Amax(Reduction):
    """amax over dims: the gradient is shared evenly among the elements equal to the result."""
    __slots__ = ()
    op = "amax"
    saves = (0, -1)
    nan_ties = False

    def forward(self, x, axes, keepdim):
        self._remember(x, axes, keepdim)
        _require_nonempty(x, self.op, axes)
        return self.reduce(x, axes, keepdim)

    @staticmethod
    def reduce(x, axes, keepdim):
        return x.max(axis=axes, keepdims=keepdim)

    def backward(self, F, g, x, y):
        return (_share_among_ties(F, self._restore(F, g), x, self._restore(F, y), self.axes, self.nan_ties),)


class Amin(Amax):
    __slots__ = ()
    op = "amin"

    @staticmethod
    def reduce(x, axes, keepdim):
        return x.min(axis=axes, keepdims=keepdim)


class Max(Amax):
    """max() of all elements: ties (or the NaNs that made it NaN) share the gradient evenly,
    as PyTorch's evenly_distribute_backward does."""
    __slots__ = ()
    op = "max"
    backward_name = "MaxBackward1"
    nan_ties = True


class Min(Amin):
    __slots__ = ()
    op = "min"
    backward_name = "MinBackward1"
    nan_ties = True


class Median(Amax):
    """median() of all elements: the lower of the two middle values; NaN if there is one."""
    __slots__ = ()
    op = "median"
    nan_ties = True

    @staticmethod
    def reduce(x, axes, keepdim):
        flat = x.reshape(-1)
        if flat.dtype.kind == "f" and bool(_xp(x).isnan(flat).any()):
            return _xp(x).asarray(math.nan, dtype=x.dtype)
        k = (flat.size - 1) // 2
        return _xp(x).partition(flat, k)[k]


class NanMedian(Median):
    """nanmedian() of all elements: the lower middle of the non-NaN values (NaN if all are NaN); ties
    share the gradient, as median's."""
    __slots__ = ()
    op = "nanmedian"
    backward_name = "NanmedianBackward0"

    @staticmethod
    def reduce(x, axes, keepdim):
        flat = x.reshape(-1)
        if flat.dtype.kind == "f":
            flat = flat[~_xp(x).isnan(flat)]
            if flat.size == 0:
                return _xp(x).asarray(math.nan, dtype=x.dtype)
        k = (flat.size - 1) // 2
        return _xp(x).partition(flat, k)[k]


class SelectAlong(Gather):
    """The element at ``index`` in each slice along ``dim`` (a gather, the dim dropped unless
    keepdim): max/min over a dim, sort, topk, median. The gradient goes to the index."""
    __slots__ = ("keepdim",)
    op = "select_along"

    def forward(self, x, dim, index, keepdim):
        self.keepdim = keepdim
        out = Gather.forward(self, x, dim, index)
        return out if keepdim or out.ndim == 0 else out.squeeze(dim)

    def backward(self, F, g, index):
        if not self.keepdim and self.in_shape:
            g = F.unsqueeze(g, self.dim)
        return Gather.backward(self, F, g, index)


class MaxDim(SelectAlong):
    __slots__ = ()
    op = "max"
    backward_name = "MaxBackward0"


class MinDim(SelectAlong):
    __slots__ = ()
    op = "min"
    backward_name = "MinBackward0"


class MedianDim(SelectAlong):
    __slots__ = ()
    op = "median"
    backward_name = "MedianBackward1"


class CummaxValues(SelectAlong):
    __slots__ = ()
    op = "cummax"
    backward_name = "CummaxBackward0"


class CumminValues(SelectAlong):
    __slots__ = ()
    op = "cummin"
    backward_name = "CumminBackward0"


class SortValues(SelectAlong):
    __slots__ = ()
    op = "sort"
    backward_name = "SortBackward0"


class TopkValues(SelectAlong):
    __slots__ = ()
    op = "topk"
    backward_name = "TopkBackward0"


class KthvalueValues(SelectAlong):
    __slots__ = ()
    op = "kthvalue"
    backward_name = "KthvalueBackward0"


class ModeValues(SelectAlong):
    __slots__ = ()
    op = "mode"
    backward_name = "ModeBackward0"


# --------------------------------------------------------------- spread
class Var(Reduction):
    """var with ``correction`` (Bessel's by default): d/dx = 2 (x - mean) / (N - correction)."""
    __slots__ = ("correction",)
    op = "var"
    saves = (0,)

    def forward(self, x, axes, keepdim, correction):
        _require_float(x, self.op)
        self._remember(x, axes, keepdim)
        self.correction = correction
        with np.errstate(divide="ignore", invalid="ignore"):
            return x.var(axis=axes, ddof=correction, keepdims=keepdim)

    def _centred(self, F, x):
        return x - F.sum(x, self.axes, keepdim=True) / _count(self.in_shape, self.axes)

    def backward(self, F, g, x):
        n = _count(self.in_shape, self.axes) - self.correction
        return (self._restore(F, g) * self._centred(F, x) * 2.0 / float(n),)


class Std(Var):
    """std = sqrt(var): d/dx = (x - mean) / ((N - correction) std)."""
    __slots__ = ()
    op = "std"
    saves = (0, -1)

    def forward(self, x, axes, keepdim, correction):
        return _xp(x).sqrt(Var.forward(self, x, axes, keepdim, correction))

    def backward(self, F, g, x, y):
        n = _count(self.in_shape, self.axes) - self.correction
        return (self._restore(F, g) * self._centred(F, x) / (self._restore(F, y) * float(n)),)


class Logsumexp(Reduction):
    """log(sum(exp(x))) computed around the maximum; d/dx = exp(x - result)."""
    __slots__ = ()
    op = "logsumexp"
    saves = (0, -1)

    def forward(self, x, axes, keepdim):
        self._remember(x, axes, keepdim)
        xp = _xp(x)
        if x.dtype.kind != "f":
            x = x.astype(_dt.get_default_dtype().np)
        m = x.max(axis=axes, keepdims=True) if x.size else xp.zeros((1,) * x.ndim, x.dtype)
        m = xp.where(xp.isinf(m), 0, m)  # all -inf (or +inf) slices: no shift
        out = xp.log(xp.exp(x - m).sum(axis=axes, keepdims=True)) + m
        return out if keepdim else out.reshape(_reduced_shape(x.shape, axes))

    def backward(self, F, g, x, y):
        return (self._restore(F, g) * F.exp(x - self._restore(F, y)),)


def _reduced_shape(shape, axes):
    if axes is None:
        return ()
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _div_or_zero(F, a, b):
    """a / b, and 0 where b == 0 (the gradient of a norm at zero is zero)."""
    zero = b == 0
    return F.where(zero, 0.0, a / F.where(zero, 1.0, b))


class Norm(Reduction):
    """The p-norm over dims. d/dx: p=2 x/|x|, p=1 sign(x), p=inf the sign at the largest |x|
    (shared among ties), general p x |x|^(p-2) / |x|_p^(p-1); zero where the norm is zero."""
    __slots__ = ("p",)
    op = "norm"
    backward_name = "LinalgVectorNormBackward0"
    saves = (0, -1)

    def forward(self, x, p, axes, keepdim):
        self._remember(x, axes, keepdim)
        self.p = p
        xp = _xp(x)
        if p == 2:
            return xp.sqrt((x * x).sum(axis=axes, keepdims=keepdim))
        a = xp.abs(x)
        if p == 1:
            return a.sum(axis=axes, keepdims=keepdim)
        if p == math.inf:
            return a.max(axis=axes, keepdims=keepdim)
        if p == -math.inf:
            return a.min(axis=axes, keepdims=keepdim)
        if p == 0:
            return (x != 0).sum(axis=axes, keepdims=keepdim).astype(x.dtype)
        return (a ** p).sum(axis=axes, keepdims=keepdim) ** (1.0 / p)

    def backward(self, F, g, x, y):
        p = self.p
        g, y = self._restore(F, g), self._restore(F, y)
        if p == 0:
            return (F.zeros_like(x),)
        if p == 1:
            return (g * F.sign(x),)
        if p == 2:
            return (g * _div_or_zero(F, x, y),)
        if math.isinf(p):
            return (F.sign(x) * _share_among_ties(F, g, F.abs(x), y, self.axes, nan_ties=True),)
        return (x * F.abs(x) ** (p - 2) * _div_or_zero(F, g, y ** (p - 1)),)


# --------------------------------------------------------------- cumulative
class Cumsum(Op):
    __slots__ = ("dim",)
    op = "cumsum"

    def forward(self, x, dim, dtype):
        self.dim = dim
        return x.cumsum(axis=dim, dtype=_int_to_int64(x, dtype))

    def backward(self, F, g):
        return (_reverse_cumsum(F, g, self.dim),)


_LOG_FLOOR = -1e30   # far below any log-magnitude a float32 gradient has, finite in float32 too
_SCALAR_NAME = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


class Logcumsumexp(Op):
    """log(cumsum(exp(x))) along dim, accumulated by logaddexp (no overflow). Its gradient is
    sum over j >= i of g_j exp(x_i - y_j), computed as PyTorch does in log space with the
    positive and negative parts of g apart, so no exp overflows either."""
    __slots__ = ("dim",)
    op = "logcumsumexp"
    saves = (0, -1)

    def forward(self, x, dim, dtype):
        if x.dtype.kind != "f":
            raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for "
                                      f"'{_SCALAR_NAME.get(x.dtype.name, x.dtype.name)}'")
        self.dim = dim
        return _xp(x).logaddexp.accumulate(x, axis=dim)

    def backward(self, F, g, x, y):
        d = self.dim
        log_g = F.log(F.abs(g))
        parts = []
        for keep in (g > 0, g < 0):
            # the other part's entries are a finite floor rather than -inf: exp(floor - y) is 0 all the same,
            # and the second derivative through logcumsumexp meets no -inf - -inf
            shifted = F.where(keep, log_g, _LOG_FLOOR) - y
            parts.append(F.exp(F.flip(F.logcumsumexp(F.flip(shifted, (d,)), d), (d,)) + x))
        return (parts[0] - parts[1],)


class Cumprod(Op):
    """d y_j / d x_i = y_j / x_i for i <= j, so the gradient is reverse_cumsum(g * y) / x.
    With zeros: in a first-order backward, PyTorch's O(n) rule (below); under create_graph,
    its O(n^2) form, whose own derivative is exact."""
    __slots__ = ("dim",)
    op = "cumprod"
    saves = (0, -1)

    def forward(self, x, dim, dtype):
        self.dim = dim
        return x.cumprod(axis=dim, dtype=_int_to_int64(x, dtype))

    def backward(self, F, g, x, y):
        if not bool((x == 0).any()):
            return (_reverse_cumsum(F, g * y, self.dim) / x,)
        if isinstance(x, Tensor):
            return (_cumprod_grad_by_omission(F, g, x, self.dim),)
        return (_cumprod_grad_at_zeros(F, g, x, y, self.dim),)


def _cumprod_grad_at_zeros(F, g, x, y, dim):
    """With the first zero of a slice at k: positions before k keep reverse_cumsum(g y) / x,
    k gets sum_{j>=k} g_j prod_{m<=j, m!=k} x_m, later positions 0 (they only reach y_j = 0)."""
    zero = x == 0
    pos = _positions(x, dim)
    first = _xp(x).where(zero.any(axis=dim, keepdims=True), zero.argmax(axis=dim, keepdims=True), pos.shape[0])
    before, at = pos < first, pos == first
    up_to_zero = F.where(before, _reverse_cumsum(F, g * y, dim) / F.where(before, x, 1.0), 0.0)
    without_zero = F.cumprod(F.where(at, 1.0, x), dim)
    at_zero = F.sum(F.where(pos >= first, g * without_zero, 0.0), dim, keepdim=True)
    return up_to_zero + F.where(at, at_zero, 0.0)


def _cumprod_grad_by_omission(F, g, x, dim):
    """sum_{j>=i} g_j prod_{m<=j, m!=i} x_m for every i: n running products, the i-th with x_i
    set to 1, along a new leading axis."""
    nd = x.ndim
    n = x.shape[dim]
    i = _xp(x._data).arange(n).reshape((n,) + (1,) * nd)
    j = _positions(x, dim).reshape((1,) * (dim + 1) + (n,) + (1,) * (nd - dim - 1))
    omitted = F.cumprod(F.where(_like(x, i == j), 1.0, F.unsqueeze(x, 0)), dim + 1)
    summed = F.sum(F.where(_like(x, j >= i), F.unsqueeze(g, 0) * omitted, 0.0), dim + 1)
    return F.permute(summed, tuple(range(1, dim + 1)) + (0,) + tuple(range(dim + 1, nd)))


# --------------------------------------------------------------- public functions
def _named_pair(name):
    cls = collections.namedtuple(name, ["values", "indices"])
    cls.__repr__ = lambda self: f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"
    cls.__module__ = "torch.return_types"
    return cls


class return_types:
    """torch.return_types: (values, indices) results that unpack as tuples."""
    max = _named_pair("max")
    min = _named_pair("min")
    sort = _named_pair("sort")
    topk = _named_pair("topk")
    median = _named_pair("median")
    nanmedian = _named_pair("nanmedian")
    kthvalue = _named_pair("kthvalue")
    mode = _named_pair("mode")
    frexp = FrexpResult
    cummax = _named_pair("cummax")
    cummin = _named_pair("cummin")


def _dtype_np(dtype):
    return _dt.as_dtype(dtype).np if dtype is not None else None


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Returns the sum of all elements, or over the given dimension(s)."""
    return Sum.apply(input, axes=_dims(dim, input._data.ndim), keepdim=keepdim, dtype=_dtype_np(dtype))


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Returns the mean of all elements, or over the given dimension(s)."""
    if dtype is not None and not _dt.as_dtype(dtype).is_floating_point:
        raise RuntimeError(f"mean(): could not infer output dtype. Optional dtype must be either a floating point "
                           f"or complex dtype. Got: {_SCALAR_NAME[_dt.as_dtype(dtype).np.name]}")
    return Mean.apply(input, axes=_dims(dim, input._data.ndim), keepdim=keepdim, dtype=_dtype_np(dtype))


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Returns the product of all elements, or over the given dimension."""
    if isinstance(dim, (list, tuple)):
        raise TypeError("prod(): argument 'dim' must be int, not tuple")
    return Prod.apply(input, axes=_dims(dim, input._data.ndim), keepdim=keepdim, dtype=_dtype_np(dtype))


def amax(input, dim=(), keepdim=False):
    """Returns the maximum over the given dimension(s); ties share the gradient evenly."""
    return Amax.apply(input, axes=_dims(dim, input._data.ndim), keepdim=keepdim)


def amin(input, dim=(), keepdim=False):
    """Returns the minimum over the given dimension(s); ties share the gradient evenly."""
    return Amin.apply(input, axes=_dims(dim, input._data.ndim), keepdim=keepdim)


def _select(cls, result, input, index, dim, keepdim):
    """A (values, indices) result picking ``index`` (keepdim-shaped) along ``dim``."""
    values = cls.apply(input, dim=dim, index=index, keepdim=keepdim)
    indices = index if keepdim or index.ndim == 0 else index.squeeze(dim)
    return result(values, Tensor._adopt_array(indices.astype(_int64, copy=False), False, None))


def _extreme(full_cls, dim_cls, result, arg, input, dim, keepdim):
    if isinstance(dim, Tensor):
        return (maximum if arg == "argmax" else minimum)(input, dim)
    if dim is None:
        return full_cls.apply(input, axes=None, keepdim=False)
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return _select(dim_cls, result, input, _xp(x).zeros((), _int64), 0, keepdim)
    _require_nonempty(x, full_cls.op, (d,))
    return _select(dim_cls, result, input, getattr(x, arg)(axis=d, keepdims=True), d, keepdim)


def max(input, dim=None, keepdim=False, *, out=None):
    """The maximum of all elements; with ``dim``, (values, indices) along it, the first index winning
    ties; with a tensor as second argument, the elementwise maximum."""
    return _extreme(Max, MaxDim, return_types.max, "argmax", input, dim, keepdim)


def min(input, dim=None, keepdim=False, *, out=None):
    """The minimum of all elements; with ``dim``, (values, indices) along it, the first index winning
    ties; with a tensor as second argument, the elementwise minimum."""
    return _extreme(Min, MinDim, return_types.min, "argmin", input, dim, keepdim)


def _arg_extreme(arg, input, dim, keepdim):
    x = input._data
    if x.dtype == np.bool_:
        raise RuntimeError(f"{arg}(): does not support bool input")
    if dim is None:
        if x.size == 0:
            raise IndexError(f"{arg}(): Expected reduction dim to be specified for input.numel() == 0.")
        out = _array(getattr(x.reshape(-1), arg)())
        if keepdim:
            out = out.reshape((1,) * x.ndim)
    elif x.ndim == 0:
        _wrap_dim(dim, 0)
        out = _xp(x).zeros((), _int64)
    else:
        d = _wrap_dim(dim, x.ndim)
        _require_nonempty(x, arg, (d,))
        out = getattr(x, arg)(axis=d, keepdims=keepdim)
    return Tensor._adopt_array(_array(out).astype(_int64, copy=False), False, None)


def argmax(input, dim=None, keepdim=False):
    """Returns the indices of the maximum values (the first one among ties)."""
    return _arg_extreme("argmax", input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    """Returns the indices of the minimum values (the first one among ties)."""
    return _arg_extreme("argmin", input, dim, keepdim)


def _correction(dim, unbiased, correction):
    """torch's var/std overloads: var(x, dim, unbiased, keepdim), var(x, unbiased), correction=."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return dim, correction


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Calculates the variance over the given dimension(s) (Bessel's correction by default)."""
    dim, correction = _correction(dim, unbiased, correction)
    return Var.apply(input, axes=_dims(dim, input._data.ndim), keepdim=keepdim, correction=correction)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Calculates the standard deviation over the given dimension(s)."""
    dim, correction = _correction(dim, unbiased, correction)
    return Std.apply(input, axes=_dims(dim, input._data.ndim), keepdim=keepdim, correction=correction)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Returns (variance, mean) over the given dimension(s)."""
    return var(input, dim, unbiased, keepdim, correction=correction), mean(
        input, None if isinstance(dim, bool) else dim, keepdim)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Returns (standard deviation, mean) over the given dimension(s)."""
    return std(input, dim, unbiased, keepdim, correction=correction), mean(
        input, None if isinstance(dim, bool) else dim, keepdim)


def logsumexp(input, dim, keepdim=False):
    """Returns the log of summed exponentials over the given dimension(s), computed stably."""
    return Logsumexp.apply(input, axes=_dims(dim, input._data.ndim), keepdim=keepdim)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """Returns the p-norm (2, 1, inf, -inf, 0, 'fro' or any number) over the given dimension(s)."""
    if p is None or p == "fro":
        p = 2
    elif isinstance(p, str):
        raise RuntimeError(f"norm(): p={p!r} is not supported")
    if dtype is not None:
        input = input.to(dtype)
    _require_float(input._data, "linalg.vector_norm")
    return Norm.apply(input, p=float(p), axes=_dims(dim, input._data.ndim), keepdim=keepdim)


def _cumulative(cls, input, dim, dtype):
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    if x.ndim == 0:  # a 0-d tensor is its own running total
        return cls.apply(input.reshape(1), dim=0, dtype=_dtype_np(dtype)).reshape(())
    return cls.apply(input, dim=d, dtype=_dtype_np(dtype))


def cumsum(input, dim, *, dtype=None):
    """Returns the cumulative sum of elements of input in the dimension dim."""
    return _cumulative(Cumsum, input, dim, dtype)


def logcumsumexp(input, dim, *, out=None):
    """Returns log(cumsum(exp(input))) in the dimension dim, without overflow."""
    return _cumulative(Logcumsumexp, input, dim, None)


def cumprod(input, dim, *, dtype=None):
    """Returns the cumulative product of elements of input in the dimension dim."""
    return _cumulative(Cumprod, input, dim, dtype)


def _logical(name, input, dim, keepdim):
    x = input._data
    axes = _dims(dim, x.ndim)
    _check_result(x, axes)
    out = _array(getattr(x, name)(axis=axes, keepdims=keepdim))
    return Tensor._adopt_array(out.astype(x.dtype) if x.dtype == np.uint8 else out, False, None)   # uint8 stays, as PyTorch


def all(input, dim=None, keepdim=False):
    """Tests if all elements in input evaluate to True."""
    return _logical("all", input, dim, keepdim)


def any(input, dim=None, keepdim=False):
    """Tests if any element in input evaluates to True."""
    return _logical("any", input, dim, keepdim)


def count_nonzero(input, dim=None):
    """Counts the number of non-zero values in input over the given dimension(s)."""
    x = input._data
    axes = _dims(dim, x.ndim)
    _check_result(x, axes)
    out = (x != 0).sum(axis=axes)
    return Tensor._adopt_array(_array(out).astype(_int64, copy=False), False, None)


def _argsort(x, dim, descending):
    """Stable sort indices; descending keeps equal elements in their original order (NaN first)."""
    xp = _xp(x)
    if not descending:
        return xp.argsort(x, axis=dim, kind="stable")
    n = x.shape[dim]
    return n - 1 - xp.flip(xp.argsort(xp.flip(x, dim), axis=dim, kind="stable"), dim)


def _first(index, dim, k):
    return index[(slice(None),) * dim + (slice(0, k),)]


def sort(input, dim=-1, descending=False, stable=False):
    """Sorts the elements of input along a dimension; returns (values, indices)."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    index = _xp(x).zeros((), _int64) if x.ndim == 0 else _argsort(x, d, descending)
    return _select(SortValues, return_types.sort, input, index, d, True)


def _running_index(x, d, extreme):
    """For each position along ``d``, the index of the running maximum (minimum) so far: the latest of
    equal ones, and the latest NaN once one is met (PyTorch's cummax / cummin)."""
    xp = _xp(x)
    running = getattr(xp, extreme.__name__).accumulate(x, axis=d)
    mark = x == running
    if x.dtype.kind == "f":
        mark |= xp.isnan(x)
    n = x.shape[d]
    pos = xp.arange(n, dtype=_int64).reshape((1,) * d + (n,) + (1,) * (x.ndim - d - 1))
    return xp.maximum.accumulate(xp.where(mark, pos, 0), axis=d)


def _cumulative_extreme(cls, result, extreme, input, dim):
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    index = _xp(x).zeros((), _int64) if x.ndim == 0 else _running_index(x, d, extreme)
    return _select(cls, result, input, index, d, True)


def cummax(input, dim):
    """The running maximum along ``dim`` and where each was found: (values, indices)."""
    return _cumulative_extreme(CummaxValues, return_types.cummax, np.maximum, input, dim)


def cummin(input, dim):
    """The running minimum along ``dim`` and where each was found: (values, indices)."""
    return _cumulative_extreme(CumminValues, return_types.cummin, np.minimum, input, dim)


def argsort(input, dim=-1, descending=False, stable=False):
    """Returns the indices that sort input along a dimension."""
    return sort(input, dim, descending, stable).indices


def topk(input, k, dim=-1, largest=True, sorted=True):
    """Returns the k largest (or smallest) elements along a dimension, as (values, indices)."""
    x = input._data
    if x.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d] if x.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    index = _xp(x).zeros((), _int64) if x.ndim == 0 else _first(_argsort(x, d, largest), d, k)
    return _select(TopkValues, return_types.topk, input, index, d, True)


def median(input, dim=None, keepdim=False):
    """The lower median of all elements; with ``dim``, (values, indices) along it. NaN propagates."""
    x = input._data
    _refuse_bool(x, "median_cpu" if dim is None else "median_out")
    if dim is None:
        if x.size == 0 and x.dtype.kind == "f":
            return Mean.apply(input, axes=None, keepdim=False, dtype=None)   # NaN, as PyTorch's
        _require_nonempty(x, "median", None)
        return Median.apply(input, axes=None, keepdim=False)
    d = _wrap_dim(dim, x.ndim)
    xp = _xp(x)
    if x.ndim == 0:
        return _select(MedianDim, return_types.median, input, xp.zeros((), _int64), 0, keepdim)
    _require_nonempty(x, "median", (d,))
    n = x.shape[d]
    index = _argsort(x, d, False)[(slice(None),) * d + (slice((n - 1) // 2, (n + 1) // 2),)]
    if x.dtype.kind == "f":
        nan = xp.isnan(x)
        index = xp.where(nan.any(axis=d, keepdims=True), nan.argmax(axis=d, keepdims=True), index)
    return _select(MedianDim, return_types.median, input, index, d, keepdim)


def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """The k-th smallest element along dim (k from 1), as (values, indices); NaN sorts last, as
    PyTorch's. The gradient goes to the element picked (SelectAlong, as median's)."""
    x = input._data
    _refuse_bool(x, "kthvalue_cpu")
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d] if x.ndim else 1
    if x.ndim:
        _require_nonempty(x, "kthvalue", (d,))
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if x.ndim == 0:
        return _select(KthvalueValues, return_types.kthvalue, input, _xp(x).zeros((), _int64), 0, keepdim)
    index = _argsort(x, d, False)[(slice(None),) * d + (slice(k - 1, k),)]
    return _select(KthvalueValues, return_types.kthvalue, input, index, d, keepdim)


def _mode_index(x, d):
    """Along axis d, the index of the most frequent value (keepdim-shaped): ties go to the smallest
    value, and its last occurrence is the index, as PyTorch's CPU kernel; NaNs never equal each other."""
    xp = _xp(x)
    moved = xp.moveaxis(x, d, -1)
    order = xp.argsort(moved, axis=-1, kind="stable")
    ranked = xp.take_along_axis(moved, order, axis=-1)
    n = ranked.shape[-1]
    pos = xp.arange(n)
    starts = xp.ones(ranked.shape, dtype=bool)
    starts[..., 1:] = ranked[..., 1:] != ranked[..., :-1]
    ends = xp.ones(ranked.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    run_start = xp.maximum.accumulate(xp.where(starts, pos, 0), axis=-1)
    run_end = xp.flip(xp.minimum.accumulate(xp.flip(xp.where(ends, pos, n), -1), axis=-1), -1)
    length = xp.where(starts, run_end - run_start + 1, 0)
    first = xp.argmax(length, axis=-1)[..., None]   # the first longest run: the smallest value
    last = first + xp.take_along_axis(length, first, axis=-1) - 1
    return xp.moveaxis(xp.take_along_axis(order, last, axis=-1), -1, d)


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along dim and the index of its last occurrence, as (values, indices);
    ties go to the smallest value. The gradient goes to the element picked."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return _select(ModeValues, return_types.mode, input, _xp(x).zeros((), _int64), 0, keepdim)
    _require_nonempty(x, "mode", (d,))
    return _select(ModeValues, return_types.mode, input, _mode_index(x, d), d, keepdim)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None):
    """Indices where the values of input would be inserted into the innermost dimension of
    sorted_sequence to keep it sorted (no gradient: the answer is an index)."""
    if side is not None and side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
    if side == "left" and right:
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                           "while right was True")
    side = side or ("right" if right else "left")
    seq = sorted_sequence._data
    scalar = not isinstance(input, Tensor)
    vals = _xp(seq).asarray(input) if scalar else input._data
    xp = _xp(seq)
    if sorter is not None:
        seq = xp.take_along_axis(seq, sorter._data, axis=-1)
    if seq.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension")
    if seq.ndim == 1 or scalar:
        if seq.ndim != 1:
            raise RuntimeError("torch.searchsorted(): input value can be a scalar only when boundaries tensor "
                               f"dimension is 1, but we got boundaries tensor dim({seq.ndim})")
        index = xp.searchsorted(seq, vals, side=side)
    else:
        if seq.shape[:-1] != vals.shape[:-1]:
            raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                               "dimensions of boundaries tensor and input value tensor must match, but we got "
                               f"boundaries tensor {list(seq.shape)} and input value tensor {list(vals.shape)}")
        rows = seq.reshape(-1, seq.shape[-1])
        queries = vals.reshape(-1, vals.shape[-1])
        index = xp.stack([xp.searchsorted(r, q, side=side) for r, q in zip(rows, queries)]).reshape(vals.shape) \
            if rows.shape[0] else xp.zeros(vals.shape, _int64)
    index = xp.asarray(index, dtype=np.int32 if out_int32 else _int64)
    return Tensor._adopt_array(index, False, None)


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The index of the bucket of boundaries (1-D, sorted) each value of input falls in."""
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def _register():
    for name in ("sum", "mean", "prod", "amax", "amin", "argmax", "argmin", "var", "std", "logsumexp",
                 "norm", "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "all", "any", "count_nonzero", "sort",
                 "argsort",
                 "topk",
                 "median", "kthvalue", "mode"):
        setattr(Tensor, name, globals()[name])
    Tensor.max = max
    Tensor.min = min


_register()
