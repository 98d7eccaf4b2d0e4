"""How a program fails: the exception classes programs see, the uncatchable
aborts (limits, cancellation), and the ProgramError a run reports.

Programs never hold the host's exception objects. Every exception a program can
catch is an instance of one of the classes below: host ``Exception`` subclasses
named like Python's (``RuntimeError``, ``KeyError``, ...) whose only public
attribute is ``args``. An error raised by the engine or by Python inside an
operation is converted into the class of the same name (the engine's errors
keep their own name in reports: ``GradcheckError`` is caught as a RuntimeError).
``raise SystemExit`` gives a program-level SystemExit, which is an ordinary host
``Exception``: it never leaves the interpreter.

Limits and cancellation are ``Abort``, a ``BaseException``, so neither a
program's ``except Exception:`` nor host code's catches them.
"""
import builtins as _py

__all__ = ["ProgramError", "Abort", "PROGRAM_EXCEPTIONS", "ProgramBaseException", "to_program_exception",
           "locate", "exception_type_name", "limit_abort"]


class ProgramError(Exception):
    """A program's failure, pointing into the program: type, message, line, col, traceback."""

    def __init__(self, type, message, line=None, col=None, traceback=None, limit=None):
        super().__init__(f"{type}: {message}" if message else type)
        self.type = type
        self.message = message
        self.line = line
        self.col = col
        self.traceback = list(traceback or [])
        self.limit = limit

    def to_dict(self):
        out = {"type": self.type, "message": self.message, "line": self.line, "col": self.col,
               "traceback": [dict(frame) for frame in self.traceback]}
        if self.type == "LimitExceeded":
            out["limit"] = self.limit
        return out

    def __repr__(self):
        return f"ProgramError({self.type!r}, {self.message!r}, line={self.line}, col={self.col})"


class Abort(BaseException):
    """A run stopped by a limit or by cancellation; no program code can catch it."""

    def __init__(self, type, message, limit=None):
        super().__init__(message)
        self.type = type
        self.message = message
        self.limit = limit
        self._gs_tb = None      # program frames, innermost first: (line, col, function)
        self._gs_site = False   # left a program function: the caller's call site comes next

    def again(self):
        """A fresh copy, to re-raise a sticky abort without growing a host traceback."""
        return Abort(self.type, self.message, self.limit)


def limit_abort(limit, message):
    return Abort("LimitExceeded", message, limit)


# --------------------------------------------------------------------------- classes
class _ProgramBase(Exception):
    """Root of the exceptions programs see (their ``BaseException``)."""

    # class-level defaults: a program subclass may skip super().__init__()
    _gs_tb = None       # program frames, innermost first: (line, col, function)
    _gs_site = False    # left a program function: the caller's call site comes next
    _gs_type = None     # the name to report, when it differs from the class name

    def __str__(self):
        args = self.args
        if not args:
            return ""
        if len(args) == 1:
            return str(args[0])
        return str(args)

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(repr(a) for a in self.args)})"


def _key_error_str(self):
    args = self.args
    if len(args) == 1:
        return repr(args[0])
    return _ProgramBase.__str__(self)


# (name, parent) in Python's hierarchy; the names programs can use
_TREE = (
    ("SystemExit", "BaseException"), ("KeyboardInterrupt", "BaseException"),
    ("GeneratorExit", "BaseException"), ("Exception", "BaseException"),
    ("StopIteration", "Exception"), ("ArithmeticError", "Exception"),
    ("FloatingPointError", "ArithmeticError"), ("OverflowError", "ArithmeticError"),
    ("ZeroDivisionError", "ArithmeticError"), ("AssertionError", "Exception"),
    ("AttributeError", "Exception"), ("BufferError", "Exception"), ("EOFError", "Exception"),
    ("ImportError", "Exception"), ("ModuleNotFoundError", "ImportError"),
    ("LookupError", "Exception"), ("IndexError", "LookupError"), ("KeyError", "LookupError"),
    ("MemoryError", "Exception"), ("NameError", "Exception"), ("UnboundLocalError", "NameError"),
    ("OSError", "Exception"), ("RuntimeError", "Exception"), ("NotImplementedError", "RuntimeError"),
    ("RecursionError", "RuntimeError"), ("SyntaxError", "Exception"), ("SystemError", "Exception"),
    ("TypeError", "Exception"), ("ValueError", "Exception"), ("UnicodeError", "ValueError"),
    ("Warning", "Exception"), ("UserWarning", "Warning"), ("DeprecationWarning", "Warning"),
    ("RuntimeWarning", "Warning"),
    # the remaining common ones (SPEC section 2)
    ("FileNotFoundError", "OSError"), ("FileExistsError", "OSError"), ("PermissionError", "OSError"),
    ("TimeoutError", "OSError"), ("ConnectionError", "OSError"), ("IsADirectoryError", "OSError"),
    ("NotADirectoryError", "OSError"), ("InterruptedError", "OSError"), ("IndentationError", "SyntaxError"),
    ("TabError", "IndentationError"), ("StopAsyncIteration", "Exception"), ("ReferenceError", "Exception"),
    ("FutureWarning", "Warning"), ("PendingDeprecationWarning", "Warning"), ("SyntaxWarning", "Warning"),
    ("ResourceWarning", "Warning"), ("ImportWarning", "Warning"), ("UnicodeWarning", "Warning"),
    ("BytesWarning", "Warning"), ("EncodingWarning", "Warning"),
)

