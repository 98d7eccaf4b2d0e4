"""Tensor basics (SPEC section 1, "Basics"): metadata, conversions, casts, devices, printing."""
import math

import numpy as np
import pytest

import gradserve.engine as gs

try:
    import torch
except ImportError:
    torch = None


# ------------------------------------------------------------------ metadata
def test_shape_size_dim_numel(lib):
    x = lib.zeros(2, 3, 4)
    assert x.shape == (2, 3, 4) and x.size() == (2, 3, 4)
    assert x.size(1) == 3 and x.size(-1) == 4
    assert x.dim() == 3 and x.ndim == 3 and x.numel() == 24
    assert list(x.shape) == [2, 3, 4] and repr(x.shape) == "torch.Size([2, 3, 4])"
    assert x.shape.numel() == 24


def test_size_of_missing_dimension_raises_index_error(lib):
    with pytest.raises(IndexError, match="Dimension out of range"):
        lib.zeros(2, 3).size(2)


def test_dtype_and_device(lib):
    x = lib.tensor([1.0])
    assert x.dtype == lib.float32 and x.dtype is lib.float
    assert x.device.type == "cpu" and str(x.device) == "cpu"
    assert x.is_floating_point() and not lib.tensor([1]).is_floating_point()
    assert repr(lib.float64) == "torch.float64"


def test_is_tensor(lib):
    assert lib.is_tensor(lib.tensor(1.0)) and not lib.is_tensor([1.0]) and not lib.is_tensor(1.0)
    assert isinstance(lib.tensor(1.0), lib.Tensor)


# ------------------------------------------------------------------ conversions
def test_item_gives_python_numbers(lib):
    assert lib.tensor(2.5).item() == 2.5 and type(lib.tensor(2.5).item()) is float
    assert lib.tensor([7]).item() == 7 and type(lib.tensor([7]).item()) is int
    assert lib.tensor(True).item() is True


def test_item_of_many_elements_raises(lib):
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        lib.tensor([1.0, 2.0]).item()


def test_tolist(lib):
    assert lib.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert lib.tensor(1.5).tolist() == 1.5
    assert lib.tensor([True]).tolist() == [True]


def test_numpy_shares_memory(lib):
    x = lib.tensor([1.0, 2.0])
    a = x.numpy()
    assert isinstance(a, np.ndarray) and a.dtype == np.float32
    a[0] = 5.0
    assert x[0].item() == 5.0


def test_numpy_of_tensor_requiring_grad_raises(lib):
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        lib.tensor([1.0], requires_grad=True).numpy()


def test_python_number_conversions(lib):
    x = lib.tensor([2.75])
    assert float(x) == 2.75 and int(x) == 2 and bool(lib.tensor([1.0]))
    assert f"{lib.tensor(3.14159):.2f}" == "3.14"
    assert [1, 2, 3][lib.tensor(1)] == 2


def test_bool_of_many_elements_raises(lib):
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        bool(lib.tensor([1.0, 2.0]))


def test_len_and_iteration(lib):
    x = lib.tensor([[1, 2], [3, 4], [5, 6]])
    assert len(x) == 3
    assert [row.tolist() for row in x] == [[1, 2], [3, 4], [5, 6]]
    with pytest.raises(TypeError):
        len(lib.tensor(1.0))


# ------------------------------------------------------------------ casts
@pytest.mark.parametrize("method, dtype", [("double", "float64"), ("float", "float32"), ("long", "int64"),
                                           ("int", "int32"), ("bool", "bool")])
def test_cast_methods(lib, method, dtype):
    y = getattr(lib.tensor([0.0, 1.5, -2.0]), method)()
    assert y.dtype == getattr(lib, dtype)


def test_to_dtype_and_type_as(lib):
    x = lib.tensor([1.5, -2.5])
    assert x.to(lib.float64).dtype == lib.float64
    assert x.to(dtype=lib.int64).tolist() == [1, -2]
    assert x.type_as(lib.tensor([1])).dtype == lib.int64
    assert x.to(lib.tensor([1.0], dtype=lib.float64)).dtype == lib.float64
    assert x.to(lib.float32) is x and x.to("cpu") is x and x.cpu() is x


