"""torch.nn.utils.prune: masking a module's parameter, as PyTorch's does it. Pruning ``module.weight``
moves the parameter to ``weight_orig``, keeps a ``weight_mask`` buffer, and sets ``weight`` to
``weight_orig * weight_mask`` now and before every forward (a forward pre-hook), so gradients reach
only the kept entries. Pruning a tensor again prunes among what is left (PruningContainer);
``remove`` makes the pruned values the parameter again. (The names ``<name>_orig`` and ``<name>_mask``
are built with f-strings, and a method's tensor is ``tensor_name`` where PyTorch's is private: the
interpreter reserves every private name the engine's source spells out against program classes.)"""
import numbers

from ...autograd import no_grad
from ...ops.creation import ones_like, rand, rand_like, zeros_like
from ...ops.shape import cat
from ...tensor import Tensor

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
           "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured", "l1_unstructured",
           "random_structured", "ln_structured", "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


def _validate_amount(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or \
            (not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _validate_amount_for(amount, size):
    if isinstance(amount, numbers.Integral) and amount > size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={size}")


def _nparams_to_prune(amount, size):
    if isinstance(amount, numbers.Integral):
        return int(amount)
    return round(amount * size)


def _validate_dim(t, dim):
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {tuple(t.shape)}")


def _norm_over_others(t, n, dim):
    dims = [d for d in range(t.dim()) if d != (dim if dim >= 0 else t.dim() + dim)]
    return t.norm(p=n, dim=dims)


class BasePruningMethod:
    """A way of choosing a mask (``compute_mask``), applied to ``<name>_orig`` before each forward."""
    PRUNING_TYPE = None
    tensor_name = None

    def __call__(self, module, inputs):
        setattr(module, self.tensor_name, self.apply_mask(module))

    def compute_mask(self, t, default_mask):
        raise NotImplementedError

    def apply_mask(self, module):
        orig = getattr(module, f"{self.tensor_name}_orig")
        mask = getattr(module, f"{self.tensor_name}_mask")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prunes ``module.<name>`` by this method (made with ``args``, ``kwargs``), on top of any
        pruning it already has."""
        old = None
        hooks = module._forward_pre_hooks
        for key, hook in list(hooks.items()):
            if isinstance(hook, BasePruningMethod) and hook.tensor_name == name:
                old = hook
                del hooks[key]
        method = cls(*args, **kwargs)
        method.tensor_name = name
        if old is not None:
            container = old if isinstance(old, PruningContainer) else PruningContainer(old)
            container.add_pruning_method(method)
            method = container
        orig = getattr(module, name)
        if importance_scores is not None and importance_scores.shape != orig.shape:
            raise AssertionError(f"importance_scores should have the same shape as parameter {name} of {module}")
        if old is None:
            module.register_parameter(f"{name}_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, f"{name}_mask").detach().clone()
        with no_grad():
            mask = method.compute_mask(importance_scores if importance_scores is not None else orig,
                                       default_mask=default_mask)
        module.register_buffer(f"{name}_mask", mask)
        setattr(module, name, method.apply_mask(module))
        module.register_forward_pre_hook(method)
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` with this method's mask applied (the mask of ``importance_scores`` when given)."""
        if importance_scores is not None and importance_scores.shape != t.shape:
            raise AssertionError("importance_scores should have the same shape as tensor t")
        scores = importance_scores if importance_scores is not None else t
        mask = self.compute_mask(scores, default_mask=default_mask if default_mask is not None else ones_like(t))
        return t * mask

    def remove(self, module):
        """Makes the pruned values ``module.<name>`` again, a parameter, and drops ``_orig`` and ``_mask``."""
        name = self.tensor_name
        if name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters[f"{name}_orig"]
        with no_grad():
            orig.copy_(weight.detach())
        del module._parameters[f"{name}_orig"]
        del module._buffers[f"{name}_mask"]
        setattr(module, name, orig)


class PruningContainer(BasePruningMethod):
    """Successive pruning of one tensor: each new method prunes among the entries (or, structured, the
    channels) the earlier ones kept."""

    def __init__(self, *methods):
        self._pruning_methods = ()
        for method in methods:
            self.add_pruning_method(method)

    def add_pruning_method(self, method):
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self.tensor_name is not None and self.tensor_name != method.tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named '{self.tensor_name}' to "
                             f"PruningContainer. Found '{method.tensor_name}'")
        self.tensor_name = method.tensor_name
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            keep = default_mask == 1
            partial = method.compute_mask(t[keep], default_mask=default_mask[keep])
            new_mask[keep] = partial.to(dtype=new_mask.dtype)
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError("Pruning methods of PRUNING_TYPE 'structured' need to have the attribute `dim` "
                                     "defined.")
            dim = method.dim if method.dim >= 0 else t.dim() + method.dim
            kept = default_mask.sum(dim=[d for d in range(t.dim()) if d != dim]) != 0
            index = (slice(None),) * dim + (kept,)
            partial = method.compute_mask(t[index], default_mask=default_mask[index])
            new_mask[index] = partial.to(dtype=new_mask.dtype)
        elif method.PRUNING_TYPE == "global":
            new_mask = method.compute_mask(t, default_mask=default_mask).to(dtype=new_mask.dtype)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing (a mask of ones)."""
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class _Unstructured(BasePruningMethod):
    """Prunes ``amount`` entries (a count, or a fraction): the ``_pruned`` ones of ``t``'s flat view."""
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        _validate_amount_for(self.amount, t.numel())
        k = _nparams_to_prune(self.amount, t.numel())
        mask = default_mask.clone()
        if k != 0:
            mask.view(-1)[self._pruned(t.reshape(-1), k)] = 0
        return mask


class RandomUnstructured(_Unstructured):
    """Prunes ``amount`` entries (a count, or a fraction) chosen at random."""

    def _pruned(self, flat, k):
        return rand_like(flat).topk(k).indices

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    """Prunes the ``amount`` entries (a count, or a fraction) of smallest magnitude."""

    def _pruned(self, flat, k):
        return flat.abs().topk(k, largest=False).indices

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _structured_mask(t, default_mask, dim, amount, keep_scores):
    _validate_amount_for(amount, t.shape[dim])
    k = _nparams_to_prune(amount, t.shape[dim])
    if k == 0:
        return default_mask
    keep = keep_scores.topk(t.shape[dim] - k).indices
    mask = zeros_like(t)
    index = [slice(None)] * t.dim()
    index[dim] = keep
    mask[tuple(index)] = 1
    return mask * default_mask


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim``, chosen at random."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _validate_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_dim(t, self.dim)
        dim = self.dim if self.dim >= 0 else t.dim() + self.dim
        return _structured_mask(t, default_mask, dim, self.amount, rand(t.shape[dim]))

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest ``n``-norm."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _validate_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_dim(t, self.dim)
        dim = self.dim if self.dim >= 0 else t.dim() + self.dim
        return _structured_mask(t, default_mask, dim, self.amount, _norm_over_others(t, self.n, dim))

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where the given mask is 0."""
    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError("the mask must have the shape of the pruned tensor")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def identity(module, name):
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prunes the (module, name) pairs of ``parameters`` together: ``pruning_method`` (an unstructured
    method, L1Unstructured mostly) chooses over all their entries at once."""
    if isinstance(parameters, Tensor) or not hasattr(parameters, "__iter__"):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = cat([importance_scores.get((module, name), getattr(module, name)).reshape(-1)
                  for module, name in parameters])
    default_mask = cat([getattr(module, f"{name}_mask", ones_like(getattr(module, name))).reshape(-1)
                        for module, name in parameters])
    container = PruningContainer()
    container.tensor_name = "temp"
    method = pruning_method(**kwargs)
    method.tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(f'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f'{pruning_method} of type {method.PRUNING_TYPE}')
    container.add_pruning_method(method)
    with no_grad():
        final_mask = container.compute_mask(scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        n = param.numel()
        custom_from_mask(module, name, mask=final_mask[pointer:pointer + n].view_as(param))
        pointer += n


def remove(module, name):
    """Makes ``module.<name>`` a plain parameter again, holding its pruned values."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, BasePruningMethod) and hook.tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module):
    """Whether ``module`` or one of its submodules has a pruned tensor."""
    for _, submodule in module.named_modules():
        for hook in submodule._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False
