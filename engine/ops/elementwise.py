"""Elementwise ops: arithmetic, unary maths, comparisons, casts.

Each op states its forward on arrays and, beside it, its derivative.
Broadcasting is not their concern: the backward engine sums every gradient
back to its input's shape in one place. Type promotion follows
torch.result_type (see ``_coerce``).
"""
import collections
import math
import numbers
import warnings

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..autograd.state import state as _grad_state
from ..device import array_module_for, get_array_module
from ..tensor import Tensor
from .arguments import require_tensor, tensor_parameters

__all__ = [
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
    "remainder", "fmod", "pow", "neg", "negative", "abs", "absolute", "exp", "exp2", "log", "log2",
    "log10", "log1p", "expm1", "sqrt", "rsqrt", "square", "sin", "cos", "tan", "asin", "acos",
    "atan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "sigmoid", "relu", "sign", "sgn",
    "floor", "ceil", "round", "trunc", "fix", "frac", "clamp", "clip", "clamp_min", "clamp_max",
    "maximum", "minimum", "fmax", "fmin", "where", "reciprocal", "erf", "erfc", "atan2", "arctan2",
    "lerp", "addcmul", "addcdiv", "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal",
    "less", "less_equal", "not_equal", "equal", "logical_and", "logical_or", "logical_xor",
    "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "isnan", "isinf",
    "isfinite", "isclose", "allclose", "nan_to_num", "signbit", "xlogy", "hypot", "logaddexp", "logaddexp2", "sinc",
    "float_power", "copysign", "asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg",
    "gcd", "lcm", "isneginf", "isposinf", "isreal", "positive", "rsub", "ldexp", "frexp", "nextafter",
    "bitwise_left_shift", "bitwise_right_shift",
]

_ndarray = np.ndarray
_float, _int = float, int
_both_tensors = tensor_parameters("input", "other")   # binary functions PyTorch declares on two tensors only


# --------------------------------------------------------------- promotion
_FLOAT_32_64 = (np.dtype(np.float32), np.dtype(np.float64))


def _coerce(a, b):
    """Casts two operands (arrays or Python numbers) to their torch.result_type.

    The common cases (same dtype, a float array with a Python number) return
    at once; NumPy already computes them in the dtype PyTorch would.
    """
    ta, tb = type(a), type(b)
    if ta is tb is _ndarray and a.dtype is b.dtype:
        return a, b
    if ta is _ndarray and (tb is _float and a.dtype.kind == "f" or tb is _int and (a.dtype.kind == "f" or a.dtype.kind != "b" and 0 <= b < 128)):
        return a, b
    if tb is _ndarray and (ta is _float and b.dtype.kind == "f" or ta is _int and (b.dtype.kind == "f" or b.dtype.kind != "b" and 0 <= a < 128)):
        return a, b
    want = _result_np(a, b)
    return _cast_to(a, want), _cast_to(b, want)


def _coerce_float(a, b):
    """As ``_coerce``, then integer and bool results compute in the default float dtype (true division)."""
    ta, tb = type(a), type(b)
    if ta is tb is _ndarray and a.dtype is b.dtype and a.dtype.kind == "f":
        return a, b
    want = _result_np(a, b)
    if want.kind != "f":
        want = _dt.get_default_dtype().np
    return _cast_to(a, want), _cast_to(b, want)


def _result_np(*xs):
    return _dt.result_type(*[_Meta(x) for x in xs if x is not None]).np


class _Meta:
    """Stands in for an array in result_type: its dtype and rank (Python numbers pass as they are)."""
    __slots__ = ("dtype", "ndim")

    def __new__(cls, x):
        if not hasattr(x, "dtype"):
            return x
        self = object.__new__(cls)
        self.dtype = _dt.from_numpy_dtype(x.dtype)
        self.ndim = x.ndim
        return self


def _cast_to(x, np_dtype):
    if type(x) is _int and np_dtype.kind in "iu":
        return _wrapped(x, np_dtype)
    if hasattr(x, "dtype"):
        if isinstance(x, (_float, _int)) and not isinstance(x, np.generic):
            # a program's NumPy scalar (a float or int subclass, which NumPy would take as float64
            # or int64): a NumPy scalar of the dtype, so the op computes in it
            return np_dtype.type(x)
        return x if x.dtype == np_dtype else x.astype(np_dtype)
    return x


def _wrapped(x, np_dtype):
    """A Python int as a scalar of an integer dtype, wrapped into its range as PyTorch casts scalars
    (-3 as uint8 is 253, 2**40 as int32 is 0); past int64 NumPy raises OverflowError, as PyTorch."""
    info = np.iinfo(np_dtype)
    if info.min <= x <= info.max:
        return x
    return np.array(x, dtype=np.int64 if x < 0 else np.uint64).astype(np_dtype)[()]


def _xp(x):
    return np if type(x) is _ndarray else get_array_module(x)


def _xp2(a, b):
    return _xp(a if hasattr(a, "dtype") else b)


def _is_tensor(x):
    """Whether a saved operand is an array/tensor (as opposed to a Python number)."""
    return hasattr(x, "shape")


def _wants(node, i):
    """Whether input ``i`` of ``node`` receives a gradient (skips work for constants)."""
    return node.next_functions[i][0] is not None


def _integral(x):
    return x.dtype.kind in "biu" if hasattr(x, "dtype") else isinstance(x, (_int, bool))


def _is_bool(x):
    return x.dtype.kind == "b" if hasattr(x, "dtype") else x is True or x is False


def _refuse_bool(name, a, b):
    """After promotion: PyTorch implements some ops for no bool result."""
    if (a if hasattr(a, "dtype") else b).dtype.kind == "b":
        raise NotImplementedError(f'"{name}" not implemented for \'Bool\'')


def _check_int_division(a, b):
    """Integer division by zero raises, as in PyTorch (NumPy would return 0 with a warning)."""
    if _integral(a) and _integral(b) and bool((b == 0).any() if hasattr(b, "dtype") else b == 0):
        raise RuntimeError("ZeroDivisionError")


# --------------------------------------------------------------- arithmetic
class Add(Op):
    __slots__ = ()
    op = "add"

    def forward(self, a, b):
        if type(a) is type(b) is _ndarray and a.dtype is b.dtype:
            return a + b
        a, b = _coerce(a, b)
        return a + b

    def backward(self, F, g):
        return g, g


class Sub(Op):
    __slots__ = ()
    op = "sub"

    def forward(self, a, b):
        if type(a) is _ndarray and (type(b) is _ndarray and a.dtype is b.dtype and a.dtype.kind != "b"
                                    or type(b) is _float and a.dtype.kind == "f"):
            return a - b
        if _is_bool(a) and _is_bool(b):
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                               "Use the `^` or `logical_xor()` operator instead.")
        if _is_bool(a) or _is_bool(b):
            raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
        a, b = _coerce(a, b)
        return a - b

    def backward(self, F, g):
        return g, -g


class Rsub(Sub):
    """``number - tensor``: PyTorch records rsub(Tensor, Scalar)."""
    __slots__ = ()
    backward_name = "RsubBackward1"


class RsubTensor(Sub):
    """rsub(input, other) with a tensor other: other - input."""
    __slots__ = ()
    backward_name = "RsubBackward0"


class Nextafter(Op):
    """The next float after input towards other. PyTorch has no derivative for it and passes the
    gradient to input unchanged (none to other): so do we."""
    __slots__ = ()
    op = "nextafter"

    def forward(self, a, b):
        a, b = _coerce(a, b)
        kind = _result_np(a, b)
        if kind.kind != "f":
            raise NotImplementedError(f'"nextafter_cpu" not implemented for \'{_SCALAR_NAME[kind.name]}\'')
        return _xp2(a, b).nextafter(a, b)

    def backward(self, F, g):
        return g, F.zeros_like(g) if _wants(self, 1) else None


