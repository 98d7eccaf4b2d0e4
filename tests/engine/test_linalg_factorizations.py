"""Inverses, solves, determinants and factorizations (engine/ops/factorizations.py): first and
second derivatives against finite differences, values and gradients against PyTorch (batched
inputs included), grad_fn names, and PyTorch's errors with their messages."""
import math

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.limits import LimitExceeded
from gradserve.engine.autograd.state import state
from op_check import check_gradients, compare_devices, compare_with_torch, torch, values

needs_torch = [pytest.mark.torch, pytest.mark.skipif(torch is None, reason="PyTorch is not installed")]


def well(T, a):
    """a + 3 I: a random square matrix kept well away from singular."""
    return a + 3 * T.eye(a.shape[-1], dtype=a.dtype)


def spd(T, a):
    """a a^T + I: symmetric positive-definite."""
    return a @ a.mT + T.eye(a.shape[-1], dtype=a.dtype)


def sym(T, a):
    return a + a.mT


def columns_signed(T, q, ref):
    """q's columns with the sign that makes ref's first row positive (factors are unique up to it)."""
    return q * ref[..., :1, :].detach().sign()


def eigh_vectors(T, a):
    q = T.linalg.eigh(sym(T, a)).eigenvectors
    return columns_signed(T, q, q)


def svd_factors(T, a, full=False):
    u, s, vh = T.linalg.svd(a, full_matrices=full)
    k = s.shape[-1]
    sign = u[..., :1, :k].detach().sign()
    return u[..., :k] * sign, s, vh[..., :k, :] * sign.mT


