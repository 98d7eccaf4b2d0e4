"""Indexing: ``x[index]`` and ``x[index] = value`` with PyTorch's index forms, and
the index-driven ops: gather, scatter, scatter_add, index_select, index_add,
masked_fill, masked_select, take, take_along_dim.

Basic indexing (ints, slices, None, Ellipsis) gives a view; advanced indexing
(integer tensors, lists, boolean masks) gives a copy. The backward of a read is
a scatter-add into zeros, whose own backward is the read again: every pair here
is each other's adjoint (gather / scatter_add, index_select / index_add).
"""
import math
import warnings

import numpy as np

from .. import dtypes as _dt
from ..autograd import array_ops as _arr
from ..autograd.function import Op
from ..autograd.state import state
from ..limits import check_elements
from ..tensor import OVERLAP_MESSAGE, Tensor, _host, _wrap_dim, overlaps_itself
from .linalg import _C_TYPE, _SCALAR_TYPE
from .shape import Slice, _xp, broadcast_shapes, expand, flatten, reshape

__all__ = ["nonzero", "argwhere", "index_put", "gather", "scatter", "scatter_add", "scatter_reduce", "index_select",
           "index_add", "index_fill", "masked_fill", "masked_scatter", "masked_select", "take", "take_along_dim",
           "unique"]

_ndarray = np.ndarray
_INDEX_TYPE_ERROR = "tensors used as indices must be long, int, byte or bool tensors"


# ------------------------------------------------------------------ index conversion
def _convert_index(index, data):
    """Turns a PyTorch index into a NumPy one, checked against data's shape.

    Returns (index tuple, basic): basic means only ints, slices, None and
    Ellipsis, so the result is a view.
    """
    shape = data.shape
    if type(index) is int:  # x[i], the form loops use: checked and returned at once
        if not shape:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        if not -shape[0] <= index < shape[0]:
            raise IndexError(f"index {index} is out of bounds for dimension 0 with size {shape[0]}")
        return (index, Ellipsis), True
    if type(index) is list and _sequence_as_tuple(index):
        index = tuple(index)
    items = index if type(index) is tuple else (index,)
    out = []
    basic = True
    for item in items:
        t = type(item)
        if t is int or t is slice or item is None or item is Ellipsis:
            if t is slice and not (type(item.start) in _PLAIN and type(item.stop) in _PLAIN
                                   and type(item.step) in _PLAIN):
                item = slice(_opt_int(item.start), _opt_int(item.stop), _opt_int(item.step))
            if t is slice and item.step is not None and not 0 < item.step < _INT64_LIMIT:
                if item.step > 0:   # PyTorch's size computation overflows there (an error, or an empty result)
                    raise RuntimeError(f"slice step {item.step} does not fit in a 64-bit integer")
                raise ValueError("step must be greater than zero" if item.step else "slice step cannot be zero")
            out.append(item)
        elif t is bool:
            out.append(item)
            basic = False
        else:
            arr = _index_array(item, data)
            if arr.ndim == 0 and arr.dtype.kind in "iu":
                out.append(int(arr))  # a 0-dim integer tensor indexes like an int (a view)
            else:
                out.append(arr)
                basic = False
    _check_bounds(out, shape)
    if basic and Ellipsis not in out:
        out.append(Ellipsis)  # NumPy then returns a 0-d view, not a scalar copy, for x[i, j]
    return tuple(out), basic


def _sequence_as_tuple(index):
    """PyTorch's (and old NumPy's) legacy rule: a short list holding a sequence, tensor, slice, None or
    Ellipsis indexes as a tuple of indices (``x[[rows, cols]]`` is ``x[rows, cols]``)."""
    if len(index) >= 32:
        return False
    for item in index:
        if item is None or item is Ellipsis or isinstance(item, (list, tuple, slice, Tensor)):
            return True
    return False


_PLAIN = (int, type(None))
_INT64_LIMIT = 2 ** 63