class Mul(Op):
    __slots__ = ()
    op = "mul"
    saves = (0, 1)
    grad_needs = ((1,), (0,))

    def forward(self, a, b):
        if type(a) is type(b) is _ndarray and a.dtype is b.dtype:
            return a * b
        a, b = _coerce(a, b)
        return a * b

    def backward(self, F, g, a, b):
        # an operand is None when the gradient that reads it, the other's, is not wanted
        if a is None:
            return g * b, None
        if b is None:
            return None, g * a
        return g * b, g * a


class Div(Op):
    """True division: integer and bool operands divide in the default float dtype."""
    __slots__ = ()
    op = "div"
    saves = (0, 1)
    grad_needs = ((1,), (0, 1))

    def forward(self, a, b):
        a, b = _coerce_float(a, b)
        return a / b

    def backward(self, F, g, a, b):
        return g / b, -g * a / (b * b) if _wants(self, 1) else None


class RoundedDiv(Op):
    """div(a, b, rounding_mode="floor" | "trunc"): piecewise constant, so its gradient is zero."""
    __slots__ = ()
    op = "div"
    backward_name = "DivBackward2"

    def forward(self, a, b, mode):
        a, b = _coerce(a, b)
        _refuse_bool("div_floor_cpu" if mode == "floor" else "div_trunc_cpu", a, b)
        _check_int_division(a, b)
        if mode == "floor":
            return a // b
        if _integral(a) and _integral(b):
            q = a // b  # floor; step towards zero where the exact quotient is negative and inexact
            return q + ((q < 0) & (q * b != a))
        return _xp2(a, b).trunc(a / b)

    def backward(self, F, g):
        return F.zeros_like(g), F.zeros_like(g)


class FloorDivide(RoundedDiv):
    """``a // b``: PyTorch records it (the result requires grad) but has no derivative for it, so a
    backward through it raises."""
    __slots__ = ()
    op = "floor_divide"
    backward_name = "NotImplemented"

    def forward(self, a, b):
        return RoundedDiv.forward(self, a, b, "floor")

    def backward(self, F, g):
        raise RuntimeError("derivative for aten::floor_divide is not implemented")


class Remainder(Op):
    """Python's ``%``: the result takes the sign of the divisor."""
    __slots__ = ()
    op = "remainder"
    saves = (0, 1)
    grad_needs = ((), (0, 1))
    overload_names = {"TT": "RemainderBackward1"}

    def forward(self, a, b):
        a, b = _coerce(a, b)
        _refuse_bool("remainder_cpu", a, b)
        _check_int_division(a, b)
        return a % b

    def backward(self, F, g, a, b):
        if not _wants(self, 1):
            return g, None
        # under create_graph, div(rounding_mode="floor") (zero derivative) as PyTorch: floor_divide has none
        q = RoundedDiv.apply(a, b, "floor") if isinstance(a, Tensor) or isinstance(b, Tensor) else a // b
        return g, -g * q


class Fmod(Op):
    """C's fmod: the result takes the sign of the dividend."""
    __slots__ = ()
    op = "fmod"
    saves = (0, 1)
    grad_needs = ((), (0, 1))
    overload_names = {"TT": "FmodBackward1"}

    def forward(self, a, b):
        a, b = _coerce(a, b)
        _refuse_bool("fmod_cpu", a, b)
        _check_int_division(a, b)
        return _xp2(a, b).fmod(a, b)

    def backward(self, F, g, a, b):
        return g, -g * F.trunc(a / b) if _wants(self, 1) else None


class Pow(Op):
    """a ** b. d/da = b a**(b-1), zero where b == 0; d/db = a**b log a, zero where a == 0 and b >= 0."""
    __slots__ = ()
    op = "pow"
    saves = (0, 1, -1)
    grad_needs = ((0, 1), (0, 1, -1))
    overload_names = {"TT": "PowBackward1", "ST": "PowBackward2"}

    def forward(self, a, b):
        if type(b) is _int and hasattr(a, "dtype") and a.dtype.kind in "iu":   # checked before it would wrap
            if b < 0:
                raise RuntimeError("Integers to negative integer powers are not allowed.")
            b = _dt.checked_scalar(b, a.dtype)
        a, b = _coerce(a, b)
        if _integral(a) and _integral(b):
            return _int_pow(a, b)
        if type(b) in (_int, _float) and type(a) is _ndarray and a.dtype in _FLOAT_32_64:
            # the exponents PyTorch's CPU kernel multiplies out (pow_tensor_scalar_optimized): its answers
            # bit for bit, and several times faster than NumPy's pow (x ** 3: 2,000 float32 in 58 us)
            if b == 3:
                y = a * a
                y *= a
                return y
            if b == -2:
                y = a * a
                return np.divide(1, y, out=y)
        return a ** b

    def backward(self, F, g, a, b, y):
        ga = gb = None
        if _wants(self, 0):
            if not _is_tensor(b):
                ga = F.zeros_like(g) if b == 0 else g * b * a ** (b - 1)
            else:
                ga = F.where(b == 0, 0.0, g * b * a ** (b - 1))
        if _wants(self, 1):
            if _is_tensor(a):
                gb = F.where((a == 0) & (b >= 0), 0.0, g * y * F.log(a))
            elif a == 0:
                gb = F.where(b >= 0, 0.0, g * y * -math.inf)
            else:
                gb = g * y * (math.log(a) if a > 0 else math.nan)
        return ga, gb


def _int_pow(a, b):
    if (a if hasattr(a, "dtype") else b).dtype.kind == "b":  # a bool result
        if not (hasattr(a, "dtype") and type(b) is bool):
            raise NotImplementedError('"pow" not implemented for \'Bool\'')
        return a.copy() if b else _xp(a).ones_like(a)
    if not hasattr(b, "dtype"):
        if b < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return a ** b
    if not (b < 0).any():
        return a ** b
    # integer powers with negative exponents truncate 1 / a**|b|: only +-1 survive
    xp = _xp2(a, b)
    out = a ** xp.abs(b)
    return xp.where(b < 0, xp.where(xp.abs(a) == 1, out, 0), out)


class Neg(Op):
    __slots__ = ()
    op = "neg"

    def forward(self, x):
        if x.dtype.kind == "b":
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
        return -x

    def backward(self, F, g):
        return (-g,)


# --------------------------------------------------------------- unary maths
def _unary(op, forward, grad, saves="x", floating=True):
    """Defines a one-input op from its forward on arrays and its derivative rule.

    ``forward(xp, x)`` computes on an array of module ``xp`` (or names the function of ``xp`` that
    does); ``grad(F, g, *saved)``
    receives what ``saves`` names: "x" the input, "y" the output, "" nothing.
    ``floating`` ops compute integer inputs in the default float dtype.
    """
    save_idx = {"x": (0,), "y": (-1,), "": ()}[saves]
    ufunc = None
    if type(forward) is str:   # the array module's function of that name: NumPy's, called without a frame
        function = forward
        ufunc = getattr(np, function)

        def forward(xp, x):
            return getattr(xp, function)(x)

    if floating:
        def fwd(self, x):
            if x.dtype.kind != "f":
                x = x.astype(_dt.get_default_dtype().np)
            if type(x) is _ndarray:
                return ufunc(x) if ufunc is not None else forward(np, x)
            return forward(get_array_module(x), x)
    else:
        def fwd(self, x):
            if type(x) is _ndarray:
                return ufunc(x) if ufunc is not None else forward(np, x)
            return forward(get_array_module(x), x)

    def bwd(self, F, g, *saved):
        return (grad(F, g, *saved),)

    name = "".join(part.capitalize() for part in op.split("_"))
    return type(name, (Op,), {"__slots__": (), "op": op, "saves": save_idx,
                                    "forward": fwd, "backward": bwd})


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_LN2, _LN10 = math.log(2.0), math.log(10.0)


def _zero_grad(F, g):
    # piecewise-constant ops: the gradient is zero everywhere, as in PyTorch
    return F.zeros_like(g)


def _integer_identity(fn, kernel):
    """Rounding ops leave integer tensors as they are (a copy); PyTorch has no bool kernel for them."""
    def forward(xp, x):
        if x.dtype.kind == "f":
            return fn(xp, x)
        _refuse_dtype(kernel, x, "b")
        return x.copy()
    return forward


