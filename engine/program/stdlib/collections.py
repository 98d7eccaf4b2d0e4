"""Program-side ``collections``: ``OrderedDict``, ``defaultdict``, ``Counter`` and
``deque`` (Python's own containers, built from a program's data through the
interpreter: a step per item, lengths checked) and ``namedtuple`` (a class of the
program's own)."""
import collections as _c
import keyword as _kw

from .. import guards
from . import builtins, call, check_sequence, check_string, materialize, step

__all__ = ["OrderedDict", "defaultdict", "Counter", "deque", "namedtuple", "ChainMap"]

_DICTS = (dict, _c.OrderedDict, _c.defaultdict, _c.Counter)


def _pairs(args, kwargs, name):
    """The items of a dict(...)-style call as a plain dict or list of pairs, counted."""
    if len(args) > 1:
        raise TypeError(f"{name} expected at most 1 argument, got {len(args)}")
    items = []
    if args:
        src = args[0]
        if isinstance(src, dict):
            step(len(src))
            items = list(src.items())
        else:
            for item in materialize(src):
                pair = item if type(item) in (tuple, list) else materialize(item)
                if len(pair) != 2:
                    raise ValueError(f"dictionary update sequence element has length {len(pair)}; 2 is required")
                items.append((pair[0], pair[1]))
    step(len(kwargs))
    items.extend(kwargs.items())
    return items


class OrderedDict(_c.OrderedDict):
    """``OrderedDict`` (Python's), built through the interpreter."""
    __slots__ = ()

    def __init__(self, *args, **kwargs):
        super().__init__(_pairs(args, kwargs, "OrderedDict"))

    def update(self, *args, **kwargs):
        super().update(_pairs(args, kwargs, "update"))

    def copy(self):
        step(len(self))
        return type(self)(self)


class defaultdict(_c.defaultdict):
    """``defaultdict(factory, ...)``: a missing key gets ``factory()``, called as the program's."""
    __slots__ = ()

    def __init__(self, default_factory=None, *args, **kwargs):
        if default_factory is not None and not callable(default_factory):
            raise TypeError("first argument must be callable or None")
        super().__init__(default_factory, _pairs(args, kwargs, "defaultdict"))

    def __missing__(self, key):
        if self.default_factory is None:
            raise KeyError(key)
        value = call(self.default_factory, ())
        self[key] = value
        return value

    def update(self, *args, **kwargs):
        super().update(_pairs(args, kwargs, "update"))

    def copy(self):
        step(len(self))
        return type(self)(self.default_factory, self)

    def __repr__(self):
        return f"defaultdict({self.default_factory!r}, {dict.__repr__(self)})"


class Counter(_c.Counter):
    """``Counter`` (Python's), counting through the interpreter."""
    __slots__ = ()

    def __init__(self, iterable=None, /, **kwds):
        super().__init__()
        self.update(iterable, **kwds)

    def update(self, iterable=None, /, **kwds):
        if iterable is not None:
            if isinstance(iterable, dict):
                step(len(iterable))
                for k, v in iterable.items():
                    self[k] = self.get(k, 0) + v
            else:
                for x in materialize(iterable):
                    self[x] = self.get(x, 0) + 1
        if kwds:
            self.update(kwds)

    def subtract(self, iterable=None, /, **kwds):
        if iterable is not None:
            if isinstance(iterable, dict):
                step(len(iterable))
                for k, v in iterable.items():
                    self[k] = self.get(k, 0) - v
            else:
                for x in materialize(iterable):
                    self[x] = self.get(x, 0) - 1
        if kwds:
            self.subtract(kwds)

    def elements(self):
        total = sum(v for v in self.values() if type(v) is int and v > 0)
        check_sequence(total)
        step(total)
        return iter(list(super().elements()))

    def most_common(self, n=None):
        step(len(self))
        return super().most_common(n)

    def copy(self):
        step(len(self))
        return type(self)(self)


class deque(_c.deque):
    """``deque(iterable, maxlen)`` (Python's), filled through the interpreter."""
    __slots__ = ()

    def __init__(self, iterable=(), maxlen=None):
        super().__init__(materialize(iterable), maxlen)

    def extend(self, iterable):
        items = materialize(iterable)
        check_sequence(len(self) + len(items))
        super().extend(items)

    def extendleft(self, iterable):
        items = materialize(iterable)
        check_sequence(len(self) + len(items))
        super().extendleft(items)

    def append(self, x):
        if len(self) >= guards_seq_limit() and self.maxlen is None:
            check_sequence(len(self) + 1)
        super().append(x)

    def appendleft(self, x):
        if len(self) >= guards_seq_limit() and self.maxlen is None:
            check_sequence(len(self) + 1)
        super().appendleft(x)

    def rotate(self, n=1):
        step(min(abs(n), len(self)) if type(n) is int else 1)
        super().rotate(n)

    def copy(self):
        step(len(self))
        return deque(self, self.maxlen)

    def __repr__(self):
        return _c.deque.__repr__(self)


def guards_seq_limit():
    from . import runtime
    return runtime().seq_limit


class ChainMap(_c.ChainMap):
    """``ChainMap(*maps)``: lookups through several dicts."""

    def __init__(self, *maps):
        for m in maps:
            if not isinstance(m, dict):
                raise TypeError("ChainMap in programs chains dicts")
        super().__init__(*maps)


