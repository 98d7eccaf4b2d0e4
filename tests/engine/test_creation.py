"""Creation functions: dtype inference, filled tensors, ranges, random numbers and seeding."""
import re

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine import LimitExceeded
from gradserve.engine.autograd.state import state


# ------------------------------------------------------------------ tensor(data)
@pytest.mark.parametrize("data, dtype", [
    (1.5, "float32"), ([1.0, 2.0], "float32"), ([1, 2.0], "float32"), ([[1, 2], [3, 4]], "int64"),
    (3, "int64"), ([True, False], "bool"), ([True, 1], "int64"), ([], "float32"), ([[]], "float32"),
    ((1, 2), "int64"),
])
def test_tensor_infers_dtype_as_pytorch(lib, data, dtype):
    assert lib.tensor(data).dtype == getattr(lib, dtype)


@pytest.mark.parametrize("data, dtype", [
    (np.array([1.0, 2.0]), "float64"), (np.array([1, 2], dtype=np.int32), "int32"),
    (np.float64(1.5), "float64"), ([np.float64(1.5), 2.0], "float64"), ([np.float32(1.5), 2], "float32"),
    (np.int32(3), "int32"), (np.array(True), "bool"),
])
def test_tensor_keeps_numpy_dtypes(lib, data, dtype):
    assert lib.tensor(data).dtype == getattr(lib, dtype)


@pytest.mark.parametrize("make, shape, dtype", [
    (lambda: [np.array([1.0, 2.0]), np.array([3.0, 4.0])], (2, 2), "float64"),
    (lambda: [np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)], (2, 2), "int32"),
    (lambda: [np.array([1, 2], dtype=np.int32), [3, 4]], (2, 2), "int64"),
    (lambda: [np.array([1.0, 2.0], dtype=np.float32), [3, 4]], (2, 2), "float32"),
    (lambda: [[np.array([1.0, 2.0])], [np.array([3.0, 4.0])]], (2, 1, 2), "float64"),
    (lambda: [np.eye(5)[[1, 2]], np.eye(5)[[3, 4]]], (2, 2, 5), "float64"),
    (lambda: [np.zeros(0), np.zeros(0)], (2, 0), "float64"),
])
def test_tensor_reads_numpy_arrays_in_a_sequence_as_sequences(lib, make, shape, dtype):
    # graykode/nlp-tutorial: torch.FloatTensor([np.eye(n)[ids] for ...]) (a list of arrays)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # PyTorch warns that a list of arrays is slow
        t = lib.tensor(make())
        typed = lib.FloatTensor(make())
    assert tuple(t.shape) == shape and t.dtype == getattr(lib, dtype)
    assert typed.dtype == lib.float32 and tuple(typed.shape) == shape
    assert np.array_equal(t.numpy(), np.array(make()))