def _refuse_dtype(kernel, x, kinds):
    """PyTorch's error for a kernel it does not implement for x's dtype (kinds: NumPy kind letters)."""
    if x.dtype.kind in kinds:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_SCALAR_NAME[x.dtype.name]}\'')


#      class          op             forward                                derivative                                saves
Exp = _unary("exp", "exp", lambda F, g, y: g * y, "y")
Exp2 = _unary("exp2", "exp2", lambda F, g, y: g * y * _LN2, "y")
Expm1 = _unary("expm1", "expm1", lambda F, g, y: g * (y + 1), "y")
Log = _unary("log", "log", lambda F, g, x: g / x)
Log2 = _unary("log2", "log2", lambda F, g, x: g / (x * _LN2))
Log10 = _unary("log10", "log10", lambda F, g, x: g / (x * _LN10))
Log1p = _unary("log1p", "log1p", lambda F, g, x: g / (x + 1))
Sqrt = _unary("sqrt", "sqrt", lambda F, g, y: g / (2 * y), "y")
Rsqrt = _unary("rsqrt", lambda xp, x: 1 / xp.sqrt(x), lambda F, g, y: -0.5 * g * y * y * y, "y")
Square = _unary("square", lambda xp, x: x * x if x.dtype.kind != "b" else x.astype(np.int64),   # pow(bool, 2): int64
                lambda F, g, x: 2 * g * x, floating=False)
Reciprocal = _unary("reciprocal", lambda xp, x: 1 / x, lambda F, g, y: -g * y * y, "y")
Sin = _unary("sin", "sin", lambda F, g, x: g * F.cos(x))
Cos = _unary("cos", "cos", lambda F, g, x: -g * F.sin(x))
Tan = _unary("tan", "tan", lambda F, g, y: g * (1 + y * y), "y")
Asin = _unary("asin", "arcsin", lambda F, g, x: g / F.sqrt(1 - x * x))
Acos = _unary("acos", "arccos", lambda F, g, x: -g / F.sqrt(1 - x * x))
Atan = _unary("atan", "arctan", lambda F, g, x: g / (1 + x * x))
Sinh = _unary("sinh", "sinh", lambda F, g, x: g * F.cosh(x))
Cosh = _unary("cosh", "cosh", lambda F, g, x: g * F.sinh(x))
Tanh = _unary("tanh", "tanh", lambda F, g, y: g * (1 - y * y), "y")


def _sigmoid(xp, x):
    """PyTorch's 1 / (1 + exp(-x)): full relative precision on both sides (the tanh form 0.5 (tanh(x / 2)
    + 1) lost it below x = -5 in float32: -15 gave 2.98e-7 for 3.06e-7, -20 gave 0), and exactly 0
    where exp(-x) overflows (below about -88.7 in float32, -709.8 in float64), as PyTorch's. Built
    from new arrays, so a 0-d input (whose ufunc results are NumPy scalars) works."""
    with np.errstate(over="ignore"):
        e = xp.exp(-x)
    return 1.0 / (1.0 + e)


Sigmoid = _unary("sigmoid", _sigmoid, lambda F, g, y: g * y * (1 - y), "y")
Erf = _unary("erf", lambda xp, x: _erf(xp, x), lambda F, g, x: g * _TWO_OVER_SQRT_PI * F.exp(-x * x))
Erfc = _unary("erfc", lambda xp, x: _erf(xp, x, complement=True),
              lambda F, g, x: -g * _TWO_OVER_SQRT_PI * F.exp(-x * x))
# relu'(0) = 0 and abs'(0) = 0, PyTorch's choices; a NaN passes its gradient (PyTorch's rule is
# "zero where the output is <= 0", and the output is never negative)
def _relu(xp, x):
    if x.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    return xp.maximum(x, 0)


Relu = _unary("relu", _relu, lambda F, g, y: g * (y != 0), "y", floating=False)
Abs = _unary("abs", lambda xp, x: _refuse_dtype("abs_cpu", x, "b") or xp.abs(x), lambda F, g, x: g * F.sign(x),
             floating=False)
Frac = _unary("frac", lambda xp, x: _refuse_dtype("frac_cpu", x, "biu") or x - xp.trunc(x), lambda F, g: g, "",
              floating=False)


def _sinc_grad(F, g, x):
    # d/dx sin(pi x) / (pi x) = (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at 0 (x is kept off 0 there, so
    # no NaN reaches a second derivative through the branch where() drops)
    zero = x == 0
    px = math.pi * F.where(zero, 1.0, x)
    return F.where(zero, 0.0, g * (px * F.cos(px) - F.sin(px)) / (px * px) * math.pi)


Sinc = _unary("sinc", "sinc", _sinc_grad)
Asinh = _unary("asinh", "arcsinh", lambda F, g, x: g / F.sqrt(x * x + 1))
Acosh = _unary("acosh", "arccosh", lambda F, g, x: g / F.sqrt(x * x - 1))
Atanh = _unary("atanh", "arctanh", lambda F, g, x: g / (1 - x * x))
_DEG = math.pi / 180.0
Deg2rad = _unary("deg2rad", lambda xp, x: x * _DEG, lambda F, g: g * _DEG, "")
Rad2deg = _unary("rad2deg", lambda xp, x: x * (1.0 / _DEG), lambda F, g: g * (1.0 / _DEG), "")
Deg2rad.backward_name, Rad2deg.backward_name = "Deg2RadBackward0", "Rad2DegBackward0"


def _sign(xp, x):
    """PyTorch's sign is (0 < x) - (x < 0): 0 at NaN (NumPy's sign gives NaN), a bool tensor unchanged."""
    if x.dtype == bool:
        return x.copy()
    if x.dtype.kind == "f":
        return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)
    return xp.sign(x)


Sign = _unary("sign", _sign, _zero_grad, "", floating=False)
Floor = _unary("floor", _integer_identity(lambda xp, x: xp.floor(x), "floor_vml_cpu"), _zero_grad, "", floating=False)
Ceil = _unary("ceil", _integer_identity(lambda xp, x: xp.ceil(x), "ceil_vml_cpu"), _zero_grad, "", floating=False)
Trunc = _unary("trunc", _integer_identity(lambda xp, x: xp.trunc(x), "trunc_vml_cpu"), _zero_grad, "", floating=False)
Round = _unary("round", _integer_identity(lambda xp, x: xp.round(x), "round_vml_cpu"), _zero_grad, "", floating=False)
Log1p.backward_name = "Log1PBackward0"
Square.backward_name = "PowBackward0"   # torch.square is pow(x, 2)


# erf: W. J. Cody's rational Chebyshev approximations (CALERF, Math. Comp. 1969),
# vectorised; accurate to a few ulps in float64 over the whole line.
_ERF_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
          3.20937758913846947e03, 1.85777706184603153e-1)
_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
          2.84423683343917062e03)
_ERF_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
          2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
          2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8)
_ERF_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
          1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
          3.43936767414372164e03, 1.23033935480374942e03)
_ERF_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
          1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2)
_ERF_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1,
          6.05183413124413191e-2, 2.33520497626869185e-3)
_INV_SQRT_PI = 5.6418958354775628695e-1


def _erf(xp, x, complement=False):
    if xp is not np:
        import cupyx.scipy.special
        return (cupyx.scipy.special.erfc if complement else cupyx.scipy.special.erf)(x)
    return erf_numpy(x, complement).astype(x.dtype, copy=False)


