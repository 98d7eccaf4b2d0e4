"""Elementwise ops: values, first and second derivatives (with broadcasting),
PyTorch's choices at kinks and ties, integer division, erf's accuracy,
in-place variants, each against PyTorch where it is installed."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import gradserve.engine as gs
from gradserve.engine.ops import elementwise as E
from op_check import check_gradients, compare_with_torch, torch, values

def version(t):
    """A tensor's version counter in either library."""
    return t._version if isinstance(t._version, int) else t._version[0]


needs_torch = [pytest.mark.torch, pytest.mark.skipif(torch is None, reason="PyTorch is not installed")]


# Standard normal inputs mapped into an op's domain with smooth maps.
def pos(x):
    return x * x + 0.5          # > 0: log, sqrt, pow bases


def unit(x):
    return x.tanh() * 0.9       # in (-0.9, 0.9): asin, acos, tan


def away(x):
    return x + 0.5 * x.sign()   # |.| >= 0.5: divisors


# one line per op: (name, fn(T, *inputs), input shapes)
OPS = [
    ("add", lambda T, x, y: x + y, [(2, 3), (2, 3)]),
    ("add broadcast", lambda T, x, y: x + y, [(3, 1), (4,)]),
    ("add 0-d", lambda T, x, y: x + y, [(2, 3), ()]),
    ("add scalar", lambda T, x: 2.5 + x, [(3,)]),
    ("add alpha", lambda T, x, y: T.add(x, y, alpha=-2), [(2, 3), (3,)]),
    ("add method alpha", lambda T, x, y: x.add(y, alpha=0.5), [(2, 3), (2, 1)]),
    ("sub", lambda T, x, y: x - y, [(2, 3), (2, 3)]),
    ("sub broadcast", lambda T, x, y: x - y, [(2, 1, 3), (4, 1)]),
    ("rsub scalar", lambda T, x: 1 - x, [(3,)]),
    ("sub alpha", lambda T, x, y: T.sub(x, y, alpha=3), [(3,), (3,)]),
    ("subtract", lambda T, x, y: T.subtract(x, y), [(3,), (1,)]),
    ("mul", lambda T, x, y: x * y, [(2, 3), (2, 3)]),
    ("mul broadcast both", lambda T, x, y: x * y, [(3, 1), (1, 4)]),
    ("mul scalar", lambda T, x: x * 3, [(3,)]),
    ("mul self", lambda T, x: x * x, [(3,)]),
    ("multiply", lambda T, x, y: T.multiply(x, y), [(2, 3), ()]),
    ("div", lambda T, x, y: x / away(y), [(2, 3), (2, 3)]),
    ("div broadcast", lambda T, x, y: x / away(y), [(2, 3), (3,)]),
    ("rdiv scalar", lambda T, x: 2 / away(x), [(3,)]),
    ("div scalar", lambda T, x: x / 4, [(3,)]),
    ("torch.div", lambda T, x, y: T.div(x, away(y)), [(2, 3), (2, 1)]),
    ("true_divide", lambda T, x, y: T.true_divide(x, away(y)), [(3,), (3,)]),
    ("divide method", lambda T, x, y: x.divide(away(y)), [(3,), (3,)]),
    ("div floor", lambda T, x, y: T.div(x * 3, away(y), rounding_mode="floor"), [(3,), (3,)]),
    ("div trunc", lambda T, x, y: x.div(away(y), rounding_mode="trunc"), [(3,), (3,)]),
    ("remainder scalar", lambda T, x: (x * 3) % 1.5, [(2, 3)]),
    ("remainder tensor", lambda T, x, y: T.remainder(x * 3, pos(y)), [(2, 3), (3,)]),
    ("fmod", lambda T, x, y: T.fmod(x * 3, pos(y)), [(2, 3), (2, 3)]),
    ("pow scalar", lambda T, x: pos(x) ** 2.5, [(2, 3)]),
    ("pow int", lambda T, x: x ** 3, [(2, 3)]),
    ("pow zero", lambda T, x: x ** 0, [(3,)]),
    ("pow tensor", lambda T, x, y: pos(x) ** y, [(2, 3), (2, 3)]),
    ("pow broadcast", lambda T, x, y: T.pow(pos(x), y), [(2, 3), (3,)]),
    ("rpow", lambda T, x: 2 ** x, [(3,)]),
    ("pow method", lambda T, x: x.pow(2), [(3,)]),
    ("neg", lambda T, x: -x, [(2, 3)]),
    ("neg method", lambda T, x: x.neg(), [(3,)]),
    ("negative", lambda T, x: T.negative(x), [(3,)]),
    ("abs", lambda T, x: T.abs(x), [(2, 3)]),
    ("abs builtin", lambda T, x: abs(x), [(3,)]),
    ("absolute", lambda T, x: x.absolute(), [(3,)]),
    ("exp", lambda T, x: T.exp(x), [(2, 3)]),
    ("exp2", lambda T, x: T.exp2(x), [(3,)]),
    ("expm1", lambda T, x: x.expm1(), [(2, 3)]),
    ("log", lambda T, x: T.log(pos(x)), [(2, 3)]),
    ("log2", lambda T, x: pos(x).log2(), [(3,)]),
    ("log10", lambda T, x: T.log10(pos(x)), [(3,)]),
    ("log1p", lambda T, x: T.log1p(pos(x)), [(2, 3)]),
    ("sqrt", lambda T, x: T.sqrt(pos(x)), [(2, 3)]),
    ("rsqrt", lambda T, x: pos(x).rsqrt(), [(2, 3)]),
    ("square", lambda T, x: T.square(x), [(3,)]),
    ("reciprocal", lambda T, x: T.reciprocal(away(x)), [(2, 3)]),
    ("sin", lambda T, x: T.sin(x), [(2, 3)]),
    ("cos", lambda T, x: x.cos(), [(2, 3)]),
    ("tan", lambda T, x: T.tan(unit(x)), [(2, 3)]),
    ("asin", lambda T, x: T.asin(unit(x)), [(3,)]),
    ("acos", lambda T, x: T.acos(unit(x)), [(3,)]),
    ("atan", lambda T, x: x.atan(), [(3,)]),
    ("sinh", lambda T, x: T.sinh(x), [(3,)]),
    ("cosh", lambda T, x: T.cosh(x), [(3,)]),
    ("tanh", lambda T, x: T.tanh(x), [(2, 3)]),
    ("sigmoid", lambda T, x: T.sigmoid(x * 3), [(2, 3)]),
    ("sigmoid method", lambda T, x: x.sigmoid(), [(3,)]),
    ("relu", lambda T, x: T.relu(x), [(2, 3)]),
    ("relu method", lambda T, x: x.relu(), [(3,)]),
    ("erf", lambda T, x: T.erf(x), [(2, 3)]),
    ("erfc", lambda T, x: x.erfc(), [(2, 3)]),
    ("frac", lambda T, x: T.frac(x * 3), [(3,)]),
    ("sign", lambda T, x: T.sign(x), [(3,)]),
    ("sgn", lambda T, x: x.sgn() + x, [(3,)]),  # + x: torch hands back a ZeroTensor for sgn alone
    ("floor", lambda T, x: T.floor(x * 3), [(2, 3)]),
    ("ceil", lambda T, x: x.mul(3).ceil(), [(2, 3)]),
    ("round", lambda T, x: T.round(x * 3), [(2, 3)]),
    ("round decimals", lambda T, x: T.round(x, decimals=1), [(3,)]),
    ("trunc", lambda T, x: T.trunc(x * 3), [(3,)]),
    ("clamp", lambda T, x: T.clamp(x, -0.5, 0.5), [(2, 3)]),
    ("clamp min", lambda T, x: x.clamp(min=0.1), [(2, 3)]),
    ("clamp max", lambda T, x: x.clamp(max=-0.1), [(2, 3)]),
    ("clip", lambda T, x: T.clip(x, -1, 1), [(2, 3)]),
    ("clamp tensors", lambda T, x, lo, hi: T.clamp(x, lo - 0.5, hi + 0.5), [(3, 4), (3, 4), (3, 4)]),
    ("clamp tensor min", lambda T, x, lo: x.clamp(min=lo), [(3, 4), (4,)]),
    ("clamp tensor max", lambda T, x, hi: T.clamp(x, max=hi), [(3, 4), (3, 1)]),
    ("clamp_min", lambda T, x: T.clamp_min(x, 0.1), [(3,)]),
    ("clamp_max", lambda T, x: x.clamp_max(0.1), [(3,)]),
    ("maximum", lambda T, x, y: T.maximum(x, y), [(2, 3), (2, 3)]),
    ("maximum broadcast", lambda T, x, y: x.maximum(y), [(3, 1), (4,)]),
    ("minimum", lambda T, x, y: T.minimum(x, y), [(2, 3), (2, 3)]),
    ("minimum broadcast", lambda T, x, y: T.minimum(x, y), [(2, 3), ()]),
    ("fmax", lambda T, x, y: T.fmax(x, y), [(2, 3), (3,)]),
    ("fmin", lambda T, x, y: x.fmin(y), [(2, 3), (2, 3)]),
    ("where", lambda T, x, y: T.where(x > 0, x, y), [(2, 3), (2, 3)]),
    ("where broadcast", lambda T, x, y: T.where(y > 0, x, y), [(2, 3), (3,)]),
    ("where scalar", lambda T, x: T.where(x > 0, x, 0.0), [(2, 3)]),
    ("where method", lambda T, x, y: x.where(x > 0, y), [(2, 3), (2, 3)]),
    ("atan2", lambda T, x, y: T.atan2(x, y), [(2, 3), (2, 3)]),
    ("lerp scalar weight", lambda T, x, y: T.lerp(x, y, 0.3), [(2, 3), (2, 3)]),
    ("lerp tensor weight", lambda T, x, y, w: x.lerp(y, w), [(2, 3), (2, 3), (3,)]),
    ("addcmul", lambda T, x, y, z: T.addcmul(x, y, z, value=0.5), [(2, 3), (2, 3), (3,)]),
    ("addcdiv", lambda T, x, y, z: x.addcdiv(y, away(z), value=2), [(2, 3), (2, 3), (2, 3)]),
    ("xlogy", lambda T, x, y: T.xlogy(x, pos(y)), [(2, 3), (2, 3)]),
    ("hypot", lambda T, x, y: T.hypot(x, y), [(2, 3), (2, 3)]),
    ("logaddexp", lambda T, x, y: T.logaddexp(x, y), [(2, 3), (3,)]),
    ("chain", lambda T, x, y: (x.sin() * y.exp() - x / away(y)).tanh(), [(2, 3), (2, 3)]),
]


