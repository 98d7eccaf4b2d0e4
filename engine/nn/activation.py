"""Activation layers: each holds its settings and calls the functional form."""
from . import functional as F
from .module import Module

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish", "Softplus",
           "Softsign", "Sigmoid", "Tanh", "Hardtanh", "Hardsigmoid", "Hardswish", "LogSigmoid", "Tanhshrink",
           "Threshold", "GLU", "Softmax", "LogSoftmax", "Softmin"]


class _Inplace(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class ReLU(_Inplace):
    """Applies max(0, x) element-wise."""

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)


class ReLU6(_Inplace):
    """Applies min(max(0, x), 6) element-wise."""

    def forward(self, input):
        return F.relu6(input, inplace=self.inplace)


class SELU(_Inplace):
    """Applies the scaled exponential linear unit element-wise."""

    def forward(self, input):
        return F.selu(input, inplace=self.inplace)


class SiLU(_Inplace):
    """Applies x * sigmoid(x) element-wise."""

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)


class Mish(_Inplace):
    """Applies x * tanh(softplus(x)) element-wise."""

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)


class Hardsigmoid(_Inplace):
    """Applies relu6(x + 3) / 6 element-wise."""

    def forward(self, input):
        return F.hardsigmoid(input, inplace=self.inplace)


class Hardswish(_Inplace):
    """Applies x * relu6(x + 3) / 6 element-wise."""

    def forward(self, input):
        return F.hardswish(input, inplace=self.inplace)


class LeakyReLU(Module):
    """Applies max(0, x) + negative_slope * min(0, x) element-wise."""

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ELU(Module):
    """Applies x if x > 0 else alpha * (exp(x) - 1) element-wise."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class CELU(ELU):
    """Applies max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) element-wise."""

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class GELU(Module):
    """Applies the Gaussian Error Linear Unit (exact, or its tanh approximation)."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    """Applies log(1 + exp(beta * x)) / beta element-wise."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    """Clamps each element to [min_val, max_val]."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class Threshold(Module):
    """Replaces each element not greater than threshold by value."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


def _stateless(name, fn, doc):
    def forward(self, input):
        return fn(input)
    return type(name, (Module,), {"forward": forward, "__doc__": doc})


Sigmoid = _stateless("Sigmoid", F.sigmoid, "Applies 1 / (1 + exp(-x)) element-wise.")
Tanh = _stateless("Tanh", F.tanh, "Applies the hyperbolic tangent element-wise.")
Softsign = _stateless("Softsign", F.softsign, "Applies x / (1 + |x|) element-wise.")
LogSigmoid = _stateless("LogSigmoid", F.logsigmoid, "Applies log(sigmoid(x)) element-wise.")
Tanhshrink = _stateless("Tanhshrink", F.tanhshrink, "Applies x - tanh(x) element-wise.")


class GLU(Module):
    """Gated linear unit: a * sigmoid(b) for the halves a, b of the input along dim."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class _SoftmaxBase(Module):
    _fn = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return type(self)._fn(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(_SoftmaxBase):
    """Applies softmax along dim, rescaling elements into [0, 1] summing to 1."""
    _fn = staticmethod(F.softmax)


class LogSoftmax(_SoftmaxBase):
    """Applies log(softmax(x)) along dim."""
    _fn = staticmethod(F.log_softmax)


class Softmin(_SoftmaxBase):
    """Applies softmax(-x) along dim."""
    _fn = staticmethod(F.softmin)
