"""Linear algebra: matmul in all its shapes, its relatives, einsum and tensordot; values,
first and second derivatives, PyTorch's errors, and the element limit on products."""
import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.autograd.state import state
from gradserve.engine.limits import LimitExceeded
from op_check import check_gradients, compare_devices, compare_with_torch, torch, values

needs_torch = [pytest.mark.torch, pytest.mark.skipif(torch is None, reason="PyTorch is not installed")]

OPS = [
    ("matmul 1-d 1-d", lambda T, a, b: T.matmul(a, b), [(3,), (3,)]),
    ("matmul 2-d 1-d", lambda T, a, b: a.matmul(b), [(2, 3), (3,)]),
    ("matmul 1-d 2-d", lambda T, a, b: a @ b, [(3,), (3, 4)]),
    ("matmul 2-d 2-d", lambda T, a, b: a @ b, [(2, 3), (3, 4)]),
    ("matmul 3-d 3-d", lambda T, a, b: T.matmul(a, b), [(2, 2, 3), (2, 3, 4)]),
    ("matmul broadcast batch", lambda T, a, b: T.matmul(a, b), [(2, 1, 2, 3), (3, 3, 2)]),
    ("matmul 3-d 2-d", lambda T, a, b: a @ b, [(2, 2, 3), (3, 4)]),
    ("matmul 2-d 3-d", lambda T, a, b: a @ b, [(2, 3), (2, 3, 4)]),
    ("matmul 1-d 3-d", lambda T, a, b: a @ b, [(3,), (2, 3, 4)]),
    ("matmul 3-d 1-d", lambda T, a, b: a @ b, [(2, 2, 3), (3,)]),
    ("matmul 4-d 1-d", lambda T, a, b: a @ b, [(2, 1, 2, 3), (3,)]),
    ("matmul same input twice", lambda T, a: a @ a, [(3, 3)]),
    ("mm", lambda T, a, b: T.mm(a, b), [(2, 3), (3, 2)]),
    ("bmm", lambda T, a, b: a.bmm(b), [(2, 2, 3), (2, 3, 1)]),
    ("mv", lambda T, a, b: T.mv(a, b), [(2, 3), (3,)]),
    ("dot", lambda T, a, b: a.dot(b), [(4,), (4,)]),
    ("vdot", lambda T, a, b: T.vdot(a, b), [(4,), (4,)]),
    ("inner", lambda T, a, b: T.inner(a, b), [(2, 3), (4, 3)]),
    ("inner 1-d", lambda T, a, b: a.inner(b), [(3,), (3,)]),
    ("outer", lambda T, a, b: T.outer(a, b), [(3,), (2,)]),
    ("ger", lambda T, a, b: a.ger(b), [(3,), (2,)]),
    ("einsum matmul", lambda T, a, b: T.einsum("ij,jk->ik", a, b), [(2, 3), (3, 4)]),
    ("einsum implicit output", lambda T, a, b: T.einsum("jk,ij", a, b), [(3, 4), (2, 3)]),
    ("einsum operand list", lambda T, a, b: T.einsum("i,i", [a, b]), [(3,), (3,)]),
    ("einsum trace", lambda T, a: T.einsum("ii->", a), [(3, 3)]),
    ("einsum implicit trace", lambda T, a: T.einsum("ii", a), [(3, 3)]),
    ("einsum diagonal", lambda T, a: T.einsum("ii->i", a), [(3, 3)]),
    ("einsum batched diagonal", lambda T, a: T.einsum("bii->bi", a), [(2, 3, 3)]),
    ("einsum transpose", lambda T, a: T.einsum("ij->ji", a), [(2, 3)]),
    ("einsum sum", lambda T, a: T.einsum("ijk->", a), [(2, 3, 2)]),
    ("einsum partial sum", lambda T, a: T.einsum("ijk->ki", a), [(2, 3, 2)]),
    ("einsum outer", lambda T, a, b: T.einsum("i,j->ij", a, b), [(3,), (2,)]),
    ("einsum batch matmul", lambda T, a, b: T.einsum("bij,bjk->bik", a, b), [(2, 2, 3), (2, 3, 2)]),
    ("einsum three operands", lambda T, a, b, c: T.einsum("ij,jk,kl->il", a, b, c), [(2, 3), (3, 2), (2, 2)]),
    ("einsum letter only in one operand", lambda T, a, b: T.einsum("ij,j->", a, b), [(2, 3), (3,)]),
    ("einsum repeated within and across", lambda T, a, b: T.einsum("iij,jk->ik", a, b), [(2, 2, 3), (3, 2)]),
    ("einsum ellipsis", lambda T, a, b: T.einsum("...ij,...jk->...ik", a, b), [(2, 2, 3), (2, 3, 2)]),
    ("einsum ellipsis broadcast", lambda T, a, b: T.einsum("...ij,...jk", a, b), [(2, 2, 3), (3, 1, 3, 2)]),
    ("einsum ellipsis leading", lambda T, a: T.einsum("i...->...", a), [(2, 3, 2)]),
    ("einsum size-1 broadcast", lambda T, a, b: T.einsum("ij,jk", a, b), [(2, 1), (3, 2)]),
    ("einsum uppercase", lambda T, a, b: T.einsum("Ab,bC->AC", a, b), [(2, 3), (3, 2)]),
    ("einsum sublist", lambda T, a, b: T.einsum(a, [0, 1], b, [1, 2], [0, 2]), [(2, 3), (3, 2)]),
    ("tensordot", lambda T, a, b: T.tensordot(a, b), [(2, 3, 2), (3, 2, 2)]),
    ("tensordot lists", lambda T, a, b: T.tensordot(a, b, dims=([1, 0], [0, 2])), [(2, 3, 2), (3, 2, 2)]),
    ("tensordot 0", lambda T, a, b: T.tensordot(a, b, dims=0), [(2,), (3,)]),
    ("trace", lambda T, a: T.trace(a), [(3, 4)]),
    ("addmm", lambda T, c, a, b: T.addmm(c, a, b), [(2, 2), (2, 3), (3, 2)]),
    ("addmm broadcast alpha beta", lambda T, c, a, b: c.addmm(a, b, beta=0.5, alpha=-2.0), [(2,), (2, 3), (3, 2)]),
    ("addmm beta 0", lambda T, c, a, b: T.addmm(c, a, b, beta=0), [(2, 2), (2, 3), (3, 2)]),
    ("addmv", lambda T, c, a, b: T.addmv(c, a, b, alpha=3.0), [(2,), (2, 3), (3,)]),
    ("addr", lambda T, c, a, b: c.addr(a, b, beta=2.0), [(3, 2), (3,), (2,)]),
    ("baddbmm", lambda T, c, a, b: T.baddbmm(c, a, b, beta=0.5), [(1, 2, 2), (2, 2, 3), (2, 3, 2)]),
    ("addbmm", lambda T, c, a, b: T.addbmm(c, a, b), [(2, 2), (2, 2, 3), (2, 3, 2)]),
]


