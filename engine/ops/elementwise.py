"""Elementwise ops: arithmetic, unary maths, comparisons, casts.

Each op is one line of forward and one line of derivative. Broadcasting is not
their concern: the backward engine sums every gradient back to its input's
shape in one place. Type promotion follows torch.result_type.
"""
import math

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Function
from ..device import array_module_for, get_array_module
from ..tensor import Tensor

__all__ = [
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
    "remainder", "fmod", "pow", "neg", "negative", "abs", "absolute", "exp", "exp2", "log", "log2",
    "log10", "log1p", "expm1", "sqrt", "rsqrt", "square", "sin", "cos", "tan", "asin", "acos",
    "atan", "sinh", "cosh", "tanh", "sigmoid", "relu", "sign", "sgn", "floor", "ceil", "round",
    "trunc", "frac", "clamp", "clip", "clamp_min", "clamp_max", "maximum", "minimum", "fmax",
    "fmin", "where", "reciprocal", "erf", "erfc", "atan2", "lerp", "addcmul", "addcdiv",
    "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal",
    "not_equal", "equal", "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "isnan", "isinf", "isfinite",
    "isclose", "allclose", "nan_to_num", "signbit", "xlogy", "hypot", "logaddexp",
]

_ndarray = np.ndarray
_float, _int, _bool = float, int, bool


# --------------------------------------------------------------- promotion
def _coerce(a, b):
    """Casts two operands (arrays or Python numbers) to their torch.result_type."""
    ta, tb = type(a), type(b)
    if ta is tb is _ndarray and a.dtype is b.dtype:
        return a, b
    if tb is _float and ta is _ndarray and a.dtype.kind == "f":
        return a, b
    if tb is _int and ta is _ndarray and a.dtype.kind in "fiu":
        return a, b
    if ta is _float and tb is _ndarray and b.dtype.kind == "f":
        return a, b
    if ta is _int and tb is _ndarray and b.dtype.kind in "fiu":
        return a, b
    want = _dt.result_type(_Meta(a), _Meta(b)).np
    return _cast_to(a, want), _cast_to(b, want)


class _Meta:
    """Stands in for an operand in result_type: a tensor's dtype and rank, or the number."""
    __slots__ = ("dtype", "ndim")

    def __new__(cls, x):
        if not hasattr(x, "dtype"):
            return x
        self = object.__new__(cls)
        self.dtype = _dt.from_numpy_dtype(x.dtype)
        self.ndim = x.ndim
        return self


def _cast_to(x, np_dtype):
    if hasattr(x, "dtype"):
        return x if x.dtype == np_dtype else x.astype(np_dtype)
    return x


def _default_float_np():
    return _dt.get_default_dtype().np


def _floating(x):
    """Integer and bool inputs of a float-valued op compute in the default float dtype."""
    if x.dtype.kind in "fc":
        return x
    return x.astype(_default_float_np())


def _xp(x):
    return np if type(x) is _ndarray else get_array_module(x)


# --------------------------------------------------------------- arithmetic
class Add(Function):
    __slots__ = ()
    op = "add"

    def forward(self, a, b):
        a, b = _coerce(a, b)
        return a + b

    def backward(self, F, g):
        return g, g


class Sub(Function):
    __slots__ = ()
    op = "sub"

    def forward(self, a, b):
        a, b = _coerce(a, b)
        return a - b

    def backward(self, F, g):
        return g, -g


class Mul(Function):
    __slots__ = ()
    op = "mul"
    saves = (0, 1)

    def forward(self, a, b):
        a, b = _coerce(a, b)
        return a * b

    def backward(self, F, g, a, b):
        return g * b, g * a


class Div(Function):
    __slots__ = ()
    op = "div"
    saves = (0, 1)

    def forward(self, a, b):
        a, b = _coerce(a, b)
        out = a / b
        if hasattr(out, "dtype") and out.dtype.kind == "f" and (
                (hasattr(a, "dtype") and a.dtype.kind != "f") or not hasattr(a, "dtype")) and (
                not hasattr(b, "dtype") or b.dtype.kind != "f"):
            out = out.astype(_default_float_np())  # int / int is true division in the default dtype
        return out

    def backward(self, F, g, a, b):
        return g / b, -g * a / (b * b)


