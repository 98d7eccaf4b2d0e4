"""Program-side ``logging``: the loggers training scripts report progress with
(``logging.basicConfig(level=logging.INFO)``, ``logger = logging.getLogger(__name__)``,
``logger.info("Iter: %d", i)``). Records are formatted as Python formats them (levels,
propagation to the root, ``basicConfig``'s format with ``%``-style fields) and written to
the program's output, the only stream a program has: a handler's ``stream`` is accepted and
ignored, and there are no file handlers. Loggers are per session. Messages are built with
the program's own ``%`` operator (its checks and limits), never by calling program code
from here."""
import time as _time

from ...autograd.state import state
from ..errors import PROGRAM_EXCEPTIONS as _P
from . import builtins, check_string, session_state

__all__ = ["CRITICAL", "FATAL", "ERROR", "WARNING", "WARN", "INFO", "DEBUG", "NOTSET", "Logger", "Handler",
           "StreamHandler", "NullHandler", "Formatter", "basicConfig", "getLogger", "getLevelName",
           "debug", "info", "warning", "warn", "error", "critical", "exception", "log", "disable",
           "captureWarnings", "shutdown"]

CRITICAL = FATAL = 50
ERROR = 40
WARNING = WARN = 30
INFO = 20
DEBUG = 10
NOTSET = 0

_NAMES = {CRITICAL: "CRITICAL", ERROR: "ERROR", WARNING: "WARNING", INFO: "INFO", DEBUG: "DEBUG", NOTSET: "NOTSET"}
_LEVELS = {v: k for k, v in _NAMES.items()}
_LEVELS["WARN"] = WARNING
_LEVELS["FATAL"] = CRITICAL
BASIC_FORMAT = "%(levelname)s:%(name)s:%(message)s"
_MAX_LOGGERS = 1000
_DIRECTIVE_CHARS = 64   # the most a strftime directive is counted to stand for (%c is 24 in the C locale)


def _level(level):
    if type(level) is int:
        return level
    if type(level) is str:
        if level not in _LEVELS:
            raise ValueError(f"Unknown level: {level!r}")
        return _LEVELS[level]
    raise TypeError(f"Level not an integer or a valid string: {builtins().b_repr(level)}")


def getLevelName(level):
    """The name of a level number ('INFO'), the number of a name, or 'Level N', as Python's."""
    if type(level) is int:
        return _NAMES.get(level, f"Level {level}")
    if type(level) is str and level in _LEVELS:
        return _LEVELS[level]
    return f"Level {builtins().b_str(level)}"


class Formatter:
    """``Formatter(fmt=None, datefmt=None, style='%')``: ``%``-style fields of a record."""

    def __init__(self, fmt=None, datefmt=None, style="%", validate=True, *, defaults=None):
        if style != "%":
            raise ValueError("only '%'-style logging formats are available in programs")
        if fmt is not None and type(fmt) is not str:
            raise TypeError("the logging format must be a string")
        if datefmt is not None and type(datefmt) is not str:
            raise TypeError("the logging date format must be a string")
        self.fmt = fmt or "%(message)s"
        self.datefmt = datefmt

    def format(self, record):
        if type(record) is not dict:
            raise TypeError("Formatter.format takes a record: the dict of its fields")
        fields = dict(record)
        if "%(asctime)" in self.fmt:
            t = fields["created"]
            if self.datefmt:
                # what strftime may build, counted before it builds it: a directive is a few characters
                # that stand for up to a few dozen ('%c' * 5_000_000 made 120 million, 626 MB at once)
                check_string(len(self.datefmt) + _DIRECTIVE_CHARS * self.datefmt.count("%"))
                fields["asctime"] = _time.strftime(self.datefmt, _time.localtime(t))
            else:
                fields["asctime"] = (_time.strftime("%Y-%m-%d %H:%M:%S", _time.localtime(t))
                                     + ",%03d" % (int(t * 1000) % 1000))
        from ..operators import mod
        return mod(self.fmt, fields)


class Handler:
    """A handler writing formatted records to the program's output."""

    def __init__(self, level=NOTSET):
        self.level = _level(level)
        self.formatter = None

    def setLevel(self, level):
        self.level = _level(level)

    def setFormatter(self, fmt):
        if fmt is not None and not isinstance(fmt, Formatter):
            raise TypeError("setFormatter takes a logging.Formatter")
        self.formatter = fmt

    def handle(self, record):
        if record["levelno"] >= self.level:
            self.emit(record)

    def emit(self, record):
        text = (self.formatter or _DEFAULT_FORMATTER).format(record)
        check_string(len(text) + 1)
        builtins().rt.write(text + "\n")

    def flush(self):
        return None

    def close(self):
        return None


class StreamHandler(Handler):
    """``StreamHandler(stream=None)``: the stream is the program's output, whatever is passed."""

    def __init__(self, stream=None):
        super().__init__()


class NullHandler(Handler):
    def emit(self, record):
        return None


_DEFAULT_FORMATTER = Formatter()


