"""Program-side ``sys``: the constants scripts read (``argv``, ``maxsize``, ``version_info``,
``platform``, ``byteorder``, ``float_info``), ``exit`` and the ``stdout``/``stderr`` streams,
which write to the program's own output. Nothing of the host's interpreter: no ``modules``,
``path``, ``settrace``, frames or recursion limit; ``argv`` is a tuple (a shared list would be
a channel between sessions of one process)."""
import sys as _sys

from ..builtin_functions import b_exit
from . import check_string, runtime

__all__ = ["argv", "exit", "maxsize", "version", "version_info", "hexversion", "platform", "byteorder",
           "float_info", "stdout", "stderr"]

argv = ("",)       # what Python's interactive interpreter has: a program has no command line
maxsize = _sys.maxsize
platform = "linux"
byteorder = "little"


class _VersionInfo(tuple):
    """``sys.version_info``: a tuple with named fields (compares with ``(3, 8)``)."""
    __slots__ = ()

    major = property(lambda self: self[0])
    minor = property(lambda self: self[1])
    micro = property(lambda self: self[2])
    releaselevel = property(lambda self: self[3])
    serial = property(lambda self: self[4])

    def __repr__(self):
        return ("sys.version_info(major={}, minor={}, micro={}, releaselevel={!r}, serial={})"
                .format(*self))


version_info = _VersionInfo(tuple(_sys.version_info))
version = "{}.{}.{}".format(*version_info)
hexversion = _sys.hexversion


class _FloatInfo(tuple):
    """``sys.float_info``: the double's limits, by name."""
    __slots__ = ()
    _FIELDS = ("max", "max_exp", "max_10_exp", "min", "min_exp", "min_10_exp", "dig", "mant_dig", "epsilon",
               "radix", "rounds")

    def __repr__(self):
        return "sys.float_info(" + ", ".join(f"{k}={v!r}" for k, v in zip(self._FIELDS, self)) + ")"


for _i, _k in enumerate(_FloatInfo._FIELDS):
    setattr(_FloatInfo, _k, property(lambda self, _i=_i: self[_i]))
float_info = _FloatInfo(tuple(_sys.float_info))
del _i, _k


exit = b_exit   # (uncaught, status None or 0 ends the run as a success)


class _Stream:
    """``sys.stdout`` / ``sys.stderr``: both write to the program's output, as a notebook shows them."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def write(self, s):
        if type(s) is not str:
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        check_string(len(s))
        runtime().write(s)
        return len(s)

    def writelines(self, lines):
        from . import counted
        for s in counted(lines):
            self.write(s)

    def flush(self):
        return None

    def isatty(self):
        return False

    @property
    def encoding(self):
        return "utf-8"

    def __repr__(self):
        return f"<_io.TextIOWrapper name='<{self.name}>' mode='w' encoding='utf-8'>"


stdout = _Stream("stdout")
stderr = _Stream("stderr")