class FloorDivide(Function):
    __slots__ = ()
    op = "floor_divide"
    differentiable = False

    def forward(self, a, b):
        a, b = _coerce(a, b)
        if _integral(a) and _integral(b) and bool((_xp(b).asarray(b) == 0).any() if hasattr(b, "dtype") else b == 0):
            raise RuntimeError("ZeroDivisionError")
        return a // b


def _integral(x):
    return x.dtype.kind in "biu" if hasattr(x, "dtype") else isinstance(x, int)


class Remainder(Function):
    __slots__ = ()
    op = "remainder"
    saves = (0, 1)

    def forward(self, a, b):
        a, b = _coerce(a, b)
        return a % b

    def backward(self, F, g, a, b):
        return g, -g * F.floor(a / b) if _needs_tensor_grad(b) else None


class Fmod(Function):
    __slots__ = ()
    op = "fmod"
    saves = (0, 1)

    def forward(self, a, b):
        a, b = _coerce(a, b)
        return _xp(a if hasattr(a, "dtype") else b).fmod(a, b)

    def backward(self, F, g, a, b):
        return g, -g * F.trunc(a / b) if _needs_tensor_grad(b) else None


def _needs_tensor_grad(x):
    return hasattr(x, "shape")


class Pow(Function):
    __slots__ = ()
    op = "pow"
    saves = (0, 1, -1)

    def forward(self, a, b):
        a, b = _coerce(a, b)
        if hasattr(a, "dtype") and a.dtype.kind in "iu":
            if (isinstance(b, int) and b < 0) or (hasattr(b, "dtype") and b.dtype.kind in "iu" and (b < 0).any()):
                raise RuntimeError("Integers to negative integer powers are not allowed.")
        return a ** b

    def backward(self, F, g, a, b, y):
        ga = gb = None
        if hasattr(a, "shape"):
            if hasattr(b, "shape"):
                ga = F.where(b == 0, 0.0, g * b * a ** (b - 1))
            else:
                ga = g * 0 if b == 0 else g * b * a ** (b - 1)
        if hasattr(b, "shape"):
            # d/db a**b = a**b log(a), taken as 0 where a == 0 and b >= 0 (PyTorch's choice)
            if hasattr(a, "shape"):
                gb = F.where((a == 0) & (b >= 0), 0.0, g * y * F.log(a))
            elif a > 0:
                gb = g * y * math.log(a)
            else:
                gb = F.where(b >= 0, 0.0, g * y * float("nan")) if a == 0 else g * y * float("nan")
        return ga, gb


class Neg(Function):
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
def _unary(op, forward, grad, saves="x", differentiable=True, floating=True):
    """Defines a one-input op from its forward on arrays and its derivative rule.

    ``grad(F, g, x, y)`` receives what ``saves`` names: "x" the input, "y" the
    output, "xy" both; the names are passed in that order.
    """
    save_idx = {"x": (0,), "y": (-1,), "xy": (0, -1), "": ()}[saves]

    def fwd(self, x):
        if floating:
            x = _floating(x)
        return forward(_xp(x), x)

    def bwd(self, F, g, *saved):
        return (grad(F, g, *saved),)

    name = "".join(part.capitalize() for part in op.split("_"))
    return type(name, (Function,), {"__slots__": (), "op": op, "saves": save_idx,
                                    "differentiable": differentiable,
                                    "forward": fwd, "backward": bwd})


_SQRT_PI_2 = 2.0 / math.sqrt(math.pi)

