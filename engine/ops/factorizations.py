"""Dense linear algebra beyond products: the inverse, linear solves, determinants and the
factorizations (Cholesky, the symmetric eigendecomposition, SVD, QR), with the pseudo-inverse,
least squares, the rank and the singular-value matrix norms built on them.

Forward runs on the array module's LAPACK (NumPy's or CuPy's). Every backward rule is
PyTorch's (derivatives.yaml), written with ``F`` so that under create_graph it is made of
differentiable ops again, the inverse and solves included. A factorization with several
outputs records one node per output, each named as PyTorch's one node: the rules are linear in
the output gradients, so the gradients the nodes send add up to PyTorch's. Under create_graph
those nodes recompute their factorization differentiably from the saved input, so the second
derivative sees how the factors move.

Errors are PyTorch's, with its messages: a singular or not positive-definite input raises
``LinAlgError`` (``torch.linalg.LinAlgError``, a RuntimeError), naming the batch element and the
pivot or leading minor as LAPACK reports them.
"""
import collections
import math
import numbers

import numpy as np

from ..autograd.function import Op
from ..device import get_array_module as _xp
from ..limits import charge_steps, check_elements
from ..tensor import Tensor
from .linalg import _SCALAR_TYPE, _name, matmul
from .shape import broadcast_shapes

__all__ = ["inverse", "det", "logdet", "slogdet", "cholesky", "cholesky_solve", "cholesky_inverse",
           "triangular_solve", "svd", "qr", "lu", "lu_unpack", "lu_solve", "pinverse"]


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError (torch._C._LinAlgError): the input is singular or not positive-definite."""


def _named_tuple(name, fields):
    cls = collections.namedtuple(name, fields)
    cls.__repr__ = lambda self: (f"torch.return_types.{name}(\n"
                                 + ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields) + ")")
    cls.__module__ = "torch.return_types"
    return cls


class return_types:
    """torch.return_types of the factorizations: named tuples that unpack as tuples."""
    slogdet = _named_tuple("slogdet", ["sign", "logabsdet"])
    linalg_slogdet = _named_tuple("linalg_slogdet", ["sign", "logabsdet"])
    linalg_eigh = _named_tuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
    linalg_svd = _named_tuple("linalg_svd", ["U", "S", "Vh"])
    svd = _named_tuple("svd", ["U", "S", "V"])
    linalg_qr = _named_tuple("linalg_qr", ["Q", "R"])
    qr = _named_tuple("qr", ["Q", "R"])
    linalg_lstsq = _named_tuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
    triangular_solve = _named_tuple("triangular_solve", ["solution", "cloned_coefficient"])
    linalg_inv_ex = _named_tuple("linalg_inv_ex", ["inverse", "info"])
    linalg_cholesky_ex = _named_tuple("linalg_cholesky_ex", ["L", "info"])
    linalg_lu_factor = _named_tuple("linalg_lu_factor", ["LU", "pivots"])
    linalg_lu_factor_ex = _named_tuple("linalg_lu_factor_ex", ["LU", "pivots", "info"])
    linalg_lu = _named_tuple("linalg_lu", ["P", "L", "U"])
    lu_unpack = _named_tuple("lu_unpack", ["P", "L", "U"])
    _lu_with_info = _named_tuple("_lu_with_info", ["LU", "pivots", "info"])


# ------------------------------------------------------------------ checks and LAPACK's errors
def _check_matrix(A, fn, *, square=True, name="A"):
    """PyTorch's checks of a (batch of) matrices: at least 2-D, square where asked, floating point."""
    if not isinstance(A, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(A).__name__}")
    shape = A._data.shape
    if len(shape) < 2:
        raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")
    if square and shape[-1] != shape[-2]:
        raise RuntimeError(f"{fn}: {name} must be batches of square matrices, but they are {shape[-2]} by "
                           f"{shape[-1]} matrices")
    kind = A._data.dtype
    if kind == np.float16:
        raise RuntimeError(f"{fn}: Low precision dtypes not supported. Got Half")
    if kind.kind != "f":
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got "
                           f"{_name(A, _SCALAR_TYPE)}")


def _batch_prefix(shape, k):
    return f"(Batch element {k}): " if len(shape) > 2 else ""


def _zero_pivot(m):
    """The 1-based column of the first zero pivot of LU with partial pivoting (LAPACK's getrf
    info), or None: what PyTorch's messages for a singular matrix name."""
    a = np.array(m, copy=True)
    n = a.shape[-1]
    for j in range(n):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        if a[p, j] == 0:
            return j + 1
        if p != j:
            a[[j, p]] = a[[p, j]]
        a[j + 1:, j] /= a[j, j]
        a[j + 1:, j + 1:] -= np.outer(a[j + 1:, j], a[j, j + 1:])
    return None


def _first_singular(a):
    """(batch element, zero pivot) of the first singular matrix of a batch LAPACK found singular."""
    flat = np.asarray(a).reshape((-1,) + a.shape[-2:])
    for k, m in enumerate(flat):
        j = _zero_pivot(m)
        if j is not None:
            return k, j
    return 0, a.shape[-1]   # LAPACK's rounding found a zero pivot ours did not: name the last


def _inv_error(fn, a):
    k, j = _first_singular(a)
    return LinAlgError(f"{fn}: {_batch_prefix(a.shape, k)}The diagonal element {j} is zero, the inversion could "
                       f"not be completed because the input matrix is singular.")


def _solve_error(a):
    k, _ = _first_singular(a)
    return LinAlgError(f"torch.linalg.solve: {_batch_prefix(a.shape, k)}The solver failed because the input "
                       f"matrix is singular.")


def _cholesky_fails(m):
    try:
        np.linalg.cholesky(m)
        return False
    except np.linalg.LinAlgError:
        return True


def _cholesky_error(fn, a):
    """PyTorch's message for a matrix that is not positive-definite: the batch element and the order
    of its first leading minor that is not (found by bisection: a minor's failing implies the
    larger ones' do)."""
    flat = np.asarray(a).reshape((-1,) + a.shape[-2:])
    for k, m in enumerate(flat):
        if not _cholesky_fails(m):
            continue
        lo, hi = 1, m.shape[-1]
        while lo < hi:
            mid = (lo + hi) // 2
            if _cholesky_fails(m[:mid, :mid]):
                hi = mid
            else:
                lo = mid + 1
        return LinAlgError(f"{fn}: {_batch_prefix(a.shape, k)}The factorization could not be completed because "
                           f"the input is not positive-definite (the leading minor of order {lo} is not "
                           f"positive-definite).")
    return LinAlgError(f"{fn}: The factorization could not be completed because the input is not "
                       f"positive-definite.")


# ------------------------------------------------------------------ helpers of the rules
def _mT(F, x):
    return F.transpose(x, -1, -2)


def _const(like, array):
    """An array as a constant beside ``like``: a tensor without a graph when ``like`` is one."""
    return Tensor._adopt_array(array, False, None) if isinstance(like, Tensor) else array


def _eye(like, n):
    data = like._data if isinstance(like, Tensor) else like
    return _const(like, _xp(data).eye(n, dtype=data.dtype))


def _diag_embed(F, v):
    return F.unsqueeze(v, -1) * _eye(v, v.shape[-1])


