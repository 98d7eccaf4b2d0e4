"""Program-side ``contextlib``: ``contextmanager`` over a program's generator function,
``nullcontext`` and ``suppress``, with Python's semantics (a ``with`` block's exception is thrown
into the generator at its ``yield``; the generator must yield exactly once).

The generator runs only through the interpreter (``ProgramGenerator``): this module resumes it,
throws into it and reads what it raises, and never runs program code itself.
"""
from ..errors import PROGRAM_EXCEPTIONS, ProgramBaseException
from ..generators import ProgramGenerator
from . import call

__all__ = ["contextmanager", "nullcontext", "suppress"]

_P = PROGRAM_EXCEPTIONS


class _GeneratorContextManager:
    """What calling a ``@contextmanager`` function returns: a context manager over its generator."""
    __slots__ = ("gen", "name")

    def __init__(self, gen, name):
        self.gen = gen
        self.name = name

    def __enter__(self):
        gen = self.gen
        if type(gen) is not ProgramGenerator:
            raise _P["TypeError"](f"'{type(gen).__name__}' object is not an iterator (the function "
                                  f"decorated with @contextmanager must be a generator function)")
        try:
            return gen.__next__()
        except _P["StopIteration"]:
            raise _P["RuntimeError"]("generator didn't yield") from None

    def __exit__(self, typ, value, tb):
        gen = self.gen
        if typ is None:
            try:
                gen.__next__()
            except _P["StopIteration"]:
                return False
            raise _P["RuntimeError"]("generator didn't stop")
        if value is None:
            value = typ()
        try:
            gen.throw(value)
        except _P["StopIteration"] as exc:
            return exc is not value   # the generator handled the exception: suppressed
        except ProgramBaseException as exc:
            if exc is value:
                return False   # re-raised as is: the with statement raises it
            if isinstance(value, _P["StopIteration"]) and exc.__cause__ is value:
                return False   # PEP 479 turned the block's StopIteration into a RuntimeError
            raise
        raise _P["RuntimeError"]("generator didn't stop after throw()")

    def __repr__(self):
        return f"<contextlib._GeneratorContextManager object of {self.name}>"


_GeneratorContextManager.__name__ = _GeneratorContextManager.__qualname__ = "_GeneratorContextManager"


class contextmanager:
    """``@contextmanager``: calling the decorated function gives a context manager over the
    generator it returns. Works on functions and, through ``__get__``, on methods."""
    __slots__ = ("func", "bound")

    def __init__(self, func, bound=None):
        self.func = func
        self.bound = bound

    def __call__(self, *args, **kwargs):
        if self.bound is not None:
            args = (self.bound,) + args
        gen = call(self.func, args, kwargs)
        return _GeneratorContextManager(gen, getattr(self.func, "name", type(self.func).__name__))

    def __get__(self, obj, cls=None):
        return self if obj is None else contextmanager(self.func, obj)

    def __repr__(self):
        return f"<contextmanager {getattr(self.func, 'name', '?')}>"


class nullcontext:
    """A context manager that does nothing; ``with nullcontext(x) as y`` binds ``x``."""
    __slots__ = ("enter_result",)

    def __init__(self, enter_result=None):
        self.enter_result = enter_result

    def __enter__(self):
        return self.enter_result

    def __exit__(self, *exc):
        return False


class suppress:
    """``with suppress(KeyError, ...)``: the block's exceptions of those classes are swallowed."""
    __slots__ = ("exceptions",)

    def __init__(self, *exceptions):
        for e in exceptions:
            if not (isinstance(e, type) and issubclass(e, ProgramBaseException)):
                raise _P["TypeError"]("suppress() takes exception classes")
        self.exceptions = exceptions

    def __enter__(self):
        return None

    def __exit__(self, typ, value, tb):
        return typ is not None and issubclass(typ, self.exceptions)