Exp = _unary("exp", lambda xp, x: xp.exp(x), lambda F, g, y: g * y, "y")
Exp2 = _unary("exp2", lambda xp, x: xp.exp2(x), lambda F, g, y: g * y * math.log(2.0), "y")
Expm1 = _unary("expm1", lambda xp, x: xp.expm1(x), lambda F, g, y: g * (y + 1), "y")
Log = _unary("log", lambda xp, x: xp.log(x), lambda F, g, x: g / x)
Log2 = _unary("log2", lambda xp, x: xp.log2(x), lambda F, g, x: g / (x * math.log(2.0)))
Log10 = _unary("log10", lambda xp, x: xp.log10(x), lambda F, g, x: g / (x * math.log(10.0)))
Log1p = _unary("log1p", lambda xp, x: xp.log1p(x), lambda F, g, x: g / (x + 1))
Sqrt = _unary("sqrt", lambda xp, x: xp.sqrt(x), lambda F, g, y: g / (2 * y), "y")
Rsqrt = _unary("rsqrt", lambda xp, x: 1 / xp.sqrt(x), lambda F, g, y: -0.5 * g * y * y * y, "y")
Square = _unary("square", lambda xp, x: x * x, lambda F, g, x: 2 * g * x, floating=False)
Sin = _unary("sin", lambda xp, x: xp.sin(x), lambda F, g, x: g * F.cos(x))
Cos = _unary("cos", lambda xp, x: xp.cos(x), lambda F, g, x: -g * F.sin(x))
Tan = _unary("tan", lambda xp, x: xp.tan(x), lambda F, g, y: g * (1 + y * y), "y")
Asin = _unary("asin", lambda xp, x: xp.arcsin(x), lambda F, g, x: g / F.sqrt(1 - x * x))
Acos = _unary("acos", lambda xp, x: xp.arccos(x), lambda F, g, x: -g / F.sqrt(1 - x * x))
Atan = _unary("atan", lambda xp, x: xp.arctan(x), lambda F, g, x: g / (1 + x * x))
Sinh = _unary("sinh", lambda xp, x: xp.sinh(x), lambda F, g, x: g * F.cosh(x))
Cosh = _unary("cosh", lambda xp, x: xp.cosh(x), lambda F, g, x: g * F.sinh(x))
Tanh = _unary("tanh", lambda xp, x: xp.tanh(x), lambda F, g, y: g * (1 - y * y), "y")
Sigmoid = _unary("sigmoid", lambda xp, x: _sigmoid(xp, x), lambda F, g, y: g * y * (1 - y), "y")
Relu = _unary("relu", lambda xp, x: xp.maximum(x, 0), lambda F, g, y: g * (y > 0), "y", floating=False)
Abs = _unary("abs", lambda xp, x: xp.abs(x), lambda F, g, x: g * F.sign(x), floating=False)
Reciprocal = _unary("reciprocal", lambda xp, x: 1 / x, lambda F, g, y: -g * y * y, "y")
Erf = _unary("erf", lambda xp, x: _erf(xp, x), lambda F, g, x: g * _SQRT_PI_2 * F.exp(-x * x))
Erfc = _unary("erfc", lambda xp, x: 1 - _erf(xp, x), lambda F, g, x: -g * _SQRT_PI_2 * F.exp(-x * x))
Frac = _unary("frac", lambda xp, x: x - xp.trunc(x), lambda F, g, x: g, "", floating=False)
# piecewise-constant: gradient zero everywhere, as in PyTorch
Sign = _unary("sign", lambda xp, x: xp.sign(x), lambda F, g: g * 0, "", floating=False)
Floor = _unary("floor", lambda xp, x: xp.floor(x) if x.dtype.kind == "f" else x.copy(), lambda F, g: g * 0, "", floating=False)
Ceil = _unary("ceil", lambda xp, x: xp.ceil(x) if x.dtype.kind == "f" else x.copy(), lambda F, g: g * 0, "", floating=False)
Trunc = _unary("trunc", lambda xp, x: xp.trunc(x) if x.dtype.kind == "f" else x.copy(), lambda F, g: g * 0, "", floating=False)
Round = _unary("round", lambda xp, x: xp.round(x) if x.dtype.kind == "f" else x.copy(), lambda F, g: g * 0, "", floating=False)


