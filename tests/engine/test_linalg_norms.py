"""torch.linalg.norm / vector_norm / matrix_norm (rasbt/machine-learning-book ch12:
torch.linalg.norm(t1, ord=2, dim=1)): values, shapes and gradients against PyTorch where it is
installed, gradcheck and gradgradcheck in float64, and PyTorch's errors."""
import math

import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch

CASES = {
    "norm_default_flattens": (lambda T, a: T.linalg.norm(a), [(3, 4)]),
    "norm_ord2_dim1": (lambda T, a: T.linalg.norm(a, ord=2, dim=1), [(5, 2)]),
    "norm_ord1_dim0_keepdim": (lambda T, a: T.linalg.norm(a, ord=1, dim=0, keepdim=True), [(3, 4)]),
    "norm_ord3_vector": (lambda T, a: T.linalg.norm(a, ord=3), [(6,)]),
    "norm_fro_matrix": (lambda T, a: T.linalg.norm(a, ord="fro"), [(3, 4)]),
    "norm_inf_matrix": (lambda T, a: T.linalg.norm(a, ord=math.inf), [(3, 4)]),
    "norm_minus1_matrix": (lambda T, a: T.linalg.norm(a, ord=-1), [(3, 4)]),
    "norm_dims_pair_batched": (lambda T, a: T.linalg.norm(a, dim=(2, 0)), [(3, 2, 4)]),
    "vector_norm_all": (lambda T, a: T.linalg.vector_norm(a, ord=1.5), [(2, 3, 2)]),
    "vector_norm_inf_dims": (lambda T, a: T.linalg.vector_norm(a, ord=math.inf, dim=(0, 2)), [(2, 3, 2)]),
    "matrix_norm_inf_batched_keepdim": (lambda T, a: T.linalg.matrix_norm(a, ord=-math.inf, keepdim=True),
                                        [(2, 3, 4)]),
    "matrix_norm_1_dims": (lambda T, a: T.linalg.matrix_norm(a, ord=1, dim=(0, 2)), [(3, 2, 4)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_gradcheck_and_gradgradcheck(name):
    fn, shapes = CASES[name]
    check_gradients(fn, shapes, second_order="inf" not in name and "minus1" not in name and "_1_" not in name
                    and "ord1" not in name)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name):
    fn, shapes = CASES[name]
    compare_with_torch(fn, shapes)


def test_float32_stays_float32_and_integers_are_refused():
    assert gs.linalg.norm(gs.ones(2, 3)).dtype == gs.float32
    assert gs.linalg.norm(gs.ones(4), dtype=gs.float64).dtype == gs.float64
    with pytest.raises(RuntimeError):
        gs.linalg.norm(gs.tensor([1, 2]))


@pytest.mark.parametrize("call, error", [
    (lambda T: T.linalg.norm(T.ones(2, 2, 2), ord=2), RuntimeError),          # ord without dim: 1-D or 2-D only
    (lambda T: T.linalg.norm(T.ones(3), ord="fro", dim=0), RuntimeError),      # a string ord for a vector
    (lambda T: T.linalg.norm(T.ones(3, 3), dim=(0, 1, 1)), RuntimeError),
    (lambda T: T.linalg.matrix_norm(T.ones(3)), RuntimeError),
    (lambda T: T.linalg.matrix_norm(T.ones(3, 3), dim=(1, 1)), RuntimeError),
    (lambda T: T.linalg.vector_norm(T.ones(3), ord="fro"), TypeError),
])
def test_errors_are_pytorchs(call, error):
    for T in (gs, torch) if torch is not None else (gs,):
        with pytest.raises(error):
            call(T)


def test_singular_value_orders_are_computed(lib):
    # ones(3, 3) has the one singular value 3
    assert lib.linalg.matrix_norm(lib.ones(3, 3), ord="nuc").item() == pytest.approx(3.0)
    assert lib.linalg.matrix_norm(lib.ones(3, 3), ord=2).item() == pytest.approx(3.0)
    assert lib.linalg.matrix_norm(lib.ones(3, 3), ord=-2).item() == pytest.approx(0.0, abs=1e-6)
