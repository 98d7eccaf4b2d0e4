"""F.interpolate and the Upsample modules.

Every mode PyTorch offers here except ``area`` maps each output position along a spatial
dimension to a fixed weighted sum of input positions, and the maps of different dimensions
are independent. So the resampling is one small (out x in) matrix per spatial dimension,
applied with a matrix product along that dimension: the gradient (and every higher order)
is the matmul's, and the index arithmetic is PyTorch's (``UpSample.h``):
``area_pixel_compute_source_index`` for the linear family and ``nearest_idx`` for nearest.
"""
import math

import numpy as np

from ..device import get_array_module
from ..limits import check_elements
from ..tensor import Tensor
from .module import Module

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear",
           "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]

_MODES = {"nearest": 0, "nearest-exact": 0, "linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3, "area": 0}
_CUBIC_A = -0.75


def _scale(in_size, out_size, align_corners, scale):
    """area_pixel_compute_scale: the step in input positions per output position."""
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else in_size / out_size


def _cubic_weights(t):
    a = _CUBIC_A

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _matrix(mode, in_size, out_size, align_corners, scale):
    """The (out_size, in_size) float64 map of one spatial dimension."""
    m = np.zeros((out_size, in_size))
    rows = np.arange(out_size)
    if mode in ("nearest", "nearest-exact"):
        s = np.float32(1.0 / scale if scale is not None and scale > 0 else in_size / out_size)
        offset = 0.5 if mode == "nearest-exact" else 0.0
        src = np.floor((rows.astype(np.float32) + np.float32(offset)) * s).astype(np.int64)
        m[rows, np.minimum(src, in_size - 1)] = 1.0
        return m
    s = _scale(in_size, out_size, align_corners, scale)
    src = rows * s if align_corners else s * (rows + 0.5) - 0.5
    if mode == "bicubic":
        i0 = np.floor(src).astype(np.int64)
        for k, w in enumerate(_cubic_weights(src - i0)):
            np.add.at(m, (rows, np.clip(i0 - 1 + k, 0, in_size - 1)), w)
        return m
    src = np.maximum(src, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    i1 = np.minimum(i0 + 1, in_size - 1)
    lam = src - i0
    np.add.at(m, (rows, i0), 1.0 - lam)
    np.add.at(m, (rows, i1), lam)
    return m


def _as_tuple(v, n, what):
    if isinstance(v, (list, tuple)):
        if len(v) != n:
            raise ValueError(f"Input and {what} must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {n} and {what} of {list(v)}. Please provide input tensor in "
                             f"(N, C, d1, d2, ...,dK) format and {what} in (o1, o2, ...,oK) format.")
        return tuple(v)
    return (v,) * n


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resamples the spatial dimensions of (N, C, d1, ..., dK) to ``size`` or by ``scale_factor``."""
    if mode not in _MODES:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported")
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    n = input.ndim - 2
    if n < 1 or n > 3:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})")
    if _MODES[mode] and _MODES[mode] != n:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {_MODES[mode] + 2}D input")
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined" if size is not None
                         else "either size or scale_factor should be defined")
    in_sizes = input.shape[2:]
    if size is not None:
        out_sizes = tuple(int(s) for s in _as_tuple(size, n, "output size"))
        scales = (None,) * n
    else:
        factors = tuple(float(f) for f in _as_tuple(scale_factor, n, "scale_factor"))
        out_sizes = tuple(int(math.floor(s * f)) for s, f in zip(in_sizes, factors))
        scales = (None,) * n if recompute_scale_factor else factors
    if any(o <= 0 for o in out_sizes):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({', '.join(map(str, in_sizes))}) "
                           f"and output ({', '.join(map(str, out_sizes))})")
    if mode == "area":
        from . import functional as F
        pool = {1: F.adaptive_avg_pool1d, 2: F.adaptive_avg_pool2d}.get(n)
        if pool is None:
            raise NotImplementedError("interpolate: mode 'area' supports 3-D and 4-D input")
        return pool(input, out_sizes)
    check_elements(tuple(input.shape[:2]) + out_sizes, "interpolated result")
    out = input
    # shrinking dimensions first, so no intermediate outgrows both the input and the result
    for k in sorted(range(n), key=lambda k: out_sizes[k] / in_sizes[k]):
        i, o, s = in_sizes[k], out_sizes[k], scales[k]
        check_elements((o, i), "interpolation matrix")
        m = _matrix(mode, i, o, align_corners, s)
        if i == o and np.array_equal(m, np.eye(i)):
            continue
        xp = get_array_module(input._data)
        w = Tensor._adopt_array(xp.asarray(m.astype(input._data.dtype)), False, None)
        axis = 2 + k
        if axis == input.ndim - 1:
            out = out @ w.t()
        else:
            moved = out.movedim(axis, -1)
            out = (moved @ w.t()).movedim(-1, axis)
    return out if out is not input else input * 1


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of interpolate."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


class Upsample(Module):
    """Upsamples (N, C, d1, ..., dK) by ``scale_factor`` or to ``size`` with F.interpolate."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        self.scale_factor = float(scale_factor) if isinstance(scale_factor, (int, float)) else scale_factor
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                           recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return f"{info}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
