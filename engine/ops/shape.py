"""Shape ops: views (reshape, expand, transpose, permute, basic indexing) and the
ops that undo them in backward (sum_to, view scatter).

A view shares its base's memory and version counter, and remembers how it was
made (``_view``) so an in-place change to it can be replayed on the base.
"""
import numpy as np

from ..autograd.function import Function
from ..device import get_array_module
from ..limits import check_elements
from ..tensor import Tensor, _wrap_dim

__all__ = ["reshape", "view", "expand", "expand_as", "broadcast_to", "sum_to", "transpose",
           "swapaxes", "swapdims", "permute", "t", "contiguous", "clone", "unsqueeze"]


class ViewFunction(Function):
    """An op whose output aliases its input's memory."""
    __slots__ = ()

    @classmethod
    def apply(cls, x, **params):
        out = super().apply(x, **params)
        out._base = x
        out._view = (cls, params)
        out._version = x._version
        return out


def _xp(x):
    return np if type(x) is np.ndarray else get_array_module(x)


# ------------------------------------------------------------------ reshape
class Reshape(ViewFunction):
    __slots__ = ("in_shape",)
    op = "reshape"

    def forward(self, x, shape):
        self.in_shape = x.shape
        return x.reshape(shape)

    def backward(self, F, g):
        return (F.reshape(g, self.in_shape),)


class Copy(Function):
    """A reshape that had to copy (the input was not contiguous)."""
    __slots__ = ("in_shape",)
    op = "reshape"

    def forward(self, x, shape):
        self.in_shape = x.shape
        return np.ascontiguousarray(x).reshape(shape) if type(x) is np.ndarray else x.copy().reshape(shape)

    def backward(self, F, g):
        return (F.reshape(g, self.in_shape),)


def _infer_shape(shape, numel):
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = shape[0]
    shape = [int(s) for s in shape]
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return tuple(shape)


def reshape(input, *shape):
    """Returns a tensor with the same data and number of elements as input, in the given shape."""
    shape = _infer_shape(shape, input._data.size)
    if shape == input._data.shape:
        return Reshape.apply(input, shape=shape)
    if input._data.flags.c_contiguous:
        return Reshape.apply(input, shape=shape)
    return Copy.apply(input, shape=shape)


def view(input, *shape):
    """Returns a new tensor with the same data as input but of a different shape."""
    if len(shape) == 1 and not isinstance(shape[0], (int, list, tuple)) and not hasattr(shape[0], "__index__"):
        return input.to(shape[0])  # view(dtype) is a reinterpretation PyTorch allows; we convert
    shape = _infer_shape(shape, input._data.size)
    if shape != input._data.shape and not input._data.flags.c_contiguous:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return Reshape.apply(input, shape=shape)


def contiguous(input, memory_format=None):
    """Returns a contiguous in memory tensor containing the same data as self tensor."""
    if input._data.flags.c_contiguous:
        return input
    return Copy.apply(input, shape=input._data.shape)


class Clone(Function):
    __slots__ = ()
    op = "clone"

    def forward(self, x):
        return x.copy()

    def backward(self, F, g):
        return (g,)


def clone(input, *, memory_format=None):
    """Returns a copy of input, recorded in the graph."""
    return Clone.apply(input)


# ------------------------------------------------------------------ broadcasting
class Expand(ViewFunction):
    __slots__ = ("in_shape",)
    op = "expand"

    def forward(self, x, shape):
        self.in_shape = x.shape
        return _xp(x).broadcast_to(x, shape)

    def backward(self, F, g):
        return (F.sum_to(g, self.in_shape),)


class SumTo(Function):
    """Sums a tensor down to a shape it was broadcast from (expand's adjoint)."""
    __slots__ = ("in_shape",)
    op = "sum_to"

    def forward(self, x, shape):
        from ..autograd.array_ops import sum_to as _sum_to
        self.in_shape = x.shape
        return _sum_to(x, shape)

    def backward(self, F, g):
        return (F.expand(g, self.in_shape),)


def expand(input, *sizes):
    """Returns a new view of input with singleton dimensions expanded to a larger size."""
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        sizes = sizes[0]
    sizes = list(sizes)
    ndim = input._data.ndim
    if len(sizes) < ndim:
        raise RuntimeError(f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal "
                           f"to the number of dimensions in the tensor ({ndim})")
    lead = len(sizes) - ndim
    for i in range(len(sizes)):
        if sizes[i] == -1:
            if i < lead:
                raise RuntimeError("expand: -1 is not allowed in a leading, non-existing dimension")
            sizes[i] = input._data.shape[i - lead]
        elif i >= lead and input._data.shape[i - lead] not in (1, sizes[i]):
            raise RuntimeError(f"The expanded size of the tensor ({sizes[i]}) must match the existing size "
                               f"({input._data.shape[i - lead]}) at non-singleton dimension {i}.  Target sizes: "
                               f"{list(sizes)}.  Tensor sizes: {list(input._data.shape)}")
    shape = tuple(int(s) for s in sizes)
    if shape == input._data.shape:
        return input
    return Expand.apply(input, shape=shape)


