"""Program-side ``copy``: ``copy`` and ``deepcopy`` of program values, tensors, engine
modules and optimizers, and the program's own objects, walked here (a step per object,
shared references kept shared through ``memo``). Nothing of the host is copied: the
interpreter's functions and classes, module views and engine classes are atomic, and
an object the walk does not know is refused."""
import collections as _c
import types as _types

import numpy as _np

from ..generators import ProgramGenerator
from ..values import BoundMethod, Function, ProgramIterator
from . import step

__all__ = ["copy", "deepcopy", "Error", "error"]

from ..errors import PROGRAM_EXCEPTIONS as _P  # noqa: E402

Error = error = _P["Exception"]

_ATOMIC = (type(None), bool, int, float, complex, str, bytes, range, slice, type(Ellipsis), type(NotImplemented),
           Function, _types.FunctionType, _types.BuiltinFunctionType)
_MAX_DEPTH = 400


def _is_tensor(x):
    from ...tensor import Tensor
    return isinstance(x, Tensor)


def _atomic(x):
    from .. import access
    from ...dtypes import dtype
    from ...device import device
    t = type(x)
    return (t in _ATOMIC or isinstance(x, type) or t is access.ModuleView or t is dtype or t is device)


def _copy_tensor(x, memo):
    from ...tensor import NON_LEAF_DEEPCOPY, Tensor
    from ...nn.parameter import Parameter
    if x.grad_fn is not None:
        raise RuntimeError(NON_LEAF_DEEPCOPY)
    data = x._data.copy()
    if isinstance(x, Parameter):
        new = Parameter(Tensor._adopt_array(data, False, None), x.requires_grad)
    else:
        new = Tensor._adopt_array(data, x.requires_grad, None)
    memo[id(x)] = new
    if x.grad is not None:
        new.grad = _deep(x.grad, memo, 1)
    if type(x) is Tensor:   # a program's own attributes (x.g = ...), as PyTorch's Tensor.__deepcopy__ (not Parameter's)
        own = x.__dict__
        for key, value in own.items():
            new.__dict__[key] = _deep(value, memo, 1)
    return new


def _new_like(x):
    cls = type(x)
    return object.__new__(cls) if cls.__new__ is object.__new__ else cls.__new__(cls)


def _deep(x, memo, depth):
    if _atomic(x):
        return x
    i = id(x)
    found = memo.get(i)
    if found is not None:
        return found
    if depth > _MAX_DEPTH:
        raise RecursionError("maximum recursion depth exceeded while copying")
    step()
    t = type(x)
    if _is_tensor(x):
        return _copy_tensor(x, memo)
    from .numpy import ndarray
    if t is ndarray:
        new = ndarray._of(x._a.copy())
        memo[i] = new
        return new
    if t is list:
        new = []
        memo[i] = new
        new.extend(_deep(v, memo, depth + 1) for v in x)
        return new
    if t is dict or t is _c.OrderedDict or isinstance(x, dict):
        new = _empty_dict(x)
        memo[i] = new
        for k, v in x.items():
            new[_deep(k, memo, depth + 1)] = _deep(v, memo, depth + 1)
        return new
    if isinstance(x, tuple):
        items = [_deep(v, memo, depth + 1) for v in x]
        if i in memo:
            return memo[i]
        new = tuple(items) if t is tuple else (t(*items) if hasattr(t, "_fields") else t(items))
        memo[i] = new
        return new
    if t is set or t is frozenset:
        new = t(_deep(v, memo, depth + 1) for v in x)
        memo[i] = new
        return new
    if isinstance(x, _c.deque):
        new = t((), x.maxlen)
        memo[i] = new
        for v in x:
            _c.deque.append(new, _deep(v, memo, depth + 1))
        return new
    if t is BoundMethod:
        return BoundMethod(x.fn, _deep(x.obj, memo, depth + 1))
    if t is ProgramIterator:
        raise TypeError("cannot copy an iterator")
    if t is ProgramGenerator:
        raise TypeError("cannot pickle 'generator' object")
    return _deep_object(x, memo, depth)


def _empty_dict(x):
    """An empty dict of ``x``'s type (a defaultdict keeps its factory)."""
    t = type(x)
    if t is dict or t is _c.OrderedDict:
        return t()
    new = t.__new__(t)
    if isinstance(x, _c.defaultdict):
        _c.defaultdict.__init__(new, x.default_factory)
    elif isinstance(x, _c.OrderedDict):
        _c.OrderedDict.__init__(new)
    return new


def _copyable_object(x):
    from .. import access
    t = type(x)
    if access.is_program_class(t):
        return True
    info = access.type_info(t)
    return info.allowed and info.base     # modules, optimizers, schedulers: the session's own


def _object_dict(x):
    d = getattr(x, "__dict__", None)
    if type(d) is not dict:
        raise TypeError(f"cannot copy a '{type(x).__name__}' object")
    return d


def _deep_object(x, memo, depth):
    if not _copyable_object(x):
        raise TypeError(f"cannot copy a '{type(x).__name__}' object in programs")
    d = _object_dict(x)
    new = _new_like(x)
    memo[id(x)] = new
    nd = object.__getattribute__(new, "__dict__")
    for k, v in d.items():
        nd[k] = _deep(v, memo, depth + 1)
    slots_copy(x, new, lambda v: _deep(v, memo, depth + 1))
    return new


def slots_copy(x, new, fn):
    for k in type(x).__mro__:
        for s in k.__dict__.get("__slots__", ()) if "__gs_program__" in k.__dict__ else ():
            if hasattr(x, s):
                object.__setattr__(new, s, fn(getattr(x, s)))


def deepcopy(x, memo=None):
    """A deep copy of ``x``: tensors (graph leaves, as PyTorch), modules, containers and
    the program's own objects; shared parts stay shared."""
    if memo is None:
        memo = {}
    elif type(memo) is not dict:
        raise TypeError("memo must be a dict")
    return _deep(x, memo, 0)


def copy(x):
    """A shallow copy of ``x``."""
    if _atomic(x):
        return x
    t = type(x)
    if _is_tensor(x):
        return _copy_tensor(x, {}) if x.grad_fn is None else x
    from .numpy import ndarray
    if t is ndarray:
        return ndarray._of(x._a.copy())
    if t is list:
        step(len(x))
        return list(x)
    if isinstance(x, tuple):
        return x
    if isinstance(x, dict):
        step(len(x))
        new = _empty_dict(x)
        new.update(x)
        return new
    if t is set:
        step(len(x))
        return set(x)
    if t is frozenset:
        return x
    if isinstance(x, _c.deque):
        step(len(x))
        return t(list(x), x.maxlen) if t is not _c.deque else _c.deque(x, x.maxlen)
    if not _copyable_object(x):
        raise TypeError(f"cannot copy a '{t.__name__}' object in programs")
    d = _object_dict(x)
    step(len(d))
    new = _new_like(x)
    object.__getattribute__(new, "__dict__").update(d)
    slots_copy(x, new, lambda v: v)
    return new