def _index_array(item, data):
    """An index item that is not an int, slice, None, Ellipsis or bool, as an array on data's device."""
    from .creation import _ARRAY_TYPES
    if isinstance(item, Tensor):
        arr = item._data
    elif isinstance(item, np.generic):
        arr = np.asarray(item)
    elif type(item) in _ARRAY_TYPES:   # a program's NumPy array (x[idx] with idx = np.array([...]))
        arr = _ARRAY_TYPES[type(item)](item)
    elif isinstance(item, int):   # an int subclass: a program's np.int64(...) scalar
        return np.asarray(_int(item))
    elif hasattr(item, "dtype") and hasattr(item, "shape"):
        arr = item
    elif isinstance(item, range):   # x[range(n), y], as PyTorch (a list of the range's integers)
        check_elements((len(item),))
        arr = np.arange(item.start, item.stop, item.step, dtype=np.int64)
    elif isinstance(item, (list, tuple)):
        try:
            arr = np.asarray(item)
        except ValueError:
            raise IndexError(_INDEX_TYPE_ERROR) from None
        if arr.size == 0:
            arr = arr.astype(np.int64)
    else:
        return np.asarray(_int(item))
    kind = arr.dtype.kind
    if kind not in "biu":
        raise IndexError(_INDEX_TYPE_ERROR)
    if arr.dtype == np.uint8:
        arr = arr.astype(np.bool_)  # PyTorch reads byte tensors as masks
    return _on_device_of(arr, data)


def _on_device_of(arr, like):
    """arr moved to the device (NumPy or CuPy) that holds ``like``."""
    if type(arr) is type(like):
        return arr
    return _host(arr) if type(like) is _ndarray else _xp(like).asarray(arr)


def _int(x):
    try:
        return x.__index__()
    except (AttributeError, TypeError):
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                         "are valid indices (got " + type(x).__name__ + ")") from None


def _opt_int(x):
    return None if x is None else _int(x)


def _consumes(item):
    """How many dimensions of the indexed tensor an index item uses up."""
    if item is None or item is Ellipsis or type(item) is bool:
        return 0
    if type(item) is int or type(item) is slice:
        return 1
    return item.ndim if item.dtype == np.bool_ else 1


def _check_bounds(index, shape):
    """IndexError, in PyTorch's words, for indices past the tensor's dimensions or sizes."""
    used = 0
    for item in index:
        used += _consumes(item)
    if used > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    dim = 0
    for item in index:
        t = type(item)
        if t is int:
            size = shape[dim]
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for dimension {dim} with size {size}")
            dim += 1
        elif t is slice:
            dim += 1
        elif item is Ellipsis:
            dim = len(shape) - (used - dim)
        elif item is None or t is bool:
            continue
        elif item.dtype == np.bool_:
            for j, n in enumerate(item.shape):
                if n != shape[dim + j]:
                    raise IndexError(f"The shape of the mask {list(item.shape)} at index {j} does not match the "
                                     f"shape of the indexed tensor {list(shape)} at index {dim + j}")
            dim += item.ndim
        else:
            size = shape[dim]
            if item.size:
                hi, lo = int(item.max()), int(item.min())
                if hi >= size or lo < -size:
                    bad = hi if hi >= size else lo
                    raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
            dim += 1


def _split_ints(index):
    """PyTorch applies an index's ints before its arrays (so x[0, :, [1, 2]] has shape (3, 2),
    where NumPy gives (2, 3)): the basic part with the ints, and the rest without them."""
    first, rest = [], []
    for item in index:
        if type(item) is int:
            first.append(item)
        elif item is Ellipsis:
            first.append(item)
            rest.append(item)
        elif item is None:
            rest.append(item)
        else:
            first.extend([slice(None)] * _consumes(item))
            rest.append(item)
    if Ellipsis not in first:
        first.append(Ellipsis)
    return tuple(first), tuple(rest)


def _gathered_bound(index, shape):
    """At most how many elements an advanced index gathers: the integer arrays' broadcast
    size times the sizes of the dimensions they do not index (masks never add elements)."""
    arrays = [i for i in index if hasattr(i, "dtype") and i.dtype != np.bool_]
    n = math.prod(np.broadcast_shapes(*[a.shape for a in arrays])) if arrays else 1
    dim = 0
    used = sum(_consumes(i) for i in index)
    for item in index:
        if item is Ellipsis:
            skipped = len(shape) - used
            n *= math.prod(shape[dim:dim + skipped])
            dim += skipped
        elif type(item) is int or (hasattr(item, "dtype") and item.dtype != np.bool_):
            dim += 1
        else:
            k = _consumes(item)
            n *= math.prod(shape[dim:dim + k])
            dim += k
    return n * math.prod(shape[dim:])


