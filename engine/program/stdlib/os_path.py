"""Program-side ``os.path``: POSIX path strings, computed from the strings alone (never the
host's file system or working directory); ``exists``, ``isfile`` and ``isdir`` are False, as
programs have no files."""
import posixpath as _pp

from . import check_string
from .os import fspath as _fspath

__all__ = ["join", "split", "splitext", "basename", "dirname", "normpath", "isabs", "commonprefix",
           "exists", "isfile", "isdir", "lexists", "sep", "extsep", "curdir", "pardir"]

sep, extsep, curdir, pardir = "/", ".", ".", ".."
_MAX_PARTS = 10_000


def join(a, *p):
    """Joins path components, as posixpath.join."""
    if len(p) > _MAX_PARTS:
        raise ValueError(f"os.path.join takes at most {_MAX_PARTS} components in programs")
    parts = [_fspath(a)] + [_fspath(x) for x in p]
    check_string(sum(len(x) for x in parts) + len(parts))   # the result is at most this long
    return _pp.join(*parts)


def split(p):
    return _pp.split(_fspath(p))


def splitext(p):
    return _pp.splitext(_fspath(p))


def basename(p):
    return _pp.basename(_fspath(p))


def dirname(p):
    return _pp.dirname(_fspath(p))


def normpath(p):
    return _pp.normpath(_fspath(p))


def isabs(p):
    return _pp.isabs(_fspath(p))


def commonprefix(m):
    from .os import _strs
    return _pp.commonprefix(_strs(m))


def exists(path):
    """False: programs have no files."""
    _fspath(path)
    return False


isfile = isdir = lexists = exists
