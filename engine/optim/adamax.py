"""Adamax: Adam with the infinity norm of past gradients in place of their second moment."""
from ..device import get_array_module
from .optimizer import Optimizer, _lerp_, _step_tensor, _zeros_like

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Implements the Adamax algorithm (a variant of Adam based on the infinity norm), as ``torch.optim.Adamax``."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = _step_tensor()
        state["exp_avg"] = _zeros_like(p)
        state["exp_inf"] = _zeros_like(p)

    def _update(self, group, p, grad, state):
        # the operations and their order follow torch.optim.adamax._single_tensor_adamax
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        if group["maximize"]:
            grad = -grad
        step_t = state["step"]._data
        step_t += 1
        param = p._data
        if weight_decay != 0:
            grad = grad + weight_decay * param
        xp = get_array_module(param)
        exp_avg, exp_inf = state["exp_avg"]._data, state["exp_inf"]._data
        _lerp_(exp_avg, grad, 1 - beta1)
        exp_inf *= beta2
        xp.maximum(exp_inf, xp.abs(grad) + eps, out=exp_inf)
        clr = lr / (1 - beta1 ** float(step_t))
        param += (-clr * exp_avg) / exp_inf