def _has_int(index):
    for item in index:
        if type(item) is int:
            return True
    return False


def _accumulates(index):
    """Whether an advanced index can name one element twice (integer arrays can; masks cannot)."""
    for item in index:
        if hasattr(item, "dtype") and item.dtype != np.bool_:
            return True
    return False


# ------------------------------------------------------------------ x[index]
class Index(Op):
    """x[advanced index]: a copy."""
    __slots__ = ("in_shape", "index")
    op = "index"

    def forward(self, x, index):
        self.in_shape = x.shape
        self.index = index
        return x[index]

    def backward(self, F, g):
        return (F.index_put(F.new_zeros(g, self.in_shape), self.index, g, _accumulates(self.index)),)


class IndexPut(Op):
    """out = x with x[index] set to (or, accumulating, increased by) values."""
    __slots__ = ("index", "accumulate", "v_shape")
    op = "index_put"

    def forward(self, x, values, index, accumulate=False):
        self.index = index
        self.accumulate = accumulate
        self.v_shape = values.shape if hasattr(values, "shape") else None
        return _index_put_array(x.copy(), index, values, accumulate)

    def backward(self, F, g):
        gx = g if self.accumulate else F.index_put(g, self.index, 0.0)
        gv = None
        if self.v_shape is not None and self.next_functions[1][0] is not None:
            gv = F.getitem(g, self.index)
            if tuple(gv.shape) != tuple(self.v_shape):
                gv = F.sum_to(gv, self.v_shape)
        return gx, gv


class SetItem(IndexPut):
    """x[index] = values recorded on x itself: x's memory is written, not copied.

    Safe because the rule saves nothing: its backward needs only the index.
    """
    __slots__ = ()

    def forward(self, x, values, index, accumulate=False):
        self.index = index
        self.accumulate = accumulate
        self.v_shape = values.shape if hasattr(values, "shape") else None
        return _index_put_array(x, index, values, accumulate)

    def name(self):
        # PyTorch writes a basic index through a view of x (CopySlices), an advanced one with index_put_
        basic = not any(hasattr(item, "dtype") or type(item) is bool for item in self.index)
        return "CopySlices" if basic else "IndexPutBackward0"


def _index_put_array(out, index, values, accumulate):
    if hasattr(values, "dtype") and values.dtype != out.dtype:
        values = values.astype(out.dtype)
    if overlaps_itself(out):
        raise RuntimeError(OVERLAP_MESSAGE)
    if accumulate:
        _arr._add_at(out, index, values)  # repeated indices add up
    else:
        out[index] = values
    return out


def getitem(x, index):
    """x[index] with PyTorch's index forms."""
    idx, basic = _convert_index(index, x._data)
    if basic:
        return Slice.apply(x, index=idx)
    if state.element_limit is not None:
        check_elements((_gathered_bound(idx, x._data.shape),), "indexing result")
    if _has_int(idx):
        first, rest = _split_ints(idx)
        return Index.apply(Slice.apply(x, index=first), index=rest)
    return Index.apply(x, index=idx)


def index_put(input, indices, values, accumulate=False):
    """Returns input with the positions ``indices`` set to (or increased by) values."""
    idx, _ = _convert_index(indices, input._data)
    return IndexPut.apply(input, _value(values, input), index=idx, accumulate=accumulate)


def _value(value, like):
    if isinstance(value, (list, tuple)) or (hasattr(value, "dtype") and not isinstance(value, Tensor)):
        from .creation import tensor
        return tensor(value, dtype=like.dtype, device=like.device)
    if isinstance(value, Tensor) and value.device != like.device:
        return value.to(like.device)          # x[i] = a tensor of another device copies it over, as torch
    return value


