"""Program-side ``inspect``: ``signature`` of program functions, classes and the engine's
functions (defaults that are not program values show as their repr), and the ``is...``
predicates. Nothing of the host (frames, source files, code objects) is reachable."""
import inspect as _host
import types as _types

from .. import access
from ..values import BoundMethod, Function

__all__ = ["signature", "Signature", "Parameter", "isclass", "isfunction", "ismethod", "isbuiltin",
           "isroutine", "ismodule", "isabstract", "getdoc", "iscoroutinefunction", "isgeneratorfunction",
           "isgenerator", "getmembers", "cleandoc"]


class _Empty:
    """The marker for 'no default' and 'no annotation' (``Parameter.empty``)."""
    __slots__ = ()

    def __repr__(self):
        return "<class 'inspect._empty'>"


_empty = _Empty()


class _Kind(int):
    __slots__ = ()
    _NAMES = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "VAR_POSITIONAL", "KEYWORD_ONLY", "VAR_KEYWORD")

    def __repr__(self):
        return f"<_ParameterKind.{self._NAMES[self]}: {int(self)}>"

    __str__ = __repr__

    @property
    def name(self):
        return self._NAMES[self]

    @property
    def description(self):
        return self._NAMES[self].lower().replace("_", " ")


class Parameter:
    """One parameter of a signature."""
    __slots__ = ("name", "kind", "default", "annotation")
    POSITIONAL_ONLY = _Kind(0)
    POSITIONAL_OR_KEYWORD = _Kind(1)
    VAR_POSITIONAL = _Kind(2)
    KEYWORD_ONLY = _Kind(3)
    VAR_KEYWORD = _Kind(4)
    empty = _empty

    def __init__(self, name, kind, *, default=_empty, annotation=_empty):
        self.name = name
        self.kind = _Kind(kind)
        self.default = default
        self.annotation = annotation

    def __str__(self):
        prefix = "*" if self.kind == 2 else "**" if self.kind == 4 else ""
        s = prefix + self.name
        if self.default is not _empty:
            s += "=" + repr(self.default)
        return s

    def __repr__(self):
        return f'<Parameter "{self}">'

    def __eq__(self, other):
        return (type(other) is Parameter and other.name == self.name and other.kind == self.kind
                and other.default == self.default)

    __hash__ = None


class Signature:
    """A callable's parameters (``parameters``: name -> Parameter, in order)."""
    __slots__ = ("parameters", "return_annotation")
    empty = _empty

    def __init__(self, parameters=None, *, return_annotation=_empty):
        self.parameters = {p.name: p for p in (parameters or ())}
        self.return_annotation = return_annotation

    def __str__(self):
        parts = []
        params = list(self.parameters.values())
        saw_star = any(p.kind == 2 for p in params)
        for i, p in enumerate(params):
            if p.kind == 3 and not saw_star:
                parts.append("*")
                saw_star = True
            parts.append(str(p))
            if p.kind == 0 and (i + 1 == len(params) or params[i + 1].kind != 0):
                parts.append("/")
        return "(" + ", ".join(parts) + ")"

    def __repr__(self):
        return f"<Signature {self}>"

    def bind(self, *args, **kwargs):
        raise TypeError("Signature.bind is not available in programs")


def _program_signature(f, skip_first):
    params = []
    n_req = f.n_required
    pos = list(f.pos)
    for i, name in enumerate(pos):
        default = f.defaults[i - n_req] if i >= n_req else _empty
        params.append(Parameter(name, 1, default=default))
    if f.vararg is not None:
        params.append(Parameter(f.vararg, 2))
    for name in f.kwonly:
        params.append(Parameter(name, 3, default=f.kwdefaults.get(name, _empty)))
    if f.kwarg is not None:
        params.append(Parameter(f.kwarg, 4))
    if skip_first and params:
        params = params[1:]
    return Signature(params)


def _program_default(v):
    try:
        return access.wrap(v)
    except Exception:
        return _Repr(repr(v))


class _Repr:
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def _host_signature(f):
    try:
        sig = _host.signature(f)
    except (TypeError, ValueError):
        raise ValueError(f"no signature found for {f!r}") from None
    params = []
    for p in sig.parameters.values():
        default = _empty if p.default is _host.Parameter.empty else _program_default(p.default)
        params.append(Parameter(p.name, int(p.kind), default=default))
    return Signature(params)


def signature(obj, *, follow_wrapped=True):
    """The signature of a program function, bound method, class (its ``__init__``) or
    engine function."""
    if type(obj) is Function:
        return _program_signature(obj, False)
    if type(obj) is BoundMethod:
        return _program_signature(obj.fn, True)
    if isinstance(obj, type):
        init = None
        for k in obj.__mro__:
            if "__init__" in k.__dict__:
                init = k.__dict__["__init__"]
                break
        if type(init) is Function:
            return _program_signature(init, True)
        if init is None or init is object.__init__:
            return Signature()
        sig = _host_signature(init)
        return Signature(list(sig.parameters.values())[1:])
    if isinstance(obj, (_types.FunctionType, _types.MethodType, _types.BuiltinFunctionType)):
        return _host_signature(obj)
    if callable(obj):
        call = getattr(type(obj), "__call__", None)
        if type(call) is Function:
            return _program_signature(call, True)
        return _host_signature(obj)
    raise TypeError(f"{obj!r} is not a callable object")


def isclass(obj):
    return isinstance(obj, type)


def isfunction(obj):
    return type(obj) is Function or isinstance(obj, _types.FunctionType)


def ismethod(obj):
    return type(obj) is BoundMethod or isinstance(obj, _types.MethodType)


def isbuiltin(obj):
    return isinstance(obj, _types.BuiltinFunctionType)


def isroutine(obj):
    return isfunction(obj) or ismethod(obj) or isbuiltin(obj)


def ismodule(obj):
    return type(obj) is access.ModuleView


def isabstract(obj):
    return bool(isinstance(obj, type) and obj.__dict__.get("__gs_abstract__"))


def iscoroutinefunction(obj):
    return False


def isgeneratorfunction(obj):
    """A program function (or method) whose body holds a yield."""
    if type(obj) is BoundMethod:
        obj = obj.fn
    return type(obj) is Function and getattr(obj.body, "makes_generator", False)


def isgenerator(obj):
    """A program generator (a generator expression is an iterator of the interpreter's: False)."""
    from ..generators import ProgramGenerator
    return type(obj) is ProgramGenerator


def getdoc(obj):
    return None


def cleandoc(doc):
    return _host.cleandoc(doc) if type(doc) is str else doc


def getmembers(obj, predicate=None):
    """The public attributes of a program object (names it defines) as (name, value) pairs."""
    from . import call
    out = []
    names = set()
    d = getattr(obj, "__dict__", None)
    if type(d) is dict and (access.is_program_class(type(obj)) or access.is_program_class(obj)):
        names.update(k for k in d if not k.startswith("__"))
    cls = obj if isinstance(obj, type) else type(obj)
    for k in cls.__mro__:
        if "__gs_program__" in k.__dict__:
            names.update(n for n in k.__dict__ if not n.startswith("__"))
    for name in sorted(names):
        try:
            v = access.get_attr(obj, name)
        except Exception:
            continue
        if predicate is None or call(predicate, (v,)):
            out.append((name, v))
    return out