def test_type_names(lib):
    assert lib.tensor([1.0]).type() == "torch.FloatTensor"
    assert lib.tensor([1]).type() == "torch.LongTensor"
    assert lib.tensor([1.0]).type(lib.float64).dtype == lib.float64


def test_cast_is_differentiable(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x.double() * 3
    y.sum().backward()
    assert x.grad.dtype == lib.float32
    assert x.grad.tolist() == [3.0, 3.0]


def test_float64_stays_float64(lib):
    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    y = (x * 2.5 + 1).exp() / lib.tensor([3.0])
    assert y.dtype == lib.float64
    y.sum().backward()
    assert x.grad.dtype == lib.float64
    assert lib.tensor(np.array([1.0, 2.0])).dtype == lib.float64


def test_default_dtype_can_be_set_to_float64(lib):
    assert lib.get_default_dtype() == lib.float32
    lib.set_default_dtype(lib.float64)
    try:
        assert lib.tensor([1.5]).dtype == lib.float64 and lib.zeros(2).dtype == lib.float64
        assert lib.tensor([1]).dtype == lib.int64
    finally:
        lib.set_default_dtype(lib.float32)
    assert lib.tensor([1.5]).dtype == lib.float32


def test_cuda_without_a_device_raises():
    if gs.cuda.is_available():
        pytest.skip("a CUDA device is present")
    assert not gs.cuda.is_available() and gs.cuda.device_count() == 0
    with pytest.raises(RuntimeError, match="CUDA"):
        gs.tensor([1.0]).cuda()
    with pytest.raises(RuntimeError, match="CUDA"):
        gs.zeros(2, device="cuda")


def test_device_objects(lib):
    d = lib.device("cpu")
    assert d.type == "cpu" and d == lib.device("cpu") and str(d) == "cpu"
    assert lib.device("cuda:1").index == 1
    assert lib.zeros(1, device=d).device == d


# ------------------------------------------------------------------ torch.Tensor(...)
def test_tensor_class_constructs_from_data_and_sizes(lib):
    assert lib.Tensor([1, 2]).dtype == lib.float32 and lib.Tensor([1, 2]).tolist() == [1.0, 2.0]
    assert lib.Tensor(2, 3).shape == (2, 3)
    assert lib.Tensor().shape == (0,)


def test_empty_is_zeroed():
    assert gs.empty(3, 2).tolist() == [[0.0, 0.0]] * 3
    assert gs.empty_like(gs.ones(4)).tolist() == [0.0] * 4


# ------------------------------------------------------------------ data and grad attributes
def test_data_is_detached_and_shared(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    d = x.data
    assert not d.requires_grad
    d[0] = 7.0
    assert x[0].item() == 7.0


def test_grad_can_be_assigned_and_cleared(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    x.grad = lib.tensor([0.5, 0.5])
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.5, 2.5]
    x.grad = None
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


# ------------------------------------------------------------------ printing
REPR_CASES = {
    "[1.0, 2.0]": "tensor([1., 2.])",
    "[1.0, 2.5]": "tensor([1.0000, 2.5000])",
    "[-1.5, 2.0]": "tensor([-1.5000,  2.0000])",
    "3.0": "tensor(3.)",
    "0.1": "tensor(0.1000)",
    "[1e-05, 1.0]": "tensor([1.0000e-05, 1.0000e+00])",
    "[1e9, 1.0]": "tensor([1.0000e+09, 1.0000e+00])",
    "[[1.0, 2.0], [3.0, 4.0]]": "tensor([[1., 2.],\n        [3., 4.]])",
    "[float('inf'), 1.5, float('nan')]": "tensor([   inf, 1.5000,    nan])",
    "[0.0, 0.0]": "tensor([0., 0.])",
    "[1, 2, 30]": "tensor([ 1,  2, 30])",
    "[True, False]": "tensor([ True, False])",
    "[]": "tensor([])",
    "[[], []]": "tensor([], size=(2, 0))",
    "[[[1, 2]], [[3, 4]]]": "tensor([[[1, 2]],\n\n        [[3, 4]]])",
}


@pytest.mark.parametrize("source", list(REPR_CASES))
def test_repr_matches_pytorch(lib, source):
    t = lib.tensor(eval(source, {}, {}))  # noqa: S307 - test literals only
    assert repr(t) == REPR_CASES[source] and str(t) == REPR_CASES[source]


@pytest.mark.parametrize("make", [
    lambda lib: lib.tensor([1.0, 2.0], dtype=lib.float64),
    lambda lib: lib.tensor([1, 2], dtype=lib.int32),
    lambda lib: lib.tensor(3, dtype=lib.float64),
    lambda lib: lib.tensor([1.0, 2.0], requires_grad=True),
    lambda lib: (lib.tensor([1.0, 2.0], requires_grad=True) * 2).sum(),
    lambda lib: lib.arange(2000.0),
    lambda lib: lib.arange(2000).reshape(40, 50),
    lambda lib: lib.arange(30.0) / 7,
    lambda lib: lib.linspace(-3, 3, 24).reshape(2, 3, 4),
    lambda lib: lib.zeros(2, 0, dtype=lib.int64),
    lambda lib: lib.tensor([[1e-3, 123456.0], [0.5, -2.0]]),
])
def test_repr_of_more_tensors_matches_pytorch(make):
    if torch is None:
        pytest.skip("PyTorch is not installed")
    assert repr(make(gs)) == repr(make(torch))


def test_set_printoptions_precision():
    gs.set_printoptions(precision=2)
    try:
        assert repr(gs.tensor([1.12345])) == "tensor([1.12])"
        assert gs.get_printoptions()["precision"] == 2
    finally:
        gs.set_printoptions(profile="default")
    assert repr(gs.tensor([1.12345])) == "tensor([1.1235])"


# ------------------------------------------------------------------ more basics torch code uses
def test_copy_in_place_broadcasts_and_casts(lib):
    y = lib.zeros(2, 3, dtype=lib.int64)
    assert y.copy_(lib.tensor([1.7, 2.2, -3.9])) is y
    assert y.tolist() == [[1, 2, -3], [1, 2, -3]]


def test_copy_in_place_is_differentiable_to_its_source(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.zeros(2)
    b.copy_(a * 2)
    (b * lib.tensor([1.0, 3.0])).sum().backward()
    assert b.requires_grad and a.grad.tolist() == [2.0, 6.0]


def test_copy_in_place_of_wrong_shape_raises(lib):
    with pytest.raises(RuntimeError):
        lib.zeros(2).copy_(lib.ones(3))


def test_new_factories_follow_the_tensor(lib):
    x = lib.ones(2, dtype=lib.float64)
    assert x.new_zeros(3, 2).shape == (3, 2) and x.new_zeros(3).dtype == lib.float64
    assert x.new_ones((2,)).tolist() == [1.0, 1.0] and x.new_empty(4).dtype == lib.float64
    assert x.new_full((2,), 7).tolist() == [7.0, 7.0] and x.new_full((2,), 7).dtype == lib.float64
    assert x.new_tensor([1, 2]).dtype == lib.float64
    assert x.new_zeros(2, dtype=lib.int64).dtype == lib.int64


@pytest.mark.parametrize("method, dtype", [("short", "int16"), ("char", "int8"), ("byte", "uint8"),
                                           ("half", "float16")])
def test_more_cast_methods(lib, method, dtype):
    assert getattr(lib.tensor([1.0, 2.0]), method)().dtype == getattr(lib, dtype)


def test_small_queries(lib):
    x = lib.zeros(2, 3)
    assert x.get_device() == -1 and not x.is_complex() and x.is_signed()
    assert x.itemsize == 4 and x.nbytes == 24 and x.element_size() == 4 and x.nelement() == 6
    assert x.is_same_size(lib.ones(2, 3)) and not x.is_same_size(lib.ones(3, 2))
    assert lib.is_floating_point(x) and not lib.is_floating_point(lib.tensor([1]))
    assert not lib.is_complex(x) and not lib.is_complex(lib.tensor([1]))
    assert lib.is_nonzero(lib.tensor([2])) and not lib.is_nonzero(lib.tensor(0.0))


def test_dtype_queries(lib):
    assert lib.promote_types(lib.int32, lib.float32) == lib.float32
    assert lib.promote_types(lib.uint8, lib.int8) == lib.int16
    assert lib.can_cast(lib.int64, lib.float32) and not lib.can_cast(lib.float32, lib.int64)
    assert lib.can_cast(lib.bool, lib.int8) and not lib.can_cast(lib.int8, lib.bool)
    assert lib.finfo(lib.float32).eps == float(np.finfo(np.float32).eps)
    assert lib.finfo(lib.float64).max == float(np.finfo(np.float64).max)
    assert lib.finfo().bits == 32 and lib.finfo(lib.float32).resolution == 1e-06
    assert lib.iinfo(lib.int64).max == 2 ** 63 - 1 and lib.iinfo(lib.int32).min == -2 ** 31


def test_inference_mode_records_nothing(lib):
    x = lib.tensor([1.0], requires_grad=True)
    with lib.inference_mode():
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad

    @lib.inference_mode()
    def double(t):
        return t * 2
    assert not double(x).requires_grad


def test_variable_is_the_tensor(lib):
    v = lib.autograd.Variable(lib.zeros(2), requires_grad=True)
    assert isinstance(v, lib.Tensor) and v.requires_grad


def test_resize_and_new_as_pytorch(lib):
    # udacity/deep-learning-v2-pytorch: images.resize_(64, 784); char-rnn: weight.new(n, b, h).zero_()
    x = lib.arange(6.0).reshape(2, 3)
    assert x.resize_(3, 2) is x and x.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    y = lib.arange(4.0)
    y.resize_((2, 3))
    assert tuple(y.shape) == (2, 3) and y[0].tolist() == [0.0, 1.0, 2.0] and y[1, 0].item() == 3.0
    t = lib.arange(6.0).reshape(2, 3).t()
    assert t.resize_(6).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]   # memory order, as PyTorch keeps storage
    assert tuple(lib.ones(4, 1, 2, 2).resize_as_(lib.ones(4, 4)).shape) == (4, 4)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        lib.ones(2, requires_grad=True).resize_(3)
    assert tuple(lib.ones(2).new(3, 4).shape) == (3, 4) and lib.ones(2).new(3, 4).dtype == lib.float32
    assert lib.ones(2, dtype=lib.int64).new([1.5]).tolist() == [1] and tuple(lib.ones(2).new().shape) == (0,)
    assert tuple(lib.ones(2).new(lib.Size([2, 2])).shape) == (2, 2)


# ------------------------------------------------------------------ attributes of the caller's own
def test_tensors_and_parameters_take_attributes_of_their_own(lib):
    """PyTorch's tensors have a __dict__: code marks parameters (mamba.py: ``A_log._no_weight_decay = True``)."""
    p = lib.nn.Parameter(lib.ones(3))
    p._no_weight_decay = True
    t = lib.ones(2)
    t.tag = "x"
    assert p._no_weight_decay is True and t.tag == "x"
    assert not hasattr(lib.ones(2), "tag") and not hasattr(lib.nn.Parameter(lib.ones(1)), "_no_weight_decay")
    y = t * 2
    assert not hasattr(y, "tag")   # results of ops are new tensors
    del t.tag
    assert not hasattr(t, "tag")


def test_torch_cuda_is_a_module():
    import importlib
    import types
    cuda = importlib.import_module("gradserve.engine.cuda")
    assert gs.cuda is cuda and isinstance(cuda, types.ModuleType)
    assert cuda.is_available() in (True, False) and cuda.manual_seed_all(0) is None


# ------------------------------------------------------------------ copy.deepcopy
def test_deepcopy_of_a_leaf_copies_its_gradient_and_attributes(lib):
    import copy
    t = lib.ones(2, requires_grad=True)
    (t * 2).sum().backward()
    t.tag, t.g = 3, lib.zeros(2)
    t.h = t.g
    u = copy.deepcopy(t)
    assert u is not t and u.requires_grad and u.is_leaf and u.grad.tolist() == [2.0, 2.0] and u.grad is not t.grad
    u.g.add_(1)
    assert u.tag == 3 and u.g.tolist() == [1.0, 1.0] and t.g.tolist() == [0.0, 0.0] and u.h is u.g
    p = lib.nn.Parameter(lib.ones(1))
    p.tag = 1
    assert not hasattr(copy.deepcopy(p), "tag")   # Parameter's own deepcopy keeps no attributes
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(t * 2)