def _creates_graph(g):
    return isinstance(g, Tensor)


def _triangle(xp, a, upper, unitriangular):
    t = xp.triu(a) if upper else xp.tril(a)
    if unitriangular:
        t = t - xp.triu(xp.tril(t)) + xp.eye(a.shape[-1], dtype=a.dtype)
    return t


def _substitute(t, b, upper):
    """Back or forward substitution of a triangular t (its zero diagonal giving inf and nan, as
    LAPACK's trsm does, where NumPy's solve refuses a singular matrix)."""
    n = t.shape[-1]
    x = np.zeros(np.broadcast_shapes(t.shape[:-2], b.shape[:-2]) + b.shape[-2:], dtype=b.dtype)
    order = range(n - 1, -1, -1) if upper else range(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in order:
            rest = np.einsum("...j,...jk->...k", t[..., i, :], x)
            x[..., i, :] = (b[..., i, :] - rest) / t[..., i, i:i + 1]
    return x


def _triangular_solve_arrays(a, b, upper, left, unitriangular):
    xp = _xp(a)
    t = _triangle(xp, a, upper, unitriangular)
    if not left:   # X A = B is A^T X^T = B^T
        t, b, upper = t.swapaxes(-1, -2), b.swapaxes(-1, -2), not upper
    batch = tuple(np.broadcast_shapes(t.shape[:-2], b.shape[:-2]))
    try:
        x = xp.linalg.solve(xp.broadcast_to(t, batch + t.shape[-2:]), xp.broadcast_to(b, batch + b.shape[-2:]))
    except np.linalg.LinAlgError:
        x = _substitute(t, b, upper)
    return x if left else xp.ascontiguousarray(x.swapaxes(-1, -2))


# ------------------------------------------------------------------ inverse
class LinalgInvEx(Op):
    """A^-1; its gradient -A^-H G A^-H reads only the output."""
    __slots__ = ()
    op = "linalg_inv"
    saves = (-1,)

    def forward(self, a, *, fn):
        try:
            return _xp(a).linalg.inv(a)
        except np.linalg.LinAlgError:
            raise _inv_error(fn, a) from None

    def backward(self, F, g, inv):
        t = _mT(F, inv)
        return (-F.matmul(F.matmul(t, g), t),)


def linalg_inv(A, *, out=None):
    """Computes the inverse of a square matrix, if it exists (batches of them alike)."""
    _check_matrix(A, "linalg.inv")
    return LinalgInvEx.apply(A, fn="linalg.inv")


def inverse(input, *, out=None):
    """Alias for torch.linalg.inv."""
    return linalg_inv(input)


def linalg_inv_ex(A, *, check_errors=False, out=None):
    """linalg.inv with LAPACK's info beside it (0 where invertible); raises as linalg.inv does."""
    inv = linalg_inv(A)
    xp = _xp(inv._data)
    return return_types.linalg_inv_ex(inv, Tensor._adopt_array(xp.zeros(A._data.shape[:-2], np.int32), False, None))


# ------------------------------------------------------------------ solve
def _is_vector_rhs(shape_a, shape_b):
    """PyTorch's rule: B is a vector (or batch of them) when it is 1-D, or has one dim less than A
    and A's shape without its last dim."""
    return len(shape_b) == 1 or (len(shape_b) == len(shape_a) - 1 and tuple(shape_b) == tuple(shape_a[:-1]))


class LinalgSolveEx(Op):
    """X = A^-1 B (B a batch of vectors when ``vector``); gB = A^-H G, gA = -gB X^H."""
    __slots__ = ("vector",)
    op = "linalg_solve"
    saves = (0, -1)
    grad_needs = ((0, -1), (0,))

    def forward(self, a, b, *, vector):
        self.vector = vector
        xp = _xp(a)
        rhs = b[..., None] if vector else b
        batch = tuple(np.broadcast_shapes(a.shape[:-2], rhs.shape[:-2]))
        try:
            x = xp.linalg.solve(xp.broadcast_to(a, batch + a.shape[-2:]), xp.broadcast_to(rhs, batch + rhs.shape[-2:]))
        except np.linalg.LinAlgError:
            raise _solve_error(xp.broadcast_to(a, batch + a.shape[-2:])) from None
        return x[..., 0] if vector else x

    def backward(self, F, g, a, x):
        if self.vector:
            g = F.unsqueeze(g, -1)
        gb = _solve(F, _mT(F, a), g)
        ga = None
        if self.next_functions[0][0] is not None:
            ga = -F.matmul(gb, _mT(F, F.unsqueeze(x, -1) if self.vector else x))
        if self.vector:
            gb = F.reshape(gb, gb.shape[:-1])
        return ga, gb


def _solve(F, a, b):
    """A^-1 B for B a batch of matrices: differentiable under create_graph, on arrays otherwise."""
    if _creates_graph(b):
        return LinalgSolveEx.apply(a, b, vector=False)
    xp = _xp(b)
    batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    return xp.linalg.solve(xp.broadcast_to(a, batch + a.shape[-2:]), xp.broadcast_to(b, batch + b.shape[-2:]))


def linalg_solve(A, B, *, left=True, out=None):
    """Computes the solution X of A X = B (X A = B when left is False), batches broadcast."""
    _check_matrix(A, "linalg.solve")
    if not isinstance(B, Tensor):
        raise TypeError(f"linalg_solve(): argument 'B' must be Tensor, not {type(B).__name__}")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{_name(A, _SCALAR_TYPE)} and B of type {_name(B, _SCALAR_TYPE)} instead")
    sa, sb = A._data.shape, B._data.shape
    vector = _is_vector_rhs(sa, sb)
    if not left:
        if vector:
            raise RuntimeError("linalg.solve: Vector broadcasting of the left hand side is not supported for "
                               "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)")
        return linalg_solve(A.mT, B.mT).mT
    rows = sb[-1] if vector else sb[-2]
    if rows != sa[-1]:
        shown = f"{sb[-1]}x1" if vector else f"{sb[-2]}x{sb[-1]}"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({sa[-2]}x{sa[-1]} and {shown})")
    tail = sb[-1:] if vector else sb[-2:]
    batch = broadcast_shapes(sa[:-2], sb[:-1] if vector else sb[:-2])
    check_elements(tuple(batch) + tuple(tail), "linalg.solve result")
    return LinalgSolveEx.apply(A, B, vector=vector)


# ------------------------------------------------------------------ determinants
def _cofactor_arrays(a, det):
    """det(A) A^-T, the gradient of det; through the SVD where A is singular (the adjugate
    stays defined there): U diag(prod_{j != i} s_j) V^T det(U) det(V)."""
    xp = _xp(a)
    try:
        return det[..., None, None] * xp.linalg.inv(a).swapaxes(-1, -2)
    except np.linalg.LinAlgError:
        u, s, vh = xp.linalg.svd(a)
        n = s.shape[-1]
        ones = xp.ones(s.shape[:-1] + (1,), dtype=s.dtype)
        before = xp.cumprod(xp.concatenate([ones, s[..., :-1]], -1), -1)
        after = xp.flip(xp.cumprod(xp.flip(xp.concatenate([s[..., 1:], ones], -1), -1), -1), -1)
        others = before * after if n else s
        sign = xp.linalg.det(u) * xp.linalg.det(vh)
        return sign[..., None, None] * ((u * others[..., None, :]) @ vh)


class LinalgDet(Op):
    """det(A); its gradient G det(A) A^-T (the adjugate, for a singular A)."""
    __slots__ = ()
    op = "linalg_det"
    saves = (0, -1)

    def forward(self, a):
        return _xp(a).linalg.det(a)

    def backward(self, F, g, a, det):
        if _creates_graph(g):
            cof = F.unsqueeze(F.unsqueeze(det, -1), -1) * _mT(F, linalg_inv(a))
        else:
            cof = _cofactor_arrays(a, det)
        return (F.unsqueeze(F.unsqueeze(g, -1), -1) * cof,)


def linalg_det(A, *, out=None):
    """Computes the determinant of a square matrix (batches of them alike)."""
    _check_matrix(A, "linalg.det")
    return LinalgDet.apply(A)


def det(input):
    """Alias for torch.linalg.det."""
    return linalg_det(input)


class LinalgSlogdet(Op):
    """log|det(A)|; its gradient G A^-T."""
    __slots__ = ()
    op = "linalg_slogdet"
    saves = (0,)

    def forward(self, a, *, logabsdet):
        return logabsdet

    def backward(self, F, g, a):
        inv = linalg_inv(a) if _creates_graph(g) else _xp(a).linalg.inv(a)
        return (F.unsqueeze(F.unsqueeze(g, -1), -1) * _mT(F, inv),)


class LinalgSlogdetSign(Op):
    """The sign of det(A): recorded as PyTorch records it (a node of slogdet), with no gradient."""
    __slots__ = ()
    op = "linalg_slogdet"
    backward_name = "LinalgSlogdetBackward0"

    def forward(self, a, *, sign):
        return sign

    def backward(self, F, g):
        return (None,)


def _slogdet(A, fn, result):
    _check_matrix(A, fn)
    sign, logabs = _xp(A._data).linalg.slogdet(A._data)
    sign, logabs = _xp(A._data).asarray(sign), _xp(A._data).asarray(logabs)
    return result(LinalgSlogdetSign.apply(A, sign=sign), LinalgSlogdet.apply(A, logabsdet=logabs))


def linalg_slogdet(A, *, out=None):
    """The sign and the natural log of the absolute value of the determinant."""
    return _slogdet(A, "linalg.slogdet", return_types.linalg_slogdet)


def slogdet(input):
    """Alias for torch.linalg.slogdet."""
    return _slogdet(input, "linalg.slogdet", return_types.slogdet)


def logdet(input):
    """log det(A): nan where the determinant is negative, -inf where it is 0."""
    from .elementwise import where
    sign, logabs = _slogdet(input, "logdet", return_types.slogdet)
    return where(sign.detach() < 0, math.nan, logabs)


# ------------------------------------------------------------------ triangular solves
class LinalgSolveTriangular(Op):
    """X with A X = B (X A = B when not left), A triangular; gB solves with A^H, gA = -gB X^H
    (-X^H gB) kept to A's triangle."""
    __slots__ = ("upper", "left", "unitriangular")
    op = "linalg_solve_triangular"
    saves = (0, -1)
    grad_needs = ((0, -1), (0,))

    def forward(self, a, b, *, upper, left, unitriangular):
        self.upper, self.left, self.unitriangular = upper, left, unitriangular
        return _triangular_solve_arrays(a, b, upper, left, unitriangular)

    def backward(self, F, g, a, x):
        upper, left, unit = self.upper, self.left, self.unitriangular
        if _creates_graph(g):
            gb = linalg_solve_triangular(_mT(F, a), g, upper=not upper, left=left, unitriangular=unit)
        else:
            gb = _triangular_solve_arrays(a.swapaxes(-1, -2), g, not upper, left, unit)
        ga = None
        if self.next_functions[0][0] is not None:
            ga = -F.matmul(gb, _mT(F, x)) if left else -F.matmul(_mT(F, x), gb)
            k = (1 if upper else -1) if unit else 0
            ga = F.triu(ga, k) if upper else F.tril(ga, k)
        return ga, gb


def linalg_solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """Solves A X = B (X A = B when left is False) for a triangular A (its other triangle unread)."""
    _check_matrix(A, "linalg.solve_triangular")
    _check_matrix(B, "linalg.solve_triangular", square=False, name="B")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"linalg.solve_triangular: Expected A and B to have the same dtype, but found A of type "
                           f"{_name(A, _SCALAR_TYPE)} and B of type {_name(B, _SCALAR_TYPE)} instead")
    sa, sb = A._data.shape, B._data.shape
    if (sb[-2] if left else sb[-1]) != sa[-1]:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation {eq} "
                           f"({sa[-2]}x{sa[-1]} and {sb[-2]}x{sb[-1]})")
    check_elements(tuple(broadcast_shapes(sa[:-2], sb[:-2])) + tuple(sb[-2:]), "linalg.solve_triangular result")
    return LinalgSolveTriangular.apply(A, B, upper=bool(upper), left=bool(left), unitriangular=bool(unitriangular))


