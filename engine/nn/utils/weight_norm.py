"""torch.nn.utils.weight_norm: a parameter ``w`` recomputed before each forward as
``g * v / ||v||`` from a magnitude ``g`` and a direction ``v``, both parameters (Salimans and
Kingma, 2016), as PyTorch's deprecated hook-based API does it (locuslab/TCN's TemporalBlock).
The weight is built from ordinary differentiable ops, so its gradients are theirs."""
import warnings

from ...tensor import Tensor

__all__ = ["weight_norm", "remove_weight_norm", "norm_except_dim"]


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dimension but ``dim`` (all of them for dim=-1), shaped to
    broadcast against ``v``."""
    if dim == -1:
        return v.norm(pow)
    if dim < 0:
        dim += v.dim()
    others = tuple(d for d in range(v.dim()) if d != dim)
    if not others:
        return v.abs() if pow != 0 else v
    return v.norm(pow, dim=others, keepdim=True)


def _weight_norm(v, g, dim):
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_g`` and ``<name>_v``."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module, name, dim):
        from ..parameter import Parameter, UninitializedParameter
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized parameters. Make sure to "
                             "run the dummy forward before applying weight normalization")
        if not isinstance(weight, Tensor):
            raise TypeError(f"weight_norm: module.{name} is not a tensor")
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        from ..parameter import Parameter
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Apply weight normalization to a parameter in the given module."""
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                  "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
    WeightNorm.apply(module, name, dim)
    return module


def remove_reparametrization(module, hook_type, name, what):
    """Undoes the ``hook_type`` forward pre-hook on parameter ``name`` (weight_norm's, spectral_norm's): the
    hook removes its own parameters and buffers and leaves ``name`` a plain parameter."""
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, hook_type) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"{what} of '{name}' not found in {module}")


def remove_weight_norm(module, name="weight"):
    """Remove the weight normalization reparameterization from a module."""
    return remove_reparametrization(module, WeightNorm, name, "weight_norm")
