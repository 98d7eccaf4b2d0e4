"""torch.nn.utils: gradient clipping, parameters to and from one vector, weight normalisation, parametrizations."""
import math
import warnings

from ...device import get_array_module
from ...ops.shape import cat
from ...tensor import Tensor

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters",
           "weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm"]


def _params(parameters):
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def zero_grads(tensors, set_to_none=True):
    """Resets the tensors' gradients: to None, or in place to zeros detached from any graph
    (what Module.zero_grad and Optimizer.zero_grad both do)."""
    for p in tensors:
        g = p.grad
        if g is None:
            continue
        if set_to_none:
            p.grad = None
            continue
        if g.grad_fn is not None:
            g = p.grad = g.detach()
        g.requires_grad = False
        g._data[...] = 0
        g._version[0] += 1


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients in place so that their joint norm is at most max_norm; returns that norm."""
    grads = [p.grad for p in _params(parameters) if p.grad is not None]
    norm_type = float(norm_type)
    if not grads:
        from ...ops.creation import tensor
        return tensor(0.0)
    xp = get_array_module(grads[0]._data)
    # as PyTorch: the norm of the per-gradient norms, in the gradients' dtype
    if norm_type == math.inf:
        norms = xp.stack([xp.abs(g._data).max() for g in grads])
        total = norms.max()
    else:
        norms = xp.stack([xp.linalg.norm(g._data.ravel(), norm_type) for g in grads])
        total = xp.linalg.norm(norms, norm_type)
    total = xp.asarray(total, dtype=grads[0]._data.dtype)
    if error_if_nonfinite and not bool(xp.isfinite(total)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    coef = xp.minimum(max_norm / (total + 1e-6), 1.0)
    for g in grads:
        g._data *= coef.astype(g._data.dtype)
        g._version[0] += 1
    return Tensor._adopt_array(total, False, None)


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """PyTorch's deprecated spelling of clip_grad_norm_ (a FutureWarning, then the same clipping)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient element to [-clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    for p in _params(parameters):
        if p.grad is not None:
            xp = get_array_module(p.grad._data)
            xp.clip(p.grad._data, -clip_value, clip_value, out=p.grad._data)
            p.grad._version[0] += 1


def parameters_to_vector(parameters):
    """Flattens the parameters into one 1-d tensor (differentiable, like torch.cat of their views)."""
    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of vec into the parameters' memory."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    for p in parameters:
        n = p.numel()
        p._data[...] = vec._data[offset:offset + n].reshape(p._data.shape)
        p._version[0] += 1
        offset += n


from . import rnn, stateless  # noqa: E402  torch.nn.utils.rnn, torch.nn.utils.stateless
from .weight_norm import remove_weight_norm, weight_norm  # noqa: E402
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402