@pytest.mark.parametrize("fn, shapes", [pytest.param(f, s, id=n) for n, f, s in OPS])
def test_gradients_match_finite_differences(fn, shapes):
    check_gradients(fn, shapes)


@pytest.mark.parametrize("fn, shapes", [pytest.param(f, s, id=n, marks=needs_torch) for n, f, s in OPS])
def test_values_and_gradients_match_torch(fn, shapes):
    compare_with_torch(fn, shapes)


# ------------------------------------------------------------------ values against NumPy
UNARY = [
    # name, NumPy reference, domain
    ("exp", np.exp, "any"), ("exp2", np.exp2, "any"), ("expm1", np.expm1, "any"),
    ("log", np.log, "pos"), ("log2", np.log2, "pos"), ("log10", np.log10, "pos"),
    ("log1p", np.log1p, "pos"), ("sqrt", np.sqrt, "pos"), ("rsqrt", lambda x: 1 / np.sqrt(x), "pos"),
    ("square", np.square, "any"), ("reciprocal", np.reciprocal, "pos"), ("sin", np.sin, "any"),
    ("cos", np.cos, "any"), ("tan", np.tan, "unit"), ("asin", np.arcsin, "unit"),
    ("acos", np.arccos, "unit"), ("atan", np.arctan, "any"), ("sinh", np.sinh, "any"),
    ("cosh", np.cosh, "any"), ("tanh", np.tanh, "any"), ("sigmoid", lambda x: 1 / (1 + np.exp(-x)), "any"),
    ("relu", lambda x: np.maximum(x, 0), "any"), ("abs", np.abs, "any"), ("neg", np.negative, "any"),
    ("sign", np.sign, "any"), ("floor", np.floor, "any"), ("ceil", np.ceil, "any"),
    ("round", np.round, "any"), ("trunc", np.trunc, "any"), ("frac", lambda x: x - np.trunc(x), "any"),
    ("erf", np.vectorize(math.erf), "any"), ("erfc", np.vectorize(math.erfc), "any"),
]
DOMAINS = {"any": lambda r: r.standard_normal(50) * 3, "pos": lambda r: r.uniform(0.01, 10, 50),
           "unit": lambda r: r.uniform(-0.99, 0.99, 50)}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, ref, domain", [pytest.param(*u, id=u[0]) for u in UNARY])
