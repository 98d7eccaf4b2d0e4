"""Indexing: ``x[index]`` and ``x[index] = value``, with PyTorch's index forms.

Basic indexing (ints, slices, None, Ellipsis) gives a view; advanced indexing
(integer tensors, lists, boolean masks) gives a copy. The backward of a read is
a scatter-add into zeros, whose own backward is the read again.
"""
import numpy as np

from ..autograd.function import Function
from ..device import get_array_module
from ..tensor import Tensor
from .shape import ViewFunction

__all__ = ["nonzero", "index_put"]


def _xp(x):
    return np if type(x) is np.ndarray else get_array_module(x)


def _convert_index(index, data):
    """Turns a PyTorch index into a NumPy one, and says whether it is basic (a view)."""
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    basic = True
    for item in index:
        if isinstance(item, Tensor):
            arr = item._data
            if arr.dtype.kind not in "biu":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            out.append(arr)
            basic = False
        elif isinstance(item, slice):
            if item.step is not None and _int(item.step) <= 0:
                raise ValueError("step must be greater than zero")
            out.append(slice(_opt_int(item.start), _opt_int(item.stop), _opt_int(item.step)))
        elif item is None or item is Ellipsis:
            out.append(item)
        elif isinstance(item, bool):
            out.append(item)
            basic = False
        elif isinstance(item, (list, tuple)):
            arr = np.asarray(item)
            if arr.dtype == object or arr.dtype.kind not in "biu" and arr.size:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            out.append(arr.astype(np.int64) if arr.size == 0 else arr)
            basic = False
        elif isinstance(item, np.ndarray):
            out.append(item)
            basic = False
        else:
            out.append(_int(item))
    _check_bounds(out, data.shape)
    return tuple(out), basic


def _int(x):
    try:
        return x.__index__()
    except (AttributeError, TypeError):
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                         "are valid indices (got " + type(x).__name__ + ")") from None


def _opt_int(x):
    return None if x is None else _int(x)


def _check_bounds(index, shape):
    dim = 0
    n_real = sum(1 for i in index if i is not None and i is not Ellipsis and not (
        hasattr(i, "dtype") and i.dtype == np.bool_) and not isinstance(i, bool)) + sum(
        i.ndim for i in index if hasattr(i, "dtype") and i.dtype == np.bool_)
    if n_real > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    for item in index:
        if item is Ellipsis:
            dim = len(shape) - (n_real - dim)
            continue
        if item is None or isinstance(item, bool):
            continue
        if isinstance(item, int):
            size = shape[dim]
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for dimension {dim} with size {size}")
            dim += 1
        elif hasattr(item, "dtype"):
            if item.dtype == np.bool_:
                if item.shape != shape[dim:dim + item.ndim]:
                    raise IndexError(f"The shape of the mask {list(item.shape)} at index {dim} does not match "
                                     f"the shape of the indexed tensor {list(shape[dim:dim + item.ndim])}")
                dim += item.ndim
            else:
                size = shape[dim]
                if item.size and (int(item.max()) >= size or int(item.min()) < -size):
                    bad = int(item.max()) if int(item.max()) >= size else int(item.min())
                    raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
                dim += 1
        else:
            dim += 1


class GetItemView(ViewFunction):
    """x[basic index]: a view."""
    __slots__ = ("in_shape", "index")
    op = "select"

    def forward(self, x, index):
        self.in_shape = x.shape
        self.index = index
        return x[index]

    def backward(self, F, g):
        return (F.index_put(F.new_zeros(g, self.in_shape), self.index, g, accumulate=True),)


class GetItem(Function):
    """x[advanced index]: a copy."""
    __slots__ = ("in_shape", "index")
    op = "index"

    def forward(self, x, index):
        self.in_shape = x.shape
        self.index = index
        return x[index]

    backward = GetItemView.backward


class IndexPut(Function):
    """out = x with x[index] set to (or, accumulating, increased by) values."""
    __slots__ = ("index", "accumulate", "v_shape")
    op = "index_put"

    def forward(self, x, values, index, accumulate=False):
        self.index = index
        self.accumulate = accumulate
        out = x.copy()
        if hasattr(values, "shape"):
            self.v_shape = values.shape
            if values.dtype != x.dtype:
                values = values.astype(x.dtype)
        else:
            self.v_shape = None
        if accumulate:
            _xp(out).add.at(out, index, values)  # repeated indices add up
        else:
            out[index] = values
        return out

    def backward(self, F, g):
        gx = g if self.accumulate else F.index_put(g, self.index, 0.0)
        gv = None
        if self.v_shape is not None:
            gv = F.getitem(g, self.index)
            if tuple(gv.shape) != tuple(self.v_shape):
                gv = F.sum_to(gv, self.v_shape)
        return gx, gv


def getitem(x, index):
    idx, basic = _convert_index(index, x._data)
    if basic:
        return GetItemView.apply(x, index=idx)
    return GetItem.apply(x, index=idx)


def index_put(input, indices, values, accumulate=False):
    """Returns input with the positions ``indices`` set to (or increased by) values."""
    idx, _ = _convert_index(indices, input._data)
    return IndexPut.apply(input, values, index=idx, accumulate=accumulate)


def _setitem(self, index, value):
    idx, _ = _convert_index(index, self._data)
    if isinstance(value, Tensor) and value._data.ndim > 0:
        target_shape = self._data[idx].shape
        try:
            np.broadcast_shapes(value._data.shape, target_shape)
        except ValueError:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(value._data.shape)} cannot be "
                               f"broadcast to indexing result of shape {list(target_shape)}") from None
    self._inplace(lambda x, v: IndexPut.apply(x, v, index=idx), value)


def nonzero(input, *, as_tuple=False):
    """Returns the indices of the elements of input that are non-zero."""
    idx = _xp(input._data).nonzero(input._data)
    if as_tuple:
        return tuple(Tensor._make(i.astype(np.int64), False, None) for i in idx)
    return Tensor._make(_xp(input._data).stack(idx, axis=1).astype(np.int64), False, None)


Tensor.__getitem__ = getitem
Tensor.__setitem__ = _setitem
Tensor.nonzero = nonzero
Tensor.index_put = index_put
Tensor.index_put_ = lambda self, indices, values, accumulate=False: self._inplace(
    index_put, indices, values, accumulate)