OPS = [
    ("linalg.inv", lambda T, a: T.linalg.inv(well(T, a)), [(3, 3)]),
    ("linalg.inv batched", lambda T, a: T.linalg.inv(well(T, a)), [(2, 3, 3)]),
    ("inverse", lambda T, a: T.inverse(well(T, a)), [(3, 3)]),
    ("Tensor.inverse", lambda T, a: well(T, a).inverse(), [(2, 2)]),
    ("linalg.solve", lambda T, a, b: T.linalg.solve(well(T, a), b), [(3, 3), (3, 2)]),
    ("linalg.solve vector", lambda T, a, b: T.linalg.solve(well(T, a), b), [(3, 3), (3,)]),
    ("linalg.solve batched vector", lambda T, a, b: T.linalg.solve(well(T, a), b), [(2, 3, 3), (2, 3)]),
    ("linalg.solve broadcast", lambda T, a, b: T.linalg.solve(well(T, a), b), [(2, 3, 3), (3, 2)]),
    ("linalg.solve broadcast A", lambda T, a, b: T.linalg.solve(well(T, a), b), [(3, 3), (2, 3, 1)]),
    ("linalg.solve left=False", lambda T, a, b: T.linalg.solve(well(T, a), b, left=False), [(3, 3), (2, 3)]),
    ("linalg.det", lambda T, a: T.linalg.det(a), [(3, 3)]),
    ("linalg.det batched", lambda T, a: T.linalg.det(a), [(2, 3, 3)]),
    ("det", lambda T, a: a.det(), [(2, 2)]),
    ("linalg.slogdet", lambda T, a: T.linalg.slogdet(a), [(3, 3)]),
    ("slogdet batched", lambda T, a: T.slogdet(a), [(2, 3, 3)]),
    ("logdet", lambda T, a: T.logdet(spd(T, a)), [(3, 3)]),
    ("linalg.cholesky", lambda T, a: T.linalg.cholesky(spd(T, a)), [(3, 3)]),
    ("linalg.cholesky batched", lambda T, a: T.linalg.cholesky(spd(T, a)), [(2, 3, 3)]),
    ("linalg.cholesky upper", lambda T, a: T.linalg.cholesky(spd(T, a), upper=True), [(3, 3)]),
    ("cholesky", lambda T, a: T.cholesky(spd(T, a)), [(3, 3)]),
    ("linalg.solve_triangular upper", lambda T, a, b: T.linalg.solve_triangular(well(T, a), b, upper=True),
     [(3, 3), (3, 2)]),
    ("linalg.solve_triangular lower batched",
     lambda T, a, b: T.linalg.solve_triangular(well(T, a), b, upper=False), [(2, 3, 3), (3, 2)]),
    ("linalg.solve_triangular right", lambda T, a, b: T.linalg.solve_triangular(well(T, a), b, upper=True,
                                                                                left=False), [(3, 3), (2, 3)]),
    ("linalg.solve_triangular unitriangular", lambda T, a, b: T.linalg.solve_triangular(
        a, b, upper=False, unitriangular=True), [(3, 3), (3, 2)]),
    ("triangular_solve", lambda T, b, a: T.triangular_solve(b, well(T, a)).solution, [(3, 2), (3, 3)]),
    ("triangular_solve transpose lower", lambda T, b, a: T.triangular_solve(
        b, well(T, a), upper=False, transpose=True)[0], [(3, 2), (3, 3)]),
    ("cholesky_solve", lambda T, b, a: T.cholesky_solve(b, T.linalg.cholesky(spd(T, a))), [(3, 2), (3, 3)]),
    ("cholesky_solve factor", lambda T, b, a: T.cholesky_solve(b, T.tril(well(T, a))), [(3, 2), (3, 3)]),
    ("cholesky_solve upper batched", lambda T, b, a: T.cholesky_solve(b, T.triu(well(T, a)), upper=True),
     [(2, 3, 2), (3, 3)]),
    ("linalg.eigh values", lambda T, a: T.linalg.eigh(sym(T, a)).eigenvalues, [(3, 3)]),
    ("linalg.eigh vectors", eigh_vectors, [(3, 3)]),
    ("linalg.eigh both batched", lambda T, a: (T.linalg.eigh(sym(T, a))[0], eigh_vectors(T, a)), [(2, 3, 3)]),
    ("linalg.eigh upper", lambda T, a: T.linalg.eigh(sym(T, a), UPLO="U")[0], [(3, 3)]),
    ("linalg.eigvalsh", lambda T, a: T.linalg.eigvalsh(sym(T, a)), [(2, 3, 3)]),
    ("linalg.svd square", lambda T, a: svd_factors(T, a), [(3, 3)]),
    ("linalg.svd tall", lambda T, a: svd_factors(T, a), [(4, 3)]),
    ("linalg.svd wide batched", lambda T, a: svd_factors(T, a), [(2, 3, 4)]),
    ("linalg.svd full tall", lambda T, a: svd_factors(T, a, True), [(4, 2)]),
    ("linalg.svd U only", lambda T, a: svd_factors(T, a)[0], [(4, 3)]),
    ("linalg.svd Vh only", lambda T, a: svd_factors(T, a)[2], [(3, 4)]),
    ("linalg.svdvals", lambda T, a: T.linalg.svdvals(a), [(2, 4, 3)]),
    ("svd", lambda T, a: T.svd(a)[1], [(3, 4)]),
    ("linalg.qr square", lambda T, a: T.linalg.qr(a), [(3, 3)]),
    ("linalg.qr tall", lambda T, a: T.linalg.qr(a), [(4, 3)]),
    ("linalg.qr wide batched", lambda T, a: T.linalg.qr(a), [(2, 3, 4)]),
    ("linalg.qr R only wide", lambda T, a: T.linalg.qr(a).R, [(2, 4)]),
    ("linalg.qr complete square", lambda T, a: T.linalg.qr(a, mode="complete"), [(3, 3)]),
    ("qr", lambda T, a: a.qr()[0], [(4, 3)]),
    ("linalg.lu square", lambda T, a: T.linalg.lu(a)[1:], [(3, 3)]),
    ("linalg.lu tall", lambda T, a: T.linalg.lu(a)[1:], [(4, 3)]),
    ("linalg.lu wide batched", lambda T, a: T.linalg.lu(a)[1:], [(2, 3, 4)]),
    ("linalg.lu L only wide", lambda T, a: T.linalg.lu(a).L, [(3, 4)]),
    ("linalg.lu U only tall", lambda T, a: T.linalg.lu(a).U, [(4, 2)]),
    ("linalg.lu_factor", lambda T, a: T.linalg.lu_factor(a).LU, [(3, 3)]),
    ("linalg.lu_factor wide", lambda T, a: T.linalg.lu_factor(a).LU, [(3, 5)]),
    ("linalg.lu_factor_ex tall batched", lambda T, a: T.linalg.lu_factor_ex(a).LU, [(2, 4, 3)]),
    ("lu", lambda T, a: T.lu(a)[0], [(3, 3)]),
    ("Tensor.lu", lambda T, a: a.lu()[0], [(2, 2)]),
    ("lu_unpack", lambda T, a: T.lu_unpack(*T.linalg.lu_factor(a))[1:], [(3, 3)]),
    ("lu_unpack tall batched", lambda T, a: T.lu_unpack(*T.linalg.lu_factor(a))[1:], [(2, 4, 3)]),
    ("lu_unpack wide", lambda T, a: T.lu_unpack(*T.linalg.lu_factor(a))[1:], [(2, 3)]),
    ("linalg.pinv tall", lambda T, a: T.linalg.pinv(a), [(4, 3)]),
    ("linalg.pinv wide batched", lambda T, a: T.linalg.pinv(a), [(2, 3, 4)]),
    ("linalg.pinv hermitian", lambda T, a: T.linalg.pinv(spd(T, a), hermitian=True), [(3, 3)]),
    ("pinverse", lambda T, a: T.pinverse(a), [(3, 3)]),
    ("linalg.lstsq", lambda T, a, b: T.linalg.lstsq(a, b).solution, [(5, 3), (5, 2)]),
    ("matrix_norm nuc", lambda T, a: T.linalg.matrix_norm(a, "nuc"), [(2, 3, 4)]),
    ("matrix_norm 2", lambda T, a: T.linalg.matrix_norm(a, 2), [(3, 4)]),
    ("matrix_norm -2 keepdim dims", lambda T, a: T.linalg.matrix_norm(a, -2, dim=(0, 2), keepdim=True),
     [(3, 2, 4)]),
    ("linalg.norm nuc", lambda T, a: T.linalg.norm(a, "nuc"), [(3, 3)]),
    ("matrix_power negative", lambda T, a: T.linalg.matrix_power(well(T, a), -2), [(3, 3)]),
]


