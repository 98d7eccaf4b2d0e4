"""Program-side ``fnmatch``: shell-style wildcards (``*``, ``?``, ``[seq]``, ``[!seq]``) as CPython's
(a parameter filter's ``fnmatch.fnmatchcase(name, "encoder.*")``). A pattern is translated by CPython's
own ``fnmatch.translate`` and matched by the program-side ``re``, whose matcher costs at most (name
length) x (pattern size) counted steps; the atomic groups CPython's translation wraps around ``*`` only
stop its backtracking engine from backtracking, so they become plain groups here, with the same matches.
Names match case-sensitively in both functions, as ``fnmatch`` does on POSIX."""
import fnmatch as _fn

from . import check_string, materialize, step
from . import re as _re

__all__ = ["fnmatch", "fnmatchcase", "filter", "translate"]


def translate(pat):
    """Translate a shell PATTERN to a regular expression (CPython's translation)."""
    if not isinstance(pat, str):
        raise TypeError(f"translate() argument must be str in programs, not {type(pat).__name__}")
    check_string(len(pat) * 8)   # the regex is at most a few times the pattern
    step(len(pat) // 8 + 1)
    return _fn.translate(pat)


def _pattern(pat):
    return _re.compile(translate(pat).replace("(?>", "(?:"))


def _name(name, fn):
    if not isinstance(name, str):
        raise TypeError(f"{fn}() argument 'name' must be str in programs, not {type(name).__name__}")
    return name


def fnmatchcase(name, pat):
    """Test whether NAME matches PATTERN, including case."""
    return _pattern(pat).match(_name(name, "fnmatchcase")) is not None


def fnmatch(name, pat):
    """Test whether NAME matches PATTERN (on POSIX, case-sensitively: os.path.normcase changes nothing)."""
    return _pattern(pat).match(_name(name, "fnmatch")) is not None


def filter(names, pat):
    """The subset of the list NAMES that match PAT."""
    p = _pattern(pat)
    return [name for name in materialize(names) if p.match(_name(name, "filter")) is not None]
