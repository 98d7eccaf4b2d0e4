"""Recurrent layers: RNN, LSTM and GRU cells and their multi-layer, optionally
bidirectional sequence forms, with PyTorch's parameter names (weight_ih_l0,
bias_hh_l1_reverse, weight_hr_l0 with proj_size, ...) and gate orders (LSTM: i, f,
g, o; GRU: r, z, n).

Each layer and direction runs its whole sequence, padded or packed, as one fused op
(``engine/ops/recurrent.py``: one backward rule, back-propagation through time on
arrays), and each cell step is one op. Around them the graph is PyTorch's: the
initial states are selected per layer (SelectBackward0), the directions
concatenated (CatBackward0), the final states stacked (StackBackward0), dropout
between layers in training only, a transpose for batch_first, and the states of a
packed batch put back in the caller's order (IndexSelectBackward0).
"""
import math

from ..ops.creation import empty, zeros
from ..ops.recurrent import recurrent_cell, recurrent_layer
from ..ops.shape import cat, stack
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .utils.rnn import PackedSequence, _ints

__all__ = ["RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "RNNBase", "RNN", "LSTM", "GRU"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), device=device, dtype=dtype))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _prepare(self, input, states, name):
        """The input and states as batched 2-D tensors (zeros where a state is None), checked
        as PyTorch checks them; and whether the input was batched."""
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        out = []
        for k, h in enumerate(states):
            if h is None:
                h = zeros((input.shape[0], self.hidden_size), dtype=input.dtype, device=input.device)
            else:
                if not isinstance(h, Tensor):
                    raise TypeError(f"{name}: expected hx to be a Tensor, got {type(h).__name__}")
                if h.ndim != (2 if batched else 1):
                    which = "hx" if len(states) == 1 else f"hx[{k}]"
                    raise ValueError(f"{name}: Expected {which} to be {2 if batched else 1}D, got {h.ndim}D instead")
                if not batched:
                    h = h.unsqueeze(0)
                if h.shape[0] != input.shape[0]:
                    raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{k} batch size "
                                       f"{h.shape[0]}")
                if h.shape[1] != self.hidden_size:
                    raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {h.shape[1]}, expected "
                                       f"{self.hidden_size}")
            out.append(h)
        for t, w in ((input, self.weight_ih), (out[0], self.weight_hh)):   # the cell's two matrix products
            if t._data.dtype != w._data.dtype:
                raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {F._scalar_type_name(t)} and "
                                   f"{F._scalar_type_name(w)}")
        return input, out, batched


