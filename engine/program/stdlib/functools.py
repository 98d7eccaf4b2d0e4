"""Program-side ``functools``: ``partial``, ``reduce``, ``wraps``/``update_wrapper``,
``lru_cache``/``cache``, ``cmp_to_key``, ``cached_property``, ``total_ordering``.
Program functions are called through the interpreter (steps, limits, the program's line)."""
from . import call, counted

__all__ = ["partial", "reduce", "wraps", "update_wrapper", "lru_cache", "cache", "cmp_to_key",
           "cached_property", "total_ordering", "WRAPPER_ASSIGNMENTS", "WRAPPER_UPDATES"]

WRAPPER_ASSIGNMENTS = ("__module__", "__name__", "__qualname__", "__doc__")
WRAPPER_UPDATES = ("__dict__",)
_MISSING = object()


class partial:
    """``partial(func, *args, **keywords)``: ``func`` with some arguments given."""
    __slots__ = ("func", "args", "keywords")

    def __init__(self, func, *args, **keywords):
        if not _callable(func):
            raise TypeError("the first argument must be callable")
        if type(func) is partial:
            args = func.args + args
            keywords = {**func.keywords, **keywords}
            func = func.func
        self.func = func
        self.args = args
        self.keywords = keywords

    def __call__(self, *args, **keywords):
        return call(self.func, self.args + args, {**self.keywords, **keywords})

    def __repr__(self):
        parts = [repr(self.func)] + [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.keywords.items()]
        return f"functools.partial({', '.join(parts)})"


def _callable(f):
    return callable(f)


def reduce(function, iterable, *initial):
    """Applies ``function`` cumulatively to the items, left to right."""
    if len(initial) > 1:
        raise TypeError(f"reduce expected at most 3 arguments, got {2 + len(initial)}")
    it = counted(iterable)
    if initial:
        acc = initial[0]
    else:
        acc = next(it, _MISSING)
        if acc is _MISSING:
            raise TypeError("reduce() of empty iterable with no initial value")
    for x in it:
        acc = call(function, (acc, x))
    return acc


def update_wrapper(wrapper, wrapped, assigned=WRAPPER_ASSIGNMENTS, updated=WRAPPER_UPDATES):
    """Gives a program function the name of the function it wraps."""
    from ..values import Function
    if type(wrapper) is Function and type(wrapped) is Function:
        wrapper.name = wrapped.name
    return wrapper


def wraps(wrapped, assigned=WRAPPER_ASSIGNMENTS, updated=WRAPPER_UPDATES):
    """A decorator applying ``update_wrapper(wrapper, wrapped)``."""
    return partial(update_wrapper, wrapped=wrapped, assigned=assigned, updated=updated)


class _CacheInfo(tuple):
    __slots__ = ()

    def __new__(cls, hits, misses, maxsize, currsize):
        return tuple.__new__(cls, (hits, misses, maxsize, currsize))

    hits = property(lambda self: self[0])
    misses = property(lambda self: self[1])
    maxsize = property(lambda self: self[2])
    currsize = property(lambda self: self[3])

    def __repr__(self):
        return "CacheInfo(hits={}, misses={}, maxsize={}, currsize={})".format(*self)


class _Cached:
    """A program function with its results cached by arguments (``lru_cache``)."""

    def __init__(self, func, maxsize):
        self.func = func
        self.maxsize = maxsize
        self.store = {}     # what it holds counts against the session's memory
        self.counts = [0, 0]

    def __call__(self, *args, **kwargs):
        key = (args, tuple(sorted(kwargs.items()))) if kwargs else args
        found = self.store.get(key, _MISSING)
        if found is not _MISSING:
            self.counts[0] += 1
            if self.maxsize is not None:
                del self.store[key]
                self.store[key] = found
            return found
        self.counts[1] += 1
        value = call(self.func, args, kwargs)
        if self.maxsize is None or self.maxsize > 0:
            self.store[key] = value
            if self.maxsize is not None and len(self.store) > self.maxsize:
                del self.store[next(iter(self.store))]
        return value

    def cache_info(self):
        return _CacheInfo(self.counts[0], self.counts[1], self.maxsize, len(self.store))

    def cache_clear(self):
        self.store.clear()
        self.counts = [0, 0]

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        return partial(self, obj)

    def __repr__(self):
        return f"<cached {self.func!r}>"


