"""Transposed convolution: F.conv_transpose1d / 2d / 3d and the ConvTranspose1d / 2d / 3d layers, with
PyTorch's arguments, output_size, initialisation and repr.

A transposed convolution is the adjoint of a convolution with the same weight (read as
(C_in, C_out / G, kh, kw)): its forward is the convolution's input gradient, one
matrix product W^T x per group and a col2im, and its input gradient is that convolution.
"""
import math

from ..autograd.function import Function
from ..limits import check_elements
from ..tensor import Tensor
from ..ops.creation import arange, empty, zeros
from . import init
from .conv import _ConvNd
from .functional import (Im2Col, _Composite, _as_2d, _batched_conv_input, _col2im, _pair, _run, _scalar_type_name,
                         _shape_2d, _xp)
from .parameter import Parameter

__all__ = ["ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d"]


class ConvTranspose(Function):
    """Transposed convolution over (N, C_in, H, W) (or (N, C_in, L)) with weight (C_in, C_out / G, kh, kw).

    The batch is folded into the columns, so each product is one GEMM per group (a weight
    broadcast over a stacked batch is several times slower in NumPy). Forward: columns
    W^T x (G, C_out / G * kh * kw, N * H * W), summed into the output by col2im through a
    strided view. Backward: the input gradient is the convolution of g with W (im2col, one
    GEMM); the weight gradient is x against those columns. Im2Col and Col2Im are each other's
    backward, so every order of gradient comes from the same rule."""
    __slots__ = ("stride", "padding", "dilation", "groups", "x_shape", "w_shape")
    op = "convolution"
    backward_name = "ConvolutionBackward0"
    saves = (0, 1)
    grad_needs = ((1,), (0,), ())

    def forward(self, x, w, b, stride, padding, dilation, groups, out_hw):
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        self.x_shape, self.w_shape = x.shape, w.shape
        x4, w4 = _as_2d(x), _as_2d(w)
        n, c_in, h, wd = x4.shape
        c_out = w4.shape[1] * groups
        kernel = w4.shape[2:]
        wmat = w4.reshape(groups, c_in // groups, -1)                        # (G, C_in/G, C_out/G*k)
        cols = wmat.swapaxes(-1, -2) @ _batch_last(_xp(x), x4, groups)       # (G, C_out/G*k, N*L)
        cols = cols.reshape((groups, c_out // groups) + kernel + (n, h, wd))
        cols = cols.transpose(4, 0, 1, 2, 3, 5, 6).reshape((n, c_out) + kernel + (h, wd))   # a view
        out = _col2im(cols, (n, c_out) + out_hw, kernel, dilation, padding, stride)
        if b is not None:
            out += b.reshape(c_out, 1, 1)
        return out.reshape(out.shape[:2] + out.shape[3:]) if x.ndim == 3 else out

    def backward(self, F, g, x, w):
        groups, dilation, padding, stride = self.groups, self.dilation, self.padding, self.stride
        x_shape4, w_shape4 = _shape_2d(self.x_shape), _shape_2d(self.w_shape)
        n, c_in, h, wd = x_shape4
        kernel = w_shape4[2:]
        gx = gw = gb = None
        need_x, need_w = self.next_functions[0][0] is not None, self.next_functions[1][0] is not None
        if need_x or need_w:
            cols = _run(Im2Col, F.reshape(g, _shape_2d(g.shape)), kernel=kernel, dilation=dilation,
                        padding=padding, stride=stride)                        # (N, C_out, kh, kw, H', W')
            if tuple(cols.shape[4:]) != (h, wd):
                # an output_padding below the dilation (stride 1) leaves windows past the input's end
                cols = F.getitem(cols, (slice(None),) * 4 + (slice(0, h), slice(0, wd)))
            cols = F.reshape(F.permute(F.reshape(cols, (n, groups, -1, h * wd)), (1, 2, 0, 3)),
                             (groups, -1, n * h * wd))                         # (G, C_out/G*k, N*L)
        if need_x:
            wmat = F.reshape(w, (groups, c_in // groups, -1))                 # (G, C_in/G, C_out/G*k)
            gx = F.reshape(F.matmul(wmat, cols), (groups, c_in // groups, n, h * wd))
            gx = F.reshape(F.permute(gx, (2, 0, 1, 3)), self.x_shape)
        if need_w:
            xg = F.reshape(F.permute(F.reshape(x, (n, groups, c_in // groups, h * wd)), (1, 2, 0, 3)),
                           (groups, c_in // groups, n * h * wd))
            gw = F.reshape(F.matmul(xg, F.transpose(cols, -1, -2)), self.w_shape)
        if self.next_functions[2][0] is not None:
            gb = F.sum(g, (0,) + tuple(range(2, g.ndim)))
        return gx, gw, gb


def _batch_last(xp, x4, groups):
    """(N, C, H, W) -> (G, C/G, N * H * W), contiguous: the batch folded into the columns."""
    n, c, h, w = x4.shape
    return xp.ascontiguousarray(x4.reshape(n, groups, c // groups, h * w).transpose(1, 2, 0, 3)).reshape(
        groups, c // groups, n * h * w)


def _output_padding(input_shape, output_size, stride, padding, kernel, dilation, nd):
    """The output_padding that gives output_size (PyTorch's _ConvTransposeNd._output_padding)."""
    output_size = [int(s) for s in output_size]
    if len(output_size) == nd + 2:
        output_size = output_size[2:]
    if len(output_size) != nd:
        raise ValueError(f"ConvTranspose{nd}D: for {len(input_shape)}D "
                         f"input, output_size must have {nd} or {nd + 2} elements (got {len(output_size)})")
    spatial = input_shape[-nd:]
    min_sizes = [(spatial[d] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel[d] - 1) + 1
                 for d in range(nd)]
    max_sizes = [min_sizes[d] + stride[d] - 1 for d in range(nd)]
    for d in range(nd):
        if not min_sizes[d] <= output_size[d] <= max_sizes[d]:
            raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {min_sizes} "
                             f"to {max_sizes} (for an input of {list(spatial)})")
    return tuple(output_size[d] - min_sizes[d] for d in range(nd))


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, nd, name):
    input, unbatched, stride, padding, output_padding, dilation, out = _conv_transpose_arguments(
        input, weight, bias, stride, padding, output_padding, groups, dilation, nd, name)
    pads = tuple((p, p) for p in padding)
    if nd == 1:
        stride, dilation, pads, out = (1,) + stride, (1,) + dilation, ((0, 0),) + pads, (1,) + out
    result = ConvTranspose.apply(input, weight, bias, stride=stride, padding=pads, dilation=dilation, groups=groups,
                                 out_hw=out)
    return result.squeeze(0) if unbatched else result


def _conv_transpose_arguments(input, weight, bias, stride, padding, output_padding, groups, dilation, nd, name):
    """A transposed convolution's arguments checked as PyTorch checks them: the batched input, whether
    it was unbatched, the stride, padding, output padding and dilation, and the output's size."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError(f"{name}(): argument 'input' and 'weight' must be Tensor")
    input, unbatched = _batched_conv_input(input, weight, nd, name)
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_type_name(input)} but found "
                           f"{_scalar_type_name(weight)}")
    c_in = input.shape[1]
    if c_in != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
                           f"{list(input.shape)} to have {weight.shape[0]} channels, but got {c_in} channels "
                           "instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{list(weight.shape)}] instead")
    c_out = weight.shape[1] * groups
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != c_out):
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected bias to be "
                           f"1-dimensional with {c_out} elements, but got bias of size {list(bias.shape)} instead")
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    stride, padding = _pair(stride, nd), _pair(padding, nd)
    output_padding, dilation = _pair(output_padding, nd), _pair(dilation, nd)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        # PyTorch runs 1-d as 2-d with a height of 1, and names both dims
        ops, ss, ds = ((0,) + output_padding, (1,) + stride, (1,) + dilation) if nd == 1 else \
            (output_padding, stride, dilation)
        dims = ("depth", "height", "width")[-len(ops):]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(
            f"{what}_{dim}: {v}" for what, values in (("output_padding", ops), ("stride", ss), ("dilation", ds))
            for dim, v in zip(dims, values)))
    kernel = tuple(weight.shape[2:])
    out = tuple((size - 1) * s - 2 * p + d * (k - 1) + op + 1
                for size, s, p, d, k, op in zip(input.shape[2:], stride, padding, dilation, kernel, output_padding))
    if any(o <= 0 for o in out):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, input.shape[2:]))}). Calculated "
                           f"output size per channel: ({' x '.join(map(str, out))}). Output size is too small")
    check_elements((input.shape[0], c_out) + out, f"{name} result")
    check_elements((input.shape[0], c_out * math.prod(kernel)) + tuple(input.shape[2:]), f"{name} columns")
    return input, unbatched, stride, padding, output_padding, dilation, out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Applies a 1-d transposed convolution ("deconvolution") over an input of shape (N, C_in, L)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                           "conv_transpose1d")


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Applies a 2-d transposed convolution ("deconvolution") over an input of shape (N, C_in, H, W)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                           "conv_transpose2d")


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Applies a 3-d transposed convolution over an input of shape (N, C_in, D, H, W)."""
    input, unbatched, stride, padding, output_padding, dilation, out = _conv_transpose_arguments(
        input, weight, bias, stride, padding, output_padding, groups, dilation, 3, "conv_transpose3d")
    result = TransposedConvolution3d.apply(input, weight, bias, stride=stride, padding=padding,
                                           output_padding=output_padding, groups=groups, dilation=dilation, out=out)
    return result.squeeze(0) if unbatched else result


class TransposedConvolution3d(_Composite):
    """A 3-d transposed convolution, one ConvolutionBackward0 node as in PyTorch: for each depth tap of
    the kernel, the 2-d transposed convolution of every input plane with that tap's 2-d kernel, added
    into the output planes the tap reaches (index_add), then the depth padding cropped."""
    __slots__ = ()
    op = "convolution"
    backward_name = "ConvolutionBackward0"
    saves = (0, 1, 2)

    def _composite(self, x, w, b):
        p = self.params
        stride, padding, dilation, out = p["stride"], p["padding"], p["dilation"], p["out"]
        n, c, d = x.shape[:3]
        planes = x.transpose(1, 2).reshape(n * d, c, *x.shape[3:])
        result = None
        for i in range(w.shape[2]):
            y = conv_transpose2d(planes, w[:, :, i], None, stride[1:], padding[1:], p["output_padding"][1:],
                                 p["groups"], dilation[1:])
            y = y.reshape(n, d, *y.shape[1:]).transpose(1, 2)                 # (N, C_out, D, H', W')
            if result is None:
                result = zeros((n, y.shape[1], out[0] + 2 * padding[0]) + tuple(y.shape[3:]), dtype=x.dtype)
            result = result.index_add(2, arange(d) * stride[0] + i * dilation[0], y)
        result = result[:, :, padding[0]:padding[0] + out[0]]
        if b is not None:
            result = result + b.reshape(-1, 1, 1, 1)
        return result.contiguous()


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        # the weight is (in_channels, out_channels / groups, *kernel): a convolution's with the
        # channel roles swapped, and PyTorch initialises it the same way (fan_in from its dim 1)
        super().__init__(out_channels, in_channels, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device, dtype)
        self.in_channels, self.out_channels = in_channels, out_channels
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)
        self.transposed = True
        self.output_padding = _pair(output_padding, self._nd)

    def _output_padding(self, input, output_size):
        if output_size is None:
            return self.output_padding
        return _output_padding(tuple(input.shape), output_size, self.stride, self.padding, self.kernel_size,
                               self.dilation, self._nd)

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * self._nd:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self._nd:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self._nd:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution over (N, C_in, L) inputs."""
    _nd = 1

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                self.groups, self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution over (N, C_in, H, W) inputs (a "deconvolution")."""
    _nd = 2

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                self.groups, self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    """3-d transposed convolution over (N, C_in, D, H, W) inputs."""
    _nd = 3

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                self.groups, self.dilation)