class RNNCell(RNNCellBase):
    """An Elman RNN cell: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu), one op."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, (hx,), batched = self._prepare(input, (hx,), "RNNCell")
        h = recurrent_cell("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", input, hx, None,
                           self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """A long short-term memory cell, one op; returns (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        if hx is not None and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
            raise TypeError("LSTMCell: expected hx to be a tuple (h_0, c_0)")
        input, (h0, c0), batched = self._prepare(input, (None, None) if hx is None else tuple(hx), "LSTMCell")
        h, c = recurrent_cell("LSTM", input, h0, c0, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """A gated recurrent unit cell, one op."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        input, (hx,), batched = self._prepare(input, (hx,), "GRUCell")
        h = recurrent_cell("GRU", input, hx, None, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return h if batched else h.squeeze(0)


class RNNBase(Module):
    """The multi-layer, optionally bidirectional recurrent layers' common part."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than 0")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than 0")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        gates = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        real_hidden = proj_size or hidden_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = [(f"weight_ih{suffix}", (gates, layer_input)), (f"weight_hh{suffix}", (gates, real_hidden))]
                if bias:
                    shapes += [(f"bias_ih{suffix}", (gates,)), (f"bias_hh{suffix}", (gates,))]
                if proj_size:
                    shapes.append((f"weight_hr{suffix}", (proj_size, hidden_size)))
                for name, shape in shapes:
                    setattr(self, name, Parameter(empty(shape, device=device, dtype=dtype)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self):
        """Nothing to do: the weights are used where they are (cuDNN's packing has no counterpart)."""

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        per = (4 if self.bias else 2) + (1 if self.proj_size else 0)
        names = self._flat_weights_names
        return [[getattr(self, n) for n in names[i:i + per]] for i in range(0, len(names), per)]

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _weights(self, layer, direction):
        suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
        get = self._parameters.get
        return (get(f"weight_ih{suffix}"), get(f"weight_hh{suffix}"), get(f"bias_ih{suffix}"),
                get(f"bias_hh{suffix}"), get(f"weight_hr{suffix}"))

    def _states(self, hx, batched, batch, x, name):
        """The initial states (h0[, c0]) as (L * D, B, H) tensors, or None for zeros; checked."""
        lstm = self.mode == "LSTM"
        if hx is None:
            return (None, None) if lstm else (None,)
        if lstm:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError(f"{name}: expected hx to be a tuple (h_0, c_0), got {type(hx).__name__}")
            states = tuple(hx)
        else:
            states = (hx,)
        for s in states:
            if not isinstance(s, Tensor):
                raise TypeError(f"{name}: expected hx to be a Tensor, got {type(s).__name__}")
        want = 3 if batched else 2
        if any(s.ndim != want for s in states):
            kind = "batched 3-D" if batched else "unbatched 2-D"
            if lstm:
                got = ", ".join(f"{s.ndim}-D" for s in states)
                raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got ({got}) tensors")
            raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got {states[0].ndim}-D tensor")
        if not batched:
            states = tuple(s.unsqueeze(1) for s in states)
        directions = 2 if self.bidirectional else 1
        expected = [(self.num_layers * directions, batch, self.proj_size or self.hidden_size),
                    (self.num_layers * directions, batch, self.hidden_size)]
        for k, s in enumerate(states):
            if tuple(s.shape) != expected[k]:
                what = f"hidden[{k}]" if lstm else "hidden"
                raise RuntimeError(f"Expected {what} size {expected[k]}, got {list(s.shape)}")
            if s.dtype != x.dtype:
                raise RuntimeError(f"Input and hidden tensors are not the same dtype, found input tensor with "
                                   f"{x.dtype} and hidden tensor with {s.dtype}")
        return states

    def _forward(self, input, hx, name):
        lstm = self.mode == "LSTM"
        packed = isinstance(input, PackedSequence)
        sorted_indices = unsorted_indices = batch_sizes = None
        if packed:
            x, sizes, sorted_indices, unsorted_indices = input
            if x.ndim != 2:
                raise RuntimeError(f"input must have 2 dimensions, got {x.ndim}")
            batch_sizes = _ints(sizes).tolist()
            batch = batch_sizes[0]
            if sum(batch_sizes) != x.shape[0]:
                raise RuntimeError(f"{name}: the packed batch sizes add up to {sum(batch_sizes)} rows, but the "
                                   f"packed data has {x.shape[0]}")
            batched = True
        else:
            if not isinstance(input, Tensor):
                raise TypeError(f"{name}: expected input to be a Tensor or PackedSequence, got "
                                f"{type(input).__name__}")
            if input.ndim not in (2, 3):
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D instead")
            batched = input.ndim == 3
            x = input if batched else input.unsqueeze(1)
            if batched and self.batch_first:
                x = x.transpose(0, 1)
            batch = x.shape[1]
        weight = self._weights(0, 0)[0]
        if x.dtype != weight.dtype:
            raise ValueError(f"RNN input dtype ({x.dtype}) does not match weight dtype ({weight.dtype}). Convert "
                             f"input: input.to({weight.dtype}), or convert model: model.to({x.dtype})")
        if x.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{x.shape[-1]}")
        states = self._states(hx, batched, batch, x, name)
        if sorted_indices is not None:
            states = tuple(s if s is None else s.index_select(1, sorted_indices) for s in states)
        directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size or self.hidden_size
        finals = [[] for _ in states]
        layer_input = x
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                k = layer * directions + direction
                w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, direction)
                h0 = states[0][k] if states[0] is not None else \
                    zeros((batch, real_hidden), dtype=x.dtype, device=x.device)
                c0 = None
                if lstm:
                    c0 = states[1][k] if states[1] is not None else \
                        zeros((batch, self.hidden_size), dtype=x.dtype, device=x.device)
                out = recurrent_layer(self.mode, layer_input, w_ih, w_hh, b_ih, b_hh, h0, c0, w_hr,
                                      batch_sizes=batch_sizes, reverse=direction == 1)
                outputs.append(out[0])
                for s, value in zip(finals, out[1:]):
                    s.append(value)
            layer_input = outputs[0] if directions == 1 else cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        finals = [stack(s, 0) for s in finals]
        if packed:
            if unsorted_indices is not None:
                finals = [s.index_select(1, unsorted_indices) for s in finals]
            output = PackedSequence(layer_input, input.batch_sizes, sorted_indices, unsorted_indices)
        elif not batched:
            output = layer_input.squeeze(1)
            finals = [s.squeeze(1) for s in finals]
        else:
            output = layer_input.transpose(0, 1) if self.batch_first else layer_input
        return output, (tuple(finals) if lstm else finals[0])


class RNN(RNNBase):
    """A multi-layer Elman RNN with tanh or ReLU non-linearity."""

    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if len(args) > 3:  # RNN(input_size, hidden_size, num_layers, nonlinearity, ...)
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = nonlinearity

    def extra_repr(self):
        s = super().extra_repr()
        return s + (f", nonlinearity={self.nonlinearity}" if self.nonlinearity != "tanh" else "")

    def forward(self, input, hx=None):
        return self._forward(input, hx, "RNN")


class LSTM(RNNBase):
    """A multi-layer long short-term memory RNN; returns output, (h_n, c_n)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "LSTM")


class GRU(RNNBase):
    """A multi-layer gated recurrent unit RNN."""

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "GRU")