def _sigmoid(xp, x):
    # tanh form: no overflow warning for large |x| and exact at 0
    return 0.5 * (xp.tanh(0.5 * x) + 1.0)


def _erf(xp, x):
    if xp is not np:
        import cupyx.scipy.special
        return cupyx.scipy.special.erf(x)
    return _erf_numpy(x)


_erf_vectorized = np.frompyfunc(math.erf, 1, 1)


def _erf_numpy(x):
    return _erf_vectorized(x).astype(x.dtype)


# --------------------------------------------------------------- two-input maths
class Maximum(Function):
    __slots__ = ()
    op = "maximum"
    saves = (0, 1)

    def forward(self, a, b):
        a, b = _coerce(a, b)
        return _xp(a).maximum(a, b)

    def backward(self, F, g, a, b):
        # ties split the gradient evenly, as PyTorch does
        wa = (a > b) + (a == b) * 0.5
        return g * wa, g * (1 - wa)


class Minimum(Function):
    __slots__ = ()
    op = "minimum"
    saves = (0, 1)

    def forward(self, a, b):
        a, b = _coerce(a, b)
        return _xp(a).minimum(a, b)

    def backward(self, F, g, a, b):
        wa = (a < b) + (a == b) * 0.5
        return g * wa, g * (1 - wa)


class Atan2(Function):
    __slots__ = ()
    op = "atan2"
    saves = (0, 1)

    def forward(self, a, b):
        a, b = _coerce(_floating(a), _floating(b))
        return _xp(a).arctan2(a, b)

    def backward(self, F, g, a, b):
        d = a * a + b * b
        return g * b / d, -g * a / d


class Clamp(Function):
    """clamp(x, min, max): the gradient passes where min <= x <= max, bounds included."""
    __slots__ = ()
    op = "clamp"
    saves = (0, 1, 2)

    def forward(self, x, lo, hi):
        xp = _xp(x)
        if lo is not None:
            x, lo = _coerce(x, lo)
        if hi is not None:
            x, hi = _coerce(x, hi)
            if lo is not None:
                lo, _ = _coerce(lo, x)
        if lo is not None and hi is not None:
            return xp.minimum(xp.maximum(x, lo), hi)
        if lo is not None:
            return xp.maximum(x, lo)
        return xp.minimum(x, hi)

    def backward(self, F, g, x, lo, hi):
        keep = None
        glo = ghi = None
        if lo is not None:
            keep = x >= lo
            if hasattr(lo, "shape"):
                glo = g * (x < lo)
        if hi is not None:
            below = x <= hi
            keep = below if keep is None else keep & below
            if hasattr(hi, "shape"):
                ghi = g * (x > hi) * (x >= lo if lo is not None else 1)
        if glo is not None and hi is not None:
            glo = glo * (x <= hi if not hasattr(hi, "shape") else lo <= hi)
        return g * keep, glo, ghi


class Where(Function):
    __slots__ = ()
    op = "where"
    saves = (0,)

    def forward(self, cond, a, b):
        a, b = _coerce(a, b)
        return _xp(cond).where(cond, a, b)

    def backward(self, F, g, cond):
        return None, F.where(cond, g, 0.0), F.where(cond, 0.0, g)


class Lerp(Function):
    __slots__ = ()
    op = "lerp"
    saves = (0, 1, 2)

    def forward(self, a, b, w):
        return a + w * (b - a)

    def backward(self, F, g, a, b, w):
        gw = g * (b - a) if hasattr(w, "shape") else None
        return g * (1 - w), g * w, gw


# --------------------------------------------------------------- not differentiable
def _nondiff(op, forward):
    def fwd(self, *args):
        return forward(_xp(next(a for a in args if hasattr(a, "dtype"))), *args)
    name = "".join(part.capitalize() for part in op.split("_"))
    return type(name, (Function,), {"__slots__": (), "op": op, "differentiable": False, "forward": fwd})


