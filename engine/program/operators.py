"""Python's operators as programs get them: the same semantics, with the size
checks of guards.py made before the result is built (string and list
repetition and concatenation, integer powers and shifts, broadcasting and
matrix products of tensors). Tensors take the first branch of each function,
so an op on tensors costs one type test more than the op itself.
"""
import operator
from collections import deque as _deque

from ..tensor import Tensor
from . import guards
from .errors import without_addresses
from .access import (_LIMITS, range_contains as _range_contains, sequence_compare as _sequence_compare,
                     sequence_contains as _sequence_contains)

__all__ = ["BINARY", "INPLACE", "UNARY", "COMPARE"]

_check_broadcast = guards.check_broadcast
_SEQ = (list, tuple)
_BIG = 1 << 62


_IMMUTABLE = frozenset((int, float, str, bytes, tuple, bool, complex, type(None)))
_SEQUENCES = frozenset((str, bytes, list, tuple))


def _seq_check(a, n):
    t = type(a)
    if t is str or t is bytes:
        guards.check_length(n, _LIMITS.string_length, "string")
    else:
        guards.check_length(n, _LIMITS.sequence_length, "list" if t is list else "tuple")


def _check_operands(a, b):
    """Before an operator runs: tensor operands' broadcast size (same shapes need no
    check), and the nesting of a list a tensor is combined with."""
    if type(a) is Tensor:
        tb = type(b)
        if tb is Tensor:
            if a._data.shape != b._data.shape:
                _check_broadcast(a, b)
        elif tb is list or tb is tuple:
            guards.check_nested(b)
    elif isinstance(b, Tensor) or isinstance(a, Tensor):
        _check_broadcast(a, b)


def _tensor_checked(op):
    def binary(a, b):
        _check_operands(a, b)
        return op(a, b)
    binary.__name__ = op.__name__
    return binary


def add(a, b):
    ta = type(a)
    if ta is Tensor:
        _check_operands(a, b)
        return a + b
    if ta is float or ta is int:
        return a + b
    if ta in _SEQUENCES:
        if type(b) is ta:
            _seq_check(a, len(a) + len(b))
    elif isinstance(a, Tensor) or isinstance(b, Tensor):
        _check_broadcast(a, b)
    return a + b


def iadd(a, b):
    ta = type(a)
    if ta is list:
        if isinstance(b, (list, tuple, str, range)):
            _seq_check(a, len(a) + len(b))
            a += b
            return a
        from .builtin_functions import materialize
        items = materialize(b)
        _seq_check(a, len(a) + len(items))
        a += items
        return a
    if ta in _IMMUTABLE:
        return add(a, b)
    return operator.iadd(a, b)


def mul(a, b):
    ta = type(a)
    if ta is Tensor:
        _check_operands(a, b)
        return a * b
    if ta is float:
        return a * b
    tb = type(b)
    if ta is int or ta is bool:
        if tb is int:
            r = a * b
            if r > _BIG or r < -_BIG:
                guards.check_int(r)
            return r
        if tb in _SEQUENCES:
            _seq_check(b, len(b) * a)
    elif ta in _SEQUENCES and (tb is int or tb is bool):
        _seq_check(a, len(a) * b)
    elif isinstance(a, Tensor) or isinstance(b, Tensor):
        _check_broadcast(a, b)
    return a * b


def imul(a, b):
    if type(a) is list and type(b) in (int, bool):
        _seq_check(a, len(a) * b)
        a *= b
        return a
    if type(a) in _IMMUTABLE:
        return mul(a, b)
    return operator.imul(a, b)


def mod(a, b):
    ta = type(a)
    if ta is str:
        guards.check_percent_format(a, b, _LIMITS.string_length)
        r = a % b
        guards.check_length(len(r), _LIMITS.string_length, "string")
        return without_addresses(r)   # %s of an object is its default repr: no host address in it
    _check_operands(a, b)
    return a % b


