"""torch.float_power / Tensor.float_power(_) and torch.copysign / Tensor.copysign(_): values and
gradients against PyTorch where it is installed, gradcheck and gradgradcheck in float64, dtypes
(float_power always float64; copysign floats integers), signed zeros and PyTorch's errors."""
import math

import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch

CASES = {
    "float_power_tensors": (lambda T, a, b: T.float_power(a.abs() + 0.5, b), [(3, 4), (3, 4)]),
    "float_power_scalar_exp": (lambda T, a: T.float_power(a, 3), [(5,)]),
    "float_power_scalar_base": (lambda T, a: T.float_power(2.5, a), [(2, 3)]),
    "float_power_method_broadcast": (lambda T, a, b: (a.abs() + 0.1).float_power(b), [(2, 3), (3,)]),
    "copysign_tensors": (lambda T, a, b: T.copysign(a, b), [(3, 4), (3, 4)]),
    "copysign_broadcast_method": (lambda T, a, b: a.copysign(b), [(2, 1), (3,)]),
    "copysign_scalar": (lambda T, a: T.copysign(a, -1.5), [(4,)]),
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


def test_float_power_dtypes_and_values():
    r = gs.float_power(gs.tensor([2, 3]), 2)
    assert r.dtype == gs.float64 and r.tolist() == [4.0, 9.0]
    assert gs.float_power(2, gs.tensor([1.0, 2.0])).dtype == gs.float64
    assert gs.ones(2, dtype=gs.float32).float_power(gs.ones(2, dtype=gs.float16)).dtype == gs.float64
    assert math.isnan(gs.float_power(gs.tensor([-8.0]), 1 / 3).item())
    x = gs.tensor([2.0, 3.0], dtype=gs.float64)
    assert x.float_power_(2) is x and x.tolist() == [4.0, 9.0]


def test_copysign_values_dtypes_and_zero_gradient():
    assert gs.copysign(gs.tensor([1, 2]), gs.tensor([-1, 0])).tolist() == [-1.0, 2.0]
    assert gs.copysign(gs.tensor([1, 2]), gs.tensor([-1, 0])).dtype == gs.float32
    assert gs.copysign(gs.tensor([1.0, -2.0]), -0.0).tolist() == [-1.0, -2.0]   # -0.0 is negative
    assert gs.copysign(gs.ones(2, dtype=gs.float16), gs.ones(2, dtype=gs.float64)).dtype == gs.float64
    assert gs.ones(2, dtype=gs.float16).copysign(2).dtype == gs.float16
    x = gs.tensor([0.0, -2.0, 3.0], requires_grad=True)
    gs.copysign(x, gs.tensor([-1.0, -1.0, 1.0])).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0]
    y = gs.tensor([1.0, -2.0])
    assert y.copysign_(-1) is y and y.tolist() == [-1.0, -2.0]


@pytest.mark.parametrize("call, error", [
    (lambda T: T.ones(2).float_power_(2), RuntimeError),
    (lambda T: T.copysign(T.ones(2), T.ones(3)), RuntimeError),
    (lambda T: T.float_power(T.ones(2), T.ones(3)), RuntimeError),
])
def test_errors_are_pytorchs(call, error):
    with pytest.raises(error) as ours:
        call(gs)
    if torch is not None:
        with pytest.raises(error) as theirs:
            call(torch)
        assert str(ours.value) == str(theirs.value)


def test_copysign_needs_a_tensor_input():
    with pytest.raises(TypeError):
        gs.copysign(2, gs.tensor([-1.0]))
