"""Linear algebra: matmul and its relatives, einsum, transposes of matrices."""
import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor

__all__ = ["matmul"]


class MatMul(Function):
    __slots__ = ()
    op = "matmul"
    saves = (0, 1)

    def forward(self, a, b):
        if a.ndim == 0 or b.ndim == 0:
            raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                               f"{a.ndim}D and {b.ndim}D")
        if a.dtype != b.dtype:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {a.dtype} != {b.dtype}")
        try:
            return a @ b
        except ValueError:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_fmt(a.shape)} and "
                               f"{_fmt(b.shape)})") from None

    def backward(self, F, g, a, b):
        if a.ndim == 1 and b.ndim == 1:     # dot
            return g * b, g * a
        if a.ndim == 1:                     # (k) @ (..., k, n) -> (..., n)
            ga = F.matmul(F.unsqueeze(g, -2), F.transpose(b, -1, -2))
            return F.reshape(F.sum_to(ga, (1, a.shape[0])), a.shape), F.matmul(F.unsqueeze(a, -1), F.unsqueeze(g, -2))
        if b.ndim == 1:                     # (..., m, k) @ (k) -> (..., m)
            gb = F.matmul(F.unsqueeze(g, -2), a)
            return F.matmul(F.unsqueeze(g, -1), F.unsqueeze(b, -2)), F.reshape(F.sum_to(gb, (1, b.shape[0])), b.shape)
        return F.matmul(g, F.transpose(b, -1, -2)), F.matmul(F.transpose(a, -1, -2), g)


def _fmt(shape):
    return "x".join(str(s) for s in (shape if len(shape) > 1 else (1,) + tuple(shape)))


def matmul(input, other, *, out=None):
    """Matrix product of two tensors, with NumPy's batching and broadcasting."""
    return MatMul.apply(input, other)


Tensor.matmul = matmul
Tensor.__matmul__ = matmul
Tensor.__rmatmul__ = lambda self, other: matmul(other, self)
