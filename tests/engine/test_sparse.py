"""Sparse COO tensors (engine/ops/sparse.py): construction, the matrix products GCN and GAT code uses,
and the gradients that reach the values, against PyTorch (the ``lib`` fixture and op_check)."""
import warnings

import numpy as np
import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch

INDICES = [[0, 1, 1, 2], [1, 0, 2, 2]]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # PyTorch's sparse-invariant and legacy-constructor warnings
        yield


def spmm_of_values(T, values, dense):
    a = T.sparse_coo_tensor(T.tensor(INDICES), values, (3, 3))
    return T.spmm(a, dense), a @ dense, a.t().matmul(dense)


def test_spmm_values_and_gradients_match_pytorch():
    compare_with_torch(spmm_of_values, [(4,), (3, 2)])


def test_spmm_gradcheck_and_gradgradcheck_in_float64():
    check_gradients(spmm_of_values, [(4,), (3, 2)])


def test_to_sparse_is_differentiable_with_the_sparsity_pattern():
    def fn(T, x):
        return (x * T.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=T.float64)).to_sparse() @ T.ones(2, 3, dtype=T.float64)
    compare_with_torch(fn, [(2, 2)])
    check_gradients(fn, [(2, 2)])


def test_construction_queries_and_legacy_constructor(lib):
    i = lib.tensor(INDICES)
    a = lib.sparse_coo_tensor(i, lib.tensor([1.0, 2.0, 3.0, 4.0]), (3, 3))
    assert a.is_sparse and a._nnz() == 4 and a.sparse_dim() == 2 and a.dense_dim() == 0
    assert not a.is_coalesced() and a._indices().tolist() == INDICES   # as PyTorch: built, not yet coalesced
    a = a.coalesce()
    assert a.is_coalesced() and a.indices().tolist() == INDICES and a.values().tolist() == [1.0, 2.0, 3.0, 4.0]
    assert a.to_dense().tolist() == [[0.0, 1.0, 0.0], [2.0, 0.0, 3.0], [0.0, 0.0, 4.0]]
    assert not a.to_dense().is_sparse and not lib.ones(2).is_sparse
    legacy = lib.sparse.FloatTensor(i, lib.tensor([1.0, 2.0, 3.0, 4.0]), lib.Size([3, 3]))
    assert legacy.dtype == lib.float32 and legacy.to_dense().tolist() == a.to_dense().tolist()
    inferred = lib.sparse_coo_tensor(lib.tensor([[0, 2]], dtype=lib.int32), lib.tensor([1.0, 2.0]))
    assert inferred.shape == (3,) and inferred._indices().dtype == lib.int64


def test_duplicates_sum_and_coalesce_sorts(lib):
    u = lib.sparse_coo_tensor(lib.tensor([[1, 0, 1]]), lib.tensor([1.0, 2.0, 3.0]), (2,))
    assert not u.is_coalesced() and u.to_dense().tolist() == [2.0, 4.0]
    c = u.coalesce()
    assert c.is_coalesced() and c.indices().tolist() == [[0, 1]] and c.values().tolist() == [2.0, 4.0]
    with pytest.raises(RuntimeError):
        u.indices()


def test_bad_indices_raise_as_pytorch(lib):
    with pytest.raises(RuntimeError, match="same nnz"):
        lib.sparse_coo_tensor(lib.tensor([[0, 1]]), lib.tensor([1.0]), (3,))
    # PyTorch checks the range only with check_invariants=True; held dense, ours always does
    with pytest.raises(RuntimeError, match="size is inconsistent"):
        lib.sparse_coo_tensor(lib.tensor([[0, 3]]), lib.tensor([1.0, 2.0]), (3,), check_invariants=True)


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_repr_follows_pytorchs_layout():
    text = repr(gs.sparse_coo_tensor(gs.tensor([[0, 1]]), gs.tensor([1.0, 2.0]), (2,)))
    assert text.startswith("tensor(indices=tensor([[0, 1]]),") and "nnz=2, layout=torch.sparse_coo)" in text
