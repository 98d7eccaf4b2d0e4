"""More activations: PReLU (a learned slope), Hardshrink, Softshrink, RReLU (a random slope in
training) and Softmax2d, as layers and functions. Each is a composition of engine ops, so its
gradients of every order come from rules that are already tested; where the derivative has a
kink the composition picks PyTorch's side (0 at the shrink thresholds, the slope at 0)."""
import numpy as np

from ..autograd.state import state
from ..ops import elementwise as _ew
from ..ops.creation import empty
from ..tensor import Tensor
from . import init
from .functional import _xp, softmax
from .module import Module
from .parameter import Parameter

__all__ = ["PReLU", "Hardshrink", "Softshrink", "RReLU", "Softmax2d", "prelu", "hardshrink", "softshrink", "rrelu",
           "rrelu_"]


def prelu(input, weight):
    """max(0, x) + weight * min(0, x), weight one slope or one per channel (dim 1)."""
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    n = weight.numel()
    channels = input.shape[1] if input.ndim >= 2 else 1
    if n != 1 and n != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = {n} "
                           f"and channel size = {channels}.")
    if n != 1 and input.ndim >= 2:
        weight = weight.reshape((n,) + (1,) * (input.ndim - 2))
    elif weight.ndim and input.ndim == 0:
        weight = weight.reshape(())
    return _ew.where(input > 0, input, weight * input)


def _check_lambda(lambd, input):
    if lambd < 0:
        dtype = str(input.dtype).replace("torch.", "")
        names = {"float32": ("Float", "3.40282e+38"), "float64": ("Double", "1.79769e+308"),
                 "float16": ("Half", "65504")}
        name, top = names.get(dtype, (dtype, "inf"))
        raise RuntimeError(f"lambda must be in range [0, {top}] for input dtype {name}, but found {lambd:g}")


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0."""
    return _ew.where((input > lambd) | (input < -lambd), input, 0.0)


def softshrink(input, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, else 0."""
    _check_lambda(lambd, input)
    return _ew.where(input > lambd, input - lambd, _ew.where(input < -lambd, input + lambd, 0.0))


def _rrelu_slopes(input, lower, upper, training):
    if not training:
        return (lower + upper) / 2
    data = input._data
    slopes = state.generator.rng.uniform(lower, upper, data.shape).astype(data.dtype)
    xp = _xp(data)
    return Tensor._adopt_array(slopes if xp is np else xp.asarray(slopes), False, None)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """x for x > 0, else a * x: a ~ U(lower, upper) per element in training, (lower + upper) / 2 in eval."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if inplace:
        return input._inplace(rrelu, lower, upper, training)
    return _ew.where(input > 0, input, input * _rrelu_slopes(input, lower, upper, training))


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place rrelu."""
    return rrelu(input, lower, upper, training, inplace=True)


class PReLU(Module):
    """max(0, x) + a * min(0, x) with a learned a: one, or one per channel (num_parameters)."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Hardshrink(Module):
    """x where |x| > lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """Shrinks x towards 0 by lambd, to 0 inside [-lambd, lambd]."""

    def forward(self, input):
        return softshrink(input, self.lambd)


class RReLU(Module):
    """Randomized leaky ReLU: a random negative slope in [lower, upper] in training, their mean in eval."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")


class Softmax2d(Module):
    """Softmax over the channels at each spatial position of a (N, C, H, W) or (C, H, W) input."""

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return softmax(input, -3)


# Tensor methods, as PyTorch's x.hardshrink(lambd) and x.prelu(weight)
Tensor.hardshrink = lambda self, lambd=0.5: hardshrink(self, lambd)
Tensor.prelu = lambda self, weight: prelu(self, weight)
