"""torch._utils' _flatten_dense_tensors / _unflatten_dense_tensors (engine/_utils.py), which library
code imports as written (improved-diffusion's fp16_util.py): gradcheck in float64, values, gradients and
views against PyTorch."""
import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine._utils import _flatten_dense_tensors, _unflatten_dense_tensors
from op_check import check_gradients, compare_with_torch, torch


def _round_trip(T, a, b, c):
    flat = (_flatten_dense_tensors if T is gs else torch._utils._flatten_dense_tensors)([a, b, c])
    unflatten = _unflatten_dense_tensors if T is gs else torch._utils._unflatten_dense_tensors
    x, y, z = unflatten(flat * 2, [a, b, c])
    return flat, x, y, z


def test_gradcheck():
    check_gradients(_round_trip, [(2, 3), (4,), (1, 2, 2)])


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="compares with PyTorch")
def test_matches_torch():
    compare_with_torch(_round_trip, [(2, 3), (4,), (1, 2, 2)])


def test_one_tensor_is_its_flat_view_and_unflatten_gives_views():
    a = gs.arange(6.0).reshape(2, 3)
    flat = _flatten_dense_tensors([a])
    assert flat.shape == (6,) and np.shares_memory(flat.numpy(), a.numpy())
    flat = _flatten_dense_tensors([a, gs.ones(2)])
    x, e, y = _unflatten_dense_tensors(flat, [a, gs.empty(0), gs.ones(2)])
    assert isinstance(_unflatten_dense_tensors(flat, [a]), tuple)
    assert (x.shape, e.shape, y.shape) == ((2, 3), (0,), (2,))
    x.add_(1)
    assert flat[:6].tolist() == list(np.arange(1.0, 7.0))
    with pytest.raises(ValueError, match="expected a non-empty list of Tensors"):
        _flatten_dense_tensors([])
