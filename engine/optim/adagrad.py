"""Adagrad: per-coordinate learning rates from the sum of squared gradients."""
from ..device import get_array_module
from ..tensor import Tensor
from .optimizer import Optimizer, _step_tensor

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Implements the Adagrad algorithm, as ``torch.optim.Adagrad``."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        # Adagrad creates its state up front, as PyTorch does
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(group, p, self.state[p])

    def _init_state(self, group, p, state):
        state["step"] = _step_tensor()
        xp = get_array_module(p._data)
        state["sum"] = Tensor._adopt_array(xp.full_like(p._data, group["initial_accumulator_value"]), False, None)

    def _update(self, group, p, grad, state):
        # the operations and their order follow torch.optim.adagrad._single_tensor_adagrad
        step_t = state["step"]._data
        step_t += 1
        step = float(step_t)
        if group["maximize"]:
            grad = -grad
        param = p._data
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * param
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        total = state["sum"]._data
        total += grad * grad
        std = get_array_module(param).sqrt(total)
        std += group["eps"]
        param += (-clr * grad) / std

    _foreach_keys = ("sum",)

    def _foreach_update(self, group, params, layout):
        # _update over the whole group: the same operations, in the same order, on flat arrays
        states = [self.state[p] for p in params]
        for st in states:
            st["step"]._data += 1
        step = float(states[0]["step"]._data)
        grad = self._flat(layout, [p.grad._data for p in params])
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * self._flat(layout, [p._data for p in params])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        total = layout.flat["sum"]
        total += grad * grad
        std = layout.xp.sqrt(total)
        std += group["eps"]
        self._apply_flat(layout, params, (-clr * grad) / std)
