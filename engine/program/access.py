"""The one gate between programs and host objects.

Isolation is by construction: a program only ever holds values of the kinds
``wrap`` accepts (plain numbers, strings and containers, engine tensors, modules
and other engine objects, the interpreter's own functions, classes and
iterators, and views of the engine's modules), and it reaches attributes only
through ``get_attr``/``set_attr``, which refuse names starting with ``_`` (but
the dunders a program's own class body defines) and look every other name up
in a policy chosen by the object's type. Whatever an attribute or a host call
returns goes through ``wrap`` again: NumPy arrays become tensors, NumPy scalars
Python numbers, host generators the interpreter's iterators, and anything else
(modules, frames, host functions that are not the engine's, NumPy dtypes, ...)
is refused.
"""
import importlib
import math
import operator as _operator
import pathlib
import re
import types
from collections import OrderedDict, defaultdict

import numpy as np

from ..autograd.state import state, _State
from ..dtypes import dtype as _DType
from ..device import device as _Device
from ..tensor import Tensor, Size
from . import allowlist, guards
from .stdlib.collections import TupleNew as _TupleNew
from .errors import PROGRAM_EXCEPTIONS, ProgramBaseException, exception_args, limit_abort, system_exit_code
from .generators import ProgramGenerator
from ..nn import registries
from ..nn.utils.parametrize import parametrized_in
from .values import BoundMethod, Function, ProgramIterator

__all__ = ["get_attr", "set_attr", "del_attr", "wrap", "ModuleView", "make_views", "is_program_class",
           "CLASS_DUNDERS", "is_program_value"]

_NoneType = type(None)
_MethodType = types.MethodType
_BuiltinMethod = types.BuiltinMethodType
_FunctionType = types.FunctionType
_MethodWrapper = type((1).__add__)
_ENGINE = "gradserve.engine"
_PROGRAM = "gradserve.engine.program"

# dunders a program's class body may define (and then reach on its own objects)
CLASS_DUNDERS = frozenset((
    "__init__", "__call__", "__len__", "__getitem__", "__setitem__", "__delitem__", "__contains__",
    "__iter__", "__repr__", "__str__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
    "__hash__", "__bool__", "__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__",
    "__mul__", "__rmul__", "__imul__", "__truediv__", "__rtruediv__", "__itruediv__", "__floordiv__",
    "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__",
    "__neg__", "__pos__", "__abs__", "__enter__", "__exit__", "__float__", "__int__", "__post_init__",
))


def _attr_error(obj, name, why=None):
    if why is None:
        why = f"'{_type_name(obj)}' object has no attribute '{name}'"
    return PROGRAM_EXCEPTIONS["AttributeError"](why)


def _private_error(name):
    return PROGRAM_EXCEPTIONS["AttributeError"](
        f"attribute '{name}' is not accessible: names starting with '_' are private to the host")


def _type_name(obj):
    if isinstance(obj, ModuleView):
        return "module"
    return type(obj).__name__


def is_program_class(cls):
    """Whether ``cls`` is a class a program defined (or derives from one)."""
    return isinstance(cls, type) and _has_marker(cls)


def _has_marker(t):
    for k in t.__mro__:
        if "__gs_program__" in k.__dict__:
            return True
    return False


# modules the engine names its classes after (torch.return_types.max is a namedtuple of the engine's)
_ENGINE_ALIASES = frozenset(("torch.return_types",))


def _engine_module(name):
    return (name.startswith(_ENGINE) and not name.startswith(_PROGRAM)) or name in _ENGINE_ALIASES


# --------------------------------------------------------------------------- the allowlist's types
class TypeInfo:
    """What the allowlist grants a host class (merged over its bases): whether programs may
    hold its objects, which attributes they read, whether instance data is readable, which
    names they may set, and whether program classes may derive from it."""
    __slots__ = ("allowed", "attrs", "data", "settable", "base")

    def __init__(self, allowed, attrs, data, settable, base):
        self.allowed = allowed
        self.attrs = attrs
        self.data = data
        self.settable = settable
        self.base = base


_TYPE_INFO = {}   # host class -> TypeInfo; program classes keep theirs in their own __dict__


def _type_key(k):
    return f"{k.__module__}.{k.__qualname__}"


def type_info(t):
    """The allowlist's TypeInfo for class ``t`` (a program class: that of its host bases)."""
    info = _TYPE_INFO.get(t)
    if info is not None:
        return info
    d = t.__dict__
    program = "__gs_program__" in d or _has_marker(t)
    if program:
        info = d.get("__gs_info__")
        if type(info) is TypeInfo:
            return info
    allowed = False
    attrs = set()
    data = base = False
    settable = set()
    for k in t.__mro__:
        if "__gs_program__" in k.__dict__:
            continue
        if k is ProgramBaseException:
            attrs.add("args")   # the one attribute of the interpreter's exceptions
        entry = allowlist.TYPES.get(_type_key(k))
        if entry is None:
            continue
        if k is t or entry.subclasses:
            allowed = True
        attrs.update(entry.attrs)
        data = data or entry.data
        base = base or entry.base
        if entry.settable == allowlist.ANY or settable == allowlist.ANY:
            settable = allowlist.ANY
        else:
            settable.update(entry.settable)
    info = TypeInfo(allowed or program, frozenset(attrs), data,
                    settable if settable == allowlist.ANY else frozenset(settable), base)
    if program:
        type.__setattr__(t, "__gs_info__", info)
    elif len(_TYPE_INFO) < 4096:
        _TYPE_INFO[t] = info
    return info


def _holds(obj, name):
    """Whether engine object ``obj`` holds public data ``name`` (its ``__dict__``; a module's
    parameters, buffers and submodules)."""
    d = getattr(obj, "__dict__", None)
    if type(d) is not dict:
        return False
    return name in d or _in_registries(d, name)


def _in_registries(d, name):
    for reg in ("_modules", "_parameters", "_buffers"):
        r = d.get(reg)
        if type(r) is dict and name in r:
            return True
    # a tensor parametrized by nn.utils.parametrize, which Module.__getattr__ computes
    return "parametrizations" in d.get("_modules", ()) and parametrized_in(d, name)


# --------------------------------------------------------------------------- wrap
_OK_TYPES = {_NoneType, bool, int, float, complex, str, bytes, range, slice, type(Ellipsis), object,
             Tensor, Size, _DType, _Device, Function, BoundMethod, ProgramIterator, ProgramGenerator,
             type({}.keys()), type({}.values()), type({}.items()),
             type(OrderedDict().keys()), type(OrderedDict().values()), type(OrderedDict().items())}
_CONTAINERS = (list, tuple, dict, set, frozenset)
_KIND = {}   # type -> "ok" | "container" | "refuse" | "decide" (per value)
_REFUSED_TYPES = {_State}
_ITERATOR_TYPES = (types.GeneratorType, type(iter([])), type(iter(())), type(iter({})), type(iter(range(0))),
                   map, filter, zip, enumerate, reversed, type(iter(set())), type(iter({}.values())),
                   type(iter({}.items())), type(iter("")), type(iter(OrderedDict())),
                   type(iter(OrderedDict().values())), type(iter(OrderedDict().items())))


def _kind_of(t):
    kind = _KIND.get(t)
    if kind is not None:
        return kind
    if _has_marker(t):
        return "ok"   # program classes come and go: never cached
    if t in _OK_TYPES:
        kind = "ok"
    elif t in _REFUSED_TYPES:
        kind = "refuse"
    elif issubclass(t, ProgramBaseException):
        kind = "ok"
    elif type_info(t).allowed:
        kind = "container" if issubclass(t, _CONTAINERS) else "ok"
    elif issubclass(t, _CONTAINERS):
        kind = "container" if t.__module__ in ("builtins", "collections") else "refuse"
    elif (t.__module__ or "").startswith(_ENGINE) and not (t.__module__ or "").startswith(_PROGRAM):
        kind = "refuse"   # an engine class the allowlist does not name
    else:
        kind = "decide"
    if len(_KIND) < 4096:
        _KIND[t] = kind
    return kind