def _setitem(self, index, value):
    """x[index] = value, recorded in the graph when autograd is on."""
    idx, basic = _convert_index(index, self._data)
    value = _value(_dt.checked_scalar(value, self._data.dtype), self)
    if not basic and _has_int(idx):
        first, idx = _split_ints(idx)
        self = Slice.apply(self, index=first)
    if isinstance(value, Tensor) and value._data.ndim:
        target = self._data[idx].shape
        vshape = value._data.shape
        while len(vshape) > len(target) and vshape[0] == 1:
            vshape = vshape[1:]  # PyTorch drops leading unit dimensions of the value
        try:
            np.broadcast_shapes(vshape, target)
        except ValueError:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(value._data.shape)} cannot be "
                               f"broadcast to indexing result of shape {list(target)}") from None
        if vshape != value._data.shape:
            value = reshape(value, vshape)
    tracked = state.grad_enabled and (self.requires_grad or (isinstance(value, Tensor) and value.requires_grad))
    if not tracked:
        _index_put_array(self._data, idx, value._data if isinstance(value, Tensor) else value, False)
        self._version[0] += 1
        return
    if self._base is not None and self._view is not None:
        self._inplace(lambda x, v: IndexPut.apply(x, v, index=idx), value)
        return
    if self.requires_grad and self.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    out = SetItem.apply(self, value, index=idx)
    self._version[0] += 1
    self.grad_fn = out.grad_fn
    self.requires_grad = True


def nonzero(input, *, as_tuple=False):
    """Returns the indices of the elements of input that are non-zero."""
    data = input._data
    xp = _xp(data)
    if data.ndim == 0:
        hit = int(bool(data))
        if as_tuple:
            return (Tensor._adopt_array(xp.zeros(hit, np.int64), False, None),)
        return Tensor._adopt_array(xp.zeros((hit, 0), np.int64), False, None)
    idx = xp.nonzero(data)
    if as_tuple:
        return tuple(Tensor._adopt_array(i.astype(np.int64), False, None) for i in idx)
    return Tensor._adopt_array(xp.stack(idx, axis=1).astype(np.int64), False, None)


def argwhere(input):
    """Returns a tensor containing the indices of all non-zero elements of input."""
    return nonzero(input)


# ------------------------------------------------------------------ gather / scatter
def _index_data(index, fn, like):
    """The array behind an index argument (tensor or array), checked to be integral."""
    arr = index._data if isinstance(index, Tensor) else index
    if not hasattr(arr, "dtype"):
        arr = np.asarray(arr)
    if arr.dtype.kind not in "iu":
        raise RuntimeError(f"{fn}(): Expected dtype int64 for index")
    return _on_device_of(arr, like)


def _check_range(index, size, dim):
    if index.size:
        hi, lo = int(index.max()), int(index.min())
        if hi >= size or lo < 0:
            raise RuntimeError(f"index {hi if hi >= size else lo} is out of bounds for dimension {dim} with size "
                               f"{size}")


