"""A module's registries as programs reach them: ``m._parameters``, ``m._buffers``, ``m._modules``.

PyTorch code uses these three names as public API though they begin with ``_``: EGNN calls
``self._modules["gcl_%d" % i](...)``, spectral norm does ``del module._parameters[name]``, pruning and
weight-norm code reads and replaces entries, and model summaries walk ``m._modules.items()``. A program
gets a view of the module's own dict (the allowlist names this class): reads are the dict's, and what it stores
is checked as ``register_parameter``, ``register_buffer`` and ``add_module`` check it, so the engine only
ever finds parameters, tensors and modules there."""
from .module import Module, _typename
from .parameter import Parameter
from ..tensor import Tensor

NAMES = frozenset(("_parameters", "_buffers", "_modules"))

_KIND = {"_parameters": "parameter", "_buffers": "buffer", "_modules": "module"}


def registry(module, name):
    """``module.<name>`` for one of NAMES on an engine module (or a program class deriving from one)."""
    d = module.__dict__.get(name)
    if type(d) is not dict:   # Module.__init__ has not run (PyTorch: no such attribute yet)
        raise AttributeError(f"'{type(module).__name__}' object has no attribute '{name}'")
    r = object.__new__(Registry)
    r._module, r._kind, r._d = module, _KIND[name], d
    return r


def _made_here(cls):
    """``cls(...)`` refused: the interpreter's gate makes these views, a program only holds them (its
    ``type(view)`` must not build one over a dict or callables of its choosing)."""
    def __init__(self, *args, **kwargs):
        raise TypeError(f"cannot create '{cls.__name__}' instances")
    cls.__init__ = __init__
    return cls


@_made_here
class Registry:
    """One registry of one module: a mapping over its dict, checked on assignment (made by ``registry``)."""
    __slots__ = ("_module", "_kind", "_d")

    def _check(self, key, value):
        kind = self._kind
        self._module._check_name(key, kind)
        if value is None:
            return
        if kind == "parameter" and not isinstance(value, Parameter):
            raise TypeError(f"cannot assign '{_typename(value)}' object to parameter '{key}' "
                            "(torch.nn.Parameter or None required)")
        if kind == "buffer" and not isinstance(value, Tensor):
            raise TypeError(f"cannot assign '{_typename(value)}' object to buffer '{key}' "
                            "(torch Tensor or None required)")
        if kind == "module" and not isinstance(value, Module):
            raise TypeError(f"{_typename(value)} is not a Module subclass")

    def __getitem__(self, key):
        return self._d[key]

    def __setitem__(self, key, value):
        self._check(key, value)
        self._d[key] = value

    def __delitem__(self, key):
        del self._d[key]

    def __contains__(self, key):
        return key in self._d

    def __iter__(self):
        return iter(tuple(self._d))

    def __len__(self):
        return len(self._d)

    def __bool__(self):
        return bool(self._d)

    def __eq__(self, other):
        if type(other) is Registry:
            return self._d == other._d
        return self._d == other if type(other) is dict else NotImplemented

    __hash__ = None

    def keys(self):
        return list(self._d.keys())

    def values(self):
        return list(self._d.values())

    def items(self):
        return list(self._d.items())

    def get(self, key, default=None):
        return self._d.get(key, default)

    def pop(self, key, *default):
        return self._d.pop(key, *default)

    def __repr__(self):
        return f"OrderedDict({list(self._d.items())!r})" if self._d else "OrderedDict()"


@_made_here
class InstanceDict:
    """``self.__dict__`` of a program object whose class derives from an engine class (focal_loss's
    ``self.__dict__[k]`` in its __repr__, configs' ``self.__dict__.update(kwargs)``): the instance's own
    names a program may reach, public ones and the program's private ones, never the engine's state
    (``_parameters``). Reads, writes and deletes go through the interpreter's gate (``get``, ``set``
    and ``delete``, given by it): a write is the plain assignment, as a dict write is in Python."""
    __slots__ = ("_obj", "_visible", "_get", "_set", "_delete")

    @classmethod
    def of(cls, obj, visible, get, set_, delete):
        view = object.__new__(cls)
        view._obj, view._visible, view._get, view._set, view._delete = obj, visible, get, set_, delete
        return view

    def _names(self):
        return [k for k in self._obj.__dict__ if type(k) is str and self._visible(k)]

    def __getitem__(self, key):
        if type(key) is not str or key not in self._obj.__dict__ or not self._visible(key):
            raise KeyError(key)
        return self._get(key)

    def __setitem__(self, key, value):
        if type(key) is not str:
            raise TypeError(f"attribute name must be string, not '{type(key).__name__}'")
        self._set(key, value)

    def __delitem__(self, key):
        if type(key) is not str or key not in self._obj.__dict__ or not self._visible(key):
            raise KeyError(key)
        self._delete(key)

    def __contains__(self, key):
        return type(key) is str and key in self._obj.__dict__ and self._visible(key)

    def __iter__(self):
        return iter(self._names())

    def __len__(self):
        return len(self._names())

    def keys(self):
        return self._names()

    def values(self):
        return [self._get(k) for k in self._names()]

    def items(self):
        return [(k, self._get(k)) for k in self._names()]

    def get(self, key, default=None):
        return self[key] if key in self else default

    def pop(self, key, *default):
        if key not in self:
            if default:
                return default[0]
            raise KeyError(key)
        value = self[key]
        del self[key]
        return value

    def update(self, other=(), **kwargs):
        items = other.items() if isinstance(other, (dict, InstanceDict)) else other
        for key, value in list(items) + list(kwargs.items()):
            self[key] = value

    def copy(self):
        return dict(self.items())

    def __repr__(self):
        return repr(self.copy())