def test_unary_values_match_numpy(name, ref, domain, dtype):
    data = DOMAINS[domain](np.random.default_rng(1)).astype(dtype)
    out = getattr(gs, name)(gs.tensor(data))
    assert out.dtype is getattr(gs, dtype)
    np.testing.assert_allclose(values(out), ref(data.astype(np.float64)), rtol=2e-6 if dtype == "float32" else 1e-13,
                               atol=1e-7 if dtype == "float32" else 1e-15)


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "sigmoid", "tanh", "erf", "rsqrt"])
def test_float_ops_on_integers_compute_in_default_dtype(lib, name):
    out = getattr(lib, name)(lib.tensor([1, 2, 3]))
    assert out.dtype == lib.float32


@pytest.mark.parametrize("name", ["abs", "neg", "square", "relu", "sign", "floor", "round"])
def test_integer_preserving_ops_keep_integers(lib, name):
    out = getattr(lib, name)(lib.tensor([-2, 0, 3]))
    assert out.dtype == lib.int64


# ------------------------------------------------------------------ PyTorch's choices
def grads(lib, fn, *data):
    xs = [lib.tensor(d, dtype=lib.float64, requires_grad=True) for d in data]
    fn(*xs).sum().backward()
    return [x.grad.tolist() for x in xs]


def test_relu_gradient_at_zero_is_zero(lib):
    assert grads(lib, lib.relu, [-1.0, 0.0, 2.0]) == [[0.0, 0.0, 1.0]]


def test_abs_gradient_at_zero_is_zero(lib):
    assert grads(lib, lib.abs, [-1.0, 0.0, 2.0]) == [[-1.0, 0.0, 1.0]]


def test_clamp_passes_gradient_at_its_bounds(lib):
    assert grads(lib, lambda x: x.clamp(1, 2), [0.0, 1.0, 2.0, 3.0]) == [[0.0, 1.0, 1.0, 0.0]]
    assert grads(lib, lambda x: x.clamp(min=1), [0.0, 1.0, 2.0]) == [[0.0, 1.0, 1.0]]
    assert grads(lib, lambda x: x.clamp(max=1), [0.0, 1.0, 2.0]) == [[1.0, 1.0, 0.0]]


def test_clamp_with_tensor_bounds_gives_each_bound_its_share(lib):
    # the last two columns have min > max: the result is max, and max takes the gradient
    x, lo, hi = grads(lib, lambda x, lo, hi: lib.clamp(x, lo, hi),
                      [0.0, 1.0, 2.0, 3.0], [1.0, 1.0, 3.0, 3.0], [2.0, 2.0, 2.0, 2.0])
    assert x == [0.0, 1.0, 0.0, 0.0]
    assert lo == [1.0, 0.0, 0.0, 0.0]
    assert hi == [0.0, 0.0, 1.0, 1.0]


def test_clamp_with_min_above_max_gives_max(lib):
    assert lib.clamp(lib.tensor([0.0, 5.0, 10.0]), 6, 4).tolist() == [4.0, 4.0, 4.0]


@pytest.mark.parametrize("name, a_grad, b_grad", [
    ("maximum", [0.5, 0.0, 1.0], [0.5, 1.0, 0.0]),
    ("minimum", [0.5, 1.0, 0.0], [0.5, 0.0, 1.0]),
])
def test_maximum_and_minimum_split_ties_evenly(lib, name, a_grad, b_grad):
    assert grads(lib, getattr(lib, name), [1.0, 2.0, 5.0], [1.0, 3.0, 4.0]) == [a_grad, b_grad]


def test_maximum_with_nan_gives_both_inputs_the_gradient(lib):
    assert grads(lib, lib.maximum, [1.0, 2.0], [1.0, math.nan]) == [[0.5, 1.0], [0.5, 1.0]]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_pow_gradients_at_zero_base(lib):
    assert grads(lib, lambda x: x ** 0, [0.0, 2.0]) == [[0.0, 0.0]]
    assert grads(lib, lambda x: x ** 0.5, [0.0, 4.0]) == [[math.inf, 0.25]]
    assert grads(lib, lambda x: x ** lib.tensor([0.0, 1.0], dtype=lib.float64), [0.0, 2.0]) == [[0.0, 1.0]]
    # d/db 0 ** b is 0 where b >= 0, -inf where b < 0
    assert grads(lib, lambda b: lib.zeros(3, dtype=lib.float64) ** b, [0.0, -1.0, 0.5]) == [[0.0, -math.inf, 0.0]]
    assert grads(lib, lambda b: 0 ** b, [0.0, 2.0]) == [[0.0, 0.0]]


def test_pow_exponent_gradient_of_negative_scalar_base_is_nan(lib):
    (g,) = grads(lib, lambda b: (-1) ** b, [1.0, 2.0])
    assert all(math.isnan(v) for v in g)


def test_piecewise_constant_ops_have_zero_gradient(lib):
    for fn in (lib.sign, lib.floor, lib.ceil, lib.round, lib.trunc):
        assert grads(lib, fn, [-1.5, 0.0, 0.3, 2.5]) == [[0.0] * 4]


def test_rounding_division_has_zero_gradient(lib):
    for mode in ("floor", "trunc"):
        assert grads(lib, lambda a, b: lib.div(a, b, rounding_mode=mode), [3.0, -3.0], [2.0, 2.0]) == [[0.0] * 2] * 2


@pytest.mark.skipif(torch is None, reason="PyTorch is the oracle")
@pytest.mark.parametrize("decimals", [2, -1, -2, 38, 39, -38, -39, 308, 309, 400, -308, -309, -400, 10**9])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_round_decimals_follows_pytorchs_arithmetic_past_the_float_range(decimals, dtype):
    """decimals past 308 raised OverflowError (10.0 ** 400); PyTorch's arithmetic gives NaN there (and
    past 38 in float32), and rounds x / 10^-d for negative decimals (-309: NaN, not 0)."""
    data = [1 / 3, 2.5, -1234.5678, 1e30, 0.0]
    got = gs.round(gs.tensor(data, dtype=getattr(gs, dtype)), decimals=decimals).tolist()
    expected = torch.round(torch.tensor(data, dtype=getattr(torch, dtype)), decimals=decimals).tolist()
    assert np.allclose(got, expected, rtol=1e-6, equal_nan=True), (got, expected)


