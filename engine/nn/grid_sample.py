"""F.affine_grid and F.grid_sample (2-D), as PyTorch computes them: the sampling grid of a batch of affine
matrices, and bilinear or nearest sampling of an image at a grid, with zeros, border or reflection
padding and either corner convention. Built from the engine's differentiable ops (floor, gather,
clamp, where), so both the image and the grid get PyTorch's gradients. The spatial transformer
tutorial (pytorch/tutorials) samples its inputs this way."""
import warnings

from ..autograd.function import Function
from ..device import get_array_module
from ..limits import check_elements
from ..ops import elementwise as _ew
from ..ops.creation import linspace, ones, tensor as _tensor
from ..ops.shape import stack
from ..tensor import Tensor

__all__ = ["affine_grid", "grid_sample"]

_DEFAULT_CHANGED = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                    "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                    "grid_sample for details.")


def _linspace_from_neg_one(theta, steps, align_corners):
    if steps <= 1:
        return _tensor(0.0, dtype=theta.dtype, device=theta.device)
    r = linspace(-1, 1, steps, dtype=theta.dtype, device=theta.device)
    if not align_corners:
        r = r * (steps - 1) / steps
    return r


def affine_grid(theta, size, align_corners=None):
    """The (N, H, W, 2) grid of the points each output pixel samples, for a batch of 2x3 matrices."""
    if align_corners is None:
        warnings.warn(_DEFAULT_CHANGED, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    given, size = size, list(size)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {given}. "
                             f"Got {theta.shape}.")
        spatial_size = size[-2:]
    elif len(size) == 5:
        raise NotImplementedError("affine_grid: 3D affine transforms (5D sizes) are not available in the engine")
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {given}.")
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {given}")
    n, _, h, w = size
    xs = _linspace_from_neg_one(theta, w, align_corners).reshape(1, w).expand(h, w)
    ys = _linspace_from_neg_one(theta, h, align_corners).reshape(h, 1).expand(h, w)
    base = stack([xs, ys, ones((h, w), dtype=theta.dtype, device=theta.device)], -1)   # (H, W, 3)
    base = base.reshape(1, h * w, 3).expand(n, h * w, 3)
    return base.bmm(theta.transpose(1, 2)).reshape(n, h, w, 2)


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low, twice_high):
    if twice_low == twice_high:
        return coord * 0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    coord = (coord - low).abs()
    extra = coord.fmod(span)
    flips = (coord / span).floor()
    even = (flips.fmod(2) == 0)
    return _ew.where(even, extra + low, span - extra + low)


def _source_index(coord, size, padding_mode, align_corners):
    coord = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        coord = coord.clamp(0, size - 1)
    elif padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        coord = coord.clamp(0, size - 1)
    return coord


class _GridZero(Function):
    """Zeros of the output's shape that depend on the grid: nearest sampling gives the grid PyTorch's gradient,
    a tensor of zeros (not None), without an arithmetic path a non-finite coordinate could turn into NaN."""
    __slots__ = ("grid_shape",)
    op = "grid_sampler_2d_nearest"
    saves = ()

    def forward(self, grid, shape):
        self.grid_shape = grid.shape
        return get_array_module(grid).zeros(shape, dtype=grid.dtype)

    def backward(self, F, g):
        return (F.new_zeros(g, self.grid_shape),)


def _corner(flat, ix, iy, h, w):
    """The input's values at integer corners (N, C, Ho, Wo), zero outside the image, and the in-bounds mask."""
    n, c = flat.shape[0], flat.shape[1]
    inside = (ix >= 0) & (ix <= w - 1) & (iy >= 0) & (iy <= h - 1)
    xi = ix.clamp(0, w - 1).long()
    yi = iy.clamp(0, h - 1).long()
    index = (yi * w + xi).reshape(n, 1, ix.shape[1] * ix.shape[2]).expand(n, c, -1)   # (-1 fails for n = 0)
    values = flat.gather(2, index).reshape(n, c, *ix.shape[1:])
    return values, inside.unsqueeze(1).to(flat.dtype)


_BUFFERS_PER_POINT = 16   # what a grid point may cost against the element limit (PyTorch has no such bound)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """``input`` (N, C, H, W) sampled at ``grid`` (N, Ho, Wo, 2) of (x, y) in [-1, 1]: (N, C, Ho, Wo)."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_DEFAULT_CHANGED, stacklevel=2)
        align_corners = False
    if not isinstance(input, Tensor) or not isinstance(grid, Tensor):
        raise TypeError("grid_sample(): expected input and grid to be Tensors")
    if input.dim() == 5:
        raise NotImplementedError("grid_sample: volumetric (5-D) inputs are not available in the engine")
    if input.dim() != 4:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but "
                           f"got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.dim() != 4:
        raise RuntimeError(f"grid_sampler(): expected grid to have same number of dimensions as input, but got "
                           f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size 2 in last dimension, but got grid with "
                           f"sizes {list(grid.shape)}")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input has "
                           f"{input.dtype} and grid has {grid.dtype}")
    for d in (2, 3):
        if input.shape[d] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {d} being empty")
    if mode == "bicubic":
        raise NotImplementedError("grid_sample: mode='bicubic' is not available in the engine")
    n, c, h, w = input.shape
    # built from engine ops, a bilinear sample holds about 20 grid-sized buffers at once (coordinates,
    # corners, weights, masks, int64 indices): 5.9 GB for a grid at the element limit (512 MB), and
    # 2.9 GB with gradients at a quarter of it; at most a sixteenth of it keeps them near 1.5 GB
    check_elements((n, grid.shape[1], grid.shape[2], _BUFFERS_PER_POINT), "grid_sample sampling buffer")
    flat = input.reshape(n, c, h * w)
    ix = _source_index(grid[..., 0], w, padding_mode, align_corners)
    iy = _source_index(grid[..., 1], h, padding_mode, align_corners)
    if mode == "nearest":
        values, inside = _corner(flat, ix.detach().round(), iy.detach().round(), h, w)
        return values * inside + _GridZero.apply(grid, (n, 1) + tuple(grid.shape[1:3]))
    x0, y0 = ix.floor(), iy.floor()
    x1, y1 = x0 + 1, y0 + 1
    weights = ((x1 - ix) * (y1 - iy), (ix - x0) * (y1 - iy), (x1 - ix) * (iy - y0), (ix - x0) * (iy - y0))
    out = None
    for (cx, cy), wgt in zip(((x0, y0), (x1, y0), (x0, y1), (x1, y1)), weights):
        values, inside = _corner(flat, cx.detach(), cy.detach(), h, w)
        term = values * (wgt.unsqueeze(1) * inside)
        out = term if out is None else out + term
    return out
