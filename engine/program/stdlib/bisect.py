"""Program-side ``bisect``: binary search and insertion in a program's sorted list, as CPython's
(a sampler's ``bisect.bisect_right(cumulative_sizes, idx)``). Items compare as the interpreter
compares them; a ``key`` is called as program code; each call counts its steps."""
import bisect as _b
import math

from . import call, check_sequence, step

__all__ = ["bisect", "bisect_left", "bisect_right", "insort", "insort_left", "insort_right"]


def _args(fn, a, lo, hi, key):
    if not isinstance(a, (list, tuple, range)):
        raise TypeError(f"{fn}() argument a must be a list, tuple or range in programs, not {type(a).__name__}")
    for v in (lo, hi):
        if v is not None and type(v) is not int:
            raise TypeError(f"'{type(v).__name__}' object cannot be interpreted as an integer")
    step(int(math.log2(len(a) + 1)) + 1)
    kw = {} if hi is None else {"hi": hi}
    if key is not None:
        kw["key"] = lambda x: call(key, [x])
    return kw


def bisect_left(a, x, lo=0, hi=None, *, key=None):
    return _b.bisect_left(a, x, lo, **_args("bisect_left", a, lo, hi, key))


def bisect_right(a, x, lo=0, hi=None, *, key=None):
    return _b.bisect_right(a, x, lo, **_args("bisect_right", a, lo, hi, key))


def insort_left(a, x, lo=0, hi=None, *, key=None):
    if type(a) is not list:
        raise TypeError(f"insort_left() argument a must be list, not {type(a).__name__}")
    check_sequence(len(a) + 1)
    step(len(a) // 8 + 1)   # the insertion moves the items after it
    _b.insort_left(a, x, lo, **_args("insort_left", a, lo, hi, key))


def insort_right(a, x, lo=0, hi=None, *, key=None):
    if type(a) is not list:
        raise TypeError(f"insort_right() argument a must be list, not {type(a).__name__}")
    check_sequence(len(a) + 1)
    step(len(a) // 8 + 1)
    _b.insort_right(a, x, lo, **_args("insort_right", a, lo, hi, key))


bisect = bisect_right
insort = insort_right
