"""``functorch``: where torch.func's transforms lived before PyTorch 2.0, and the module form they
took there, as PyTorch still ships it (``from functorch import grad, vmap, make_functional``; its
MAML and ensembling examples). The transforms are torch.func's own; ``make_functional`` and its
kin return a module called with the parameters (and buffers) as arguments, as functorch's do. Each
warns as PyTorch's does that functorch's spelling is deprecated (a FutureWarning naming the new one)."""
import functools
import warnings

from . import func as _func
from .func import functional_call
from .nn.module import Module
from .nn.parameter import Parameter

__all__ = ["FunctionalModule", "FunctionalModuleWithBuffers", "combine_state_for_ensemble", "grad",
           "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "make_functional", "make_functional_with_buffers",
           "vjp", "vmap"]


class FunctionalModuleWithBuffers(Module):
    """What ``make_functional_with_buffers`` returns: ``fmodel(params, buffers, *args, **kwargs)`` runs
    the model with those tensors in place of its own."""

    def __init__(self, stateless_model, param_names, buffer_names):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = tuple(param_names)
        self.buffer_names = tuple(buffer_names)

    def forward(self, params, buffers, *args, **kwargs):
        state = dict(zip(self.param_names, tuple(params)))
        state.update(zip(self.buffer_names, tuple(buffers)))
        return functional_call(self.stateless_model, state, args, kwargs)


class FunctionalModule(Module):
    """What ``make_functional`` returns: ``fmodel(params, *args, **kwargs)``."""

    def __init__(self, stateless_model, param_names):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = tuple(param_names)

    def forward(self, params, *args, **kwargs):
        return functional_call(self.stateless_model, dict(zip(self.param_names, tuple(params))), args, kwargs)


def _copies(named, disable_autograd_tracking, parameters):
    names, tensors = [], []
    for name, t in named:
        names.append(name)
        c = t.detach().clone()
        tensors.append(Parameter(c, requires_grad=t.requires_grad and not disable_autograd_tracking)
                       if parameters else c)
    return names, tuple(tensors)


def _check_module(model):
    if not isinstance(model, Module):
        raise AttributeError(f"'{type(model).__name__}' object has no attribute 'named_parameters'")


def make_functional(model, disable_autograd_tracking=False):
    """``(fmodel, params)``: params are new parameters with the model's values (functorch's come from a
    copy of the model), and ``fmodel(params, x)`` runs the model with them."""
    _check_module(model)
    if len(list(model.buffers())) > 0:
        raise RuntimeError("make_functional(model): `model` has buffers. Please use "
                           "make_functional_with_buffers(model) instead.")
    names, params = _copies(model.named_parameters(), disable_autograd_tracking, True)
    return FunctionalModule(model, names), params


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    """``(fmodel, params, buffers)``, and ``fmodel(params, buffers, x)`` runs the model with them."""
    _check_module(model)
    pnames, params = _copies(model.named_parameters(), disable_autograd_tracking, True)
    bnames, buffers = _copies(model.named_buffers(), False, False)
    return FunctionalModuleWithBuffers(model, pnames, bnames), params, buffers


def combine_state_for_ensemble(models):
    """``(fmodel, params, buffers)`` of models of one class: each parameter and buffer stacked along a
    new first dimension (detached, as functorch's), for ``vmap(fmodel)(params, buffers, x)``."""
    from .ops.shape import stack
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("combine_state_for_ensemble: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to be of the same class.")
    funcs, params, buffers = zip(*[make_functional_with_buffers(m) for m in models])
    params = tuple(stack(list(shards)).detach() for shards in zip(*params))
    buffers = tuple(stack(list(shards)).detach() for shards in zip(*buffers))
    return funcs[0], params, buffers


def _deprecated(fn, api, new):
    @functools.wraps(fn)
    def deprecated(*args, **kwargs):
        warnings.warn(f"We've integrated functorch into PyTorch. As the final step of the integration, "
                      f"`functorch.{api}` is deprecated as of PyTorch 2.0 and will be deleted in a future version of "
                      f"PyTorch >= 2.3. Please use `{new}` instead; see the PyTorch 2.0 release notes and/or the "
                      f"`torch.func` migration guide for more details https://pytorch.org/docs/main/func.migrating.html",
                      FutureWarning, stacklevel=2)
        return fn(*args, **kwargs)
    return deprecated


for _name in ("grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "vjp"):
    globals()[_name] = _deprecated(getattr(_func, _name), _name, f"torch.func.{_name}")
vmap = _deprecated(_func.vmap, "vmap", "torch.vmap")
for _name in ("make_functional", "make_functional_with_buffers"):
    globals()[_name] = _deprecated(globals()[_name], _name, "torch.func.functional_call")
combine_state_for_ensemble = _deprecated(combine_state_for_ensemble, "combine_state_for_ensemble",
                                         "torch.func.stack_module_state")
del _name