@pytest.mark.parametrize("make, message", [
    (lambda: [np.array([1.0, 2.0]), np.array([3.0])], "expected sequence of length 2 at dim 1 (got 1)"),
    (lambda: [np.array([[1.0, 2.0]]), np.array([[3.0, 4.0], [5.0, 6.0]])],
     "expected sequence of length 1 at dim 1 (got 2)"),
    (lambda: [np.array([1.0, 2.0]), [3.0, 4.0, 5.0]], "expected sequence of length 2 at dim 1 (got 3)"),
])
def test_ragged_arrays_in_a_sequence_are_refused_as_pytorch_refuses_them(lib, make, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        lib.tensor(make())


def test_tensor_of_zero_dim_tensors(lib):
    t = lib.tensor([lib.tensor(1.0), lib.tensor(2.0)])
    assert t.tolist() == [1.0, 2.0] and t.dtype == lib.float32
    assert lib.tensor([lib.tensor(1.0, dtype=lib.float64), 2.0]).dtype == lib.float64


@pytest.mark.parametrize("data, error", [([[1, 2], [3]], ValueError), ([[1, 2], 3], TypeError),
                                         ([1, [2, 3]], TypeError), ([[[1.0]], [[1.0, 2.0]]], ValueError)])
def test_ragged_lists_raise_pytorchs_error_type(lib, data, error):
    # a row of the wrong length is a ValueError; a number where a row belongs, or a row where a number
    # belongs, is PyTorch's TypeError from converting it
    with pytest.raises(error):
        lib.tensor(data)


def test_tensor_of_unsupported_element_raises():
    with pytest.raises(TypeError, match="Could not infer dtype of NoneType"):
        gs.tensor([None])


def test_tensor_of_multi_element_tensors_raises():
    # PyTorch raises TypeError here, from an unrelated conversion; a ragged-like input is a ValueError
    with pytest.raises(ValueError, match="only one element tensors"):
        gs.tensor([gs.tensor([1, 2]), gs.tensor([3, 4])])


def test_tensor_of_tensor_copies_and_detaches(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = lib.tensor(x.detach()) if lib is not gs else lib.tensor(x)
    assert not y.requires_grad and y.is_leaf
    with lib.no_grad():
        y[0] = 9.0
    assert x[0].item() == 1.0


def test_tensor_of_numpy_array_copies(lib):
    a = np.array([1.0, 2.0])
    t = lib.tensor(a)
    a[0] = 5.0
    assert t[0].item() == 1.0


def test_tensor_keywords(lib):
    t = lib.tensor([1, 2], dtype=lib.float64, device="cpu", requires_grad=True)
    assert t.dtype == lib.float64 and t.requires_grad and t.is_leaf and t.device.type == "cpu"
    assert lib.tensor([1.7, -1.7], dtype=lib.int64).tolist() == [1, -1]


def test_integer_tensor_cannot_require_grad(lib):
    with pytest.raises(RuntimeError, match="floating point"):
        lib.zeros(2, dtype=lib.int64, requires_grad=True)


# ------------------------------------------------------------------ filled
@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
def test_size_forms(lib, name):
    fn = getattr(lib, name)
    for size in [(2, 3), ((2, 3),), ([2, 3],), (lib.Size([2, 3]),)]:
        assert fn(*size).shape == (2, 3)
    assert fn(()).shape == ()


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
def test_factory_keywords(lib, name):
    t = getattr(lib, name)(2, dtype=lib.float64, device="cpu", requires_grad=True)
    assert t.dtype == lib.float64 and t.requires_grad and t.is_leaf
    assert getattr(lib, name)(2).dtype == lib.float32


def test_zeros_and_ones_values(lib):
    assert lib.zeros(2, 2).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert lib.ones(3, dtype=lib.int32).tolist() == [1, 1, 1]
    assert lib.ones(2, dtype=lib.bool).tolist() == [True, True]


def test_negative_size_raises(lib):
    with pytest.raises(RuntimeError):
        lib.zeros(-1)


@pytest.mark.parametrize("value, dtype", [(1.5, "float32"), (1, "int64"), (True, "bool")])
def test_full_infers_dtype_from_value(lib, value, dtype):
    t = lib.full((2, 2), value)
    assert t.dtype == getattr(lib, dtype) and t.tolist() == [[value, value], [value, value]]


def test_full_with_dtype(lib):
    assert lib.full((2,), 7, dtype=lib.float32).tolist() == [7.0, 7.0]
    assert lib.full([3], 2.0, requires_grad=True).requires_grad


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"])
def test_like_functions_follow_input(lib, name):
    x = lib.ones(2, 3, dtype=lib.float64)
    y = getattr(lib, name)(x)
    assert y.shape == (2, 3) and y.dtype == lib.float64 and not y.requires_grad
    z = getattr(lib, name)(x, dtype=lib.float32, requires_grad=True)
    assert z.dtype == lib.float32 and z.requires_grad


def test_full_like(lib):
    x = lib.tensor([1, 2])
    assert lib.full_like(x, 2.7).tolist() == [2, 2] and lib.full_like(x, 2.7).dtype == lib.int64
    assert lib.full_like(x, 2.5, dtype=lib.float32).tolist() == [2.5, 2.5]
    assert lib.zeros_like(x).dtype == lib.int64
    assert lib.ones_like(lib.tensor([1.0]), dtype=lib.int64).tolist() == [1]


def test_eye(lib):
    assert lib.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert lib.eye(2, 3).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert lib.eye(2, dtype=lib.int64).dtype == lib.int64


# ------------------------------------------------------------------ ranges
@pytest.mark.parametrize("args, kwargs, expected", [
    ((5,), {}, [0, 1, 2, 3, 4]),
    ((1, 5), {}, [1, 2, 3, 4]),
    ((0, 5, 2), {}, [0, 2, 4]),
    ((5, 0, -2), {}, [5, 3, 1]),
    ((5.0,), {}, [0.0, 1.0, 2.0, 3.0, 4.0]),
    ((0, 1, 0.25), {}, [0.0, 0.25, 0.5, 0.75]),
    ((1, 0, -0.25), {}, [1.0, 0.75, 0.5, 0.25]),
    ((3,), {"dtype": "float64"}, [0.0, 1.0, 2.0]),
])
def test_arange(lib, args, kwargs, expected):
    if "dtype" in kwargs:
        kwargs = {"dtype": getattr(lib, kwargs["dtype"])}
    t = lib.arange(*args, **kwargs)
    assert t.tolist() == expected
    floating = any(isinstance(a, float) for a in args) or kwargs
    assert t.dtype == (lib.get_default_dtype() if not kwargs else kwargs["dtype"]) if floating else \
        t.dtype == lib.int64


def test_arange_length_with_float_step(lib):
    assert lib.arange(0, 1, 0.1).shape == (10,) and lib.arange(0, 1, 0.1).dtype == lib.float32


def test_arange_zero_step_raises(lib):
    with pytest.raises(RuntimeError):
        lib.arange(0, 5, 0)


def test_linspace(lib):
    assert lib.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert lib.linspace(0, 1, 5).dtype == lib.float32
    assert lib.linspace(0, 1, 3, dtype=lib.float64).dtype == lib.float64
    assert lib.linspace(-1, 1, 1).tolist() == [-1.0]


# ------------------------------------------------------------------ random
def test_rand_is_in_unit_interval():
    t = gs.rand(10_000)
    a = t.numpy()
    assert t.dtype == gs.float32 and a.min() >= 0.0 and a.max() < 1.0 and abs(a.mean() - 0.5) < 0.02


def test_randn_is_standard_normal():
    a = gs.randn(20_000).numpy()
    assert abs(a.mean()) < 0.05 and abs(a.std() - 1.0) < 0.05


def test_randint_forms(lib):
    t = lib.randint(10, (1000,))
    assert t.dtype == lib.int64 and t.shape == (1000,)
    assert 0 <= t.min().item() and t.max().item() < 10
    u = lib.randint(3, 6, (2, 50))
    assert u.shape == (2, 50) and 3 <= u.min().item() and u.max().item() < 6
    assert lib.randint(0, 5, size=(3,), dtype=lib.int32).dtype == lib.int32


def test_random_floats_of_integer_dtype_raise(lib):
    with pytest.raises(NotImplementedError):
        lib.rand(2, dtype=lib.int64)
    with pytest.raises(NotImplementedError):
        lib.randn(2, dtype=lib.int64)


def test_manual_seed_makes_draws_reproducible():
    gs.manual_seed(123)
    a = (gs.rand(5), gs.randn(3, dtype=gs.float64), gs.randint(0, 100, (4,)))
    gs.manual_seed(123)
    b = (gs.rand(5), gs.randn(3, dtype=gs.float64), gs.randint(0, 100, (4,)))
    for x, y in zip(a, b):
        assert x.tolist() == y.tolist()
    gs.manual_seed(124)
    assert gs.rand(5).tolist() != a[0].tolist()


def test_manual_seed_returns_a_generator(lib):
    g = lib.manual_seed(7)
    assert isinstance(g, lib.Generator) and g.initial_seed() == 7 and lib.initial_seed() == 7


def test_generator_has_the_device_it_draws_on(lib):
    # noahgolmant/pytorch-hessian-eigenthings: `generator is None or generator.device == a.device`
    assert lib.Generator().device == lib.zeros(1).device == lib.device("cpu")
    assert lib.Generator(device="cpu").device.type == "cpu" and lib.Generator(lib.device("cpu")).device.type == "cpu"
    with pytest.raises(RuntimeError):
        lib.Generator(device="nope")


def test_generator_argument_is_independent_of_global_state():
    g = gs.Generator().manual_seed(5)
    first = gs.rand(3, generator=g).tolist()
    gs.rand(100)
    assert gs.rand(3, generator=gs.Generator().manual_seed(5)).tolist() == first


def test_random_state_is_the_swappable_session_generator():
    saved = state.generator
    try:
        state.generator = gs.Generator().manual_seed(1)
        a = gs.randn(4).tolist()
        state.generator = gs.Generator().manual_seed(2)
        gs.randn(4)
        state.generator = gs.Generator().manual_seed(1)
        assert gs.randn(4).tolist() == a
    finally:
        state.generator = saved


def test_rng_state_round_trip():
    s = gs.get_rng_state()
    a = gs.rand(4).tolist()
    gs.set_rng_state(s)
    assert gs.rand(4).tolist() == a


# ------------------------------------------------------------------ limits
def test_element_limit_applies_to_creation():
    state.element_limit = 1000
    try:
        gs.zeros(1000)
        for make in (lambda: gs.zeros(1001), lambda: gs.ones(10, 101), lambda: gs.full((2000,), 1.0),
                     lambda: gs.randn(1001), lambda: gs.arange(2000), lambda: gs.eye(40),
                     lambda: gs.tensor([0.0] * 1001)):
            with pytest.raises(LimitExceeded) as info:
                make()
            assert info.value.limit == "tensor_elements"
    finally:
        state.element_limit = None


# ------------------------------------------------------------------ in-place random fills
def test_uniform_in_place(lib):
    x = lib.zeros(10_000)
    assert x.uniform_(-2.0, 3.0) is x
    a = x.numpy()
    assert a.min() >= -2.0 and a.max() < 3.0 and abs(a.mean() - 0.5) < 0.1


def test_normal_in_place(lib):
    a = lib.zeros(20_000, dtype=lib.float64).normal_(1.0, 2.0).numpy()
    assert abs(a.mean() - 1.0) < 0.1 and abs(a.std() - 2.0) < 0.1


def test_other_random_fills(lib):
    assert set(lib.zeros(1000).random_(3).tolist()) == {0.0, 1.0, 2.0}
    assert set(lib.zeros(1000, dtype=lib.int64).random_(5, 7).tolist()) == {5, 6}
    b = lib.zeros(10_000).bernoulli_(0.25).numpy()
    assert set(b.tolist()) == {0.0, 1.0} and abs(b.mean() - 0.25) < 0.03
    e = lib.zeros(20_000, dtype=lib.float64).exponential_(2.0).numpy()
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.05


@pytest.mark.parametrize("call, message", [
    (lambda T: T.bernoulli(T.tensor([2.0])), "Expected p_in >= 0 && p_in <= 1 to be true, but got false."),
    (lambda T: T.bernoulli(T.tensor([0.5, -0.5])), "Expected p_in >= 0 && p_in <= 1 to be true, but got false."),
    (lambda T: T.bernoulli(T.tensor([float("nan")])), "Expected p_in >= 0 && p_in <= 1 to be true, but got false."),
    (lambda T: T.bernoulli(T.tensor([0.5]), 1.5), "bernoulli_ expects p to be in [0, 1], but got p=1.5"),
    (lambda T: T.bernoulli(T.tensor([0.5]), p=float("nan")), "bernoulli_ expects p to be in [0, 1], but got p=nan"),
    (lambda T: T.zeros(3).bernoulli_(2.0), "bernoulli_ expects p to be in [0, 1], but got p=2"),
    (lambda T: T.zeros(3).bernoulli_(-0.1), "bernoulli_ expects p to be in [0, 1], but got p=-0.1"),
    (lambda T: T.zeros(1).bernoulli_(T.tensor([2.0])), "Expected p_in >= 0 && p_in <= 1 to be true, but got false."),
])
def test_bernoulli_refuses_probabilities_outside_zero_one(lib, call, message):
    """Hostile pass 16 left it open: p = 2 drew 1s, p = -0.5 or NaN drew 0s; PyTorch raises."""
    with pytest.raises(RuntimeError, match=re.escape(message)):
        call(lib)


def test_bernoulli_of_probabilities_at_the_bounds_is_exact(lib):
    assert lib.bernoulli(lib.tensor([1.0, 0.0, 1.0], dtype=lib.float64)).tolist() == [1.0, 0.0, 1.0]
    assert lib.bernoulli(lib.tensor([[0.3], [0.6]]), p=1.0).tolist() == [[1.0], [1.0]]
    assert lib.zeros(4).bernoulli_(0).tolist() == [0.0] * 4


def test_random_fill_of_leaf_requiring_grad_raises(lib):
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        lib.zeros(2, requires_grad=True).uniform_()


def test_random_fills_follow_manual_seed():
    gs.manual_seed(3)
    a = gs.zeros(5).normal_().tolist()
    gs.manual_seed(3)
    assert gs.zeros(5).normal_().tolist() == a


def test_random_fill_bumps_the_version():
    x = gs.zeros(3)
    v = x._version[0]
    x.uniform_()
    assert x._version[0] == v + 1


# ------------------------------------------------------------------ tensor(data): plain numbers at C speed
PLAIN = [
    [1.0, 2, True], [True, False, True], [1, True], [[1, 2], [3, 4]], ((1.5, 2), (3, 4)), [(1, 2), [3, 4.0]],
    [[[True], [False]], [[True], [True]]], [[[1], [2]], [[3], [4]]], [[0.5] * 7] * 3, [2 ** 40, -3],
    [[1.0, 2.0], (3, False)],
]


@pytest.mark.parametrize("data", PLAIN)
def test_nested_plain_numbers_give_pytorchs_dtype_and_values(lib, data):
    t = lib.tensor(data)
    expected = {"float": lib.float32, "int": lib.int64, "bool": lib.bool}[
        "float" if "float" in repr(_leaf_types(data)) else "int" if "int" in repr(_leaf_types(data)) else "bool"]
    assert t.dtype == expected
    assert np.array_equal(t.numpy(), np.array(data, dtype=t.numpy().dtype))


def _leaf_types(data):
    if isinstance(data, (list, tuple)):
        return set().union(*(_leaf_types(x) for x in data))
    return {type(data).__name__}


def test_nested_plain_numbers_follow_the_default_dtype(lib):
    old = lib.get_default_dtype()
    lib.set_default_dtype(lib.float64)
    try:
        assert lib.tensor([[1, 2.5], [3, 4]]).dtype == lib.float64
        assert lib.tensor([[1, 2], [3, 4]]).dtype == lib.int64
    finally:
        lib.set_default_dtype(old)


def test_nested_plain_numbers_are_not_walked_an_element_at_a_time(monkeypatch):
    """Regular nesting of Python numbers is typed a depth at a time (set(map(type, ...))): the
    element walk, seconds of host code for ten million floats, is not entered."""
    from gradserve.engine.ops import creation

    def walked(x):
        raise AssertionError("the element walk ran")
    monkeypatch.setattr(creation, "_scalar_dtype", walked)
    assert gs.tensor([[1.0, 2.0]] * 1000).shape == (1000, 2)
    assert gs.tensor([True] * 10).dtype == gs.bool
    with pytest.raises(AssertionError, match="element walk"):   # anything else still is
        gs.tensor([np.float64(1.0), 2.0])


@pytest.mark.parametrize("data, message", [
    ([[1, 2], [3]], "expected sequence of length 2 at dim 1 (got 1)"),
    ([[1, 2], (3, 4, 5)], "expected sequence of length 2 at dim 1 (got 3)"),
    ([[[1.0], [2.0]], [[1.0], [2.0, 3.0]]], "expected sequence of length 1 at dim 2 (got 2)"),
])
def test_ragged_plain_numbers_still_raise_pytorchs_value_error(lib, data, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        lib.tensor(data)


@pytest.mark.parametrize("data, message", [([[1.0, 2.0], [3.0, [4.0]]], "must be real number, not list"),
                                           ([[1.0, 2.0], 3.0], "not a sequence")])
def test_a_number_and_a_row_in_each_others_place_raise_pytorchs_type_error(lib, data, message):
    with pytest.raises(TypeError, match=message):
        lib.tensor(data)


@pytest.mark.parametrize("data, name", [([1.0, None], "NoneType"), ([[1, "a"]], "str")])
def test_plain_numbers_beside_other_types_still_raise_type_error(data, name):
    with pytest.raises(TypeError, match=f"Could not infer dtype of {name}"):
        gs.tensor(data)


@pytest.mark.parametrize("call", [
    lambda T: T.zeros(2.5), lambda T: T.ones(True), lambda T: T.zeros((2, 1.5)), lambda T: T.full(2.5, 1.0),
    lambda T: T.randn(2.5), lambda T: T.zeros(T.tensor(2.0)), lambda T: T.eye(2.5),
])
def test_sizes_that_are_not_integers_raise_type_error(lib, call):
    with pytest.raises(TypeError):
        call(lib)


def test_sizes_accept_integer_tensors_and_bools_inside_a_tuple(lib):
    assert tuple(lib.zeros(lib.tensor(2)).shape) == (2,)
    assert tuple(lib.zeros((2, lib.tensor([3]))).shape) == (2, 3)
    assert tuple(lib.zeros((2, True)).shape) == (2, 1)


def test_tensor_of_integers_past_the_dtype_range(lib):
    assert lib.tensor([-1], dtype=lib.uint8).tolist() == [255]
    with pytest.raises(RuntimeError, match="without overflow"):
        lib.tensor([300], dtype=lib.uint8)
    with pytest.raises(RuntimeError, match="without overflow"):
        lib.tensor([2 ** 31], dtype=lib.int32)
    with pytest.raises(ValueError, match="Overflow"):
        lib.tensor([2 ** 64])
