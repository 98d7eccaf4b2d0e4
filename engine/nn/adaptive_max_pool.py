"""Adaptive max pooling: each output cell is the maximum over the input window PyTorch gives
it (rows floor(i * H / oh) to ceil((i + 1) * H / oh)), with the flat index of the maximum.

The maxima are found on arrays (the first in the window's row-major order, as ATen), then
read with a gather, so the gradient goes to that element and every order of gradient comes
from gather's rule."""
import numpy as np

from ..limits import check_elements
from ..tensor import Tensor
from .functional import _xp
from .module import Module

__all__ = ["AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "adaptive_max_pool1d", "adaptive_max_pool2d"]


def _windows(in_size, out_size):
    """(out_size, K) input positions of each output cell's window, short windows padded by
    repeating their last position (a repeat never wins over its first occurrence)."""
    i = np.arange(out_size)
    starts = (i * in_size) // out_size
    ends = -((-(i + 1) * in_size) // out_size)
    k = int((ends - starts).max()) if out_size else 1
    return np.minimum(starts[:, None] + np.arange(k), (ends - 1)[:, None])


def _adaptive_max(x, sizes):
    """x (N, C, H, W) tensor, sizes (oh, ow): (pooled, flat int64 indices into H * W)."""
    n, c, h, w = x.shape
    oh, ow = sizes
    check_elements((n, c, oh, ow), "adaptive_max_pool result")
    rows, cols = _windows(h, oh), _windows(w, ow)
    check_elements((n, c, oh * ow, rows.shape[1] * cols.shape[1]), "adaptive_max_pool windows")
    cand = (rows[:, None, :, None] * w + cols[None, :, None, :]).reshape(oh * ow, -1)   # (oh*ow, K)
    data = x._data.reshape(n, c, h * w)
    xp = _xp(data)
    cand = xp.asarray(cand) if xp is not np else cand
    if cand.size and data.size:
        best = data[:, :, cand].argmax(-1)                                      # (N, C, oh*ow)
        flat = xp.take_along_axis(xp.broadcast_to(cand, (n, c) + cand.shape), best[..., None], -1)[..., 0]
    else:
        flat = xp.zeros((n, c, oh * ow), dtype=np.int64)
    flat = Tensor._adopt_array(flat.astype(np.int64), False, None)
    out = x.reshape(n, c, h * w).gather(2, flat)
    return out.reshape(n, c, oh, ow), flat.reshape(n, c, oh, ow)


def _output_sizes(output_size, spatial, nd):
    sizes = tuple(output_size) if isinstance(output_size, (list, tuple)) else (output_size,) * nd
    if len(sizes) != nd:
        raise ValueError(f"adaptive_max_pool{nd}d: output_size must be {nd}")
    return tuple(s if o is None else int(o) for o, s in zip(sizes, spatial))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-d adaptive max pooling over (N, C, H, W) or (C, H, W) inputs."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}")
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    out, idx = _adaptive_max(x, _output_sizes(output_size, x.shape[2:], 2))
    if unbatched:
        out, idx = out.squeeze(0), idx.squeeze(0)
    return (out, idx) if return_indices else out


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """1-d adaptive max pooling over (N, C, L) or (C, L) inputs."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for adaptive_max_pool1d)")
    (size,) = _output_sizes(output_size, input.shape[-1:], 1)
    out, idx = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), return_indices=True)
    out, idx = out.squeeze(-2), idx.squeeze(-2)
    return (out, idx) if return_indices else out


class _AdaptiveMaxPoolNd(Module):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max-pools (N, C, L) inputs down to output_size positions."""

    def forward(self, input):
        return adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max-pools (N, C, H, W) inputs down to an output_size grid (None keeps that dim)."""

    def forward(self, input):
        return adaptive_max_pool2d(input, self.output_size, self.return_indices)