class TriangularSolve(LinalgSolveTriangular):
    __slots__ = ()
    backward_name = "TriangularSolveBackward0"


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """Deprecated: solves A X = b (A^T X = b when transpose) for a triangular A; returns the
    solution and a copy of A."""
    _check_matrix(A, "triangular_solve")
    _check_matrix(b, "triangular_solve", square=False, name="B")
    coefficient = A.clone()
    if transpose:
        A, upper = A.mT, not upper
    x = TriangularSolve.apply(A, b, upper=bool(upper), left=True, unitriangular=bool(unitriangular))
    return return_types.triangular_solve(x, coefficient)


# ------------------------------------------------------------------ Cholesky
class LinalgCholeskyEx(Op):
    """L with A = L L^H (U = L^H when upper), from A's lower triangle. PyTorch's rule:
    gA = L^-H Phi(L^H gL) L^-1, Phi taking the lower triangle with its diagonal halved, symmetrised."""
    __slots__ = ("upper",)
    op = "linalg_cholesky"
    saves = (-1,)

    def forward(self, a, *, upper, fn):
        self.upper = upper
        xp = _xp(a)
        try:
            low = xp.linalg.cholesky(a)
        except np.linalg.LinAlgError:
            raise _cholesky_error(fn, a) from None
        return xp.ascontiguousarray(low.swapaxes(-1, -2)) if upper else low

    def backward(self, F, g, out):
        low, gl = (_mT(F, out), _mT(F, g)) if self.upper else (out, g)
        ga = F.tril(F.matmul(_mT(F, low), gl))
        ga = 0.5 * (ga + _mT(F, F.tril(ga, -1)))
        if _creates_graph(g):
            ga = linalg_solve_triangular(_mT(F, low), ga, upper=True, left=True)
            ga = linalg_solve_triangular(low, ga, upper=False, left=False)
        else:
            ga = _triangular_solve_arrays(low.swapaxes(-1, -2), ga, True, True, False)
            ga = _triangular_solve_arrays(low, ga, False, False, False)
        return (ga,)