def test_round_is_half_to_even(lib):
    assert lib.round(lib.tensor([0.5, 1.5, 2.5, -0.5, -1.5])).tolist() == [0.0, 2.0, 2.0, -0.0, -2.0]


def test_sigmoid_is_exact_at_zero_and_saturates_without_overflow(lib):
    out = lib.sigmoid(lib.tensor([0.0, -1000.0, 1000.0]))
    assert out.tolist() == [0.5, 0.0, 1.0]


# ------------------------------------------------------------------ integer arithmetic
def test_true_division_of_integers_gives_default_float(lib):
    out = lib.tensor([1, 2]) / lib.tensor([2, 2])
    assert out.dtype == lib.float32 and out.tolist() == [0.5, 1.0]
    assert (lib.tensor([3]) / 2).dtype == lib.float32
    assert (3 / lib.tensor([2])).dtype == lib.float32
    assert (lib.tensor([True]) / lib.tensor([True])).dtype == lib.float32


def test_true_division_of_integers_follows_a_0d_float64(lib):
    out = lib.tensor([1, 2]) / lib.tensor(2.0, dtype=lib.float64)
    assert out.dtype == lib.float64


def test_floor_division_floors(lib):
    assert (lib.tensor([5, -5, 5, -5]) // lib.tensor([3, 3, -3, -3])).tolist() == [1, -2, -2, 1]
    assert (lib.tensor([5.5, -5.5]) // 2).tolist() == [2.0, -3.0]
    assert (7 // lib.tensor([2, -2])).tolist() == [3, -4]


def test_remainder_takes_the_sign_of_the_divisor(lib):
    assert (lib.tensor([5, -5]) % 3).tolist() == [2, 1]
    assert (lib.tensor([5.0, -5.0]) % -3).tolist() == [-1.0, -2.0]
    assert lib.fmod(lib.tensor([5.0, -5.0]), -3).tolist() == [2.0, -2.0]


@pytest.mark.parametrize("op", [
    pytest.param(lambda L: L.tensor([1, 2]) // 0, id="floordiv scalar"),
    pytest.param(lambda L: L.tensor([1, 2]) // L.tensor([1, 0]), id="floordiv tensor"),
    pytest.param(lambda L: L.tensor([1, 2]) % 0, id="remainder"),
    pytest.param(lambda L: L.div(L.tensor([1, 2]), 0, rounding_mode="trunc"), id="div trunc"),
])
def test_integer_division_by_zero_raises(lib, op):
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        op(lib)


def test_float_floor_division_by_zero_gives_infinity(lib):
    with np.errstate(divide="ignore"):
        assert (lib.tensor([1.0, -1.0]) // 0).tolist() == [math.inf, -math.inf]


def test_division_rounding_modes_on_integers(lib):
    a, b = lib.tensor([-7, 7, -6]), lib.tensor([2, 2, 3])
    assert lib.div(a, b, rounding_mode="trunc").tolist() == [-3, 3, -2]
    assert lib.div(a, b, rounding_mode="floor").tolist() == [-4, 3, -2]
    assert lib.div(a, b, rounding_mode="trunc").dtype == lib.int64


def test_integer_power(lib):
    assert (lib.tensor([1, 2, 3]) ** 2).tolist() == [1, 4, 9]
    assert (2 ** lib.tensor([1, 2])).dtype == lib.int64
    assert (lib.tensor([1, 2]) ** 2.5).dtype == lib.float32
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        lib.tensor([1, 2]) ** -1


def test_integer_power_with_negative_tensor_exponent_truncates(lib):
    out = lib.tensor([1, -1, 2, 3]) ** lib.tensor([-2, -3, -1, 2])
    assert out.tolist() == [1, -1, 0, 9]


@pytest.mark.parametrize("op, message", [
    (lambda L: L.tensor([True]) - L.tensor([False]), "Subtraction, the `-` operator, with two bool tensors"),
    (lambda L: L.tensor([True]) - 1, "Subtraction, the `-` operator, with a bool tensor"),
    (lambda L: L.tensor([1.0]) - L.tensor([True]), "Subtraction, the `-` operator, with a bool tensor"),
    (lambda L: -L.tensor([True]), "Negation, the `-` operator, on a bool tensor"),
    (lambda L: L.tensor([1.0]) & L.tensor([1.0]), "not implemented for 'Float'"),
])
def test_unsupported_dtype_combinations_raise(lib, op, message):
    with pytest.raises(RuntimeError, match=message):
        op(lib)


def test_bool_arithmetic(lib):
    t, f = lib.tensor([True, False]), lib.tensor([True, True])
    assert (t + f).tolist() == [True, True] and (t + f).dtype == lib.bool
    assert (t * f).tolist() == [True, False]
    assert (t + 1).dtype == lib.int64


# ------------------------------------------------------------------ erf
def test_erf_is_accurate_to_float64_precision():
    x = np.concatenate([np.linspace(-7, 7, 20001), [0.0, 1e-300, -1e-20, 0.46875, -0.46875, 4.0, -4.0,
                                                    5.9, 26.5, 27.0, 1e10, -1e10]])
    exact = np.array([math.erf(v) for v in x])
    got = values(gs.erf(gs.tensor(x, dtype=gs.float64)))
    np.testing.assert_allclose(got, exact, rtol=1e-15, atol=0)


def test_erfc_is_accurate_in_the_tails():
    x = np.concatenate([np.linspace(-6, 26, 20001), [0.0, 0.46875, 4.0, 26.5, 27.0, 27.5]])
    exact = np.array([math.erfc(v) for v in x])
    got = values(gs.erfc(gs.tensor(x, dtype=gs.float64)))
    np.testing.assert_allclose(got, exact, rtol=1e-14, atol=1e-320)  # relative, down to the subnormals


def test_sign_of_nan_is_zero_and_of_bools_is_themselves_as_pytorch():
    # PyTorch's sign is (0 < x) - (x < 0): torchattacks' UPGD divides a zero gradient by its mean, 0/0, and
    # steps by its sign, 0 there; NumPy's sign gives NaN, which then spread through every later step
    special = [math.nan, -0.0, 0.0, 2.5, -math.inf, math.inf]
    for dtype in (gs.float32, gs.float64):
        x = gs.tensor(special, dtype=dtype)
        for out in (gs.sign(x), gs.sgn(x), x.sign(), x.clone().sign_()):
            assert values(out).tolist() == [0.0, 0.0, 0.0, 1.0, -1.0, 1.0] and out.dtype == dtype
    assert gs.sign(gs.tensor([True, False])).tolist() == [True, False]
    assert gs.sign(gs.tensor([-3, 0, 5])).tolist() == [-1, 0, 1]
    if torch is not None:
        for dtype in (torch.float32, torch.float64):
            assert torch.sign(torch.tensor(special, dtype=dtype)).tolist() == [0.0, 0.0, 0.0, 1.0, -1.0, 1.0]
        assert torch.sign(torch.tensor([True, False])).tolist() == [True, False]


def test_erf_special_values():
    out = values(gs.erf(gs.tensor([math.inf, -math.inf, math.nan, 0.0, -0.0], dtype=gs.float64)))
    assert out[:2].tolist() == [1.0, -1.0] and math.isnan(out[2]) and out[3] == 0 and math.copysign(1, out[4]) == -1
    out = values(gs.erfc(gs.tensor([math.inf, -math.inf, math.nan], dtype=gs.float64)))
    assert out[:2].tolist() == [0.0, 2.0] and math.isnan(out[2])


def test_erf_keeps_float32():
    out = gs.erf(gs.tensor([0.5, -2.0]))
    assert out.dtype is gs.float32
    np.testing.assert_allclose(values(out), [math.erf(0.5), math.erf(-2.0)], rtol=1e-7)


# ------------------------------------------------------------------ comparisons and logic
def test_comparisons_give_bool_without_grad(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for out in (x == 2, x != 2, x < 2, x <= 2, x > 2, x >= 2, lib.eq(x, 2), x.gt(1.5), lib.less_equal(x, 2)):
        assert out.dtype == lib.bool and not out.requires_grad
    assert (x > 1.5).tolist() == [False, True, True]
    assert lib.greater_equal(x, lib.tensor([3.0, 2.0, 1.0])).tolist() == [False, True, True]


def test_comparisons_promote_before_comparing(lib):
    assert (lib.tensor([1, 2]) == 1.0).tolist() == [True, False]
    assert (lib.tensor([1, 2]) < 1.5).tolist() == [True, False]
    assert (lib.tensor([1, 2], dtype=lib.int32) == lib.tensor([1.0, 2.5])).tolist() == [True, False]


def test_comparison_with_none_is_false(lib):
    x = lib.tensor([1.0])
    assert (x == None) is False  # noqa: E711
    assert (x != None) is True  # noqa: E711


def test_logical_and_bitwise_ops(lib):
    a, b = lib.tensor([True, True, False]), lib.tensor([True, False, False])
    assert lib.logical_and(a, b).tolist() == [True, False, False]
    assert lib.logical_or(a, b).tolist() == [True, True, False]
    assert lib.logical_xor(a, b).tolist() == [False, True, False]
    assert lib.logical_not(a).tolist() == [False, False, True]
    assert (~a).tolist() == [False, False, True]
    assert (a & b).tolist() == [True, False, False] and (a | b).tolist() == [True, True, False]
    assert (a ^ b).tolist() == [False, True, False]
    assert (~lib.tensor([0, 5])).tolist() == [-1, -6]
    assert (lib.tensor([6, 3]) & 5).tolist() == [4, 1]
    assert lib.logical_and(lib.tensor([1.0, 0.0]), lib.tensor([2, 2])).tolist() == [True, False]


def test_nan_and_inf_predicates(lib):
    x = lib.tensor([1.0, math.nan, math.inf, -math.inf])
    assert lib.isnan(x).tolist() == [False, True, False, False]
    assert lib.isinf(x).tolist() == [False, False, True, True]
    assert x.isfinite().tolist() == [True, False, False, False]
    assert lib.nan_to_num(x, nan=0.0, posinf=9.0, neginf=-9.0).tolist() == [1.0, 0.0, 9.0, -9.0]


def test_isclose_allclose_equal(lib):
    a = lib.tensor([1.0, 2.0])
    assert lib.isclose(a, a + 1e-9).tolist() == [True, True]
    assert lib.allclose(a, lib.tensor([1.0, 2.1])) is False
    assert lib.equal(a, lib.tensor([1.0, 2.0])) is True
    assert lib.equal(a, lib.tensor([1.0])) is False


def test_where_with_two_numbers_gives_default_dtypes(lib):
    cond = lib.tensor([True, False])
    assert lib.where(cond, 1.0, 0).dtype == lib.float32
    assert lib.where(cond, 1, 0).dtype == lib.int64
    assert lib.where(cond, 1.0, 0).tolist() == [1.0, 0.0]


# ------------------------------------------------------------------ composite helpers
def test_add_with_alpha_and_addcmul_addcdiv_lerp_values(lib):
    x, y, z = lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0]), lib.tensor([2.0, 8.0])
    assert lib.add(x, y, alpha=2).tolist() == [7.0, 10.0]
    assert lib.sub(x, y, alpha=0.5).tolist() == [-0.5, 0.0]
    assert lib.addcmul(x, y, z, value=0.5).tolist() == [4.0, 18.0]
    assert lib.addcdiv(x, y, z, value=2).tolist() == [4.0, 3.0]
    assert lib.lerp(x, y, 0.25).tolist() == [1.5, 2.5]
    assert lib.lerp(x, y, lib.tensor([0.0, 1.0])).tolist() == [1.0, 4.0]


# ------------------------------------------------------------------ in place
@pytest.mark.parametrize("name, args, expected", [
    ("add_", (1.0,), [2.0, 3.0]), ("sub_", (1.0,), [0.0, 1.0]), ("mul_", (3.0,), [3.0, 6.0]),
    ("div_", (2.0,), [0.5, 1.0]), ("pow_", (2,), [1.0, 4.0]), ("clamp_", (1.5, 3.0), [1.5, 2.0]),
    ("clamp_min_", (1.5,), [1.5, 2.0]), ("neg_", (), [-1.0, -2.0]), ("sqrt_", (), [1.0, 2 ** 0.5]),
    ("fill_", (7.0,), [7.0, 7.0]), ("zero_", (), [0.0, 0.0]), ("abs_", (), [1.0, 2.0]),
    ("addcmul_", (gs.tensor([1.0, 1.0]), gs.tensor([2.0, 2.0])), [3.0, 4.0]),
    ("lerp_", (gs.tensor([3.0, 4.0]), 0.5), [2.0, 3.0]),
])
def test_in_place_ops_write_values_and_bump_the_version(name, args, expected):
    x = gs.tensor([1.0, 2.0])
    out = getattr(x, name)(*args)
    assert out is x
    np.testing.assert_allclose(values(x), expected)
    assert x._version[0] == 1


def test_in_place_operators(lib):
    x = lib.tensor([4.0, 8.0])
    x += 1
    x -= 1
    x *= 2
    x /= 4
    x **= 2
    assert x.tolist() == [4.0, 16.0]
    y = lib.tensor([7, -7])
    y //= 2
    assert y.tolist() == [3, -4]
    y %= 3
    assert y.tolist() == [0, 2]


def test_in_place_op_on_leaf_requiring_grad_raises(lib):
    x = lib.tensor([1.0], requires_grad=True)
    for op in (lambda: x.add_(1), lambda: x.zero_(), lambda: x.fill_(2.0), lambda: x.clamp_(0, 1)):
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            op()


def test_zero_and_fill_on_leaves_under_no_grad(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.no_grad():
        x.zero_()
        assert x.tolist() == [0.0, 0.0]
        x.fill_(3.0)
        x.fill_(lib.tensor(5.0))
        x.mul_(2).add_(1)
    assert x.tolist() == [11.0, 11.0]
    assert x.requires_grad and x.is_leaf and version(x) == 5


def test_fill_with_a_tensor_of_more_than_0_dims_raises(lib):
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor"):
        lib.zeros(2).fill_(lib.tensor([1.0]))


def test_fill_gradient_goes_to_the_0d_value(lib):
    v = lib.tensor(2.0, requires_grad=True)
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y.fill_(v)
    (y * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert v.grad.item() == 6.0
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_in_place_ops_record_gradients(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y.mul_(x).add_(x, alpha=2).clamp_(max=10).div_(2)
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 3.0, 0.0]


def test_in_place_op_to_integer_tensor_with_float_result_raises(lib):
    with pytest.raises(RuntimeError, match="can't be cast"):
        lib.tensor([1, 2]).div_(2)


# ------------------------------------------------------------------ names
TORCH_NAMES = ["add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
               "remainder", "fmod", "pow", "neg", "negative", "abs", "absolute", "exp", "exp2", "log", "log2",
               "log10", "log1p", "expm1", "sqrt", "rsqrt", "square", "sin", "cos", "tan", "asin", "acos", "atan",
               "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "sigmoid", "relu", "sign", "sgn", "floor",
               "ceil", "round", "trunc", "fix", "frac", "clamp", "clip", "clamp_min", "clamp_max", "maximum",
               "minimum", "fmax", "fmin", "where", "reciprocal", "erf", "erfc", "atan2", "arctan2", "lerp",
               "addcmul", "addcdiv", "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less",
               "less_equal", "not_equal", "equal", "logical_and", "logical_or", "logical_xor", "logical_not",
               "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "isnan", "isinf", "isfinite",
               "isclose", "allclose", "nan_to_num", "signbit", "xlogy", "hypot", "logaddexp"]
IN_PLACE = ["add_", "sub_", "mul_", "div_", "pow_", "clamp_", "clip_", "clamp_min_", "clamp_max_", "neg_",
            "abs_", "exp_", "log_", "sqrt_", "sigmoid_", "tanh_", "relu_", "floor_", "round_", "zero_", "fill_",
            "addcmul_", "addcdiv_", "lerp_", "remainder_", "reciprocal_", "true_divide_", "maximum_"]


@pytest.mark.parametrize("name", TORCH_NAMES)
def test_function_and_method_exist(name):
    assert callable(getattr(gs, name))
    if torch is not None and hasattr(torch.Tensor, name):
        assert callable(getattr(gs.Tensor, name))


@pytest.mark.parametrize("name", IN_PLACE)
def test_in_place_method_exists(name):
    assert callable(getattr(gs.Tensor, name))


def test_grad_fn_names(lib):
    x = lib.tensor([1.0], requires_grad=True)
    assert (x * 2).grad_fn.name() == "MulBackward0"
    assert x.exp().grad_fn.name() == "ExpBackward0"
    assert lib.clamp(x, 0, 1).grad_fn.name().startswith("Clamp")
    assert lib.where(x > 0, x, 0.0).grad_fn.name().startswith("Where")


# ------------------------------------------------------------------ hot path
def test_same_dtype_operands_pass_promotion_untouched():
    a, b = np.ones(3, np.float32), np.ones(3, np.float32)
    assert all(p is q for p, q in zip(E._coerce(a, b), (a, b)))
    assert all(p is q for p, q in zip(E._coerce(a, 1.5), (a, 1.5)))
    assert all(p is q for p, q in zip(E._coerce(2, a), (2, a)))


def test_gradient_of_a_0d_leaf_is_a_0d_tensor():
    x = gs.tensor(2.0, requires_grad=True)
    (x * x).backward()
    assert x.grad.tolist() == 4.0


# ------------------------------------------------------------------ random broadcastable shapes
def _unbroadcast(g, shape):
    while g.ndim > len(shape):
        g = g.sum(0)
    for i, n in enumerate(shape):
        if n == 1 and g.shape[i] != 1:
            g = g.sum(i, keepdims=True)
    return g


BINARY = {
    # name: (op, d/da, d/db) on NumPy arrays
    "add": (lambda a, b: a + b, lambda a, b: np.ones_like(a + b), lambda a, b: np.ones_like(a + b)),
    "sub": (lambda a, b: a - b, lambda a, b: np.ones_like(a + b), lambda a, b: -np.ones_like(a + b)),
    "mul": (lambda a, b: a * b, lambda a, b: b + 0 * a, lambda a, b: a + 0 * b),
    "div": (lambda a, b: a / b, lambda a, b: 1 / b + 0 * a, lambda a, b: -a / (b * b)),
    "maximum": (np.maximum, lambda a, b: (a > b) + 0.5 * (a == b) + 0 * b,
                lambda a, b: (b > a) + 0.5 * (a == b) + 0 * a),
}


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(sorted(BINARY)), shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4),
       seed=st.integers(0, 2 ** 16))
def test_binary_ops_broadcast_values_and_gradients(name, shapes, seed):
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    a = rng.standard_normal(sa)
    b = rng.standard_normal(sb) + 3.0  # keeps divisors off zero
    op, da, db = BINARY[name]
    ta = gs.tensor(a, dtype=gs.float64, requires_grad=True)
    tb = gs.tensor(b, dtype=gs.float64, requires_grad=True)
    out = getattr(gs, name)(ta, tb)
    assert tuple(out.shape) == shapes.result_shape
    np.testing.assert_allclose(values(out), op(a, b), rtol=1e-12)
    w = rng.standard_normal(shapes.result_shape)
    (out * gs.tensor(w)).sum().backward()
    assert tuple(ta.grad.shape) == sa and tuple(tb.grad.shape) == sb
    np.testing.assert_allclose(values(ta.grad), _unbroadcast(w * da(a, b), sa), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(values(tb.grad), _unbroadcast(w * db(a, b), sb), rtol=1e-10, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3), seed=st.integers(0, 2 ** 16))
def test_where_broadcasts_three_ways(shapes, seed):
    rng = np.random.default_rng(seed)
    sc, sa, sb = shapes.input_shapes
    c, a, b = rng.random(sc) > 0.5, rng.standard_normal(sa), rng.standard_normal(sb)
    ta = gs.tensor(a, dtype=gs.float64, requires_grad=True)
    tb = gs.tensor(b, dtype=gs.float64, requires_grad=True)
    out = gs.where(gs.tensor(c), ta, tb)
    np.testing.assert_array_equal(values(out), np.where(c, a, b))
    out.sum().backward()
    np.testing.assert_array_equal(values(ta.grad), _unbroadcast(np.where(c, 1.0, 0.0) + 0 * (a + b), sa))
    np.testing.assert_array_equal(values(tb.grad), _unbroadcast(np.where(c, 0.0, 1.0) + 0 * (a + b), sb))


def test_relu_passes_the_gradient_of_a_nan_and_none_at_zero():
    """PyTorch's relu backward zeroes the gradient where the output is <= 0: a NaN output (from a
    NaN input) passes it, a zero output (from 0, -0.0 or a negative input) does not."""
    x = gs.tensor([float("nan"), -1.0, 2.0, 0.0, -0.0], requires_grad=True)
    gs.relu(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 0.0, 1.0, 0.0, 0.0])


@pytest.mark.parametrize("exponent", [3, 3.0, -2])
def test_multiplied_out_powers_pass_gradcheck(exponent):
    check_gradients(lambda T, x: (x.abs() + 0.5) ** exponent, [(3, 4)])


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("exponent", [3, -2, 2])
def test_powers_are_pytorchs_bit_for_bit(dtype, exponent):
    """PyTorch's CPU kernel multiplies x ** 3 and x ** -2 out (x*x*x, 1/(x*x)): so does the engine,
    which NumPy's pow differs from in the last place."""
    x = np.random.default_rng(3).standard_normal(10_000).astype(dtype) + 3
    want = (torch.tensor(x) ** exponent).numpy()
    assert np.array_equal((gs.tensor(x) ** exponent).numpy(), want)
    assert np.array_equal(gs.tensor(x).pow(exponent).numpy(), want)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_", "xor",
                                "iadd", "imul", "isub", "itruediv"])
@pytest.mark.parametrize("other", [[1.0, 2.0], (1.0, 2.0)])
def test_operators_refuse_lists_and_tuples(lib, op, other):
    import operator
    x = lib.tensor([1.0, 2.0]) if op not in ("and_", "or_", "xor") else lib.tensor([1, 2])
    with pytest.raises(TypeError):
        getattr(operator, op)(x, other)


def test_comparing_with_a_list_is_unequal(lib):
    x = lib.tensor([1.0, 2.0])
    assert (x == [1.0, 2.0]) is False and (x != [1.0, 2.0]) is True


# rsub, ldexp and frexp: differentiable, checked by gradcheck and against PyTorch
NEW_OPS = {
    "rsub_tensor": (lambda T, a, b: T.rsub(a, b, alpha=2), [(3, 4), (4,)]),
    "rsub_number": (lambda T, a: T.rsub(a, 1.5), [(3, 4)]),
    # non-negative integer exponents: PyTorch 2.13's ldexp gradient computes 2 ** other in integers, so
    # its gradient for a negative one is 0 (ours is 2 ** other, test_ldexp_gradient_for_negative_exponents)
    "ldexp": (lambda T, a: T.ldexp(a, T.tensor([[1], [0], [3]])), [(3, 4)]),
    "ldexp_float_exponent": (lambda T, a, e: T.ldexp(a, e), [(3, 4), (4,)]),
    "frexp": (lambda T, a: T.frexp(a * 10)[0], [(3, 4)]),
}


@pytest.mark.parametrize("name", sorted(NEW_OPS))
def test_rsub_ldexp_frexp_gradients(name):
    fn, shapes = NEW_OPS[name]
    check_gradients(fn, shapes)


@pytest.mark.parametrize("name", [pytest.param(n, marks=needs_torch) for n in sorted(NEW_OPS)])
def test_rsub_ldexp_frexp_match_torch(name):
    fn, shapes = NEW_OPS[name]
    compare_with_torch(fn, shapes)


def test_ldexp_gradient_for_negative_exponents():
    x = gs.tensor([1.0, 3.0], requires_grad=True)
    gs.ldexp(x, gs.tensor([-2, 1])).sum().backward()
    assert x.grad.tolist() == [0.25, 2.0]


def test_frexp_splits_into_mantissa_and_int32_exponent(lib):
    m, e = lib.frexp(lib.tensor([0.0, -0.0, 3.0, -10.0, float("inf")]))
    assert m.tolist()[2:4] == [0.75, -0.625] and e.dtype == lib.int32 and e.tolist() == [0, 0, 2, 4, 0]
    with pytest.raises(RuntimeError, match="floating-point"):
        lib.frexp(lib.tensor([1, 2]))


def test_ldexp_wants_tensors_and_gives_floats(lib):
    assert lib.ldexp(lib.tensor([1, 2]), lib.tensor([3, 1])).tolist() == [8.0, 4.0]
    with pytest.raises(TypeError):
        lib.ldexp(lib.tensor([1.0]), 2)


def test_nextafter_steps_one_ulp_and_passes_the_gradient_through(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = lib.nextafter(x, lib.tensor([2.0, 1.0]))
    assert y[0].item() > 1.0 and y[1].item() < 2.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="not implemented"):
        lib.nextafter(lib.tensor([1]), lib.tensor([2]))


@pytest.mark.parametrize("expr, expected", [
    (lambda T: T.tensor([1, 2]) << 1, [2, 4]), (lambda T: 1 << T.tensor([1, 2]), [2, 4]),
    (lambda T: T.tensor([-8, 8]) >> 1, [-4, 4]), (lambda T: T.tensor([1, 2], dtype=T.uint8) << 9, [0, 0]),
    (lambda T: T.tensor([1]) << 64, [0]), (lambda T: T.tensor([1]) << -1, [0]), (lambda T: T.tensor([-8]) >> 70, [-1]),
    (lambda T: T.bitwise_left_shift(T.tensor([1, -2], dtype=T.int32), 3), [8, -16]),
    (lambda T: T.bitwise_right_shift(T.tensor([5, 9]), T.tensor([1, 2])), [2, 2]),
    (lambda T: T.tensor([True]) << 1, [2]),
])
def test_shifts_as_pytorch(lib, expr, expected):
    assert expr(lib).tolist() == expected


def test_shifting_floats_is_not_implemented(lib):
    with pytest.raises(RuntimeError, match="shift_cpu"):
        lib.tensor([1.0]) << 1


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin", "atan2", "arctan2", "hypot", "logaddexp",
                                  "logaddexp2", "logical_and", "logical_or", "logical_xor", "nextafter"])