def _refuse(v):
    return PROGRAM_EXCEPTIONS["TypeError"](
        f"a value of type '{type(v).__name__}' is not available in programs")


def wrap(v, rt=None):
    """The program-side value for host value ``v``; raises TypeError when there is none."""
    t = type(v)
    if t in _OK_TYPES:
        return v
    kind = _KIND.get(t) or _kind_of(t)
    if kind == "ok":
        return v
    if kind == "container":
        return _wrap_container(v, rt)
    if kind == "refuse":
        raise _refuse(v)
    return _decide(v, rt)


def _decide(v, rt):
    if isinstance(v, type):
        if _class_ok(v):
            return v
        raise _refuse(v)
    if isinstance(v, np.ndarray):
        return _from_array(v)
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, _FunctionType):
        # the engine's functions, and the interpreter's own (builtins, guarded methods)
        if (v.__module__ or "").startswith(_ENGINE):
            return v
        raise _refuse(v)
    if isinstance(v, (_MethodType, _BuiltinMethod, _MethodWrapper)):
        if isinstance(v, _BuiltinMethod) and v in _TRUSTED_BUILTINS:
            return v    # math.sqrt and the other functions the math view hands out
        owner = getattr(v, "__self__", None)
        if owner is None or isinstance(owner, types.ModuleType):
            raise _refuse(v)
        if (type(owner).__module__ or "").startswith(_PROGRAM):
            return v    # the interpreter's own builtins (print, sum, ...)
        if is_program_value(owner) and (not isinstance(v, _MethodType) or _function_ok(v.__func__)):
            return v
        raise _refuse(v)
    if isinstance(v, (staticmethod, classmethod)):
        # a program function, or an engine function a program may hold (``@staticmethod`` over
        # ``@once_differentiable``: the engine's wrapper of the program's backward)
        f = v.__func__
        if isinstance(f, Function) or (isinstance(f, _FunctionType) and _decide(f, rt) is f):
            return v
        raise _refuse(v)
    if isinstance(v, property):
        if all(f is None or isinstance(f, Function) for f in (v.fget, v.fset, v.fdel)):
            return v
        raise _refuse(v)
    if isinstance(v, _ITERATOR_TYPES):
        if rt is None:
            raise _refuse(v)
        return ProgramIterator(v, rt, True)
    if isinstance(v, types.ModuleType):
        raise _refuse(v)
    if type(v) is types.GenericAlias:
        # tuple[Tensor, Tensor] as a value (typing.cast's first argument): the typing module's own alias,
        # which calls its class through the interpreter; type[...] and the others stay refused
        from .stdlib import typing as program_typing
        if v.__origin__ in program_typing.BUILTIN_ALIAS_ORIGINS:
            return program_typing.builtin_alias(v)
    raise _refuse(v)


def _function_ok(fn):
    if isinstance(fn, Function):
        return True
    module = getattr(fn, "__module__", None) or ""
    if module == _NAMEDTUPLE_MODULE and (getattr(fn, "__qualname__", "") or "").startswith(_NAMEDTUPLE_METHODS):
        return True     # _asdict, _replace, _make of a program's namedtuple: written for programs
    return _engine_module(module)


_NAMEDTUPLE_MODULE = _PROGRAM + ".stdlib.collections"
_NAMEDTUPLE_METHODS = "_make_namedtuple.<locals>."


def _class_ok(cls):
    if cls in _BUILTIN_CLASSES:
        return True
    if issubclass(cls, ProgramBaseException):
        return True
    if is_program_class(cls):
        return True
    return type_info(cls).allowed


_BUILTIN_CLASSES = {bool, int, float, complex, str, list, tuple, dict, set, frozenset, range, slice, object,
                    staticmethod, classmethod, property, type, _NoneType, bytes}


def _from_array(a):
    limit = state.element_limit
    if limit is not None and a.size > limit:
        raise limit_abort("tensor_elements", f"limit exceeded: tensor_elements: an array of {a.size} elements "
                                             f"(at most {limit})")
    if a.dtype == object:
        raise PROGRAM_EXCEPTIONS["TypeError"]("arrays of Python objects are not available in programs")
    return Tensor._adopt_array(np.array(a, copy=True), False, None)


def is_program_value(v):
    """Whether ``v`` may be held by a program as it is."""
    t = type(v)
    if t in _OK_TYPES:
        return True
    kind = _KIND.get(t) or _kind_of(t)
    if kind == "ok":
        return True
    if kind == "container":
        try:
            return _wrap_container(v, None) is v
        except Exception:
            return False
    if kind == "decide":
        try:
            return _decide(v, None) is v
        except Exception:
            return False
    return False


def _walk_runtime(rt):
    """The runtime a container walk is charged to: ``rt``, else the running program's (None outside runs)."""
    if rt is not None:
        return rt
    from .builtin_functions import _current_builtins
    b = _current_builtins()
    return b.rt if b is not None and b.rt.active else None


def _wrap_container(v, rt):
    """Checks a container's contents; returns it as is when all are program values,
    else a converted copy.

    The walk is the interpreter's work over the program's data, so each item costs a step (attack8 F1:
    ``OrderedDict(a=big)`` walked a 10M-item list per call uncounted, and a loop of them ran to the
    wall-time limit where a counted loop stops at the step limit; a list holding one big list many
    times over is walked as many times). Past the step limit the walk stops there."""
    rt = _walk_runtime(rt)
    stack = [v]
    seen = 0
    clean = True
    while stack:
        c = stack.pop()
        if rt is not None:
            rt.steps += len(c) + 1   # the visit and its items
            if rt.steps > rt.step_limit:
                rt.check()   # raises the steps limit
        items = c.items() if isinstance(c, dict) else c
        for x in items:
            if isinstance(c, dict):
                k, x = x
                tk = type(k)
                if tk not in _OK_TYPES:
                    kind = _KIND.get(tk) or _kind_of(tk)
                    if kind == "container":
                        stack.append(k)   # a tuple key: its items are checked too
                    elif kind != "ok":
                        clean = False
                        break
            tx = type(x)
            seen += 1
            if tx in _OK_TYPES:
                continue
            kind = _KIND.get(tx) or _kind_of(tx)
            if kind == "ok":
                continue
            if kind == "container":
                stack.append(x)
                continue
            clean = False
            break
        if not clean:
            break
    if clean:
        return v
    return _convert(v, rt, 0)


def _convert(v, rt, depth):
    if depth > 200:
        raise PROGRAM_EXCEPTIONS["RecursionError"]("value nested too deeply")
    t = type(v)
    kind = _KIND.get(t) or _kind_of(t)
    if kind != "container":
        return wrap(v, rt)
    if isinstance(v, dict):
        return {_convert(k, rt, depth + 1): _convert(x, rt, depth + 1) for k, x in v.items()}
    items = [_convert(x, rt, depth + 1) for x in v]
    if isinstance(v, tuple):
        return tuple(items)
    if isinstance(v, (set, frozenset)):
        return set(items)
    return items


# --------------------------------------------------------------------------- attributes
def _is_super(obj):
    return type(obj) is super


def _dunder_allowed(obj, name):
    """``__init__`` and the dunders a program's own class body defines, on its own objects."""
    if name not in CLASS_DUNDERS:
        return False
    if _is_super(obj):
        return True
    cls = obj if isinstance(obj, type) else type(obj)
    if not is_program_class(cls):
        return False
    for k in cls.__mro__:
        if "__gs_program__" in k.__dict__ and name in k.__dict__:
            return True
    return name == "__init__"


# --------------------------------------------------------------------------- a program's private names
_HOST_PRIVATE = None   # every '_name' the engine's source reads or writes on any object
_SELF_ONLY = None      # of those, the ones the engine reaches only on ``self`` (``self._reset_parameters()``)
_PRIVATE_NAME = re.compile(r"""(?:\b(\w+))?\.(_[A-Za-z0-9_]*)|["'](_[A-Za-z0-9_]*)["']""")
_CLASS_MENTIONS = {}