class Cholesky(LinalgCholeskyEx):
    __slots__ = ()
    backward_name = "CholeskyBackward0"


def linalg_cholesky(A, *, upper=False, out=None):
    """The Cholesky factor L of a Hermitian positive-definite A = L L^H (L^H when upper)."""
    _check_matrix(A, "linalg.cholesky")
    return LinalgCholeskyEx.apply(A, upper=bool(upper), fn="linalg.cholesky")


def linalg_cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """linalg.cholesky with LAPACK's info beside it (0 where positive-definite); raises as
    linalg.cholesky does (the engine does not return partial factors)."""
    low = linalg_cholesky(A, upper=upper)
    return return_types.linalg_cholesky_ex(low, Tensor._adopt_array(_xp(low._data).zeros(A._data.shape[:-2], np.int32),
                                                             False, None))


def cholesky(input, upper=False, *, out=None):
    """Deprecated torch.cholesky: linalg.cholesky, with ``upper`` positional."""
    _check_matrix(input, "cholesky")
    return Cholesky.apply(input, upper=bool(upper), fn="cholesky")


class CholeskySolve(Op):
    """X = (L L^H)^-1 B from the Cholesky factor L (U = L^H when upper)."""
    __slots__ = ("upper",)
    op = "cholesky_solve"
    saves = (1, -1)
    grad_needs = ((1,), (1, -1))

    def forward(self, b, factor, *, upper):
        self.upper = upper
        batch = tuple(np.broadcast_shapes(b.shape[:-2], factor.shape[:-2]))
        xp = _xp(b)
        b = xp.broadcast_to(b, batch + b.shape[-2:])
        low = factor.swapaxes(-1, -2) if upper else factor
        y = _triangular_solve_arrays(low, b, False, True, False)
        return _triangular_solve_arrays(low.swapaxes(-1, -2), y, True, True, False)

    def backward(self, F, g, factor, x):
        gb = cholesky_solve(g, factor, self.upper) if _creates_graph(g) else self.forward(g, factor,
                                                                                         upper=self.upper)
        gf = None
        if self.next_functions[1][0] is not None:
            common = F.matmul(gb, _mT(F, x))
            common = common + _mT(F, common)
            gf = -F.matmul(factor, common) if self.upper else -F.matmul(common, factor)
        return gb, gf


def cholesky_solve(input, input2, upper=False, *, out=None):
    """Solves A X = B (B = input) for A given by its Cholesky factor (input2), batches broadcast."""
    _check_matrix(input2, "cholesky_solve")
    _check_matrix(input, "cholesky_solve", square=False, name="B")
    if input._data.dtype != input2._data.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but got b.dtype = {input.dtype} and "
                           f"A.dtype = {input2.dtype}")
    if input._data.shape[-2] != input2._data.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{input2._data.shape[-1]} by {input2._data.shape[-1]} but each b matrix is "
                           f"{input._data.shape[-2]} by {input._data.shape[-1]}")
    check_elements(tuple(broadcast_shapes(input._data.shape[:-2], input2._data.shape[:-2]))
                   + tuple(input._data.shape[-2:]), "cholesky_solve result")
    return CholeskySolve.apply(input, input2, upper=bool(upper))


def cholesky_inverse(input, upper=False, *, out=None):
    """(L L^H)^-1 from the Cholesky factor L (U^H U from U when upper)."""
    from .creation import eye
    _check_matrix(input, "cholesky_inverse")
    n = input._data.shape[-1]
    return cholesky_solve(eye(n, dtype=input.dtype, device=input.device).expand(tuple(input.shape)), input, upper)


# ------------------------------------------------------------------ symmetric eigendecomposition
class LinalgEigh(Op):
    """One output of eigh (values or vectors); both nodes keep the factors. PyTorch's rule:
    gA = V (diag(gL) + skew(V^H gV) / E) V^H, E_ij = L_j - L_i off the diagonal."""
    __slots__ = ("uplo", "part")
    op = "linalg_eigh"
    saves = (0,)
    backward_name = "LinalgEighBackward0"

    def forward(self, a, *, values, vectors, uplo, part):
        self.uplo, self.part = uplo, part
        # copies: the other output may be changed in place; its own output is what it returns
        self.keep(values.copy(), vectors.copy())
        return values if part == 0 else vectors

    def backward(self, F, g, a, values, vectors):
        if _creates_graph(g):
            values, vectors = linalg_eigh(a, self.uplo)
        vt = _mT(F, vectors)
        if self.part == 0:
            return (F.matmul(vectors * F.unsqueeze(g, -2), vt),)
        vg = F.matmul(vt, g)
        skew = 0.5 * (vg - _mT(F, vg))
        n = values.shape[-1]
        gaps = F.unsqueeze(values, -2) - F.unsqueeze(values, -1) + _eye(g, n)
        return (F.matmul(F.matmul(vectors, skew / gaps), vt),)


