"""Shape ops: views (reshape, expand, permute, narrow, diagonal, basic indexing),
the ops that rearrange values (cat, stack, repeat, flip, roll, tril/triu) and
the adjoints that undo them in backward (sum_to, diagonal_scatter, view scatter).

A view shares its base's memory and version counter, and remembers how it was
made (``_view``) so an in-place change to it can be replayed on the base.
"""
import math
import operator

import numpy as np

from .. import dtypes as _dt
from ..autograd import array_ops as _arr
from ..autograd.function import Op
from ..device import get_array_module
from ..limits import check_elements
from ..tensor import OVERLAP_MESSAGE, Size, Tensor, _host, _wrap_dim, overlaps_itself
from .arguments import tensor_parameters

__all__ = [
    "reshape", "view", "flatten", "unflatten", "ravel", "squeeze", "unsqueeze", "expand", "expand_as",
    "broadcast_to", "broadcast_tensors", "broadcast_shapes", "sum_to", "transpose", "swapaxes", "swapdims",
    "permute", "t", "adjoint", "movedim", "moveaxis", "contiguous", "clone", "narrow", "select", "split",
    "tensor_split", "chunk", "unbind", "cat", "concat", "concatenate", "stack", "hstack", "vstack",
    "dstack", "column_stack", "atleast_1d", "atleast_2d", "atleast_3d", "repeat", "tile",
    "repeat_interleave", "flip", "fliplr", "flipud", "roll", "rot90", "tril", "triu", "diag",
    "diag_embed", "diagonal", "diagonal_scatter", "meshgrid",
]


def _xp(x):
    return np if type(x) is np.ndarray else get_array_module(x)


def _dims_arg(dims):
    """``f(x, 1, 2)`` and ``f(x, (1, 2))`` both mean dims (1, 2)."""
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        return tuple(dims[0])
    return dims


# ------------------------------------------------------------------ views
class ViewFunction(Op):
    """An op whose output aliases its input's memory."""
    __slots__ = ()

    @classmethod
    def apply(cls, x, **params):
        out = super().apply(x, **params)
        out._base = x
        out._view = (cls, params)
        out._version = x._version
        return out


def _view_strides(shape, strides, new_shape):
    """Strides that show an array of ``shape``/``strides`` as ``new_shape`` without a
    copy, or None when its memory layout does not allow it (PyTorch's computeStride)."""
    if not shape:
        return (0,) * len(new_shape)
    if 0 in shape:
        return None
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = strides[-1]
    tensor_numel = view_numel = 1
    for d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[d]
        if d == 0 or (shape[d - 1] != 1 and strides[d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base = strides[d - 1]
                tensor_numel = view_numel = 1
    return tuple(new_strides) if view_d == -1 else None


def _viewable(x, shape):
    return x.flags.c_contiguous or x.size == 0 or _view_strides(x.shape, x.strides, shape) is not None


class Reshape(ViewFunction):
    __slots__ = ("in_shape",)
    op = "reshape"
    backward_name = "ViewBackward0"

    def forward(self, x, shape):
        self.in_shape = x.shape
        if x.flags.c_contiguous or x.size == 0:
            return x.reshape(shape)
        strides = _view_strides(x.shape, x.strides, shape)
        if strides is None:  # only when a view chain is replayed on a copy laid out differently
            return x.reshape(shape)
        return _xp(x).lib.stride_tricks.as_strided(x, shape, strides)

    def backward(self, F, g):
        return (F.reshape(g, self.in_shape),)


# reshapes PyTorch records under their own names: squeeze(), squeeze(dim), squeeze(dims), unsqueeze(dim)
class Squeeze(Reshape):
    __slots__ = ()
    backward_name = "SqueezeBackward0"


class SqueezeDim(Reshape):
    __slots__ = ()
    backward_name = "SqueezeBackward1"


class SqueezeDims(Reshape):
    __slots__ = ()
    backward_name = "SqueezeBackward2"


class Unsqueeze(Reshape):
    __slots__ = ()
    backward_name = "UnsqueezeBackward0"


class Copy(Op):
    """A reshape that had to copy (the input's layout did not allow a view)."""
    __slots__ = ("in_shape",)
    op = "reshape"
    backward_name = "UnsafeViewBackward0"

    def forward(self, x, shape):
        self.in_shape = x.shape
        return _xp(x).ascontiguousarray(x).reshape(shape)

    def backward(self, F, g):
        return (F.reshape(g, self.in_shape),)


def _infer_shape(shape, numel):
    shape = _dims_arg(shape)
    shape = [s.__index__() for s in shape]
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


def _reshape(input, shape):
    """A view when the layout allows one, else a copy (what reshape promises)."""
    if _viewable(input._data, shape):
        return Reshape.apply(input, shape=shape)
    return Copy.apply(input, shape=shape)


def reshape(input, *shape, **kwargs):
    """Returns a tensor with the same data and number of elements as input, in the given shape."""
    shape = shape or (kwargs["shape"],)
    return _reshape(input, _infer_shape(shape, input._data.size))


def view(input, *shape, **kwargs):
    """Returns a new tensor with the same data as input but of a different shape."""
    shape = shape or (kwargs.get("size", kwargs.get("dtype")),)
    if len(shape) == 1 and not isinstance(shape[0], (int, list, tuple)) and not hasattr(shape[0], "__index__"):
        return _view_as_dtype(input, _dt.as_dtype(shape[0]))
    shape = _infer_shape(shape, input._data.size)
    if not _viewable(input._data, shape):
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return Reshape.apply(input, shape=shape)


_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
               "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _view_as_dtype(input, dtype):
    """view(dtype): the same bytes read as another dtype (no gradient flows through the bits); a
    different element size scales the last dimension, which must then be contiguous."""
    x = input._data
    if dtype.np == x.dtype:
        return input
    a, b = x.dtype.itemsize, dtype.np.itemsize
    if a != b:
        names = f"{_TYPE_NAMES[x.dtype.name]} as {_TYPE_NAMES[dtype.np.name]} (different element sizes)"
        if x.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 to view {names}")
        if b > a and x.shape[-1] % (b // a):
            raise RuntimeError(f"self.size(-1) must be divisible by {b // a} to view {names}, but got {x.shape[-1]}")
        if x.shape[-1] != 1 and x.strides[-1] != a:
            raise RuntimeError(f"self.stride(-1) must be 1 to view {names}")
        if not x.flags.c_contiguous:
            x = _xp(x).ascontiguousarray(x)   # NumPy reinterprets a contiguous last axis only
    return Tensor._adopt_array(x.view(dtype.np), False, None)


def contiguous(input, memory_format=None):
    """Returns a contiguous in memory tensor containing the same data as self tensor."""
    if input._data.flags.c_contiguous:
        return input
    return Clone.apply(input)


class Clone(Op):
    __slots__ = ()
    op = "clone"

    def forward(self, x):
        return x.copy()

    def backward(self, F, g):
        return (g,)


def clone(input, *, memory_format=None):
    """Returns a copy of input, recorded in the graph."""
    return Clone.apply(input)


def flatten(input, start_dim=0, end_dim=-1):
    """Flattens input by reshaping it into a one-dimensional tensor (or dims start_dim..end_dim)."""
    shape = input._data.shape
    if not shape:
        return Reshape.apply(input, shape=(1,))
    start, end = _wrap_dim(start_dim, len(shape)), _wrap_dim(end_dim, len(shape))
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    return _reshape(input, shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:])


def ravel(input):
    """Returns a contiguous flattened tensor."""
    return flatten(input)


def unflatten(input, dim, sizes):
    """Expands a dimension of the input tensor over multiple dimensions."""
    shape = input._data.shape
    dim = _wrap_dim(dim, len(shape))
    sizes = [int(s) for s in sizes]
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten: only one dimension can be inferred")
    known = math.prod(s for s in sizes if s != -1)
    if -1 in sizes and known and shape[dim] % known == 0:
        sizes[sizes.index(-1)] = shape[dim] // known
    if math.prod(sizes) != shape[dim]:
        raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} "
                           f"({shape[dim]}) in the input tensor")
    return Reshape.apply(input, shape=shape[:dim] + tuple(sizes) + shape[dim + 1:])