def _host_private():
    """The private names the engine uses anywhere (``self._parameters``, ``d["_modules"]``): a
    program class deriving from an engine class must not shadow or reach them. A superset,
    read from the engine's source once per process."""
    global _HOST_PRIVATE, _SELF_ONLY
    if _HOST_PRIVATE is None:
        root = pathlib.Path(__file__).resolve().parent.parent
        names, receivers = set(), defaultdict(set)
        for path in root.rglob("*.py"):
            if "program" in path.relative_to(root).parts:
                continue
            for owner, a, b in _PRIVATE_NAME.findall(path.read_text(encoding="utf-8")):
                names.add(a or b)
                receivers[a or b].add(owner if a else "<string>")
        _SELF_ONLY = frozenset(n for n in names if not n.startswith("__") and receivers[n] <= {"self", "cls"})
        _HOST_PRIVATE = frozenset(names)
    return _HOST_PRIVATE


def _mentions(k, name):
    """Whether the source file of engine class ``k`` names ``name`` (True when it cannot be read): the
    class's own code, and functions of its module attached to it."""
    key = (k, name)
    hit = _CLASS_MENTIONS.get(key)
    if hit is None:
        try:
            import inspect
            src = inspect.getsource(inspect.getmodule(k))
        except (OSError, TypeError):
            hit = True
        else:
            hit = re.search(r"\b" + re.escape(name) + r"\b", src) is not None
        _CLASS_MENTIONS[key] = hit
    return hit


def _program_owner(obj):
    """The program class whose private names ``obj`` may use: its class (or itself, for a
    class; for ``super()``, the class it was called from); None for host objects."""
    if type(obj) is super:
        cls = obj.__self_class__
    else:
        cls = obj if isinstance(obj, type) else type(obj)
    return cls if isinstance(cls, type) and _has_marker(cls) else None


def host_reserved(cls, name):
    """Whether ``name`` is the host's on program class ``cls``: a host class in its MRO defines
    it, or, with an engine base, the engine uses that private name (``_parameters``). A private
    name the engine only ever reaches on ``self`` (``self._reset_parameters()`` in
    nn.MultiheadAttention, ``self._validate_args`` in distributions) stays the program's own, as in
    Python, unless the source of one of the engine classes this class derives from names it:
    detr's ``Transformer(nn.Module)`` defines its own ``_reset_parameters`` and IBM's
    ``DecoderRNN(nn.Module)`` its ``_validate_args``, which the engine's Module never reaches."""
    if name in _NAMEDTUPLE_API and any("__gs_namedtuple__" in k.__dict__ for k in cls.__mro__):
        return False   # a namedtuple's API (Point._fields, p._replace(...)), as in Python
    engine_bases = []
    for k in cls.__mro__:
        d = k.__dict__
        if "__gs_program__" in d:
            continue
        if name in d:
            return True
        if k is not object and not issubclass(k, ProgramBaseException):
            engine_bases.append(k)
    if not engine_bases or name not in _host_private():
        return False
    if name in _SELF_ONLY:
        return any(_mentions(k, name) for k in engine_bases)
    return True


def _private_ok(obj, name):
    """A single-underscore (or mangled) name: the program's own on a program object."""
    if name.startswith("__") and name.endswith("__"):
        return False
    if not name.isidentifier():
        return False
    cls = _program_owner(obj)
    return cls is not None and not host_reserved(cls, name)


def _private_refused(obj, name):
    cls = _program_owner(obj)
    if cls is not None and name.isidentifier() and not (name.startswith("__") and name.endswith("__")):
        return PROGRAM_EXCEPTIONS["AttributeError"](
            f"attribute '{name}' of '{cls.__name__}' belongs to the engine's base class: a program class "
            f"cannot read, set or redefine the engine's private names")
    return _private_error(name)


_NAMEDTUPLE_API = frozenset({"_fields", "_field_defaults", "_asdict", "_replace", "_make"})


def _tuple_new(obj):
    """``Point.__new__`` of a namedtuple class the program made (its TupleNew), else None."""
    if isinstance(obj, type) and _has_marker(obj):
        return obj.__dict__.get("__gs_namedtuple__")
    return None


def get_attr(obj, name):
    """``obj.name`` as a program sees it."""
    if name[0] == "_":
        if name == "__new__":
            tn = _tuple_new(obj)
            if tn is not None:
                return tn
        elif name == "__defaults__" and type(obj) is _TupleNew:
            return obj.get_defaults()
        meta = _META_ATTRS.get(name)
        if meta is not None:
            return meta(obj)
        if name == "__setattr__":
            setter = _setattr_of(obj)
            if setter is not None:
                return setter
        if name.startswith("__") and _dunder_allowed(obj, name):
            return wrap(getattr(obj, name))
        if isinstance(obj, Tensor) and _tensor_own_name(obj, name):
            return _tensor_own_get(obj, name)
        listed = _listed_private(obj, name)
        if listed is not _MISSING:
            return listed
        if not _private_ok(obj, name):
            raise _private_refused(obj, name)
        try:
            v = getattr(obj, name)
        except AttributeError:
            raise _attr_error(obj, name, f"'{_type_name(obj)}' object has no attribute '{name}'") from None
        return wrap(v)
    t = type(obj)
    policy = _POLICIES.get(t)
    if policy is None:
        policy = _policy_for(t)
    return policy(obj, name)


def _listed_private(obj, name):
    """A name beginning with "_" that PyTorch code uses as public API, where the allowlist names it: a
    module's listed bases (``nn.modules.loss._Loss``), an engine class's listed methods
    (``sparse._indices()``, ``conv._conv_forward``), a module's registries (``m._modules``,
    nn/registries.py), ``Base.__init__`` of an engine base class, called on a program object
    (``nn.Embedding.__init__(self, ...)``), and ``object.__setattr__``; else _MISSING."""
    t = type(obj)
    if t is ModuleView:
        source = obj._source
        return obj.get(name) if name in source.allow or name in source.children else _MISSING
    if name in registries.NAMES:
        return registries.registry(obj, name) if isinstance(obj, registries.Module) else _MISSING
    if t is type or isinstance(obj, type):
        if name == "__init__" and _program_owner(obj) is None and type_info(obj).base:
            return _BaseInit(obj)
        if name == "__setattr__" and obj is object:
            return _object_setattr_of_program
        return _MISSING
    if name in type_info(t).attrs:   # of a program class: what its engine bases list (self._conv_forward)
        return wrap(getattr(obj, name))
    return _MISSING


class _BaseInit:
    """``Base.__init__`` of an engine class a program class derives from, called with the program's
    object first (``nn.Embedding.__init__(self, n, d)`` in LoRA's layers, ``nn.Module.__init__(self)``):
    what ``super().__init__(...)`` does when Base is the next class in the MRO."""
    __slots__ = ("cls",)

    def __init__(self, cls):
        self.cls = cls

    def __call__(self, *args, **kwargs):
        cls = self.cls
        obj = args[0] if args else None
        if not isinstance(obj, cls):
            raise PROGRAM_EXCEPTIONS["TypeError"](f"descriptor '__init__' requires a '{cls.__name__}' object but "
                                                  f"received a '{_type_name(obj)}'")
        if _program_owner(obj) is None or isinstance(obj, type):
            raise PROGRAM_EXCEPTIONS["TypeError"](f"{cls.__name__}.__init__ can be called in programs only on an "
                                                  f"object of a program class deriving from it, as "
                                                  f"super().__init__ is")
        _builtins().call(cls.__init__, list(args), kwargs)
        return None

    def __repr__(self):
        return f"<slot wrapper '__init__' of '{self.cls.__name__}' objects>"