def expand_as(input, other):
    return expand(input, tuple(other.shape))


def broadcast_to(input, shape):
    return expand(input, tuple(shape))


def sum_to(input, shape):
    shape = tuple(shape)
    if tuple(input.shape) == shape:
        return input
    return SumTo.apply(input, shape=shape)


# ------------------------------------------------------------------ axes
class Permute(ViewFunction):
    __slots__ = ("dims",)
    op = "permute"

    def forward(self, x, dims):
        self.dims = dims
        return x.transpose(dims)

    def backward(self, F, g):
        return (F.permute(g, tuple(np.argsort(self.dims))),)


def permute(input, *dims):
    """Returns a view of input with its dimensions permuted."""
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    ndim = input._data.ndim
    if len(dims) != ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match "
                           f"the length of the desired ordering of dimensions i.e. input.dim() = {ndim} is not "
                           f"equal to len(dims) = {len(dims)}")
    dims = tuple(_wrap_dim(d, ndim) for d in dims)
    if len(set(dims)) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Permute.apply(input, dims=dims)


def transpose(input, dim0, dim1):
    """Returns a view of input with dimensions dim0 and dim1 swapped."""
    ndim = input._data.ndim
    if ndim == 0:
        return input
    dims = list(range(ndim))
    d0, d1 = _wrap_dim(dim0, ndim), _wrap_dim(dim1, ndim)
    dims[d0], dims[d1] = dims[d1], dims[d0]
    return Permute.apply(input, dims=tuple(dims))


swapaxes = swapdims = transpose


def t(input):
    """Transposes a tensor of at most 2 dimensions."""
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D")
    return transpose(input, 0, 1) if input._data.ndim == 2 else input


def unsqueeze(input, dim):
    """Returns a new tensor with a dimension of size one inserted at the specified position."""
    ndim = input._data.ndim + 1
    dim = _wrap_dim(dim, ndim)
    shape = input._data.shape[:dim] + (1,) + input._data.shape[dim:]
    return Reshape.apply(input, shape=shape)


# ------------------------------------------------------------------ in place on views
class ViewScatter(Function):
    """PyTorch's CopySlices: ``base`` with the region a view chain selects replaced by ``src``."""
    __slots__ = ("chain",)
    op = "copy_slices"

    def forward(self, base, src, chain):
        self.chain = chain
        out = base.copy()
        _region(out, chain)[...] = src
        return out

    def backward(self, F, g):
        if isinstance(g, Tensor):
            region = g
            for cls, params in self.chain:
                region = cls.apply(region, **params)
            gb = ViewScatter.apply(g, region * 0, chain=self.chain)
            return gb, region
        gb = g.copy()
        region = _region(gb, self.chain)
        gsrc = region.copy()
        region[...] = 0
        return gb, gsrc


def _region(array, chain):
    for cls, params in chain:
        array = cls.__new__(cls).forward(array, **params)
    return array


# ------------------------------------------------------------------ Tensor methods
def _size_args(fn):
    def method(self, *shape):
        return fn(self, *shape)
    method.__name__ = fn.__name__
    return method


def _register():
    Tensor.reshape = _size_args(reshape)
    Tensor.view = _size_args(view)
    Tensor.expand = _size_args(expand)
    Tensor.permute = _size_args(permute)
    Tensor.expand_as = expand_as
    Tensor.broadcast_to = broadcast_to
    Tensor.sum_to_size = lambda self, *size: sum_to(self, size[0] if len(size) == 1 and isinstance(
        size[0], (list, tuple)) else size)
    Tensor.transpose = transpose
    Tensor.unsqueeze = unsqueeze
    Tensor.swapaxes = Tensor.swapdims = transpose
    Tensor.t = t
    Tensor.contiguous = contiguous
    Tensor.clone = clone
    Tensor.view_as = lambda self, other: view(self, tuple(other.shape))
    Tensor.reshape_as = lambda self, other: reshape(self, tuple(other.shape))
    Tensor.T = property(lambda self: permute(self, tuple(reversed(range(self._data.ndim)))))
    Tensor.mT = property(lambda self: transpose(self, -2, -1))
    Tensor.H = Tensor.T
    Tensor.mH = Tensor.mT


_register()