@pytest.mark.parametrize("fn, shapes", [pytest.param(f, s, id=n) for n, f, s in OPS])
def test_gradients_match_finite_differences(fn, shapes):
    check_gradients(fn, shapes)


@pytest.mark.parametrize("fn, shapes", [pytest.param(f, s, id=n, marks=needs_torch) for n, f, s in OPS])
def test_values_and_gradients_match_torch(fn, shapes):
    compare_with_torch(fn, shapes)


NAMES = [
    (lambda T, a: T.linalg.inv(a), "LinalgInvExBackward0"),
    (lambda T, a: a.inverse(), "LinalgInvExBackward0"),
    (lambda T, a: T.linalg.solve(a, a), "LinalgSolveExBackward0"),
    (lambda T, a: T.det(a), "LinalgDetBackward0"),
    (lambda T, a: T.linalg.slogdet(a).sign, "LinalgSlogdetBackward0"),
    (lambda T, a: T.slogdet(a).logabsdet, "LinalgSlogdetBackward0"),
    (lambda T, a: T.logdet(a), "WhereBackward0"),
    (lambda T, a: T.linalg.cholesky(spd(T, a)), "LinalgCholeskyExBackward0"),
    (lambda T, a: T.cholesky(spd(T, a)), "CholeskyBackward0"),
    (lambda T, a: T.linalg.solve_triangular(a, a, upper=True), "LinalgSolveTriangularBackward0"),
    (lambda T, a: T.triangular_solve(a, a).solution, "TriangularSolveBackward0"),
    (lambda T, a: T.cholesky_solve(a, a), "CholeskySolveBackward0"),
    (lambda T, a: T.linalg.eigh(a).eigenvectors, "LinalgEighBackward0"),
    (lambda T, a: T.linalg.eigvalsh(a), "LinalgEighBackward0"),
    (lambda T, a: T.linalg.svd(a).U, "LinalgSvdBackward0"),
    (lambda T, a: T.linalg.svdvals(a), "LinalgSvdBackward0"),
    (lambda T, a: T.svd(a).V, "TransposeBackward0"),
    (lambda T, a: T.linalg.qr(a).R, "LinalgQrBackward0"),
    (lambda T, a: T.linalg.pinv(a), "LinalgPinvBackward0"),
    (lambda T, a: T.linalg.lu(a).L, "LinalgLuBackward0"),
    (lambda T, a: T.linalg.lu_factor(a).LU, "LinalgLuFactorExBackward0"),
    (lambda T, a: T.lu(a)[0], "LinalgLuFactorExBackward0"),
    (lambda T, a: T.linalg.matrix_norm(a, "nuc"), "SumBackward1"),
    (lambda T, a: T.linalg.matrix_norm(a, 2), "AmaxBackward0"),
]


