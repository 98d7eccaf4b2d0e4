"""Program-side ``dataclasses``: ``@dataclass`` on the program's own classes (fields from
the class body's annotations, in order, bases first), ``field``, ``fields``, ``asdict``,
``astuple``, ``replace``, ``is_dataclass``. The methods it adds are the interpreter's."""
from .. import access
from . import call, step

__all__ = ["dataclass", "field", "fields", "asdict", "astuple", "replace", "is_dataclass", "MISSING", "Field",
           "FrozenInstanceError", "InitVar", "KW_ONLY"]


class _MissingType:
    __slots__ = ()

    def __repr__(self):
        return "MISSING"


MISSING = _MissingType()


class KW_ONLY:
    """Marks the fields after it keyword-only."""


class InitVar:
    __slots__ = ("type",)

    def __init__(self, type=None):
        self.type = type

    def __class_getitem__(cls, item):
        return cls(item)


from ..errors import PROGRAM_EXCEPTIONS as _P  # noqa: E402


class FrozenInstanceError(_P["AttributeError"]):
    pass


FrozenInstanceError.__module__ = "dataclasses"


class Field:
    """One field of a dataclass (what ``fields()`` gives)."""
    __slots__ = ("name", "type", "default", "default_factory", "init", "repr", "hash", "compare", "kw_only",
                 "metadata")

    def __init__(self, default, default_factory, init, repr, hash, compare, kw_only, metadata):
        self.name = None
        self.type = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self.kw_only = kw_only
        self.metadata = metadata if metadata is not None else {}

    def __repr__(self):
        return (f"Field(name={self.name!r},type={self.type!r},default={self.default!r},"
                f"default_factory={self.default_factory!r},init={self.init!r},repr={self.repr!r},"
                f"hash={self.hash!r},compare={self.compare!r},kw_only={self.kw_only!r})")


def field(*, default=MISSING, default_factory=MISSING, init=True, repr=True, hash=None, compare=True,
          metadata=None, kw_only=MISSING):
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, init, repr, hash, compare, kw_only, metadata)


_MUTABLE = (list, dict, set)


def _class_fields(cls, kw_only_all):
    found = {}
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get("__gs_fields__", ()):
            found[f.name] = f
    annotations = cls.__dict__.get("__annotations__", {})
    kw_only = kw_only_all
    for name, ann in annotations.items():
        if ann == "KW_ONLY" or ann is KW_ONLY or (isinstance(ann, str) and ann.endswith(".KW_ONLY")):
            kw_only = True
            continue
        if isinstance(ann, str) and ("ClassVar" in ann.split("[")[0]):
            continue
        default = cls.__dict__.get(name, MISSING)
        if isinstance(default, Field):
            f = default
            if f.default is MISSING:
                if name in cls.__dict__:
                    type.__delattr__(cls, name)
            else:
                type.__setattr__(cls, name, f.default)
        else:
            if type(default) in _MUTABLE:
                raise ValueError(f"mutable default {type(default)} for field {name} is not allowed: use "
                                 f"default_factory")
            f = Field(default, MISSING, True, True, None, True, MISSING, None)
        f.name = name
        f.type = ann
        if f.kw_only is MISSING:
            f.kw_only = kw_only
        found[name] = f
    return tuple(found.values())


def _init_for(cls_fields, post_init):
    params = [f for f in cls_fields if f.init]
    positional = [f for f in params if not f.kw_only]
    seen_default = False
    for f in positional:
        has_default = f.default is not MISSING or f.default_factory is not MISSING
        if seen_default and not has_default:
            raise TypeError(f"non-default argument '{f.name}' follows default argument")
        seen_default = seen_default or has_default
    names = [f.name for f in positional]

    def __init__(self, *args, **kwargs):
        cls_name = type(self).__name__
        if len(args) > len(positional):
            raise TypeError(f"{cls_name}.__init__() takes {len(positional) + 1} positional arguments but "
                            f"{len(args) + 1} were given")
        values = dict(zip(names, args))
        for k in kwargs:
            if k in values:
                raise TypeError(f"{cls_name}.__init__() got multiple values for argument '{k}'")
            if not any(f.name == k for f in params):
                raise TypeError(f"{cls_name}.__init__() got an unexpected keyword argument '{k}'")
        values.update(kwargs)
        missing = []
        for f in cls_fields:
            if f.init and f.name in values:
                v = values[f.name]
            elif f.default is not MISSING:
                v = f.default
            elif f.default_factory is not MISSING:
                v = call(f.default_factory, ())
            elif f.init:
                missing.append(f.name)
                continue
            else:
                continue
            object.__setattr__(self, f.name, v)
        if missing:
            raise TypeError(f"{cls_name}.__init__() missing {len(missing)} required positional argument"
                            f"{'s' if len(missing) != 1 else ''}: " + " and ".join(repr(m) for m in missing))
        if post_init:
            call(access.get_attr(self, "__post_init__"), ())
    return __init__


def _repr_for(cls_fields):
    shown = [f.name for f in cls_fields if f.repr]

    def __repr__(self):
        return f"{type(self).__qualname__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in shown) + ")"
    return __repr__


def _values(self, cls_fields):
    return tuple(getattr(self, f.name) for f in cls_fields if f.compare)