def _object_setattr_of_program(obj, name, value):
    """``object.__setattr__(self, name, value)`` in a program class's own __setattr__: the plain assignment,
    on program objects only."""
    if _program_owner(obj) is None or isinstance(obj, type):
        raise PROGRAM_EXCEPTIONS["TypeError"](
            f"object.__setattr__ can be used in programs only on objects of program classes, not "
            f"'{_type_name(obj)}'")
    _object_setattr(obj, name, value)


def _name_of(obj):
    """``x.__name__``: the name of a class, function, method or module view (a string only)."""
    if isinstance(obj, ModuleView):
        return obj.name
    if type(obj) is Function:
        return obj.name
    if type(obj) is BoundMethod:
        return obj.fn.name
    if isinstance(obj, type) or isinstance(obj, (_FunctionType, _BuiltinMethod, _MethodType)):
        name = type.__dict__["__name__"].__get__(obj) if isinstance(obj, type) else getattr(obj, "__name__", None)
        if type(name) is str:
            return name
    raise _attr_error(obj, "__name__")


def _qualname_of(obj):
    if isinstance(obj, type):
        name = type.__dict__["__qualname__"].__get__(obj)
        if type(name) is str:
            return name
    return _name_of(obj)


# names every Python object answers that say only what a thing is called or what class it is
# ``torch.__version__`` and ``np.__version__`` as programs read them (scripts print them or compare
# them): the PyTorch release whose behaviour the engine follows (its tests' oracle), labelled as
# ours; NumPy's own
TORCH_VERSION = "2.13.0+gradserve"
_MODULE_VERSIONS = {"torch": TORCH_VERSION, "numpy": np.__version__}


def _version_of(obj):
    if isinstance(obj, ModuleView):
        v = _MODULE_VERSIONS.get(obj.name)
        if v is not None:
            return v
    raise _private_error("__version__")


def _dict_of(obj):
    """``self.__dict__`` of an object of a program class with no engine base (minGPT's config node:
    ``self.__dict__.update(kwargs)``): its own attributes, all program values, as a dict it may
    change. With an engine base the dict also holds the engine's state (``_parameters``): a view of
    the names the program may reach (nn/registries.InstanceDict)."""
    t = type(obj)
    if not isinstance(obj, type) and _has_marker(t) and \
            all(k is object or "__gs_program__" in k.__dict__ for k in t.__mro__):
        d = getattr(obj, "__dict__", None)
        if type(d) is dict:
            return d
    if not isinstance(obj, (type, ProgramBaseException)) and _program_owner(obj) is not None \
            and type(getattr(obj, "__dict__", None)) is dict:
        # with an engine base the dict also holds the engine's state (_parameters): a view of the names
        # a program may reach (an exception's holds the interpreter's bookkeeping: refused)
        return registries.InstanceDict.of(
            obj, lambda k: k.isidentifier() and (not k.startswith("_") or _private_ok(obj, k)), lambda k: get_attr(obj, k),
            lambda k, v: _object_setattr(obj, k, v), lambda k: del_attr(obj, k))
    raise _private_refused(obj, "__dict__") if _program_owner(obj) is None else _attr_error(
        obj, "__dict__", f"'{t.__name__}'.__dict__ is not available in programs")


def vars_of(obj):
    """``vars(obj)`` in programs: a program object's own ``__dict__`` (see ``_dict_of``), or a new dict
    of the attributes of a program-side namespace (argparse's, ``types.SimpleNamespace``), whose
    instances hold only what programs set on them."""
    from .stdlib.types import SimpleNamespace
    if isinstance(obj, SimpleNamespace) and not isinstance(obj, type):
        return dict(obj.__dict__)
    if isinstance(obj, type):
        raise PROGRAM_EXCEPTIONS["TypeError"](f"vars() of a class ('{obj.__name__}') is not available in programs")
    if not _has_marker(type(obj)):
        if not hasattr(obj, "__dict__"):
            raise PROGRAM_EXCEPTIONS["TypeError"]("vars() argument must have __dict__ attribute")
        raise PROGRAM_EXCEPTIONS["TypeError"](f"vars() of '{_type_name(obj)}' objects is not available in programs "
                                              f"(they hold the engine's own state)")
    return _dict_of(obj)


_META_ATTRS = {"__name__": _name_of, "__qualname__": _qualname_of, "__class__": lambda obj: wrap(type(obj)),
               "__version__": _version_of, "__dict__": _dict_of}


def _tensor_get(obj, name):
    special = _TENSOR_SPECIAL.get(name)
    if special is not None:
        return special(obj)
    attrs = _TENSOR_ATTRS if type(obj) is Tensor else type_info(type(obj)).attrs
    if name not in attrs:
        if _tensor_own_name(obj, name):
            return _tensor_own_get(obj, name)
        raise _missing_error(obj, name)
    try:
        v = getattr(obj, name)
    except AttributeError:
        raise _attr_error(obj, name) from None
    tv = type(v)
    if tv is _MethodType or tv in _OK_TYPES:
        return v
    return wrap(v)


# ---- a program's own attributes on tensors: PyTorch's tensors take any attribute (mamba.py marks
# parameters with ``p._no_weight_decay = True``; fast.ai's course keeps each gradient as
# ``inp.g = out.g @ w.t()``). A program keeps plain values (booleans, None, numbers) and engine
# tensors there, under names no tensor class defines; the host never reads them, except the session's
# memory walk, which counts the tensors held there (memory.tensor_bytes, from the first one kept).
_TENSOR_OWN_MAX = 8


def _tensor_own_name(obj, name):
    if not name.isidentifier() or (name.startswith("__") and name.endswith("__")):
        return False
    if name in _TENSOR_ATTRS or name in _TENSOR_SPECIAL or name in _TENSOR_STORE:
        return False
    return not any(name in k.__dict__ for k in type(obj).__mro__)


def _tensor_own_get(obj, name):
    d = obj.__dict__
    if name in d:
        return d[name]
    raise _attr_error(obj, name, f"'{_type_name(obj)}' object has no attribute '{name}'")


def _tensor_own_set(obj, name, value):
    t = type(value)
    if isinstance(value, Tensor):   # an engine tensor (programs cannot derive from Tensor)
        from .memory import walk_tensor_attributes
        walk_tensor_attributes()
    elif not (t is bool or t is float or value is None or (t is int and value.bit_length() <= 64)):
        raise PROGRAM_EXCEPTIONS["TypeError"](
            f"a tensor keeps only tensors, booleans, None and numbers as a program's own attributes, not "
            f"'{_type_name(value)}' (keep other values beside it: a dict keyed by parameter name)")
    d = obj.__dict__
    if name not in d and len(d) >= _TENSOR_OWN_MAX:
        raise PROGRAM_EXCEPTIONS["AttributeError"](
            f"a tensor keeps at most {_TENSOR_OWN_MAX} attributes of a program's own")
    d[name] = value


def _missing_error(obj, name):
    """AttributeError for a name the allowlist does not grant: says so when the host has it."""
    cls = obj if isinstance(obj, type) else type(obj)
    for k in cls.__mro__:
        if "__gs_program__" not in k.__dict__ and name in k.__dict__:
            return _attr_error(obj, name, f"{cls.__name__}.{name} is not available in programs")
    if isinstance(obj, type):
        return _attr_error(obj, name, f"type object '{cls.__name__}' has no attribute '{name}'")
    return _attr_error(obj, name)


def _generic_get(obj, name):
    try:
        v = getattr(obj, name)
    except AttributeError as e:
        raise _attr_error(obj, name, f"'{_type_name(obj)}' object has no attribute '{name}'") from None
    tv = type(v)
    if tv in _OK_TYPES:
        return v
    if (tv is list or tv is dict or tv is set) and _engine_class_attribute(obj, name):
        v = tv(v)   # an engine class's own state is shared by every session: hand out a copy
    return wrap(v)


def _engine_class_attribute(obj, name):
    d = getattr(obj, "__dict__", None)
    if isinstance(d, dict) and name in d:
        return False
    for k in type(obj).__mro__:
        if name in k.__dict__:
            return "__gs_program__" not in k.__dict__
    return False


