"""Alpha dropout (for SELU networks): dropped elements are set to SELU's negative saturation
value and the result is rescaled so that mean and variance are kept, as ATen's _dropout_impl
does; FeatureAlphaDropout drops whole channels."""
import numpy as np

from ..autograd.state import state
from ..tensor import Tensor
from .dropout import _DropoutNd
from .functional import _check_p, _xp

__all__ = ["AlphaDropout", "FeatureAlphaDropout", "alpha_dropout", "feature_alpha_dropout"]

_ALPHA = 1.7580993408473766   # SELU's scale * alpha: -_ALPHA is its value at -inf


def _alpha_dropout(input, p, training, inplace, feature):
    _check_p(p)
    if p == 0.0 or not training or input.numel() == 0:
        return input
    if feature and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if inplace:
        return input._inplace(_alpha_dropout, p, training, False, feature)
    if p == 1.0:
        return input * 0.0
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2) if feature else tuple(input.shape)
    kept = (state.generator.rng.random(shape) >= p).astype(input._data.dtype)     # {0, 1}, as dropout's mask
    xp = _xp(input._data)
    keep = Tensor._adopt_array(kept if xp is np else xp.asarray(kept), False, None)
    a = 1.0 / ((_ALPHA * _ALPHA * p + 1) * (1 - p)) ** 0.5
    b = (keep - 1.0) * (_ALPHA * a) + _ALPHA * a * p
    return input * (keep * a) + b


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps a SELU network's mean and variance."""
    return _alpha_dropout(input, p, training, inplace, False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels."""
    return _alpha_dropout(input, p, training, inplace, True)


class AlphaDropout(_DropoutNd):
    """Alpha dropout: keeps the self-normalising property of SELU activations."""

    def forward(self, input):
        return alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels."""

    def forward(self, input):
        return feature_alpha_dropout(input, self.p, self.training)


