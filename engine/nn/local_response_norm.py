"""Local response normalisation across channels (AlexNet): x / (k + alpha * mean of x^2 over
``size`` neighbouring channels)^beta, written as PyTorch writes it (zero padding, an average
over the window) from differentiable engine ops."""
from ..ops import elementwise as _ew
from . import functional as F
from .module import Module

__all__ = ["LocalResponseNorm", "local_response_norm"]


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Normalises each channel by the mean square of its ``size`` neighbouring channels."""
    dim = input.ndim
    if dim < 3:
        raise ValueError("Expected 3D or higher dimensionality                          input "
                         f"(got {dim} dimensions)")
    if input.numel() == 0:
        return input
    c = input.shape[1]
    squares = input * input
    # the window reaches size // 2 channels back and (size - 1) // 2 forward; past c - 1 either
    # way it reads only zero padding, so a window wider than the channels costs no more
    before, after = min(size // 2, c - 1), min((size - 1) // 2, c - 1)
    padded = F.pad(squares, [0, 0] * (dim - 2) + [before, after])
    window = padded.narrow(1, 0, c)
    for j in range(1, before + after + 1):
        window = window + padded.narrow(1, j, c)
    div = _ew.pow(window * (alpha / size) + k, beta)
    return input / div


class LocalResponseNorm(Module):
    """Local response normalisation over neighbouring channels."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