def linalg_eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric A, from its UPLO triangle."""
    _check_matrix(A, "linalg.eigh")
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    values, vectors = _xp(A._data).linalg.eigh(A._data, UPLO=UPLO.upper())
    return return_types.linalg_eigh(
        LinalgEigh.apply(A, values=values, vectors=vectors, uplo=UPLO.upper(), part=0),
        LinalgEigh.apply(A, values=values, vectors=vectors, uplo=UPLO.upper(), part=1))


def linalg_eigvalsh(A, UPLO="L", *, out=None):
    """The eigenvalues (ascending) of a symmetric A, from its UPLO triangle."""
    return linalg_eigh(A, UPLO).eigenvalues


# ------------------------------------------------------------------ singular value decomposition
class LinalgSvd(Op):
    """One output of the SVD (U, S or Vh; the reduced factors kept). PyTorch's rule, with
    E_ij = S_j^2 - S_i^2: from gS, U diag(gS) Vh; from gU, U (skew(U^H gU) S / E) Vh plus
    (I - U U^H) gU S^-1 Vh when m > k; from gVh its transpose."""
    __slots__ = ("part", "full")
    op = "linalg_svd"
    saves = (0,)
    backward_name = "LinalgSvdBackward0"

    def forward(self, a, *, u, s, vh, part, full):
        self.part, self.full = part, full
        k = s.shape[-1]
        self.keep(u[..., :k].copy(), s.copy(), vh[..., :k, :].copy())
        return (u, s, vh)[part]

    def backward(self, F, g, a, u, s, vh):
        if _creates_graph(g):
            u, s, vh = linalg_svd(a, full_matrices=False)
        m, n = u.shape[-2], vh.shape[-1]
        k = s.shape[-1]
        part = self.part
        if part == 0:
            if self.full and m > k:
                g = F.getitem(g, (Ellipsis, slice(0, k)))
            uhg = F.matmul(_mT(F, u), g)
            inner = (uhg - _mT(F, uhg)) * F.unsqueeze(s, -2) / self._gaps(F, s, g)
            if m > k:
                gus = g / F.unsqueeze(s, -2)
                ga = F.matmul(u, inner) + gus - F.matmul(u, F.matmul(_mT(F, u), gus))
                return (F.matmul(ga, vh),)
            return (F.matmul(F.matmul(u, inner), vh),)
        if part == 1:
            return (F.matmul(u * F.unsqueeze(g, -2), vh),)
        if self.full and n > k:
            g = F.getitem(g, (Ellipsis, slice(0, k), slice(None)))
        v, gv = _mT(F, vh), _mT(F, g)
        vhgv = F.matmul(vh, gv)
        inner = F.unsqueeze(s, -1) * (vhgv - _mT(F, vhgv)) / self._gaps(F, s, g)
        if n > k:
            gvs = gv / F.unsqueeze(s, -2)
            ga = F.matmul(inner, vh) + _mT(F, gvs) - F.matmul(F.matmul(_mT(F, gvs), v), vh)
            return (F.matmul(u, ga),)
        return (F.matmul(F.matmul(u, inner), vh),)

    @staticmethod
    def _gaps(F, s, like):
        s2 = s * s
        return F.unsqueeze(s2, -2) - F.unsqueeze(s2, -1) + _eye(like, s.shape[-1])


def _svd_arrays(A, fn, full_matrices):
    _check_matrix(A, fn, square=False)
    m, n = A._data.shape[-2:]
    if full_matrices:
        check_elements(tuple(A._data.shape[:-2]) + (max(m, n), max(m, n)), f"{fn} result")
    return _xp(A._data).linalg.svd(A._data, full_matrices=bool(full_matrices))


def linalg_svd(A, full_matrices=True, *, driver=None, out=None):
    """A = U diag(S) Vh, singular values descending (U and Vh square when full_matrices)."""
    u, s, vh = _svd_arrays(A, "linalg.svd", full_matrices)
    full = bool(full_matrices)
    return return_types.linalg_svd(*(LinalgSvd.apply(A, u=u, s=s, vh=vh, part=i, full=full) for i in range(3)))


def linalg_svdvals(A, *, driver=None, out=None):
    """The singular values of A, descending."""
    u, s, vh = _svd_arrays(A, "linalg.svdvals", False)
    return LinalgSvd.apply(A, u=u, s=s, vh=vh, part=1, full=False)


def svd(input, some=True, compute_uv=True, *, out=None):
    """Deprecated torch.svd: (U, S, V) with V = Vh^H; zero U and V when not compute_uv."""
    if not compute_uv:
        from .creation import zeros
        s = linalg_svdvals(input)
        m, n = input._data.shape[-2:]
        batch = tuple(input._data.shape[:-2])
        return return_types.svd(zeros(batch + (m, m), dtype=input.dtype, device=input.device), s,
                                zeros(batch + (n, n), dtype=input.dtype, device=input.device))
    u, s, vh = linalg_svd(input, full_matrices=not some)
    return return_types.svd(u, s, vh.mT)


# ------------------------------------------------------------------ QR
class LinalgQr(Op):
    """One output of QR (Q or R), reduced (or square complete). The rule for m >= n:
    gA = (gQ + Q copyltu(M)) R^-H with M = R gR^H - gQ^H Q; for m < n, A = [X | Y] with X square:
    gY = Q gR_Y, and X's gradient is the square rule's with gQ + Y gR_Y^H."""
    __slots__ = ("part", "mode")
    op = "linalg_qr"
    saves = (0,)
    backward_name = "LinalgQrBackward0"

    def forward(self, a, *, q, r, part, mode):
        self.part, self.mode = part, mode
        self.keep(q.copy(), r.copy())
        return (q, r)[part]

    def backward(self, F, g, a, q, r):
        m, n = a.shape[-2:]
        if self.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                               "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
                               "through linalg.qr.")
        if self.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        if _creates_graph(g):
            q, r = linalg_qr(a, self.mode)
        gq, gr = (g, None) if self.part == 0 else (None, g)
        if m >= n:
            return (self._square_rule(F, q, r, gq, gr),)
        # A = [X | Y]: R = [U | Q^H Y]
        u = F.getitem(r, (Ellipsis, slice(0, m)))
        y = F.getitem(a, (Ellipsis, slice(m, None)))
        gy = None
        if gr is not None:
            gu = F.getitem(gr, (Ellipsis, slice(0, m)))
            grest = F.getitem(gr, (Ellipsis, slice(m, None)))
            gy = F.matmul(q, grest)
            gq = F.matmul(y, _mT(F, grest))
            gx = self._square_rule(F, q, u, gq, gu)
        else:
            gx = self._square_rule(F, q, u, gq, None)
        data = a._data if isinstance(a, Tensor) else a
        xp = _xp(data)
        left = _const(g, xp.eye(m, n, dtype=data.dtype))
        ga = F.matmul(gx, left)
        if gy is not None:
            right = _const(g, xp.eye(n - m, n, k=m, dtype=data.dtype))
            ga = ga + F.matmul(gy, right)
        return (ga,)

    @staticmethod
    def _square_rule(F, q, r, gq, gr):
        if gr is not None:
            mm = F.matmul(r, _mT(F, gr))
            if gq is not None:
                mm = mm - F.matmul(_mT(F, gq), q)
        else:
            mm = -F.matmul(_mT(F, gq), q)
        low = F.tril(mm, -1)
        sym = low + _mT(F, low) + _diag_embed(F, F.diagonal(mm, 0, -2, -1))
        b = F.matmul(q, sym)
        if gq is not None:
            b = b + gq
        # B R^-H: X R^H = B, R^H lower triangular
        if _creates_graph(b):
            return linalg_solve_triangular(_mT(F, r), b, upper=False, left=False)
        return _triangular_solve_arrays(r.swapaxes(-1, -2), b, False, False, False)


def _qr_parts(A, mode, fn):
    _check_matrix(A, fn, square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           f"or 'complete'")
    m, n = A._data.shape[-2:]
    xp = _xp(A._data)
    if mode == "complete":
        check_elements(tuple(A._data.shape[:-2]) + (m, m), f"{fn} result")
    q, r = xp.linalg.qr(A._data, mode="complete" if mode == "complete" else "reduced")
    if mode == "r":
        q = xp.zeros((0,), dtype=A._data.dtype)
    return q, r


def linalg_qr(A, mode="reduced", *, out=None):
    """A = Q R, Q with orthonormal columns and R upper triangular; mode 'reduced', 'complete' or 'r'."""
    q, r = _qr_parts(A, mode, "linalg.qr")
    return return_types.linalg_qr(LinalgQr.apply(A, q=q, r=r, part=0, mode=mode),
                                  LinalgQr.apply(A, q=q, r=r, part=1, mode=mode))


def qr(input, some=True, *, out=None):
    """Deprecated torch.qr: linalg.qr, reduced when some, complete otherwise."""
    q, r = linalg_qr(input, "reduced" if some else "complete")
    return return_types.qr(q, r)


# ------------------------------------------------------------------ pseudo-inverse, least squares, rank
def _tolerances(atol, rtol, m, n, dtype):
    """PyTorch's defaults: rtol = eps * max(m, n) when neither is given, 0 when only atol is."""
    def number(x):
        return None if x is None else float(x.item() if isinstance(x, Tensor) else x)
    atol, rtol = number(atol), number(rtol)
    if rtol is None:
        rtol = float(np.finfo(dtype).eps) * max(m, n) if atol is None or atol <= 0 else 0.0
    return (atol or 0.0), rtol


