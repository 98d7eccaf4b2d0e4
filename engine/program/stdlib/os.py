"""Program-side ``os``: what scripts use of it that needs no host, namely ``os.path``'s string
functions, the separators, and an empty, read-only ``environ`` (``getenv`` gives its default).
Programs have no files, processes or environment: ``makedirs``, ``listdir``, ``system``, ... do
not exist here, and ``os.path.exists`` is False for every path."""
from . import check_string, counted

__all__ = ["environ", "getenv", "sep", "altsep", "extsep", "pathsep", "linesep", "curdir", "pardir", "devnull",
           "name", "fspath"]

sep, altsep, extsep, pathsep, linesep = "/", None, ".", ":", "\n"
curdir, pardir, devnull, name = ".", "..", "/dev/null", "posix"


def _key(k, what="str expected"):
    if type(k) is not str:
        raise TypeError(f"{what}, not {type(k).__name__}")
    return k


class _Environ:
    """``os.environ`` in programs: empty and read-only (the host's environment is not theirs)."""
    __slots__ = ()

    def __getitem__(self, key):
        raise KeyError(_key(key))

    def __setitem__(self, key, value):
        raise TypeError("os.environ is read-only in programs: they have no environment")

    def __delitem__(self, key):
        raise KeyError(_key(key))

    def __contains__(self, key):
        return False

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __bool__(self):
        return False

    def get(self, key, default=None):
        _key(key)
        return default

    def keys(self):
        return []

    def values(self):
        return []

    def items(self):
        return []

    def copy(self):
        return {}

    def setdefault(self, key, default=None):
        raise TypeError("os.environ is read-only in programs: they have no environment")

    def __repr__(self):
        return "environ({})"


environ = _Environ()


def getenv(key, default=None):
    """The program's environment is empty: ``default``."""
    _key(key)
    return default


def fspath(path):
    """``path`` when it is a str (programs hold no path objects)."""
    if type(path) is not str:
        raise TypeError(f"expected str, bytes or os.PathLike object, not {type(path).__name__}")
    return path


def _strs(paths):
    out = []
    for p in counted(paths):
        out.append(fspath(p))
    return out