def test_binary_functions_on_two_tensors_refuse_numbers(lib, name):
    x = lib.tensor([1.0, 2.0])
    for args in ((x, 2), (x, 2.5), (2, x)):
        with pytest.raises(TypeError, match="must be Tensor"):
            getattr(lib, name)(*args)
    with pytest.raises(TypeError, match="must be Tensor"):
        getattr(x, name)(1.5)


def test_gcd_and_lcm_refuse_numbers(lib):
    with pytest.raises(TypeError, match="must be Tensor"):
        lib.gcd(lib.tensor([4]), 2)
    with pytest.raises(TypeError, match="must be Tensor"):
        lib.lcm(lib.tensor([4]), 2)


def test_square_of_bool_is_int64(lib):
    out = lib.square(lib.tensor([True, False]))
    assert out.dtype == lib.int64 and out.tolist() == [1, 0]


def test_nan_to_num_keeps_integer_dtypes(lib):
    for dtype in (lib.int64, lib.int32, lib.uint8, lib.bool):
        assert lib.nan_to_num(lib.tensor([1, 0], dtype=dtype)).dtype == dtype


def test_floor_divide_is_recorded_but_has_no_derivative(lib):
    x = lib.tensor([3.0, 5.0], requires_grad=True)
    y = x // 2
    assert y.requires_grad and y.grad_fn is not None and y.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        y.sum().backward()


