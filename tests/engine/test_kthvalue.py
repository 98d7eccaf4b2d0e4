"""torch.kthvalue / Tensor.kthvalue: values, indices and gradients against PyTorch where it is
installed, gradcheck and gradgradcheck in float64, NaN ordering, keepdim and PyTorch's errors."""
import math

import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch

CASES = {
    "last_dim": (lambda T, a: T.kthvalue(a, 2).values, [(3, 5)]),
    "dim0_keepdim": (lambda T, a: a.kthvalue(3, dim=0, keepdim=True).values, [(4, 3)]),
    "k1_is_min_3d": (lambda T, a: a.kthvalue(1, 1).values, [(2, 4, 3)]),
    "k_is_n_is_max": (lambda T, a: T.kthvalue(a, 6, -1).values, [(6,)]),
    "scalar": (lambda T, a: a.kthvalue(1).values, [()]),
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


def test_values_indices_nan_last_and_types():
    x = gs.tensor([[3.0, 1.0, 2.0], [math.nan, 0.0, 5.0]])
    r = x.kthvalue(2)
    assert r.values.tolist() == [2.0, 5.0] and r.indices.tolist() == [2, 2]
    v, i = gs.kthvalue(x, 2, 0)
    assert math.isnan(v.tolist()[0]) and v.tolist()[1:] == [1.0, 5.0] and i.tolist() == [1, 0, 1]
    assert math.isnan(x.kthvalue(3).values.tolist()[1])
    k = x.kthvalue(1, keepdim=True)
    assert k.values.shape == (2, 1) and k.indices.dtype == gs.int64
    assert type(r).__name__ == "kthvalue" and "torch.return_types.kthvalue" in repr(r)
    assert gs.kthvalue(gs.tensor([5, 7, 6]), 2).values.item() == 6
    assert gs.kthvalue(gs.tensor([5, 7, 6]), 2).values.dtype == gs.int64
    a = gs.tensor([4.0, 1.0, 3.0], requires_grad=True)
    a.kthvalue(2).values.backward()
    assert a.grad.tolist() == [0.0, 0.0, 1.0]
    assert a.kthvalue(2).values.grad_fn.name() == "KthvalueBackward0"


@pytest.mark.parametrize("call, error", [
    (lambda T: T.ones(2, 3).kthvalue(0), RuntimeError),
    (lambda T: T.ones(2, 3).kthvalue(4), RuntimeError),
    (lambda T: T.tensor(3.0).kthvalue(2), RuntimeError),
    (lambda T: T.ones(2, 0).kthvalue(1), IndexError),
    (lambda T: T.ones(2, 3).kthvalue(1, dim=3), IndexError),
])
def test_errors_are_pytorchs(call, error):
    with pytest.raises(error) as ours:
        call(gs)
    if torch is not None:
        with pytest.raises(error) as theirs:
            call(torch)
        assert str(ours.value) == str(theirs.value)