@pytest.mark.parametrize("fn, shapes", [pytest.param(f, s, id=n) for n, f, s in OPS])
def test_gradients_match_finite_differences(fn, shapes):
    check_gradients(fn, shapes)


@pytest.mark.parametrize("fn, shapes", [pytest.param(f, s, id=n, marks=needs_torch) for n, f, s in OPS])
def test_values_and_gradients_match_torch(fn, shapes):
    compare_with_torch(fn, shapes)


@pytest.mark.gpu
@pytest.mark.parametrize("fn, shapes", [pytest.param(f, s, id=n) for n, f, s in OPS])
def test_cuda_matches_cpu(fn, shapes):
    compare_devices(fn, shapes)


@pytest.mark.parametrize("shapes, name", [
    (((3,), (3,)), "DotBackward0"), (((2, 3), (3,)), "MvBackward0"), (((2, 3), (3, 2)), "MmBackward0"),
    (((2, 2, 3), (2, 3, 2)), "BmmBackward0"),
])
def test_product_node_names(lib, shapes, name):
    a, b = (lib.zeros(*s, requires_grad=True) for s in shapes)
    assert (lib.bmm(a, b) if a.dim() == 3 else a @ b).grad_fn.name() == name


def test_matmul_of_bools_is_not_implemented(lib):
    with pytest.raises(NotImplementedError):
        lib.matmul(lib.ones(2, 2, dtype=lib.bool), lib.ones(2, 2, dtype=lib.bool))