def squeeze(input, dim=None):
    """Returns a tensor with the dimensions of input of size 1 removed (all, or those in dim)."""
    shape = input._data.shape
    if dim is None:
        dims = range(len(shape))
    elif isinstance(dim, (list, tuple)):
        dims = {_wrap_dim(d, len(shape)) for d in dim}
    else:
        dims = (_wrap_dim(dim, len(shape)),)
    new = tuple(n for i, n in enumerate(shape) if not (i in dims and n == 1))
    # nothing to squeeze still gives a new view, as PyTorch (its .grad is its own)
    cls = Squeeze if dim is None else SqueezeDims if isinstance(dim, (list, tuple)) else SqueezeDim
    return cls.apply(input, shape=new)


def unsqueeze(input, dim):
    """Returns a new tensor with a dimension of size one inserted at the specified position."""
    ndim = input._data.ndim + 1
    dim = _wrap_dim(dim, ndim)
    shape = input._data.shape[:dim] + (1,) + input._data.shape[dim:]
    return Unsqueeze.apply(input, shape=shape)


# ------------------------------------------------------------------ broadcasting
class Expand(ViewFunction):
    __slots__ = ("in_shape",)
    op = "expand"

    def forward(self, x, shape):
        self.in_shape = x.shape
        return _xp(x).broadcast_to(x, shape)

    def backward(self, F, g):
        return (F.sum_to(g, self.in_shape),)


class SumTo(Op):
    """Sums a tensor down to a shape it was broadcast from (expand's adjoint)."""
    __slots__ = ("in_shape",)
    op = "sum_to"
    backward_name = "SumBackward1"

    def forward(self, x, shape):
        self.in_shape = x.shape
        return _arr.sum_to(x, shape)

    def backward(self, F, g):
        return (F.expand(g, self.in_shape),)