def erf_numpy(x, complement=False):
    """erf(x), or erfc(x) with ``complement``, of a NumPy array, in float64."""
    x = np.asarray(x, dtype=np.float64)
    y = np.abs(x)
    out = np.full(x.shape, np.nan)   # NaN stays NaN: it falls in no branch below

    # |x| <= 0.46875: erf(x) = x R(x^2)
    m = y <= 0.46875
    if m.any():
        ys = y[m]
        z = ys * ys
        num, den = _ERF_A[4] * z, z
        for i in range(3):
            num, den = (num + _ERF_A[i]) * z, (den + _ERF_B[i]) * z
        e = x[m] * (num + _ERF_A[3]) / (den + _ERF_B[3])
        out[m] = 1.0 - e if complement else e

    # |x| > 0.46875: erfc(|x|) = exp(-x^2) R(|x|), exp(-x^2) split to keep its precision
    m = y > 0.46875
    if m.any():
        ys = y[m]
        c = np.empty_like(ys)
        mid = ys <= 4.0
        t = ys[mid]
        num, den = _ERF_C[8] * t, t
        for i in range(7):
            num, den = (num + _ERF_C[i]) * t, (den + _ERF_D[i]) * t
        c[mid] = (num + _ERF_C[7]) / (den + _ERF_D[7])
        t = ys[~mid]
        with np.errstate(over="ignore"):
            z = 1.0 / (t * t)
        num, den = _ERF_P[5] * z, z
        for i in range(4):
            num, den = (num + _ERF_P[i]) * z, (den + _ERF_Q[i]) * z
        c[~mid] = (_INV_SQRT_PI - z * (num + _ERF_P[4]) / (den + _ERF_Q[4])) / t
        head = np.trunc(ys * 16.0) / 16.0
        with np.errstate(over="ignore", invalid="ignore"):
            c = np.exp(-head * head) * np.exp(-(ys - head) * (ys + head)) * c
        c[ys > 27.3] = 0.0  # erfc is below the smallest subnormal (and inf - inf is NaN above)
        negative = x[m] < 0
        if complement:
            out[m] = np.where(negative, 2.0 - c, c)
        else:
            e = (0.5 - c) + 0.5
            out[m] = np.where(negative, -e, e)
    return out


# --------------------------------------------------------------- two-input maths
class Maximum(Op):
    """Ties split the gradient 0.5/0.5; where a NaN decides, both inputs get it (PyTorch's rule)."""
    __slots__ = ()
    op = "maximum"
    saves = (0, 1)

    def forward(self, a, b):
        a, b = _coerce(a, b)
        return _xp2(a, b).maximum(a, b)

    def backward(self, F, g, a, b):
        shared = F.where(a == b, g / 2, g)
        return F.where(a < b, 0.0, shared), F.where(a > b, 0.0, shared)


class Minimum(Op):
    __slots__ = ()
    op = "minimum"
    saves = (0, 1)

    def forward(self, a, b):
        a, b = _coerce(a, b)
        return _xp2(a, b).minimum(a, b)

    def backward(self, F, g, a, b):
        shared = F.where(a == b, g / 2, g)
        return F.where(a > b, 0.0, shared), F.where(a < b, 0.0, shared)


class Fmax(Op):
    """maximum that ignores NaN: the gradient goes to the operand that was picked."""
    __slots__ = ()
    op = "fmax"
    saves = (0, 1)

    def forward(self, a, b):
        a, b = _coerce(a, b)
        return _xp2(a, b).fmax(a, b)

    def backward(self, F, g, a, b):
        first = (a >= b) | (b != b)
        return F.where(first, g, 0.0), F.where(first, 0.0, g)


class Fmin(Op):
    __slots__ = ()
    op = "fmin"
    saves = (0, 1)

    def forward(self, a, b):
        a, b = _coerce(a, b)
        return _xp2(a, b).fmin(a, b)

    def backward(self, F, g, a, b):
        first = (a <= b) | (b != b)
        return F.where(first, g, 0.0), F.where(first, 0.0, g)


class Atan2(Op):
    __slots__ = ()
    op = "atan2"
    saves = (0, 1)

    def forward(self, a, b):
        a, b = _coerce_float(a, b)
        return _xp2(a, b).arctan2(a, b)

    def backward(self, F, g, a, b):
        d = a * a + b * b
        return g * b / d, -g * a / d


class Xlogy(Op):
    """x * log(y): 0 where x is 0 (unless y is NaN). Its gradients are PyTorch's: log(y) for x, also
    where x is 0 (0 where x is 0 and y <= 0), and x / y for y."""
    __slots__ = ()
    op = "xlogy"
    saves = (0, 1)
    overload_names = {"ST": "XlogyBackward1", "TS": "XlogyBackward2"}

    def forward(self, x, y):
        x, y = _coerce_float(x, y)
        xp = _xp2(x, y)
        out = xp.where(x == 0, 0.0, x * xp.log(y))
        return xp.where(xp.isnan(y), y, out).astype(_result_np(x, y), copy=False)

    def backward(self, F, g, x, y):
        # PyTorch's: xlogy(g, y) (0 where g is 0, unless y is NaN), and 0 where x is 0 and y <= 0
        gx = (F.where(((g == 0) & (y == y)) | ((x == 0) & (y <= 0)), 0.0, g * F.log(y))
              if _is_tensor(x) and _wants(self, 0) else None)
        gy = g * x / y if _is_tensor(y) and _wants(self, 1) else None
        return gx, gy


class Clamp(Op):
    """minimum(maximum(x, min), max). x's gradient passes where min <= x <= max, bounds included;
    a tensor bound gets it where it decided the result (PyTorch's clamp_backward_min_max)."""
    __slots__ = ()
    op = "clamp"
    saves = (0, 1, 2)
    overload_names = {"TSS": "ClampBackward1"}

    def forward(self, x, lo, hi):
        want = _result_np(x, lo, hi)
        if want.kind == "b" and (lo is True or lo is False or hi is True or hi is False):
            raise NotImplementedError('"clamp_scalar_cpu" not implemented for \'Bool\'')
        x, lo, hi = _cast_to(x, want), _cast_to(lo, want), _cast_to(hi, want)
        xp = _xp(x)
        if lo is not None:
            x = xp.maximum(x, lo)
        if hi is not None:
            x = xp.minimum(x, hi)
        return x

    def backward(self, F, g, x, lo, hi):
        if lo is None:
            return F.where(x <= hi, g, 0.0), None, F.where(x > hi, g, 0.0) if _is_tensor(hi) else None
        if hi is None:
            return F.where(x >= lo, g, 0.0), F.where(x < lo, g, 0.0) if _is_tensor(lo) else None, None
        gx = F.where((x >= lo) & (x <= hi), g, 0.0)
        glo = F.where((x < lo) & (lo < hi), g, 0.0) if _is_tensor(lo) and _wants(self, 1) else None
        ghi = F.where((x > hi) | (hi < lo), g, 0.0) if _is_tensor(hi) and _wants(self, 2) else None
        return gx, glo, ghi


class ClampMin(Clamp):
    __slots__ = ()
    overload_names = {"TTS": "ClampMinBackward1"}
    backward_name = "ClampMinBackward0"


class ClampMax(Clamp):
    __slots__ = ()
    overload_names = {"TST": "ClampMaxBackward1"}
    backward_name = "ClampMaxBackward0"


class Where(Op):
    __slots__ = ()
    op = "where"
    saves = (0,)

    def forward(self, cond, a, b):
        want = _result_np(a, b)
        return _xp(cond).where(cond, _cast_to(a, want), _cast_to(b, want)).astype(want, copy=False)

    def backward(self, F, g, cond):
        return None, F.where(cond, g, 0.0), F.where(cond, 0.0, g)


class Lerp(Op):
    """input + weight * (end - input)."""
    __slots__ = ()
    op = "lerp"
    saves = (0, 1, 2)
    grad_needs = ((2,), (2,), (0, 1))
    overload_names = {"TTT": "LerpBackward1"}

    def forward(self, a, b, w):
        a, b = _coerce(a, b)
        return a + w * (b - a)

    def backward(self, F, g, a, b, w):
        return g * (1 - w), g * w, g * (b - a) if _wants(self, 2) else None


class Fill(Op):
    """fill_(value): every element becomes value; a 0-d tensor value gets the summed gradient."""
    __slots__ = ()
    op = "fill"
    overload_names = {"TS": "FillBackward2", "TT": "FillBackward3"}

    def forward(self, x, value):
        out = _xp(x).empty_like(x)
        out[...] = _dt.checked_scalar(value, x.dtype)
        return out

    def backward(self, F, g):
        return F.zeros_like(g), g