def namedtuple(typename, field_names, *, rename=False, defaults=None, module=None):
    """A tuple class of the program's own with named fields (as Python's)."""
    if type(field_names) is str:
        field_names = field_names.replace(",", " ").split()
    field_names = [str(f) for f in materialize(field_names)]
    if type(typename) is not str or not typename.isidentifier() or _kw.iskeyword(typename):
        raise ValueError(f"Type names and field names must be valid identifiers: {typename!r}")
    seen = set()
    for i, name in enumerate(field_names):
        step()   # a field costs a step (a string of names splits into millions at no cost of its own)
        bad = (not name.isidentifier() or _kw.iskeyword(name) or name.startswith("_") or name in seen)
        if bad:
            if rename:
                field_names[i] = f"_{i}"
            elif name.startswith("_") and name.isidentifier():
                raise ValueError(f"Field names cannot start with an underscore: {name!r}")
            elif name in seen:
                raise ValueError(f"Encountered duplicate field name: {name!r}")
            else:
                raise ValueError(f"Type names and field names must be valid identifiers: {name!r}")
        seen.add(field_names[i])
    fields = tuple(field_names)
    n = len(fields)
    defaults = tuple(materialize(defaults)) if defaults is not None else ()
    if len(defaults) > n:
        raise TypeError("Got more default values than field names")
    field_defaults = dict(zip(fields[n - len(defaults):], defaults))
    return _make_namedtuple(typename, fields, field_defaults)


class TupleNew:
    """``Point.__new__`` of a program's namedtuple, as a program reads it: what the idiom of Python's
    documentation before ``defaults=`` sets, ``Point.__new__.__defaults__ = (None,) * len(Point._fields)``
    (lukemelas/EfficientNet-PyTorch's GlobalParams). Reading and setting ``__defaults__`` only."""
    __slots__ = ("_typename", "_fields", "_holder")

    def __init__(self, typename, fields, holder):
        self._typename, self._fields, self._holder = typename, fields, holder

    def get_defaults(self):
        d = self._holder[0]
        values = tuple(d[f] for f in self._fields if f in d)
        return values or None

    def set_defaults(self, value):
        if value is None:
            self._holder[0] = {}
            return
        if type(value) is not tuple:
            raise TypeError("__defaults__ must be set to a tuple object")
        n = len(self._fields)
        if len(value) > n:
            raise TypeError("Got more default values than field names")
        self._holder[0] = dict(zip(self._fields[n - len(value):], value))

    def __repr__(self):
        return f"<function {self._typename}.__new__>"


def _make_namedtuple(typename, fields, field_defaults, base=tuple, extra=None):
    n = len(fields)
    holder = [dict(field_defaults)]   # __new__'s defaults: TupleNew.set_defaults replaces them

    def __new__(cls, *args, **kwargs):
        field_defaults = holder[0]
        if len(args) > n:
            raise TypeError(f"{typename}.__new__() takes {n + 1} positional arguments but {len(args) + 1} were given")
        values = list(args)
        for name in fields[len(args):]:
            if name in kwargs:
                values.append(kwargs.pop(name))
            elif name in field_defaults:
                values.append(field_defaults[name])
            else:
                missing = [f for f in fields[len(values):] if f not in kwargs and f not in field_defaults]
                raise TypeError(f"{typename}.__new__() missing {len(missing)} required positional argument"
                                f"{'s' if len(missing) != 1 else ''}: {', '.join(repr(m) for m in missing)}")
        if kwargs:
            k = next(iter(kwargs))
            if k in fields:
                raise TypeError(f"{typename}.__new__() got multiple values for argument '{k}'")
            raise TypeError(f"{typename}.__new__() got an unexpected keyword argument '{k}'")
        return tuple.__new__(cls, values)

    def __repr__(self):
        # each field as the program's repr() builds it (counted as it grows), and the whole counted too:
        # Python's repr of a field holding ['m' * 10**6] * 1000 built a billion characters first
        b, parts = builtins(), []
        n = len(type(self).__name__) + 2
        for f, v in zip(fields, self):
            part = f"{f}={b.b_repr(v)}"
            n += len(part) + 2
            check_string(n)
            parts.append(part)
        return f"{type(self).__name__}(" + ", ".join(parts) + ")"

    def _asdict(self):
        return dict(zip(fields, self))

    def _replace(self, **kwargs):
        values = [kwargs.pop(f, v) for f, v in zip(fields, self)]
        if kwargs:
            raise ValueError(f"Got unexpected field names: {list(kwargs)!r}")
        return tuple.__new__(type(self), values)

    def _make(cls, iterable):
        values = materialize(iterable)
        if len(values) != n:
            raise TypeError(f"Expected {n} arguments, got {len(values)}")
        return tuple.__new__(cls, values)

    def __getnewargs__(self):
        return tuple(self)

    ns = {"__slots__": (), "__new__": __new__, "__repr__": __repr__, "_asdict": _asdict, "_replace": _replace,
          "_make": classmethod(_make), "_fields": fields, "_field_defaults": dict(field_defaults),
          "__match_args__": fields, "__getnewargs__": __getnewargs__, "__module__": "__main__",
          "__qualname__": typename, "__gs_program__": True, "__gs_namedtuple__": TupleNew(typename, fields, holder)}
    for i, name in enumerate(fields):
        step()   # each field's property is several objects: the run's limits are checked as they grow
        ns[name] = property(_itemgetter(i), doc=f"Alias for field number {i}")
    if extra:
        ns.update(extra)
    return type(typename, (base,), ns)


def _itemgetter(i):
    def get(self):
        return tuple.__getitem__(self, i)
    return get