def expand(input, *sizes, **kwargs):
    """Returns a new view of input with singleton dimensions expanded to a larger size."""
    sizes = list(_dims_arg(sizes or (kwargs["size"],)))
    ndim = input._data.ndim
    if len(sizes) < ndim:
        raise RuntimeError(f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal "
                           f"to the number of dimensions in the tensor ({ndim})")
    lead = len(sizes) - ndim
    for i in reversed(range(len(sizes))):  # PyTorch reports the last mismatching dimension
        if sizes[i] == -1:
            if i < lead:
                raise RuntimeError("expand: -1 is not allowed in a leading, non-existing dimension")
            sizes[i] = input._data.shape[i - lead]
        elif sizes[i] < 0:   # PyTorch's error (NumPy's was a ValueError about broadcast shapes)
            raise RuntimeError("numel: integer multiplication overflow")
        elif i >= lead and input._data.shape[i - lead] not in (1, sizes[i]):
            raise RuntimeError(f"The expanded size of the tensor ({sizes[i]}) must match the existing size "
                               f"({input._data.shape[i - lead]}) at non-singleton dimension {i}.  Target sizes: "
                               f"{list(sizes)}.  Tensor sizes: {list(input._data.shape)}")
    return Expand.apply(input, shape=tuple(int(s) for s in sizes))


def expand_as(input, other):
    """Expands input to the size of other."""
    return expand(input, tuple(other.shape))


def broadcast_to(input, shape):
    """Broadcasts input to the shape ``shape``."""
    return expand(input, tuple(shape))


