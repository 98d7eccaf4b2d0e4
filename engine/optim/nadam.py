"""NAdam: Adam with Nesterov momentum (and momentum decay)."""
import numpy as np

from ..device import get_array_module
from ..tensor import Tensor
from .optimizer import Optimizer, _lerp_, _step_tensor, _zeros_like

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """Implements the NAdam algorithm, as ``torch.optim.NAdam``."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
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
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = _step_tensor()
        # the running product of the momentum coefficients, a float32 scalar as PyTorch keeps it
        state["mu_product"] = Tensor._adopt_array(np.ones((), dtype=np.float32), False, None)
        state["exp_avg"] = _zeros_like(p)
        state["exp_avg_sq"] = _zeros_like(p)

    def _update(self, group, p, grad, state):
        # the operations and their order follow torch.optim.nadam._single_tensor_nadam
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        momentum_decay = group["momentum_decay"]
        if group["maximize"]:
            grad = -grad
        param = p._data
        step_t = state["step"]._data
        step_t += 1
        step = float(step_t)
        bias_correction2 = 1 - beta2 ** step
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param *= 1 - lr * weight_decay
            else:
                grad = grad + weight_decay * param
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product = state["mu_product"]._data
        mu_product *= mu
        exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
        _lerp_(exp_avg, grad, 1 - beta1)
        exp_avg_sq *= beta2
        exp_avg_sq += (1 - beta2) * grad * grad
        xp = get_array_module(param)
        denom = xp.sqrt(exp_avg_sq / bias_correction2)
        product = float(mu_product)
        mu_product_next = product * mu_next
        denom += eps
        param += ((-lr * (1.0 - mu) / (1.0 - product)) * grad) / denom
        param += ((-lr * mu_next) / (1.0 - mu_product_next) * exp_avg) / denom