def _engine_getter(info):
    """The policy for instances of an allowlisted engine class."""
    attrs = info.attrs
    data = info.data

    def get(obj, name):
        if name in attrs or (data and _holds(obj, name)):
            return _generic_get(obj, name)
        raise _missing_error(obj, name)
    return get


def _program_defines(cls, obj, name):
    """Whether ``name`` is the program's own on ``obj`` (its instance data) or on program
    class ``cls`` (a program class in its MRO defines it)."""
    if obj is not None:
        d = getattr(obj, "__dict__", None)
        if type(d) is dict and name in d:
            return True
    for k in cls.__mro__:
        kd = k.__dict__
        if "__gs_program__" in kd and name in kd:
            return True
    return False


def _program_get(obj, name):
    """An object of a program class: its own names, and what the allowlist grants its
    engine bases (``self.parameters`` on a program ``nn.Module``)."""
    t = type(obj)
    td = t.__dict__
    info = td.get("__gs_info__")
    if type(info) is not TypeInfo:
        info = type_info(t)
    if name not in info.attrs and name not in td:
        d = getattr(obj, "__dict__", None)
        if not ((type(d) is dict and (name in d or (info.data and _in_registries(d, name))))
                or _program_defines(t, None, name)):
            raise _missing_error(obj, name)
    return _generic_get(obj, name)


def _engine_class_get(cls, name):
    if issubclass(cls, Tensor) and name in _TENSOR_SPECIAL:
        # the interpreter answers these on instances only (tolist's size check, numpy's copy)
        raise _attr_error(cls, name, f"Tensor.{name} is available on tensors only: use x.{name}(...)")
    if name not in type_info(cls).attrs:
        raise _missing_error(cls, name)
    try:
        v = getattr(cls, name)
    except AttributeError:
        raise _attr_error(cls, name, f"type object '{cls.__name__}' has no attribute '{name}'") from None
    if isinstance(v, (list, dict, set)):
        v = type(v)(v) if not isinstance(v, defaultdict) else dict(v)  # engine class state stays the engine's
    if isinstance(v, property):
        raise _attr_error(cls, name, f"{cls.__name__}.{name} is a property; read it on an instance")
    return wrap(v)


def _no_attrs(obj, name):
    raise _attr_error(obj, name)


def _view_get(view, name):
    return view.get(name)


_POLICIES = {}

_STR_ATTRS = frozenset((
    "lower", "upper", "strip", "lstrip", "rstrip", "split", "rsplit", "splitlines", "startswith",
    "endswith", "find", "rfind", "index", "rindex", "count", "isdigit", "isalpha", "isalnum", "isspace",
    "isupper", "islower", "istitle", "isnumeric", "isdecimal", "isidentifier", "isprintable", "isascii",
    "title", "capitalize", "swapcase", "casefold", "partition", "rpartition", "removeprefix",
    "removesuffix", "replace", "join", "center", "ljust", "rjust", "zfill", "expandtabs"))
_LIST_ATTRS = frozenset(("append", "extend", "insert", "remove", "pop", "clear", "index", "count", "sort",
                         "reverse", "copy"))
_DICT_ATTRS = frozenset(("keys", "values", "items", "get", "pop", "popitem", "setdefault", "update", "clear",
                         "copy"))
_SET_ATTRS = frozenset(("add", "remove", "discard", "pop", "clear", "copy", "union", "intersection",
                        "difference", "symmetric_difference", "update", "issubset", "issuperset",
                        "isdisjoint", "intersection_update", "difference_update",
                        "symmetric_difference_update"))
_NUMBER_ATTRS = frozenset(("real", "imag", "conjugate", "bit_length", "bit_count", "is_integer",
                           "as_integer_ratio", "numerator", "denominator"))

_TENSOR_ATTRS = frozenset(allowlist.TYPES[_ENGINE + ".tensor.Tensor"].attrs)


def _str_limit():
    return _LIMITS.string_length


class _LimitValues:
    """The sizes the current run allows for strings and lists (set by the runner)."""
    __slots__ = ("string_length", "sequence_length")

    def __init__(self):
        self.string_length = 10_000_000
        self.sequence_length = 10_000_000


_LIMITS = _LimitValues()


def _guard_replace(s, old, new, count=-1):
    if isinstance(old, str) and isinstance(new, str) and len(new) > len(old):
        n = s.count(old) if old else len(s) + 1
        if count is not None and count >= 0:
            n = min(n, count)
        guards.check_length(len(s) + n * (len(new) - len(old)), _str_limit(), "string")


def _guard_width(s, width, *rest):
    if isinstance(width, int):
        guards.check_length(width, _str_limit(), "string")


def _guard_expandtabs(s, tabsize=8):
    if isinstance(tabsize, int):
        guards.check_length(len(s) + s.count("\t") * max(tabsize, 0), _str_limit(), "string")


def _guard_join(s, items):
    if isinstance(items, (list, tuple)):
        total = len(s) * max(len(items) - 1, 0)
        for x in items:
            if isinstance(x, str):
                total += len(x)
        guards.check_length(total, _str_limit(), "string")


_STR_GUARDS = {"replace": _guard_replace, "center": _guard_width, "ljust": _guard_width,
               "rjust": _guard_width, "zfill": _guard_width, "expandtabs": _guard_expandtabs}


def _str_get(obj, name):
    if name not in _STR_ATTRS:
        if name == "format" or name == "format_map":
            from . import builtin_functions
            return (builtin_functions.str_format if name == "format" else builtin_functions.str_format_map)(obj)
        raise _attr_error(obj, name)
    guard = _STR_GUARDS.get(name)
    if guard is not None:
        bound = getattr(obj, name)

        def call(*args, **kwargs):
            guard(obj, *args, **kwargs)
            return bound(*args, **kwargs)
        return call
    if name == "join":
        return _str_join(obj)
    return getattr(obj, name)


def _str_join(sep):
    def join(iterable):
        items = iterable if type(iterable) in (list, tuple) else _builtins().materialize(iterable)
        _guard_join(sep, items)
        return sep.join(items)
    return join


def _list_get(obj, name):
    if name not in _LIST_ATTRS:
        raise _attr_error(obj, name)
    special = _LIST_FACTORIES.get(name)
    if special is not None:
        return special(obj)
    return getattr(obj, name)


def _dict_get(obj, name):
    if name not in _DICT_ATTRS:
        raise _attr_error(obj, name)
    return getattr(obj, name)


def _set_get(obj, name):
    if name not in _SET_ATTRS:
        raise _attr_error(obj, name)
    return getattr(obj, name)


def _number_get(obj, name):
    if name not in _NUMBER_ATTRS:
        raise _attr_error(obj, name)
    try:
        return getattr(obj, name)
    except AttributeError:
        raise _attr_error(obj, name) from None


def _tuple_get(obj, name):
    if name not in ("count", "index"):
        raise _attr_error(obj, name)
    return _list_count(obj) if name == "count" else _list_index(obj)


def _range_get(obj, name):
    if name not in ("start", "stop", "step", "count", "index"):
        raise _attr_error(obj, name)
    if name == "count":
        return lambda value: int(range_contains(obj, value))
    if name == "index":
        return lambda value: _range_index(obj, value)
    return getattr(obj, name)


def _range_step(rt):
    rt.steps += 1
    if rt.steps >= rt.check_at:
        rt.check()


def range_contains(r, value):
    """``value in r`` as Python answers it, without Python's scan for a value that is not an int:
    CPython compares such a value (a float, a tensor, a list) with every item of the range in C,
    so ``1.5 in range(10**12)`` held the process past its deadline and the worker was killed
    (hostile pass 6, F2; in a shared GPU worker, every session on it). Numbers are answered
    at once (a float or complex equals an item only if it is an integral value in the range);
    anything else is compared item by item here, a step each, as ``any`` does."""
    t = type(value)
    if t is int or t is bool:
        return value in r
    if isinstance(value, (int, np.integer)):
        return int(value) in r
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return math.isfinite(value) and value.is_integer() and int(value) in r
    if isinstance(value, complex):
        return value.imag == 0 and range_contains(r, value.real)
    rt = _counting()
    for item in r:
        if rt is not None:
            _range_step(rt)
        if item == value:
            return True
    return False