def _check_gather_shapes(fn, x_shape, dim, idx_shape, src_shape=None):
    what = "self" if fn != "gather" else "input"
    if len(idx_shape) != len(x_shape) and not (len(idx_shape) <= 1 and len(x_shape) <= 1):
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} tensor")
    if src_shape is not None and len(idx_shape) != len(src_shape) and not (len(idx_shape) <= 1 and len(src_shape) <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    for d in range(len(idx_shape)):
        if d != dim and len(x_shape) > d and idx_shape[d] > x_shape[d]:
            if src_shape is None:
                raise RuntimeError(f"Size does not match at dimension {d} expected index {list(idx_shape)} to be "
                                   f"no larger than self {list(x_shape)} apart from dimension {dim}")
            raise RuntimeError(f"Expected index {list(idx_shape)} to be no larger than self {list(x_shape)} apart "
                               f"from dimension {dim} and to be no larger size than src {list(src_shape)}")
        if src_shape is not None and len(src_shape) > d and idx_shape[d] > src_shape[d]:
            raise RuntimeError(f"Expected index {list(idx_shape)} to be no larger than self {list(x_shape)} apart "
                               f"from dimension {dim} and to be no larger size than src {list(src_shape)}")


class Gather(Op):
    __slots__ = ("dim", "in_shape")
    op = "gather"

    def forward(self, x, dim, index):
        self.dim, self.in_shape = dim, x.shape
        self.keep(index)
        return _arr.gather(x, dim, index)

    def backward(self, F, g, index):
        return (F.scatter_add(F.new_zeros(g, self.in_shape), self.dim, index, g),)


class Scatter(Op):
    __slots__ = ("dim", "src_is_tensor")
    op = "scatter"

    def forward(self, x, src, dim, index):
        self.dim = dim
        self.src_is_tensor = hasattr(src, "shape")
        self.keep(index)
        if self.src_is_tensor and src.dtype != x.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        return _arr.scatter(x, dim, index, src)

    def backward(self, F, g, index):
        gsrc = F.gather(g, self.dim, index) if self.src_is_tensor else None
        return F.scatter(g, self.dim, index, 0.0), gsrc

    def name(self):
        return "ScatterBackward0" if self.src_is_tensor else "ScatterBackward1"


class ScatterAdd(Op):
    __slots__ = ("dim",)
    op = "scatter_add"

    def forward(self, x, src, dim, index):
        if src.dtype != x.dtype:
            raise RuntimeError("scatter_add(): Expected self.dtype to be equal to src.dtype")
        self.dim = dim
        self.keep(index)
        return _arr.scatter_add(x, dim, index, src)

    def backward(self, F, g, index):
        return g, F.gather(g, self.dim, index)


def gather(input, dim, index, *, sparse_grad=False, out=None):
    """Gathers values along an axis specified by dim: out[i][j] = input[i][index[i][j]] (dim 1)."""
    x = input._data
    dim = _wrap_dim(dim, x.ndim)
    idx = _index_data(index, "gather", x)
    _check_gather_shapes("gather", x.shape, dim, idx.shape)
    _check_range(idx, x.shape[dim] if x.ndim else 1, dim)
    return Gather.apply(input, dim=dim, index=idx)


def _scatter_args(fn, input, dim, index, src):
    x = input._data
    dim = _wrap_dim(dim, x.ndim)
    idx = _index_data(index, fn, x)
    src_shape = src._data.shape if isinstance(src, Tensor) else None
    _check_gather_shapes(fn, x.shape, dim, idx.shape, src_shape)
    _check_range(idx, x.shape[dim] if x.ndim else 1, dim)
    if src_shape is not None and src._data.ndim and src_shape != idx.shape:
        src = Slice.apply(src, index=tuple(slice(0, n) for n in idx.shape))  # only index's corner is read
    return dim, idx, src


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """Writes the values of src (or value) into input at the indices along dim (out of place)."""
    if reduce is not None:
        raise NotImplementedError("scatter(reduce=...) is not supported; use scatter_add or scatter_reduce")
    src = value if src is None else src
    if src is None:
        raise TypeError("scatter() missing 1 required argument: 'src' or 'value'")
    if isinstance(src, Tensor) and src._data.ndim == 0 and input._data.ndim:
        src = src.item() if not src.requires_grad else expand(src, tuple(index.shape))
    dim, idx, src = _scatter_args("scatter", input, dim, index, src)
    return Scatter.apply(input, src, dim=dim, index=idx)


def scatter_add(input, dim, index, src):
    """Adds all values of src into input at the indices along dim (out of place)."""
    dim, idx, src = _scatter_args("scatter_add", input, dim, index, src)
    return ScatterAdd.apply(input, src, dim=dim, index=idx)


class ScatterReduce(Op):
    """PyTorch's scatter_reduce with its backward (FunctionsManual's scatter_reduce_backward): sum and
    mean route the gradient back through gather; amax and amin share it evenly among the values equal
    to the result; prod divides the result by each factor, with zero factors computed exclusively."""
    __slots__ = ("dim", "reduce", "include_self")
    op = "scatter_reduce"
    saves = (0, 1, -1)

    def forward(self, x, src, dim, index, reduce, include_self):
        if src.dtype != x.dtype:
            raise RuntimeError("scatter_reduce(): Expected self.dtype to be equal to src.dtype")
        self.dim, self.reduce, self.include_self = dim, reduce, include_self
        self.keep(index)
        return _arr.scatter_reduce(x, dim, index, src, reduce, include_self)

    def name(self):
        return "ScatterReduceBackward0"

    def backward(self, F, g, x, src, result, index):
        dim, reduce, include_self = self.dim, self.reduce, self.include_self
        zeros, zeros_src = F.new_zeros(g, g.shape), F.new_zeros(g, index.shape)   # g's dtype, constants
        if reduce == "sum":
            grad_self, grad_src = g, F.gather(g, dim, index)
        elif reduce == "mean":
            n = F.scatter_add(zeros + (1.0 if include_self else 0.0), dim, index, zeros_src + 1.0)
            n = F.where(n == 0, 1.0, n)
            grad_self = g / n
            grad_src = F.gather(g, dim, index) / F.gather(n, dim, index)
        elif reduce in ("amax", "amin"):
            value = F.gather(result, dim, index)
            self_is = F.where(x == result, zeros + 1.0, zeros)
            src_is = F.where(src == value, zeros_src + 1.0, zeros_src)
            shared = g / F.scatter_add(self_is, dim, index, src_is)
            grad_self = self_is * shared
            grad_src = src_is * F.gather(shared, dim, index)
        else:   # prod
            self_ones = F.where(x == 0, 1.0, x)
            grad_self = g * F.scatter_reduce(self_ones, dim, index, src, "prod", include_self=include_self) / self_ones
            src_zero = src == 0
            zeros_at = F.gather(F.scatter_add(zeros, dim, index, F.where(src_zero, zeros_src + 1.0, zeros_src)),
                                dim, index)
            single_zero = src_zero & (zeros_at == 1)
            others = F.scatter_reduce(x, dim, index, F.where(single_zero, 1.0, src), "prod",
                                      include_self=include_self)
            grad_src = F.where(single_zero, F.gather(g * others, dim, index),
                               F.gather(g * result, dim, index) / F.where(src_zero, 1.0, src))
        if not include_self:
            grad_self = F.scatter(grad_self, dim, index, 0.0)
        return grad_self, grad_src


_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """Reduces the values of src into input at the indices along dim with ``reduce`` (sum, prod,
    mean, amax or amin), out of place; ``include_self=False`` leaves input's values out where
    something is scattered."""
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)   # PyTorch's parser takes these too
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    dim, idx, src = _scatter_args("scatter_reduce", input, dim, index, src)
    return ScatterReduce.apply(input, src, dim=dim, index=idx, reduce=reduce, include_self=bool(include_self))


