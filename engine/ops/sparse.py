"""Sparse COO tensors (``torch.sparse_coo_tensor``, ``Tensor.to_sparse``, ``torch.spmm``), held dense.

A sparse tensor here is an ordinary tensor of the dense values (zeros where no entry is given) that
also remembers the indices and values it was built from. Every op reads it as the dense matrix it
stands for, so ``torch.spmm(adj, x)``, ``adj @ x`` and ``adj.t().matmul(g)`` give PyTorch's values
and gradients: building one scatters ``values`` into zeros (index_put with accumulate, as duplicate
COO entries sum), so the gradient that reaches ``values`` is the dense gradient read at the
indices, which is what PyTorch's sparse matmul gives them. The graphs the corpus meets (GCN / GAT
adjacency matrices of a few thousand nodes) fit dense; what is lost is only the memory saving.
"""
import weakref

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from .creation import tensor as _tensor, zeros
from .indexing import index_put, nonzero

__all__ = ["sparse_coo_tensor", "spmm"]

_COO = {}   # id(sparse tensor) -> (indices, values, coalesced); entries leave with their tensor


class SparseTensor(Tensor):
    """A tensor with ``layout=torch.sparse_coo``: its dense values, and its indices and values."""
    __slots__ = ()

    is_sparse = property(lambda self: True)

    def _parts(self):
        return _COO[id(self)]

    def _indices(self):
        """The (sparse_dim, nnz) int64 indices, as given (uncoalesced entries included)."""
        return self._parts()[0]

    def _values(self):
        return self._parts()[1]

    def indices(self):
        if not self.is_coalesced():
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._indices()

    def values(self):
        if not self.is_coalesced():
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._values()

    def _nnz(self):
        return int(self._indices()._data.shape[1])

    def sparse_dim(self):
        return int(self._indices()._data.shape[0])

    def dense_dim(self):
        return self.dim() - self.sparse_dim()

    def is_coalesced(self):
        return self._parts()[2]

    def coalesce(self):
        """The same tensor with its indices sorted and duplicates summed."""
        if self.is_coalesced():
            return self
        idx = self._indices()._data
        keys = np.ravel_multi_index(tuple(np.asarray(_host_np(idx))), self.shape[:idx.shape[0]]) \
            if idx.shape[1] else np.zeros(0, np.int64)
        uniq, inverse = np.unique(keys, return_inverse=True)
        new_idx = np.stack(np.unravel_index(uniq, self.shape[:idx.shape[0]])).astype(np.int64) \
            if idx.shape[1] else idx
        values = self._values()
        summed = zeros((len(uniq),) + tuple(values.shape[1:]), dtype=values.dtype, device=values.device)
        summed = index_put(summed, (_tensor(inverse.astype(np.int64), device=values.device),), values,
                           accumulate=True)
        return _make_sparse(_tensor(new_idx, device=values.device), summed, tuple(self.shape), True)

    def to_dense(self, dtype=None):
        """The dense tensor (a copy, in the graph)."""
        out = self.clone()
        return out if dtype is None else out.to(dtype)

    def to_sparse(self, sparse_dim=None):
        return self

    def __repr__(self):
        idx, val = self._indices(), self._values()
        return (f"tensor(indices={_indent(repr(idx))},\n       values={_indent(repr(val))},\n"
                f"       size={tuple(self.shape)}, nnz={self._nnz()}, layout=torch.sparse_coo"
                + (", requires_grad=True)" if self.requires_grad else ")"))

    __str__ = __repr__


def _host_np(a):
    return a.get() if hasattr(a, "get") else a


def _indent(text):
    return text.replace("\n", "\n" + " " * 15)


def _make_sparse(indices, values, size, coalesced):
    dense = zeros(size, dtype=values.dtype, device=values.device)
    if indices._data.shape[1]:
        dense = index_put(dense, tuple(indices[d] for d in range(indices.shape[0])), values, accumulate=True)
    dense.__class__ = SparseTensor   # same layout (no slots of its own): the graph node and data stay
    _COO[id(dense)] = (indices, values, coalesced)
    weakref.finalize(dense, _COO.pop, id(dense), None)
    return dense


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, requires_grad=False,
                      check_invariants=None, is_coalesced=None):
    """Constructs a sparse tensor in COO format with the given values at the given indices."""
    if not isinstance(indices, Tensor):
        indices = _tensor(indices)
    if not isinstance(values, Tensor):
        values = _tensor(values, dtype=dtype)
    if dtype is not None and values.dtype != _dt.as_dtype(dtype):
        values = values.to(_dt.as_dtype(dtype))
    if device is not None:
        indices, values = indices.to(device), values.to(device)
    if indices.dtype in (_dt.int32, _dt.int16, _dt.int8, _dt.uint8):
        indices = indices.to(_dt.int64)   # PyTorch reads any integer indices (NumPy's int32 edges) as int64
    if indices.dtype != _dt.int64:
        raise RuntimeError(f"indices must be an int64 tensor, but got {indices.dtype}")
    if indices.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(indices.shape)}")
    sparse_dim, nnz = indices.shape
    if values.dim() == 0 or values.shape[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, "
                           f"nnz from values: {values.shape[0] if values.dim() else 0}")
    idx = _host_np(indices._data)
    if size is None:
        size = tuple(int(m) + 1 for m in idx.max(axis=1)) if nnz else (0,) * sparse_dim
        size = size + tuple(values.shape[1:])
    size = tuple(int(s) for s in size)
    if len(size) != sparse_dim + values.dim() - 1:
        raise RuntimeError(f"number of dimensions must be sparse_dim ({sparse_dim}) + dense_dim "
                           f"({values.dim() - 1}), but got {len(size)}")
    # PyTorch checks this only with check_invariants=True; held dense, an entry outside is always refused
    if nnz and ((idx < 0).any() or (idx >= np.array(size[:sparse_dim])[:, None]).any()):
        raise RuntimeError(f"size is inconsistent with indices: for dim 0, size is {size[0]} but found "
                           "index out of range")
    # as PyTorch: a tensor built from indices is uncoalesced unless the caller says so (or it has one entry)
    coalesced = bool(is_coalesced) if is_coalesced is not None else nnz <= 1
    out = _make_sparse(indices, values, size, coalesced)
    if requires_grad:
        out.requires_grad_(True)
    return out


def to_sparse(self, sparse_dim=None):
    """The COO sparse tensor of this dense one (entries where it is non-zero)."""
    if sparse_dim is not None and sparse_dim != self.dim():
        raise NotImplementedError("to_sparse(sparse_dim) with dense dimensions is not supported")
    idx = nonzero(self).t()
    values = self[tuple(idx[d] for d in range(idx.shape[0]))] if self.dim() else self.reshape(1)
    return _make_sparse(idx.contiguous(), values, tuple(self.shape), True)


def spmm(input, mat2):
    """Matrix product of a sparse (or dense) matrix with a dense one."""
    return input.mm(mat2)


Tensor.to_sparse = to_sparse
