"""Tensor.unfold(dimension, size, step), the sliding-window op: values, shapes and gradients
(overlapping windows add up) against PyTorch where installed, gradcheck and gradgradcheck in
float64, and PyTorch's errors."""
import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch

CASES = {
    "last_dim_overlapping": (lambda T, a: a.unfold(1, 3, 1), [(2, 6)]),
    "first_dim_step2": (lambda T, a: a.unfold(0, 2, 2), [(5, 3)]),
    "middle_dim_negative": (lambda T, a: a.unfold(-2, 2, 3), [(2, 7, 3)]),
    "step_larger_than_size": (lambda T, a: a.unfold(0, 1, 3), [(7,)]),
    "chained_2d_patches": (lambda T, a: a.unfold(0, 2, 1).unfold(1, 2, 1), [(3, 4)]),
    "whole_dim": (lambda T, a: a.unfold(1, 4, 1), [(2, 4)]),
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


def test_known_values_shapes_and_dtypes():
    assert gs.arange(7).unfold(0, 3, 2).tolist() == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
    assert gs.arange(7).unfold(0, 3, 2).dtype == gs.int64
    assert gs.ones(2, 5).unfold(1, 0, 2).shape == (2, 3, 0)
    assert gs.tensor(3.0).unfold(0, 1, 1).tolist() == [3.0]
    x = gs.ones(5, requires_grad=True)
    x.unfold(0, 3, 1).sum().backward()   # each element counted once per window holding it
    assert x.grad.tolist() == [1.0, 2.0, 3.0, 2.0, 1.0]


@pytest.mark.parametrize("call, error", [
    (lambda T: T.ones(2, 5).unfold(1, 6, 1), RuntimeError),
    (lambda T: T.ones(2, 5).unfold(1, 2, 0), RuntimeError),
    (lambda T: T.ones(2, 5).unfold(1, -1, 1), RuntimeError),
    (lambda T: T.ones(2, 5).unfold(2, 2, 1), IndexError),
    (lambda T: T.tensor(3.0).unfold(0, 2, 1), RuntimeError),
])
def test_errors_are_pytorchs(call, error):
    with pytest.raises(error) as ours:
        call(gs)
    if torch is not None:
        with pytest.raises(error) as theirs:
            call(torch)
        assert str(ours.value) == str(theirs.value)
