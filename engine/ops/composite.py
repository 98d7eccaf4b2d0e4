"""Functions real code reaches for that are compositions of the engine's ops (so their gradients,
devices and dtypes are those ops'): diff, nansum, nanmean, block_diag, cartesian_prod, and the index
and counting helpers triu_indices, tril_indices and bincount. Each follows PyTorch's signature,
dtype and errors."""
import numpy as np

from .. import dtypes as _dt
from ..device import get_array_module
from ..tensor import Tensor, _wrap_dim
from .arguments import tensor_parameters
from . import creation, elementwise, reduction, shape
from .linalg import _SCALAR_TYPE

__all__ = ["diff", "nansum", "nanmean", "block_diag", "cartesian_prod", "triu_indices", "tril_indices", "bincount",
           "index_copy"]


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along ``dim``, after ``prepend`` and ``append`` are joined to it."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input.ndim)
    parts = [t if isinstance(t, Tensor) or t is None else creation.tensor(t) for t in (prepend, input, append)]
    parts = [t.expand(*(input.shape[:d] + (1,) + input.shape[d + 1:])) if t is not None and t.ndim == 0 else t
             for t in parts]
    x = shape.cat([t for t in parts if t is not None], d) if prepend is not None or append is not None else input
    for _ in range(n):
        size = x.shape[d]
        if size == 0:
            break
        later, earlier = x.narrow(d, 1, size - 1), x.narrow(d, 0, size - 1)
        x = elementwise.logical_xor(later, earlier) if x.dtype == _dt.bool else later - earlier
    return x


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum with NaNs counted as zero (their gradient is zero)."""
    kept = elementwise.where(elementwise.isnan(input), 0, input) if input.is_floating_point() else input
    return reduction.sum(kept, dim, keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the values that are not NaN (NaN where a slice has none)."""
    if not input.is_floating_point() and dtype is None:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_dt.as_dtype(input.dtype)}")
    count = reduction.sum(elementwise.logical_not(elementwise.isnan(input)), dim, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


def block_diag(*tensors):
    """The tensors (0-d as 1x1, 1-d as one row) along the diagonal of a zero matrix."""
    blocks = []
    for k, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {k} has "
                               f"{t.ndim} dimensions")
        blocks.append(t.reshape(1, 1) if t.ndim == 0 else t.reshape(1, -1) if t.ndim == 1 else t)
    if not blocks:
        return creation.empty(1, 0)
    want = _dt.result_type(*blocks)
    width = sum(b.shape[1] for b in blocks)
    from ..nn.functional import pad
    rows, left = [], 0
    for b in blocks:
        rows.append(pad(b.to(want), (left, width - left - b.shape[1])))
        left += b.shape[1]
    return shape.cat(rows, 0)


def cartesian_prod(*tensors):
    """Every combination of one element of each 1-d tensor, as rows (a 1-d tensor for one input)."""
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError("Expect a 1D vector, but got shape " + str(list(t.shape)))
    if len(tensors) == 1:
        return tensors[0] * 1
    grids = shape.meshgrid(*tensors, indexing="ij")
    return shape.stack([g.reshape(-1) for g in grids], 1)


def _tri_indices(np_fn, row, col, offset, dtype, device):
    for name, v in (("row", row), ("col", col)):
        if v < 0:
            raise RuntimeError(f"{name} must be non-negative, got{v}")
    rows, cols = np_fn(row, k=offset, m=col)
    return creation.tensor(np.stack([rows, cols]).astype(np.int64), dtype=dtype, device=device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) row and column indices of a row x col matrix's upper triangle (from diagonal ``offset``)."""
    return _tri_indices(np.triu_indices, row, col, offset, dtype or _dt.int64, device)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) row and column indices of a row x col matrix's lower triangle (to diagonal ``offset``)."""
    return _tri_indices(np.tril_indices, row, col, offset, dtype or _dt.int64, device)


def bincount(input, weights=None, minlength=0):
    """How often each non-negative integer occurs in 1-d ``input`` (or the sum of its ``weights``)."""
    x = input._data
    if x.dtype.kind not in "iub":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{_SCALAR_TYPE.get(x.dtype.name, x.dtype.name)}'")
    if x.ndim != 1 or x.dtype.kind == "b" or (x.size and int(x.min()) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    xp = get_array_module(x)
    if weights is None:
        out = xp.bincount(x, minlength=minlength).astype(np.int64)
    else:
        if weights.shape != input.shape:
            raise RuntimeError("weights should be 1-d and have the same length as input")
        w = weights._data
        out = xp.bincount(x, weights=w, minlength=minlength)
        out = out.astype(w.dtype if w.dtype.kind == "f" else np.float64)
    return Tensor._adopt_array(out, False, None)


def _index_copy_target(input, dim, index, source):
    """The index tuple that index_copy writes ``source`` through, after PyTorch's checks."""
    d = _wrap_dim(dim, max(input.ndim, 1))
    if index.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    if index.dtype != _dt.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_SCALAR_TYPE.get(index.dtype.name, index.dtype.name)}")
    n = index.numel()
    src_n = source.shape[d] if source.ndim else 1
    if n != src_n:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) ({src_n})")
    for k in range(input.ndim):
        if k != d and source.ndim == input.ndim and source.shape[k] != input.shape[k]:
            at = k if k < d else k - 1   # the dimension within a slice, as PyTorch counts it
            raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                               f"slice shape: {input.shape[k]} at dimension {at} and source slice shape: "
                               f"{source.shape[k]} at dimension {at}.")
    size = input.shape[d] if input.ndim else 1
    if n and (int(index.min()) < -size or int(index.max()) >= size):
        bad = int(index.max()) if int(index.max()) >= size else int(index.min())
        raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {d} with size {size}")
    return (slice(None),) * d + (index.reshape(-1),)