class Zero(Fill):
    __slots__ = ()
    overload_names = None
    backward_name = "ZeroBackward0"


# --------------------------------------------------------------- not differentiable
def _nondiff(op, forward):
    def fwd(self, *args):
        return forward(_xp(next(a for a in args if hasattr(a, "dtype"))), *args)
    name = "".join(part.capitalize() for part in op.split("_"))
    return type(name, (Op,), {"__slots__": (), "op": op, "differentiable": False, "forward": fwd})


def _cmp(fn):
    def forward(xp, a, b):
        a, b = _coerce(a, b)
        return fn(a, b)
    return forward


def _bitwise(fn):
    def forward(xp, a, b):
        a, b = _coerce(a, b)
        if _result_np(a, b).kind == "f":
            raise RuntimeError('"bitwise_cpu" not implemented for \'Float\'')
        return fn(a, b)
    return forward


Eq = _nondiff("eq", _cmp(lambda a, b: a == b))
Ne = _nondiff("ne", _cmp(lambda a, b: a != b))
Lt = _nondiff("lt", _cmp(lambda a, b: a < b))
Le = _nondiff("le", _cmp(lambda a, b: a <= b))
Gt = _nondiff("gt", _cmp(lambda a, b: a > b))
Ge = _nondiff("ge", _cmp(lambda a, b: a >= b))
LogicalAnd = _nondiff("logical_and", lambda xp, a, b: xp.logical_and(a, b))
LogicalOr = _nondiff("logical_or", lambda xp, a, b: xp.logical_or(a, b))
LogicalXor = _nondiff("logical_xor", lambda xp, a, b: xp.logical_xor(a, b))
LogicalNot = _nondiff("logical_not", lambda xp, a: xp.logical_not(a))
BitwiseAnd = _nondiff("bitwise_and", _bitwise(lambda a, b: a & b))
BitwiseOr = _nondiff("bitwise_or", _bitwise(lambda a, b: a | b))
BitwiseXor = _nondiff("bitwise_xor", _bitwise(lambda a, b: a ^ b))
BitwiseNot = _nondiff("bitwise_not", lambda xp, a: _bitwise(lambda a, b: ~a)(xp, a, a))
Isnan = _nondiff("isnan", lambda xp, a: xp.isnan(a))
Isinf = _nondiff("isinf", lambda xp, a: xp.isinf(a))
Isfinite = _nondiff("isfinite", lambda xp, a: xp.isfinite(a))
Signbit = _nondiff("signbit", lambda xp, a: xp.signbit(a))
Isneginf = _nondiff("isneginf", lambda xp, a: a == -xp.inf if a.dtype.kind == "f" else xp.zeros(a.shape, dtype=bool))
Isposinf = _nondiff("isposinf", lambda xp, a: a == xp.inf if a.dtype.kind == "f" else xp.zeros(a.shape, dtype=bool))


def _integer_pair(fn, name):
    def forward(xp, a, b):
        a, b = _coerce(a, b)
        if _result_np(a, b).kind not in "iu":
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_SCALAR_NAME[_result_np(a, b).name]}\'')
        return fn(xp, a, b)
    return forward


def _shift(left):
    def forward(xp, a, b):
        a, b = _coerce(a, b)
        kind = _result_np(a, b)
        if kind.kind in "fb":
            name = "lshift" if left else "rshift"
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_SCALAR_NAME[kind.name]}\'')
        a = xp.asarray(a, dtype=kind)
        b = xp.asarray(b)
        bits = 8 * kind.itemsize
        past = (b < 0) | (b >= bits)   # a shift by the width or more (or by a negative) has every bit out
        safe = xp.where(past, 0, b).astype(kind)
        if left:
            return xp.where(past, 0, xp.left_shift(a, safe)).astype(kind)
        return xp.where(past, xp.where(a < 0, -1, 0), xp.right_shift(a, safe)).astype(kind)
    return forward


LeftShift = _nondiff("bitwise_left_shift", _shift(True))
RightShift = _nondiff("bitwise_right_shift", _shift(False))
Gcd = _nondiff("gcd", _integer_pair(lambda xp, a, b: xp.gcd(a, b), "gcd"))
Lcm = _nondiff("lcm", _integer_pair(lambda xp, a, b: xp.lcm(a, b), "lcm"))


class Cast(Op):
    """Tensor.to(dtype): the gradient is cast back by the engine."""
    __slots__ = ()
    op = "to"
    backward_name = "ToCopyBackward0"

    def forward(self, x, dtype):
        return x.astype(dtype)

    def backward(self, F, g):
        return (g,)

    @classmethod
    def apply(cls, x, dtype):
        out = super().apply(x, dtype=dtype)
        if out.requires_grad and out._data.dtype.kind != "f":
            out.requires_grad = False  # integer results leave the graph, as in PyTorch
            out.grad_fn = None
        return out


class ToDevice(Op):
    __slots__ = ()
    op = "to"
    backward_name = "ToCopyBackward0"

    def forward(self, x, device):
        xp = array_module_for(device)
        if xp is np:
            return x if type(x) is _ndarray else x.get()
        return xp.asarray(x)

    def backward(self, F, g):
        return (g,)


# --------------------------------------------------------------- public functions
def _legacy_tensor(name, scale, rest):
    """The last tensor of PyTorch's deprecated overloads that take the scale first
    (``add(x, alpha, other)``, ``addcmul(x, value, t1, t2)``), checked."""
    if len(rest) != 1 or isinstance(scale, Tensor) or not isinstance(rest[0], Tensor):
        raise TypeError(f"{name}() received an invalid combination of arguments")
    return rest[0]


def add(input, other, *legacy, alpha=1, out=None):
    """Adds other, scaled by alpha, to input."""
    if legacy:   # add(input, alpha, other), deprecated but accepted
        alpha, other = other, _legacy_tensor("add", other, legacy)
    _check_alpha(input, other, alpha)
    if alpha != 1:
        other = Mul.apply(other, alpha) if isinstance(other, Tensor) else other * alpha
    return Add.apply(input, other)


def _check_alpha(input, other, alpha):
    if isinstance(alpha, _float) and not result_dtype(input, other).is_floating_point:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


def sub(input, other, *legacy, alpha=1, out=None):
    """Subtracts other, scaled by alpha, from input."""
    if legacy:   # sub(input, alpha, other), deprecated but accepted
        alpha, other = other, _legacy_tensor("sub", other, legacy)
    _check_alpha(input, other, alpha)
    if alpha != 1:
        other = Mul.apply(other, alpha) if isinstance(other, Tensor) else other * alpha
    return Sub.apply(input, other)


def mul(input, other, *, out=None):
    """Multiplies input by other."""
    return Mul.apply(input, other)


def div(input, other, *, rounding_mode=None, out=None):
    """Divides each element of input by the corresponding element of other."""
    if rounding_mode is None:
        return Div.apply(input, other)
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    return RoundedDiv.apply(input, other, mode=rounding_mode)


def result_dtype(*xs):
    return _dt.result_type(*xs)


def floor_divide(input, other, *, out=None):
    """Computes input divided by other, elementwise, and floors the result."""
    return FloorDivide.apply(input, other)


def remainder(input, other, *, out=None):
    """Computes Python's modulus operation entrywise (the sign of the divisor)."""
    return Remainder.apply(input, other)


def fmod(input, other, *, out=None):
    """Applies C++'s std::fmod entrywise (the sign of the dividend)."""
    return Fmod.apply(input, other)


