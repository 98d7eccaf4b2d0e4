"""Program-side ``warnings``: ``warn`` prints ``<program>:LINE: Category: message`` to the
program's stdout (once per line, message and category, as Python's default filter), unless
a filter the program set says otherwise; ``catch_warnings`` restores the filters."""
from ...autograd.state import state
from ..errors import PROGRAM_EXCEPTIONS as _P
from . import builtins, session_state

__all__ = ["warn", "simplefilter", "filterwarnings", "resetwarnings", "catch_warnings", "showwarning"]

_ACTIONS = ("default", "error", "ignore", "always", "all", "module", "once")


class _Registry:
    __slots__ = ("filters", "seen")

    def __init__(self):
        self.filters = []      # (action, category, message prefix)
        self.seen = set()


def _registry():
    return session_state("warnings", _Registry)


def _action_for(category, text):
    for action, cat, message in _registry().filters:
        if (cat is None or issubclass(category, cat)) and (not message or text.startswith(message)):
            return action
    return "default"


def warn(message, category=None, stacklevel=1, source=None, *, skip_file_prefixes=()):
    """Issues a warning: printed to stdout, or raised under an 'error' filter."""
    if isinstance(message, _P["Warning"]):
        category = type(message)
    if category is None:
        category = _P["UserWarning"]
    if not (isinstance(category, type) and issubclass(category, _P["Warning"])):
        raise TypeError(f"category must be a Warning subclass, not '{type(category).__name__}'")
    b = builtins()
    text = b.b_str(message)
    action = _action_for(category, text)
    if action == "ignore":
        return None
    if action == "error":
        raise message if isinstance(message, _P["Warning"]) else category(text)
    line = state.line
    key = (text, category) if action in ("once",) else (text, category, line)
    reg = _registry()
    if action not in ("always", "all"):
        if key in reg.seen:
            return None
        if len(reg.seen) < 10_000:
            reg.seen.add(key)
    b.rt.write(f"<program>:{line}: {category.__name__}: {text}\n")
    return None


def showwarning(message, category, filename="<program>", lineno=0, file=None, line=None):
    builtins().rt.write(f"{filename}:{lineno}: {category.__name__}: {builtins().b_str(message)}\n")


def _check_action(action):
    if action not in _ACTIONS:
        raise ValueError(f"invalid action: {action!r}")


def simplefilter(action, category=None, lineno=0, append=False):
    _check_action(action)
    entry = (action, category if category is not None else None, "")
    _add(entry, append)


def filterwarnings(action, message="", category=None, module="", lineno=0, append=False):
    _check_action(action)
    if type(message) is not str:
        raise TypeError("message must be a string")
    _add((action, category, message), append)


def _add(entry, append):
    filters = _registry().filters
    if entry in filters:
        filters.remove(entry)
    if len(filters) >= 1000:
        raise ValueError("too many warning filters")
    filters.append(entry) if append else filters.insert(0, entry)


def resetwarnings():
    _registry().filters.clear()


class catch_warnings:
    """A context manager restoring the warning filters on exit."""

    def __init__(self, *, record=False, module=None, action=None, category=None, lineno=0, append=False):
        self.record = record
        self.action = action
        self.category = category
        self.saved = None

    def __enter__(self):
        reg = _registry()
        self.saved = list(reg.filters)
        if self.action is not None:
            simplefilter(self.action, self.category)
        return [] if self.record else None

    def __exit__(self, *exc):
        _registry().filters[:] = self.saved
        return False
