"""``torch.linalg``: the inverse, solves, determinants and factorizations (ops/factorizations.py),
matrix_power, and the norms: vector_norm, matrix_norm, and norm, which picks one of them as
PyTorch does."""
import math
import numbers

from .ops import factorizations as _f
from .ops.factorizations import LinAlgError
from .ops.linalg import matrix_power
from .ops.reduction import norm as _pnorm

__all__ = ["matrix_power", "matrix_norm", "norm", "vector_norm", "LinAlgError", "inv", "inv_ex", "solve", "det",
           "slogdet", "cholesky", "cholesky_ex", "solve_triangular", "eigh", "eigvalsh", "svd", "svdvals", "qr",
           "lu", "lu_factor", "lu_factor_ex", "lu_solve", "pinv", "lstsq", "matrix_rank"]

inv = _f.linalg_inv
inv_ex = _f.linalg_inv_ex
solve = _f.linalg_solve
det = _f.linalg_det
slogdet = _f.linalg_slogdet
cholesky = _f.linalg_cholesky
cholesky_ex = _f.linalg_cholesky_ex
solve_triangular = _f.linalg_solve_triangular
eigh = _f.linalg_eigh
eigvalsh = _f.linalg_eigvalsh
svd = _f.linalg_svd
svdvals = _f.linalg_svdvals
qr = _f.linalg_qr
lu = _f.linalg_lu
lu_factor = _f.linalg_lu_factor
lu_factor_ex = _f.linalg_lu_factor_ex
lu_solve = _f.linalg_lu_solve
pinv = _f.linalg_pinv
lstsq = _f.linalg_lstsq
matrix_rank = _f.linalg_matrix_rank



def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The vector ord-norm of x over dim (every element when dim is None): ord a number, inf or -inf."""
    if isinstance(ord, bool) or not isinstance(ord, numbers.Number):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not {type(ord).__name__}")
    result = _pnorm(x, p=ord, dim=dim, keepdim=keepdim, dtype=dtype)
    if out is not None:
        out.resize_(result.shape).copy_(result.detach())
        return out
    return result


def _matrix_dims(x, dim):
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dim!r}")
    if x.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    d0, d1 = (d % x.dim() for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """The matrix norm of A over the two dims: 'fro', inf / -inf (largest / smallest absolute row sum),
    1 / -1 (absolute column sums), 'nuc' (the sum of the singular values), 2 / -2 (the largest /
    smallest singular value)."""
    d0, d1 = _matrix_dims(A, dim)
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        result = _pnorm(A, p=2, dim=(d0, d1), keepdim=keepdim)
    elif ord in (math.inf, -math.inf, 1, -1):
        along, across = (d1, d0) if ord in (math.inf, -math.inf) else (d0, d1)
        sums = A.abs().sum(dim=along, keepdim=True)
        result = sums.amax(dim=across, keepdim=True) if ord > 0 else sums.amin(dim=across, keepdim=True)
        if not keepdim:
            result = result.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    elif ord in ("nuc", 2, -2):
        rest = [d for d in range(A.dim()) if d not in (d0, d1)]
        s = svdvals(A.permute(rest + [d0, d1]))
        result = s.sum(-1) if ord == "nuc" else s.amax(-1) if ord == 2 else s.amin(-1)
        if keepdim:
            result = result.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if out is not None:
        out.resize_(result.shape).copy_(result.detach())
        return out
    return result


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """PyTorch's linalg.norm: a vector norm over one dim (or over every element when ord and dim are
    None), a matrix norm over two dims (or of a 2-D A when only ord is given)."""
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        dim = tuple(dim)
        if len(dim) == 1:
            if isinstance(ord, str):
                raise RuntimeError(f"linalg.vector_norm: Expected a numeric ord, but got ord={ord!r}")
            return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype, out=out)
        if len(dim) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype, out=out)
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype, out=out)
    if A.dim() == 1:
        return vector_norm(A, ord, None, keepdim, dtype=dtype, out=out)
    if A.dim() == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)
    raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.dim()}D.")


from .ops.linalg import linalg_cross as cross  # noqa: E402

__all__ += ["cross"]