_PROTOCOL = ("IndexError", "StopIteration")
PROGRAM_EXCEPTIONS = {"BaseException": _ProgramBase}
_ProgramBase.__name__ = _ProgramBase.__qualname__ = "BaseException"
_ProgramBase.__module__ = "builtins"
for _name, _parent in _TREE:
    _body = {"__module__": "builtins", "__qualname__": _name, "__doc__": getattr(_py, _name).__doc__}
    if _name == "KeyError":
        _body["__str__"] = _key_error_str
    _bases = (PROGRAM_EXCEPTIONS[_parent],)
    if _name in _PROTOCOL:
        # host protocols stop on these (old-style __getitem__ iteration, iterators)
        _bases += (getattr(_py, _name),)
    PROGRAM_EXCEPTIONS[_name] = type(_name, _bases, _body)
del _name, _parent, _body, _bases

ProgramBaseException = _ProgramBase


# --------------------------------------------------------------------------- host -> program
_HOST_MAP = {}


def _program_class_for(host_type):
    found = _HOST_MAP.get(host_type)
    if found is not None:
        return found
    cls, name = PROGRAM_EXCEPTIONS["Exception"], None
    for k in host_type.__mro__:
        if k.__module__ == "builtins" and k.__name__ in PROGRAM_EXCEPTIONS:
            cls = PROGRAM_EXCEPTIONS[k.__name__]
            break
    module = getattr(host_type, "__module__", "") or ""
    if module.startswith("gradserve.engine") and host_type.__name__ != cls.__name__:
        name = host_type.__name__  # report the engine's own class name (GradcheckError)
    if len(_HOST_MAP) < 512:
        _HOST_MAP[host_type] = (cls, name)
    return cls, name


def _safe_arg(a):
    t = type(a)
    if t in (str, int, float, bool, type(None)):
        if t is str and len(a) > 100_000:
            return a[:100_000]
        return a
    if t is tuple and len(a) < 64:
        return tuple(_safe_arg(x) for x in a)
    try:
        from .access import is_program_value
        if is_program_value(a):
            return a
    except Exception:
        pass
    try:
        text = str(a)
    except Exception:
        text = f"<{t.__name__}>"
    return text[:10_000]


def to_program_exception(e):
    """Converts a host exception raised inside an operation into a program exception."""
    if isinstance(e, _ProgramBase):
        return e
    if isinstance(e, KeyError):
        args = tuple(_safe_arg(a) for a in e.args)
    else:
        try:
            msg = str(e)
        except Exception:
            msg = type(e).__name__
        args = (_clean_message(msg),) if msg or e.args else ()
    cls, name = _program_class_for(type(e))
    pe = cls(*args)
    if name is not None:
        pe._gs_type = name
    return pe


def _clean_message(msg):
    # anomaly mode appends the host stack of the forward call: keep the program's part only
    cut = msg.find("\nTraceback of forward call that caused the error:")
    if cut >= 0:
        msg = msg[:cut]
    return msg


def locate(e, line, col, function):
    """The exception to propagate for ``e`` caught at a program position: converts host
    exceptions, and records the position as the innermost frame or as a call site."""
    if isinstance(e, (_ProgramBase, Abort)):
        tb = e._gs_tb
        if tb is None:
            e._gs_tb = [(line, col, function)]
        elif e._gs_site:
            tb.append((line, col, function))
            e._gs_site = False
        return e
    from ..limits import LimitExceeded
    if isinstance(e, LimitExceeded):
        a = Abort("LimitExceeded", str(e), e.limit)
    elif isinstance(e, RecursionError):
        a = Abort("LimitExceeded", "limit exceeded: call_depth: the program nests calls or data too deeply",
                  "call_depth")
    elif isinstance(e, MemoryError):
        a = Abort("LimitExceeded", "limit exceeded: session_bytes: out of memory", "session_bytes")
    else:
        a = to_program_exception(e)
    a._gs_tb = [(line, col, function)]
    return a


def exception_type_name(e):
    """The class name a report gives for program exception ``e``."""
    return e._gs_type or type(e).__name__
