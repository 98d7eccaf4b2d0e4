"""dtypes and PyTorch's type promotion (torch.result_type)."""
import itertools

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine import dtypes

try:
    import torch
except ImportError:
    torch = None

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def test_dtype_attributes(lib):
    assert lib.float32.is_floating_point and not lib.int64.is_floating_point
    assert lib.float64.itemsize == 8 and lib.int32.itemsize == 4 and lib.bool.itemsize == 1
    assert lib.int64.is_signed and not lib.bool.is_signed


def test_aliases(lib):
    assert lib.float is lib.float32 and lib.double is lib.float64 and lib.half is lib.float16
    assert lib.long is lib.int64 and lib.int is lib.int32 and lib.short is lib.int16


def test_as_dtype_accepts_names_numpy_and_python_types():
    assert dtypes.as_dtype("float64") is gs.float64 and dtypes.as_dtype("torch.int32") is gs.int32
    assert dtypes.as_dtype(np.float32) is gs.float32 and dtypes.as_dtype(np.dtype("int64")) is gs.int64
    assert dtypes.as_dtype(float) is gs.float64 and dtypes.as_dtype(int) is gs.int64   # PyTorch: a double
    assert dtypes.as_dtype(bool) is gs.bool
    with pytest.raises(TypeError):
        dtypes.as_dtype("complex128")


def test_set_default_dtype_rejects_integers(lib):
    with pytest.raises(TypeError):
        lib.set_default_dtype(lib.int64)
    assert lib.get_default_dtype() == lib.float32


CASES = [(a, b) for a, b in itertools.combinations_with_replacement(NAMES, 2)]
# where PyTorch differs from NumPy: an integer never widens a float (recorded from torch 2.13)
NOT_NUMPY = {("int16", "float16"): "float16", ("int32", "float16"): "float16", ("int32", "float32"): "float32",
             ("int64", "float16"): "float16", ("int64", "float32"): "float32"}


@pytest.mark.parametrize("a, b", CASES)
def test_promotion_of_two_tensors_matches_pytorch(a, b):
    got = gs.result_type(gs.ones(2, dtype=getattr(gs, a)), gs.ones(2, dtype=getattr(gs, b)))
    if torch is not None:
        want = torch.result_type(torch.ones(2, dtype=getattr(torch, a)), torch.ones(2, dtype=getattr(torch, b)))
        assert got.name == str(want).removeprefix("torch.")
    assert got.name == NOT_NUMPY.get((a, b), str(np.promote_types(a, b)))


@pytest.mark.parametrize("a, b", list(itertools.product(NAMES, NAMES)))
def test_zero_dim_tensors_rank_below_dimensioned_ones(a, b):
    got = gs.result_type(gs.ones(2, dtype=getattr(gs, a)), gs.ones((), dtype=getattr(gs, b)))
    if torch is None:
        pytest.skip("PyTorch is not installed")
    want = torch.result_type(torch.ones(2, dtype=getattr(torch, a)), torch.ones((), dtype=getattr(torch, b)))
    assert got.name == str(want).removeprefix("torch.")


@pytest.mark.parametrize("a", NAMES)
@pytest.mark.parametrize("scalar", [True, 3, 2.5])
def test_python_scalars_rank_lowest(a, scalar):
    got = gs.result_type(gs.ones(2, dtype=getattr(gs, a)), scalar)
    # a scalar matters only when of a higher category: then it brings int64 or the default float
    if a == "bool" and scalar is not True:
        expected = "int64" if scalar == 3 else "float32"
    elif a not in ("float16", "float32", "float64") and scalar == 2.5:
        expected = "float32"
    else:
        expected = a
    assert got.name == expected
    if torch is not None:
        want = torch.result_type(torch.ones(2, dtype=getattr(torch, a)), scalar)
        assert got.name == str(want).removeprefix("torch.")


def test_promotion_in_ops(lib):
    f32, f64, i64 = lib.ones(2), lib.ones(2, dtype=lib.float64), lib.ones(2, dtype=lib.int64)
    assert (f32 + f64).dtype == lib.float64
    assert (i64 + 1.5).dtype == lib.float32
    assert (i64 * 2).dtype == lib.int64
    assert (f32 + lib.tensor(1.0, dtype=lib.float64)).dtype == lib.float32
    assert (i64 + lib.tensor(1.0, dtype=lib.float64)).dtype == lib.float64
    assert (i64 / 2).dtype == lib.float32
    assert (lib.tensor([True]) + lib.tensor([True])).dtype == lib.bool