def pow(input, exponent, *, out=None):
    """Takes the power of each element in input with exponent."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("pow() expects at least one tensor argument")
    return Pow.apply(input, exponent)


def neg(input, *, out=None):
    """Returns a new tensor with the negative of the elements of input."""
    return Neg.apply(input)


@_both_tensors
def maximum(input, other, *, out=None):
    """Computes the element-wise maximum of input and other."""
    return Maximum.apply(input, other)


@_both_tensors
def minimum(input, other, *, out=None):
    """Computes the element-wise minimum of input and other."""
    return Minimum.apply(input, other)


@_both_tensors
def fmax(input, other, *, out=None):
    """Element-wise maximum that prefers the number where one operand is NaN."""
    return Fmax.apply(input, other)


@_both_tensors
def fmin(input, other, *, out=None):
    """Element-wise minimum that prefers the number where one operand is NaN."""
    return Fmin.apply(input, other)


@_both_tensors
def atan2(input, other, *, out=None):
    """Element-wise arctangent of input / other, with the quadrant."""
    return Atan2.apply(input, other)


def clamp(input, min=None, max=None, *, out=None):
    """Clamps all elements in input into the range [min, max]."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return Clamp.apply(input, min, max)


def clamp_min(input, min):
    return ClampMin.apply(input, min, None)


def clamp_max(input, max):
    return ClampMax.apply(input, None, max)


def where(condition, input=None, other=None):
    """Selects elements from input where condition holds, else from other."""
    if input is None and other is None:
        from .indexing import nonzero
        return nonzero(condition, as_tuple=True)
    cond = condition if isinstance(condition, Tensor) else Tensor._adopt_array(np.asarray(condition, dtype=bool), False, None)
    if cond._data.dtype == np.uint8:   # deprecated but accepted (pytorch-crf's masks are torch.uint8)
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed in a "
                      "future version of PyTorch. Use a boolean condition instead.", UserWarning, stacklevel=2)
        cond = cond.bool()
    if cond._data.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {cond.dtype}")
    return Where.apply(cond, input, other)


def lerp(input, end, weight):
    """input + weight * (end - input)."""
    return Lerp.apply(input, end, weight)


def addcmul(input, tensor1, tensor2, *legacy, value=1):
    """input + value * tensor1 * tensor2."""
    if legacy:   # addcmul(input, value, tensor1, tensor2), deprecated but accepted
        value, tensor1, tensor2 = tensor1, tensor2, _legacy_tensor("addcmul", tensor1, legacy)
    return add(input, Mul.apply(tensor1, tensor2), alpha=value)


def addcdiv(input, tensor1, tensor2, *legacy, value=1):
    """input + value * tensor1 / tensor2."""
    if legacy:   # addcdiv(input, value, tensor1, tensor2), deprecated but accepted
        value, tensor1, tensor2 = tensor1, tensor2, _legacy_tensor("addcdiv", tensor1, legacy)
    return add(input, Div.apply(tensor1, tensor2), alpha=value)


def xlogy(input, other, *, out=None):
    """input * log(other), and 0 where input is 0 (unless other is NaN)."""
    return Xlogy.apply(input, other)


def rsub(input, other, *, alpha=1):
    """Subtracts input, scaled by alpha, from other."""
    if alpha != 1:
        input = Mul.apply(input, alpha)
    return (RsubTensor if isinstance(other, Tensor) else Rsub).apply(other, input)


def ldexp(input, other, *, out=None):
    """Multiplies input by 2 ** other (integer inputs give the default float dtype)."""
    require_tensor("ldexp", "input", input, 1)
    require_tensor("ldexp", "other", other, 2)
    return mul(input, pow(2.0, other))


FrexpResult = collections.namedtuple("frexp", ["mantissa", "exponent"])
FrexpResult.__module__ = "torch.return_types"


def frexp(input, *, out=None):
    """Decomposes input into mantissa and exponent (int32): input = mantissa * 2 ** exponent, with
    the mantissa's magnitude in [0.5, 1). The mantissa's gradient is 2 ** -exponent."""
    x = input._data
    if x.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    xp = _xp(x)
    exponent = xp.asarray(xp.frexp(x)[1])   # (a 0-d input gives NumPy scalars)
    scale = Tensor._adopt_array(xp.asarray(xp.ldexp(x.dtype.type(1), -exponent)), False, None)
    return FrexpResult(mul(input, scale), Tensor._adopt_array(exponent.astype(np.int32), False, None))


@_both_tensors
def nextafter(input, other, *, out=None):
    """The next floating-point value after input towards other, elementwise."""
    return Nextafter.apply(input, other)


def _lshift(self, other):
    return LeftShift.apply(self, other)


def _rlshift(self, other):
    return LeftShift.apply(other, self)


def _rshift(self, other):
    return RightShift.apply(self, other)


def _rrshift(self, other):
    return RightShift.apply(other, self)


def float_power(input, exponent, *, out=None):
    """input ** exponent computed in double precision (float64 result whatever the dtypes), so its
    gradients are pow's."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("float_power() expects at least one tensor argument")
    f64 = _dt.float64
    base = input.to(f64) if isinstance(input, Tensor) else _float(input)
    exp_ = exponent.to(f64) if isinstance(exponent, Tensor) else _float(exponent)
    return pow(base, exp_)


def _float_power_(self, exponent):
    if self._data.dtype != np.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {_SCALAR_NAME.get(self._data.dtype.name, self._data.dtype.name)} "
                           f"but the operation's result requires dtype Double")
    return self._inplace(float_power, exponent)


_SCALAR_NAME = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int", "int16": "Short",
                "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def copysign(input, other, *, out=None):
    """The magnitude of input with the sign (sign bit: -0.0 counts as negative) of other, broadcast;
    integer inputs give the default float dtype. Written as where(signbit(other), -|input|, |input|):
    input's gradient is sign(input) * sign(result) (zero at input == 0, as PyTorch's), other's none."""
    if not isinstance(input, Tensor):
        raise TypeError(f"copysign() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__})")
    dt = result_dtype(input, other)
    if not dt.is_floating_point:
        dt = _dt.get_default_dtype()
    if not isinstance(other, Tensor):   # a number: one sign for all (and no device to match)
        a = abs(input.to(dt))
        return neg(a) if math.copysign(1.0, _float(other)) < 0 else a
    from .shape import broadcast_shapes
    broadcast_shapes(input.shape, other.shape)   # PyTorch's message, operands in its order
    a = abs(input.to(dt))
    return where(signbit(other), neg(a), a)


def _floating_operands(kernel, input, other):
    """Both operands in their floating result dtype; PyTorch has these kernels for floats only."""
    dt = result_dtype(input, other)
    if not dt.is_floating_point:
        raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'{_SCALAR_NAME[dt.np.name]}\'')
    return input.to(dt), other.to(dt)


@_both_tensors
def hypot(input, other):
    """sqrt(input ** 2 + other ** 2), elementwise."""
    input, other = _floating_operands("hypot", input, other)
    return sqrt(add(mul(input, input), mul(other, other)))


def _log_add(kernel, exp_fn, scale, input, other):
    """PyTorch's formula: max + log1p(exp(-|input - other|)) (scaled for base 2), and input itself where
    both are the same infinity (inf - inf would be NaN). Its gradient is sigmoid(input - other)."""
    input, other = _floating_operands(kernel, input, other)
    out = add(maximum(input, other), mul(log1p(exp_fn(neg(abs(sub(input, other))))), scale))
    return where(logical_and(eq(input, other), isinf(input)), input, out)


@_both_tensors
def logaddexp(input, other):
    """log(exp(input) + exp(other)), computed without overflow."""
    return _log_add("logaddexp", exp, 1.0, input, other)


@_both_tensors
def logaddexp2(input, other):
    """log2(2 ** input + 2 ** other), computed without overflow."""
    return _log_add("logaddexp2", exp2, 1.0 / _LN2, input, other)


def _unary_fn(cls, doc):
    apply = cls.apply

    def fn(input, *, out=None):
        return apply(input)
    fn.__name__ = fn.__qualname__ = cls.op
    fn.__doc__ = doc
    return fn


