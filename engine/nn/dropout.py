"""Dropout layers: active in training mode, the identity in evaluation mode."""
from . import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d"]


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zeroes elements with probability p in training, scaling the others by 1 / (1 - p)."""

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of (N, C, L) or unbatched (C, L) inputs with probability p in training."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of (N, C, H, W) inputs with probability p in training (other ranks: see F.dropout2d)."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of (N, C, D, H, W) or unbatched (C, D, H, W) inputs with probability p in training."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)