def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to (RuntimeError as PyTorch when they do not)."""
    shapes = [tuple(s) if isinstance(s, (list, tuple)) else (int(s),) for s in shapes]
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        for i, n in enumerate(s, ndim - len(s)):
            if n != out[i] and n != 1:
                if out[i] != 1:
                    raise RuntimeError(f"The size of tensor a ({out[i]}) must match the size of tensor b ({n}) "
                                       f"at non-singleton dimension {i}")
                out[i] = n
    return Size(out)


def broadcast_tensors(*tensors):
    """Broadcasts the given tensors to a common shape."""
    tensors = _dims_arg(tensors)
    shape = tuple(broadcast_shapes(*[t._data.shape for t in tensors]))
    # views, but anything computed from them has this many elements (hostile pass 11: the expand
    # guard programs meet did not cover this way to the same views)
    check_elements(shape, "broadcast result")
    return tuple(expand(t, shape) for t in tensors)


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
        return (F.permute(g, tuple(np.argsort(self.dims).tolist())),)


# permutations PyTorch records under their own names: transpose(dim0, dim1) and t()
class Transpose(Permute):
    __slots__ = ()


class MatrixTranspose(Permute):
    __slots__ = ()
    backward_name = "TBackward0"


def permute(input, *dims, **kwargs):
    """Returns a view of input with its dimensions permuted."""
    dims = _dims_arg(dims or (kwargs["dims"],))
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
    dims = list(range(ndim))
    d0, d1 = _wrap_dim(dim0, ndim), _wrap_dim(dim1, ndim)
    if ndim:
        dims[d0], dims[d1] = dims[d1], dims[d0]
    return Transpose.apply(input, dims=tuple(dims))


swapaxes = swapdims = transpose


def t(input):
    """Transposes a tensor of at most 2 dimensions."""
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D")
    return MatrixTranspose.apply(input, dims=(1, 0) if input._data.ndim == 2 else tuple(range(input._data.ndim)))


def adjoint(input):
    """Returns a view of the tensor conjugated and with the last two dimensions transposed."""
    return _matrix_transpose(input)


def _matrix_transpose(input):
    if input._data.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{input._data.ndim}-D tensor.")
    return transpose(input, -2, -1)


def _reverse_dims(input):
    return permute(input, tuple(range(input._data.ndim - 1, -1, -1)))


def movedim(input, source, destination):
    """Moves the dimension(s) of input at source to the position(s) in destination."""
    ndim = input._data.ndim
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) should contain "
                           f"the same number of dims as destination ({dst} dims)")
    src = [_wrap_dim(d, ndim) for d in src]
    dst = [_wrap_dim(d, ndim) for d in dst]
    for name, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({dims})")
    order = [d for d in range(ndim) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return Permute.apply(input, dims=tuple(order))


moveaxis = movedim


# ------------------------------------------------------------------ strided views: slices, diagonals
class Slice(ViewFunction):
    """x[basic index] (ints, slices, None, ...), narrow, select, split: a strided view."""
    __slots__ = ("in_shape", "index")
    op = "slice"

    def forward(self, x, index):
        self.in_shape = x.shape
        self.index = index
        return x[index]

    def backward(self, F, g):
        # basic indices never select an element twice: a plain write, no accumulation
        return (F.index_put(F.new_zeros(g, self.in_shape), self.index, g),)

    def name(self):
        if self.backward_name is not None:
            return self.backward_name
        # PyTorch applies an index item by item; its node is the last one that did something
        last = "Alias"
        for item in self.index:
            if type(item) is int:
                last = "Select"
            elif item is None:
                last = "Unsqueeze"
            elif type(item) is slice and item != slice(None):
                last = "Slice"
        return last + "Backward0"


# pieces PyTorch records as one multi-output node: each is a Slice under that node's name
class Split(Slice):
    __slots__ = ()
    backward_name = "SplitBackward0"


class SplitWithSizes(Slice):
    __slots__ = ()
    backward_name = "SplitWithSizesBackward0"


class Unbind(Slice):
    __slots__ = ()
    backward_name = "UnbindBackward0"


def _slice_dim(dim, sl):
    # the trailing Ellipsis keeps an all-int index a 0-d view rather than a NumPy scalar copy
    return (slice(None),) * dim + (sl, Ellipsis)


def narrow(input, dim, start, length):
    """Returns a view of input narrowed along dim to [start, start + length)."""
    shape = input._data.shape
    dim = _wrap_dim(dim, len(shape))
    start, length = int(start), int(length)
    size = shape[dim]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return Slice.apply(input, index=_slice_dim(dim, slice(start, start + length)))


def select(input, dim, index):
    """Slices input along dim at the given index (a view with that dimension removed)."""
    shape = input._data.shape
    dim = _wrap_dim(dim, len(shape))
    index = int(index)
    if not -shape[dim] <= index < shape[dim]:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(shape)} at "
                         f"dimension {dim}")
    return Slice.apply(input, index=_slice_dim(dim, index))


def _split_at(input, dim, bounds, cls=Slice):
    return tuple(cls.apply(input, index=_slice_dim(dim, slice(a, b))) for a, b in zip(bounds, bounds[1:]))


def split(tensor, split_size_or_sections, dim=0):
    """Splits the tensor into chunks of a given size, or of the given list of sizes."""
    size = tensor._data.shape[_wrap_dim(dim, tensor._data.ndim)] if tensor._data.ndim else 0
    dim = _wrap_dim(dim, tensor._data.ndim)
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != size or any(s < 0 for s in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                               f"size at dimension {dim}), but got split_sizes={sizes}")
    else:
        step = int(split_size_or_sections)
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
        if step == 0:
            if size:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of "
                                   f"{size}")
            return (Split.apply(tensor, index=_slice_dim(dim, slice(None))),)
        sizes = [min(step, size - a) for a in range(0, size, step)] or [0]
    bounds = [0]
    for s in sizes:
        bounds.append(bounds[-1] + s)
    return _split_at(tensor, dim, bounds, SplitWithSizes if isinstance(split_size_or_sections, (list, tuple))
                     else Split)


def chunk(input, chunks, dim=0):
    """Attempts to split a tensor into the specified number of chunks (views)."""
    chunks = int(chunks)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = input._data.shape[_wrap_dim(dim, input._data.ndim)]
    return split(input, max(-(-size // chunks), 1) if size else 1, dim)


def tensor_split(input, indices_or_sections, dim=0):
    """Splits a tensor into sub-tensors at the given indices or into n nearly equal sections."""
    dim = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[dim]
    if isinstance(indices_or_sections, Tensor) and indices_or_sections._data.ndim == 0:
        indices_or_sections = int(indices_or_sections)
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        bounds = [0]
        for i in range(n):
            bounds.append(bounds[-1] + q + (i < r))
    else:
        bounds = [0] + [min(max(int(i) + size if int(i) < 0 else int(i), 0), size)
                        for i in indices_or_sections] + [size]
    return _split_at(input, dim, bounds)


def unbind(input, dim=0):
    """Removes a tensor dimension, returning a tuple of all slices along it."""
    dim = _wrap_dim(dim, input._data.ndim)
    return tuple(Unbind.apply(input, index=_slice_dim(dim, i)) for i in range(input._data.shape[dim]))


def _diagonal_geometry(shape, offset, dim1, dim2):
    ndim = len(shape)
    d1, d2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if offset >= 0:
        length = max(0, min(shape[d1], shape[d2] - offset))
    else:
        length = max(0, min(shape[d1] + offset, shape[d2]))
    return d1, d2, length


def _diagonal_view(x, offset, dim1, dim2):
    """A writable strided view of the diagonal (NumPy's own diagonal is read-only)."""
    d1, d2, length = _diagonal_geometry(x.shape, offset, dim1, dim2)
    if length:
        start = [0] * x.ndim
        start[d1 if offset < 0 else d2] = abs(offset)
        x = x[tuple(slice(s, None) for s in start)]
    keep = [d for d in range(x.ndim) if d not in (d1, d2)]
    shape = tuple(x.shape[d] for d in keep) + (length,)
    strides = tuple(x.strides[d] for d in keep) + (x.strides[d1] + x.strides[d2],)
    return _xp(x).lib.stride_tricks.as_strided(x, shape, strides)


class Diagonal(ViewFunction):
    __slots__ = ("in_shape", "offset", "dim1", "dim2")
    op = "diagonal"

    def forward(self, x, offset, dim1, dim2):
        self.in_shape, self.offset, self.dim1, self.dim2 = x.shape, offset, dim1, dim2
        return _diagonal_view(x, offset, dim1, dim2)

    def backward(self, F, g):
        return (F.diagonal_scatter(F.new_zeros(g, self.in_shape), g, self.offset, self.dim1, self.dim2),)


class DiagonalScatter(Op):
    """input with its diagonal (offset, dim1, dim2) replaced by src."""
    __slots__ = ("offset", "dim1", "dim2", "src_shape")
    op = "diagonal_scatter"

    def forward(self, x, src, offset, dim1, dim2):
        self.offset, self.dim1, self.dim2, self.src_shape = offset, dim1, dim2, src.shape
        return _arr.diagonal_scatter(x, src, offset, dim1, dim2)

    def backward(self, F, g):
        gx = F.diagonal_scatter(g, F.new_zeros(g, self.src_shape), self.offset, self.dim1, self.dim2)
        return gx, F.diagonal(g, self.offset, self.dim1, self.dim2)


def diagonal(input, offset=0, dim1=0, dim2=1):
    """Returns a partial view of input with its diagonal elements with respect to dim1 and dim2."""
    if input._data.ndim < 2:
        raise RuntimeError(f"diagonal(): input must be at least 2-D, but got {input._data.ndim}-D")
    d1, d2, _ = _diagonal_geometry(input._data.shape, int(offset), dim1, dim2)
    return Diagonal.apply(input, offset=int(offset), dim1=d1, dim2=d2)


_diagonal = diagonal


@tensor_parameters("input", "src")
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """Embeds the values of src into input along the diagonal elements of input."""
    d1, d2, length = _diagonal_geometry(input._data.shape, int(offset), dim1, dim2)
    want = tuple(n for i, n in enumerate(input._data.shape) if i not in (d1, d2)) + (length,)
    if tuple(src.shape) != want:
        raise RuntimeError(f"diagonal_scatter(): expected src to have a size equal to the slice of self. src "
                           f"size = {list(src.shape)}, slice size = {list(want)}")
    return DiagonalScatter.apply(input, src, offset=int(offset), dim1=d1, dim2=d2)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Creates a tensor whose diagonals (dim1, dim2) are filled by the last dimension of input."""
    n = input._data.shape[-1] + abs(int(offset))
    ndim = input._data.ndim + 1
    d1, d2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    batch = list(input._data.shape[:-1])
    shape = [0] * ndim
    rest = iter(batch)
    for i in range(ndim):
        shape[i] = n if i in (d1, d2) else next(rest)
    check_elements(shape)
    base = Tensor._adopt_array(_xp(input._data).zeros(tuple(shape), input._data.dtype), False, None)
    return diagonal_scatter(base, input, offset, d1, d2)


def diag(input, diagonal=0):
    """A 1-D input becomes a 2-D tensor with it on the given diagonal; a 2-D input gives its diagonal."""
    ndim = input._data.ndim
    if ndim == 1:
        return diag_embed(input, diagonal, 0, 1)
    if ndim == 2:
        return clone(_diagonal(input, diagonal))
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")


# ------------------------------------------------------------------ joining
def _common_dtype(arrays):
    out = arrays[0].dtype
    for a in arrays[1:]:
        if a.dtype != out:
            return _dt.result_type(*arrays).np
    return out


def _check_tensors(tensors, fn):
    if isinstance(tensors, Tensor):
        raise TypeError(f"{fn}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(x).__name__}")
    return tensors


class Cat(Op):
    __slots__ = ("dim", "bounds")
    op = "cat"

    def forward(self, *arrays, dim):
        dtype = _common_dtype(arrays)
        arrays = [a if a.dtype == dtype else a.astype(dtype) for a in arrays]
        self.dim = dim
        bounds = [0]
        for a in arrays:
            bounds.append(bounds[-1] + a.shape[dim])
        self.bounds = bounds
        return _xp(arrays[0]).concatenate(arrays, axis=dim)

    def backward(self, F, g):
        head = (slice(None),) * self.dim
        b = self.bounds
        return tuple(F.getitem(g, head + (slice(b[i], b[i + 1]),)) for i in range(len(b) - 1))


def cat(tensors, dim=0, *, out=None):
    """Concatenates the given sequence of tensors in the given dimension."""
    tensors = _check_tensors(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    # PyTorch's legacy rule: 1-D empty tensors are skipped whatever the others' shape
    ndim = max(x._data.ndim for x in tensors)
    parts = [x for x in tensors if x._data.shape != (0,) or ndim == 1]
    if len(parts) < len(tensors):   # skipped, they still take part in the result's dtype
        dtype = _dt.result_type(*tensors)
        parts = [x if x.dtype == dtype else x.to(dtype) for x in parts]
    ref = parts[0]._data
    if ref.ndim == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    dim = _wrap_dim(dim, ref.ndim)
    total = 0
    for i, x in enumerate(parts):
        s = x._data.shape
        if len(s) != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} and {len(s)}")
        for d in range(ref.ndim):
            if d != dim and s[d] != ref.shape[d]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size "
                                   f"{ref.shape[d]} but got size {s[d]} for tensor number {i} in the list.")
        total += s[dim]
    check_elements(ref.shape[:dim] + (total,) + ref.shape[dim + 1:])
    return Cat.apply(*parts, dim=dim)


concat = concatenate = cat


class Stack(Op):
    __slots__ = ("dim", "n")
    op = "stack"

    def forward(self, *arrays, dim):
        dtype = _common_dtype(arrays)
        arrays = [a if a.dtype == dtype else a.astype(dtype) for a in arrays]
        self.dim, self.n = dim, len(arrays)
        return _xp(arrays[0]).stack(arrays, axis=dim)

    def backward(self, F, g):
        head = (slice(None),) * self.dim
        return tuple(F.getitem(g, head + (i, Ellipsis)) for i in range(self.n))


def stack(tensors, dim=0, *, out=None):
    """Concatenates a sequence of tensors along a new dimension."""
    tensors = _check_tensors(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tensors[0]._data.shape
    for i, x in enumerate(tensors[1:], 1):
        if x._data.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 "
                               f"and {list(x._data.shape)} at entry {i}")
    dim = _wrap_dim(dim, len(shape) + 1)
    check_elements(shape[:dim] + (len(tensors),) + shape[dim:])
    return Stack.apply(*tensors, dim=dim)


def atleast_1d(*tensors):
    """Returns a 1-dimensional view of each input tensor with zero dimensions."""
    out = tuple(reshape(x, (1,)) if x._data.ndim == 0 else x for x in _dims_arg(tensors))
    return out[0] if len(out) == 1 else out


def atleast_2d(*tensors):
    """Returns a 2-dimensional view of each input tensor with fewer dimensions."""
    out = tuple(reshape(x, (1,) * (2 - x._data.ndim) + x._data.shape) if x._data.ndim < 2 else x
                for x in _dims_arg(tensors))
    return out[0] if len(out) == 1 else out


def atleast_3d(*tensors):
    """Returns a 3-dimensional view of each input tensor with fewer dimensions."""
    def up(x):
        s = x._data.shape
        if len(s) == 0:
            return reshape(x, (1, 1, 1))
        if len(s) == 1:
            return reshape(x, (1, s[0], 1))
        if len(s) == 2:
            return reshape(x, s + (1,))
        return x
    out = tuple(up(x) for x in _dims_arg(tensors))
    return out[0] if len(out) == 1 else out


def hstack(tensors, *, out=None):
    """Stacks tensors in sequence horizontally (column wise)."""
    tensors = [atleast_1d(x) for x in _check_tensors(tensors, "hstack")]
    return cat(tensors, 0 if tensors and tensors[0]._data.ndim == 1 else 1)


def vstack(tensors, *, out=None):
    """Stacks tensors in sequence vertically (row wise)."""
    return cat([atleast_2d(x) for x in _check_tensors(tensors, "vstack")], 0)


def dstack(tensors, *, out=None):
    """Stacks tensors in sequence depthwise (along the third axis)."""
    return cat([atleast_3d(x) for x in _check_tensors(tensors, "dstack")], 2)


def column_stack(tensors, *, out=None):
    """Creates a new tensor by horizontally stacking the tensors in tensors."""
    tensors = _check_tensors(tensors, "column_stack")
    return hstack([reshape(x, (-1, 1)) if x._data.ndim <= 1 else x for x in tensors])


# ------------------------------------------------------------------ repeating
class Repeat(Op):
    __slots__ = ("in_shape", "reps")
    op = "repeat"

    def forward(self, x, reps):
        self.in_shape, self.reps = x.shape, reps
        padded = (1,) * (len(reps) - x.ndim) + x.shape
        return _xp(x).tile(x.reshape(padded), reps)

    def backward(self, F, g):
        # out[r0, s0, r1, s1, ...] = x[s0, s1, ...]: sum the copies back over the r axes
        padded = (1,) * (len(self.reps) - len(self.in_shape)) + self.in_shape
        split = tuple(n for pair in zip(self.reps, padded) for n in pair)
        summed = F.sum(F.reshape(g, split), tuple(range(0, 2 * len(padded), 2)))
        return (F.reshape(summed, self.in_shape),)


def repeat(input, *sizes, **kwargs):
    """Repeats this tensor along the specified dimensions."""
    reps = tuple(int(s) for s in _dims_arg(sizes or (kwargs["repeats"],)))
    if len(reps) < input._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions "
                           "of tensor")
    if any(r < 0 for r in reps):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(reps)}")
    padded = (1,) * (len(reps) - input._data.ndim) + input._data.shape
    check_elements([r * n for r, n in zip(reps, padded)])
    return Repeat.apply(input, reps=reps)


def tile(input, dims):
    """Constructs a tensor by repeating the elements of input (dims padded with ones in front)."""
    dims = tuple(dims) if isinstance(dims, (list, tuple)) else (int(dims),)
    return repeat(input, (1,) * (input._data.ndim - len(dims)) + dims)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeats elements of a tensor (each element ``repeats`` times, along dim or flattened)."""
    from .indexing import index_select
    if repeats is None:  # repeat_interleave(counts): the indices, each repeated count times
        counts = input._data
        if counts.ndim > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        index = np.repeat(np.arange(counts.shape[0]), _host(counts))
        return Tensor._adopt_array(_xp(counts).asarray(index), False, None)
    if dim is None:
        input, dim = flatten(input), 0
    dim = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[dim] if input._data.ndim else 1
    if isinstance(repeats, Tensor) and repeats._data.ndim == 0:
        repeats = int(repeats)
    if isinstance(repeats, int):
        if repeats < 0:
            raise RuntimeError("repeats can not be negative")
        shape = input._data.shape
        check_elements(shape[:dim] + (shape[dim] * repeats,) + shape[dim + 1:])
        grown = expand(unsqueeze(input, dim + 1), shape[:dim + 1] + (repeats,) + shape[dim + 1:])
        return reshape(grown, shape[:dim] + (shape[dim] * repeats,) + shape[dim + 1:])
    counts = repeats._data if isinstance(repeats, Tensor) else np.asarray(repeats)
    if counts.ndim != 1 or counts.shape[0] != size:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{counts.shape[0] if counts.ndim else 1} and input.size({dim}) = {size}")
    if counts.size and int(counts.min()) < 0:
        raise RuntimeError("repeats can not be negative")
    shape = input._data.shape
    check_elements(shape[:dim] + (int(counts.sum()),) + shape[dim + 1:])
    index = _xp(input._data).asarray(np.repeat(np.arange(size), _host(counts)))
    return index_select(input, dim, Tensor._adopt_array(index, False, None))


# ------------------------------------------------------------------ rearranging values
class Flip(Op):
    __slots__ = ("dims",)
    op = "flip"

    def forward(self, x, dims):
        self.dims = dims
        return _arr.flip(x, dims).copy()

    def backward(self, F, g):
        return (F.flip(g, self.dims),)


def flip(input, *dims, **kwargs):
    """Reverses the order of the elements of input along the given dims."""
    dims = _dims_arg(dims or (kwargs["dims"],))
    dims = (dims,) if isinstance(dims, int) else dims
    ndim = input._data.ndim
    wrapped = tuple(_wrap_dim(d, ndim) for d in dims)
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if ndim == 0:
        wrapped = ()
    return Flip.apply(input, dims=wrapped)


def fliplr(input):
    """Flips the tensor in the left/right direction (dim 1)."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input):
    """Flips the tensor in the up/down direction (dim 0)."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


class Roll(Op):
    __slots__ = ("shifts", "dims")
    op = "roll"

    def forward(self, x, shifts, dims):
        self.shifts, self.dims = shifts, dims
        return _arr.roll(x, shifts, dims)

    def backward(self, F, g):
        return (F.roll(g, tuple(-s for s in self.shifts), self.dims),)


def roll(input, shifts, dims=None):
    """Rolls the tensor along the given dimension(s); with no dims, over the flattened tensor."""
    shifts = tuple(int(s) for s in shifts) if isinstance(shifts, (list, tuple)) else (int(shifts),)
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        shape = input._data.shape
        return reshape(Roll.apply(flatten(input), shifts=shifts, dims=(0,)), shape)
    dims = tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    dims = tuple(_wrap_dim(d, input._data.ndim) for d in dims)
    return Roll.apply(input, shifts=shifts, dims=dims)


def rot90(input, k=1, dims=(0, 1)):
    """Rotates a tensor by 90 degrees k times in the plane given by dims."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    ndim = input._data.ndim
    if ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    d0, d1 = _wrap_dim(dims[0], ndim), _wrap_dim(dims[1], ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return transpose(flip(input, (d1,)), d0, d1)
    if k == 2:
        return flip(input, (d0, d1))
    if k == 3:
        return transpose(flip(input, (d0,)), d0, d1)
    return clone(input)


class Tril(Op):
    __slots__ = ("k",)
    op = "tril"

    def forward(self, x, k):
        self.k = k
        return _arr.tril(x, k)

    def backward(self, F, g):
        return (F.tril(g, self.k),)


class Triu(Op):
    __slots__ = ("k",)
    op = "triu"

    def forward(self, x, k):
        self.k = k
        return _arr.triu(x, k)

    def backward(self, F, g):
        return (F.triu(g, self.k),)


def tril(input, diagonal=0, *, out=None):
    """Returns the lower triangular part of the matrix (or batch of matrices) input."""
    if input._data.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return Tril.apply(input, k=int(diagonal))


def triu(input, diagonal=0, *, out=None):
    """Returns the upper triangular part of the matrix (or batch of matrices) input."""
    if input._data.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return Triu.apply(input, k=int(diagonal))


def meshgrid(*tensors, indexing="ij"):
    """Creates grids of coordinates specified by the 1-D inputs."""
    tensors = _dims_arg(tensors)
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    for x in tensors:
        if x._data.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                               f"{x._data.ndim}D")
    sizes = [x._data.size for x in tensors]
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, x in enumerate(tensors):
        pos = {0: 1, 1: 0}.get(i, i) if swap else i
        shape = [1] * len(tensors)
        shape[pos] = -1
        out.append(expand(reshape(x, tuple(shape)), tuple(sizes)))
    return tuple(out)


# ------------------------------------------------------------------ in place on views
class ViewScatter(Op):
    """PyTorch's CopySlices: ``base`` with the region a view chain selects replaced by ``src``."""
    __slots__ = ("chain",)
    op = "copy_slices"
    backward_name = "CopySlices"

    def forward(self, base, src, chain):
        self.chain = chain
        return _write_region(base.copy(order="K"), chain, src)

    def backward(self, F, g):
        if isinstance(g, Tensor):
            region = g
            for cls, params in self.chain:
                region = cls.apply(region, **params)
            gb = ViewScatter.apply(g, region * 0, chain=self.chain)
            return gb, region
        gsrc = _region(g, self.chain).copy()
        return _write_region(g.copy(order="K"), self.chain, 0), gsrc


def _region(array, chain):
    for cls, params in chain:
        array = cls.__new__(cls).forward(array, **params)
    return array


def _write_region(out, chain, src):
    """Writes src into the region of ``out`` (a fresh array) that ``chain`` selects; returns out."""
    region = out
    for cls, params in chain:
        if cls is Reshape and not _viewable(region, params["shape"]):
            break  # this layout cannot show the region as a view: go by element positions
        region = cls.__new__(cls).forward(region, **params)
    else:
        if overlaps_itself(region):
            raise RuntimeError(OVERLAP_MESSAGE)
        region[...] = src
        return out
    out = _xp(out).ascontiguousarray(out)
    positions = _region(_xp(out).arange(out.size).reshape(out.shape), chain)
    out.reshape(-1)[positions] = src
    return out


# ------------------------------------------------------------------ Tensor methods
def _method(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _register():
    for fn in (reshape, view, expand, permute, flip, repeat):
        setattr(Tensor, fn.__name__, _method(fn))
    for name in ("flatten", "unflatten", "ravel", "squeeze", "unsqueeze", "expand_as", "broadcast_to",
                 "transpose", "swapaxes", "swapdims", "t", "adjoint", "movedim", "moveaxis", "contiguous",
                 "clone", "narrow", "select", "split", "tensor_split", "chunk", "unbind", "tile",
                 "repeat_interleave", "fliplr", "flipud", "roll", "rot90", "tril", "triu", "diag",
                 "diag_embed", "diagonal", "diagonal_scatter"):
        setattr(Tensor, name, globals()[name])
    Tensor.sum_to_size = lambda self, *size: sum_to(self, _dims_arg(size))
    Tensor.view_as = lambda self, other: view(self, tuple(other.shape))
    Tensor.reshape_as = lambda self, other: reshape(self, tuple(other.shape))
    Tensor.T = property(_reverse_dims)
    Tensor.mT = property(_matrix_transpose)
    Tensor.H = Tensor.T
    Tensor.mH = Tensor.mT
    Tensor.tril_ = lambda self, diagonal=0: self._inplace(tril, diagonal)
    Tensor.triu_ = lambda self, diagonal=0: self._inplace(triu, diagonal)
    Tensor.t_ = lambda self: _restride(self, t(self))
    Tensor.transpose_ = lambda self, dim0, dim1: _restride(self, transpose(self, dim0, dim1))
    Tensor.squeeze_ = lambda self, dim=None: _restride(self, squeeze(self, dim))
    Tensor.unsqueeze_ = lambda self, dim: _restride(self, unsqueeze(self, dim))
    Tensor.resize_ = _resize_
    Tensor.resize_as_ = lambda self, other, memory_format=None: _resize_(self, tuple(other.shape))


def _resize_(self, *sizes, memory_format=None):
    """``t.resize_(64, 784)``: this tensor takes the shape in place, its elements kept in memory order
    as far as they go (PyTorch keeps its storage); elements past the old ones are zero (PyTorch
    leaves them uninitialised). A tensor that requires grad cannot be resized, as in PyTorch."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    try:
        sizes = tuple(operator.index(n) for n in sizes)
    except TypeError:
        raise TypeError(f"resize_(): argument 'size' must be tuple of ints, but found element of type "
                        f"{type(next(n for n in sizes if not isinstance(n, int))).__name__}") from None
    if any(n < 0 for n in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: {list(sizes)}")
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    check_elements(sizes)
    data = self._data
    xp = _xp(data)
    flat = data.ravel(order="K")
    count = math.prod(sizes)
    if count != flat.size:
        grown = xp.zeros(count, dtype=data.dtype)
        keep = min(count, flat.size)
        grown[:keep] = flat[:keep]
        flat = grown
    self._data = flat.reshape(sizes)
    self._base = self._view = None   # a view no more: its new elements are its own
    self._version[0] += 1
    return self


def _restride(self, result):
    """In-place metadata ops (t_, squeeze_, ...): this tensor takes the new view's shape and history."""
    if result is not self:
        self._data = result._data
        if self.grad_fn is not None:
            self.grad_fn = result.grad_fn
        else:
            self._accumulator = None
    return self


_register()


def unfold(self, dimension, size, step):
    """``x.unfold(dimension, size, step)``: every window of ``size`` elements along dimension, ``step``
    apart, as a new last dimension (dimension becomes the window count). PyTorch returns a strided
    view; here the windows are gathered with index_select (its gradient adds overlapping windows
    back), so the result is a copy: writes to it do not reach x."""
    from .indexing import index_select
    x = self._data
    d = _wrap_dim(dimension, x.ndim)
    n = x.shape[d] if x.ndim else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    windows = (n - size) // step + 1
    shape = x.shape[:d] + (windows,) + x.shape[d + 1:] + (size,) if x.ndim else (size,)  # 0-d: (size,)
    check_elements(shape, "unfold result")
    src = self if x.ndim else reshape(self, (1,))
    idx = np.arange(windows)[:, None] * step + np.arange(size)[None, :]
    from .creation import tensor as _tensor
    out = index_select(src, d, _tensor(idx.reshape(-1), dtype=_dt.int64, device=self.device))
    out = reshape(out, src._data.shape[:d] + (windows, size) + src._data.shape[d + 1:])
    out = movedim(out, d + 1, -1)
    return out if x.ndim else reshape(out, shape)


Tensor.unfold = unfold