def _cmp(fn):
    def forward(xp, a, b):
        a, b = _coerce(a, b)
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
BitwiseAnd = _nondiff("bitwise_and", _cmp(lambda a, b: _bitwise_check(a, b) & b))
BitwiseOr = _nondiff("bitwise_or", _cmp(lambda a, b: _bitwise_check(a, b) | b))
BitwiseXor = _nondiff("bitwise_xor", _cmp(lambda a, b: _bitwise_check(a, b) ^ b))
BitwiseNot = _nondiff("bitwise_not", lambda xp, a: ~_bitwise_check(a, a))
Isnan = _nondiff("isnan", lambda xp, a: xp.isnan(a))
Isinf = _nondiff("isinf", lambda xp, a: xp.isinf(a))
Isfinite = _nondiff("isfinite", lambda xp, a: xp.isfinite(a))
Signbit = _nondiff("signbit", lambda xp, a: xp.signbit(a))


def _bitwise_check(a, b):
    for x in (a, b):
        if hasattr(x, "dtype") and x.dtype.kind == "f":
            raise RuntimeError('"bitwise_cpu" not implemented for \'Float\'')
    return a


class Cast(Function):
    """Tensor.to(dtype): the gradient is cast back by the engine."""
    __slots__ = ()
    op = "to"

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


class ToDevice(Function):
    __slots__ = ()
    op = "to"

    def forward(self, x, device):
        xp = array_module_for(device)
        if xp is np:
            return x if type(x) is _ndarray else x.get()
        return xp.asarray(x)

    def backward(self, F, g):
        return (g,)


# --------------------------------------------------------------- public functions
def add(input, other, *, alpha=1, out=None):
    """Adds other, scaled by alpha, to input."""
    if alpha != 1:
        other = mul(other, alpha) if isinstance(other, Tensor) else other * alpha
    return Add.apply(input, other)


def sub(input, other, *, alpha=1, out=None):
    """Subtracts other, scaled by alpha, from input."""
    if alpha != 1:
        other = mul(other, alpha) if isinstance(other, Tensor) else other * alpha
    return Sub.apply(input, other)


def mul(input, other, *, out=None):
    """Multiplies input by other."""
    return Mul.apply(input, other)


def div(input, other, *, rounding_mode=None, out=None):
    """Divides each element of input by the corresponding element of other."""
    if rounding_mode is None:
        return Div.apply(input, other)
    if rounding_mode == "floor":
        return FloorDivide.apply(input, other)
    if rounding_mode == "trunc":
        return trunc(Div.apply(input, other)).to(result_dtype(input, other)) if _is_int(input, other) \
            else trunc(Div.apply(input, other))
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")


def _is_int(*xs):
    return _dt.result_type(*xs).category < 2


def result_dtype(*xs):
    return _dt.result_type(*xs)


def floor_divide(input, other, *, out=None):
    return FloorDivide.apply(input, other)


def remainder(input, other, *, out=None):
    return Remainder.apply(input, other)


def fmod(input, other, *, out=None):
    return Fmod.apply(input, other)


def pow(input, exponent, *, out=None):
    """Takes the power of each element in input with exponent."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("pow() expects at least one tensor argument")
    return Pow.apply(input, exponent)


def neg(input, *, out=None):
    return Neg.apply(input)


def maximum(input, other, *, out=None):
    return Maximum.apply(input, other)


def minimum(input, other, *, out=None):
    return Minimum.apply(input, other)


def atan2(input, other, *, out=None):
    return Atan2.apply(input, other)


def clamp(input, min=None, max=None, *, out=None):
    """Clamps all elements in input into the range [min, max]."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return Clamp.apply(input, min, max)


def clamp_min(input, min):
    return Clamp.apply(input, min, None)


def clamp_max(input, max):
    return Clamp.apply(input, None, max)


