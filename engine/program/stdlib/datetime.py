"""Program-side ``datetime``: ``timedelta`` only, for the elapsed-time lines training scripts print
(pytorch-center-loss: ``str(datetime.timedelta(seconds=elapsed))``). Its own small class over
CPython's timedelta: the arguments are plain numbers (never program objects, whose ``__index__`` or
``__float__`` the host would call), and what it hands back are numbers, strings and timedeltas."""
import datetime as _dt

from ..errors import PROGRAM_EXCEPTIONS as _P

__all__ = ["timedelta"]

_UNITS = ("days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks")


def _number(name, v):
    t = type(v)
    if t is int or t is float or t is bool:
        return v
    from .numpy import _Scalar
    if isinstance(v, _Scalar):
        return v._v()
    raise _P["TypeError"](f"unsupported type for timedelta {name} component: {t.__name__}")


def _wrap(td):
    out = timedelta.__new__(timedelta)
    out._td = td
    return out


def _overflow(fn, *args):
    try:
        return fn(*args)
    except OverflowError as e:
        raise _P["OverflowError"](str(e)) from None


class timedelta:
    """A duration: days, seconds and microseconds, as CPython's ``datetime.timedelta``."""
    __slots__ = ("_td",)

    def __init__(self, days=0, seconds=0, microseconds=0, milliseconds=0, minutes=0, hours=0, weeks=0):
        values = dict(zip(_UNITS, (days, seconds, microseconds, milliseconds, minutes, hours, weeks)))
        self._td = _overflow(lambda: _dt.timedelta(**{k: _number(k, v) for k, v in values.items()}))

    days = property(lambda self: self._td.days, doc="Number of days.")
    seconds = property(lambda self: self._td.seconds, doc="Number of seconds (>= 0 and less than 1 day).")
    microseconds = property(lambda self: self._td.microseconds,
                            doc="Number of microseconds (>= 0 and less than 1 second).")

    def total_seconds(self):
        """Total seconds in the duration."""
        return self._td.total_seconds()

    def __str__(self):
        return str(self._td)

    def __repr__(self):
        return repr(self._td)

    def __hash__(self):
        return hash(self._td)

    def __bool__(self):
        return bool(self._td)

    def __add__(self, other):
        return _wrap(_overflow(lambda: self._td + other._td)) if type(other) is timedelta else NotImplemented

    __radd__ = __add__

    def __sub__(self, other):
        return _wrap(_overflow(lambda: self._td - other._td)) if type(other) is timedelta else NotImplemented

    def __rsub__(self, other):
        return _wrap(_overflow(lambda: other._td - self._td)) if type(other) is timedelta else NotImplemented

    def __neg__(self):
        return _wrap(_overflow(lambda: -self._td))

    def __pos__(self):
        return self

    def __abs__(self):
        return _wrap(abs(self._td))

    def __mul__(self, other):
        if type(other) in (int, float, bool):
            return _wrap(_overflow(lambda: self._td * other))
        return NotImplemented

    __rmul__ = __mul__

    def __truediv__(self, other):
        if type(other) is timedelta:
            return self._td / other._td
        if type(other) in (int, float, bool):
            return _wrap(_overflow(lambda: self._td / other))
        return NotImplemented

    def __floordiv__(self, other):
        if type(other) is timedelta:
            return self._td // other._td
        if type(other) is int:
            return _wrap(self._td // other)
        return NotImplemented

    def __mod__(self, other):
        return _wrap(self._td % other._td) if type(other) is timedelta else NotImplemented

    def __eq__(self, other):
        return self._td == other._td if type(other) is timedelta else NotImplemented

    def __lt__(self, other):
        return self._td < other._td if type(other) is timedelta else NotImplemented

    def __le__(self, other):
        return self._td <= other._td if type(other) is timedelta else NotImplemented

    def __gt__(self, other):
        return self._td > other._td if type(other) is timedelta else NotImplemented

    def __ge__(self, other):
        return self._td >= other._td if type(other) is timedelta else NotImplemented


timedelta.min = _wrap(_dt.timedelta.min)
timedelta.max = _wrap(_dt.timedelta.max)
timedelta.resolution = _wrap(_dt.timedelta.resolution)