exp = _unary_fn(Exp, "Returns a new tensor with the exponential of the elements of input.")
exp2 = _unary_fn(Exp2, "Computes the base two exponential function of input.")
expm1 = _unary_fn(Expm1, "Computes exp(input) - 1.")
log = _unary_fn(Log, "Returns the natural logarithm of the elements of input.")
log2 = _unary_fn(Log2, "Returns the logarithm to the base 2 of the elements of input.")
log10 = _unary_fn(Log10, "Returns the logarithm to the base 10 of the elements of input.")
log1p = _unary_fn(Log1p, "Returns the natural logarithm of (1 + input).")
sqrt = _unary_fn(Sqrt, "Returns the square-root of the elements of input.")
rsqrt = _unary_fn(Rsqrt, "Returns the reciprocal of the square-root of the elements of input.")
square = _unary_fn(Square, "Returns the square of the elements of input.")
sin = _unary_fn(Sin, "Returns the sine of the elements of input.")
cos = _unary_fn(Cos, "Returns the cosine of the elements of input.")
tan = _unary_fn(Tan, "Returns the tangent of the elements of input.")
asin = _unary_fn(Asin, "Returns the arcsine of the elements of input.")
acos = _unary_fn(Acos, "Returns the arccosine of the elements of input.")
atan = _unary_fn(Atan, "Returns the arctangent of the elements of input.")
sinh = _unary_fn(Sinh, "Returns the hyperbolic sine of the elements of input.")
cosh = _unary_fn(Cosh, "Returns the hyperbolic cosine of the elements of input.")
tanh = _unary_fn(Tanh, "Returns the hyperbolic tangent of the elements of input.")
sigmoid = _unary_fn(Sigmoid, "Computes the logistic sigmoid of the elements of input.")
relu = _unary_fn(Relu, "Applies the rectified linear unit function element-wise.")
abs = _unary_fn(Abs, "Computes the absolute value of each element in input.")
reciprocal = _unary_fn(Reciprocal, "Returns the reciprocal of the elements of input.")
erf = _unary_fn(Erf, "Computes the error function of input.")
erfc = _unary_fn(Erfc, "Computes the complementary error function of input.")
frac = _unary_fn(Frac, "Computes the fractional portion of each element in input.")
sinc = _unary_fn(Sinc, "Computes the normalized sinc of input: sin(pi x) / (pi x), and 1 at 0.")
sign = _unary_fn(Sign, "Returns the signs of the elements of input.")
floor = _unary_fn(Floor, "Returns the floor of the elements of input.")
ceil = _unary_fn(Ceil, "Returns the ceil of the elements of input.")
trunc = _unary_fn(Trunc, "Returns the truncated integer values of the elements of input.")


def round(input, *, decimals=0, out=None):
    """Rounds elements of input to the nearest integer (half to even)."""
    if decimals:
        # PyTorch's arithmetic: x * 10^d rounded, / 10^d, and for d < 0, x / 10^-d rounded, * 10^-d; a power
        # past the float range is inf (NaN results, as PyTorch's), where 10.0 ** 400 raised OverflowError
        power = -decimals if decimals < 0 else decimals   # (this module's abs is the op's)
        scale = 10.0 ** power if power <= 308 else math.inf
        if decimals < 0:
            return mul(Round.apply(div(input, scale)), scale)
        return div(Round.apply(mul(input, scale)), scale)
    return Round.apply(input)


def _binary_fn(cls):
    apply = cls.apply

    def fn(input, other, *, out=None):
        return apply(input, other)
    fn.__name__ = cls.op
    return fn


eq, ne, lt, le, gt, ge = (_binary_fn(c) for c in (Eq, Ne, Lt, Le, Gt, Ge))
logical_and, logical_or, logical_xor = (_both_tensors(_binary_fn(c)) for c in (LogicalAnd, LogicalOr, LogicalXor))
bitwise_and, bitwise_or, bitwise_xor = (_binary_fn(c) for c in (BitwiseAnd, BitwiseOr, BitwiseXor))
bitwise_left_shift, bitwise_right_shift = _binary_fn(LeftShift), _binary_fn(RightShift)
logical_not = _unary_fn(LogicalNot, "Computes the element-wise logical NOT of the given input tensor.")
bitwise_not = _unary_fn(BitwiseNot, "Computes the bitwise NOT of the given input tensor.")
isnan = _unary_fn(Isnan, "Returns a new tensor with boolean elements representing if each element is NaN.")
isinf = _unary_fn(Isinf, "Tests if each element of input is infinite.")
isfinite = _unary_fn(Isfinite, "Returns a new tensor with boolean elements representing if each element is finite.")
signbit = _unary_fn(Signbit, "Tests if each element of input has its sign bit set.")
isneginf = _unary_fn(Isneginf, "Tests if each element of input is negative infinity.")
isposinf = _unary_fn(Isposinf, "Tests if each element of input is positive infinity.")
asinh = _unary_fn(Asinh, "Returns the inverse hyperbolic sine of the elements of input.")
acosh = _unary_fn(Acosh, "Returns the inverse hyperbolic cosine of the elements of input.")
atanh = _unary_fn(Atanh, "Returns the inverse hyperbolic tangent of the elements of input.")
deg2rad = _unary_fn(Deg2rad, "Converts angles in degrees to radians.")
rad2deg = _unary_fn(Rad2deg, "Converts angles in radians to degrees.")
gcd, lcm = _both_tensors(_binary_fn(Gcd)), _both_tensors(_binary_fn(Lcm))


def isreal(input):
    """Whether each element is real-valued: every element of a real (non-complex) tensor."""
    from .creation import ones_like
    return ones_like(input, dtype=_dt.bool)