def _pinv_arrays(a, atol, rtol, hermitian):
    xp = _xp(a)
    if hermitian:
        w, v = xp.linalg.eigh(a)
        big = xp.abs(w)
        tol = xp.maximum(atol, rtol * big.max(-1, keepdims=True)) if w.shape[-1] else 0
        inv = xp.where(big > tol, 1 / xp.where(big > tol, w, 1), 0)
        return (v * inv[..., None, :]) @ v.swapaxes(-1, -2)
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    tol = xp.maximum(atol, rtol * s[..., :1]) if s.shape[-1] else 0
    inv = xp.where(s > tol, 1 / xp.where(s > tol, s, 1), 0)
    return (vh.swapaxes(-1, -2) * inv[..., None, :]) @ u.swapaxes(-1, -2)


class LinalgPinv(Op):
    """A^+; PyTorch's rule (pinv_backward), in products of A, A^+ and the gradient only."""
    __slots__ = ()
    op = "linalg_pinv"
    saves = (0, -1)

    def forward(self, a, *, atol, rtol, hermitian):
        return _pinv_arrays(a, atol, rtol, hermitian)

    def backward(self, F, g, a, p):
        m, n = a.shape[-2:]
        ph, gh = _mT(F, p), _mT(F, g)
        if m <= n:
            k = F.matmul(gh, p)
            kph = F.matmul(k, ph)
            return (-_mT(F, F.matmul(p, k)) + kph - F.matmul(F.matmul(a, p), kph)
                    + F.matmul(F.matmul(ph, p), gh - F.matmul(k, a)),)
        k = F.matmul(p, gh)
        phk = F.matmul(ph, k)
        return (-_mT(F, F.matmul(k, p)) + F.matmul(F.matmul(gh - F.matmul(a, k), p), ph) + phk
                - F.matmul(F.matmul(phk, p), a),)


def linalg_pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The Moore-Penrose pseudo-inverse, singular values below max(atol, rtol * largest) dropped."""
    _check_matrix(A, "linalg.pinv", square=bool(hermitian))
    m, n = A._data.shape[-2:]
    atol, rtol = _tolerances(atol, rtol, m, n, A._data.dtype)
    return LinalgPinv.apply(A, atol=atol, rtol=rtol, hermitian=bool(hermitian))


def pinverse(input, rcond=1e-15):
    """torch.pinverse: linalg.pinv with rtol = rcond."""
    return linalg_pinv(input, rtol=rcond)


def linalg_matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """The number of singular values (|eigenvalues| when hermitian) above max(atol, rtol * largest)."""
    from .creation import tensor
    _check_matrix(A, "linalg.matrix_rank", square=bool(hermitian))
    if tol is not None:
        atol, rtol = tol, 0.0
    m, n = A._data.shape[-2:]
    atol, rtol = _tolerances(atol, rtol, m, n, A._data.dtype)
    xp = _xp(A._data)
    s = xp.abs(xp.linalg.eigvalsh(A._data)) if hermitian else xp.linalg.svd(A._data, compute_uv=False)
    if s.shape[-1] == 0:
        return Tensor._adopt_array(xp.zeros(s.shape[:-1], np.int64), False, None)
    tol = xp.maximum(atol, rtol * s.max(-1, keepdims=True))
    return Tensor._adopt_array(xp.asarray((s > tol).sum(-1), dtype=np.int64), False, None)


def linalg_lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of A X = B as pinv(A) B (rcond the relative cut of singular values:
    eps * max(m, n) by default, as the CPU's default driver gelsy); with the rank, and for the
    drivers gelsd and gelss the singular values and (m > n, full rank) the squared residuals."""
    from .creation import tensor as _tensor
    _check_matrix(A, "torch.linalg.lstsq", square=False)
    _check_matrix(B, "torch.linalg.lstsq", square=False, name="B") if B.dim() != A.dim() - 1 else None
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected A and B to have the same dtype, but found A of type "
                           f"{_name(A, _SCALAR_TYPE)} and B of type {_name(B, _SCALAR_TYPE)} instead")
    vector = B.dim() == A.dim() - 1
    rhs = B.unsqueeze(-1) if vector else B
    m, n = A._data.shape[-2:]
    if rhs._data.shape[-2] != m:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    driver = driver or "gelsy"
    rtol = float(np.finfo(A._data.dtype).eps) * max(m, n) if rcond is None or rcond < 0 else float(rcond)
    solution = matmul(linalg_pinv(A, rtol=rtol), rhs)
    xp = _xp(A._data)
    empty = Tensor._adopt_array(xp.zeros((0,), A._data.dtype), False, None)
    rank = linalg_matrix_rank(A, atol=0.0, rtol=rtol) if driver != "gels" else Tensor._adopt_array(
        xp.zeros((0,), np.int64), False, None)
    singular = empty
    if driver in ("gelsd", "gelss"):
        singular = Tensor._adopt_array(xp.linalg.svd(A._data, compute_uv=False), False, None)
    residuals = empty
    if driver != "gelsy" and m > n and bool((rank._data == n).all() if driver != "gels" else True):
        residuals = ((matmul(A, solution) - rhs) ** 2).sum(-2)
    if vector:
        solution = solution.squeeze(-1)
        if residuals is not empty:
            residuals = residuals.squeeze(-1)
    return return_types.linalg_lstsq(solution, residuals, rank, singular)