class IndexSelect(Op):
    __slots__ = ("dim", "in_shape")
    op = "index_select"

    def forward(self, x, dim, index):
        self.dim, self.in_shape = dim, x.shape
        self.keep(index)
        return _arr.index_select(x, dim, index)

    def backward(self, F, g, index):
        return (F.index_add(F.new_zeros(g, self.in_shape), self.dim, index, g),)


class IndexAdd(Op):
    __slots__ = ("dim", "alpha")
    op = "index_add"

    def forward(self, x, src, dim, index, alpha):
        self.dim, self.alpha = dim, alpha
        self.keep(index)
        if src.dtype != x.dtype:
            src = src.astype(x.dtype)
        return _arr.index_add(x, dim, index, src, alpha)

    def backward(self, F, g, index):
        gsrc = F.index_select(g, self.dim, index)
        return g, gsrc if self.alpha == 1 else gsrc * self.alpha


def _out_of_range(idx, size):
    """The first bound an index array breaks for a dimension of ``size`` (its largest index past the
    end, else its smallest before -size), or None."""
    if not idx.size:
        return None
    hi, lo = int(idx.max()), int(idx.min())
    return hi if hi >= size else lo if lo < -size else None


def _vector_index(index, fn, like):
    idx = index._data if isinstance(index, Tensor) else index
    if not hasattr(idx, "dtype"):
        idx = np.asarray(idx)
    if idx.ndim > 1:
        raise IndexError(f"{fn}(): Index is supposed to be a vector")
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"{fn}(): Expected dtype int32 or int64 for index")
    return _index_data(idx.reshape(-1), fn, like)


def index_select(input, dim, index, *, out=None):
    """Returns the entries of input along dim at the positions in index (a 1-D tensor)."""
    x = input._data
    dim = _wrap_dim(dim, x.ndim)
    idx = _vector_index(index, "index_select", x)
    size = x.shape[dim] if x.ndim else 1
    bad = _out_of_range(idx, size)
    if bad is not None:
        raise IndexError(f"index_select(): index {bad} is out of bounds for dimension {dim} with size {size}")
    check_elements(x.shape[:dim] + (idx.size,) + x.shape[dim + 1:], "index_select result")
    return IndexSelect.apply(input, dim=dim, index=idx)