def pow_(a, b):
    ta = type(a)
    if (ta is int or ta is bool) and type(b) is int:
        guards.check_int_pow(a, b)
    else:
        _check_operands(a, b)
    return a ** b


def lshift(a, b):
    if type(a) is int and type(b) is int:
        guards.check_lshift(a, b)
    else:
        _check_operands(a, b)
    return a << b


def matmul(a, b):
    guards.check_matmul(a, b)
    return a @ b




def _inplace(checked, inplace_op):
    """``a op= b``: tensors, lists and the program's objects change in place
    (PyTorch's ``x -= 1``); numbers, strings and tuples rebind, through the checked
    operator."""
    def aug(a, b):
        if type(a) in _IMMUTABLE:
            return checked(a, b)
        return inplace_op(a, b)
    return aug



sub = _tensor_checked(operator.sub)
truediv = _tensor_checked(operator.truediv)
floordiv = _tensor_checked(operator.floordiv)
_rshift = _tensor_checked(operator.rshift)
_and = _tensor_checked(operator.and_)
_or = _tensor_checked(operator.or_)
_xor = _tensor_checked(operator.xor)

BINARY = {
    "Add": add, "Sub": sub, "Mult": mul, "Div": truediv, "FloorDiv": floordiv, "Mod": mod, "Pow": pow_,
    "LShift": lshift, "RShift": _rshift, "BitAnd": _and, "BitOr": _or, "BitXor": _xor, "MatMult": matmul,
}


def _ipow(a, b):
    if isinstance(a, Tensor):
        return operator.ipow(a, b)
    return pow_(a, b)


def _ilshift(a, b):
    if isinstance(a, Tensor):
        return operator.ilshift(a, b)
    return lshift(a, b)


def _imatmul(a, b):
    guards.check_matmul(a, b)
    return operator.imatmul(a, b)


INPLACE = {
    "Add": iadd, "Sub": _inplace(sub, operator.isub), "Mult": imul,
    "Div": _inplace(truediv, operator.itruediv), "FloorDiv": _inplace(floordiv, operator.ifloordiv),
    "Mod": _inplace(mod, operator.imod), "Pow": _ipow, "LShift": _ilshift,
    "RShift": _inplace(_rshift, operator.irshift), "BitAnd": _inplace(_and, operator.iand),
    "BitOr": _inplace(_or, operator.ior), "BitXor": _inplace(_xor, operator.ixor), "MatMult": _imatmul,
}


def _not(a):
    return not a


UNARY = {"USub": operator.neg, "UAdd": operator.pos, "Invert": operator.invert, "Not": _not}


def _cmp(op):
    def compare(a, b):
        ta = type(a)
        if ta is Tensor and type(b) is Tensor:
            if a._data.shape != b._data.shape:
                _check_broadcast(a, b)
        elif isinstance(a, Tensor) or isinstance(b, Tensor):
            _check_broadcast(a, b)
        elif (ta is list or ta is tuple) and type(b) is ta:   # long ones a step an item (access.sequence_compare)
            return _sequence_compare(op, a, b)
        return op(a, b)
    compare.__name__ = op.__name__
    return compare


def _in(a, b):
    tb = type(b)
    if tb is range:   # Python scans a range in C for anything but an int (access.range_contains)
        return _range_contains(b, a)
    if tb is list or tb is tuple or tb is _deque:   # host == on each item of a long list: counted (access.sequence_contains)
        return _sequence_contains(b, a)
    return a in b


def _not_in(a, b):
    return not _in(a, b)


COMPARE = {
    "Eq": _cmp(operator.eq), "NotEq": _cmp(operator.ne), "Lt": _cmp(operator.lt), "LtE": _cmp(operator.le),
    "Gt": _cmp(operator.gt), "GtE": _cmp(operator.ge), "Is": operator.is_, "IsNot": operator.is_not,
    "In": _in, "NotIn": _not_in,
}