# ------------------------------------------------------------------ LU
def _lu_arrays(a):
    """LU with partial pivoting as LAPACK's getrf gives it: the packed factors (L's unit diagonal
    left out), the 1-based int32 row swaps and the info (the 1-based column of the first zero
    pivot, 0 where there is none), batched. NumPy has no LU: this eliminates a column at a time
    across the batch, picking rows as getrf's idamax does (the first of the largest magnitudes)
    and leaving a column whose pivot is zero unscaled, as getrf does. Each column counts as a
    step of the running program (limits.charge_steps): a large matrix is a long loop."""
    xp = _xp(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = tuple(a.shape[:-2])
    count = math.prod(batch)
    flat = xp.array(a, copy=True).reshape((count, m, n))
    piv = xp.zeros((count, k), dtype=np.int32)
    info = xp.zeros(count, dtype=np.int32)
    rows = xp.arange(count)
    for j in range(k):
        charge_steps()
        p = j + xp.argmax(xp.abs(flat[:, j:, j]), axis=1)
        piv[:, j] = p + 1
        row_p = flat[rows, p].copy()
        flat[rows, p] = flat[:, j]
        flat[:, j] = row_p
        pivot = flat[:, j, j]
        zero = pivot == 0
        info[(info == 0) & zero] = j + 1
        flat[:, j + 1:, j] /= xp.where(zero, 1, pivot)[:, None]
        flat[:, j + 1:, j + 1:] -= flat[:, j + 1:, j, None] * flat[:, j, None, j + 1:]
    return flat.reshape(batch + (m, n)), piv.reshape(batch + (k,)), info.reshape(batch)


def _permutation_arrays(piv, m, dtype):
    """P with A = P L U from getrf's row swaps: the swaps applied in order to 0..m-1 give perm, the
    row of A that row i of L U is, so P[perm[i], i] = 1."""
    xp = _xp(piv)
    batch = tuple(piv.shape[:-1])
    count = math.prod(batch)
    flat = piv.reshape((count, piv.shape[-1])).astype(np.int64) - 1
    perm = xp.broadcast_to(xp.arange(m), (count, m)).copy()
    rows = xp.arange(count)
    for j in range(flat.shape[1]):
        p = flat[:, j]
        at_j, at_p = perm[:, j].copy(), perm[rows, p].copy()
        perm[:, j], perm[rows, p] = at_p, at_j
    out = xp.zeros((count, m, m), dtype=dtype)
    out[rows[:, None], perm, xp.arange(m)] = 1
    return out.reshape(batch + (m, m))


def _unpack_arrays(lu, piv):
    xp = _xp(lu)
    m, n = lu.shape[-2:]
    k = min(m, n)
    low = xp.tril(lu[..., :, :k], -1) + xp.eye(m, k, dtype=lu.dtype)
    return _permutation_arrays(piv, m, lu.dtype), low, xp.triu(lu[..., :k, :])


def _check_bool(value, fn, name, position=None):
    """PyTorch's argument parser on a bool parameter: an int (or anything else) is refused."""
    if type(value) is not bool:
        where = f" (position {position})" if position is not None else ""
        raise TypeError(f"{fn}(): argument '{name}'{where} must be bool, not {type(value).__name__}")


def _check_lu(A, fn, pivot):
    if not isinstance(A, Tensor):
        raise TypeError(f"{fn.rpartition('.')[2]}(): argument 'A' (position 1) must be Tensor, not "
                        f"{type(A).__name__}")
    shape = A._data.shape
    if len(shape) < 2:
        raise RuntimeError(f"{fn}: Expected tensor with 2 or more dimensions. Got size: {list(shape)} instead")
    if A._data.dtype.kind != "f" or A._data.dtype == np.float16:
        raise NotImplementedError(f'"lu_cpu" not implemented for \'{_name(A, _SCALAR_TYPE)}\'')
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _tri_solve(t, b, *, upper, left, unitriangular=False):
    if _creates_graph(b):
        return linalg_solve_triangular(t, b, upper=upper, left=left, unitriangular=unitriangular)
    return _triangular_solve_arrays(t, b, upper, left, unitriangular)


def _lu_rule(F, p, low, up, gl, gu):
    """PyTorch's linalg_lu_backward: A's gradient from those of L (m x k) and U (k x n), either
    None. Square: P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H; wide (m < n, U = [U1 | U2]) and
    tall (m > n, L = [L1; L2]) as derivatives.yaml's notes derive them."""
    m, n = low.shape[-2], up.shape[-1]
    if m == n:
        ga = F.tril(F.matmul(_mT(F, low), gl), -1) if gl is not None else None
        if gu is not None:
            term = F.triu(F.matmul(gu, _mT(F, up)))
            ga = term if ga is None else ga + term
        ga = _tri_solve(_mT(F, up), ga, upper=False, left=False)
        ga = _tri_solve(_mT(F, low), ga, upper=True, left=True, unitriangular=True)
    elif m < n:
        ga = F.matmul(_mT(F, low), gl) if gl is not None else None
        if gu is not None:
            term = F.matmul(F.triu(gu), _mT(F, up))
            ga = -term if ga is None else ga - term
        u1 = F.getitem(up, (Ellipsis, slice(0, m)))
        ga = _tri_solve(_mT(F, u1), F.tril(ga, -1), upper=False, left=False)
        ga = F.matmul(ga, _eye_like(ga, m, n))
        if gu is not None:
            ga = ga + F.triu(gu)
        ga = _tri_solve(_mT(F, low), ga, upper=True, left=True, unitriangular=True)
    else:
        ga = F.matmul(gu, _mT(F, up)) if gu is not None else None
        if gl is not None:
            term = F.matmul(_mT(F, low), F.tril(gl, -1))
            ga = -term if ga is None else ga - term
        l1 = F.getitem(low, (Ellipsis, slice(0, n), slice(None)))
        ga = _tri_solve(_mT(F, l1), F.triu(ga), upper=True, left=True, unitriangular=True)
        ga = F.matmul(_eye_like(ga, m, n), ga)
        if gl is not None:
            ga = ga + F.tril(gl, -1)
        ga = _tri_solve(_mT(F, up), ga, upper=False, left=False)
    return F.matmul(p, ga)


def _eye_like(like, m, n):
    data = like._data if isinstance(like, Tensor) else like
    return _const(like, _xp(data).eye(m, n, dtype=data.dtype))


class LinalgLuFactorEx(Op):
    """The packed LU of lu_factor (L's strict lower triangle over U); its gradient is linalg.lu's
    with gL = tril(G, -1) and gU = triu(G)."""
    op = "linalg_lu_factor_ex"
    saves = (0,)
    backward_name = "LinalgLuFactorExBackward0"

    def forward(self, a, *, lu, piv):
        self.keep(lu.copy(), piv)
        return lu

    def backward(self, F, g, a, lu, piv):
        k = min(lu.shape[-2:])
        if _creates_graph(g):
            p, low, up = linalg_lu(a)
        else:
            p, low, up = _unpack_arrays(lu, piv)
        gl = F.getitem(F.tril(g, -1), (Ellipsis, slice(0, k)))
        gu = F.getitem(F.triu(g), (Ellipsis, slice(0, k), slice(None)))
        return (_lu_rule(F, p, low, up, gl, gu),)


class LinalgLu(Op):
    """One factor of A = P L U (L or U; P carries no gradient), with PyTorch's rule."""
    __slots__ = ("part",)
    op = "linalg_lu"
    saves = (0,)
    backward_name = "LinalgLuBackward0"

    def forward(self, a, *, p, low, up, part):
        self.part = part
        self.keep(p, low.copy(), up.copy())
        return (low, up)[part]

    def backward(self, F, g, a, p, low, up):
        if _creates_graph(g):
            p, low, up = linalg_lu(a)
        gl, gu = (g, None) if self.part == 0 else (None, g)
        return (_lu_rule(F, p, low, up, gl, gu),)


def _lu_factor(A, fn, pivot):
    _check_lu(A, fn, pivot)
    lu, piv, info = _lu_arrays(A._data)
    packed = LinalgLuFactorEx.apply(A, lu=lu, piv=piv)
    return packed, Tensor._adopt_array(piv, False, None), Tensor._adopt_array(info, False, None)


def _check_singular(fn, info):
    flat = np.asarray(info if type(info) is np.ndarray else info.get()).reshape(-1)
    bad = np.flatnonzero(flat > 0)
    if bad.size:
        k = int(bad[0])
        prefix = f"(Batch element {k}): " if np.ndim(info) else ""
        raise RuntimeError(f"{fn}: {prefix}U[{flat[k]},{flat[k]}] is zero and using it on lu_solve would result in "
                          f"a division by zero. If you still want to perform the factorization, consider calling "
                          f"linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def linalg_lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """A's LU with partial pivoting, packed (LU), its 1-based int32 row swaps and the info of each
    matrix (the column of its first zero pivot, 0 if none)."""
    _check_bool(pivot, "linalg_lu_factor_ex", "pivot")
    _check_bool(check_errors, "linalg_lu_factor_ex", "check_errors")
    packed, piv, info = _lu_factor(A, "torch.lu_factor", pivot)
    if check_errors:
        _check_singular("torch.linalg.lu_factor_ex", info._data)
    return return_types.linalg_lu_factor_ex(packed, piv, info)


def linalg_lu_factor(A, *, pivot=True, out=None):
    """A's LU with partial pivoting, packed, and its row swaps; refuses a matrix with a zero pivot."""
    _check_bool(pivot, "linalg_lu_factor", "pivot")
    packed, piv, info = _lu_factor(A, "torch.lu_factor", pivot)
    _check_singular("torch.linalg.lu_factor", info._data)
    return return_types.linalg_lu_factor(packed, piv)


def lu(A, pivot=True, get_infos=False, out=None):
    """Deprecated torch.lu (Tensor.lu): linalg.lu_factor_ex's LU and pivots, with the infos when
    get_infos; a zero pivot is not an error."""
    get_infos = bool(get_infos)   # torch.lu reads it as a condition (not get_infos) before it checks pivot
    _check_bool(pivot, "_lu_with_info", "pivot")
    packed, piv, info = _lu_factor(A, "torch.lu_factor", pivot)
    return return_types._lu_with_info(packed, piv, info) if get_infos else (packed, piv)


def linalg_lu(A, *, pivot=True, out=None):
    """A = P L U: P a permutation, L unit lower triangular (m x k), U upper triangular (k x n),
    k = min(m, n)."""
    _check_bool(pivot, "linalg_lu", "pivot")
    _check_lu(A, "linalg.lu", pivot)
    check_elements(tuple(A._data.shape[:-2]) + (A._data.shape[-2],) * 2, "linalg.lu result")
    lu_, piv, _ = _lu_arrays(A._data)
    p, low, up = _unpack_arrays(lu_, piv)
    return return_types.linalg_lu(Tensor._adopt_array(p, False, None),
                                  LinalgLu.apply(A, p=p, low=low, up=up, part=0),
                                  LinalgLu.apply(A, p=p, low=low, up=up, part=1))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """P, L and U from lu_factor's packed LU and pivots (L and U differentiable in LU_data; either
    pair left empty when not asked for)."""
    from .shape import tril, triu
    from .indexing import getitem
    if not isinstance(LU_data, Tensor) or not isinstance(LU_pivots, Tensor):
        bad = LU_pivots if isinstance(LU_data, Tensor) else LU_data
        name, pos = ("LU_pivots", 2) if isinstance(LU_data, Tensor) else ("LU_data", 1)
        raise TypeError(f"lu_unpack(): argument '{name}' (position {pos}) must be Tensor, not {type(bad).__name__}")
    _check_bool(unpack_data, "lu_unpack", "unpack_data", 3)
    _check_bool(unpack_pivots, "lu_unpack", "unpack_pivots", 4)
    shape = LU_data._data.shape
    if len(shape) < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: {list(shape)} "
                           f"instead")
    if LU_pivots._data.dtype != np.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                           "Note: this function is intended to be used with the output produced by "
                           "torch.linalg.lu_factor")
    m, n = shape[-2:]
    k = min(m, n)
    piv = LU_pivots._data
    if tuple(piv.shape) != tuple(shape[:-2]) + (k,):
        raise RuntimeError(f"torch.lu_unpack: LU_pivots of shape {list(piv.shape)} do not fit LU_data of shape "
                           f"{list(shape)}: expected {list(shape[:-2]) + [k]}")
    if piv.size and (int(piv.min()) < 1 or int(piv.max()) > m):
        raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive."
                           "Did you properly pass the result of lu_factor?")
    xp = _xp(LU_data._data)
    empty = Tensor._adopt_array(xp.zeros((0,), LU_data._data.dtype), False, None)
    if unpack_pivots:
        check_elements(tuple(shape[:-2]) + (m, m), "torch.lu_unpack result")
    p = Tensor._adopt_array(_permutation_arrays(piv, m, LU_data._data.dtype), False, None) if unpack_pivots \
        else empty
    if not unpack_data:
        return return_types.lu_unpack(p, empty, empty)
    eye = Tensor._adopt_array(xp.eye(m, k, dtype=LU_data._data.dtype), False, None)
    low = tril(getitem(LU_data, (Ellipsis, slice(0, k))), -1) + eye
    up = triu(getitem(LU_data, (Ellipsis, slice(0, k), slice(None))))
    return return_types.lu_unpack(p, low, up)


