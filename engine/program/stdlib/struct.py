"""Program-side ``struct``: ``pack``, ``unpack``, ``calcsize``, ``iter_unpack`` and ``error``.
The format's size is computed (``calcsize``, bounded by the format's own length) and checked
against the session's string limit before anything is built; values are Python numbers,
booleans, bytes and NumPy scalars (never program objects, whose ``__index__`` or ``__float__``
the host would call)."""
import struct as _st

from ..errors import PROGRAM_EXCEPTIONS as _P
from . import check_sequence, check_string, counted, step

__all__ = ["pack", "unpack", "calcsize", "iter_unpack", "error"]


class error(_P["Exception"]):
    """struct.error: a format or value struct cannot take."""


error.__module__ = "struct"


def _format(fmt):
    if type(fmt) is bytes:
        fmt = fmt.decode("ascii", "replace")
    if type(fmt) is not str:
        raise TypeError(f"Struct() argument 1 must be a str or bytes object, not {type(fmt).__name__}")
    check_string(len(fmt))
    try:
        return fmt, _st.calcsize(fmt)
    except _st.error as e:
        raise error(str(e)) from None


def calcsize(fmt):
    """Return size in bytes of the struct described by the format string."""
    return _format(fmt)[1]


def _value(v):
    t = type(v)
    if t is int or t is float or t is bool or t is bytes:
        return v
    from .numpy import _Scalar
    if isinstance(v, _Scalar):
        return v._v()
    raise error(f"required argument is not a number or bytes in programs: '{t.__name__}'")


def pack(fmt, *values):
    """Return a bytes object containing the values packed according to the format string."""
    fmt, size = _format(fmt)
    check_string(size)
    step(len(values))
    try:
        return _st.pack(fmt, *[_value(v) for v in values])
    except _st.error as e:
        raise error(str(e)) from None


def unpack(fmt, buffer):
    """Return a tuple containing values unpacked according to the format string."""
    fmt, size = _format(fmt)
    if type(buffer) not in (bytes, bytearray):
        raise TypeError(f"a bytes-like object is required, not '{type(buffer).__name__}'")
    if len(buffer) != size:
        raise error(f"unpack requires a buffer of {size} bytes")
    check_sequence(len(buffer) + len(fmt))    # at most one item per byte, plus zero-width items
    step(len(buffer) // 8 + 1)
    try:
        out = _st.unpack(fmt, buffer)
    except _st.error as e:
        raise error(str(e)) from None
    return out


def iter_unpack(fmt, buffer):
    """Return an iterator yielding tuples unpacked from the buffer, one per format's size."""
    fmt, size = _format(fmt)
    if type(buffer) not in (bytes, bytearray):
        raise TypeError(f"a bytes-like object is required, not '{type(buffer).__name__}'")
    if size == 0 or len(buffer) % size:
        raise error(f"iterative unpacking requires a buffer of a multiple of {size} bytes")
    return [unpack(fmt, bytes(buffer[i:i + size])) for i in range(0, len(buffer), size)]
