"""Functions real code reaches for that are compositions of the engine's ops (so their gradients,
devices and dtypes are those ops'): diff, nansum, nanmean, block_diag, cartesian_prod, and the index
and counting helpers triu_indices, tril_indices and bincount. Each follows PyTorch's signature,
dtype and errors."""
import numpy as np

from .. import dtypes as _dt
from ..device import get_array_module
from ..tensor import Tensor, _wrap_dim
from . import creation, elementwise, reduction, shape
from .linalg import _SCALAR_TYPE

__all__ = ["diff", "nansum", "nanmean", "block_diag", "cartesian_prod", "triu_indices", "tril_indices", "bincount",
           "index_copy"]


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along ``dim``, after ``prepend`` and ``append`` are joined to it."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
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
    return Tensor._make(out, False, None)


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