def test_matmul_of_integers_stays_integral(lib):
    a = lib.tensor([[1, 2], [3, 4]])
    assert (a @ a).tolist() == [[7, 10], [15, 22]]
    assert (a @ a).dtype == lib.int64


def test_in_place_matmul_forms(lib):
    c = lib.ones(2, 2)
    c.addmm_(lib.eye(2), lib.full((2, 2), 2.0), alpha=0.5)
    np.testing.assert_array_equal(values(c), [[2.0, 2.0], [2.0, 2.0]])


def test_matmul_backward_skips_gradients_nobody_needs():
    w = gs.randn(3, 2, requires_grad=True)
    x = gs.randn(4, 3)
    (x @ w).sum().backward()
    assert x.grad is None and w.grad is not None


def test_einsum_backward_is_differentiable_again():
    a = gs.tensor(np.arange(1.0, 10.0).reshape(3, 3), requires_grad=True)
    (g,) = gs.autograd.grad(gs.einsum("ij,jk,ki->", a, a, a), a, create_graph=True)  # trace(a^3)
    np.testing.assert_allclose(values(g), 3 * (values(a) @ values(a)).T)
    (gg,) = gs.autograd.grad(g.sum(), a)
    assert gg.shape == a.shape


# ------------------------------------------------------------------ errors
ERRORS = [
    ("matmul 2-d shapes", lambda T: T.matmul(T.zeros(2, 3), T.zeros(4, 5)),
     "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
    ("matmul 1-d 1-d sizes", lambda T: T.matmul(T.zeros(3), T.zeros(4)),
     "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 "
     "and 4 elements respectively"),
    ("matmul 2-d 1-d sizes", lambda T: T.matmul(T.zeros(2, 3), T.zeros(4)),
     "size mismatch, got input (2), mat (2x3), vec (4)"),
    ("matmul 3-d 1-d sizes", lambda T: T.matmul(T.zeros(2, 2, 3), T.zeros(4)),
     "size mismatch, got input (4), mat (4x3), vec (4)"),
    ("matmul 1-d 2-d sizes", lambda T: T.matmul(T.zeros(3), T.zeros(4, 5)),
     "mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)"),
    ("matmul 3-d 2-d sizes", lambda T: T.matmul(T.zeros(2, 2, 3), T.zeros(4, 5)),
     "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x5)"),
    ("matmul batched sizes", lambda T: T.matmul(T.zeros(2, 2, 3), T.zeros(2, 4, 5)),
     "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4]."),
    ("matmul broadcast batched sizes", lambda T: T.matmul(T.zeros(2, 5, 2, 3), T.zeros(5, 4, 5)),
     "Expected size for first two dimensions of batch2 tensor to be: [10, 3] but got: [10, 4]."),
    ("matmul batch mismatch", lambda T: T.matmul(T.zeros(7, 2, 3), T.zeros(4, 3, 5)),
     "The size of tensor a (7) must match the size of tensor b (4) at non-singleton dimension 0"),
    ("matmul 0-d", lambda T: T.matmul(T.zeros(()), T.zeros(3)),
     "both arguments to matmul need to be at least 1D, but they are 0D and 1D"),
    ("matmul dtypes", lambda T: T.matmul(T.zeros(2, 3, dtype=T.float64), T.zeros(3, 2)),
     "expected m1 and m2 to have the same dtype, but got: double != float"),
    ("matmul dtypes long", lambda T: T.matmul(T.zeros(2, 3, dtype=T.int64), T.zeros(3, 2)),
     "expected m1 and m2 to have the same dtype, but got: long int != float"),
    ("dot dtypes", lambda T: T.matmul(T.zeros(3, dtype=T.float64), T.zeros(3)),
     "dot : expected both vectors to have same dtype, but found Double and Float"),
    ("mv dtypes", lambda T: T.mv(T.zeros(2, 3), T.zeros(3, dtype=T.float64)),
     "addmv input tensors must have the same dtype, but got Double, Float, and Double"),
    ("mm of vector", lambda T: T.mm(T.zeros(3), T.zeros(3, 2)), "self must be a matrix"),
    ("mm with vector", lambda T: T.mm(T.zeros(2, 3), T.zeros(3)), "mat2 must be a matrix"),
    ("mm sizes", lambda T: T.mm(T.zeros(2, 3), T.zeros(2, 3)),
     "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    ("bmm of matrix", lambda T: T.bmm(T.zeros(2, 3), T.zeros(3, 2)), "batch1 must be a 3D tensor"),
    ("bmm with matrix", lambda T: T.bmm(T.zeros(2, 2, 3), T.zeros(2, 3)), "batch2 must be a 3D tensor"),
    ("bmm batch", lambda T: T.bmm(T.zeros(2, 2, 3), T.zeros(3, 3, 2)),
     "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3]."),
    ("mv sizes", lambda T: T.mv(T.zeros(2, 3), T.zeros(4)), "size mismatch, got input (2), mat (2x3), vec (4)"),
    ("mv of vector", lambda T: T.mv(T.zeros(3), T.zeros(3)), "vector + matrix @ vector expected, got 1, 1, 1"),
    ("dot sizes", lambda T: T.dot(T.zeros(3), T.zeros(4)), "inconsistent tensor size"),
    ("dot of matrices", lambda T: T.dot(T.zeros(3, 1), T.zeros(3, 1)),
     "1D tensors expected, but got 2D and 2D tensors"),
    ("dot dtype", lambda T: T.dot(T.zeros(3), T.zeros(3, dtype=T.float64)),
     "dot : expected both vectors to have same dtype, but found Float and Double"),
    ("outer of matrix", lambda T: T.outer(T.zeros(3, 2), T.zeros(3)), "outer: Expected 1-D argument self, but got 2-D"),
    ("inner sizes", lambda T: T.inner(T.zeros(2, 3), T.zeros(4)),
     "inner() the last dimension must match on both input tensors but got shapes [2, 3] and [4]"),
    ("tensordot sizes", lambda T: T.tensordot(T.zeros(2, 3), T.zeros(4, 5), dims=1),
     "contracted dimensions need to match, but first has size 3 in dim -1 and second has size 4 in dim 0"),
    ("trace of vector", lambda T: T.trace(T.zeros(3)), "trace: expected a matrix, but got tensor with dim 1"),
    ("addmm input shape", lambda T: T.addmm(T.zeros(3), T.zeros(2, 3), T.zeros(3, 2)),
     "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 1"),
    ("einsum sizes", lambda T: T.einsum("ij,jk->ik", T.zeros(2, 3), T.zeros(4, 5)),
     "einsum(): subscript j has size 4 for operand 1 which does not broadcast with previously seen size 3"),
    ("einsum too few operands", lambda T: T.einsum("ij,jk", T.zeros(2, 3)),
     "einsum(): fewer operands were provided than specified in the equation"),
    ("einsum too many operands", lambda T: T.einsum("i->", T.zeros(2), T.zeros(2)),
     "einsum(): more operands were provided than specified in the equation"),
    ("einsum repeated sizes", lambda T: T.einsum("ii->i", T.zeros(2, 3)),
     "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 3 != 2"),
    ("einsum dims", lambda T: T.einsum("ijk->i", T.zeros(2, 3)),
     "einsum(): the number of subscripts in the equation (3) does not match the number of dimensions (2) for "
     "operand 0 and no ellipsis was given"),
    ("einsum unknown output", lambda T: T.einsum("ij->k", T.zeros(2, 3)),
     "einsum(): output subscript k does not appear in the equation for any input operand"),
    ("einsum repeated output", lambda T: T.einsum("ij->ii", T.zeros(2, 3)),
     "einsum(): output subscript i appears more than once in the output"),
    ("einsum bad character", lambda T: T.einsum("i1->", T.zeros(2)),
     "einsum(): invalid subscript given at index 1 in the equation string, subscripts must be in [a-zA-Z]"),
    ("einsum stray dot", lambda T: T.einsum("i..j", T.zeros(2, 3)),
     "einsum(): found '.' for operand 0 that is not part of any ellipsis"),
    ("einsum ellipsis too short", lambda T: T.einsum("ij...k", T.zeros(2)),
     "einsum(): the number of subscripts in the equation (3) is more than the number of dimensions (1) for "
     "operand 0"),
]


@pytest.mark.parametrize("fn, message", [pytest.param(f, m, id=n) for n, f, m in ERRORS])
def test_errors_match_torch(lib, fn, message):
    with pytest.raises(RuntimeError) as info:
        fn(lib)
    assert message in str(info.value)


# ------------------------------------------------------------------ the element limit
@pytest.fixture
def element_limit():
    prev = state.element_limit
    state.element_limit = 10_000
    yield
    state.element_limit = prev


@pytest.mark.parametrize("fn", [
    pytest.param(lambda: gs.outer(gs.ones(100_000), gs.ones(100_000)), id="outer"),
    pytest.param(lambda: gs.einsum("i,j->ij", gs.ones(100_000), gs.ones(100_000)), id="einsum"),
    pytest.param(lambda: gs.einsum("i,j,k->ijk", gs.ones(1000), gs.ones(1000), gs.ones(1000)), id="einsum 3"),
    pytest.param(lambda: gs.ones(100_000, 1) @ gs.ones(1, 100_000), id="matmul"),
    pytest.param(lambda: gs.ones(1000, 1, 1) @ gs.ones(1, 1, 1000), id="batched matmul"),
    pytest.param(lambda: gs.tensordot(gs.ones(1000, 2), gs.ones(2, 1000), dims=1), id="tensordot"),
])
def test_products_past_the_element_limit_raise_before_computing(element_limit, fn):
    with pytest.raises(LimitExceeded) as info:
        fn()
    assert info.value.limit == "tensor_elements"


def test_products_within_the_element_limit_run(element_limit):
    assert tuple(gs.outer(gs.ones(100), gs.ones(100)).shape) == (100, 100)


@pytest.mark.parametrize("fn", [
    pytest.param(lambda: gs.ones(10, 1000)[gs.zeros(1000, dtype=gs.int64)], id="integer index"),
    pytest.param(lambda: gs.ones(2, 4000)[:, gs.zeros(6000, dtype=gs.int64)], id="integer index after slice"),
    pytest.param(lambda: gs.ones(1, 1000).index_select(0, gs.zeros(1000, dtype=gs.int64)), id="index_select"),
    pytest.param(lambda: gs.ones(1000).repeat_interleave(gs.full((1000,), 100, dtype=gs.int64)),
                 id="repeat_interleave"),
    pytest.param(lambda: gs.ones(100).repeat(1000), id="repeat"),
    pytest.param(lambda: gs.cat([gs.ones(6000), gs.ones(6000)]), id="cat"),
])
def test_gathers_past_the_element_limit_raise_before_computing(element_limit, fn):
    with pytest.raises(LimitExceeded):
        fn()


def test_masks_and_small_gathers_within_the_limit_run(element_limit):
    x = gs.ones(100, 50)
    assert x[x > 0].numel() == 5000
    assert tuple(x[[0, 1], 3:].shape) == (2, 47)


@pytest.mark.parametrize("call", [
    lambda T, x: T.mm(x, 1), lambda T, x: x.mm(2.5), lambda T, x: T.matmul(x, 1), lambda T, x: T.bmm(x, 1),
    lambda T, x: T.mv(x, 1), lambda T, x: T.dot(x[0], 1), lambda T, x: T.vdot(x[0], 1), lambda T, x: T.inner(x, 1),
    lambda T, x: T.outer(x[0], 1), lambda T, x: T.ger(x[0], 1), lambda T, x: T.kron(x, 1), lambda T, x: T.cross(x, 1),
    lambda T, x: T.dist(x, 1), lambda T, x: T.is_same_size(x, 1), lambda T, x: T.slice_scatter(x, 1),
    lambda T, x: T.diagonal_scatter(x, 1), lambda T, x: T.mm(input=x, mat2=3),
])
def test_products_refuse_numbers_with_type_error(lib, call):
    with pytest.raises(TypeError, match="must be Tensor"):
        call(lib, lib.ones(3, 3))
