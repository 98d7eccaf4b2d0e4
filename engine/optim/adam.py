"""Adam and AdamW (Adam with decoupled weight decay)."""
from ..device import get_array_module
from .optimizer import Optimizer, _lerp_, _step_tensor, _zeros_like

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Implements the Adam algorithm, as ``torch.optim.Adam``."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
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
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable,
                        fused=fused, decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = _step_tensor()
        state["exp_avg"] = _zeros_like(p)
        state["exp_avg_sq"] = _zeros_like(p)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = _zeros_like(p)

    def _update(self, group, p, grad, state):
        # the operations and their order follow torch.optim.adam._single_tensor_adam
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        if group["maximize"]:
            grad = -grad
        param = p._data
        step_t = state["step"]._data
        step_t += 1
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param *= 1 - lr * weight_decay
            else:
                grad = grad + weight_decay * param
        exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
        _lerp_(exp_avg, grad, 1 - beta1)
        exp_avg_sq *= beta2
        exp_avg_sq += (1 - beta2) * grad * grad
        step = float(step_t)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        xp = get_array_module(param)
        second = exp_avg_sq
        if group["amsgrad"]:
            second = state["max_exp_avg_sq"]._data
            xp.maximum(second, exp_avg_sq, out=second)
        denom = xp.sqrt(second) / bias_correction2_sqrt
        denom += eps
        param += (-step_size * exp_avg) / denom


    def _foreach_state_keys(self, group):
        keys = ("exp_avg", "exp_avg_sq")
        return keys + ("max_exp_avg_sq",) if group["amsgrad"] else keys

    _foreach_keys = ("exp_avg", "exp_avg_sq")

    def _foreach_update(self, group, params, layout):
        # _update over the whole group: the same operations, in the same order, on flat arrays
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        xp = layout.xp
        grad = self._flat(layout, [p.grad._data for p in params])
        if group["maximize"]:
            grad = -grad
        states = [self.state[p] for p in params]
        for st in states:
            st["step"]._data += 1
        decay = None
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                decay = 1 - lr * weight_decay
            else:
                grad = grad + weight_decay * self._flat(layout, [p._data for p in params])
        flat = layout.flat
        exp_avg, exp_avg_sq = flat["exp_avg"], flat["exp_avg_sq"]
        _lerp_(exp_avg, grad, 1 - beta1)
        exp_avg_sq *= beta2
        exp_avg_sq += (1 - beta2) * grad * grad
        step = float(states[0]["step"]._data)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        second = exp_avg_sq
        if group["amsgrad"]:
            second = flat["max_exp_avg_sq"]
            xp.maximum(second, exp_avg_sq, out=second)
        denom = xp.sqrt(second) / bias_correction2_sqrt
        denom += eps
        self._apply_flat(layout, params, (-step_size * exp_avg) / denom, scale=decay)


class AdamW(Adam):
    """Implements AdamW: Adam with weight decay applied to the parameters directly (decoupled)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