def index_copy(input, dim, index, source):
    """A copy of input with the slices ``index`` along ``dim`` replaced by source's, in order
    (differentiable in both: the replaced slices get no gradient from input)."""
    target = _index_copy_target(input, dim, index, source)
    out = input.clone()
    out[target] = source
    return out


def _index_copy_(self, dim, index, source):
    self[_index_copy_target(self, dim, index, source)] = source
    return self


def _register():
    Tensor.index_copy = index_copy
    Tensor.index_copy_ = _index_copy_
    Tensor.diff = diff
    Tensor.nansum = nansum
    Tensor.nanmean = nanmean
    Tensor.bincount = bincount


_register()


# ------------------------------------------------------------------ sets, sequences and layouts
__all__ += ["isin", "unique_consecutive", "combinations", "unravel_index", "diagflat", "vander", "hsplit", "vsplit",
            "dsplit", "row_stack", "msort", "nanmedian", "select_scatter", "slice_scatter", "renorm", "pdist",
            "is_same_size"]


def _data(x):
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element of ``elements`` is in ``test_elements`` (either may be a number)."""
    a, b = _data(elements), _data(test_elements)
    xp = get_array_module(a) if isinstance(elements, Tensor) else get_array_module(b)
    out = xp.isin(xp.asarray(a), xp.asarray(b), assume_unique=assume_unique, invert=invert)
    return creation.tensor(out) if not isinstance(elements, Tensor) else Tensor._adopt_array(out, False, None)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Drops consecutive repeats (of elements, or of slices along ``dim``); optionally with the inverse
    indices and the run lengths, as PyTorch returns them."""
    x = input._data
    xp = get_array_module(x)
    if dim is None:
        flat = x.reshape(-1)
        change = xp.ones(flat.shape[0], dtype=bool)
        if flat.shape[0] > 1:
            change[1:] = flat[1:] != flat[:-1]
        values = Tensor._adopt_array(flat[change], False, None)
        inverse_shape = x.shape
    else:
        d = _wrap_dim(dim, x.ndim)
        moved = xp.moveaxis(x, d, 0).reshape(x.shape[d], -1)
        change = xp.ones(moved.shape[0], dtype=bool)
        if moved.shape[0] > 1:
            change[1:] = (moved[1:] != moved[:-1]).any(axis=1)
        values = Tensor._adopt_array(xp.take(x, xp.nonzero(change)[0], axis=d), False, None)
        inverse_shape = (x.shape[d],)
    run = xp.cumsum(change) - 1
    out = [values]
    if return_inverse:
        out.append(Tensor._adopt_array(run.reshape(inverse_shape).astype(np.int64), False, None))
    if return_counts:
        starts = xp.nonzero(change)[0]
        ends = xp.concatenate([starts[1:], xp.asarray([change.shape[0]])])
        out.append(Tensor._adopt_array((ends - starts).astype(np.int64), False, None))
    return out[0] if len(out) == 1 else tuple(out)


def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of a 1-D tensor's elements, as rows (gradients reach the elements)."""
    import itertools
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return creation.empty(0, dtype=input.dtype)
    n = input.shape[0]
    make = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    from ..limits import check_elements
    from math import comb
    count = comb(n + r - 1, r) if with_replacement else comb(n, r)
    check_elements((count, r), "combinations result")
    index = np.array(list(make(range(n), r)), dtype=np.int64).reshape(-1, r)
    picked = input[creation.tensor(index.reshape(-1))]
    return picked.reshape(-1, r) if r > 1 else picked


def unravel_index(indices, shape):
    """The coordinates of flat ``indices`` in a tensor of ``shape``: a tuple of int64 tensors."""
    idx = _data(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError("expected 'indices' to be integer dtype, but got float")
    shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
    total = 1
    for s in shape:
        total *= s
    if idx.size and (int(idx.max()) >= total or int(idx.min()) < -total):
        raise RuntimeError("index out of bounds for the given shape")
    xp = get_array_module(idx)
    coords = xp.unravel_index(xp.where(idx < 0, idx + total, idx), shape)
    return tuple(Tensor._adopt_array(xp.asarray(c, dtype=np.int64), False, None) for c in coords)


def diagflat(input, offset=0):
    """A 2-D tensor with the flattened input on diagonal ``offset``."""
    return shape.diag(input.reshape(-1), offset)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of 1-D ``x``: columns x**(N-1), ..., x**0 (or increasing powers)."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    powers = creation.arange(n) if increasing else creation.arange(n - 1, -1, -1)
    base = x if x.dtype.is_floating_point or x.dtype == _dt.int64 else x.to(_dt.int64)
    return elementwise.pow(base.unsqueeze(1), powers.to(base.dtype).unsqueeze(0)) if n else \
        creation.empty(x.shape[0], 0, dtype=base.dtype)


def _split_along(name, input, sections, dim, min_dims):
    if input.ndim < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                           f"with {input.ndim} dimensions!")
    if isinstance(sections, int):
        size = input.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                               f"{size} is not divisible by the split_size {sections}!")
    return shape.tensor_split(input, sections, dim)


