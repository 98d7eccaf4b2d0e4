"""Tensor.index_fill(_), Tensor.fill_diagonal_, torch.unique and matrix_power (from the real-code
corpus: aladdinpersson's tensor basics, harvardnlp's annotated transformer, Spijkervet/SimCLR's
NT-Xent mask): gradients by finite differences and PyTorch's
answers where it is installed."""
import numpy as np
import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch

CASES = {
    "index_fill_rows": (lambda T, x: x.index_fill(0, T.tensor([0, 2]), 0.5), [(3, 4)]),
    "index_fill_last_dim_none": (lambda T, x: x.index_fill(-1, T.tensor([], dtype=T.int64), 0.0), [(2, 3)]),
    "index_fill_tensor_value": (lambda T, x, v: x.index_fill(1, T.tensor([1]), v.sum()), [(2, 3), (2,)]),
    "fill_diagonal": (lambda T, x: (x * 1).fill_diagonal_(0.5), [(3, 3)]),
    "fill_diagonal_wide": (lambda T, x: (x * 1).fill_diagonal_(0.5), [(3, 5)]),
    "fill_diagonal_tall_wrap": (lambda T, x: (x * 1).fill_diagonal_(2.0, wrap=True), [(7, 3)]),
    "fill_diagonal_cube": (lambda T, x: (x * 1).fill_diagonal_(-1.0), [(2, 2, 2)]),
    "fill_diagonal_of_a_view": (lambda T, x: (x * 1)[:, ::2].fill_diagonal_(3.0) * 2, [(4, 4)]),
    "matrix_power_1": (lambda T, a: a.matrix_power(1), [(3, 3)]),
    "matrix_power_3": (lambda T, a: a.matrix_power(3), [(3, 3)]),
    "matrix_power_5_batched": (lambda T, a: T.matrix_power(a, 5), [(2, 3, 3)]),
    "linalg_matrix_power_2": (lambda T, a: T.linalg.matrix_power(a, 2), [(4, 4)]),
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
    compare_with_torch(fn, shapes, rtol=1e-7, atol=1e-9)


def test_index_fill_in_place_and_its_errors(lib):
    m = lib.ones(3, 2)
    assert m.index_fill_(1, lib.tensor([0]), 5.0) is m and m.tolist() == [[5.0, 1.0]] * 3
    with pytest.raises(IndexError, match="Expected dtype int64 for index"):
        lib.ones(3, 2).index_fill(0, lib.tensor([1.0]), 0)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        lib.ones(3, 2).index_fill(0, lib.tensor([5]), 0)


def test_fill_diagonal_in_place_as_pytorch(lib):
    m = lib.zeros(5, 3)
    assert m.fill_diagonal_(1, wrap=True) is m
    assert m.tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0], [1, 0, 0]]
    assert lib.zeros(5, 3).fill_diagonal_(1).tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]]
    mask = lib.ones((4, 4), dtype=bool).fill_diagonal_(0)   # NT-Xent's mask_correlated_samples
    assert mask.sum().item() == 12 and not mask[2, 2].item()
    assert lib.zeros(2, 2, dtype=lib.long).fill_diagonal_(2.7).tolist() == [[2, 0], [0, 2]]
    base = lib.zeros(4, 4)
    base[:, ::2].fill_diagonal_(5)
    assert base.tolist() == [[5, 0, 0, 0], [0, 0, 5, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    x = lib.ones(3, 3, requires_grad=True)
    y = x * 1
    y.fill_diagonal_(0)
    assert y.grad_fn.name().endswith("CopySlices")   # torch::autograd::CopySlices in PyTorch
    with pytest.raises(RuntimeError, match="^dimensions must larger than 1$"):
        lib.zeros(3).fill_diagonal_(1)
    with pytest.raises(RuntimeError, match="^all dimensions of input must be of equal length$"):
        lib.zeros(2, 3, 2).fill_diagonal_(1)
    with pytest.raises(TypeError, match="argument 'fill_value' \\(position 1\\) must be Number, not str"):
        lib.zeros(2, 2).fill_diagonal_("a")
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an "
                                           "in-place operation"):
        x.fill_diagonal_(0)


def test_matrix_power_of_zero_is_the_identity_and_non_square_is_refused(lib):
    a = lib.tensor([[1.0, 1.0], [0.0, 1.0]])
    assert a.matrix_power(0).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert lib.ones(2, 3, 3).matrix_power(0).tolist() == [np.eye(3).tolist()] * 2
    with pytest.raises(RuntimeError, match="A must be batches of square matrices, but they are 2 by 3 matrices"):
        lib.ones(2, 3).matrix_power(2)


@pytest.mark.parametrize("kwargs", [{}, {"return_inverse": True}, {"return_counts": True},
                                    {"return_inverse": True, "return_counts": True},
                                    {"dim": 0, "return_inverse": True, "return_counts": True}, {"dim": 1}])
def test_unique_as_pytorch(lib, kwargs):
    x = lib.tensor([[3, 1, 3], [1, 2, 1], [3, 1, 3]])
    got = lib.unique(x, **kwargs)
    got = got if isinstance(got, tuple) else (got,)
    data = np.array([[3, 1, 3], [1, 2, 1], [3, 1, 3]])
    axis = kwargs.get("dim")
    values, inverse, counts = np.unique(data if axis is not None else data.reshape(-1), axis=axis,
                                        return_inverse=True, return_counts=True)
    want = [values]
    if kwargs.get("return_inverse"):
        want.append(inverse.reshape(data.shape) if axis is None else inverse.reshape(-1))
    if kwargs.get("return_counts"):
        want.append(counts)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.tolist() == w.tolist() and (g is got[0] or g.dtype == lib.int64)
    assert x.unique().tolist() == [1, 2, 3]
