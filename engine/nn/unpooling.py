"""Max unpooling: the partial inverse of max pooling, each value written at the flat index
max_pool returned for it, zeros elsewhere (a scatter, whose gradient is the gather back)."""
import numpy as np

from ..limits import check_elements
from ..ops.creation import zeros
from .functional import _pair
from .module import Module

__all__ = ["MaxUnpool1d", "MaxUnpool2d", "max_unpool1d", "max_unpool2d"]


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    nd = len(kernel_size)
    spatial = tuple(input.shape[-nd:])
    default = [(spatial[d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(nd)]
    if output_size is None:
        return default
    output_size = [int(s) for s in output_size]
    if len(output_size) == nd + 2:
        output_size = output_size[2:]
    if len(output_size) != nd:
        raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it has a "
                         f"length of '{len(output_size)}'")
    for d in range(nd):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
    return output_size


def _max_unpool(input, indices, size, name):
    if input.ndim not in (3, 4) if name == "max_unpool2d" else input.ndim not in (2, 3):
        expected = "3d or 4d" if name == "max_unpool2d" else "2d or 3d"
        raise RuntimeError(f"{name}(): Expected {expected} input tensor, but got {list(input.shape)}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}")
    if indices._data.dtype.kind not in "iu":
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices.dtype}")
    lead = tuple(input.shape[:-len(size)])
    total = int(np.prod(size))
    idx = indices._data
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= total):
        bad = int(idx.max()) if int(idx.max()) >= total else int(idx.min())
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(map(str, size))}")
    check_elements(lead + tuple(size), f"{name} result")
    flat_in = input.reshape(lead + (-1,))
    out = zeros(lead + (total,), dtype=input.dtype, device=input.device)
    out = out.scatter(-1, indices.reshape(lead + (-1,)).long(), flat_in)
    return out.reshape(lead + tuple(size))


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Computes a partial inverse of max_pool2d from its output and return_indices."""
    kernel_size = _pair(kernel_size)
    stride = kernel_size if stride is None else _pair(stride)
    size = _unpool_output_size(input, kernel_size, stride, _pair(padding), output_size)
    return _max_unpool(input, indices, size, "max_unpool2d")


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Computes a partial inverse of max_pool1d from its output and return_indices."""
    kernel_size = _pair(kernel_size, 1)
    stride = kernel_size if stride is None else _pair(stride, 1)
    size = _unpool_output_size(input, kernel_size, stride, _pair(padding, 1), output_size)
    return _max_unpool(input, indices, size, "max_unpool1d")


class _MaxUnpoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _pair(kernel_size, self._nd)
        self.stride = _pair(stride if stride is not None else kernel_size, self._nd)
        self.padding = _pair(padding, self._nd)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of MaxPool1d."""
    _nd = 1

    def forward(self, input, indices, output_size=None):
        return max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of MaxPool2d."""

    def forward(self, input, indices, output_size=None):
        return max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)