def index_add(input, dim, index, source, *, alpha=1, out=None):
    """Adds alpha times the slices of source into input at the positions index along dim."""
    x = input._data
    dim = _wrap_dim(dim, x.ndim)
    idx = _vector_index(index, "index_add", x)
    s = source._data.shape
    if x.ndim and (len(s) != x.ndim or any(s[d] != x.shape[d] for d in range(x.ndim) if d != dim)):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(x.shape)} source.shape = {list(s)}")
    n = s[dim] if s else 1
    if idx.size != n:
        raise RuntimeError(f"index_add_(): Number of indices ({idx.size}) should be equal to source.size(dim) ({n})")
    _check_range(idx, x.shape[dim] if x.ndim else 1, dim)
    return IndexAdd.apply(input, source, dim=dim, index=idx, alpha=alpha)


# ------------------------------------------------------------------ masks
class MaskedFill(Op):
    __slots__ = ("value_is_tensor",)
    op = "masked_fill"
    overload_names = {"TT": "MaskedFillBackward1"}

    def forward(self, x, value, mask):
        self.keep(mask)
        self.value_is_tensor = hasattr(value, "shape")
        return _xp(x).where(mask, _dt.checked_scalar(value, x.dtype), x).astype(x.dtype, copy=False)

    def backward(self, F, g, mask):
        gv = F.sum(F.where(mask, g, 0.0)) if self.value_is_tensor else None
        return F.where(mask, 0.0, g), gv


def masked_fill(input, mask, value):
    """Fills elements of input with value where mask is True."""
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        from ..dtypes import from_numpy_dtype
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_C_TYPE.get(from_numpy_dtype(m.dtype).name, m.dtype)}")
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
        if not value.requires_grad:
            value = value.item()
    broadcast_shapes(m.shape, input._data.shape)
    return MaskedFill.apply(input, value, mask=_on_device_of(m, input._data))


def _masked_fill_(self, mask, value):
    shape = self._data.shape
    m_shape = mask._data.shape if isinstance(mask, Tensor) else np.shape(mask)
    if tuple(broadcast_shapes(shape, m_shape)) != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape "
                           f"{list(broadcast_shapes(shape, m_shape))}")
    return self._inplace(masked_fill, mask, value)


def _scatter_mask(mask):
    m = mask if isinstance(mask, Tensor) else Tensor._adopt_array(np.asarray(mask), False, None)
    if m._data.dtype != np.bool_:
        from ..dtypes import from_numpy_dtype
        if m._data.dtype == np.uint8:
            warnings.warn("masked_scatter_ received a mask with dtype torch.uint8, this behavior is now deprecated,"
                          "please use a mask with dtype torch.bool instead.", UserWarning, stacklevel=3)
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{_SCALAR_TYPE.get(from_numpy_dtype(m._data.dtype).name, m._data.dtype)}")
    return m


def masked_scatter(input, mask, source):
    """input with its elements where mask holds replaced, in order, by source's leading elements (source read
    as 1-D; supar's CharLSTM scatters its per-word states this way): index_put of a slice of source, so the
    gradients are index_put's and the slice's."""
    m = _scatter_mask(mask)
    if source.dtype != input.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{_SCALAR_TYPE[input.dtype.name]} and {_SCALAR_TYPE[source.dtype.name]}")
    shape = tuple(broadcast_shapes(input._data.shape, m._data.shape))
    m = expand(m, shape)
    n = int(_host(m._data).sum())
    if n > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return index_put(expand(input, shape), (m,), reshape(source, (-1,))[:n])


def _masked_scatter_(self, mask, source):
    shape = self._data.shape
    m = _scatter_mask(mask)
    if tuple(broadcast_shapes(shape, m._data.shape)) != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape "
                           f"{list(broadcast_shapes(shape, m._data.shape))}")
    return self._inplace(masked_scatter, m, source)