def lru_cache(maxsize=128, typed=False):
    """``@lru_cache``, ``@lru_cache(maxsize=None)``: caches a function's results."""
    if callable(maxsize) and not isinstance(maxsize, bool):
        return _Cached(maxsize, 128)
    if maxsize is not None:
        if type(maxsize) is not int:
            raise TypeError("Expected first argument to be an integer, a callable, or None")
        maxsize = max(maxsize, 0)
    return partial(_Cached, maxsize=maxsize)


def cache(user_function):
    return _Cached(user_function, None)


class cmp_to_key:
    """A key for ``sorted`` from an old-style comparison function."""
    __slots__ = ("cmp",)

    def __init__(self, mycmp):
        self.cmp = mycmp

    def __call__(self, obj):
        return _Key(self.cmp, obj)


class _Key:
    __slots__ = ("cmp", "obj")

    def __init__(self, cmp, obj):
        self.cmp = cmp
        self.obj = obj

    def _c(self, other):
        return call(self.cmp, (self.obj, other.obj))

    def __lt__(self, other):
        return self._c(other) < 0

    def __gt__(self, other):
        return self._c(other) > 0

    def __eq__(self, other):
        return self._c(other) == 0

    def __le__(self, other):
        return self._c(other) <= 0

    def __ge__(self, other):
        return self._c(other) >= 0

    __hash__ = None


class cached_property:
    """A property computed once per object, then stored on it."""

    def __init__(self, func):
        self.func = func
        self.attrname = getattr(func, "name", None)

    def __set_name__(self, owner, name):
        self.attrname = name

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        value = call(self.func, (obj,))
        obj.__dict__[self.attrname] = value
        return value


def total_ordering(cls):
    """Fills in the missing rich comparisons of a program class from the ones it defines."""
    from .. import access
    if not access.is_program_class(cls):
        raise TypeError("total_ordering applies to the program's own classes")
    defined = [op for op in ("__lt__", "__le__", "__gt__", "__ge__") if op in cls.__dict__]
    if not defined:
        raise ValueError("must define at least one ordering operation: < > <= >=")
    root = defined[0]
    for name, fn in _ORDER[root].items():
        if name not in cls.__dict__:
            type.__setattr__(cls, name, fn)
    return cls


def _m(name):
    def get(self, other):
        return call(getattr(type(self), name), (self, other))
    return get


def _lt_based():
    lt = _m("__lt__")
    return {"__gt__": lambda s, o: _not_or_ni(_swap(lt, s, o)),
            "__le__": lambda s, o: _or_eq(lt(s, o), s, o),
            "__ge__": lambda s, o: _inv(lt(s, o))}


def _le_based():
    le = _m("__le__")
    return {"__ge__": lambda s, o: _not_or_ni(_swap(le, s, o)),
            "__lt__": lambda s, o: _and_ne(le(s, o), s, o),
            "__gt__": lambda s, o: _inv(le(s, o))}


def _gt_based():
    gt = _m("__gt__")
    return {"__lt__": lambda s, o: _not_or_ni(_swap(gt, s, o)),
            "__ge__": lambda s, o: _or_eq(gt(s, o), s, o),
            "__le__": lambda s, o: _inv(gt(s, o))}


def _ge_based():
    ge = _m("__ge__")
    return {"__le__": lambda s, o: _not_or_ni(_swap(ge, s, o)),
            "__gt__": lambda s, o: _and_ne(ge(s, o), s, o),
            "__lt__": lambda s, o: _inv(ge(s, o))}


def _swap(f, s, o):
    return (f, s, o)


def _not_or_ni(triple):
    f, s, o = triple
    # a > b  is  b < a ; here for same-class operands
    return f(o, s) if type(o) is type(s) else NotImplemented


def _or_eq(r, s, o):
    return NotImplemented if r is NotImplemented else (r or s == o)


def _and_ne(r, s, o):
    return NotImplemented if r is NotImplemented else (r and s != o)


def _inv(r):
    return NotImplemented if r is NotImplemented else not r


_ORDER = {"__lt__": _lt_based(), "__le__": _le_based(), "__gt__": _gt_based(), "__ge__": _ge_based()}