def _range_index(r, value):
    if range_contains(r, value):
        if isinstance(value, (int, float, complex, np.integer, np.floating)):
            return r.index(int(value.real if isinstance(value, complex) else value))
        for i, item in enumerate(r):   # counted by range_contains already: found within its steps
            if item == value:
                return i
    raise PROGRAM_EXCEPTIONS["ValueError"](f"{value!r} is not in range" if type(value) in (int, bool)
                                           else "sequence.index(x): x not in sequence")


# values whose == with anything is C's own and quick: a list of them is searched in C
_QUICK_EQ = frozenset((int, float, str, bytes, bool, type(None), complex))
_SCAN_IN_C = 4096


def _counting():
    """A step counter for a loop over a program's data: the current run's runtime (None outside a run)."""
    from .builtin_functions import _current_builtins
    builtins = _current_builtins()
    return builtins.rt if builtins is not None else None


def _slow_scan(seq, value):
    """Whether ``value`` must be searched for in ``seq`` a step at a time (see sequence_contains)."""
    return len(seq) > _SCAN_IN_C and type(value) not in _QUICK_EQ


def sequence_index(seq, value, start=0, stop=None):
    """``seq.index(value, start, stop)`` with sequence_contains's counting; Python's error."""
    n = len(seq)
    if not _slow_scan(seq, value):
        return seq.index(value, start, n if stop is None else stop)
    start, stop, _ = slice(start, stop).indices(n)
    rt = _counting()
    for i in range(start, stop):
        if rt is not None:
            _range_step(rt)
        item = seq[i]
        if item is value or item == value:
            return i
    return [].index(value)   # Python's own ValueError, with its message


def sequence_count(seq, value):
    """``seq.count(value)`` with sequence_contains's counting."""
    if not _slow_scan(seq, value):
        return seq.count(value)
    rt = _counting()
    n = 0
    for item in seq:
        if rt is not None:
            _range_step(rt)
        if item is value or item == value:
            n += 1
    return n


def sequence_compare(op, a, b):
    """``op(a, b)`` (==, !=, <, <=, >, >=) for two lists or two tuples as Python compares them (the
    first items that differ decide), a step an item where they are long: each item's == may be
    host code (a tensor's), which no limit could interrupt in Python's own loop."""
    if len(a) <= _SCAN_IN_C or len(b) <= _SCAN_IN_C:
        return op(a, b)
    if len(a) != len(b) and op in (_operator.eq, _operator.ne):
        return op is _operator.ne
    rt = _counting()
    for x, y in zip(a, b):
        if rt is not None:
            _range_step(rt)
        if not (x is y or x == y):
            if op is _operator.eq:
                return False
            if op is _operator.ne:
                return True
            return op(x, y)
    return op(len(a), len(b))


def sequence_contains(seq, value):
    """``value in seq`` for a list, tuple or deque: Python's own search, except where each comparison
    runs host code (a tensor's ==: microseconds each) over a long sequence, which no limit could
    interrupt (5 million tensors held the process past its deadline and the worker was killed):
    then compared here, a step each, with Python's identity test first."""
    if not _slow_scan(seq, value):
        return value in seq
    rt = _counting()
    for item in seq:
        if rt is not None:
            _range_step(rt)
        if item is value or item == value:
            return True
    return False


def _slice_get(obj, name):
    if name not in ("start", "stop", "step"):
        raise _attr_error(obj, name)
    return getattr(obj, name)


_STOP_VALUE = StopIteration.__dict__["value"].__get__   # the slot itself, past anything a class defines


def _exception_get(obj, name):
    if name == "args":
        return exception_args(obj)
    if name == "value" and isinstance(obj, StopIteration):   # what a generator returned (PEP 380)
        return _STOP_VALUE(obj)
    if name == "code" and isinstance(obj, PROGRAM_EXCEPTIONS["SystemExit"]):
        return system_exit_code(obj)
    raise _attr_error(obj, name)


def _exception_data_getter(data_get):
    def get(obj, name):
        if name in ("args", "value", "code"):
            return _exception_get(obj, name)
        return data_get(obj, name)
    return get


def _super_get(obj, name):
    cls = obj.__self_class__
    if not (isinstance(cls, type) and (_program_defines(cls, None, name) or name in type_info(cls).attrs)):
        raise _attr_error(obj, name, f"'super' object has no attribute '{name}'")
    try:
        v = getattr(obj, name)
    except AttributeError:
        raise _attr_error(obj, name, f"'super' object has no attribute '{name}'") from None
    return wrap(v)


def _property_get(obj, name):
    if name not in ("setter", "getter", "deleter"):
        raise _attr_error(obj, name)
    return getattr(obj, name)


def _list_extend(lst):
    def extend(iterable):
        items = iterable if type(iterable) in (list, tuple, str, range, dict, set, frozenset) else \
            _builtins().materialize(iterable)
        guards.check_length(len(lst) + len(items), _LIMITS.sequence_length, "list")
        lst.extend(items)
    return extend


def _list_sort(lst):
    def sort(*, key=None, reverse=False):
        _builtins()._sort(lst, key, reverse)
    return sort


def _builtins():
    from .builtin_functions import _current_builtins
    return _current_builtins()


def _list_count(lst):
    return lambda value: sequence_count(lst, value)


def _list_index(lst):
    def index(value, start=0, stop=None):
        return sequence_index(lst, value, start, stop)
    return index


def _list_remove(lst):
    def remove(value):
        if _slow_scan(lst, value):
            del lst[sequence_index(lst, value)]
        else:
            lst.remove(value)
    return remove


# list methods that count steps and check sizes
_LIST_FACTORIES = {"extend": _list_extend, "sort": _list_sort, "count": _list_count, "index": _list_index,
                   "remove": _list_remove}


def _tensor_numpy(t):
    def numpy(force=False):
        """A program's ``Tensor.numpy()``: a program-side NumPy array sharing the tensor's memory,
        as PyTorch's (programs never hold host NumPy arrays)."""
        if t.requires_grad and not force:
            raise PROGRAM_EXCEPTIONS["RuntimeError"]("Can't call numpy() on Tensor that requires grad. "
                                                     "Use tensor.detach().numpy() instead.")
        from .stdlib.numpy import tensor_numpy
        return tensor_numpy(t, force)
    return numpy


def _tensor_tolist(t):
    n = t._data.size
    if n > _LIMITS.sequence_length:
        raise limit_abort("sequence_length", f"limit exceeded: sequence_length: tolist() of a tensor with {n} "
                                             f"elements (at most {_LIMITS.sequence_length})")
    return t.tolist


def _tensor_guard(name, check):
    def get(t):
        try:
            method = getattr(t, name)
        except AttributeError:
            raise _attr_error(t, name) from None

        def call(*args, **kwargs):
            try:
                check(t, *args, **kwargs)
            except Exception:
                pass  # malformed arguments: the op raises its own error
            return method(*args, **kwargs)
        call.__name__ = name
        return call
    return get


# Tensor attributes answered by the interpreter: name -> fn(tensor) -> value (the
# allowlist's guards on Tensor.X, and two methods that would hand out host arrays or
# build unbounded lists)
_TENSOR_SPECIAL = {"numpy": _tensor_numpy, "tolist": _tensor_tolist}
_TENSOR_SPECIAL.update({name: _tensor_guard(name, getattr(guards, g.check))
                        for name, g in allowlist.GUARDS.items() if "Tensor" in g.on})


def tensor_method_is_plain(name):
    """Whether ``x.name(...)`` on a tensor may call the engine's method directly (the
    interpreter's fast path): granted by the allowlist and not answered specially."""
    return name in _TENSOR_ATTRS and name not in _TENSOR_SPECIAL