def where(condition, input=None, other=None):
    """Selects elements from input where condition holds, else from other."""
    if input is None and other is None:
        from .indexing import nonzero
        return nonzero(condition, as_tuple=True)
    cond = condition if isinstance(condition, Tensor) else Tensor._make(np.asarray(condition, dtype=bool), False, None)
    if cond._data.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {cond.dtype}")
    return Where.apply(cond, input, other)


def lerp(input, end, weight):
    return Lerp.apply(input, end, weight)


def addcmul(input, tensor1, tensor2, *, value=1):
    return add(input, mul(mul(tensor1, tensor2), value))


def addcdiv(input, tensor1, tensor2, *, value=1):
    return add(input, mul(div(tensor1, tensor2), value))


def xlogy(input, other):
    return where(input == 0, 0.0, mul(input, log(other)))


def hypot(input, other):
    return sqrt(add(mul(input, input), mul(other, other)))


def logaddexp(input, other):
    m = maximum(input, other).detach()
    return add(m, log(add(exp(sub(input, m)), exp(sub(other, m)))))


def _unary_fn(cls, doc):
    def fn(input, *, out=None):
        return cls.apply(input)
    fn.__name__ = cls.op
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
sign = _unary_fn(Sign, "Returns the signs of the elements of input.")
floor = _unary_fn(Floor, "Returns the floor of the elements of input.")
ceil = _unary_fn(Ceil, "Returns the ceil of the elements of input.")
trunc = _unary_fn(Trunc, "Returns the truncated integer values of the elements of input.")


def round(input, *, decimals=0, out=None):
    """Rounds elements of input to the nearest integer (half to even)."""
    if decimals:
        scale = 10.0 ** decimals
        return div(Round.apply(mul(input, scale)), scale)
    return Round.apply(input)


def _binary_fn(cls):
    def fn(input, other, *, out=None):
        return cls.apply(input, other)
    fn.__name__ = cls.op
    return fn


eq, ne, lt, le, gt, ge = (_binary_fn(c) for c in (Eq, Ne, Lt, Le, Gt, Ge))
logical_and, logical_or, logical_xor = (_binary_fn(c) for c in (LogicalAnd, LogicalOr, LogicalXor))
bitwise_and, bitwise_or, bitwise_xor = (_binary_fn(c) for c in (BitwiseAnd, BitwiseOr, BitwiseXor))
logical_not = _unary_fn(LogicalNot, "Computes the element-wise logical NOT of the given input tensor.")
bitwise_not = _unary_fn(BitwiseNot, "Computes the bitwise NOT of the given input tensor.")
isnan = _unary_fn(Isnan, "Returns a new tensor with boolean elements representing if each element is NaN.")
isinf = _unary_fn(Isinf, "Tests if each element of input is infinite.")
isfinite = _unary_fn(Isfinite, "Returns a new tensor with boolean elements representing if each element is finite.")
signbit = _unary_fn(Signbit, "Tests if each element of input has its sign bit set.")


def equal(input, other):
    """True if two tensors have the same size and elements, False otherwise."""
    return tuple(input.shape) == tuple(other.shape) and bool((input._data == other._data).all())


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    a, b = _coerce(input._data, other._data if isinstance(other, Tensor) else other)
    return Tensor._make(_xp(a).isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan), False, None)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    x = input
    x = where(isnan(x), nan, x)
    big = float(np.finfo(x._data.dtype).max) if x._data.dtype.kind == "f" else 0
    x = where(x == float("inf"), big if posinf is None else posinf, x)
    return where(x == float("-inf"), -big if neginf is None else neginf, x)


subtract, multiply, divide, true_divide, negative, absolute = sub, mul, div, div, neg, abs
clip, sgn, fmax, fmin = clamp, sign, maximum, minimum
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


# --------------------------------------------------------------- Tensor methods and operators
def _rsub(self, other):
    return Sub.apply(other, self)


def _rtruediv(self, other):
    return Div.apply(other, self)


def _rpow(self, other):
    return Pow.apply(other, self)


def _rfloordiv(self, other):
    return FloorDivide.apply(other, self)


