"""torch.cross / torch.linalg.cross / Tensor.cross, torch.kron and torch.dist: values, shapes and
gradients against PyTorch where it is installed, gradcheck and gradgradcheck in float64, dtypes
and PyTorch's errors."""
import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch

CASES = {
    "cross_dim1": (lambda T, a, b: T.cross(a, b, dim=1), [(4, 3), (4, 3)]),
    "cross_dim0_method": (lambda T, a, b: a.cross(b, dim=0), [(3, 2), (3, 2)]),
    "cross_default_dim_first_3": (lambda T, a, b: T.cross(a, b), [(2, 3, 3), (2, 3, 3)]),
    "linalg_cross_broadcast": (lambda T, a, b: T.linalg.cross(a, b), [(2, 1, 3), (1, 4, 3)]),
    "linalg_cross_dim0": (lambda T, a, b: T.linalg.cross(a, b, dim=0), [(3, 2), (3, 1)]),
    "kron_2d": (lambda T, a, b: T.kron(a, b), [(2, 3), (3, 2)]),
    "kron_mixed_ndim": (lambda T, a, b: T.kron(a, b), [(2,), (2, 3, 2)]),
    "kron_method_1d": (lambda T, a, b: a.kron(b), [(3,), (4,)]),
    "dist_default": (lambda T, a, b: T.dist(a, b), [(3, 4), (3, 4)]),
    "dist_p3_broadcast": (lambda T, a, b: T.dist(a, b, 3), [(2, 3), (3,)]),
    "dist_p1_method": (lambda T, a, b: a.dist(b, p=1.5), [(5,), (5,)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_gradcheck_and_gradgradcheck(name):
    fn, shapes = CASES[name]
    check_gradients(fn, shapes)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name):
    fn, shapes = CASES[name]
    compare_with_torch(fn, shapes)


def test_known_values_and_dtypes():
    x, y = gs.tensor([1.0, 0.0, 0.0]), gs.tensor([0.0, 1.0, 0.0])
    assert gs.cross(x, y).tolist() == [0.0, 0.0, 1.0]
    assert gs.linalg.cross(y, x).tolist() == [0.0, 0.0, -1.0]
    assert gs.cross(gs.tensor([1, 2, 3]), gs.tensor([4, 5, 6])).tolist() == [-3, 6, -3]
    assert gs.cross(gs.tensor([1, 2, 3]), gs.tensor([4, 5, 6])).dtype == gs.int64
    k = gs.kron(gs.tensor([[1, 2], [3, 4]]), gs.ones(2))
    assert k.dtype == gs.float32 and k.tolist() == [[1.0, 1.0, 2.0, 2.0], [3.0, 3.0, 4.0, 4.0]]
    assert gs.kron(gs.tensor([1, 2]), gs.tensor([1, 10])).tolist() == [1, 10, 2, 20]
    assert gs.dist(gs.ones(2, 3), gs.zeros(3), 3).item() == pytest.approx(6 ** (1 / 3))
    d = gs.dist(gs.tensor([3, 0]), gs.tensor([0, 4]))
    assert d.dtype == gs.float32 and d.item() == pytest.approx(5.0)


@pytest.mark.parametrize("call", [
    lambda T: T.cross(T.ones(2, 4), T.ones(2, 4), dim=1),          # not length 3
    lambda T: T.linalg.cross(T.ones(2, 4), T.ones(2, 4)),
    lambda T: T.cross(T.ones(3, 1), T.ones(1, 3), dim=0),          # length 3 on one side only
    lambda T: T.cross(T.ones(2, 3), T.ones(3, 3)),                 # shapes that do not broadcast
    lambda T: T.cross(T.ones(3, dtype=T.int64), T.ones(3)),        # dtypes differ
    lambda T: T.linalg.cross(T.ones(3), T.ones(3), dim=2),         # dim out of range
])
def test_errors_are_pytorchs(call):
    for T in (gs, torch) if torch is not None else (gs,):
        with pytest.raises((RuntimeError, IndexError)) as info:
            call(T)
        if T is gs and torch is not None:
            with pytest.raises(type(info.value)) as theirs:
                call(torch)
            assert str(info.value).split(".")[0].split(":")[0] == str(theirs.value).split(".")[0].split(":")[0]