def test_torch_softmax_requires_dim_but_functional_softmax_does_not(lib):
    with pytest.raises(TypeError):
        lib.softmax(lib.ones(2))
    with pytest.raises(TypeError):
        lib.ones(2).log_softmax()
    assert lib.softmax(lib.ones(2), 0, lib.float64).dtype == lib.float64
    assert lib.nn.functional.softmax(lib.ones(2)).tolist() == [0.5, 0.5]


def test_logaddexp_of_infinities_as_pytorch(lib):
    inf = float("inf")
    a = lib.tensor([inf, -inf, inf, -inf, 1.0], requires_grad=True)
    b = lib.tensor([inf, -inf, -inf, 2.0, inf])
    for fn in (lib.logaddexp, lib.logaddexp2):
        y = fn(a, b)
        assert y.tolist() == [inf, -inf, inf, 2.0, inf]
        a.grad = None
        y.sum().backward()
        assert a.grad.tolist()[2:] == [1.0, 0.0, 0.0]


@pytest.mark.parametrize("name", ["hypot", "logaddexp", "logaddexp2"])
def test_float_only_binary_functions_refuse_integers_and_promote_bool(lib, name):
    fn = getattr(lib, name)
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        fn(lib.tensor([1]), lib.tensor([2]))
    assert fn(lib.tensor([True]), lib.tensor([1.0])).dtype == lib.float32