@pytest.mark.parametrize("fn, name", [pytest.param(f, n, id=n + str(i)) for i, (f, n) in enumerate(NAMES)])
def test_grad_fn_names(lib, fn, name):
    a = (lib.eye(3, dtype=lib.float64) * 2 + 0.1).requires_grad_()
    assert fn(lib, a).grad_fn.name() == name


def _message(lib, fn):
    with pytest.raises(Exception) as info:
        fn(lib)
    return type(info.value), str(info.value)


ERRORS = [
    (lambda T: T.linalg.inv(T.tensor([[1.0, 2.0], [2.0, 4.0]])), True,
     "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input matrix "
     "is singular."),
    (lambda T: T.inverse(T.stack([T.eye(2), T.zeros(2, 2)])), True,
     "linalg.inv: (Batch element 1): The diagonal element 1 is zero, the inversion could not be completed because "
     "the input matrix is singular."),
    (lambda T: T.linalg.inv(T.ones(2, 3)), False,
     "linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda T: T.linalg.inv(T.ones(3)), False, "linalg.inv: The input tensor A must have at least 2 dimensions."),
    (lambda T: T.linalg.inv(T.ones(2, 2, dtype=T.long)), False,
     "linalg.inv: Expected a floating point or complex tensor as input. Got Long"),
    (lambda T: T.linalg.solve(T.tensor([[1.0, 2.0], [2.0, 4.0]]), T.ones(2)), True,
     "torch.linalg.solve: The solver failed because the input matrix is singular."),
    (lambda T: T.linalg.solve(T.stack([T.eye(2), T.zeros(2, 2)]), T.ones(2, 2)), True,
     "torch.linalg.solve: (Batch element 1): The solver failed because the input matrix is singular."),
    (lambda T: T.linalg.solve(T.eye(2), T.ones(3)), False,
     "linalg.solve: Incompatible shapes of A and B for the equation AX = B (2x2 and 3x1)"),
    (lambda T: T.linalg.solve(T.eye(2), T.ones(2, dtype=T.float64)), False,
     "linalg.solve: Expected A and B to have the same dtype, but found A of type Float and B of type Double "
     "instead"),
    (lambda T: T.linalg.det(T.ones(2, 3)), False,
     "linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda T: T.logdet(T.ones(2, 3)), False,
     "logdet: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda T: T.linalg.cholesky(T.tensor([[1.0, 2.0], [2.0, 1.0]])), True,
     "linalg.cholesky: The factorization could not be completed because the input is not positive-definite "
     "(the leading minor of order 2 is not positive-definite)."),
    (lambda T: T.linalg.cholesky(T.stack([T.eye(3), -T.eye(3)])), True,
     "linalg.cholesky: (Batch element 1): The factorization could not be completed because the input is not "
     "positive-definite (the leading minor of order 1 is not positive-definite)."),
    (lambda T: T.linalg.eigh(T.ones(2, 3)), False,
     "linalg.eigh: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda T: T.linalg.svd(T.ones(3)), False, "linalg.svd: The input tensor A must have at least 2 dimensions."),
    (lambda T: T.linalg.qr(T.ones(3)), False, "linalg.qr: The input tensor A must have at least 2 dimensions."),
    (lambda T: T.linalg.solve_triangular(T.eye(2), T.ones(2), upper=True), False,
     "linalg.solve_triangular: The input tensor B must have at least 2 dimensions."),
    (lambda T: T.linalg.lu_factor(T.tensor([[1.0, 2.0], [2.0, 4.0]])), False,
     "torch.linalg.lu_factor: U[2,2] is zero and using it on lu_solve would result in a division by zero. If you "
     "still want to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"),
    (lambda T: T.linalg.lu_factor(T.stack([T.eye(2), T.zeros(2, 2)])), False,
     "torch.linalg.lu_factor: (Batch element 1): U[1,1] is zero and using it on lu_solve would result in a division "
     "by zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
     "linalg.lu_factor_ex(A, pivot)"),
    (lambda T: T.linalg.lu_factor_ex(T.zeros(2, 2), check_errors=True), False,
     "torch.linalg.lu_factor_ex: U[1,1] is zero and using it on lu_solve would result in a division by zero. If you "
     "still want to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"),
    (lambda T: T.linalg.lu_factor(T.eye(2), pivot=False), False,
     "linalg.lu_factor: LU without pivoting is not implemented on the CPU"),
    (lambda T: T.linalg.lu(T.ones(3)), False, "linalg.lu: Expected tensor with 2 or more dimensions. Got size: [3] "
     "instead"),
    (lambda T: T.lu(T.ones(3)), False, "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: [3] "
     "instead"),
    (lambda T: T.lu_unpack(T.ones(3), T.ones(3, dtype=T.int32)), False,
     "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: [3] instead"),
    (lambda T: T.lu_unpack(T.ones(2, 2), T.tensor([1, 2])), False,
     "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\nNote: this function is "
     "intended to be used with the output produced by torch.linalg.lu_factor"),
    (lambda T: T.lu_unpack(T.ones(2, 2), T.tensor([3, 1], dtype=T.int32)), False,
     "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly pass the result of "
     "lu_factor?"),
]


@pytest.mark.parametrize("fn, linalg_error, message", [pytest.param(f, e, m, id=m[:60]) for f, e, m in ERRORS])
def test_errors_match_torch(lib, fn, linalg_error, message):
    kind, text = _message(lib, fn)
    assert text == message
    assert issubclass(kind, RuntimeError)
    assert issubclass(kind, lib.linalg.LinAlgError) == linalg_error


def test_lu_refuses_what_torch_refuses(lib):
    with pytest.raises(NotImplementedError, match="\"lu_cpu\" not implemented for 'Int'"):
        lib.linalg.lu_factor(lib.ones(2, 2, dtype=lib.int32))
    with pytest.raises(NotImplementedError, match="\"lu_cpu\" not implemented for 'Half'"):
        lib.linalg.lu(lib.ones(2, 2, dtype=lib.float16))
    with pytest.raises(TypeError, match="argument 'A'"):
        lib.linalg.lu_factor([[1.0]])


def test_lu_of_singular_and_empty_matrices(lib):
    lu, piv, info = lib.linalg.lu_factor_ex(lib.tensor([[1.0, 2.0], [2.0, 4.0]]))
    assert piv.dtype == lib.int32 and info.item() == 2 and lu.tolist() == [[2.0, 4.0], [0.5, 0.0]]
    lu, piv, info = lib.lu(lib.zeros(3, 2, 2), get_infos=True)
    assert info.tolist() == [1, 1, 1] and piv.tolist() == [[1, 2]] * 3
    lu, piv = lib.linalg.lu_factor(lib.ones(3, 0))
    assert lu.shape == (3, 0) and piv.shape == (0,)
    p, low, up = lib.linalg.lu(lib.ones(0, 3))
    assert p.shape == (0, 0) and low.shape == (0, 0) and up.shape == (0, 3)


def test_lu_factors_rebuild_the_matrix_and_pivots_as_lapack(lib):
    a = lib.tensor([[1.0, 2.0, 0.5, 3.0], [4.0, -1.0, 2.0, 0.0], [2.0, 2.0, -3.0, 1.0], [0.0, 5.0, 1.0, 1.0]],
                   dtype=lib.float64)
    lu, piv = lib.linalg.lu_factor(a)
    assert piv.tolist() == [2, 4, 3, 4]
    p, low, up = lib.lu_unpack(lu, piv)
    assert p.tolist() == [[0, 0, 0, 1], [1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0]]
    assert (p @ low @ up - a).abs().max().item() < 1e-14
    p2, low2, up2 = lib.linalg.lu(a)
    assert p2.tolist() == p.tolist() and (low2 - low).abs().max().item() == 0 and (up2 - up).abs().max().item() == 0
    assert lib.lu_unpack(lu, piv, unpack_data=False).L.shape == (0,)
    assert lib.lu_unpack(lu, piv, unpack_pivots=False).P.shape == (0,)
    assert lib.lu_unpack(lu.int(), piv).L.dtype == lib.int32


def test_linalg_error_is_caught_as_runtime_error(lib):
    try:
        lib.linalg.inv(lib.zeros(2, 2))
    except RuntimeError as e:
        assert isinstance(e, lib.linalg.LinAlgError)


def test_qr_backward_refuses_what_torch_refuses(lib):
    a = lib.ones(4, 3, dtype=lib.float64).cumsum(0).requires_grad_()
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete' and nrows > ncols"):
        lib.linalg.qr(a, mode="complete").Q.sum().backward()
    with pytest.raises(RuntimeError, match="depends on Q, which is not computed when mode='r'"):
        lib.linalg.qr(a, mode="r").R.sum().backward()


def test_gradient_of_a_singular_determinant_is_the_adjugate():
    # PyTorch 2.13 gives zeros here; the adjugate is the derivative (and what PyTorch 1.x gave)
    z = gs.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=gs.float64, requires_grad=True)
    d = gs.linalg.det(z)
    d.backward()
    assert float(d) == 0.0
    np.testing.assert_allclose(values(z.grad), [[4.0, -2.0], [-2.0, 1.0]], atol=1e-12)


def test_logdet_of_negative_and_zero_determinants(lib):
    assert math.isnan(float(lib.logdet(-lib.eye(3))))
    assert float(lib.logdet(lib.zeros(3, 3))) == -math.inf


def test_slogdet_unpacks_and_names_its_fields(lib):
    a = lib.tensor([[0.0, 2.0], [1.0, 0.0]])
    sign, logabsdet = lib.linalg.slogdet(a)
    assert float(sign) == -1.0 and float(logabsdet) == pytest.approx(math.log(2.0))
    assert float(lib.slogdet(a).sign) == -1.0


def test_singular_triangular_solve_gives_inf_and_nan(lib):
    x = lib.linalg.solve_triangular(lib.zeros(2, 2), lib.ones(2, 2), upper=True)
    assert not bool(lib.isfinite(x).any())


def test_matrix_rank_and_lstsq_fields(lib):
    a = lib.tensor([[1.0, 2.0], [2.0, 4.0], [0.0, 1.0]], dtype=lib.float64)
    assert lib.linalg.matrix_rank(a).item() == 2
    assert lib.linalg.matrix_rank(a[:2]).item() == 1
    assert lib.linalg.matrix_rank(a[:2], hermitian=True).item() == 1
    assert lib.linalg.matrix_rank(a).dtype == lib.int64
    result = lib.linalg.lstsq(a, lib.ones(3, 1, dtype=lib.float64))
    assert result.rank.item() == 2
    assert tuple(result.residuals.shape) == (0,) and tuple(result.singular_values.shape) == (0,)
    gelsd = lib.linalg.lstsq(a, lib.ones(3, 1, dtype=lib.float64), driver="gelsd")
    assert tuple(gelsd.singular_values.shape) == (2,) and tuple(gelsd.residuals.shape) == (1,)


def test_svd_without_vectors_gives_zero_factors(lib):
    u, s, v = lib.svd(lib.ones(3, 2), compute_uv=False)
    assert tuple(u.shape) == (3, 3) and tuple(v.shape) == (2, 2) and not bool(u.any())
    assert s[0].item() == pytest.approx(math.sqrt(6.0))


def test_inverse_round_trips_and_matrix_power(lib):
    a = lib.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=lib.float64)
    np.testing.assert_allclose(values(a @ lib.linalg.inv(a)), np.eye(2), atol=1e-12)
    np.testing.assert_allclose(values(lib.matrix_power(a, -1)), values(lib.linalg.inv(a)), atol=1e-12)


