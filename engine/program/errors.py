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
import re as _re

__all__ = ["ProgramError", "Abort", "PROGRAM_EXCEPTIONS", "ProgramBaseException", "to_program_exception",
           "locate", "exception_type_name", "limit_abort", "meta", "exception_args", "SERVICE_ERROR_TYPES",
           "without_addresses"]


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


class Meta:
    """What the interpreter records about an exception in flight, kept where program code
    cannot reach it: its program frames (innermost first: (line, col, function)), whether
    it just left a program function (the caller's call site comes next), and the type name
    to report when it differs from the class name."""
    __slots__ = ("tb", "site", "type")

    def __init__(self):
        self.tb = None
        self.site = False
        self.type = None


class Abort(BaseException):
    """A run stopped by a limit or by cancellation; no program code can catch it."""

    def __init__(self, type, message, limit=None):
        super().__init__(message)
        self.type = type
        self.message = message
        self.limit = limit
        self.meta = Meta()

    def again(self):
        """A fresh copy, to re-raise a sticky abort without growing a host traceback."""
        return Abort(self.type, self.message, self.limit)


# An exception's instance dict and args, read past anything its class defines: a program
# class may define ``args`` or any other name, and the host never looks them up by name.
_EXC_DICT = BaseException.__dict__["__dict__"].__get__
_EXC_ARGS = BaseException.__dict__["args"].__get__
_META_KEY = "gs:meta"   # not an identifier: no attribute syntax or setattr of a program reaches it


def meta(e):
    """The interpreter's record for exception ``e`` (an Abort or a program exception)."""
    if type(e) is Abort:
        return e.meta
    d = _EXC_DICT(e)
    m = d.get(_META_KEY)
    if type(m) is not Meta:
        m = d[_META_KEY] = Meta()
    return m


def exception_args(e):
    """``e.args`` as BaseException holds them, whatever the program's class defines."""
    return _EXC_ARGS(e)


def limit_abort(limit, message):
    return Abort("LimitExceeded", message, limit)


# --------------------------------------------------------------------------- classes
class _ProgramBase(Exception):
    """Root of the exceptions programs see (their ``BaseException``)."""

    def __str__(self):
        args = _EXC_ARGS(self)
        if not args:
            return ""
        if len(args) == 1:
            return str(args[0])
        return str(args)

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(repr(a) for a in _EXC_ARGS(self))})"


def _key_error_str(self):
    args = _EXC_ARGS(self)
    if len(args) == 1:
        return repr(args[0])
    return _ProgramBase.__str__(self)


def system_exit_code(exc):
    """A SystemExit's ``code``: its one argument, its arguments, or None (read from the slot, past
    anything a program subclass defines)."""
    args = _EXC_ARGS(exc)
    return None if not args else args[0] if len(args) == 1 else args


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
        meta(pe).type = name
    return pe


def _clean_message(msg):
    # anomaly mode appends the host stack of the forward call: keep the program's part only
    cut = msg.find("\nTraceback of forward call that caused the error:")
    if cut >= 0:
        msg = msg[:cut]
    return without_addresses(msg)


# Python's default reprs name a host memory address (<function add at 0x7f...>, <X object at 0x...>):
# the text a program gets from the host says what the object is, never where it lives.
_ADDRESS = _re.compile(r"(<(?:function|built-in function|built-in method|bound method|method-wrapper|method|"
                       r"[\w.]+ object)\b[^\n<>]*(?:<[\w]+>[^\n<>]*)*) at 0x[0-9a-fA-F]+>")


# the interpreter's builtins are methods and functions of its own (Builtins.b_print, b_isinstance):
# a program sees them as Python's (<built-in function print>)
_BUILTIN = _re.compile(r"<(?:bound method Builtins\.b_(\w+) of <[\w.]+\.Builtins object>|function b_(\w+))>")


def without_addresses(text):
    """``text`` with the host addresses of Python's default reprs left out, the interpreter's
    builtins as Python's, and the engine's classes and objects under the names programs import them
    by (``<class 'torch.nn.linear.Linear'>``, ``<torch.autograd.grad_mode.no_grad object>``)."""
    if " at 0x" in text:
        text = _ADDRESS.sub(r"\1>", text)
    if "gradserve.engine" in text:
        text = text.replace("<class 'gradserve.engine.", "<class 'torch.")
        if "Builtins" in text:
            text = _BUILTIN.sub(lambda m: f"<built-in function {m.group(1) or m.group(2)}>", text)
        text = text.replace("<gradserve.engine.", "<torch.")
    elif "<function b_" in text:
        text = _BUILTIN.sub(lambda m: f"<built-in function {m.group(1) or m.group(2)}>", text)
    return text


def locate(e, line, col, function):
    """The exception to propagate for ``e`` caught at a program position: converts host
    exceptions, and records the position as the innermost frame or as a call site."""
    if isinstance(e, (_ProgramBase, Abort)):
        m = meta(e)
        tb = m.tb
        if tb is None:
            m.tb = [(line, col, function)]
        elif m.site:
            tb.append((line, col, function))
            m.site = False
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
    meta(a).tb = [(line, col, function)]
    return a


# The error types the service itself reports (limits, cancellation, the HTTP layer's refusals). A
# class a program defines under one of these names would pass for the service's own verdict (a
# client raising its LimitExceeded, a metric counting a dead worker), so it is reported qualified,
# as Python names a class of the main script: ``__main__.LimitExceeded``.
SERVICE_ERROR_TYPES = frozenset({
    "LimitExceeded", "Cancelled", "Timeout", "SessionGone", "SessionNotFound", "Conflict", "TooManyRequests",
    "ValidationError", "InternalError", "Unavailable", "TooLarge", "BadRequest", "BadCommand", "Unauthorized",
    "Forbidden", "NotFound", "Gone", "MethodNotAllowed", "UnsupportedMediaType", "DebugError", "ProgramError",
})


def exception_type_name(e):
    """The class name a report gives for program exception ``e`` (the class's own name:
    nothing the program's class body defines is read)."""
    name = meta(e).type
    if name:
        return name
    cls = type(e)
    name = type.__dict__["__name__"].__get__(cls)
    if name in SERVICE_ERROR_TYPES and PROGRAM_EXCEPTIONS.get(name) is not cls:
        return "__main__." + name
    return name