_GENERATOR_METHODS = {"send": "send", "throw": "throw", "close": "program_close"}


def _generator_get(g, name):
    """A program generator's methods, and nothing else (no frame, no code: SPEC section 2)."""
    method = _GENERATOR_METHODS.get(name)
    if method is None:
        raise _attr_error(g, name)
    return getattr(g, method)


def _policy_for(t):
    policy = None
    if "__gs_program__" in t.__dict__:
        return _program_get   # program classes come and go: not cached
    if issubclass(t, Tensor):
        policy = _tensor_get
    elif t is ModuleView:
        policy = _view_get
    elif t is super:
        policy = _super_get
    elif t is ProgramGenerator:
        policy = _generator_get
    elif _has_marker(t):
        return _program_get   # program classes come and go: not cached
    elif issubclass(t, ProgramBaseException):
        info = type_info(t)   # a program-side module's error with public data (json.JSONDecodeError's msg, pos)
        policy = _exception_get if not info.data else _exception_data_getter(_engine_getter(info))
    elif t is str:
        policy = _str_get
    elif t is list:
        policy = _list_get
    elif issubclass(t, dict) and t is not dict and type_info(t).allowed:
        policy = _engine_getter(type_info(t))   # OrderedDict, Counter, ... of the program-side stdlib
    elif issubclass(t, dict):
        policy = _dict_get
    elif issubclass(t, (set, frozenset)):
        policy = _set_get
    elif t in (int, float, bool, complex):
        policy = _number_get
    elif t is range:
        policy = _range_get
    elif t is slice:
        policy = _slice_get
    elif t is property:
        policy = _property_get
    elif t is type or (issubclass(t, type) and type_info(t).allowed):   # metaclasses (EnumMeta, ABCMeta)
        policy = _class_get
    elif type_info(t).allowed:
        policy = _engine_getter(type_info(t))
    elif issubclass(t, tuple):
        policy = _tuple_get
    else:
        policy = _no_attrs
    _POLICIES[t] = policy
    return policy


def _class_get(cls, name):
    if is_program_class(cls):
        if not _program_defines(cls, None, name) and name not in type_info(cls).attrs:
            raise _missing_error(cls, name)
        try:
            v = getattr(cls, name)
        except AttributeError:
            raise _attr_error(cls, name, f"type object '{cls.__name__}' has no attribute '{name}'") from None
        if isinstance(v, property):
            return v
        if type(v) in (list, dict, set):
            for k in cls.__mro__:
                if name in k.__dict__:
                    if "__gs_program__" not in k.__dict__:
                        v = type(v)(v)   # inherited engine class state: a copy
                    break
        return wrap(v)
    if issubclass(cls, ProgramBaseException) or cls in _BUILTIN_CLASSES:
        raise _attr_error(cls, name, f"type object '{cls.__name__}' has no attribute '{name}'")
    if type_info(cls).allowed:
        return _engine_class_get(cls, name)
    raise _attr_error(cls, name)


# --------------------------------------------------------------------------- stores
_TENSOR_STORE = frozenset(allowlist.TYPES[_ENGINE + ".tensor.Tensor"].settable)


def settable_engine_class(cls):
    """Engine classes whose instances a session owns (modules, optimizers, schedulers): it may
    set their attributes, and derive its classes from them."""
    return type_info(cls).base


def _engine_settable(obj, name):
    settable = type_info(type(obj)).settable
    return settable == allowlist.ANY or name in settable


def _check_assigned_grad(t, grad):
    """``t.grad = grad`` as PyTorch checks it: the same shape, dtype and device, and not ``t`` itself."""
    if grad is t:
        raise PROGRAM_EXCEPTIONS["RuntimeError"]("can't assign Variable as its own grad")
    if grad.dtype != t.dtype:
        raise PROGRAM_EXCEPTIONS["RuntimeError"]("assigned grad has data of a different type")
    if grad.device != t.device:
        raise PROGRAM_EXCEPTIONS["RuntimeError"]("assigned grad has data located on a different device")
    if tuple(grad.shape) != tuple(t.shape):
        raise PROGRAM_EXCEPTIONS["RuntimeError"]("assigned grad has data of a different size")


def _setattr_hook(cls, after=None):
    """The ``__setattr__`` a program class defines (the first in the MRO, or the first after ``after``)."""
    mro = cls.__mro__
    start = 0 if after is None else mro.index(after) + 1 if after in mro else len(mro)
    for k in mro[start:]:
        d = k.__dict__
        if "__gs_program__" in d and "__gs_setattr__" in d:
            return d["__gs_setattr__"]
    return None


def _object_setattr(obj, name, value):
    """The assignment without the program's own __setattr__ (what object.__setattr__ does)."""
    if type(name) is not str:
        raise PROGRAM_EXCEPTIONS["TypeError"](f"attribute name must be string, not '{_type_name(name)}'")
    set_attr(obj, name, value, hook=False)


def _setattr_of(obj):
    """``super().__setattr__`` in a program class that defines __setattr__: the next one in the MRO, or the
    plain assignment (``object.__setattr__`` stays out of reach: SPEC keeps the builtins' '_' names from programs)."""
    if type(obj) is super and is_program_class(obj.__self_class__) and not isinstance(obj.__self__, type):
        target, hook = obj.__self__, _setattr_hook(obj.__self_class__, obj.__thisclass__)
        if hook is not None:
            return lambda name, value: _builtins().call(hook, [target, name, value], {})
        return lambda name, value: _object_setattr(target, name, value)
    return None


