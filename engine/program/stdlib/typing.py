"""Program-side ``typing``: annotations work. The special forms are placeholders that
can be subscripted (``List[int]``, ``Optional[nn.Module]``, ``Callable[..., T]``);
``NamedTuple`` as a base class builds a named tuple from the class's annotations,
``cast`` returns its value, ``TYPE_CHECKING`` is False."""
__all__ = ["Any", "Callable", "Dict", "List", "Tuple", "Set", "FrozenSet", "Optional", "Union", "Iterable",
           "Iterator", "Generator", "Sequence", "MutableSequence", "Mapping", "MutableMapping", "Type", "Literal",
           "ClassVar", "Final", "Annotated", "TypeVar", "Generic", "Protocol", "NamedTuple", "TypedDict", "cast",
           "overload", "no_type_check", "final", "runtime_checkable", "get_type_hints", "TYPE_CHECKING",
           "NoReturn", "Never", "Self", "AnyStr", "Hashable", "Sized", "Collection", "Container", "Deque",
           "DefaultDict", "OrderedDict", "Counter", "ParamSpec", "Concatenate", "TypeAlias", "Awaitable",
           "Coroutine", "AsyncIterator", "Reversible", "SupportsInt", "SupportsFloat", "Text"]

TYPE_CHECKING = False


class _Form:
    """A typing special form: subscriptable, callable only where Python's is."""
    __slots__ = ("name", "args")

    def __init__(self, name, args=()):
        self.name = name
        self.args = args

    def __getitem__(self, params):
        if not isinstance(params, tuple):
            params = (params,)
        return _Form(self.name, params)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"Cannot instantiate typing.{self.name}")

    def __or__(self, other):
        return _Form("Union", (self, other))

    def __ror__(self, other):
        return _Form("Union", (other, self))

    def __repr__(self):
        if self.args:
            return f"typing.{self.name}[{', '.join(_name(a) for a in self.args)}]"
        return f"typing.{self.name}"

    def __eq__(self, other):
        return type(other) is _Form and other.name == self.name and other.args == self.args

    def __hash__(self):
        return hash((self.name, len(self.args)))


class _BuiltinAlias(_Form):
    """``tuple[Tensor, Tensor]``, ``list[int]``: a builtin container class subscripted, as a value
    (``typing.cast(tuple[Tensor, Tensor], ...)``). Calling it calls the class, as Python's alias does."""
    __slots__ = ("origin",)

    def __init__(self, origin, args):
        super().__init__(origin.__name__, args)
        self.origin = origin

    def __getitem__(self, params):
        raise TypeError(f"{self!r} is not a generic class")

    def __call__(self, *args, **kwargs):
        from . import call
        return call(self.origin, args, kwargs)

    def __repr__(self):
        return f"{self.name}[{', '.join(_name(a) for a in self.args)}]"

    def __eq__(self, other):
        return type(other) is _BuiltinAlias and other.origin is self.origin and other.args == self.args

    def __hash__(self):
        return hash((self.name, len(self.args)))


BUILTIN_ALIAS_ORIGINS = (list, tuple, dict, set, frozenset)


def builtin_alias(alias):
    """The program-side value of Python's ``list[int]`` (a types.GenericAlias over a builtin container)."""
    args = alias.__args__
    return _BuiltinAlias(alias.__origin__, args if type(args) is tuple else (args,))


def _name(a):
    if isinstance(a, type):
        return a.__name__
    if a is Ellipsis:
        return "..."
    return repr(a)


for _n in ("Any", "Callable", "Dict", "List", "Tuple", "Set", "FrozenSet", "Optional", "Union", "Iterable",
           "Iterator", "Generator", "Sequence", "MutableSequence", "Mapping", "MutableMapping", "Type", "Literal",
           "ClassVar", "Final", "Annotated", "NoReturn", "Never", "Self", "Hashable", "Sized", "Collection",
           "Container", "Deque", "DefaultDict", "OrderedDict", "Counter", "Concatenate", "TypeAlias",
           "Awaitable", "Coroutine", "AsyncIterator", "Reversible", "SupportsInt", "SupportsFloat"):
    globals()[_n] = _Form(_n)
del _n
Text = str

# the forms that name an abstract base class of collections.abc (which programs import as these forms):
# isinstance and issubclass check against the class, as Python's typing aliases do
_ABC_NAMES = ("Sequence", "MutableSequence", "Mapping", "MutableMapping", "Iterable", "Iterator", "Generator",
              "Hashable", "Sized", "Collection", "Container", "Reversible", "Awaitable", "Coroutine",
              "AsyncIterator", "Callable")


def abc_class(form):
    """The collections.abc class an unsubscripted form stands for in isinstance/issubclass, else None."""
    if type(form) is _Form and form.name in _ABC_NAMES:
        if form.args:
            raise TypeError("Subscripted generics cannot be used with class and instance checks")
        import collections.abc
        return getattr(collections.abc, form.name)
    return None


class TypeVar:
    """``T = TypeVar('T')``."""
    __slots__ = ("name", "constraints", "bound")

    def __init__(self, name, *constraints, bound=None, covariant=False, contravariant=False):
        self.name = name
        self.constraints = constraints
        self.bound = bound

    def __or__(self, other):
        return _Form("Union", (self, other))

    def __repr__(self):
        return f"~{self.name}"


class ParamSpec(TypeVar):
    __slots__ = ()


AnyStr = TypeVar("AnyStr", bytes, str)


class Generic:
    """A base class for generic program classes (``class Box(Generic[T])``)."""
    __slots__ = ()

    def __class_getitem__(cls, params):
        return cls


class Protocol(Generic):
    __slots__ = ()


class _NamedTupleMeta(type):
    def __new__(mcls, name, bases, ns):
        if "__gs_program__" not in ns:
            return super().__new__(mcls, name, bases, ns)
        from .collections import _make_namedtuple
        annotations = ns.get("__annotations__", {})
        fields = tuple(annotations)
        defaults = {f: ns[f] for f in fields if f in ns}
        seen_default = False
        for f in fields:
            if f in defaults:
                seen_default = True
            elif seen_default:
                raise TypeError(f"Non-default namedtuple field {f} cannot follow default field")
        extra = {k: v for k, v in ns.items() if k not in fields and k not in ("__annotations__", "__gs_program__",
                                                                            "__module__", "__qualname__")}
        return _make_namedtuple(name, fields, defaults, extra=extra)


class NamedTuple(metaclass=_NamedTupleMeta):
    """``class Point(NamedTuple): x: int; y: int = 0`` makes a named tuple."""
    __slots__ = ()


class TypedDict(dict):
    """``class Movie(TypedDict): ...``: its instances are plain dicts."""
    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        return dict(*args, **kwargs)


def cast(typ, val):
    return val


def overload(func):
    return func


def no_type_check(func):
    return func


def final(f):
    return f


def runtime_checkable(cls):
    return cls


def get_type_hints(obj, globalns=None, localns=None, include_extras=False):
    cls = obj if isinstance(obj, type) else type(obj)
    hints = {}
    for k in reversed(cls.__mro__):
        hints.update(k.__dict__.get("__annotations__", {}))
    return hints