class Logger:
    """A named logger: a level, handlers, and propagation to its parent (the root)."""

    def __init__(self, name, level=NOTSET):
        self.name = name
        self.level = _level(level)
        self.handlers = []
        self.propagate = True
        self.disabled = False
        self.parent = None

    def setLevel(self, level):
        self.level = _level(level)

    def getEffectiveLevel(self):
        logger = self
        while logger is not None:
            if logger.level:
                return logger.level
            logger = logger.parent
        return NOTSET

    def isEnabledFor(self, level):
        return level > _registry().disabled and level >= self.getEffectiveLevel()

    def addHandler(self, hdlr):
        if not isinstance(hdlr, Handler):
            raise TypeError("addHandler takes a logging handler")
        if hdlr not in self.handlers:
            self.handlers.append(hdlr)

    def removeHandler(self, hdlr):
        if hdlr in self.handlers:
            self.handlers.remove(hdlr)

    def hasHandlers(self):
        logger = self
        while logger is not None:
            if logger.handlers:
                return True
            logger = logger.parent if logger.propagate else None
        return False

    def getChild(self, suffix):
        if type(suffix) is not str:
            raise TypeError("a logger's child is named by a string")
        if self.name == "root":
            return getLogger(suffix)
        check_string(len(self.name) + 1 + len(suffix))   # lg.getChild(lg.name) doubled a name past the limit
        return getLogger(f"{self.name}.{suffix}")

    def log(self, level, msg, *args, exc_info=None, stack_info=False, stacklevel=1, extra=None):
        level = _level(level)
        if self.disabled or not self.isEnabledFor(level):
            return None
        b = builtins()
        message = msg if type(msg) is str else b.b_str(msg)
        if args:
            if len(args) == 1 and type(args[0]) is dict and args[0]:
                args = args[0]
            from ..operators import mod
            message = mod(message, args)
        record = {"name": self.name, "levelno": level, "levelname": getLevelName(level), "message": message,
                  "msg": message, "lineno": state.line or 0, "filename": "<program>", "pathname": "<program>",
                  "module": "<program>", "funcName": "<module>", "created": _time.time(), "process": 0,
                  "processName": "MainProcess", "thread": 0, "threadName": "MainThread", "relativeCreated": 0.0,
                  "msecs": 0.0}
        logger, found = self, False
        while logger is not None:
            for h in logger.handlers:
                found = True
                h.handle(record)
            logger = logger.parent if logger.propagate else None
        if not found and level >= WARNING:
            # Python's last resort: the bare message (to stderr there; the program's output here)
            check_string(len(message) + 1)
            b.rt.write(message + "\n")
        return None

    def debug(self, msg, *args, **kwargs):
        return self.log(DEBUG, msg, *args, **kwargs)

    def info(self, msg, *args, **kwargs):
        return self.log(INFO, msg, *args, **kwargs)

    def warning(self, msg, *args, **kwargs):
        return self.log(WARNING, msg, *args, **kwargs)

    warn = warning

    def error(self, msg, *args, **kwargs):
        return self.log(ERROR, msg, *args, **kwargs)

    def exception(self, msg, *args, exc_info=True, **kwargs):
        return self.log(ERROR, msg, *args, **kwargs)

    def critical(self, msg, *args, **kwargs):
        return self.log(CRITICAL, msg, *args, **kwargs)

    fatal = critical

    def __repr__(self):
        return f"<Logger {self.name} ({getLevelName(self.getEffectiveLevel())})>"


class _Registry:
    __slots__ = ("root", "loggers", "disabled")

    def __init__(self):
        self.root = Logger("root", WARNING)
        self.loggers = {}
        self.disabled = NOTSET


def _registry():
    return session_state("logging", _Registry)


SESSION_NAMES = ("root",)   # module attributes that are the running session's own (see __getattr__)


def __getattr__(name):
    """``logging.root``, the session's root logger (``logging.root.setLevel(logging.INFO)``, as
    toy_gradlogp's training script sets it): looked up per session, so a module attribute here.
    Outside a run (the allowlist's views are built once, reading names with hasattr) there is none."""
    if name in SESSION_NAMES:
        try:
            return _registry().root
        except RuntimeError:   # no session runs a program
            pass
    raise AttributeError(f"module 'logging' has no attribute '{name}'")


def getLogger(name=None):
    """The session's logger of that name (the root for None or 'root'), made on first use."""
    reg = _registry()
    if name is None or name == "root":
        return reg.root
    if type(name) is not str:
        raise TypeError("A logger name must be a string")
    logger = reg.loggers.get(name)
    if logger is None:
        if len(reg.loggers) >= _MAX_LOGGERS:
            raise _P["ValueError"](f"a program holds at most {_MAX_LOGGERS} loggers")
        logger = reg.loggers[name] = Logger(name)
        logger.parent = reg.root
    return logger


def basicConfig(*, filename=None, filemode=None, format=None, datefmt=None, style="%", level=None, stream=None,
                handlers=None, force=False, encoding=None, errors=None):
    """Configures the root logger once (again with ``force=True``), as Python's: a handler writing
    to the program's output with ``format`` (default ``%(levelname)s:%(name)s:%(message)s``)."""
    if filename is not None:
        raise TypeError("logging to a file is not available in programs: records go to the program's output")
    root = _registry().root
    if force:
        root.handlers = []
    if not root.handlers:
        if handlers is None:
            handler = StreamHandler(stream)
            handler.setFormatter(Formatter(format or BASIC_FORMAT, datefmt, style))
            handlers = [handler]
        for h in handlers:
            if h.formatter is None:
                h.setFormatter(Formatter(format or BASIC_FORMAT, datefmt, style))
            root.addHandler(h)
        if level is not None:
            root.setLevel(level)


def disable(level=CRITICAL):
    _registry().disabled = _level(level)


def captureWarnings(capture):
    return None


def shutdown():
    return None


def log(level, msg, *args, **kwargs):
    _auto_config()
    return getLogger().log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    return log(DEBUG, msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    return log(INFO, msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    return log(WARNING, msg, *args, **kwargs)


warn = warning


def error(msg, *args, **kwargs):
    return log(ERROR, msg, *args, **kwargs)


def exception(msg, *args, **kwargs):
    return log(ERROR, msg, *args, **kwargs)


def critical(msg, *args, **kwargs):
    return log(CRITICAL, msg, *args, **kwargs)


fatal = critical


def _auto_config():
    # the module-level functions call basicConfig() first when the root has no handler, as Python's
    if not _registry().root.handlers:
        basicConfig()