def index_fill(input, dim, index, value):
    """input with the slices at the positions index along dim set to value (a number or a 0-d tensor):
    masked_fill with the mask those slices make, so its gradients are masked_fill's."""
    x = input._data
    dim = _wrap_dim(dim, x.ndim)
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if idx.ndim > 1:
        raise IndexError("index_fill_(): Index is supposed to be a vector")
    size = x.shape[dim] if x.ndim else 1
    idx = _host(idx).reshape(-1)
    bad = _out_of_range(idx, size)
    if bad is not None:
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    along = np.zeros(size, dtype=bool)
    along[idx] = True
    mask = along.reshape((size,) + (1,) * (x.ndim - dim - 1)) if x.ndim else along.reshape(())
    return masked_fill(input, Tensor._adopt_array(mask, False, None), value)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values of input, sorted (of its slices along dim, with dim), and optionally where each
    element went (int64, input's shape; along dim, one per slice) and how often each value occurs. No gradient."""
    x = input._data
    xp = _xp(x)
    if dim is None:
        got = xp.unique(x.reshape(-1), return_inverse=True, return_counts=True)
        inverse = got[1].reshape(x.shape)
    else:
        d = _wrap_dim(dim, x.ndim)
        got = np.unique(_host(x), axis=d, return_inverse=True, return_counts=True)
        got = tuple(xp.asarray(a) for a in got) if xp is not np else got
        inverse = got[1].reshape(-1)
    out = [Tensor._adopt_array(got[0], False, None)]
    if return_inverse:
        out.append(Tensor._adopt_array(inverse.astype(np.int64), False, None))
    if return_counts:
        out.append(Tensor._adopt_array(got[2].astype(np.int64), False, None))
    return out[0] if len(out) == 1 else tuple(out)


def masked_select(input, mask):
    """Returns a 1-D tensor of the elements of input where the boolean mask is True."""
    m = mask if isinstance(mask, Tensor) else Tensor._adopt_array(np.asarray(mask), False, None)
    if m._data.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = tuple(broadcast_shapes(input._data.shape, m._data.shape))
    return getitem(expand(input, shape), expand(m, shape))


def take(input, index):
    """Returns input's elements at the given indices, input read as a 1-D tensor."""
    idx = _index_data(index, "take", input._data)
    n = input._data.size
    bad = _out_of_range(idx, n)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return getitem(flatten(input), Tensor._adopt_array(idx, False, None))


def take_along_dim(input, indices, dim=None):
    """Selects values from input at the 1-dimensional indices from indices along the given dim."""
    if dim is None:
        return gather(flatten(input), 0, flatten(indices))
    x, idx = input._data, indices._data
    dim = _wrap_dim(dim, x.ndim)
    if x.ndim != idx.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of "
                           f"dimensions, but got {x.ndim} dimensions for input, and {idx.ndim} dimensions for "
                           f"indices")
    xs, ixs = list(x.shape), list(idx.shape)
    xs[dim] = ixs[dim] = 1
    batch = list(broadcast_shapes(xs, ixs))
    want_x, want_i = list(batch), list(batch)
    want_x[dim], want_i[dim] = x.shape[dim], idx.shape[dim]
    return gather(expand(input, want_x), dim, expand(indices, want_i))


# ------------------------------------------------------------------ Tensor methods
def _register():
    Tensor.__getitem__ = getitem
    Tensor.__setitem__ = _setitem
    for name in ("nonzero", "argwhere", "index_put", "gather", "scatter", "scatter_add", "scatter_reduce", "index_select",
                 "index_add", "index_fill", "masked_fill", "masked_scatter", "masked_select", "take", "take_along_dim",
                 "unique"):
        setattr(Tensor, name, globals()[name])
    Tensor.index_fill_ = lambda self, dim, index, value: self._inplace(index_fill, dim, index, value)
    Tensor.index_put_ = lambda self, indices, values, accumulate=False: self._inplace(
        index_put, indices, values, accumulate)
    Tensor.scatter_ = lambda self, dim, index, src=None, value=None, reduce=None: self._inplace(
        scatter, dim, index, src, value, reduce=reduce)
    Tensor.scatter_add_ = lambda self, dim, index, src: self._inplace(scatter_add, dim, index, src)
    Tensor.scatter_reduce_ = lambda self, dim, index, src, reduce, *, include_self=True: self._inplace(
        scatter_reduce, dim, index, src, reduce, include_self=include_self)
    Tensor.index_add_ = lambda self, dim, index, source, *, alpha=1: self._inplace(
        index_add, dim, index, source, alpha=alpha)
    Tensor.masked_fill_ = _masked_fill_
    Tensor.masked_scatter_ = _masked_scatter_


_register()
