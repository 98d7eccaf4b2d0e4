"""Program-side standard modules (SPEC section 2): small implementations of the
standard modules model code imports (``random``, ``itertools``, ``functools``,
``collections``, ``dataclasses``, ``copy``, ``inspect``, ...) and a NumPy subset.

Each module here is host code written for programs: it touches nothing of the host
(no files, clocks but ``time``'s, no host generators), hands programs only program
values and its own small objects, loops over a program's data through the
interpreter (one step per item, sizes checked before building), and calls program
functions only through the interpreter's call. The names a program can reach of each
are those the allowlist lists; ``PROGRAM_MODULES`` maps the name a program imports to
the host module holding the implementation.
"""
from ..errors import PROGRAM_EXCEPTIONS

__all__ = ["PROGRAM_MODULES", "builtins", "call", "iterate", "counted", "materialize", "step",
           "session_state", "runtime", "check_sequence", "check_string"]

_PKG = __name__

# what a program imports -> the module implementing it
PROGRAM_MODULES = {
    "math": _PKG + ".math",
    "random": _PKG + ".random",
    "string": _PKG + ".string",
    "unicodedata": _PKG + ".unicodedata",
    "heapq": _PKG + ".heapq",
    "bisect": _PKG + ".bisect",
    "itertools": _PKG + ".itertools",
    "functools": _PKG + ".functools",
    "operator": _PKG + ".operator",
    "collections": _PKG + ".collections",
    "dataclasses": _PKG + ".dataclasses",
    "typing": _PKG + ".typing",
    "copy": _PKG + ".copy",
    "inspect": _PKG + ".inspect",
    "time": _PKG + ".time",
    "warnings": _PKG + ".warnings",
    "logging": _PKG + ".logging",
    "contextlib": _PKG + ".contextlib",
    "enum": _PKG + ".enum",
    "abc": _PKG + ".abc",
    "sys": _PKG + ".sys",
    "os": _PKG + ".os",
    "os.path": _PKG + ".os_path",
    "types": _PKG + ".types",
    "pprint": _PKG + ".pprint",
    "argparse": _PKG + ".argparse",
    "struct": _PKG + ".struct",
    "json": _PKG + ".json",
    "statistics": _PKG + ".statistics",
    "datetime": _PKG + ".datetime",
    "re": _PKG + ".re",
    "fnmatch": _PKG + ".fnmatch",
    "tqdm": _PKG + ".tqdm",
    "tqdm.auto": _PKG + ".tqdm",
    "tqdm.notebook": _PKG + ".tqdm",
    "numpy": _PKG + ".numpy",
    "numpy.random": _PKG + ".numpy_random",
    "numpy.linalg": _PKG + ".numpy_linalg",
}

TypeError_ = PROGRAM_EXCEPTIONS["TypeError"]
ValueError_ = PROGRAM_EXCEPTIONS["ValueError"]


def builtins():
    """The running session's Builtins (its runtime, call and iteration)."""
    from ..builtin_functions import _current_builtins
    b = _current_builtins()
    if b is None or not b.rt.active:
        raise RuntimeError("program modules run only while their session runs a program")
    return b


def runtime():
    return builtins().rt


def call(f, args, kwargs=None):
    """Calls a program callable (or an engine one) as the interpreter would."""
    return builtins().call(f, list(args), kwargs or {})


def step(n=1):
    builtins().step(n)


def iterate(value):
    """An iterator over a program value (host iterators' items are checked)."""
    return builtins().iterate(value)


def counted(value):
    """An iterator over a program value that costs a step per item, whatever its source."""
    from ..values import ProgramIterator
    b = builtins()
    it = b.iterate(value)
    if type(it) is ProgramIterator:
        return it
    return ProgramIterator(it, b.rt)


def materialize(value):
    """A list of ``value``'s items, a step each, its length checked."""
    return builtins().materialize(value)


def check_sequence(n):
    from .. import guards
    guards.check_length(n, runtime().seq_limit, "list")


def check_string(n):
    from .. import guards
    guards.check_length(n, runtime().str_limit, "string")


def session_state(key, factory):
    """Per-session state of a program module (its random generator, its warning registry)."""
    ns = runtime().namespace
    d = ns.__dict__.get("program_modules")
    if d is None:
        d = ns.__dict__["program_modules"] = {}
    v = d.get(key)
    if v is None:
        v = d[key] = factory()
    return v