LU_OPS = [(n, f, s) for n, f, s in OPS if "lu" in n.split()[0]]


@pytest.mark.gpu
@pytest.mark.parametrize("fn, shapes", [pytest.param(f, s, id=n) for n, f, s in LU_OPS])
def test_lu_on_cuda_matches_the_cpu(fn, shapes):
    compare_devices(fn, shapes)


@pytest.mark.gpu
def test_lu_factor_refuses_a_singular_matrix_on_cuda():
    with pytest.raises(RuntimeError, match=r"U\[1,1\] is zero"):
        gs.linalg.lu_factor(gs.zeros(2, 2, device="cuda"))


def test_lu_columns_count_as_program_steps():
    charged = []
    prev = state.charge
    state.charge = charged.append
    try:
        gs.linalg.lu_factor(gs.eye(5).expand(3, 5, 5))
    finally:
        state.charge = prev
    assert charged == [1] * 5


def test_in_place_change_of_an_output_is_caught():
    a = gs.eye(3, dtype=gs.float64).requires_grad_()
    inv = gs.linalg.inv(a * 2)
    inv.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        inv.sum().backward()


def test_element_limit_guards_broadcast_solves_and_full_factors():
    prev = state.element_limit
    state.element_limit = 1000
    try:
        with pytest.raises(LimitExceeded):
            gs.linalg.solve(gs.eye(2).expand(40, 1, 2, 2), gs.ones(1, 40, 2, 1))
        with pytest.raises(LimitExceeded):
            gs.linalg.svd(gs.ones(100, 1))
        with pytest.raises(LimitExceeded):
            gs.linalg.qr(gs.ones(100, 1), mode="complete")
        with pytest.raises(LimitExceeded):   # P is 100 x 100
            gs.linalg.lu(gs.ones(100, 1))
        lu, piv = gs.linalg.lu_factor(gs.arange(100.0).reshape(100, 1))
        with pytest.raises(LimitExceeded):
            gs.lu_unpack(lu, piv)
        assert gs.lu_unpack(lu, piv, unpack_pivots=False).L.shape == (100, 1)
    finally:
        state.element_limit = prev


