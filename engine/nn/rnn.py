"""Recurrent layers: RNN, LSTM and GRU cells and their multi-layer, optionally
bidirectional sequence forms, with PyTorch's parameter names (weight_ih_l0,
bias_hh_l1_reverse, ...) and gate orders (LSTM: i, f, g, o; GRU: r, z, n).

Each layer's input projection runs as one matrix product over the whole
sequence; only the hidden-state product is per time step.
"""
import math

from ..ops import elementwise as _ew
from ..ops.creation import empty, zeros
from ..ops.shape import cat, stack
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "RNNBase", "RNN", "LSTM", "GRU"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _rnn_step(h, gi, w_hh, b_hh, nonlinearity):
    """h' = act(gi + h W_hh^T + b_hh), gi being x W_ih^T + b_ih."""
    pre = gi + F.linear(h, w_hh, b_hh)
    return _ew.tanh(pre) if nonlinearity == "tanh" else _ew.relu(pre)


def _lstm_step(h, c, gi, w_hh, b_hh):
    gates = gi + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, -1)
    c = _ew.sigmoid(f) * c + _ew.sigmoid(i) * _ew.tanh(g)
    return _ew.sigmoid(o) * _ew.tanh(c), c


def _gru_step(h, gi, w_hh, b_hh):
    gh = F.linear(h, w_hh, b_hh)
    i_r, i_z, i_n = gi.chunk(3, -1)
    h_r, h_z, h_n = gh.chunk(3, -1)
    r = _ew.sigmoid(i_r + h_r)
    z = _ew.sigmoid(i_z + h_z)
    n = _ew.tanh(i_n + r * h_n)
    return (1 - z) * n + z * h


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

    def _prepare(self, input, hx, name):
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = zeros((input.shape[0], self.hidden_size), dtype=input.dtype, device=input.device)
        elif not batched:
            hx = hx.unsqueeze(0)
        return input, hx, batched

    def _input_gates(self, input):
        return F.linear(input, self.weight_ih, self.bias_ih)