def _rmod(self, other):
    return Remainder.apply(other, self)


def _invert(self):
    return LogicalNot.apply(self) if self._data.dtype == np.bool_ else BitwiseNot.apply(self)


def _and(self, other):
    return BitwiseAnd.apply(self, other)


def _or(self, other):
    return BitwiseOr.apply(self, other)


def _xor(self, other):
    return BitwiseXor.apply(self, other)


_OPERATORS = {
    "__add__": add, "__radd__": add, "__sub__": sub, "__rsub__": _rsub,
    "__mul__": mul, "__rmul__": mul, "__truediv__": div, "__rtruediv__": _rtruediv,
    "__floordiv__": floor_divide, "__rfloordiv__": _rfloordiv, "__mod__": remainder,
    "__rmod__": _rmod, "__pow__": pow, "__rpow__": _rpow, "__neg__": neg, "__pos__": lambda self: self,
    "__abs__": abs, "__eq__": eq, "__ne__": ne, "__lt__": lt, "__le__": le, "__gt__": gt,
    "__ge__": ge, "__invert__": _invert, "__and__": _and, "__rand__": _and, "__or__": _or,
    "__ror__": _or, "__xor__": _xor, "__rxor__": _xor,
}

_METHODS = [
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
    "remainder", "fmod", "pow", "neg", "negative", "abs", "absolute", "exp", "exp2", "log", "log2",
    "log10", "log1p", "expm1", "sqrt", "rsqrt", "square", "sin", "cos", "tan", "asin", "acos",
    "atan", "sinh", "cosh", "tanh", "sigmoid", "relu", "sign", "sgn", "floor", "ceil", "round",
    "trunc", "frac", "clamp", "clip", "clamp_min", "clamp_max", "maximum", "minimum", "fmax", "fmin",
    "reciprocal", "erf", "erfc", "atan2", "lerp", "addcmul", "addcdiv", "eq", "ne", "lt", "le", "gt",
    "ge", "greater", "greater_equal", "less", "less_equal", "not_equal", "equal", "logical_and",
    "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_not", "isnan", "isinf", "isfinite", "isclose", "allclose", "nan_to_num", "signbit",
    "xlogy", "hypot", "logaddexp",
]

# in-place variants: name_ runs the out-of-place op and writes the result back
_INPLACE = [
    "add", "sub", "mul", "div", "pow", "neg", "abs", "exp", "log", "log1p", "expm1", "sqrt",
    "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "relu", "sign", "floor", "ceil", "round",
    "trunc", "clamp", "clip", "clamp_min", "clamp_max", "reciprocal", "remainder", "fmod",
    "square", "lerp", "addcmul", "addcdiv", "floor_divide", "erf", "exp2", "frac", "nan_to_num",
    "log2", "log10", "atan", "asin", "acos", "sinh", "cosh", "logical_not", "negative", "subtract",
    "multiply", "divide", "true_divide", "maximum", "minimum", "atan2", "hypot", "xlogy",
]


def _where_method(self, condition, other):
    return where(condition, self, other)


def _make_inplace(fn):
    def method(self, *args, **kwargs):
        return self._inplace(fn, *args, **kwargs)
    method.__name__ = fn.__name__ + "_"
    return method


def _register():
    g = globals()
    for name, fn in _OPERATORS.items():
        setattr(Tensor, name, fn)
    for name in _METHODS:
        setattr(Tensor, name, g[name])
    for name in _INPLACE:
        setattr(Tensor, name + "_", _make_inplace(g[name]))
    Tensor.where = _where_method
    Tensor.__iadd__ = Tensor.add_
    Tensor.__isub__ = Tensor.sub_
    Tensor.__imul__ = Tensor.mul_
    Tensor.__itruediv__ = Tensor.div_
    Tensor.__ipow__ = Tensor.pow_
    Tensor.__ifloordiv__ = Tensor.floor_divide_
    Tensor.__imod__ = Tensor.remainder_


_register()
