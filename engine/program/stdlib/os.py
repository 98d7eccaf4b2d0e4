"""Program-side ``os``: what scripts use of it that needs no host, namely ``os.path``'s string
functions, the separators, and the session's own ``environ`` (empty at the start; never the host's).
Programs have no files, processes or environment: ``makedirs``, ``listdir``, ``system``, ... do
not exist here, and ``os.path.exists`` is False for every path."""
from . import check_sequence, check_string, counted, session_state

__all__ = ["environ", "getenv", "sep", "altsep", "extsep", "pathsep", "linesep", "curdir", "pardir", "devnull",
           "name", "fspath"]

sep, altsep, extsep, pathsep, linesep = "/", None, ".", ":", "\n"
curdir, pardir, devnull, name = ".", "..", "/dev/null", "posix"


def _key(k, what="str expected"):
    if type(k) is not str:
        raise TypeError(f"{what}, not {type(k).__name__}")
    return k


class _Environ:
    """``os.environ`` in programs: the session's own environment, empty when the session starts.
    A program may set and read its own variables (``os.environ['CUDA_VISIBLE_DEVICES'] = '0'`` at
    the top of a script); the host's environment is never seen, and nothing set here reaches it."""
    __slots__ = ()

    @staticmethod
    def _d():
        return session_state("os.environ", dict)

    def __getitem__(self, key):
        d = self._d()
        if _key(key) not in d:
            raise KeyError(key)
        return d[key]

    def __setitem__(self, key, value):
        d = self._d()
        _key(key)
        _key(value)
        check_string(len(key) + len(value))
        if key not in d:
            check_sequence(len(d) + 1)
        d[key] = value

    def __delitem__(self, key):
        d = self._d()
        if _key(key) not in d:
            raise KeyError(key)
        del d[key]

    def __contains__(self, key):
        return type(key) is str and key in self._d()

    def __iter__(self):
        return iter(list(self._d()))

    def __len__(self):
        return len(self._d())

    def __bool__(self):
        return bool(self._d())

    def get(self, key, default=None):
        return self._d().get(_key(key), default)

    def keys(self):
        return list(self._d())

    def values(self):
        return list(self._d().values())

    def items(self):
        return list(self._d().items())

    def copy(self):
        return dict(self._d())

    def setdefault(self, key, default=None):
        if _key(key) not in self._d():
            self[key] = default
        return self._d()[key]

    def pop(self, key, *default):
        d = self._d()
        if _key(key) in d:
            return d.pop(key)
        if default:
            return default[0]
        raise KeyError(key)

    def update(self, other=(), **kwargs):
        pairs = other.items() if isinstance(other, (dict, _Environ)) else other
        for k, v in [*counted(pairs), *kwargs.items()]:
            self[k] = v

    def __repr__(self):
        return f"environ({self._d()!r})"


environ = _Environ()


def getenv(key, default=None):
    """The session's own variable ``key`` (see ``environ``), or ``default``."""
    return environ.get(key, default)


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
