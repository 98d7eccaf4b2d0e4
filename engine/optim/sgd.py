"""Stochastic gradient descent, with momentum, dampening, Nesterov momentum and weight decay."""
from ..tensor import Tensor
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """Implements stochastic gradient descent (optionally with momentum), as ``torch.optim.SGD``."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        super().__init__(params, defaults)

    def _update(self, group, p, grad, state):
        lr, momentum, weight_decay = group["lr"], group["momentum"], group["weight_decay"]
        if group["maximize"]:
            grad = -grad
        if weight_decay != 0:
            grad = grad + weight_decay * p._data
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = Tensor._adopt_array(grad.copy(), False, None)
            else:
                b = buf._data
                b *= momentum
                b += (1 - group["dampening"]) * grad
            grad = grad + momentum * buf._data if group["nesterov"] else buf._data
        p._data -= lr * grad

    _foreach_keys = ("momentum_buffer",)

    def _foreach_state_keys(self, group):
        return ("momentum_buffer",) if group["momentum"] != 0 else ()

    def _foreach_lazy_keys(self, group):
        return True

    def _foreach_update(self, group, params, layout):
        # _update over the whole group: the same operations on the concatenated arrays
        lr, momentum, weight_decay = group["lr"], group["momentum"], group["weight_decay"]
        grad = self._flat(layout, [p.grad._data for p in params])
        if group["maximize"]:
            grad = -grad
        if weight_decay != 0:
            grad = grad + weight_decay * self._flat(layout, [p._data for p in params])
        if momentum != 0:
            buf = layout.flat.get("momentum_buffer")
            if buf is None:
                layout.flat["momentum_buffer"] = buf = grad.copy()
                self._bind_flat(layout, params, [self.state.get(p, {}) for p in params])
            else:
                buf *= momentum
                buf += (1 - group["dampening"]) * grad
            grad = grad + momentum * buf if group["nesterov"] else buf
        self._apply_flat(layout, params, lr * grad, subtract=True)

