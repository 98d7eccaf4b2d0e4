"""torch.cdist: values, shapes and gradients against PyTorch where it is installed, gradcheck and
gradgradcheck in float64, zero distances, dtypes and PyTorch's errors."""
import math

import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch

CASES = {
    "p2": (lambda T, a, b: T.cdist(a, b), [(4, 3), (5, 3)]),
    "p1": (lambda T, a, b: T.cdist(a, b, p=1), [(3, 2), (4, 2)]),
    "p3_batched": (lambda T, a, b: T.cdist(a, b, p=3.0), [(2, 3, 4), (2, 5, 4)]),
    "p1_5_batch_broadcast": (lambda T, a, b: T.cdist(a, b, p=1.5), [(1, 2, 3), (3, 4, 3)]),
    "pinf": (lambda T, a, b: T.cdist(a, b, p=math.inf), [(3, 2), (2, 2)]),
    "compute_mode": (lambda T, a, b: T.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"), [(3, 2), (2, 2)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_gradcheck_and_gradgradcheck(name):
    fn, shapes = CASES[name]
    check_gradients(fn, shapes, second_order=name != "pinf")


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name):
    fn, shapes = CASES[name]
    compare_with_torch(fn, shapes)


def test_known_values_zero_distance_and_dtype():
    a = gs.tensor([[0.0, 0.0], [3.0, 4.0]], requires_grad=True)
    d = gs.cdist(a, gs.tensor([[0.0, 0.0]]))
    assert d.dtype == gs.float32 and d.tolist() == [[0.0], [5.0]]
    d.sum().backward()   # a zero distance has a zero gradient, as PyTorch's
    assert a.grad.tolist() == [[0.0, 0.0], [pytest.approx(0.6), pytest.approx(0.8)]]
    assert gs.cdist(gs.ones(2, 3), gs.zeros(2, 3), p=0).tolist() == [[3.0, 3.0]] * 2
    assert gs.cdist(gs.ones(1, 2, 3), gs.ones(4, 5, 3)).shape == (4, 2, 5)


@pytest.mark.parametrize("call", [
    lambda T: T.cdist(T.ones(3), T.ones(2, 3)),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 4)),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3), p=-1),
    lambda T: T.cdist(T.ones(2, 3, dtype=T.int64), T.ones(2, 3)),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3, dtype=T.float64)),
    lambda T: T.cdist(T.ones(2, 2, 3), T.ones(3, 2, 3)),
])
def test_errors_are_pytorchs(call):
    with pytest.raises(RuntimeError) as ours:
        call(gs)
    if torch is not None:
        with pytest.raises(RuntimeError) as theirs:
            call(torch)
        assert str(ours.value) == str(theirs.value)