def set_attr(obj, name, value, hook=True):
    """``obj.name = value`` as a program may do it."""
    if type(obj) is _TupleNew and name == "__defaults__":
        obj.set_defaults(value)
        return
    if isinstance(obj, Tensor) and _tensor_own_name(obj, name):
        _tensor_own_set(obj, name, value)
        return
    if name[0] == "_":
        if type(obj) is super or not _private_ok(obj, name):
            raise _private_refused(obj, name)
    elif not name.isidentifier() and _program_owner(obj) is not None:
        raise _attr_error(obj, name, f"'{name}' is not an attribute name")
    t = type(obj)
    if isinstance(obj, Tensor):
        if name not in _TENSOR_STORE:
            raise _attr_error(obj, name, f"cannot set attribute '{name}' of a Tensor in programs")
        if name == "data":
            if not isinstance(value, Tensor):
                raise PROGRAM_EXCEPTIONS["TypeError"]("Tensor.data must be set to a Tensor")
            obj.data = value
        elif name == "grad":
            if value is not None and not isinstance(value, Tensor):
                raise PROGRAM_EXCEPTIONS["TypeError"](
                    f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if value is not None:   # PyTorch's checks: a grad of another shape or dtype broke backward and
                _check_assigned_grad(obj, value)   # the optimizers later with NumPy's errors (hostile pass 11)
            obj.grad = value
        else:
            obj.requires_grad_(bool(value))
        return
    if t is ModuleView:
        if name in obj._source.settable:
            if type(value) is not bool:
                raise PROGRAM_EXCEPTIONS["TypeError"](f"{obj.name}.{name} must be set to True or False")
            obj._cache[name] = value    # the session's own view: no other session sees it
            return
        if obj._source.has(name):
            raise _attr_error(obj, name, f"cannot set attribute '{name}' of module '{obj.name}': the engine's "
                                         f"names are read-only in programs (a program may add names of its own)")
        if obj.own is None:
            obj.own = {}
        obj.own[name] = value           # the session's own view: no other session sees it
        return
    if is_program_class(t) or (isinstance(obj, type) and is_program_class(obj)) or _engine_settable(obj, name):
        if isinstance(obj, type):
            type.__setattr__(obj, name, value)
        else:
            program_hook = _setattr_hook(t) if hook and is_program_class(t) else None
            if program_hook is not None:
                _builtins().call(program_hook, [obj, name, value], {})
            else:
                setattr(obj, name, value)
        return
    raise _attr_error(obj, name, f"cannot set attribute '{name}' on a '{_type_name(obj)}' object in programs")


def del_attr(obj, name):
    if isinstance(obj, Tensor) and _tensor_own_name(obj, name):
        if name not in obj.__dict__:
            raise _attr_error(obj, name, f"'{_type_name(obj)}' object has no attribute '{name}'")
        del obj.__dict__[name]
        return
    if name[0] == "_" and (type(obj) is super or not _private_ok(obj, name)):
        raise _private_refused(obj, name)
    if type(obj) is ModuleView:
        if obj.own is not None and name in obj.own:
            del obj.own[name]
            return
        raise _attr_error(obj, name, f"cannot delete attribute '{name}' of module '{obj.name}': the engine's "
                                     f"names are read-only in programs")
    t = type(obj)
    if is_program_class(t) or (isinstance(obj, type) and is_program_class(obj)) or _engine_settable(obj, name):
        delattr(obj, name)
        return
    raise _attr_error(obj, name, f"cannot delete attribute '{name}' of a '{_type_name(obj)}' object in programs")


# --------------------------------------------------------------------------- module views
_MISSING = object()


class ModuleView:
    """A program's view of one of the engine's modules (``torch``, ``nn``, ``F``, ``optim``,
    ``math``): the module's public names that pass the policy. Read-only: a program
    cannot change the engine's modules, for itself or anyone else. It may add names of its own to
    its view (flows' ``nn.MaskedLinear = MaskedLinear``): they are this session's, held with its
    variables (``own``), and never replace one of the engine's."""
    __slots__ = ("name", "_source", "_views", "_cache", "own")

    def __init__(self, name, source, views):
        self.name = name
        self._source = source       # ViewSource, shared by every session
        self._views = views         # this session's views by name
        self._cache = {}
        self.own = None             # the names the program added: name -> value (None: none yet)

    def get(self, name):
        v = self._cache.get(name, _MISSING)
        if v is not _MISSING:
            return v
        own = self.own
        if own is not None and name in own:
            return own[name]
        v = self._source.resolve(self, name)
        if type(v) not in (list, dict, set):
            self._cache[name] = v
        return v

    def __repr__(self):
        return f"<module '{self.name}'>"


_OK_TYPES.update((ModuleView, super))


# Names real scripts reach for that read or write files: their AttributeError says where that goes instead.
_FILE_NAMES = {
    "torch": frozenset(("save", "load")),
    "os": frozenset(("makedirs", "mkdir", "listdir", "scandir", "walk", "remove", "unlink", "rename", "replace",
                     "rmdir", "removedirs", "getcwd", "chdir", "stat")),
    "shutil": frozenset(("copy", "copy2", "copyfile", "copyfileobj", "copymode", "copystat", "copytree", "disk_usage",
                         "make_archive", "move", "rmtree", "unpack_archive", "which")),
}
_FILE_HINT = ("programs cannot read or write files: a session keeps its values between runs, its tensors and module "
              "parameters are saved and restored as a checkpoint (GET and PUT /v1/sessions/{id}/checkpoint, or "
              "the client's session.save_checkpoint(path) and restore_checkpoint(path)), and data comes in as "
              "inputs")


def file_hint(module, name):
    """``": why, and what to do instead"`` for a name of ``module`` that reads or writes files, else ``""``."""
    return f": {_FILE_HINT}" if name in _FILE_NAMES.get(module, ()) else ""


class ViewSource:
    """How names of one view resolve: the allowlist's names for it, read from its host
    module, child views, and replacements (guarded ops, program-side functions)."""

    def __init__(self, name, module=None, children=None, extra=None, allow=(), settable=()):
        self.name = name
        self.module = module
        self.children = children or {}
        self.extra = extra or {}
        self.allow = frozenset(allow)
        self.settable = frozenset(settable)   # flags a session sets in its own view (cudnn.benchmark)

    def _host_module(self):
        if self.module is None:
            return None
        try:
            return importlib.import_module(self.module)
        except ImportError:
            return None

    def has(self, name):
        """Whether ``name`` is one of the engine's in this view (a child, a replacement, a listed name)."""
        return name in self.children or name in self.extra or name in self.allow

    def resolve(self, view, name):
        missing = _attr_error(view, name, f"module '{self.name}' has no attribute '{name}'{file_hint(self.name, name)}")
        if name in self.children:
            return view._views[self.children[name]]
        if name in self.extra:
            v = self.extra[name]
            return v() if isinstance(v, _Lazy) else v
        if name not in self.allow:
            raise missing
        mod = self._host_module()
        if mod is None:
            raise missing
        try:
            v = getattr(mod, name)
        except AttributeError:
            raise missing from None
        if _view_value_ok(v):
            if isinstance(v, (list, dict, set)):
                return type(v)(v)
            return v
        raise _attr_error(view, name, f"{self.name}.{name} is not available in programs")


def _view_value_ok(v):
    """What an allowlisted name may be bound to: never a host module, a class the allowlist's
    types do not name, or a function from outside the engine."""
    if isinstance(v, types.ModuleType):
        return False
    if isinstance(v, type):
        return _class_ok(v)
    if isinstance(v, (_FunctionType, types.BuiltinFunctionType)):
        return _engine_module(getattr(v, "__module__", None) or "")
    if isinstance(v, (_DType, _Device)):
        return True
    if type(v) in (int, float, str, bool, _NoneType):
        return True
    # an instance of a class the allowlist's types name (torch.preserve_format, torch.optim.optimizer.required)
    return not isinstance(v, type) and type_info(type(v)).allowed


class _Lazy:
    """A replacement resolved on first use (the engine module may not be loaded yet)."""
    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def __call__(self):
        return self.fn()


def _guarded(module, name, check):
    def make():
        fn = getattr(importlib.import_module(module), name)

        def guarded(*args, **kwargs):
            try:
                check(*args, **kwargs)
            except Exception:
                pass  # malformed arguments: the op itself raises its own error
            return fn(*args, **kwargs)
        guarded.__name__ = name
        guarded.__qualname__ = name
        guarded.__module__ = module
        return guarded
    return _Lazy(make)


_TRUSTED_BUILTINS = set()   # functions of standard modules the allowlist names (math.sqrt, ...)


def _resolve_target(target):
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def _sources():
    """One ViewSource per row of the allowlist's MODULES."""
    sources = {}
    guard_site = {"torch": "torch", "torch.nn.functional": "F", "torch.linalg": "linalg"}
    for key, row in allowlist.MODULES.items():
        extra = {}
        site = guard_site.get(key)
        if site is not None:
            for name, g in allowlist.GUARDS.items():
                if site in g.on and name in row.names:
                    extra[name] = _guarded(row.host, name, getattr(guards, g.check))
        if row.host is not None and not _engine_module(row.host):
            # a standard module: its names are read once (plain numbers and C functions)
            mod = importlib.import_module(row.host)
            for name in row.names:
                if hasattr(mod, name):
                    v = extra[name] = getattr(mod, name)
                    if callable(v):
                        _TRUSTED_BUILTINS.add(v)
        for name, target in row.replaced.items():
            extra[name] = _Lazy(lambda target=target: _resolve_target(target))
        sources[key] = ViewSource(key, row.host, children=dict(row.children), extra=extra, allow=row.names,
                                  settable=row.settable)
    return sources


_SOURCES = None


def make_views():
    """A session's own set of module views, by module name."""
    global _SOURCES
    if _SOURCES is None:
        _SOURCES = _sources()
    views = {}
    for name, source in _SOURCES.items():
        views[name] = ModuleView(name, source, views)
    return views


def set_limits(string_length, sequence_length):
    _LIMITS.string_length = string_length
    _LIMITS.sequence_length = sequence_length


# make sure ordered/default dicts from the engine count as containers
_KIND[OrderedDict] = "container"
_KIND[defaultdict] = "container"
