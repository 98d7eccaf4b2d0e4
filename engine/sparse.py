"""``torch.sparse``: the sparse matrix product and the legacy sparse constructors
(``torch.sparse.FloatTensor(indices, values, size)``, pygcn's loader). See ops/sparse.py."""
from . import dtypes as _dt
from .ops.sparse import SparseTensor, sparse_coo_tensor, spmm as mm

__all__ = ["FloatTensor", "DoubleTensor", "LongTensor", "mm", "sum"]


class _SparseType(type):
    """Calling a legacy sparse type builds a sparse COO tensor of its dtype."""

    def __call__(cls, indices, values, size=None, *, device=None):
        if cls.dtype is None:
            raise TypeError("SparseTypedTensor is abstract: call torch.sparse.FloatTensor, ...")
        return sparse_coo_tensor(indices, values, size, dtype=cls.dtype, device=device)

    def __instancecheck__(cls, obj):
        return isinstance(obj, SparseTensor) and obj.dtype is cls.dtype


class SparseTypedTensor(metaclass=_SparseType):
    """The base of the legacy sparse types (what the program allowlist names)."""
    dtype = None


FloatTensor = _SparseType("FloatTensor", (SparseTypedTensor,), {"dtype": _dt.float32, "__module__": __name__})
DoubleTensor = _SparseType("DoubleTensor", (SparseTypedTensor,), {"dtype": _dt.float64, "__module__": __name__})
LongTensor = _SparseType("LongTensor", (SparseTypedTensor,), {"dtype": _dt.int64, "__module__": __name__})


def sum(input, dim=None, dtype=None):
    """The sum of a sparse tensor's values (all of them, or over ``dim``), as a dense tensor."""
    out = input.sum() if dim is None else input.sum(dim)
    return out if dtype is None else out.to(dtype)