# ------------------------------------------------------------------ lu_solve
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_solves_and_differentiates(left, adjoint):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 3))
    b = rng.standard_normal((2, 3, 2) if left else (2, 2, 3))
    LU, piv = gs.linalg.lu_factor(gs.tensor(a))
    x = gs.linalg.lu_solve(LU, piv, gs.tensor(b), left=left, adjoint=adjoint).numpy()
    op = np.swapaxes(a, -1, -2) if adjoint else a
    np.testing.assert_allclose(op @ x if left else x @ op, b, atol=1e-12)

    def f(A, B):
        LU, piv = gs.linalg.lu_factor(A)
        return gs.linalg.lu_solve(LU, piv, B, left=left, adjoint=adjoint)
    A = gs.tensor(a[0], requires_grad=True)
    B = gs.tensor(b[0], requires_grad=True)
    assert gs.autograd.gradcheck(f, (A, B))
    assert gs.autograd.gradgradcheck(f, (A, B))
    if left:   # the deprecated torch.lu_solve(b, LU, pivots)
        assert np.array_equal(gs.lu_solve(gs.tensor(b), LU, piv).numpy(), gs.linalg.lu_solve(LU, piv, gs.tensor(b)).numpy())


def test_lu_solve_errors():
    LU, piv = gs.linalg.lu_factor(gs.eye(3, dtype=gs.float64))
    with pytest.raises(RuntimeError, match="Number of rows of B must match the order of A"):
        gs.linalg.lu_solve(LU, piv, gs.ones(2, 1, dtype=gs.float64))
    with pytest.raises(RuntimeError, match="Number of columns of B must match the order of A"):
        gs.linalg.lu_solve(LU, piv, gs.ones(1, 2, dtype=gs.float64), left=False)
    with pytest.raises(RuntimeError, match="A must be batches of square matrices"):
        gs.linalg.lu_solve(gs.ones(2, 3), piv, gs.ones(3, 1))


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_matches_torch(left, adjoint):
    def go(T):
        rng = np.random.default_rng(1)
        A = T.tensor(rng.standard_normal((2, 4, 4)), requires_grad=True)
        B = T.tensor(rng.standard_normal((2, 4, 3) if left else (2, 3, 4)), requires_grad=True)
        LU, piv = T.linalg.lu_factor(A)
        X = T.linalg.lu_solve(LU, piv, B, left=left, adjoint=adjoint)
        (X * X).sum().backward()
        return X.detach().numpy(), A.grad.numpy(), B.grad.numpy()
    for ours, theirs in zip(go(gs), go(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-10)