def _cmp_for(cls_fields, op):
    def compare(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return op(_values(self, cls_fields), _values(other, cls_fields))
    return compare


def _frozen_setattr(self, name, value):
    raise FrozenInstanceError(f"cannot assign to field '{name}'")


def _frozen_delattr(self, name):
    raise FrozenInstanceError(f"cannot delete field '{name}'")


def _process(cls, init, repr, eq, order, frozen, unsafe_hash, kw_only):
    if not access.is_program_class(cls):
        raise TypeError("dataclass() applies to the program's own classes")
    import operator as _op
    cls_fields = _class_fields(cls, kw_only)
    setattr_ = type.__setattr__
    setattr_(cls, "__gs_fields__", cls_fields)
    setattr_(cls, "__dataclass_fields__", {f.name: f for f in cls_fields})
    post_init = any("__post_init__" in k.__dict__ for k in cls.__mro__ if "__gs_program__" in k.__dict__)
    if init and "__init__" not in cls.__dict__:
        setattr_(cls, "__init__", _init_for(cls_fields, post_init))
    if repr and "__repr__" not in cls.__dict__:
        setattr_(cls, "__repr__", _repr_for(cls_fields))
    if eq and "__eq__" not in cls.__dict__:
        setattr_(cls, "__eq__", _cmp_for(cls_fields, _op.eq))
        if not unsafe_hash and not frozen and "__hash__" not in cls.__dict__:
            setattr_(cls, "__hash__", None)
    if order:
        for name, op in (("__lt__", _op.lt), ("__le__", _op.le), ("__gt__", _op.gt), ("__ge__", _op.ge)):
            if name in cls.__dict__:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}. Consider using "
                                f"functools.total_ordering")
            setattr_(cls, name, _cmp_for(cls_fields, op))
    if frozen:
        setattr_(cls, "__setattr__", _frozen_setattr)
        setattr_(cls, "__delattr__", _frozen_delattr)
    if (frozen and eq) or unsafe_hash:
        setattr_(cls, "__hash__", lambda self: hash(_values(self, cls_fields)))
    return cls


def dataclass(cls=None, /, *, init=True, repr=True, eq=True, order=False, unsafe_hash=False, frozen=False,
              match_args=True, kw_only=False, slots=False, weakref_slot=False):
    """``@dataclass`` or ``@dataclass(...)`` on a program class."""
    def wrap(c):
        return _process(c, init, repr, eq, order, frozen, unsafe_hash, kw_only)
    if cls is None:
        return wrap
    return wrap(cls)


def is_dataclass(obj):
    cls = obj if isinstance(obj, type) else type(obj)
    return "__gs_fields__" in getattr(cls, "__dict__", {}) or any("__gs_fields__" in k.__dict__ for k in cls.__mro__)


def _fields_of(obj):
    cls = obj if isinstance(obj, type) else type(obj)
    for k in cls.__mro__:
        f = k.__dict__.get("__gs_fields__")
        if f is not None:
            return f
    raise TypeError("must be called with a dataclass type or instance")


def fields(class_or_instance):
    return _fields_of(class_or_instance)


def _convert(obj, factory, depth):
    from . import copy as _copy
    step()
    if depth > 200:
        raise RecursionError("value nested too deeply")
    if not isinstance(obj, type) and is_dataclass(obj):
        pairs = [(f.name, _convert(getattr(obj, f.name), factory, depth + 1)) for f in _fields_of(obj)]
        return factory(pairs)
    if isinstance(obj, tuple) and hasattr(type(obj), "_fields"):
        return type(obj)(*[_convert(v, factory, depth + 1) for v in obj])
    if isinstance(obj, (list, tuple)):
        return type(obj)(_convert(v, factory, depth + 1) for v in obj)
    if isinstance(obj, dict):
        return type(obj)((_convert(k, factory, depth + 1), _convert(v, factory, depth + 1)) for k, v in obj.items())
    return _copy.deepcopy(obj)


def asdict(obj, *, dict_factory=dict):
    if isinstance(obj, type) or not is_dataclass(obj):
        raise TypeError("asdict() should be called on dataclass instances")
    factory = dict if dict_factory is dict else (lambda pairs: call(dict_factory, (pairs,)))
    return _convert(obj, factory, 0)


def astuple(obj, *, tuple_factory=tuple):
    if isinstance(obj, type) or not is_dataclass(obj):
        raise TypeError("astuple() should be called on dataclass instances")
    factory = (lambda pairs: tuple(v for _, v in pairs)) if tuple_factory is tuple else \
        (lambda pairs: call(tuple_factory, ([v for _, v in pairs],)))
    return _convert(obj, factory, 0)


def replace(obj, /, **changes):
    if isinstance(obj, type) or not is_dataclass(obj):
        raise TypeError("replace() should be called on dataclass instances")
    kwargs = {}
    for f in _fields_of(obj):
        if not f.init:
            if f.name in changes:
                raise ValueError(f"field {f.name} is declared with init=False, it cannot be specified with replace()")
            continue
        kwargs[f.name] = changes.pop(f.name) if f.name in changes else getattr(obj, f.name)
    if changes:
        raise TypeError(f"__init__() got an unexpected keyword argument '{next(iter(changes))}'")
    return call(type(obj), (), kwargs)
