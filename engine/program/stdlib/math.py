"""Program-side ``math``: CPython's functions, with every one that can build a big
integer (``factorial``, ``comb``, ``perm``, ``prod``, ``lcm``) checking the integer-size
cap (``guards.MAX_INT_BITS``) before it computes, and those that take an iterable
(``fsum``, ``prod``, ``sumprod``) looping through the interpreter."""
import math as _m

from .. import guards
from . import counted, materialize

_FLOAT_FUNCS = ("acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "copysign", "cos",
                "cosh", "degrees", "dist", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "floor", "fmod",
                "frexp", "gamma", "gcd", "hypot", "isclose", "isfinite", "isinf", "isnan", "isqrt", "ldexp",
                "lgamma", "log", "log10", "log1p", "log2", "modf", "nextafter", "radians", "remainder", "sin",
                "sinh", "sqrt", "tan", "tanh", "trunc", "ulp")
__all__ = [n for n in _FLOAT_FUNCS if hasattr(_m, n)] + [
    "e", "pi", "tau", "inf", "nan", "pow", "factorial", "comb", "perm", "prod", "lcm", "fsum", "sumprod"]

e, pi, tau, inf, nan = _m.e, _m.pi, _m.tau, _m.inf, _m.nan
_MAX = guards.MAX_INT_BITS


def _factorial_bits(n):
    """An upper bound on log2(n!) (n >= 1)."""
    if n < 2:
        return 1
    return int(n * _m.log2(n) - n * 1.4426950408889634 + 0.5 * _m.log2(2 * _m.pi * n)) + 2


def _check_bits(bits):
    if bits > _MAX:
        raise guards.abort_int(bits)


def factorial(n):
    """n!, refused past the integer-size cap before it is computed."""
    if type(n) is int and n > 20:
        _check_bits(_factorial_bits(n))
    return _m.factorial(n)


def comb(n, k):
    """n choose k, refused past the integer-size cap before it is computed."""
    if isinstance(n, int) and isinstance(k, int) and not isinstance(n, bool) and 0 <= k <= n and n > 60:
        k2 = min(k, n - k)
        if k2 > 0:
            # log2 C(n, k) <= k * log2(e * n / k)
            _check_bits(int(k2 * _m.log2(_m.e * n / k2)) + 1)
    return _m.comb(n, k)


def perm(n, k=None):
    """n! / (n - k)!, refused past the integer-size cap before it is computed."""
    if isinstance(n, int) and not isinstance(n, bool) and n > 20:
        kk = n if k is None else k
        if isinstance(kk, int) and 0 < kk <= n:
            _check_bits(int(kk * _m.log2(n)) + 1)
    return _m.perm(n, k)


def lcm(*integers):
    bits = 0
    for x in integers:
        if isinstance(x, int):
            bits += abs(x).bit_length()
    _check_bits(bits)
    return _m.lcm(*integers)


def pow(x, y):
    """Python's math.pow: always a float (no big integers)."""
    return _m.pow(x, y)


def prod(iterable, *, start=1):
    """The product of the items, each step counted and each integer result checked."""
    acc = start
    from ..operators import BINARY
    mul = BINARY["Mult"]
    for x in counted(iterable):
        acc = mul(acc, x)
        if type(acc) is int:
            guards.check_int(acc)
    return acc


def fsum(iterable):
    return _m.fsum(materialize(iterable))


def sumprod(p, q):
    from ..operators import BINARY
    mul, add = BINARY["Mult"], BINARY["Add"]
    a, b = materialize(p), materialize(q)
    if len(a) != len(b):
        raise ValueError("Inputs are not the same length")
    acc = 0
    for x, y in zip(a, b):
        acc = add(acc, mul(x, y))
    return acc


for _n in _FLOAT_FUNCS:
    if hasattr(_m, _n):
        globals()[_n] = getattr(_m, _n)
del _n
