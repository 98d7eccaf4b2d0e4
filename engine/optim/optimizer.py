"""Optimizer: parameter groups, per-parameter state, zero_grad and state dicts (``torch.optim.Optimizer``).

Updates run on the parameters' raw arrays, outside autograd, and bump each
parameter's version counter so that a graph which saved the old value refuses
to backpropagate through it, as in PyTorch.
"""
import copy
from collections import defaultdict
from itertools import chain

import numpy as np

from ..autograd.state import state as _state
from ..nn.utils import zero_grads
from ..device import get_array_module
from ..tensor import Tensor

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class for all optimizers: holds param_groups (a list of dicts) and state (per parameter)."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {type(params).__name__}")
        param_groups = list(params)
        if not param_groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)

    def add_param_group(self, param_group):
        """Adds a group of parameters, with its own hyperparameters, to param_groups."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
            if p.grad_fn is not None:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        if len({id(p) for p in param_group["params"]}) != len(param_group["params"]):
            import warnings
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error", stacklevel=3)
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Resets the gradients of all optimized tensors (to None by default)."""
        zero_grads(chain.from_iterable(group["params"] for group in self.param_groups), set_to_none)

    def step(self, closure=None):
        """Performs a single optimization step; closure re-evaluates the model and returns the loss."""
        loss = None
        if closure is not None:
            prev = _state.grad_enabled
            _state.grad_enabled = True
            try:
                loss = closure()
            finally:
                _state.grad_enabled = prev
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state.get(p)
                if state is None:
                    state = {}
                    self._init_state(group, p, state)
                self._update(group, p, p.grad._data, state)
                if state:  # SGD without momentum keeps no state, as in PyTorch
                    self.state[p] = state
                p._version[0] += 1
        return loss

    def _init_state(self, group, p, state):
        """Creates a parameter's state on its first step."""

    def _update(self, group, p, grad, state):
        """Updates p._data in place from its gradient array."""
        raise NotImplementedError

    # -------------------------------------------------------------- state dicts
    def state_dict(self):
        """Returns the state as a dict: 'state' keyed by parameter index, and 'param_groups'."""
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        packed_state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": packed_state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Loads an optimizer state from state_dict (as returned by state_dict())."""
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        groups = self.param_groups
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        new_state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                p = id_map[k]
                new_state[p] = {key: _cast_like(p, value, key) for key, value in v.items()}
            else:
                new_state[k] = v
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
        self.state = new_state
        self.param_groups = saved_groups


def _cast_like(param, value, key):
    """A copy of a saved state value on the parameter's device (and in its dtype, except 'step')."""
    if not isinstance(value, Tensor):
        return copy.deepcopy(value)
    value = value.detach().to(param.device)
    if key != "step" and param.is_floating_point() and value.is_floating_point():
        value = value.to(param.dtype)
    return Tensor._make(value._data.copy(), False, None)


def _zeros_like(p):
    return Tensor._make(get_array_module(p._data).zeros_like(p._data), False, None)


def _step_tensor():
    """A fresh step counter: a float32 scalar tensor, as PyTorch keeps it."""
    return Tensor._make(np.zeros((), dtype=np.float32), False, None)


def _lerp_(a, b, weight):
    """a.lerp_(b, weight) with PyTorch's two formulas (chosen by |weight| < 0.5)."""
    if abs(weight) < 0.5:
        a += weight * (b - a)
    else:
        a[...] = b - (b - a) * (1 - weight)
