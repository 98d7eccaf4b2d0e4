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


# the flat (foreach) update runs where the group's parameters average at most this many elements:
# it saves a few array operations per parameter (~5 us each) and costs a copy of the gradients,
# which is the larger cost for big matrices (MLP 784-512-512-10 SGD: 0.13 ms per parameter, 0.22 flat;
# the transformer block's AdamW: 0.23 -> 0.18 ms)
FOREACH_MEAN_SIZE = 32768


def _numeric_group(group):
    """The group as the update rules read it: a one-element tensor hyperparameter (PyTorch takes
    ``lr=torch.tensor(0.01)``, and a scheduler may change it in place) as its current number."""
    if not any(isinstance(v, Tensor) for k, v in group.items() if k != "params"):
        return group
    return {k: v.item() if k != "params" and isinstance(v, Tensor) else v for k, v in group.items()}


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
            rule = _numeric_group(group)
            if self._foreach_keys is not None and group.get("foreach") is not False:
                params = [p for p in group["params"] if p.grad is not None]
                flat = None
                if len(params) > 1 and sum(p._data.size for p in params) <= FOREACH_MEAN_SIZE * len(params):
                    flat = self._flat_state(group, params)
                if flat is not None:
                    self._foreach_update(rule, params, flat)
                    for p in params:
                        p._version[0] += 1
                    continue
                self._flats.pop(id(group), None)   # a per-parameter step: the flat layout is rebuilt next time
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state.get(p)
                if state is None:
                    state = {}
                    self._init_state(group, p, state)
                self._update(rule, p, p.grad._data, state)
                if state:  # SGD without momentum keeps no state, as in PyTorch
                    self.state[p] = state
                p._version[0] += 1
        return loss

    def _init_state(self, group, p, state):
        """Creates a parameter's state on its first step."""

    # -------------------------------------------------------------- foreach: the whole group at once
    # PyTorch's foreach idea on NumPy: a group's per-parameter state tensors are views of one flat
    # buffer per state name, so an update is a handful of array operations over the whole group
    # (the gradients concatenated once) instead of a handful per parameter. Each operation is the
    # per-parameter rule's own, elementwise and in the same order, so the results are identical.
    # Subclasses that support it name their state buffers (a tuple, () for none) and write
    # ``_foreach_update``; groups that do not fit (mixed dtypes or devices, differing step counts,
    # one parameter) take the per-parameter path.
    _foreach_keys = None

    @property
    def _flats(self):
        flats = self.__dict__.get("_flat_layouts")
        if flats is None:
            flats = self.__dict__["_flat_layouts"] = {}
        return flats

    def _foreach_state_keys(self, group):
        return self._foreach_keys

    def _flat_state(self, group, params):
        """The group's flat layout for these parameters (built or adopted now), or None where the
        per-parameter path must run."""
        keys = self._foreach_state_keys(group)
        cached = self._flats.get(id(group))
        ids = tuple(map(id, params))
        if cached is not None and cached.group is group and cached.ids == ids:
            if not cached.flat and not keys:
                return cached
            states = [self.state.get(p) for p in params]
            if all(st is not None and all(st.get(k) is not None and st[k]._data is v
                                          for k, v in zip(cached.flat, views))
                   for st, views in zip(states, cached.views)):
                return cached
        first = params[0]._data
        array_type, dtype = type(first), first.dtype
        if dtype.kind != "f":
            return None
        for p in params:
            if type(p._data) is not array_type or p._data.dtype != dtype or p.grad._data.dtype != dtype \
                    or type(p.grad._data) is not array_type or getattr(p.grad, "is_sparse", False):
                return None
        states = [self.state.get(p) for p in params]
        fresh = [st is None or not st for st in states]
        if all(fresh):
            states = []
            for p in params:
                st = {}
                self._init_state(group, p, st)
                states.append(st)
        elif any(fresh):
            return None
        if any(any(st.get(k) is None for k in keys) for st in states):
            if not (all(fresh) and self._foreach_lazy_keys(group)):
                return None
        if "step" in states[0] and len({float(st["step"]._data) for st in states}) != 1:
            return None
        xp = get_array_module(first)
        offsets = np.cumsum([0] + [p._data.size for p in params]).tolist()
        layout = _FlatLayout(group, ids, offsets, [p._data.shape for p in params], xp)
        for k in keys:
            if states[0].get(k) is None:
                continue   # made by the first update (SGD's momentum buffer)
            layout.flat[k] = xp.concatenate([st[k]._data.reshape(-1) for st in states])
        self._bind_flat(layout, params, states)
        self._flats[id(group)] = layout
        return layout

    def _foreach_lazy_keys(self, group):
        """Whether state buffers that do not exist yet are made by the first update."""
        return False

    def _bind_flat(self, layout, params, states):
        """Each parameter's state entries become views of the flat buffers."""
        offsets, shapes = layout.offsets, layout.shapes
        views = []
        for i, (p, st) in enumerate(zip(params, states)):
            mine = []
            for k, flat in layout.flat.items():
                view = flat[offsets[i]:offsets[i + 1]].reshape(shapes[i])
                st[k] = Tensor._adopt_array(view, False, None)
                mine.append(view)
            views.append(mine)
            if st:   # SGD without momentum keeps no state, as in PyTorch
                self.state[p] = st
        layout.views = views

    def _flat(self, layout, arrays):
        """One flat array of the given per-parameter arrays (a copy)."""
        return layout.xp.concatenate([a.reshape(-1) for a in arrays])

    def _apply_flat(self, layout, params, update, subtract=False, scale=None):
        """Adds (or subtracts) each parameter's slice of the flat ``update`` to it, after scaling
        the parameter by ``scale`` where given."""
        offsets, shapes = layout.offsets, layout.shapes
        for i, p in enumerate(params):
            data = p._data
            if scale is not None:
                data *= scale
            piece = update[offsets[i]:offsets[i + 1]].reshape(shapes[i])
            if subtract:
                data -= piece
            else:
                data += piece

    def _foreach_update(self, group, params, layout):
        raise NotImplementedError

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


class _FlatLayout:
    """A group's flat state: the buffers by state name, each parameter's offset and shape, and
    the views its state tensors hold. Slots only, so the session-bytes walk does not descend into
    it (the buffers are counted through the state tensors, whose base they are)."""
    __slots__ = ("group", "ids", "offsets", "shapes", "xp", "flat", "views")

    def __init__(self, group, ids, offsets, shapes, xp):
        self.group, self.ids, self.offsets, self.shapes, self.xp = group, ids, offsets, shapes, xp
        self.flat = {}
        self.views = []


def _cast_like(param, value, key):
    """A copy of a saved state value on the parameter's device (and in its dtype, except 'step')."""
    if not isinstance(value, Tensor):
        return copy.deepcopy(value)
    value = value.detach().to(param.device)
    if key != "step" and param.is_floating_point() and value.is_floating_point():
        value = value.to(param.dtype)
    return Tensor._adopt_array(value._data.copy(), False, None)


def _zeros_like(p):
    return Tensor._adopt_array(get_array_module(p._data).zeros_like(p._data), False, None)


def _step_tensor():
    """A fresh step counter: a float32 scalar tensor, as PyTorch keeps it."""
    return Tensor._adopt_array(np.zeros((), dtype=np.float32), False, None)


def _lerp_(a, b, weight):
    """a.lerp_(b, weight) with PyTorch's two formulas (chosen by |weight| < 0.5)."""
    if abs(weight) < 0.5:
        a += weight * (b - a)
    else:
        a[...] = b - (b - a) * (1 - weight)
