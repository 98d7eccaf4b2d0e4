"""RMSprop: divide by a running root mean square of the gradients."""
from ..device import get_array_module
from .optimizer import Optimizer, _lerp_, _step_tensor, _zeros_like

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Implements RMSprop, optionally centered and with momentum, as ``torch.optim.RMSprop``."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = _step_tensor()
        state["square_avg"] = _zeros_like(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = _zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = _zeros_like(p)

    def _update(self, group, p, grad, state):
        # the operations and their order follow torch.optim.rmsprop._single_tensor_rmsprop
        lr, alpha, eps, momentum = group["lr"], group["alpha"], group["eps"], group["momentum"]
        if group["maximize"]:
            grad = -grad
        state["step"]._data += 1
        param = p._data
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * param
        xp = get_array_module(param)
        square_avg = state["square_avg"]._data
        square_avg *= alpha
        square_avg += (1 - alpha) * grad * grad
        if group["centered"]:
            grad_avg = state["grad_avg"]._data
            _lerp_(grad_avg, grad, 1 - alpha)
            avg = xp.sqrt(square_avg + (-1 * grad_avg) * grad_avg)
        else:
            avg = xp.sqrt(square_avg)
        avg += eps
        if momentum > 0:
            buf = state["momentum_buffer"]._data
            buf *= momentum
            buf += grad / avg
            param += -lr * buf
        else:
            param += (-lr * grad) / avg

    _foreach_keys = ("square_avg",)

    def _foreach_state_keys(self, group):
        keys = ("square_avg",)
        if group["momentum"] > 0:
            keys += ("momentum_buffer",)
        if group["centered"]:
            keys += ("grad_avg",)
        return keys

    def _foreach_update(self, group, params, layout):
        # _update over the whole group: the same operations, in the same order, on flat arrays
        lr, alpha, eps, momentum = group["lr"], group["alpha"], group["eps"], group["momentum"]
        xp = layout.xp
        grad = self._flat(layout, [p.grad._data for p in params])
        if group["maximize"]:
            grad = -grad
        for p in params:
            self.state[p]["step"]._data += 1
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * self._flat(layout, [p._data for p in params])
        flat = layout.flat
        square_avg = flat["square_avg"]
        square_avg *= alpha
        square_avg += (1 - alpha) * grad * grad
        if group["centered"]:
            grad_avg = flat["grad_avg"]
            _lerp_(grad_avg, grad, 1 - alpha)
            avg = xp.sqrt(square_avg + (-1 * grad_avg) * grad_avg)
        else:
            avg = xp.sqrt(square_avg)
        avg += eps
        if momentum > 0:
            buf = flat["momentum_buffer"]
            buf *= momentum
            buf += grad / avg
            self._apply_flat(layout, params, -lr * buf)
        else:
            self._apply_flat(layout, params, (-lr * grad) / avg)