def positive(input):
    """``input`` itself (unary plus), refused on bool tensors as PyTorch refuses them."""
    if input.dtype == _dt.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def equal(input, other):
    """True if two tensors have the same size and elements, False otherwise."""
    return tuple(input.shape) == tuple(other.shape) and bool((input._data == other._data).all())


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether each element of input is close to the corresponding element of other."""
    a, b = _coerce(input._data, other._data if isinstance(other, Tensor) else other)
    return Tensor._adopt_array(_xp(a).isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan), False, None)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether all elements of input and other are close."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """Replaces NaN, positive infinity and negative infinity with the given numbers."""
    if input._data.dtype.kind != "f":   # nothing to replace: a copy of the same dtype, as PyTorch
        return input.clone()
    x = input
    x = where(isnan(x), nan, x)
    big = float(np.finfo(x._data.dtype).max) if x._data.dtype.kind == "f" else 0
    x = where(x == float("inf"), big if posinf is None else posinf, x)
    return where(x == float("-inf"), -big if neginf is None else neginf, x)


subtract, multiply, divide, true_divide, negative, absolute = sub, mul, div, div, neg, abs
arcsin, arccos, arctan, arctan2, fix = asin, acos, atan, atan2, trunc
arcsinh, arccosh, arctanh = asinh, acosh, atanh
clip, sgn = clamp, sign
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


# --------------------------------------------------------------- Tensor methods and operators
# The operators call Op.apply directly: they are the hot path of every program.
def _add(self, other):
    return Add.apply(self, other)


def _sub(self, other):
    return Sub.apply(self, other)


def _rsub(self, other):
    return Rsub.apply(other, self)


def _mul(self, other):
    return Mul.apply(self, other)


def _truediv(self, other):
    return Div.apply(self, other)


def _rtruediv(self, other):
    return Div.apply(other, self)


def _pow(self, other):
    return Pow.apply(self, other)


def _rpow(self, other):
    return Pow.apply(other, self)


def _rfloordiv(self, other):
    return FloorDivide.apply(other, self)


def _rmod(self, other):
    return Remainder.apply(other, self)


def _invert(self):
    return LogicalNot.apply(self) if self._data.dtype == np.bool_ else BitwiseNot.apply(self)


def _eq(self, other):
    return Eq.apply(self, other)   # (None, a string, an object: NotImplemented, so unequal, as PyTorch)


def _ne(self, other):
    return Ne.apply(self, other)


# what the arithmetic and comparison operators take besides tensors; anything else (a program's own
# object, a string, None) makes them answer NotImplemented, as PyTorch's do, so that Python tries the
# other operand's reflected method (``__radd__``, ``__rmatmul__``, ``__eq__``) and otherwise raises its
# own TypeError ("unsupported operand type(s) for +: 'Tensor' and 'A'"); a list or tuple is no operand
# either (``x + [1, 2]`` raises, and ``x == [1, 2]`` is False, as in PyTorch)
_OPERANDS = (Tensor, numbers.Number, np.ndarray, np.generic)
# the operands met on every step, known without a call: numbers.Number is an ABC, and isinstance with
# it runs abc's __instancecheck__ in Python (``y - 0.5``, 500 times a tiny-op chain's step)
_PLAIN_OPERANDS = frozenset((Tensor, float, int, bool))


def foreign_operand(other):
    """Whether ``other`` is no operand of a tensor operator (a CuPy array is one, and so is what converts
    to an array by its type's ``__array__``, as the programs' NumPy arrays; programs' own classes cannot
    define that method)."""
    return not isinstance(other, _OPERANDS) and (isinstance(other, (list, tuple)) or get_array_module(other) is np
                                                 and not hasattr(type(other), "__array__"))


def _reflecting(fn, op=None):
    """The operator ``fn`` with the foreign-operand check; with ``op`` (fn is ``op.apply(self, other)``)
    it applies the op itself, one Python call less on the hottest path of every model and program."""
    apply = op.apply if op is not None else fn

    def operator(self, other):
        if type(other) not in _PLAIN_OPERANDS and foreign_operand(other):
            return NotImplemented
        return apply(self, other)
    operator.__name__ = getattr(fn, "__name__", "operator")
    operator.__doc__ = fn.__doc__
    operator.__wrapped__ = apply   # for callers whose operand is a tensor or a number already (program.compiler)
    return operator


_OPERATORS = {
    "__add__": _add, "__radd__": _add, "__sub__": _sub, "__rsub__": _rsub,
    "__mul__": _mul, "__rmul__": _mul, "__truediv__": _truediv, "__rtruediv__": _rtruediv,
    "__floordiv__": floor_divide, "__rfloordiv__": _rfloordiv, "__mod__": remainder,
    "__rmod__": _rmod, "__pow__": _pow, "__rpow__": _rpow, "__neg__": neg, "__pos__": lambda self: self,
    "__abs__": abs, "__eq__": _eq, "__ne__": _ne, "__lt__": lt, "__le__": le, "__gt__": gt,
    "__ge__": ge, "__invert__": _invert, "__and__": bitwise_and, "__rand__": bitwise_and,
    "__or__": bitwise_or, "__ror__": bitwise_or, "__xor__": bitwise_xor, "__rxor__": bitwise_xor,
    "__lshift__": _lshift, "__rlshift__": _rlshift, "__rshift__": _rshift, "__rrshift__": _rrshift,
}

_UNARY_OPERATORS = frozenset(("__neg__", "__pos__", "__abs__", "__invert__"))
# the operators that are ``Op.apply(self, other)`` and nothing else (their function above says so)
_APPLYING = {_add: Add, _sub: Sub, _mul: Mul, _truediv: Div, _pow: Pow, _eq: Eq, _ne: Ne}

_METHODS = [
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
    "remainder", "fmod", "pow", "neg", "negative", "abs", "absolute", "exp", "exp2", "log", "log2",
    "log10", "log1p", "expm1", "sqrt", "rsqrt", "square", "sin", "cos", "tan", "asin", "acos",
    "atan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "sigmoid", "relu", "sign", "sgn",
    "floor", "ceil", "round", "trunc", "fix", "frac", "clamp", "clip", "clamp_min", "clamp_max",
    "maximum", "minimum", "fmax", "fmin", "reciprocal", "erf", "erfc", "atan2", "arctan2", "lerp",
    "addcmul", "addcdiv", "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less",
    "less_equal", "not_equal", "equal", "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "isnan", "isinf", "isfinite",
    "isclose", "allclose", "nan_to_num", "signbit", "xlogy", "hypot", "logaddexp", "logaddexp2", "sinc",
    "asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg", "gcd", "lcm", "isneginf",
    "isposinf", "isreal", "positive", "ldexp", "frexp", "nextafter", "bitwise_left_shift", "bitwise_right_shift",
]

# in-place variants: name_ runs the out-of-place op and writes the result back
_INPLACE = [
    "add", "sub", "mul", "div", "pow", "neg", "abs", "exp", "log", "log1p", "expm1", "sqrt",
    "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "relu", "sign", "floor", "ceil", "round",
    "trunc", "clamp", "clip", "clamp_min", "clamp_max", "reciprocal", "remainder", "fmod",
    "square", "lerp", "addcmul", "addcdiv", "floor_divide", "erf", "erfc", "exp2", "frac",
    "nan_to_num", "log2", "log10", "atan", "asin", "acos", "sinh", "cosh", "logical_not",
    "negative", "subtract", "multiply", "divide", "true_divide", "maximum", "minimum", "atan2",
    "hypot", "xlogy", "absolute", "sgn", "fix", "arcsin", "arccos", "arctan", "arctan2", "sinc",
    "asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg", "gcd", "lcm",
    "ldexp", "nextafter", "bitwise_left_shift", "bitwise_right_shift",
]


def _where_method(self, condition, other):
    return where(condition, self, other)


def _make_inplace(fn):
    def method(self, *args, **kwargs):
        return self._inplace(fn, *args, **kwargs)
    method.__name__ = fn.__name__ + "_"
    return method


def _fill(input, value):
    return Fill.apply(input, value)


def fill_(self, value):
    """Fills self with value (a number or a 0-d tensor)."""
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value._data.ndim} dimensions.")
    return self._inplace(_fill, value)


def fill_diagonal_(self, fill_value, wrap=False):
    """Fills the main diagonal (i, i, ..., i) with fill_value, in place through diagonal views (so
    the node is CopySlices, as PyTorch's); every dimension must be equal past 2-D. A tall matrix
    with wrap=True starts the diagonal again every ncols + 1 rows, as NumPy's fill_diagonal."""
    if isinstance(fill_value, (str, bytes)) or not isinstance(fill_value, (numbers.Number, Tensor)) or (
            isinstance(fill_value, Tensor) and fill_value._data.ndim):
        raise TypeError(f"fill_diagonal_(): argument 'fill_value' (position 1) must be Number, not "
                        f"{type(fill_value).__name__}")
    if type(wrap) is not bool:
        raise TypeError(f"fill_diagonal_(): argument 'wrap' (position 2) must be bool, not {type(wrap).__name__}")
    shape = self._data.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if self.requires_grad and self.grad_fn is None and _grad_state.grad_enabled:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    rows, cols = shape[0], shape[1]
    step = cols + 1 if len(shape) == 2 and wrap and rows > cols else rows
    for start in range(0, rows, step):
        view = self[start:start + cols] if step < rows else self
        for _ in range(len(shape) - 1):
            view = view.diagonal(0, 0, 1)
        fill_(view, fill_value)
    return self


def zero_(self):
    """Fills self with zeros."""
    return self._inplace(Zero.apply, 0)


def _register():
    g = globals()
    for name, fn in _OPERATORS.items():
        setattr(Tensor, name, fn if name in _UNARY_OPERATORS else _reflecting(fn, _APPLYING.get(fn)))
    for name in _METHODS:
        setattr(Tensor, name, g[name])
    for name in _INPLACE:
        setattr(Tensor, name + "_", _make_inplace(g[name]))
    Tensor.where = _where_method
    Tensor.float_power = float_power
    Tensor.float_power_ = _float_power_
    Tensor.copysign = copysign
    Tensor.copysign_ = _make_inplace(copysign)
    Tensor.fill_ = fill_
    Tensor.fill_diagonal_ = fill_diagonal_
    Tensor.zero_ = zero_
    for name, method in (("__iadd__", "add_"), ("__isub__", "sub_"), ("__imul__", "mul_"), ("__itruediv__", "div_"),
                         ("__ipow__", "pow_"), ("__ifloordiv__", "floor_divide_"), ("__imod__", "remainder_")):
        setattr(Tensor, name, _reflecting(getattr(Tensor, method)))


_register()
