"""torch.nn.utils.parametrize: a module's parameter or buffer recomputed, on each read, from the
tensors it is parametrized by (``register_parametrization``), as PyTorch's.

After ``register_parametrization(m, "weight", P())`` the module holds ``m.parametrizations.weight``,
a ParametrizationList whose ``original`` (or ``original0``, ``original1``, ... where P's
``right_inverse`` returns several tensors) is what the optimizer trains, and ``m.weight`` is
``P()(original)``, built from differentiable ops on every read (once per ``cached()`` block).
Assigning ``m.weight = X`` stores ``right_inverse(X)``. PyTorch swaps the module's class for a
generated ``Parametrized<Name>`` holding a property; here the module keeps its class and the read
and the assignment are the Module's __getattr__ and __setattr__ (only reached for names that are
not ordinary attributes), while the repr shows PyTorch's name."""
import sys

from ...autograd import no_grad
from ...tensor import Tensor
from ..container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["ParametrizationList", "cached", "is_parametrized", "register_parametrization",
           "remove_parametrizations", "type_before_parametrizations", "transfer_parametrizations_and_params"]

_cache_depth = 0
_cache = {}


class cached:
    """``with cached():`` each parametrized tensor is computed once in the block, at its first read."""

    def __enter__(self):
        global _cache_depth
        _cache_depth += 1
        return self

    def __exit__(self, *exc):
        global _cache_depth
        _cache_depth -= 1
        if not _cache_depth:
            _cache.clear()
        return False


def _register(owner, name, tensor, like):
    """``tensor`` as a parameter of ``owner`` when ``like`` (the tensor it stands for) is one, else a buffer."""
    if isinstance(like, Parameter):
        if not isinstance(tensor, Parameter):
            tensor = Parameter(tensor, like.requires_grad)
        owner.register_parameter(name, tensor)
    else:
        owner.register_buffer(name, tensor)


def _check_result(x, like):
    if not isinstance(x, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
    if x.dtype != like.dtype:
        raise ValueError(f"Registering a parametrization may not change the dtype of the tensor, unless the `unsafe` "
                         f"flag is enabled.\nunparametrized dtype: {like.dtype}\nparametrized dtype: {x.dtype}")
    if x.shape != like.shape:
        raise ValueError(f"Registering a parametrization may not change the shape of the tensor, unless the `unsafe` "
                         f"flag is enabled.\nunparametrized shape: {like.shape}\nparametrized shape: {x.shape}")


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the tensor(s) they start from."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        new = original
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    new = module.right_inverse(new)
        if isinstance(new, Tensor):
            self.is_tensor, self.ntensors = True, 1
            if new is not original:
                with no_grad():
                    _assign(original, new)
            _register(self, "original", original, original)
        else:
            if not isinstance(new, (list, tuple)):
                raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                 f"Got {type(new).__name__}")
            self.is_tensor, self.ntensors = False, len(new)
            for i, part in enumerate(new):
                if not isinstance(part, Tensor):
                    raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(part).__name__}.")
                part = part.detach().clone()
                part.requires_grad_(original.requires_grad)
                _register(self, f"original{i}", part, original)
        if not unsafe:
            _check_result(self(), original)

    def originals(self):
        return [self.original] if self.is_tensor else [getattr(self, f"original{i}") for i in range(self.ntensors)]

    def forward(self, *ignored):
        originals = self.originals()
        x = self[0](*originals)
        for module in list(self)[1:]:
            x = module(x)
        return x

    def right_inverse(self, value):
        """Stores ``value`` as the parametrized tensor: the originals become the right inverses of the
        parametrizations, last to first."""
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                _assign(self.original, value)
            else:
                if not isinstance(value, (list, tuple)) or len(value) != self.ntensors:
                    raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}.")
                for i, part in enumerate(value):
                    _assign(getattr(self, f"original{i}"), part)


def _assign(original, value):
    """``original`` takes ``value``'s data in place (PyTorch's set_): it stays the same tensor, so an
    optimizer holding it goes on training it."""
    if original.shape == value.shape and original.dtype == value.dtype:
        original.copy_(value)
    else:
        original._data = value._data.copy()
        original._version[0] += 1


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has parametrizations (on ``tensor_name``, when given)."""
    return parametrized_in(module.__dict__, tensor_name)


def parametrized_in(d, tensor_name=None):
    """is_parametrized by the module's ``__dict__`` (the interpreter's attribute policy asks this way)."""
    modules = d.get("_modules")
    parametrizations = modules.get("parametrizations") if type(modules) is dict else None
    if not isinstance(parametrizations, ModuleDict):
        return False
    held = parametrizations.__dict__["_modules"]
    return len(held) > 0 if tensor_name is None else tensor_name in held


def type_before_parametrizations(module):
    """The module's class (kept as it was: see the module's docstring)."""
    return type(module)


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Parametrizes ``module.<tensor_name>`` (a parameter, a buffer, or an already parametrized
    tensor, whose list it extends) by the module ``parametrization``."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            _check_result(x, y)
            if hasattr(parametrization, "right_inverse"):
                try:
                    z = parametrization.right_inverse(x)
                except NotImplementedError:
                    pass
                else:
                    _check_result(z, y)
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
        return module
    if tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            module.parametrizations = ModuleDict()
        module.parametrizations[tensor_name] = plist
        return module
    raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with name "
                     f"'{tensor_name}'")


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undoes ``register_parametrization`` on ``tensor_name``: the tensor becomes a parameter (or
    buffer) again, holding its current parametrized value, or with ``leave_parametrized=False`` its
    original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _assign(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                             "in terms of a sequence of tensors.")
        with no_grad():
            t = getattr(module, tensor_name)
        first = plist.original0
        original = Parameter(t.detach().clone(), first.requires_grad) if isinstance(first, Parameter) \
            else t.detach().clone()
    del module.parametrizations[tensor_name]
    _register(module, tensor_name, original, original)
    if not is_parametrized(module):
        del module.parametrizations
    return module


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Gives ``to_module`` the parametrizations of ``from_module`` (on ``tensor_name``, or all), with
    copies of their originals."""
    if not is_parametrized(from_module):
        return to_module
    names = [tensor_name] if tensor_name is not None else list(from_module.parametrizations.keys())
    for name in names:
        source = from_module.parametrizations[name]
        if not is_parametrized(to_module, name):
            if not hasattr(to_module, name):
                to_module.register_parameter(name, Parameter(getattr(from_module, name).detach().clone()))
            for parametrization in source:
                register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        with no_grad():
            for mine, theirs in zip(target.originals(), source.originals()):
                _assign(mine, theirs)
    return to_module


def get(module, name):
    """``module.<name>`` of a parametrized tensor (the Module's __getattr__): the list applied to its
    originals, once per ``cached()`` block."""
    if _cache_depth:
        key = (id(module), name)
        value = _cache.get(key)
        if value is None:
            value = _cache[key] = module.parametrizations[name]()
        return value
    return module.parametrizations[name]()


def _install():
    from .. import module
    module.install_parametrize(sys.modules[__name__])


_install()