@pytest.mark.parametrize("name", ["floor", "ceil", "round", "trunc", "abs", "frac"])
def test_rounding_and_abs_refuse_bool(lib, name):
    with pytest.raises(RuntimeError, match="not implemented for 'Bool'"):
        getattr(lib, name)(lib.tensor([True]))


def test_frac_refuses_integers_and_rounding_keeps_them(lib):
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        lib.frac(lib.tensor([1]))
    assert lib.floor(lib.tensor([3])).tolist() == [3] and lib.abs(lib.tensor([-3])).tolist() == [3]


@pytest.mark.parametrize("call, error", [
    (lambda T: T.tensor([1, 2], dtype=T.uint8).pow(-3), "negative integer powers"),
    (lambda T: T.tensor([1, 2], dtype=T.uint8).pow(300), "without overflow"),
    (lambda T: T.gcd(T.tensor([True]), T.tensor([True])), "not implemented for 'Bool'"),
    (lambda T: T.tensor([True]) << True, "not implemented for 'Bool'"),
    (lambda T: T.add(T.tensor([1]), T.tensor([1]), alpha=2.5), "alpha must not be a floating point"),
    (lambda T: T.relu(T.tensor([True])), "Boolean inputs not supported for relu"),
])
def test_integer_and_bool_operands_raise_as_pytorch(lib, call, error):
    with pytest.raises(RuntimeError, match=error):
        call(lib)


def test_add_and_sub_scale_a_number_by_alpha(lib):
    assert lib.tensor([1]).add_(1, alpha=2).tolist() == [3]
    assert lib.sub(lib.tensor([1.5]), 2, alpha=3).tolist() == [-4.5]


def test_frexp_of_a_0d_tensor(lib):
    m, e = lib.frexp(lib.tensor(12.0))
    assert m.item() == 0.75 and e.item() == 4 and m.shape == () and e.dtype == lib.int32


def test_abs_gradient_at_nan_is_zero_as_pytorch(lib):
    x = lib.tensor([float("nan"), -0.0, 0.0, float("inf"), -2.0], requires_grad=True)
    lib.abs(x).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 1.0, -1.0]