def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """X with A X = B (A^H X = B with ``adjoint``; X A = B, or X A^H = B, with ``left=False``) from
    lu_factor's packed LU and pivots of A: a permutation and two triangular solves, differentiable in
    LU and B."""
    _check_bool(left, "linalg_lu_solve", "left")
    _check_bool(adjoint, "linalg_lu_solve", "adjoint")
    if not isinstance(LU, Tensor) or not isinstance(pivots, Tensor) or not isinstance(B, Tensor):
        raise TypeError("linalg_lu_solve(): argument 'LU', 'pivots' and 'B' must be Tensor")
    n = LU._data.shape[-1] if LU._data.ndim else 0
    if LU._data.ndim < 2 or LU._data.shape[-2] != n:
        raise RuntimeError(f"linalg.lu_solve: A must be batches of square matrices, but they are "
                           f"{LU._data.shape[-2] if LU._data.ndim > 1 else 1} by {n} matrices")
    if B._data.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    if (B._data.shape[-2] if left else B._data.shape[-1]) != n:
        side = "rows" if left else "columns"
        raise RuntimeError(f"linalg.lu_solve: Number of {side} of B must match the order of A. B has "
                           f"{B._data.shape[-2] if left else B._data.shape[-1]} {side} and A has order {n}")
    if not left:   # X A = B  <=>  A^T X^T = B^T
        return linalg_lu_solve(LU, pivots, B.mT, left=True, adjoint=not adjoint).mT
    p, low, up = lu_unpack(LU, pivots)
    if not adjoint:   # P L U X = B
        y = linalg_solve_triangular(low, p.mT @ B, upper=False, unitriangular=True)
        return linalg_solve_triangular(up, y, upper=True)
    # (P L U)^T X = U^T L^T P^T X = B
    y = linalg_solve_triangular(up.mT, B, upper=False)
    return p @ linalg_solve_triangular(low.mT, y, upper=True, unitriangular=True)


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """Deprecated torch.lu_solve (Tensor.lu_solve): linalg.lu_solve(LU_data, LU_pivots, b)."""
    return linalg_lu_solve(LU_data, LU_pivots, b)


# ------------------------------------------------------------------ Tensor methods
def _register():
    Tensor.inverse = inverse
    Tensor.det = det
    Tensor.logdet = logdet
    Tensor.slogdet = slogdet
    Tensor.cholesky = cholesky
    Tensor.cholesky_solve = cholesky_solve
    Tensor.cholesky_inverse = cholesky_inverse
    Tensor.triangular_solve = triangular_solve
    Tensor.lu_solve = lu_solve
    Tensor.svd = svd
    Tensor.qr = qr
    Tensor.lu = lu
    Tensor.pinverse = pinverse


_register()