def hsplit(input, indices_or_sections):
    """tensor_split along dim 1 (dim 0 of a 1-D tensor), sections dividing evenly."""
    return _split_along("hsplit", input, indices_or_sections, 1 if input.ndim > 1 else 0, 1)


def vsplit(input, indices_or_sections):
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


def row_stack(tensors, *, out=None):
    return shape.vstack(tensors)


def msort(input, *, out=None):
    """The input sorted along its first dimension."""
    return reduction.sort(input, 0)[0]


def nanmedian(input, dim=None, keepdim=False):
    """The lower median of the non-NaN elements (NaN where all are NaN); with ``dim``, (values, indices)
    along it. The gradient goes to the element picked."""
    x = input._data
    xp = get_array_module(x)
    if dim is None:
        if x.size == 0:
            if x.dtype.kind == "f":
                return input.mean()   # NaN, as PyTorch's
            raise IndexError("nanmedian(): Expected reduction dim to be specified for input.numel() == 0.")
        return reduction.NanMedian.apply(input, axes=None, keepdim=False)
    d = _wrap_dim(dim, max(x.ndim, 1))
    if x.ndim == 0:
        values = input.clone()
        index = creation.zeros((), dtype=_dt.int64)
        return reduction.return_types.nanmedian(values, index)
    if x.shape[d] == 0:
        raise IndexError(f"nanmedian(): Expected reduction dim {d} to have non-zero size.")
    order = xp.argsort(x, axis=d, kind="stable")
    k = (~xp.isnan(x)).sum(axis=d, keepdims=True) if x.dtype.kind == "f" else xp.full(
        x.shape[:d] + (1,) + x.shape[d + 1:], x.shape[d])
    pick = xp.take_along_axis(order, xp.maximum(k - 1, 0) // 2, axis=d).astype(np.int64)
    index = Tensor._adopt_array(pick, False, None)
    from .indexing import gather
    values = gather(input, d, index)
    if not keepdim:
        values, index = values.squeeze(d), index.squeeze(d)
    return reduction.return_types.nanmedian(values, index)


def select_scatter(input, src, dim, index):
    """A copy of ``input`` with ``src`` in place of ``input.select(dim, index)``."""
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at dimension {d}")
    want = input.shape[:d] + input.shape[d + 1:]
    if tuple(src.shape) != tuple(want):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(want)}")
    index = index % n
    parts = [input.narrow(d, 0, index), src.unsqueeze(d), input.narrow(d, index + 1, n - index - 1)]
    return shape.cat(parts, d)


@tensor_parameters("input", "src")
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of ``input`` with ``src`` in place of ``input[start:end:step]`` along ``dim``."""
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    positions = list(range(n))[slice(start, end, step)]
    want = input.shape[:d] + (len(positions),) + input.shape[d + 1:]
    if tuple(src.shape) != tuple(want):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(want)}")
    if not positions:
        return input.clone()
    return index_copy(input, d, creation.tensor(positions), src)


def renorm(input, p, dim, maxnorm):
    """Each sub-tensor along ``dim`` whose p-norm exceeds ``maxnorm`` scaled down to norm ``maxnorm``."""
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = _wrap_dim(dim, input.ndim)
    others = tuple(i for i in range(input.ndim) if i != d)
    norms = elementwise.pow(reduction.sum(elementwise.pow(elementwise.abs(input), p), others, keepdim=True), 1.0 / p)
    factor = elementwise.where(norms > maxnorm, maxnorm / (norms + 1e-7), creation.ones_like(norms))
    return input * factor


def pdist(input, p=2):
    """The p-norm distances between each pair of rows of a 2-D input, in the upper triangle's order."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    i, j = np.triu_indices(n, 1)
    diff = input[creation.tensor(i)] - input[creation.tensor(j)]
    from ..linalg import vector_norm
    return vector_norm(diff, p, dim=1)


@tensor_parameters("input", "other")
def is_same_size(input, other):
    return tuple(input.shape) == tuple(other.shape)


def _register_more():
    for name in ("unique_consecutive", "diagflat", "msort", "nanmedian", "renorm", "hsplit", "vsplit", "dsplit",
                 "select_scatter", "slice_scatter", "is_same_size"):
        setattr(Tensor, name, globals()[name])
    Tensor.renorm_ = lambda self, p, dim, maxnorm: self._inplace(renorm, p, dim, maxnorm)


_register_more()