class RNNCell(RNNCellBase):
    """An Elman RNN cell: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, hx, batched = self._prepare(input, hx, "RNNCell")
        h = _rnn_step(hx, self._input_gates(input), self.weight_hh, self.bias_hh, self.nonlinearity)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """A long short-term memory cell; returns (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        h0, c0 = (None, None) if hx is None else hx
        input, h0, batched = self._prepare(input, h0, "LSTMCell")
        if c0 is None:
            c0 = zeros(tuple(h0.shape), dtype=input.dtype, device=input.device)
        elif not batched:
            c0 = c0.unsqueeze(0)
        h, c = _lstm_step(h0, c0, self._input_gates(input), self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """A gated recurrent unit cell."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        input, hx, batched = self._prepare(input, hx, "GRUCell")
        h = _gru_step(hx, self._input_gates(input), self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)


class RNNBase(Module):
    """The multi-layer, optionally bidirectional recurrent layers' common part."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than 0")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than 0")
        if proj_size:
            raise NotImplementedError("LSTM with proj_size > 0 is not supported")
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
        self._flat_weights_names = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else hidden_size * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                names = [f"weight_ih{suffix}", f"weight_hh{suffix}"]
                setattr(self, names[0], Parameter(empty((gates, layer_input), device=device, dtype=dtype)))
                setattr(self, names[1], Parameter(empty((gates, hidden_size), device=device, dtype=dtype)))
                if bias:
                    names += [f"bias_ih{suffix}", f"bias_hh{suffix}"]
                    setattr(self, names[2], Parameter(empty(gates, device=device, dtype=dtype)))
                    setattr(self, names[3], Parameter(empty(gates, device=device, dtype=dtype)))
                self._flat_weights_names.extend(names)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in self._flat_weights_names[i:i + (4 if self.bias else 2)]]
                for i in range(0, len(self._flat_weights_names), 4 if self.bias else 2)]

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
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
        return (getattr(self, f"weight_ih{suffix}"), getattr(self, f"weight_hh{suffix}"),
                getattr(self, f"bias_ih{suffix}") if self.bias else None,
                getattr(self, f"bias_hh{suffix}") if self.bias else None)

    def _initial_state(self, input, hx, batched):
        directions = 2 if self.bidirectional else 1
        n = input.shape[1]
        expected = (self.num_layers * directions, n, self.hidden_size)
        if hx is None:
            return zeros(expected, dtype=input.dtype, device=input.device)
        if not batched:
            if hx.ndim != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.ndim}-D tensor")
            hx = hx.unsqueeze(1)
        elif hx.ndim != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.ndim}-D tensor")
        if tuple(hx.shape) != expected:
            raise RuntimeError(f"Expected hidden size {expected}, got {list(hx.shape)}")
        return hx

    def _run(self, input, states, step):
        """Runs every layer and direction; states[k] is layer-direction k's initial state (a tuple)."""
        directions = 2 if self.bidirectional else 1
        final = []
        layer_input = input
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                w_ih, w_hh, b_ih, b_hh = self._weights(layer, direction)
                gi = F.linear(layer_input, w_ih, b_ih)           # every time step in one product
                state = states[layer * directions + direction]
                steps = range(gi.shape[0] - 1, -1, -1) if direction == 1 else range(gi.shape[0])
                hs = [None] * gi.shape[0]
                for t in steps:
                    state = step(state, gi[t], w_hh, b_hh)
                    hs[t] = state[0]
                outputs.append(stack(hs, 0))
                final.append(state)
            layer_input = outputs[0] if directions == 1 else cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, final

    def _sequence(self, input, name):
        if input.ndim not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D instead")
        batched = input.ndim == 3
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.shape[-1]}")
        return input, batched

    def _output(self, output, batched):
        if not batched:
            return output.squeeze(1)
        return output.transpose(0, 1) if self.batch_first else output

    @staticmethod
    def _hidden_out(h, batched):
        return h if batched else h.squeeze(1)


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
        input, batched = self._sequence(input, "RNN")
        h0 = self._initial_state(input, hx, batched)
        nonlinearity = self.nonlinearity

        def step(state, gi, w_hh, b_hh):
            return (_rnn_step(state[0], gi, w_hh, b_hh, nonlinearity),)
        output, final = self._run(input, [(h,) for h in h0.unbind(0)], step)
        return self._output(output, batched), self._hidden_out(stack([s[0] for s in final], 0), batched)


class LSTM(RNNBase):
    """A multi-layer long short-term memory RNN; returns output, (h_n, c_n)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        input, batched = self._sequence(input, "LSTM")
        if hx is None:
            h0 = self._initial_state(input, None, batched)
            c0 = h0
        else:
            h0 = self._initial_state(input, hx[0], batched)
            c0 = self._initial_state(input, hx[1], batched)

        def step(state, gi, w_hh, b_hh):
            return _lstm_step(state[0], state[1], gi, w_hh, b_hh)
        output, final = self._run(input, list(zip(h0.unbind(0), c0.unbind(0))), step)
        h_n = stack([s[0] for s in final], 0)
        c_n = stack([s[1] for s in final], 0)
        return self._output(output, batched), (self._hidden_out(h_n, batched), self._hidden_out(c_n, batched))


class GRU(RNNBase):
    """A multi-layer gated recurrent unit RNN."""

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        input, batched = self._sequence(input, "GRU")
        h0 = self._initial_state(input, hx, batched)

        def step(state, gi, w_hh, b_hh):
            return (_gru_step(state[0], gi, w_hh, b_hh),)
        output, final = self._run(input, [(h,) for h in h0.unbind(0)], step)
        return self._output(output, batched), self._hidden_out(stack([s[0] for s in final], 0), batched)
