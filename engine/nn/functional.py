"""torch.nn.functional: activations, linear maps, convolution and pooling,
normalisation, embeddings, dropout and losses.

Most functions are compositions of engine ops, so their gradients (and
higher-order gradients) come from rules that are already tested. Where one
fused op is much faster or more stable (linear, softmax / log_softmax,
cross_entropy, nll_loss, softplus, normalisation, convolution, pooling), it is
a Function whose backward is written with the ``F`` namespace (or with other
Functions), so the same rule serves an ordinary backward on arrays and a
create_graph backward on tensors.
"""
import math
import numbers
import warnings

import numpy as np

from .. import dtypes as _dt
from ..autograd import array_ops as _array_ops
from ..autograd.function import Function, composite_grads
from ..autograd.grad_mode import no_grad
from ..autograd.state import state
from ..device import get_array_module
from ..limits import check_broadcast as _check_broadcast
from ..ops import elementwise as _ew
from ..ops.attention import scaled_dot_product_attention  # one fused node, with its backward, in ops/attention.py
from ..ops.linalg import _SCALAR_TYPE
from ..ops.creation import tensor as _tensor
from ..ops.reduction import norm as _norm
from ..tensor import Tensor, _wrap_dim
from .upsampling import interpolate, upsample, upsample_bilinear, upsample_nearest

__all__ = [
    # activations
    "relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "elu", "selu", "celu", "gelu", "silu", "mish",
    "softplus", "softsign", "sigmoid", "tanh", "hardtanh", "hardsigmoid", "hardswish", "logsigmoid",
    "tanhshrink", "threshold", "glu", "softmax", "log_softmax", "softmin", "gumbel_softmax",
    # linear, dropout, embeddings
    "linear", "bilinear", "dropout", "dropout1d", "dropout2d", "dropout3d", "embedding", "one_hot",
    "pixel_shuffle", "pixel_unshuffle",
    # convolution and pooling
    "conv1d", "conv2d", "conv3d", "unfold", "fold", "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d",
    "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "pad",
    "interpolate", "upsample", "upsample_nearest", "upsample_bilinear",
    # normalisation and distances
    "batch_norm", "instance_norm", "layer_norm", "rms_norm", "group_norm", "normalize", "cosine_similarity", "pairwise_distance",
    # losses
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
    # attention
    "scaled_dot_product_attention", "multi_head_attention_forward",
    # sampling grids
    "affine_grid", "grid_sample",
]


# ====================================================================== helpers
def _xp(a):
    return np if type(a) is np.ndarray else get_array_module(a)


def _data(x):
    """The array behind a tensor, or the value itself."""
    return x._data if isinstance(x, Tensor) else x


def _run(cls, x, **params):
    """Runs a Function on a tensor (recorded in the graph) or straight on an array.

    Backward rules call this so that an ordinary backward computes on arrays and
    a create_graph backward records the same Function, whose own backward then
    gives the next order.
    """
    if isinstance(x, Tensor):
        return cls.apply(x, **params)
    return cls.__new__(cls).forward(x, **params)


def _const(like, array):
    """``array`` as a constant alongside ``like``: a tensor in a create_graph backward, else the array."""
    if isinstance(like, Tensor):
        return Tensor._adopt_array(array, False, None)
    return array


def _pair(v, n=2):
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            return tuple(int(v[0]) for _ in range(n))
        if len(v) != n:
            raise ValueError(f"expected {n} values, got {list(v)}")
        return tuple(int(a) for a in v)
    return (int(v),) * n


_ONES = {}


def _ones(n, dtype, xp, value=1.0):
    """A cached vector of n ``value``s: the right operand of the row sums below."""
    key = (n, dtype, xp, value)
    got = _ONES.get(key)
    if got is None:
        got = xp.full(n, value, dtype=dtype)
        if len(_ONES) > 64:
            _ONES.clear()
        _ONES[key] = got
    return got


def _row_sums(a, value=1.0):
    """sum(a, -1, keepdims=True) * value for a floating array, as one matrix-vector product: BLAS
    sums 512 rows of 64 float32 ~4x faster than NumPy's add.reduce along the last axis (which
    reduces each short row on its own). Long rows keep NumPy's pairwise summation."""
    n = a.shape[-1] if a.ndim else 0
    if a.dtype.kind != "f" or n == 0 or n > 4096 or a.size == 0:
        out = a.sum(axis=-1, keepdims=True)
        return out * value if value != 1.0 else out
    xp = _xp(a)
    ones = _ones(n, a.dtype, xp, value)
    if a.ndim > 2 and a.flags.c_contiguous:
        return (a.reshape(-1, n) @ ones).reshape(a.shape[:-1] + (1,))
    return (a @ ones)[..., None]


def _column_sums(a):
    """a (M, N) summed over its rows, as a vector-matrix product (the same BLAS reason)."""
    if a.dtype.kind != "f" or a.shape[0] == 0 or a.shape[0] > 1 << 20:
        return a.sum(axis=0)
    return _ones(a.shape[0], a.dtype, _xp(a)) @ a


def _row_max(a):
    """max(a, -1, keepdims=True); NaN-ignoring fmax reduces ~1.6x faster than max, and a NaN in a
    row still makes that row's softmax NaN (through exp and the sum)."""
    xp = _xp(a)
    if xp is not np:   # CuPy's fmax has no reduce
        return a.max(axis=-1, keepdims=True)
    return np.fmax.reduce(a, axis=-1, keepdims=True)


# ====================================================================== activations
def relu(input, inplace=False):
    """Applies the rectified linear unit function element-wise."""
    return input.relu_() if inplace else _ew.relu(input)


def relu_(input):
    return input.relu_()


def relu6(input, inplace=False):
    """Applies min(max(0, x), 6) element-wise."""
    return hardtanh(input, 0.0, 6.0, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamps input to [min_val, max_val]; the gradient is zero outside the open interval."""
    if inplace:
        return input._inplace(hardtanh, min_val, max_val)
    return _ew.where((input > min_val) & (input < max_val), input, _ew.clamp(input, min_val, max_val).detach())


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """Applies max(0, x) + negative_slope * min(0, x) element-wise."""
    if inplace:
        return input._inplace(leaky_relu, negative_slope)
    return _ew.where(input > 0, input, input * negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def elu(input, alpha=1.0, inplace=False):
    """Applies x if x > 0 else alpha * (exp(x) - 1) element-wise."""
    if inplace:
        return input._inplace(elu, alpha)
    return _ew.where(input > 0, input, _ew.expm1(input) * alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    """Applies scale * elu(x, alpha) with SELU's fixed constants."""
    if inplace:
        return input._inplace(selu)
    return elu(input, _SELU_ALPHA) * _SELU_SCALE


def celu(input, alpha=1.0, inplace=False):
    """Applies max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) element-wise."""
    if inplace:
        return input._inplace(celu, alpha)
    return _ew.where(input > 0, input, _ew.expm1(input / alpha) * alpha)


def threshold(input, threshold, value, inplace=False):
    """Replaces each element not greater than threshold by value."""
    if inplace:
        return input._inplace(_threshold, threshold, value)
    return _threshold(input, threshold, value)


def _threshold(input, limit, value):
    return _ew.where(input > limit, input, value)


_SQRT_1_2 = 1.0 / math.sqrt(2.0)
_SQRT_2_PI = math.sqrt(2.0 / math.pi)


# 0.5 erfc(z) = 1 - Phi(z sqrt 2) to a relative 1.2e-7 (Numerical Recipes' erfcc, a Chebyshev fit
# of t exp(-z^2 + P(t)), t = 1 / (1 + z / 2)): GELU's float32 path, branch-free, in the input's dtype
_ERFCC = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398, 1.48851587,
          -0.82215223, 0.17087277)


def _normal_cdf(x):
    """Phi(x), the standard normal CDF, in x's dtype (float64: through Cody's erf, to a few ulps)."""
    xp = _xp(x)
    if x.dtype == np.float64 or xp is not np:
        return (_ew._erf(xp, x * -_SQRT_1_2, complement=True) * 0.5).astype(x.dtype, copy=False)
    f = x.dtype.type
    z = xp.abs(x) * f(_SQRT_1_2)
    t = z * f(0.5)
    t += f(1.0)
    xp.reciprocal(t, out=t)
    p = t * f(_ERFCC[9])
    for c in _ERFCC[8:0:-1]:
        p += f(c)
        p *= t
    p += f(_ERFCC[0])
    z *= z
    p -= z
    xp.exp(p, out=p)
    p *= t
    p *= f(0.5)                      # Phi(-|x|)
    # Phi(x) = p + (x > 0)(1 - 2p): exact p on the negative side; np.where on a random sign is
    # ~7x slower than this arithmetic (it branches per element)
    d = p * f(-2.0)
    d += f(1.0)
    d *= x > 0
    d += p
    return d


def _gelu_composite(x, approximate):
    if approximate == "tanh":
        inner = (x + x * x * x * 0.044715) * _SQRT_2_PI
        return x * 0.5 * (_ew.tanh(inner) + 1.0)
    return x * 0.5 * (_ew.erf(x * _SQRT_1_2) + 1.0)


class Gelu(Function):
    """x Phi(x), or its tanh approximation, as one node; keeps Phi(x) (or the tanh) for backward."""
    __slots__ = ("approximate",)
    op = "gelu"
    saves = (0,)

    def forward(self, x, approximate):
        self.approximate = approximate
        if x.dtype.itemsize < 4:     # half: computed in float32, as PyTorch's CPU kernel
            return self.forward(x.astype(np.float32), approximate).astype(x.dtype)
        xp = _xp(x)
        if approximate == "tanh":
            f = x.dtype.type
            t = x * x
            t *= f(0.044715)
            t += f(1.0)
            t *= x
            t *= f(_SQRT_2_PI)
            xp.tanh(t, out=t)
            out = t + f(1.0)
            out *= x
            out *= f(0.5)
        else:
            t = _normal_cdf(x)
            out = x * t
        self.keep(t)
        return out

    def backward(self, F, g, x, t):
        if isinstance(g, Tensor):
            return composite_grads(self, lambda x: _gelu_composite(x, self.approximate), (x,), g)
        xp = _xp(x)
        x = x.astype(t.dtype, copy=False)
        f = x.dtype.type
        if self.approximate == "tanh":
            # d/dx 0.5 x (1 + t) = 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2)
            d = x * x
            d *= f(3 * 0.044715 * _SQRT_2_PI)
            d += f(_SQRT_2_PI)
            d *= x
            d *= f(1.0) - t * t
            d += f(1.0) + t
            d *= f(0.5)
        else:
            # Phi(x) + x phi(x)
            d = x * x
            d *= f(-0.5)
            xp.exp(d, out=d)
            d *= x
            d *= f(1.0 / math.sqrt(2.0 * math.pi))
            d += t
        d *= g
        return (d.astype(g.dtype, copy=False),)


def gelu(input, approximate="none"):
    """Applies the Gaussian Error Linear Unit: x * Phi(x), or its tanh approximation."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f'"GeluKernelImpl" not implemented for \'{_scalar_type_name(input)}\'')
    return Gelu.apply(input, approximate=approximate)


def silu(input, inplace=False):
    """Applies x * sigmoid(x) element-wise."""
    if inplace:
        return input._inplace(silu)
    return input * _ew.sigmoid(input)


def mish(input, inplace=False):
    """Applies x * tanh(softplus(x)) element-wise."""
    if inplace:
        return input._inplace(mish)
    return input * _ew.tanh(softplus(input))


def sigmoid(input):
    """Applies 1 / (1 + exp(-x)) element-wise."""
    return _ew.sigmoid(input)


def tanh(input):
    """Applies the hyperbolic tangent element-wise."""
    return _ew.tanh(input)


def hardsigmoid(input, inplace=False):
    """Applies relu6(x + 3) / 6 element-wise."""
    if inplace:
        return input._inplace(hardsigmoid)
    return hardtanh(input + 3.0, 0.0, 6.0) / 6.0


class Hardswish(Function):
    """x * relu6(x + 3) / 6; at the kinks x = -3 and x = 3 the gradient is PyTorch's (0 and 1)."""
    __slots__ = ()
    op = "hardswish"
    saves = (0,)

    def forward(self, x):
        return x * _xp(x).clip(x + 3, 0, 6) / 6

    def backward(self, F, g, x):
        return (F.where(x <= -3, 0.0, F.where(x < 3, g * (x / 3 + 0.5), g)),)


def hardswish(input, inplace=False):
    """Applies x * relu6(x + 3) / 6 element-wise."""
    if inplace:
        return input._inplace(hardswish)
    return Hardswish.apply(input)


def softsign(input):
    """Applies x / (1 + |x|) element-wise."""
    return input / (_ew.abs(input) + 1.0)


def tanhshrink(input):
    """Applies x - tanh(x) element-wise."""
    return input - _ew.tanh(input)


def glu(input, dim=-1):
    """Gated linear unit: a * sigmoid(b) for the two halves a, b of input along dim."""
    n = input.shape[dim]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {_wrap_dim(dim, input.ndim)} is size {n}")
    d = _wrap_dim(dim, input.ndim)
    lead = (slice(None),) * d
    return input[lead + (slice(0, n // 2),)] * _ew.sigmoid(input[lead + (slice(n // 2, n),)])


def _log1p_exp(z):
    """log(1 + exp(z)) of an array, stably: max(z, 0) + log1p(exp(-|z|)), one ufunc at a time in place.
    NumPy's logaddexp(0, z) gives the same but runs a scalar loop: 6.5 ms for 200,000 float32, 1.0 ms
    this way (PyTorch's softplus 0.8)."""
    xp = _xp(z)
    out = xp.asarray(xp.abs(z))   # a 0-d input gives a NumPy scalar, which the in-place steps cannot write
    xp.negative(out, out=out)
    xp.exp(out, out=out)
    xp.log1p(out, out=out)
    out += xp.maximum(z, 0)
    return out


class Softplus(Function):
    """log(1 + exp(beta x)) / beta, linear above the threshold; stable for large |x|."""
    __slots__ = ("beta", "threshold")
    op = "softplus"
    saves = (0,)

    def forward(self, x, beta, threshold):
        self.beta, self.threshold = beta, threshold
        z = x * beta if beta != 1 else x
        out = _log1p_exp(z)
        if beta != 1:
            out = out / beta
        if threshold is not None:
            out = _xp(x).where(z > threshold, x, out)
        return out.astype(x.dtype, copy=False)

    def backward(self, F, g, x):
        z = x * self.beta if self.beta != 1 else x
        gx = g * F.sigmoid(z)
        if self.threshold is not None:
            gx = F.where(z > self.threshold, g, gx)
        return (gx,)


def softplus(input, beta=1.0, threshold=20.0):
    """Applies log(1 + exp(beta * x)) / beta element-wise (x itself where beta * x > threshold)."""
    return Softplus.apply(input, beta=beta, threshold=threshold)


class LogSigmoid(Function):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), stably; one node, as PyTorch's."""
    __slots__ = ()
    op = "log_sigmoid"
    saves = (0,)

    def forward(self, x):
        xp = _xp(x)
        out = _log1p_exp(-x)
        xp.negative(out, out=out)
        out += 0.0   # -0.0 (x = +inf) becomes 0.0, as PyTorch's
        return out

    def backward(self, F, g, x):
        return (g * F.sigmoid(-x),)


def logsigmoid(input):
    """Applies log(sigmoid(x)) element-wise, stably."""
    return LogSigmoid.apply(input)


def _softmax_dim(ndim):
    warnings.warn("Implicit dimension choice for softmax has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_input(input, dtype):
    return input.to(dtype) if dtype is not None else input


class Softmax(Function):
    __slots__ = ("dim",)
    op = "softmax"
    saves = (-1,)

    def forward(self, x, dim):
        self.dim = dim
        xp = _xp(x)
        if x.ndim == 0:
            return xp.ones_like(x)
        if x.size == 0:
            return x.copy()   # no max along dim (an empty input may have a 2**30 dim)
        if dim == x.ndim - 1 and x.dtype.kind == "f":
            e = x - _row_max(x)
            xp.exp(e, out=e)
            e /= _row_sums(e)
            return e
        e = xp.exp(x - x.max(axis=dim, keepdims=True))
        e /= e.sum(axis=dim, keepdims=True)
        return e

    def backward(self, F, g, y):
        if y.ndim == 0:
            return (g * 0,)
        gy = g * y
        if self.dim == y.ndim - 1 and not isinstance(g, Tensor):
            gy -= y * _row_sums(gy)
            return (gy,)
        return (gy - y * F.sum(gy, self.dim, True),)


class LogSoftmax(Function):
    __slots__ = ("dim",)
    op = "log_softmax"
    saves = (-1,)

    def forward(self, x, dim):
        self.dim = dim
        xp = _xp(x)
        if x.ndim == 0:
            return xp.zeros_like(x)
        if x.size == 0:
            return x.copy()
        if dim == x.ndim - 1 and x.dtype.kind == "f":
            z = x - _row_max(x)
            z -= xp.log(_row_sums(xp.exp(z)))
            return z
        z = x - x.max(axis=dim, keepdims=True)
        z -= xp.log(xp.exp(z).sum(axis=dim, keepdims=True))
        return z

    def backward(self, F, g, y):
        if y.ndim == 0:
            return (g * 0,)
        if self.dim == y.ndim - 1 and not isinstance(g, Tensor):
            return (g - _xp(y).exp(y) * _row_sums(g),)
        return (g - F.exp(y) * F.sum(g, self.dim, True),)


def _float_input(input, fn):
    if input._data.dtype.kind != "f":
        raise RuntimeError(f'"{fn}" not implemented for \'{input.dtype.name.capitalize()}\'')
    return input


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """Samples from the Gumbel-softmax distribution: softmax((logits + Gumbel noise) / tau), and with
    ``hard`` its one-hot argmax carrying the soft sample's gradient (straight through), as PyTorch."""
    from ..ops.creation import empty_like, zeros_like
    gumbels = -empty_like(logits).exponential_().log()     # Gumbel(0, 1), drawn as PyTorch draws it
    y_soft = softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Applies softmax along dim: exp(x) / sum(exp(x))."""
    input = _float_input(_softmax_input(input, dtype), "softmax")
    if dim is None:
        dim = _softmax_dim(input.ndim)
    return Softmax.apply(input, dim=_wrap_dim(dim, input.ndim))


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Applies log(softmax(x)) along dim, computed stably."""
    input = _float_input(_softmax_input(input, dtype), "log_softmax")
    if dim is None:
        dim = _softmax_dim(input.ndim)
    return LogSoftmax.apply(input, dim=_wrap_dim(dim, input.ndim))


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """Applies softmax(-x) along dim."""
    input = _softmax_input(input, dtype)
    if dim is None:
        dim = _softmax_dim(input.ndim)
    return softmax(-input, dim)


# ====================================================================== linear maps
def _rows_matmul(x, m):
    """x @ m for a stack of rows x (..., K): one GEMM over all rows when x is contiguous (NumPy's
    matmul of a 3-D by a 2-D array runs one GEMM per leading index, ~1.3x slower for 8 x 64 rows)."""
    if x.ndim > 2 and x.flags.c_contiguous:
        # the row count spelled out: reshape(-1, 0) of a zero-width x is ambiguous to NumPy
        rows = int(np.prod(x.shape[:-1]))
        return (x.reshape(rows, x.shape[-1]) @ m).reshape(x.shape[:-1] + (m.shape[-1],))
    return x @ m


class Linear(Function):
    """y = x W^T + b as one matrix product and an in-place bias add."""
    __slots__ = ()
    op = "linear"
    saves = (0, 1)
    grad_needs = ((1,), (0,), ())

    def forward(self, x, w, b):
        if x.dtype != w.dtype or (b is not None and b.dtype != w.dtype):
            other = b.dtype if b is not None and b.dtype != w.dtype else x.dtype
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                               f"{_dt.from_numpy_dtype(other).name.capitalize()} and "
                               f"{_dt.from_numpy_dtype(w.dtype).name.capitalize()}")
        if x.ndim == 0 or x.shape[-1] != w.shape[-1]:
            rows = int(np.prod(x.shape[:-1])) if x.ndim > 1 else 1
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{x.shape[-1] if x.ndim else 1} "
                               f"and {w.shape[-1]}x{w.shape[0]})")
        out = _rows_matmul(x, w.T)
        if b is not None:
            out += b
        return out

    def backward(self, F, g, x, w):
        # an input that needs no gradient (a network's data) costs no matrix product
        if self.next_functions[0][0] is None:
            gx = None
        elif isinstance(g, Tensor):
            gx = F.matmul(g, w)
        else:
            gx = _rows_matmul(g, w)
        if self.next_functions[1][0] is None:
            gw = None
        elif x.ndim == 1:
            gw = F.matmul(F.unsqueeze(g, -1), F.unsqueeze(x, 0))
        else:
            rows = int(np.prod(x.shape[:-1]))   # not -1: ambiguous when a last dimension is 0
            g2 = F.reshape(g, (rows, g.shape[-1]))
            x2 = F.reshape(x, (rows, x.shape[-1]))
            gw = F.matmul(F.transpose(g2, 0, 1), x2)
        return gx, gw, g  # the engine sums the bias gradient down to its shape


def linear(input, weight, bias=None):
    """Applies the affine map y = x A^T + b."""
    if weight.ndim == 1:  # a vector of weights: y = x . w + b
        out = input @ weight
        return out + bias if bias is not None else out
    return Linear.apply(input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    """Applies y = x1^T A x2 + b over the last dimension of the inputs."""
    lead = tuple(input1.shape[:-1])
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    # (N, I1) @ (O, I1, I2) broadcasts to (O, N, I2); contract with x2 over I2
    y = (x1 @ weight * x2).sum(-1).t()
    if bias is not None:
        y = y + bias
    return y.reshape(lead + (weight.shape[0],))


# ====================================================================== dropout
def _bernoulli_keep(shape, p, like):
    """A {0, 1/(1-p)} mask of ``shape`` in like's dtype and device, from the run's generator."""
    keep = state.generator.rng.random(shape) >= p
    mask = keep.astype(like._data.dtype) * np.asarray(1.0 / (1.0 - p), like._data.dtype)
    xp = _xp(like._data)
    return Tensor._adopt_array(mask if xp is np else xp.asarray(mask), False, None)


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability p during training, scaling the rest by 1 / (1 - p)."""
    _check_p(p)
    if not training or p == 0.0:
        return input
    if inplace:
        return input._inplace(dropout, p, training)
    if p == 1.0:
        return input * 0.0
    return input * _bernoulli_keep(tuple(input.shape), p, input)


def _feature_dropout(input, p, training, inplace):
    """Zeroes whole (N, C) slices: the mask has shape (N, C, 1, ...), as ATen's feature_dropout."""
    _check_p(p)
    if not training or p == 0.0:
        return input
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if inplace:
        return input._inplace(_feature_dropout, p, training, False)
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return input * 0.0 if p == 1.0 else input * _bernoulli_keep(shape, p, input)


def _unbatched_feature_dropout(input, p, training, inplace, batched):
    if batched or not training or p == 0.0:
        return _feature_dropout(input, p, training, inplace)
    if inplace:
        return input._inplace(_unbatched_feature_dropout, p, training, False, False)
    return _feature_dropout(input.unsqueeze(0), p, training, False).squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of a (N, C, L) or unbatched (C, L) input with probability p."""
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that dropout1d exists "
            "to provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an "
            "optional batch dimension (i.e. 2D or 3D inputs).")
    return _unbatched_feature_dropout(input, p, training, inplace, input.ndim == 3)


def _warn_feature_dims(name, ndim, spatial):
    if ndim not in (spatial + 1, spatial + 2):
        warnings.warn(
            f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result in an error in a "
            f"future release. To retain the behavior and silence this warning, please use dropout instead. Note "
            f"that {name} exists to provide channel-wise dropout on inputs with {spatial} spatial dimensions, a "
            f"channel dimension, and an optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
            UserWarning, stacklevel=3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of a (N, C, H, W) input with probability p.

    As PyTorch: other ranks warn and still drop along dims 0 and 1 (a 2-D (N, C) input element-wise), and a
    3-D input is read as (N, C, L), not as an unbatched (C, H, W)."""
    _check_p(p)
    _warn_feature_dims("dropout2d", input.ndim, 2)
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d "
            "instead.", UserWarning, stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of a (N, C, D, H, W) or unbatched (C, D, H, W) input with probability p."""
    _check_p(p)
    _warn_feature_dims("dropout3d", input.ndim, 3)
    return _unbatched_feature_dropout(input, p, training, inplace, input.ndim == 5)


# ====================================================================== pixel shuffle
def _shuffle_arrays(x, r, up):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r) when up, the inverse when not; always a new array."""
    lead, nd = x.shape[:-3], x.ndim - 3
    c, h, w = x.shape[-3:]
    if up:
        split = lead + (c // (r * r), r, r, h, w)
        order = tuple(range(nd)) + (nd, nd + 3, nd + 1, nd + 4, nd + 2)
        out_shape = lead + (c // (r * r), h * r, w * r)
    else:
        split = lead + (c, h // r, r, w // r, r)
        order = tuple(range(nd)) + (nd, nd + 2, nd + 4, nd + 1, nd + 3)
        out_shape = lead + (c * r * r, h // r, w // r)
    out = x.reshape(split).transpose(order).reshape(out_shape)
    return out.copy() if r == 1 or out.base is x else out


class PixelShuffle(Function):
    """Moves r*r channels into an r-times larger image; the gradient is the inverse shuffle."""
    __slots__ = ("factor",)
    op = "pixel_shuffle"

    def forward(self, x, factor):
        self.factor = factor
        return _shuffle_arrays(x, factor, True)

    def backward(self, F, g):
        return (_shuffle_with(F, g, self.factor, False),)


class PixelUnshuffle(Function):
    """The inverse of PixelShuffle: r x r pixel blocks become channels."""
    __slots__ = ("factor",)
    op = "pixel_unshuffle"

    def forward(self, x, factor):
        self.factor = factor
        return _shuffle_arrays(x, factor, False)

    def backward(self, F, g):
        return (_shuffle_with(F, g, self.factor, True),)


def _shuffle_with(F, g, r, up):
    """The shuffle in backward's namespace (arrays, or engine tensors under create_graph)."""
    if isinstance(g, Tensor):
        return pixel_shuffle(g, r) if up else pixel_unshuffle(g, r)
    return _shuffle_arrays(g, r, up)


def _check_shuffle(name, input, factor, up):
    kind = "upscale_factor" if up else "downscale_factor"
    if input.ndim < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input with {input.ndim} "
                           "dimension(s)")
    if not isinstance(factor, numbers.Integral) or isinstance(factor, bool):
        raise TypeError(f"{name}(): argument '{kind}' must be int, not {type(factor).__name__}")
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {kind}, but got {factor}")
    c, h, w = input.shape[-3:]
    if up and c % (factor * factor):
        raise RuntimeError(f"{name} expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {factor * factor}")
    if not up:
        for what, dim, size in (("height", -2, h), ("width", -1, w)):
            if size % factor:
                raise RuntimeError(f"{name} expects {what} to be divisible by downscale_factor, but "
                                   f"input.size({dim})={size} is not divisible by {factor}")
    return int(factor)


def pixel_shuffle(input, upscale_factor):
    """Rearranges (*, C*r*r, H, W) into (*, C, H*r, W*r), r = upscale_factor (sub-pixel convolution)."""
    return PixelShuffle.apply(input, factor=_check_shuffle("pixel_shuffle", input, upscale_factor, True))


def pixel_unshuffle(input, downscale_factor):
    """Rearranges (*, C, H*r, W*r) into (*, C*r*r, H, W), r = downscale_factor: the inverse of pixel_shuffle."""
    return PixelUnshuffle.apply(input, factor=_check_shuffle("pixel_unshuffle", input, downscale_factor, False))


# ====================================================================== embeddings
class Embedding(Function):
    """weight[indices]; backward is a scatter-add of the rows of the gradient (no one-hot), the rows
    of padding_idx getting none; with scale_grad_by_freq each row's gradient is divided by how
    often its index occurs in the batch."""
    __slots__ = ("num_weights", "padding_idx", "scale_grad_by_freq")
    op = "embedding"
    saves = (0,)

    def forward(self, indices, weight, padding_idx, scale_grad_by_freq=False):
        self.num_weights = weight.shape[0]
        self.padding_idx = padding_idx
        self.scale_grad_by_freq = scale_grad_by_freq
        return _xp(weight).take(weight, indices, axis=0)

    def backward(self, F, g, indices):
        idx = _data(indices).reshape(-1)
        width = g.shape[-1]
        if isinstance(g, Tensor):
            flat_g = F.reshape(g, (-1, width))
            if self.scale_grad_by_freq:
                counts = _xp(idx).bincount(idx, minlength=self.num_weights)[idx]
                flat_g = flat_g / _const(g, counts[:, None].astype(_data(g).dtype))
            gw = F.index_put(F.new_zeros(flat_g, (self.num_weights, width)), (_const(g, idx),), flat_g,
                             accumulate=True)
            if self.padding_idx is not None:
                keep = _xp(idx).ones((self.num_weights, 1), dtype=_data(g).dtype)
                keep[self.padding_idx] = 0
                gw = gw * _const(g, keep)
            return None, gw
        xp = _xp(g)
        rows = g.reshape(-1, width)
        gw = xp.zeros((self.num_weights, width), dtype=g.dtype)
        if xp is not np:   # CuPy: its scatter-add (no reduceat there)
            if self.scale_grad_by_freq:
                rows = rows / xp.bincount(idx, minlength=self.num_weights)[idx][:, None].astype(g.dtype)
            _array_ops._add_at(gw, idx, rows)
        elif idx.size:
            # sorted, each run of equal indices summed by one reduceat: ~2x np.add.at
            order = xp.argsort(idx, kind="stable")
            sidx = idx[order]
            starts = xp.flatnonzero(xp.concatenate([xp.ones(1, dtype=bool), sidx[1:] != sidx[:-1]]))
            sums = xp.add.reduceat(rows[order], starts, axis=0)
            if self.scale_grad_by_freq:
                sums /= xp.diff(xp.concatenate([starts, xp.asarray([idx.size])]))[:, None].astype(g.dtype)
            gw[sidx[starts]] = sums
        if self.padding_idx is not None:
            gw[self.padding_idx] = 0
        return None, gw


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """Looks up rows of weight by the integer indices in input."""
    n = weight.shape[0]
    if padding_idx is not None:   # PyTorch's Python-level check, before the op's own
        if not -n <= padding_idx < n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = padding_idx + n if padding_idx < 0 else padding_idx
    if weight._data.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if input._data.dtype.kind not in "iu":
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.type()} instead (while checking arguments for embedding)")
    idx = input._data
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= n):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _embedding_renorm(weight, idx, max_norm, norm_type)
    return Embedding.apply(input, weight, padding_idx=padding_idx, scale_grad_by_freq=bool(scale_grad_by_freq))


def _embedding_renorm(weight, idx, max_norm, norm_type):
    # in place and outside autograd, as torch.embedding_renorm_
    xp = _xp(weight._data)
    rows = xp.unique(idx.reshape(-1))
    w = weight._data
    norms = (xp.abs(w[rows]) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(w.dtype)
    w[rows] *= scale[:, None]
    weight._version[0] += 1


def one_hot(tensor, num_classes=-1):
    """Returns a (..., num_classes) int64 tensor with a one at each index of tensor."""
    data = tensor._data
    if data.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    xp = _xp(data)
    if num_classes == -1:
        if data.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(data.max()) + 1
    if data.size:
        if int(data.min()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if int(data.max()) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    out = (data[..., None] == xp.arange(num_classes)).astype(np.int64)
    return Tensor._adopt_array(out, False, None)


# ====================================================================== convolution and pooling
def _as_strided(xp, a, shape, strides):
    if xp is np:
        return np.lib.stride_tricks.as_strided(a, shape, strides, writeable=False)
    return xp.lib.stride_tricks.as_strided(a, shape, strides)


def _padded(x, padding, fill):
    """x (N, C, H, W) inside a border of fill: padding is ((top, bottom), (left, right))."""
    (pt, pb), (pl, pr) = padding
    if not (pt or pb or pl or pr):
        return x
    n, c, h, w = x.shape
    out = _xp(x).full((n, c, h + pt + pb, w + pl + pr), fill, dtype=x.dtype)
    out[:, :, pt:pt + h, pl:pl + w] = x
    return out


def _tap(i, dilation, stride, out):
    """The positions kernel tap i reads, one per output position: a strided slice."""
    return slice(i * dilation, i * dilation + stride * (out - 1) + 1, stride)


def _out_size(size, kernel, dilation, pad_before, pad_after, stride):
    return (size + pad_before + pad_after - dilation * (kernel - 1) - 1) // stride + 1


class Im2Col(Function):
    """Gathers sliding windows: (N, C, H, W) -> (N, C, kh, kw, oh, ow), zero padded.

    ``padding`` is ((top, bottom), (left, right)). Col2Im is its adjoint, so
    each is the other's backward and convolution gradients of any order
    come from the pair.
    """
    __slots__ = ("in_shape", "kernel", "dilation", "padding", "stride")
    op = "im2col"

    def forward(self, x, kernel, dilation, padding, stride):
        self.in_shape, self.kernel, self.dilation, self.padding, self.stride = \
            x.shape, kernel, dilation, padding, stride
        return _im2col(x, kernel, dilation, padding, stride)

    def backward(self, F, g):
        return (_run(Col2Im, g, in_shape=self.in_shape, kernel=self.kernel, dilation=self.dilation,
                     padding=self.padding, stride=self.stride),)


class Col2Im(Function):
    """Sums windows back into an image: the adjoint of Im2Col."""
    __slots__ = ("kernel", "dilation", "padding", "stride")
    op = "col2im"

    def forward(self, cols, in_shape, kernel, dilation, padding, stride):
        self.kernel, self.dilation, self.padding, self.stride = kernel, dilation, padding, stride
        return _col2im(cols, in_shape, kernel, dilation, padding, stride)

    def backward(self, F, g):
        return (_run(Im2Col, g, kernel=self.kernel, dilation=self.dilation, padding=self.padding,
                     stride=self.stride),)


def _im2col(x, kernel, dilation, padding, stride):
    """Im2Col on an array: (N, C, H, W) -> (N, C, kh, kw, oh, ow)."""
    xp = _xp(x)
    (pl, pr), (kw, dw) = padding[1], (kernel[1], dilation[1])
    if stride == (1, 1) and pl + pr == dw * (kw - 1):
        return _im2col_same_width(x, kernel, dilation, padding)
    x = xp.ascontiguousarray(_padded(x, padding, 0))
    n, c = x.shape[:2]
    (kh, kw), (dh, dw), (sh, sw) = kernel, dilation, stride
    oh = (x.shape[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (x.shape[3] - dw * (kw - 1) - 1) // sw + 1
    s0, s1, s2, s3 = x.strides
    windows = _as_strided(xp, x, (n, c, kh, kw, oh, ow), (s0, s1, s2 * dh, s3 * dw, s2 * sh, s3 * sw))
    return xp.ascontiguousarray(windows)


def _clipped_tap(i, dilation, stride, pad, size, out):
    """(output positions, input positions) of kernel tap i that fall inside the unpadded input,
    as two slices (0 <= r * stride + i * dilation - pad < size), or None when none do."""
    offset = i * dilation - pad
    lo = max(0, -(offset // stride))
    hi = min(out - 1, (size - 1 - offset) // stride)
    if hi < lo:
        return None
    return slice(lo, hi + 1), slice(lo * stride + offset, hi * stride + offset + 1, stride)


def _col2im(cols, in_shape, kernel, dilation, padding, stride):
    """Adds each kernel tap's (N, C, oh, ow) plane of ``cols`` (N, C, kh, kw, oh, ow; broadcast
    views welcome) into a zero image at its strided positions: kh * kw additions, the padding
    border never materialised."""
    n, c, h, w = in_shape
    (pt, _), (pl, _) = padding
    (kh, kw), (dh, dw), (sh, sw) = kernel, dilation, stride
    oh, ow = cols.shape[4], cols.shape[5]
    xp = _xp(cols.planes[0] if type(cols) is _TapPlanes else cols)
    out = xp.zeros((n, c, h, w), dtype=cols.dtype)
    columns = [_clipped_tap(j, dw, sw, pl, w, ow) for j in range(kw)]
    for i in range(kh):
        rows = _clipped_tap(i, dh, sh, pt, h, oh)
        if rows is None:
            continue
        for j, cs in enumerate(columns):
            if cs is not None:
                out[:, :, rows[1], cs[1]] += cols[:, :, i, j, rows[0], cs[0]]
    return out


def _same_width_taps(kernel, dilation, padding, h, w, oh):
    """For stride 1 and output rows as wide as the input's: tap (i, j) reads the flattened
    (H * W) plane at flat offset d = (i * dh - top) * W + j * dw - left from each flat output
    position. Yields (i, j, d, lo, hi, wrapped): output positions lo:hi read (or add to)
    positions lo + d:hi + d; ``wrapped`` are the output columns whose shifted column falls off
    the left or right edge (the flat offset would wrap them into the neighbouring row)."""
    (kh, kw), (dh, dw) = kernel, dilation
    (pt, _), (pl, _) = padding
    size = oh * w
    for j in range(kw):
        dc = j * dw - pl
        wrapped = range(w) if abs(dc) >= w else range(-dc) if dc < 0 else range(w - dc, w)
        for i in range(kh):
            d = (i * dh - pt) * w + dc
            lo, hi = max(0, -d), min(size, h * w - d)
            yield i, j, d, lo, max(hi, lo), wrapped


def _whole_tap(taps, size):
    """The index of a tap reading the whole (size-element) plane unshifted, the centre of a
    same-padded kernel, if there is one: a col2im sum starts as a copy of it, not zeros it is added to."""
    for k, (_, _, d, lo, hi, wrapped) in enumerate(taps):
        if d == 0 and (lo, hi) == (0, size) and not wrapped:
            return k
    return None


def _im2col_same_width(x, kernel, dilation, padding):
    """Im2Col for stride 1 where the output rows are as wide as the input's: each tap one
    copy of a contiguous run of the flattened plane, then zeros where the tap reads padding
    (before the first row, after the last, and the wrapped columns). No padded copy of x,
    and runs of oh * W elements instead of N * C * oh rows of ow (conv16->32 over 14x14,
    batch 32: 0.44 -> 0.2 ms)."""
    n, c, h, w = x.shape
    (kh, kw), (dh, _) = kernel, dilation
    (pt, pb), _ = padding
    oh = h + pt + pb - dh * (kh - 1)
    xp = _xp(x)
    xflat = xp.ascontiguousarray(x).reshape(n, c, h * w)
    size = oh * w
    cols = xp.empty((n, c, kh, kw, size), dtype=x.dtype)
    for i, j, d, lo, hi, wrapped in _same_width_taps(kernel, dilation, padding, h, w, oh):
        tap = cols[:, :, i, j]
        tap[:, :, lo:hi] = xflat[:, :, lo + d:hi + d]
        tap[:, :, :lo] = 0
        tap[:, :, hi:] = 0
        for col in wrapped:
            tap[:, :, col::w] = 0
    return cols.reshape(n, c, kh, kw, oh, w)


def _col2im_same_width(cols, in_shape, kernel, dilation, padding):
    """_col2im for stride 1 where the output rows are as wide as the input's, on columns it may
    overwrite: each tap one addition of a contiguous run of the flattened plane (the strided
    form adds N * C * oh rows of ow elements per tap), after zeroing the elements that the
    flat offset would carry past the left or right edge into the neighbouring row."""
    n, c, h, w = in_shape
    kh, kw = kernel
    xp = _xp(cols)
    cols = xp.ascontiguousarray(cols)
    oh = cols.shape[4]
    flat = cols.reshape(n, c, kh, kw, oh * w)
    taps = list(_same_width_taps(kernel, dilation, padding, h, w, oh))
    whole = _whole_tap(taps, h * w)
    if whole is not None:
        i, j = taps.pop(whole)[:2]
        out = flat[:, :, i, j, :h * w].copy()
    else:
        out = xp.zeros((n, c, h * w), dtype=cols.dtype)
    for i, j, d, lo, hi, wrapped in taps:
        tap = flat[:, :, i, j]
        for col in wrapped:
            tap[:, :, col::w] = 0
        if hi > lo:
            out[:, :, lo + d:hi + d] += tap[:, :, lo:hi]
    return out.reshape(in_shape)


def _is_same_size_conv(kernel, dilation, padding, stride, groups):
    """Whether a convolution runs on tap-major columns: one group, stride 1, and an output as tall
    and as wide as its input (the padding is the dilated kernel's extent less one)."""
    (pt, pb), (pl, pr) = padding
    (kh, kw), (dh, dw) = kernel, dilation
    return groups == 1 and stride == (1, 1) and pt + pb == dh * (kh - 1) and pl + pr == dw * (kw - 1)


def _tap_major_taps(kernel, dilation, padding, h, w):
    """_same_width_taps for an output the input's size, in tap order (i * kw + j)."""
    return sorted(_same_width_taps(kernel, dilation, padding, h, w, h), key=lambda tap: tap[:2])


def _zero_outside(tap, lo, hi, wrapped, w):
    """Zeros the (N, C, H * W) positions of a tap that read padding: those before ``lo`` and from
    ``hi`` on in each plane (the rows above or below), and the wrapped columns."""
    tap[:, :, :lo] = 0
    tap[:, :, hi:] = 0
    for col in wrapped:
        tap[:, :, col::w] = 0


def _im2col_tap_major(x, kernel, dilation, padding):
    """(N, C, H, W) -> (N, kh * kw, C, H * W) columns of a same-size stride-1 convolution.

    Tap t's (C, H * W) block of a sample is the sample's flattened channels shifted by the tap's
    flat offset d, so each tap is one copy of N rows of C * H * W elements, across channel
    boundaries; the positions where the shift crossed into the neighbouring channel, or wrapped
    into the next row, are the ones the tap reads from padding, and are then zeroed. (The
    channel-major layout copies N * C rows of H * W: conv16->32 over 14x14, batch 32, im2col
    0.45 -> 0.28 ms and col2im 0.82 -> 0.34 ms, CPU time.)"""
    n, c, h, w = x.shape
    xp = _xp(x)
    size = h * w
    if kernel == (1, 1):
        return xp.ascontiguousarray(x).reshape(n, 1, c, size)     # x itself: nothing to gather
    rows = xp.ascontiguousarray(x).reshape(n, c * size)
    cols = xp.empty((n, kernel[0] * kernel[1], c, size), dtype=x.dtype)
    for i, j, d, lo, hi, wrapped in _tap_major_taps(kernel, dilation, padding, h, w):
        tap = cols[:, i * kernel[1] + j]
        a, b = max(0, -d), min(c * size, c * size - d)
        if b > a:
            tap.reshape(n, c * size)[:, a:b] = rows[:, a + d:b + d]
        _zero_outside(tap, lo, hi, wrapped, w)
    return cols


def _col2im_tap_major(cols, in_shape, kernel, dilation, padding):
    """The adjoint of _im2col_tap_major on (N, kh * kw, C, H * W) columns it may overwrite: each
    tap, its padding positions zeroed, is one addition of N rows of C * H * W elements shifted
    back by its offset; the centre tap of an odd kernel starts the sum as a copy."""
    n, c, h, w = in_shape
    xp = _xp(cols)
    size = h * w
    taps = _tap_major_taps(kernel, dilation, padding, h, w)
    whole = _whole_tap(taps, size)
    if whole is not None:
        i, j = taps.pop(whole)[:2]
        out = cols[:, i * kernel[1] + j].reshape(n, c * size).copy()
    else:
        out = xp.zeros((n, c * size), dtype=cols.dtype)
    for i, j, d, lo, hi, wrapped in taps:
        tap = cols[:, i * kernel[1] + j]
        _zero_outside(tap, lo, hi, wrapped, w)
        a, b = max(0, -d), min(c * size, c * size - d)
        if b > a:
            out[:, a + d:b + d] += tap.reshape(n, c * size)[:, a:b]
    return out.reshape(in_shape)


# the forward's im2col columns are kept for the weight gradient up to this size (bytes); larger
# ones are gathered again in backward rather than held through the forward pass
KEEP_COLUMNS_BYTES = 64 << 20
# a convolution whose im2col columns would pass KEEP_COLUMNS_BYTES runs over the batch in chunks of
# samples whose columns stay within this size (bytes), CPU only: the whole batch's columns went into
# fresh pages the kernel faulted in and zeroed, were read back from memory by the product, and were
# gathered whole again in backward; a chunk's reuse the heap's pages and stay in cache, and backward
# gathers each chunk's again from cache for the weight gradient. 32 x 64 x 56 x 56 3x3 (231 MB of
# columns), CPU time, one BLAS thread: forward+backward 1085 -> 448 ms. Below KEEP_COLUMNS_BYTES the
# whole batch's columns, kept for backward, cost less in a training step than chunks gathered twice
# (yunjey's CIFAR ResNet, 59 MB a convolution: 2.0x PyTorch kept, 2.1-3.2x chunked at 4 MB).
CHUNK_COLUMNS_BYTES = 4 << 20


# A depthwise convolution (each channel its own filter) at stride 1 with a kernel at least this wide
# runs as banded matrix products (_banded_forward) instead of im2col: im2col copies the input
# kh * kw times over to feed one tiny product per sample and channel, and a 7x7's forward ran 30x
# PyTorch's (8 x 32 x 32 x 32: 21 ms, PyTorch 0.7). Narrower kernels (the common 3x3) gain nothing.
BANDED_MIN_WIDTH = 4
BANDED_BLOCK = 8   # output columns per block, at least: larger blocks did more work for little BLAS gain


def _banded_conv(x4, w4, groups, stride, dilation):
    """Whether this convolution runs banded: depthwise (a filter per channel, one output each), stride
    1, a kernel BANDED_MIN_WIDTH wide or more whose dilated width is at most 2 * BANDED_BLOCK + 1 (the
    block grows with it, and the work and the band's memory with its square: dilation 50 would make
    blocks of 150), on the CPU."""
    kw = w4.shape[3]
    return (groups == x4.shape[1] == w4.shape[0] and w4.shape[1] == 1 and stride == (1, 1)
            and kw >= BANDED_MIN_WIDTH and (kw - 1) * dilation[1] <= 2 * BANDED_BLOCK and _xp(x4) is np)


def _banded_layout(x_shape4, kernel, dilation, padding):
    """(block, blocks): the output row's columns in blocks of ``block``, and how many blocks a row
    has; a block's window (its columns' kw taps) lies within its own and the next block's columns."""
    w = x_shape4[3]
    (_, kw), (_, dw), (pl, pr) = kernel, dilation, padding[1]
    span = (kw - 1) * dw + 1
    block = max(span - 1, BANDED_BLOCK)
    return block, -(-(w + pl + pr - span + 1) // block)


def _banded_input(x4, kernel, dilation, padding):
    """The padded input laid out (C, Hp, N, (blocks + 1) * block) in a flat buffer one block longer:
    for each tap row, every (output row, sample, block)'s own columns are then one contiguous
    (M, block) matrix per channel, and its next block's columns the same matrix one block on."""
    n, c, h, w = x4.shape
    (pt, pb), (pl, _) = padding
    block, blocks = _banded_layout(x4.shape, kernel, dilation, padding)
    hp, width = h + pt + pb, (blocks + 1) * block
    buf = np.zeros(c * hp * n * width + block, dtype=x4.dtype)
    buf[:c * hp * n * width].reshape(c, hp, n, width)[:, pt:pt + h, :, pl:pl + w] = x4.transpose(1, 2, 0, 3)
    return buf


def _banded_weight(w4, block, dilation):
    """(kh, C, block, block) twice: the band of each tap row split at its block, [input column, output
    column], for the outputs' own block (T[s + j * dw, s] = w[c, 0, i, j]) and the next one."""
    c, _, kh, kw = w4.shape
    band = np.zeros((kh, c, 2 * block, block), dtype=w4.dtype)
    s = np.arange(block)
    for j in range(kw):
        band[:, :, s + j * dilation[1], s] = w4[:, 0, :, j].T[:, :, None]
    return band[:, :, :block], band[:, :, block:]


def _banded_blocks(buf, i, shift, c, m, block, plane, row, transposed=False):
    """Tap row i's (C, M, block) matrix of own (shift 0) or next (shift 1) blocks in ``buf``."""
    isz = buf.itemsize
    strides = (plane * isz, isz, block * isz) if transposed else (plane * isz, block * isz, isz)
    shape = (c, block, m) if transposed else (c, m, block)
    return np.lib.stride_tricks.as_strided(buf[i * row + shift * block:], shape, strides)


def _banded_forward(x4, w4, dilation, padding, out_size):
    """A depthwise stride-1 convolution as 2 * kh banded products of (M, block) blocks, stacked
    over the channels, M = oh * N * (blocks + 1): each output block from its own input block and the
    next. Returns the (N, C, oh, ow) output and the laid-out input (kept for the weight gradient)."""
    n, c = x4.shape[:2]
    kernel = w4.shape[2:]
    oh, ow = out_size
    block, blocks = _banded_layout(x4.shape, kernel, dilation, padding)
    buf = _banded_input(x4, kernel, dilation, padding)
    own, nxt = _banded_weight(w4, block, dilation)
    row = n * (blocks + 1) * block
    plane = (x4.shape[2] + sum(padding[0])) * row
    m = oh * n * (blocks + 1)
    out = None
    for i in range(kernel[0]):
        at = i * dilation[0]
        part = _banded_blocks(buf, at, 0, c, m, block, plane, row) @ own[i]
        part += _banded_blocks(buf, at, 1, c, m, block, plane, row) @ nxt[i]
        if out is None:
            out = part
        else:
            out += part
    out = out.reshape(c, oh, n, (blocks + 1) * block)[..., :ow]
    return np.ascontiguousarray(out.transpose(2, 0, 1, 3)), buf


def _banded_backward(g, x4, w4, x_shape4, kernel, dilation, padding, buf, want_x, want_w):
    """Both gradients of _banded_forward: the blocks' products transposed, then the weight's taps
    read off the band's diagonals, and the input's blocks added back into the laid-out input. x4 is
    read only for the weight's gradient (when ``buf`` was not kept), w4 only for the input's."""
    n, c, h, w = x_shape4
    (kh, kw), (dh, dw), (pt, pb), (pl, _) = kernel, dilation, padding[0], padding[1]
    oh, ow = g.shape[2:]
    block, blocks = _banded_layout(x_shape4, kernel, dilation, padding)
    width = (blocks + 1) * block
    row = n * width
    plane = (h + pt + pb) * row
    m = oh * n * (blocks + 1)
    gm = np.zeros((c, oh, n, width), dtype=g.dtype)
    gm[..., :ow] = g.transpose(1, 2, 0, 3)
    gm = gm.reshape(c, m, block)
    gx = gw = None
    if want_w:
        if buf is None:
            buf = _banded_input(x4, kernel, dilation, padding)
        gw = np.empty((c, 1, kh, kw), dtype=g.dtype)
        s = np.arange(block)
        for i in range(kh):
            band = np.concatenate([_banded_blocks(buf, i * dh, shift, c, m, block, plane, row, True) @ gm
                                   for shift in (0, 1)], axis=1)          # (C, 2 * block, block)
            for j in range(kw):
                gw[:, 0, i, j] = band[:, s + j * dw, s].sum(-1)
    if want_x:
        own, nxt = _banded_weight(w4, block, dilation)
        gbuf = np.zeros(c * plane + block, dtype=g.dtype)
        for i in range(kh):
            for shift, band in ((0, own[i]), (1, nxt[i])):
                view = _banded_blocks(gbuf, i * dh, shift, c, m, block, plane, row)
                view += gm @ np.ascontiguousarray(band.swapaxes(-1, -2))
        gx = gbuf[:c * plane].reshape(c, h + pt + pb, n, width)[:, pt:pt + h, :, pl:pl + w]
        gx = np.ascontiguousarray(gx.transpose(2, 0, 1, 3))
    return gx, gw


class Conv(Function):
    """N-d convolution (1-d and 2-d) as im2col and one batched matrix product per group.

    Layout: columns (N, G, C/G * kh * kw, oh * ow), so the forward is one matmul of the
    (G, O/G, C/G * k) weight against them (BLAS per sample, no Python loop), the input
    gradient one matmul and kh * kw strided additions (col2im), the weight gradient one
    matmul against the columns kept from the forward, summed over the batch. A same-size
    stride-1 convolution of one group (the usual 3x3 padding 1) orders its columns tap-major,
    (N, kh * kw * C, L), and its weight to match, so that im2col and col2im move whole samples
    per tap (_im2col_tap_major). A depthwise stride-1 convolution with a kernel BANDED_MIN_WIDTH wide
    or wider runs as banded products instead (_banded_forward), with no im2col at all."""
    __slots__ = ("stride", "padding", "dilation", "groups", "x_shape", "w_shape", "tap_major", "chunk", "banded")
    op = "convolution"
    backward_name = "ConvolutionBackward0"
    saves = (0, 1)
    grad_needs = ((1,), (0,), ())

    def forward(self, x, w, b, stride, padding, dilation, groups):
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        self.x_shape, self.w_shape = x.shape, w.shape
        x4, w4 = _as_2d(x), _as_2d(w)
        n = x4.shape[0]
        o = w4.shape[0]
        kernel = w4.shape[2:]
        oh, ow = _conv_out_size(x4.shape, kernel, dilation, padding, stride)
        self.banded = _banded_conv(x4, w4, groups, stride, dilation)
        if self.banded:
            self.tap_major, self.chunk = False, n
            out, buf = _banded_forward(x4, w4, dilation, padding, (oh, ow))
            if buf.nbytes <= KEEP_COLUMNS_BYTES:
                self.keep(buf)
            out = out.reshape((n, o) + ((ow,) if x.ndim == 3 else (oh, ow)))
            if b is not None:
                out += b.reshape((o,) + (1,) * (out.ndim - 2))
            return out
        self.tap_major = _is_same_size_conv(kernel, dilation, padding, stride, groups)
        wmat = _tap_major_weight(w4) if self.tap_major else _group_weight(w4, groups)
        k = self.chunk = self._chunk(x4, oh * ow, kernel)
        if k < n:
            out = self._chunked_forward(x4, wmat, k, kernel, oh * ow)
        else:
            cols = self._columns(x4, kernel, oh * ow)
            if cols.nbytes <= KEEP_COLUMNS_BYTES:
                self.keep(cols)
            out = wmat @ cols          # (N, G, O/G, L)
        out = out.reshape((n, o) + ((ow,) if x.ndim == 3 else (oh, ow)))
        if b is not None:
            out += b.reshape((o,) + (1,) * (out.ndim - 2))
        return out

    def _columns(self, x4, kernel, size):
        """The (M, G, C/G * kh * kw, oh * ow) columns of samples ``x4``, in this convolution's layout."""
        m, c = x4.shape[:2]
        if self.tap_major:
            cols = _im2col_tap_major(x4, kernel, self.dilation, self.padding)
        else:
            cols = _im2col(x4, kernel, self.dilation, self.padding, self.stride)
        return cols.reshape(m, self.groups, c // self.groups * kernel[0] * kernel[1], size)   # M may be 0

    def _chunk(self, x4, size, kernel):
        """Samples per chunk (CHUNK_COLUMNS_BYTES): the whole batch while its columns are kept
        (KEEP_COLUMNS_BYTES), and always
        on a GPU (CuPy's pool hands out memory without faults, and one large product beats many)."""
        n, c = x4.shape[:2]
        if _xp(x4) is not np:
            return n
        per_sample = kernel[0] * kernel[1] * c * size * x4.dtype.itemsize
        return n if per_sample * n <= KEEP_COLUMNS_BYTES else max(1, CHUNK_COLUMNS_BYTES // per_sample)

    def _chunked_forward(self, x4, wmat, k, kernel, size):
        """The forward over chunks of ``k`` samples: each chunk's columns, then its product written
        into the output in place. Nothing is kept: backward gathers each chunk's columns again."""
        n = x4.shape[0]
        xp = _xp(x4)
        out = xp.empty((n, self.groups, wmat.shape[1], size), dtype=x4.dtype)
        for s in range(0, n, k):
            xp.matmul(wmat, self._columns(x4[s:s + k], kernel, size), out=out[s:s + k])
        return out

    def _chunked_backward(self, gmat, x, w, kernel, out_size):
        """Both products of the backward over the forward's chunks: each chunk's input-gradient
        columns and their col2im, and its columns gathered again for its share of the weight
        gradient (x is saved only for that, and w only for the input's gradient: grad_needs)."""
        n, c, h, wd = x_shape4 = _shape_2d(self.x_shape)
        k = self.chunk
        oh, ow = out_size
        size = oh * ow
        xp = _xp(gmat)
        want_x, want_w = self.next_functions[0][0] is not None, self.next_functions[1][0] is not None
        x4 = x.reshape(x_shape4) if want_w else None
        w_t = None
        if want_x:   # w is saved only for the input's gradient (grad_needs)
            w4 = _as_2d(w)
            w_t = (_tap_major_weight(w4) if self.tap_major else _group_weight(w4, self.groups)).swapaxes(-1, -2)
        gx = xp.empty(x_shape4, dtype=gmat.dtype) if want_x else None
        gw = None
        dilation, padding, stride = self.dilation, self.padding, self.stride
        for s in range(0, n, k):
            g = gmat[s:s + k]
            m = g.shape[0]
            if want_x:
                gcols = w_t @ g                                              # (M, G, C/G * kh * kw, L)
                shape = (m, c, h, wd)
                if self.tap_major:
                    gcols = gcols.reshape(m, kernel[0] * kernel[1], c, size)
                    gx[s:s + k] = _col2im_tap_major(gcols, shape, kernel, dilation, padding)
                else:
                    gcols = gcols.reshape((m, c) + kernel + (oh, ow))
                    if stride == (1, 1) and ow == wd:
                        gx[s:s + k] = _col2im_same_width(gcols, shape, kernel, dilation, padding)
                    else:
                        gx[s:s + k] = _col2im(gcols, shape, kernel, dilation, padding, stride)
            if want_w:
                part = _weight_grad(g, self._columns(x4[s:s + k], kernel, size))
                if gw is None:
                    gw = part
                else:
                    gw += part
        if gx is not None:
            gx = gx.reshape(self.x_shape)
        if gw is not None:
            if self.tap_major:
                gw = gw.reshape((self.w_shape[0],) + kernel + (c,))             # (O, kh, kw, C)
                gw = xp.ascontiguousarray(gw.transpose(0, 3, 1, 2))
            gw = gw.reshape(self.w_shape)
        return gx, gw

    def backward(self, F, g, x, w, cols=None):
        groups, dilation, padding, stride = self.groups, self.dilation, self.padding, self.stride
        x_shape4, w_shape4 = _shape_2d(self.x_shape), _shape_2d(self.w_shape)
        kernel = w_shape4[2:]
        n, o = x_shape4[0], w_shape4[0]
        oh, ow = _shape_2d(g.shape)[2:]
        gmat = F.reshape(g, (n, groups, o // groups, oh * ow))      # (N, G, O/G, L)
        gx = gw = gb = None
        if self.banded and not isinstance(g, Tensor):
            gx, gw = _banded_backward(g.reshape(n, o, oh, ow), x.reshape(x_shape4) if x is not None else None,
                                      _as_2d(w) if w is not None else None, x_shape4, kernel, dilation, padding,
                                      cols, self.next_functions[0][0] is not None,
                                      self.next_functions[1][0] is not None)
            gx = gx.reshape(self.x_shape) if gx is not None else None
            gw = gw.reshape(self.w_shape) if gw is not None else None
        elif self.chunk < n and not isinstance(g, Tensor):
            gx, gw = self._chunked_backward(gmat, x, w, kernel, (oh, ow))
        elif self.tap_major and not isinstance(g, Tensor):
            if self.next_functions[0][0] is not None:
                gcols = _tap_major_weight(_as_2d(w)).swapaxes(-1, -2) @ gmat      # (N, 1, k * C, L)
                gcols = gcols.reshape(n, kernel[0] * kernel[1], x_shape4[1], oh * ow)
                gx = _col2im_tap_major(gcols, x_shape4, kernel, dilation, padding).reshape(self.x_shape)
            if self.next_functions[1][0] is not None:
                if cols is None:
                    cols = _im2col_tap_major(x.reshape(x_shape4), kernel, dilation, padding)
                    cols = cols.reshape(n, 1, -1, oh * ow)
                gw = _weight_grad(gmat, cols).reshape((o,) + kernel + (x_shape4[1],))   # (O, kh, kw, C)
                gw = _xp(gw).ascontiguousarray(gw.transpose(0, 3, 1, 2)).reshape(self.w_shape)
        else:
            if self.next_functions[0][0] is not None:
                wmat = F.reshape(w, (groups, o // groups, -1))          # (G, O/G, C/G*k)
                gcols = F.matmul(F.transpose(wmat, -1, -2), gmat)      # (N, G, C/G*k, L)
                gcols = F.reshape(gcols, (n, x_shape4[1]) + kernel + (oh, ow))
                if stride == (1, 1) and ow == x_shape4[3] and not isinstance(gcols, Tensor):
                    gx = _col2im_same_width(gcols, x_shape4, kernel, dilation, padding).reshape(self.x_shape)
                else:
                    gx = F.reshape(_run(Col2Im, gcols, in_shape=x_shape4, kernel=kernel, dilation=dilation,
                                        padding=padding, stride=stride), self.x_shape)
            if self.next_functions[1][0] is not None:
                if cols is None or isinstance(g, Tensor):
                    # under create_graph the columns must be a function of x, so they are gathered again
                    cols = _run(Im2Col, F.reshape(x, x_shape4), kernel=kernel, dilation=dilation,
                                padding=padding, stride=stride)
                    cols = F.reshape(cols, (n, groups, x_shape4[1] * kernel[0] * kernel[1] // groups, oh * ow))
                if isinstance(g, Tensor):
                    gw = F.reshape(F.sum(F.matmul(gmat, F.transpose(cols, -1, -2)), 0), self.w_shape)
                else:
                    gw = _weight_grad(gmat, cols).reshape(self.w_shape)
        if self.next_functions[2][0] is not None:
            if isinstance(g, Tensor):
                gb = F.sum(g, (0,) + tuple(range(2, g.ndim)))
            else:
                # each sample's (O, L) rows against a vector of ones, then over the batch: BLAS's
                # matrix-vector product is three times NumPy's sum over the axes (0, 2, 3)
                xp = _xp(g)
                gb = (gmat.reshape(n, o, oh * ow) @ xp.ones(oh * ow, dtype=g.dtype)).sum(0)
        return gx, gw, gb


def _conv_out_size(shape, kernel, dilation, padding, stride):
    """(oh, ow) of a convolution of an (N, C, H, W) input."""
    return tuple((size + lo + hi - d * (k - 1) - 1) // st + 1
                 for size, (lo, hi), k, d, st in zip(shape[2:], padding, kernel, dilation, stride))


def _tap_major_weight(w4):
    """The (1, O, kh * kw * C) weight matrix matching tap-major columns."""
    o = w4.shape[0]
    return _xp(w4).ascontiguousarray(w4.transpose(0, 2, 3, 1)).reshape(1, o, -1)


def _weight_grad(gmat, cols):
    """The (G, O/G, K) weight gradient from the (N, G, O/G, L) output gradient and the (N, G, K, L)
    columns: one product per sample, summed over the batch."""
    xp = _xp(cols)
    if min(gmat.shape[2], cols.shape[2]) < 32:
        # a thin product (few output channels or few taps, as in a first layer): NumPy's stacked
        # matmul over the transposed view beats copying either operand (conv1->16 over 28x28,
        # batch 32: 0.36 -> 0.13 ms)
        return (gmat @ cols.swapaxes(-1, -2)).sum(0)
    # otherwise contiguous operands only: NumPy's stacked matmul with a transposed operand is
    # twice as slow, and with 2 BLAS threads on a busy machine it took up to 500 ms instead of
    # 1 ms. Of the gradient and the columns, the smaller one is copied transposed (conv16->32 over
    # 14x14: the gradient, 0.8 MB instead of 3.6 MB, and a product half as slow: 1.0 -> 0.5 ms)
    if gmat.shape[2] < cols.shape[2]:
        g_t = xp.ascontiguousarray(gmat.swapaxes(-1, -2))            # (N, G, L, O/G)
        return xp.ascontiguousarray((cols @ g_t).sum(0).swapaxes(-1, -2))
    cols_t = xp.ascontiguousarray(cols.swapaxes(-1, -2))        # (N, G, L, K)
    return (gmat @ cols_t).sum(0)


def _shape_2d(shape):
    return (shape[0], shape[1], 1, shape[2]) if len(shape) == 3 else tuple(shape)


def _as_2d(a):
    return a.reshape(_shape_2d(a.shape)) if a.ndim == 3 else a


def _group_weight(w4, groups):
    return w4.reshape(groups, w4.shape[0] // groups, -1)


def _batched_conv_input(input, weight, nd, name):
    """A convolution's (or transposed convolution's) input with its batch dim, whether it had one, and
    PyTorch's errors for an input or weight of the wrong rank."""
    expected = nd + 2
    if input.ndim not in (expected - 1, expected):
        raise RuntimeError(f"Expected {expected - 1}D (unbatched) or {expected}D (batched) input to {name}, but "
                           f"got input of size: {list(input.shape)}")
    unbatched = input.ndim == expected - 1
    if unbatched:
        input = input.unsqueeze(0)
    if weight.ndim != expected:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
                           f"{list(weight.shape)}, but got {input.ndim}-dimensional input of size "
                           f"{list(input.shape)} instead")
    return input, unbatched


def _conv(input, weight, bias, stride, padding, dilation, groups, nd, name):
    input, unbatched, stride, pads, dilation = _conv_arguments(input, weight, bias, stride, padding, dilation, groups,
                                                               nd, name)
    if nd == 1:
        stride, dilation, pads = (1,) + stride, (1,) + dilation, ((0, 0),) + pads
    out = Conv.apply(input, weight, bias, stride=stride, padding=pads, dilation=dilation, groups=groups)
    return out.squeeze(0) if unbatched else out


def _conv_arguments(input, weight, bias, stride, padding, dilation, groups, nd, name):
    """A convolution's arguments checked as PyTorch checks them: the batched input, whether it was
    unbatched, and the stride, the (before, after) padding of each dimension and the dilation."""
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    input, unbatched = _batched_conv_input(input, weight, nd, name)
    c_in = input.shape[1]
    if c_in != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(input.shape)} to have {weight.shape[1] * groups} channels, but got {c_in} "
                           f"channels instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{list(weight.shape)}] instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
                           f"{weight.shape[0]} elements, but got bias of size {list(bias.shape)} instead")
    stride, dilation = _pair(stride, nd), _pair(dilation, nd)
    if any(st <= 0 for st in stride):   # (a zero stride divided the output size)
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {list((1,) * (2 - nd) + dilation)}")
    kernel = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0),) * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = tuple(((d * (k - 1)) // 2, d * (k - 1) - (d * (k - 1)) // 2) for k, d in zip(kernel, dilation))
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        pads = tuple((p, p) for p in _pair(padding, nd))
    padded = [size + pb + pa for size, (pb, pa) in zip(input.shape[2:], pads)]
    if any(p < d * (k - 1) + 1 for p, k, d in zip(padded, kernel, dilation)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(str(d * (k - 1) + 1) for k, d in zip(kernel, dilation))}). "
                           "Kernel size can't be greater than actual input size")
    _same_conv_dtypes(input, weight, bias)
    return input, unbatched, stride, pads, dilation


_C_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16"}


def _same_conv_dtypes(input, weight, bias):
    """PyTorch's errors for a convolution whose input, weight and bias differ in dtype (it casts none)."""
    x = input._data.dtype
    if bias is not None and bias._data.dtype != x:
        raise RuntimeError(f"Input type ({_C_TYPE.get(x.name, x.name)}) and bias type "
                           f"({_C_TYPE.get(bias._data.dtype.name, bias._data.dtype.name)}) should be the same")
    if weight._data.dtype != x:
        if x.name in ("float16", "bfloat16"):
            raise RuntimeError(f"Input type ({input.type()}) and weight type ({weight.type()}) should be the same or "
                               "input should be a MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {_scalar_type_name(input)} but found {_scalar_type_name(weight)}")


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Applies a 1-d convolution (cross-correlation) over an input of shape (N, C, L)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Applies a 2-d convolution (cross-correlation) over an input of shape (N, C, H, W)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Applies a 3-d convolution (cross-correlation) over an input of shape (N, C, D, H, W)."""
    input, unbatched, stride, pads, dilation = _conv_arguments(input, weight, bias, stride, padding, dilation, groups,
                                                               3, "conv3d")
    out = Convolution3d.apply(input, weight, bias, stride=stride, padding=pads, dilation=dilation, groups=groups)
    return out.squeeze(0) if unbatched else out


def _conv3d_composite(x, w, b, stride, padding, dilation, groups):
    """conv3d from 2-d convolutions: the input padded, then for each depth tap of the kernel the input's
    depth slices it meets (as a batch of planes) convolved with that tap's 2-d kernel, summed."""
    x = pad(x, [p for pair in reversed(padding) for p in pair])
    n, c, d = x.shape[:3]
    o, kd = w.shape[0], w.shape[2]
    sd, dd = stride[0], dilation[0]
    od = (d - dd * (kd - 1) - 1) // sd + 1
    out = None
    for i in range(kd):
        planes = x[:, :, i * dd:i * dd + sd * (od - 1) + 1:sd]                   # (N, C, OD, H, W)
        planes = planes.transpose(1, 2).reshape(n * od, c, *x.shape[3:])
        part = conv2d(planes, w[:, :, i], None, stride[1:], 0, dilation[1:], groups)
        out = part if out is None else out + part
    out = out.reshape(n, od, o, *out.shape[2:]).transpose(1, 2)
    if b is not None:
        out = out + b.reshape(o, 1, 1, 1)
    return out.contiguous()


class _Composite(Function):
    """An op that is one node in PyTorch, written here with the engine's differentiable ops
    (``_composite``): its forward runs them without a graph, and its backward runs them again from
    the saved inputs and differentiates that graph (higher orders too, under create_graph). The
    node is the program's; the ops inside are not reported to a watcher. Every input is saved."""
    __slots__ = ("params",)

    def forward(self, *arrays, **params):
        self.params = params
        with no_grad():
            return self._composite(*[None if a is None else Tensor._adopt_array(a, False, None) for a in arrays])._data

    def _composite(self, *inputs):
        raise NotImplementedError

    def backward(self, F, g, *saved):
        if isinstance(g, Tensor):
            return composite_grads(self, self._composite, saved, g)
        inputs = [None if a is None else Tensor._adopt_array(a, self.next_functions[i][0] is not None, None)
                  for i, a in enumerate(saved)]
        observer, state.observer = state.observer, None
        try:
            grads = composite_grads(self, self._composite, inputs, Tensor._adopt_array(g, False, None),
                                    create_graph=False)
        finally:
            state.observer = observer
        return tuple(None if gi is None else gi._data for gi in grads)


class Convolution3d(_Composite):
    """A 3-d convolution (_conv3d_composite), one ConvolutionBackward0 node as in PyTorch."""
    __slots__ = ()
    op = "convolution"
    backward_name = "ConvolutionBackward0"
    saves = (0, 1, 2)

    def _composite(self, x, w, b):
        return _conv3d_composite(x, w, b, **self.params)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extracts sliding local blocks: (N, C, H, W) -> (N, C * kh * kw, L), or (C, H, W) -> (C * kh * kw, L)."""
    kernel, dilation, stride, padding = _pair(kernel_size), _pair(dilation), _pair(stride), _pair(padding)
    if input.ndim == 2:
        raise IndexError("Dimension out of range (expected to be in range of [-2, 1], but got 2)")
    if input.ndim not in (3, 4):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    _check_sliding_blocks(kernel, dilation, stride)
    x = input.unsqueeze(0) if input.ndim == 3 else input
    blocks = [_out_size(size, k, d, p, p, st) for size, k, d, p, st in zip(x.shape[2:], kernel, dilation, padding, stride)]
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size ({x.shape[2]}, {x.shape[3]}), kernel_size={kernel}, "
                           f"dilation={dilation}, padding={padding}, calculated shape of the array of sliding blocks "
                           f"as ({blocks[0]}, {blocks[1]}), but its components must be at least one.")
    cols = Im2Col.apply(x, kernel=kernel, dilation=dilation, padding=tuple((p, p) for p in padding), stride=stride)
    out = cols.reshape(x.shape[0], x.shape[1] * kernel[0] * kernel[1], -1)
    return out.squeeze(0) if input.ndim == 3 else out


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Combines sliding local blocks into a tensor: (N, C * kh * kw, L) -> (N, C, H, W), or
    (C * kh * kw, L) -> (C, H, W)."""
    kernel, dilation, stride, padding = _pair(kernel_size), _pair(dilation), _pair(stride), _pair(padding)
    (h, w), (ph, pw) = _pair(output_size), padding
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    _check_sliding_blocks(kernel, dilation, stride)
    x = input.unsqueeze(0) if input.ndim == 2 else input
    taps = kernel[0] * kernel[1]
    if x.shape[1] % taps:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={x.shape[1]} and kernel_size={kernel}.")
    oh = _out_size(h, kernel[0], dilation[0], ph, ph, stride[0])
    ow = _out_size(w, kernel[1], dilation[1], pw, pw, stride[1])
    if x.shape[2] != oh * ow:
        raise RuntimeError(f"Given output_size={(h, w)}, kernel_size={kernel}, dilation={dilation}, "
                           f"padding={padding}, stride={stride}, expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {oh} * {ow} = {oh * ow}, but got "
                           f"input.size(2)={x.shape[2]}.")
    n, c = x.shape[0], x.shape[1] // taps
    cols = x.reshape(n, c, kernel[0], kernel[1], oh, ow)
    out = Col2Im.apply(cols, in_shape=(n, c, h, w), kernel=kernel, dilation=dilation,
                       padding=((ph, ph), (pw, pw)), stride=stride)
    return out.squeeze(0) if input.ndim == 2 else out


def _check_sliding_blocks(kernel, dilation, stride):
    """PyTorch's errors for unfold/fold windows that are not positive (a zero stride divided)."""
    for what, pair in (("kernel size", kernel), ("dilation", dilation), ("stride", stride)):
        if min(pair) <= 0:
            key = what.split()[0]
            raise RuntimeError(f"{what} should be greater than zero, but got {key}_height: {pair[0]} "
                               f"{key}_width: {pair[1]}")


def _check_pool_window(kernel, stride, dilation, nd, name):
    """PyTorch's errors for a pooling window that is not positive (a zero stride or kernel divided the
    output size); the 1-d poolings run as 2-d ones over a height of 1 and say so, but max_pool1d."""
    if name == "max_pool1d":
        for what, (v,) in (("kernel_size", kernel), ("stride", stride), ("dilation", dilation)):
            if v <= 0:
                raise RuntimeError(f"max_pool1d() {what} must be greater than zero, but got {v}")
        return
    if 0 in stride:
        raise RuntimeError("stride should not be zero")
    lead = (1,) * (2 - nd)
    for what, letter, pair in (("kernel size", "k", kernel), ("stride", "d", stride), ("dilation", "dilation", dilation)):
        if min(pair) <= 0:
            h, w = lead + tuple(pair)
            raise RuntimeError(f"{what} should be greater than zero, but got {letter}H: {h} {letter}W: {w}")


def _pool_geometry(input, kernel_size, stride, padding, dilation, ceil_mode, nd, name):
    kernel = _pair(kernel_size, nd)
    stride = kernel if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) \
        else _pair(stride, nd)
    padding, dilation = _pair(padding, nd), _pair(dilation, nd)
    _check_pool_window(kernel, stride, dilation, nd, name)
    for k, p, d in zip(kernel, padding, dilation):
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={d}")
    pads, outs = [], []
    for size, k, s, p, d in zip(input.shape[-nd:], kernel, stride, padding, dilation):
        span = size + 2 * p - d * (k - 1) - 1
        out = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (out - 1) * s >= size + p:
            out -= 1  # the last window must start inside the input or its left padding
        outs.append(out)
        extra = max(0, (out - 1) * s + d * (k - 1) + 1 - (size + 2 * p))
        pads.append((p, p + extra))
    if min(outs) < 1:
        if name == "max_pool1d":
            raise RuntimeError(f"max_pool1d() Invalid computed output size: {outs[0]}")
        # the 1-d poolings run as 2-d ones over a height of 1, and say so, as PyTorch's do
        lead = [input.shape[1]] + [1] * (2 - nd)
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, lead + list(input.shape[-nd:])))}). Calculated "
                           f"output size: ({'x'.join(map(str, lead + outs))}). Output size is too small")
    return kernel, stride, dilation, tuple(pads)


def _pool_input(input, nd, name):
    if input.ndim not in (nd + 1, nd + 2):
        if name == "avg_pool1d":
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                               "'self' (while checking arguments for avg_pool1d)")
        if name == "max_pool2d":
            raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
        raise RuntimeError(f"{name + ': ' if nd == 1 else ''}Expected {nd + 1}D or {nd + 2}D (batch mode) tensor "
                           f"with optional 0 dim batch size for input, but got:{list(input.shape)}")
    unbatched = input.ndim == nd + 1
    x = input.unsqueeze(0) if unbatched else input
    if nd == 1:
        x = x.unsqueeze(2)
    return x, unbatched


def _pool_output(out, unbatched, nd):
    if nd == 1:
        out = out.squeeze(2)
    return out.squeeze(0) if unbatched else out


def _pool_taps(x, kernel, dilation, padding, stride, fill):
    """The kernel taps of a pooling: for tap (i, j), the (N, C, oh, ow) strided view of the
    input (inside a border of ``fill`` only where padding or a ceil-mode overhang asks for one).
    With the stride equal to the kernel and no padding these are the planes of the reshape
    (N, C, oh, kh, ow, kw), taken without a copy."""
    x = _padded(x, padding, fill)
    (kh, kw), (dh, dw), (sh, sw) = kernel, dilation, stride
    oh = (x.shape[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (x.shape[3] - dw * (kw - 1) - 1) // sw + 1
    return [x[:, :, _tap(i, dh, sh, oh), _tap(j, dw, sw, ow)] for i in range(kh) for j in range(kw)]


def _window_max(x, kernel, dilation, padding, stride):
    """Max over each pooling window and the window offset (i * kw + j) it came from: the first
    maximum wins ties, a NaN wins over numbers (the last NaN of a window), as in PyTorch."""
    xp = _xp(x)
    taps = _pool_taps(x, kernel, dilation, padding, stride, -np.inf)
    best = xp.array(taps[0])
    index_type = np.uint8 if len(taps) < 256 else np.int64
    argbest = xp.zeros(best.shape, dtype=index_type)
    better = xp.empty(best.shape, dtype=bool)
    hit = xp.empty(best.shape, dtype=index_type)
    for t in range(1, len(taps)):
        v = xp.ascontiguousarray(taps[t])     # read twice: one copy beats two strided passes
        xp.greater(v, best, out=better)
        xp.maximum(best, v, out=best)
        # the taps come in increasing order, so a later strict maximum has the larger index
        xp.multiply(better, index_type(t), out=hit)
        xp.maximum(argbest, hit, out=argbest)
    if best.dtype.kind == "f" and bool(xp.isnan(best).any()):
        for t in range(1, len(taps)):
            nan = xp.isnan(taps[t])
            argbest = xp.where(nan, index_type(t), argbest)
    return best, argbest


class MaxPool(Function):
    """Max over each window; the gradient goes to the window's maximum (the first of ties)."""
    __slots__ = ("in_shape", "kernel", "dilation", "padding", "stride")
    op = "max_pool2d"
    backward_name = "MaxPool2DWithIndicesBackward0"

    def forward(self, x, kernel, dilation, padding, stride):
        self.in_shape, self.kernel, self.dilation, self.padding, self.stride = \
            x.shape, kernel, dilation, padding, stride
        best, argbest = _window_max(x, kernel, dilation, padding, stride)
        self.keep(argbest)
        return best

    def backward(self, F, g, argbest):
        kh, kw = self.kernel
        idx = _data(argbest)
        xp = _xp(idx)
        if not isinstance(g, Tensor):
            (sh, sw), (dh, dw), ((pt, _), (pl, _)) = self.stride, self.dilation, self.padding
            if sh >= dh * (kh - 1) + 1 and sw >= dw * (kw - 1) + 1:
                # windows that do not overlap (stride = kernel, the reshape case): each tap writes
                # its plane, the gradient where it was the maximum, straight into its strided view
                n, c, h, w = self.in_shape
                oh, ow = g.shape[2], g.shape[3]
                # windows tiling the input exactly (stride = kernel, no dilation, padding or rest)
                # write every element once, so the result needs no zeros first
                tiled = (sh, sw) == (kh, kw) and (dh, dw) == (1, 1) and (pt, pl) == (0, 0) \
                    and (h, w) == (oh * kh, ow * kw)
                out = (xp.empty if tiled else xp.zeros)(self.in_shape, dtype=g.dtype)
                for t in range(kh * kw):
                    i, j = divmod(t, kw)
                    rows, columns = _clipped_tap(i, dh, sh, pt, h, oh), _clipped_tap(j, dw, sw, pl, w, ow)
                    if rows is None or columns is None:
                        continue
                    if rows[0] == slice(0, oh) and columns[0] == slice(0, ow):
                        xp.multiply(g, idx == t, out=out[:, :, rows[1], columns[1]])
                    else:   # the ceil-mode overhang or padding: only the part inside the input
                        inside = (slice(None), slice(None), rows[0], columns[0])
                        xp.multiply(g[inside], idx[inside] == t, out=out[:, :, rows[1], columns[1]])
                return (out,)
            # each tap's plane is the gradient where that tap was the maximum, else zero
            planes = [xp.multiply(g, idx == t) for t in range(kh * kw)]
            cols = _TapPlanes(planes, kh, kw)
        else:
            choice = (idx[:, :, None, None] == xp.arange(kh * kw, dtype=idx.dtype).reshape(kh, kw, 1, 1))
            cols = F.unsqueeze(F.unsqueeze(g, 2), 2) * _const(g, choice.astype(_data(g).dtype))
        return (_run(Col2Im, cols, in_shape=self.in_shape, kernel=self.kernel, dilation=self.dilation,
                     padding=self.padding, stride=self.stride),)


class _TapPlanes:
    """(N, C, kh, kw, oh, ow) columns given as one (N, C, oh, ow) plane per tap, for _col2im
    (``cols[:, :, i, j, rows, columns]``) without stacking them into one array."""
    __slots__ = ("planes", "kw", "shape", "dtype")

    def __init__(self, planes, kh, kw):
        self.planes, self.kw = planes, kw
        p = planes[0]
        self.shape = p.shape[:2] + (kh, kw) + p.shape[2:]
        self.dtype = p.dtype

    def __getitem__(self, key):
        _, _, i, j, rows, columns = key
        return self.planes[i * self.kw + j][:, :, rows, columns]


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, nd, name):
    x, unbatched = _pool_input(input, nd, name)
    kernel, stride, dilation, pads = _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode, nd, name)
    if nd == 1:
        kernel, stride, dilation, pads = (1,) + kernel, (1,) + stride, (1,) + dilation, ((0, 0),) + pads
    out = MaxPool.apply(x, kernel=kernel, dilation=dilation, padding=pads, stride=stride)
    result = _pool_output(out, unbatched, nd)
    if not return_indices:
        return result
    node = out.grad_fn
    argbest = node.extra[0] if node is not None else _window_max(x._data, kernel, dilation, pads, stride)[1]
    argbest = argbest.astype(np.int64)
    return result, _pool_output(_flat_indices(argbest, x.shape[3], kernel, dilation, pads, stride), unbatched, nd)


def _flat_indices(argbest, width, kernel, dilation, pads, stride):
    """Positions in each (H, W) plane of the window maxima, as max_pool2d(return_indices=True) gives."""
    xp = _xp(argbest)
    kw = kernel[1]
    oh, ow = argbest.shape[2], argbest.shape[3]
    rows = (xp.arange(oh) * stride[0] - pads[0][0]).reshape(oh, 1) + (argbest // kw) * dilation[0]
    cols = (xp.arange(ow) * stride[1] - pads[1][0]).reshape(1, ow) + (argbest % kw) * dilation[1]
    return Tensor._adopt_array((rows * width + cols).astype(np.int64), False, None)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Applies 1-d max pooling over an input of shape (N, C, L)."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 1, "max_pool1d")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Applies 2-d max pooling over an input of shape (N, C, H, W); ties go to the first index."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2, "max_pool2d")


class AvgPool(Function):
    """Mean over each window (PyTorch's divisor per window): the sum of the kernel taps' strided
    views times a per-window scale; backward adds the scaled gradient back at every tap."""
    __slots__ = ("in_shape", "kernel", "padding", "stride", "scale")
    op = "avg_pool2d"
    backward_name = "AvgPool2DBackward0"

    def forward(self, x, kernel, padding, stride, scale):
        self.in_shape, self.kernel, self.padding, self.stride, self.scale = x.shape, kernel, padding, stride, scale
        taps = _pool_taps(x, kernel, (1, 1), padding, stride, 0)
        total = _xp(x).array(taps[0])
        for v in taps[1:]:
            total += v
        total *= scale
        return total

    def backward(self, F, g):
        kh, kw = self.kernel
        scaled = g * _const(g, self.scale)
        if isinstance(scaled, Tensor):
            cols = F.unsqueeze(F.unsqueeze(scaled, 2), 2)
            cols = cols * _const(g, _xp(self.scale).ones((1, 1, kh, kw, 1, 1), dtype=_data(g).dtype))
        else:
            cols = _TapPlanes([scaled] * (kh * kw), kh, kw)
        return (_run(Col2Im, cols, in_shape=self.in_shape, kernel=self.kernel, dilation=(1, 1),
                     padding=self.padding, stride=self.stride),)


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, nd, name):
    x, unbatched = _pool_input(input, nd, name)
    kernel, stride, dilation, pads = _pool_geometry(x, kernel_size, stride, padding, 1, ceil_mode, nd, name)
    if nd == 1:
        kernel, stride, dilation, pads = (1,) + kernel, (1,) + stride, (1,) + dilation, ((0, 0),) + pads
    if divisor_override:
        scale = _xp(x._data).asarray(1.0 / divisor_override, dtype=x._data.dtype)
    else:
        scale = _avg_pool_scale(x, kernel, pads, stride, count_include_pad)
    out = AvgPool.apply(x, kernel=kernel, padding=pads, stride=stride, scale=scale)
    return _pool_output(out, unbatched, nd)


def _avg_pool_scale(x, kernel, pads, stride, count_include_pad):
    """1 / the number of elements each window averages (PyTorch's divisor, ceil-mode overhang
    excluded): a scalar where every window counts kernel elements, else an (oh, ow) array."""
    xp = _xp(x._data)
    h, w = x.shape[2], x.shape[3]
    (ph, extra_h), (pw, extra_w) = pads
    dtype = x._data.dtype
    if not (extra_h or extra_w) and (count_include_pad or not (ph or pw)):
        return xp.asarray(1.0 / (kernel[0] * kernel[1]), dtype=dtype)
    counted = np.zeros((1, 1, h + ph + extra_h, w + pw + extra_w))
    if count_include_pad:
        counted[:, :, :h + 2 * ph, :w + 2 * pw] = 1
    else:
        counted[:, :, ph:ph + h, pw:pw + w] = 1
    windows = Im2Col.__new__(Im2Col).forward(counted, kernel=kernel, dilation=(1, 1), padding=((0, 0), (0, 0)),
                                             stride=stride)
    scale = (1.0 / windows.sum(axis=(2, 3))).astype(dtype)
    return scale if xp is np else xp.asarray(scale)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """Applies 1-d average pooling over an input of shape (N, C, L)."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1, "avg_pool1d")


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Applies 2-d average pooling over an input of shape (N, C, H, W)."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2,
                     "avg_pool2d")


def _depth_planes(x, tap, stride, dilation, depth):
    """The ``depth`` planes a 3-d window's depth tap ``tap`` meets, as a batch of 2-d inputs (N * depth, C, H, W)."""
    n, c = x.shape[:2]
    planes = x[:, :, tap * dilation:tap * dilation + stride * (depth - 1) + 1:stride]
    return planes.transpose(1, 2).reshape(n * depth, c, *x.shape[3:])


def _from_planes(out, n, depth):
    """(N * depth, C, h, w) back to (N, C, depth, h, w)."""
    return out.reshape(n, depth, *out.shape[1:]).transpose(1, 2).contiguous()


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Applies 3-d max pooling over an input of shape (N, C, D, H, W); ties go to the first index."""
    if return_indices:
        raise NotImplementedError("max_pool3d with return_indices=True is not supported by this engine")
    x, unbatched = _pool_input(input, 3, "max_pool3d")
    kernel, stride, dilation, pads = _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode, 3,
                                                    "max_pool3d")
    out = MaxPooling3d.apply(x, kernel=kernel, stride=stride, padding=_pair(padding, 3), dilation=dilation,
                          ceil_mode=ceil_mode, depth_pads=pads[0])
    return out.squeeze(0) if unbatched else out


class MaxPooling3d(_Composite):
    """3-d max pooling: for each depth tap, 2-d max pooling of the depth planes it meets, then the
    maximum over the taps (the first tap on a tie, as the first index in the window)."""
    __slots__ = ()
    op = "max_pool3d"
    backward_name = "MaxPool3DWithIndicesBackward0"
    saves = (0,)

    def _composite(self, x):
        from ..ops.shape import stack
        p = self.params
        kernel, stride, dilation = p["kernel"], p["stride"], p["dilation"]
        x = pad(x, [0, 0, 0, 0, *p["depth_pads"]], value=float("-inf"))
        depth = (x.shape[2] - dilation[0] * (kernel[0] - 1) - 1) // stride[0] + 1
        taps = [max_pool2d(_depth_planes(x, i, stride[0], dilation[0], depth), kernel[1:], stride[1:],
                           p["padding"][1:], dilation[1:], p["ceil_mode"]) for i in range(kernel[0])]
        return _from_planes(stack(taps).max(0)[0], x.shape[0], depth)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Applies 3-d average pooling over an input of shape (N, C, D, H, W)."""
    if ceil_mode:
        raise NotImplementedError("avg_pool3d with ceil_mode=True is not supported by this engine")
    x, unbatched = _pool_input(input, 3, "avg_pool3d")
    kernel, stride, _, _ = _pool_geometry(x, kernel_size, stride, padding, 1, False, 3, "avg_pool3d")
    padding = _pair(padding, 3)
    if not count_include_pad and padding[0]:
        raise NotImplementedError("avg_pool3d with count_include_pad=False and padding in depth is not supported "
                                  "by this engine")
    if divisor_override is not None and not divisor_override:
        raise RuntimeError("divisor must be not zero")
    out = AvgPooling3d.apply(x, kernel=kernel, stride=stride, padding=padding, count_include_pad=count_include_pad,
                          divisor=divisor_override)
    return out.squeeze(0) if unbatched else out


class AvgPooling3d(_Composite):
    """3-d average pooling: the mean over the depth taps of 2-d average pooling of the depth planes each meets."""
    __slots__ = ()
    op = "avg_pool3d"
    backward_name = "AvgPool3DBackward0"
    saves = (0,)

    def _composite(self, x):
        p = self.params
        kernel, stride, padding = p["kernel"], p["stride"], p["padding"]
        x = pad(x, [0, 0, 0, 0, padding[0], padding[0]])
        depth = (x.shape[2] - kernel[0]) // stride[0] + 1
        out = None
        for i in range(kernel[0]):
            part = avg_pool2d(_depth_planes(x, i, stride[0], 1, depth), kernel[1:], stride[1:], padding[1:],
                              count_include_pad=p["count_include_pad"])
            out = part if out is None else out + part
        scale = kernel[0] if p["divisor"] is None else p["divisor"] / (kernel[1] * kernel[2])
        return _from_planes(out / scale, x.shape[0], depth)


def adaptive_avg_pool3d(input, output_size):
    """Averages (N, C, D, H, W) over a grid of output_size cells of (nearly) equal size."""
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(input.shape)}")
    size = tuple(output_size) if isinstance(output_size, (list, tuple)) else (output_size,) * 3
    size = tuple(n if s is None else int(s) for s, n in zip(size, input.shape[-3:]))
    if size == (1, 1, 1):
        return input.mean((-3, -2, -1), keepdim=True)   # as PyTorch (MeanBackward1)
    return AdaptiveAvgPooling3d.apply(input, size=size)


class AdaptiveAvgPooling3d(_Composite):
    """Adaptive 3-d average pooling: separable, one averaging matrix product per axis that changes size."""
    __slots__ = ()
    op = "adaptive_avg_pool3d"
    backward_name = "AdaptiveAvgPool3DBackward0"
    saves = (0,)

    def _composite(self, x):
        (od, oh, ow), (d, h, w) = self.params["size"], x.shape[-3:]
        out = x * 1.0
        if ow != w:
            out = out @ _adaptive_matrix(w, ow, x).t()
        if oh != h:
            out = _adaptive_matrix(h, oh, x) @ out
        if od != d:
            out = (_adaptive_matrix(d, od, x) @ out.flatten(-2)).reshape(*out.shape[:-3], od, oh, ow)
        return out


def _adaptive_matrix(in_size, out_size, like):
    """(out, in) averaging matrix: row i averages [floor(i*in/out), ceil((i+1)*in/out))."""
    m = np.zeros((out_size, in_size))
    for i in range(out_size):
        start = (i * in_size) // out_size
        end = -((-(i + 1) * in_size) // out_size)
        m[i, start:end] = 1.0 / (end - start)
    m = m.astype(like._data.dtype)
    xp = _xp(like._data)
    return Tensor._adopt_array(m if xp is np else xp.asarray(m), False, None)


def adaptive_avg_pool2d(input, output_size):
    """Averages (N, C, H, W) over a grid of output_size cells of (nearly) equal size."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    size = output_size if isinstance(output_size, (list, tuple)) else (output_size, output_size)
    h, w = input.shape[-2], input.shape[-1]
    oh = h if size[0] is None else int(size[0])
    ow = w if size[1] is None else int(size[1])
    out = input
    # averaging over a rectangle is separable: rows, then columns, each one matrix product
    if oh != h:
        out = _adaptive_matrix(h, oh, input) @ out
    if ow != w:
        out = out @ _adaptive_matrix(w, ow, input).t()
    return out if out is not input else input * 1.0


def adaptive_avg_pool1d(input, output_size):
    """Averages (N, C, L) over output_size cells of (nearly) equal size."""
    size = output_size[0] if isinstance(output_size, (list, tuple)) else output_size
    if size == input.shape[-1]:
        return input * 1.0
    return input @ _adaptive_matrix(input.shape[-1], int(size), input).t()


class Pad(Function):
    """Constant padding: the input written into a larger array filled with value."""
    __slots__ = ("region",)
    op = "constant_pad_nd"
    backward_name = "ConstantPadNdBackward0"

    def forward(self, x, pads, value):
        xp = _xp(x)
        shape = tuple(s + a + b for s, (a, b) in zip(x.shape, pads))
        out = xp.full(shape, value, dtype=x.dtype)
        self.region = tuple(slice(a, a + s) for s, (a, _) in zip(x.shape, pads))
        out[self.region] = x
        return out

    def backward(self, F, g):
        return (F.getitem(g, self.region),)


class PadBorder(Function):
    """F.pad in reflect, replicate or circular mode: NumPy's pad forward; backward folds each padded
    border back onto the positions it copied, dimension by dimension, with slices (a gather per
    dimension, as it was, scattered its gradient back with np.add.at: 2.4-3.8x PyTorch's time)."""
    __slots__ = ("mode", "pairs", "nd")
    op = "pad"
    _NUMPY_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}

    def name(self):
        if self.mode == "circular":
            return "CopySlices"   # PyTorch pads circularly with slice copies
        return f"{'Reflection' if self.mode == 'reflect' else 'Replication'}Pad{self.nd}DBackward0"

    def forward(self, x, mode, pairs, nd):
        self.mode, self.pairs, self.nd = mode, pairs, nd
        return _xp(x).pad(x, pairs, mode=self._NUMPY_MODE[mode])

    def backward(self, F, g):
        sizes = [s - a - b for s, (a, b) in zip(g.shape, self.pairs)]
        if isinstance(g, Tensor):   # under create_graph: the gather's gradient, as engine ops
            for d, (a, b) in enumerate(self.pairs):
                if a or b:
                    pos = _xp(g._data).asarray(_border_positions(self.mode, sizes[d], a, b))
                    shape = g.shape[:d] + (sizes[d],) + g.shape[d + 1:]
                    g = F.index_put(F.new_zeros(g, shape), (slice(None),) * d + (pos,), g, True)
            return (g,)
        xp = _xp(g)
        for d, (a, b) in enumerate(self.pairs):
            if not (a or b):
                continue
            n = sizes[d]
            lead = (slice(None),) * d
            core = g[lead + (slice(a, a + n),)].copy()
            left, right = g[lead + (slice(0, a),)], g[lead + (slice(a + n, a + n + b),)]
            if self.mode == "reflect":
                core[lead + (slice(1, a + 1),)] += xp.flip(left, d)
                core[lead + (slice(n - 1 - b, n - 1),)] += xp.flip(right, d)
            elif self.mode == "replicate":
                core[lead + (slice(0, 1),)] += left.sum(d, keepdims=True)
                core[lead + (slice(n - 1, n),)] += right.sum(d, keepdims=True)
            else:
                core[lead + (slice(n - a, n),)] += left
                core[lead + (slice(0, b),)] += right
            g = core
        return (g,)


def _border_positions(mode, n, a, b):
    """The input positions a padded dimension of size n + a + b reads, in PyTorch's mode."""
    pos = np.arange(-a, n + b)
    if mode == "reflect":
        period = 2 * (n - 1)
        pos = np.abs(pos) % period if period else np.zeros_like(pos)
        return np.where(pos >= n, period - pos, pos)
    if mode == "replicate":
        return np.clip(pos, 0, n - 1)
    return pos % n


def pad(input, pad, mode="constant", value=None):
    """Pads the last len(pad) // 2 dimensions: pad = (left, right, top, bottom, ...) from the last dim back."""
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    nd = len(pad) // 2
    if nd > input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.ndim}")
    pairs = [(0, 0)] * input.ndim
    for i in range(nd):
        pairs[input.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    if mode in ("constant", "circular") and any(n + min(a, 0) + min(b, 0) < 0 for n, (a, b) in zip(input.shape, pairs)):
        raise RuntimeError("narrow(): length must be non-negative.")   # cropped past the size, as PyTorch
    if mode == "constant":
        # negative padding crops first; what is left only grows
        if any(a < 0 or b < 0 for a, b in pairs):
            for n, (a, b) in zip(input.shape, pairs):
                # PyTorch narrows by each negative width in turn: one past what is left is its error (a
                # slice would quietly take less: (-4, 2) on 3 elements gave 2 zeros; hostile pass 14)
                if n + min(a, 0) < 0 or n + min(a, 0) + min(b, 0) < 0:
                    raise RuntimeError("narrow(): length must be non-negative.")
            crop = tuple(slice(max(-a, 0), s - max(-b, 0)) for s, (a, b) in zip(input.shape, pairs))
            input = input[crop]
            pairs = [(max(a, 0), max(b, 0)) for a, b in pairs]
        if all(a == 0 and b == 0 for a, b in pairs):
            return input * 1 if input._data.dtype.kind != "b" else input.clone()
        return Pad.apply(input, pads=tuple(pairs), value=0.0 if value is None else value)
    if value:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unsupported padding mode: {mode}")
    for d in range(input.ndim - nd, input.ndim):
        a, b = pairs[d]
        n = input.shape[d]
        if mode == "reflect" and (a >= n or b >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({a}, {b}) at dimension {d} of input {list(input.shape)}")
        if mode == "circular" and (a > n or b > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
    if mode != "circular":
        # PyTorch's reflect and replicate kernels read each output position's source in the whole input
        # ((-3, 1) on [0, 1, 2, 3] reflects to [3, 2]): a dimension with a negative width gathers them
        for d, (a, b) in enumerate(pairs):
            if a < 0 or b < 0:
                pos = _border_positions(mode, input.shape[d], a, b)
                input = input.index_select(d, _tensor(pos, device=input.device))
                pairs[d] = (0, 0)
        if all(a == 0 and b == 0 for a, b in pairs):
            return input * 1 if input._data.dtype.kind != "b" else input.clone()
    elif any(a < 0 or b < 0 for a, b in pairs):   # PyTorch's circular padding crops first, then pads what is left
        input = input[tuple(slice(max(-a, 0), s - max(-b, 0)) for s, (a, b) in zip(input.shape, pairs))]
        pairs = [(max(a, 0), max(b, 0)) for a, b in pairs]
    return PadBorder.apply(input, mode=mode, pairs=tuple(pairs), nd=nd)


# ====================================================================== normalisation
class Standardize(Function):
    """(x - mean) * invstd over ``axes``, given the statistics; the core of batch, layer and group norm.

    An ordinary backward uses the standardised output and invstd it kept; a
    create_graph backward recomputes them from x with engine ops, so the
    dependence of the statistics on x is differentiated too.
    """
    __slots__ = ("axes", "eps", "count")
    op = "native_norm"
    saves = (0,)

    def forward(self, x, mean, invstd, axes, eps):
        self.axes, self.eps = axes, eps
        self.count = int(np.prod([x.shape[a] for a in axes]))
        y = (x - mean) * invstd
        self.keep(y, invstd)
        return y

    def backward(self, F, g, x, y, invstd):
        axes, n = self.axes, self.count
        if isinstance(g, Tensor):
            mu = x.mean(axes, keepdim=True)
            xc = x - mu
            invstd = _ew.rsqrt((xc * xc).mean(axes, keepdim=True) + self.eps)
            y = xc * invstd
        if isinstance(g, Tensor):
            gm = F.sum(g, axes, True) / n
            gym = F.sum(g * y, axes, True) / n
        else:   # the sums in float64 for a float32 gradient, as PyTorch's CPU kernel accumulates
            acc = _ACC_DTYPE.get(g.dtype.name)
            gm = (g.sum(axis=axes, keepdims=True, dtype=acc) / n).astype(g.dtype, copy=False)
            gym = ((g * y).sum(axis=axes, keepdims=True, dtype=acc) / n).astype(g.dtype, copy=False)
        return invstd * (g - gm - y * gym), None, None


def _moments(data, axes):
    """The centred data, and the mean and biased variance over ``axes``: summed in float64 for a
    float32 (or half) input and returned in its dtype, as PyTorch's CPU kernels accumulate
    (acc_type<float> is double)."""
    acc = _ACC_DTYPE.get(data.dtype.name)
    mean = data.mean(axis=axes, keepdims=True, dtype=acc).astype(data.dtype, copy=False)
    xc = data - mean
    var = (xc * xc).mean(axis=axes, keepdims=True, dtype=acc)
    return xc, mean, var.astype(data.dtype, copy=False)


_ACC_DTYPE = {"float32": np.float64, "float16": np.float64, "bfloat16": np.float64}


def _standardize(input, axes, eps):
    """Returns (standardised input, batch mean array, biased variance array)."""
    _, mean, var = _moments(input._data, axes)
    invstd = 1.0 / _xp(var).sqrt(var + eps)
    return Standardize.apply(input, mean, invstd, axes=axes, eps=eps), mean, var


def _affine(y, weight, bias, shape):
    if weight is not None:
        y = y * (weight.reshape(shape) if shape is not None else weight)
    if bias is not None:
        y = y + (bias.reshape(shape) if shape is not None else bias)
    return y


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05):
    """Normalises each channel (dim 1) over the batch and spatial dims; updates running stats when training."""
    if input.ndim < 2:
        raise ValueError(f"expected 2D or higher input (got {input.ndim}D input)")
    c = input.shape[1]
    axes = (0,) + tuple(range(2, input.ndim))
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    if training:
        count = input.numel() // c
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
        centred, mean, var = _moments(input._data, axes)
        if running_mean is not None:
            _update_running(running_mean, mean, momentum)
        if running_var is not None:
            _update_running(running_var, var * (count / (count - 1)), momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        centred, mean, var = None, running_mean._data, running_var._data
    dtype = input._data.dtype
    invstd = 1.0 / _xp(input._data).sqrt(var.reshape(-1).astype(dtype, copy=False) + dtype.type(eps))
    return NativeBatchNorm.apply(input, weight, bias, mean=mean.reshape(-1).astype(dtype, copy=False),
                                 invstd=invstd.astype(dtype, copy=False), centred=centred, training=training,
                                 eps=eps)


class NativeBatchNorm(Function):
    """PyTorch's native_batch_norm as one node: (x - mean) * invstd * weight + bias per channel
    (dim 1), with the batch's statistics (training) or the running ones (eval).

    Keeps the standardised input; backward is PyTorch's: dx = w invstd (g - mean(g) - xhat
    mean(g xhat)) in training, w invstd g in eval, dw = sum(g xhat), db = sum(g), the sums in
    float64 for float32. Under create_graph it differentiates the composite form."""
    __slots__ = ("axes", "eps", "training", "stats")
    op = "batch_norm"
    backward_name = "NativeBatchNormBackward0"
    saves = (0, 1, 2)

    def forward(self, x, w, b, mean, invstd, centred, training, eps):
        """``centred`` is x - mean when batch_norm has it already (the batch's statistics)."""
        self.axes, self.eps, self.training = (0,) + tuple(range(2, x.ndim)), eps, training
        self.stats = None if training else (mean, invstd)    # constants of the eval composite
        shape = _channel_shape(x)
        xhat = centred if centred is not None else x - mean.reshape(shape)
        xhat *= invstd.reshape(shape)
        self.keep(xhat, invstd)
        out = xhat * w.reshape(shape) if w is not None else xhat.copy()
        if b is not None:
            out += b.reshape(shape)
        return out

    def backward(self, F, g, x, w, b, xhat, invstd):
        if isinstance(g, Tensor):
            return composite_grads(self, self._composite, (x, w, b), g)
        nf = self.next_functions
        axes, shape, dt = self.axes, _channel_shape(g), g.dtype
        acc = _ACC_DTYPE.get(dt.name)
        need_x, need_w, need_b = (nf[i][0] is not None for i in range(3))
        gsum = g.sum(axis=axes, dtype=acc) if need_b or (need_x and self.training) else None
        gxhat = (g * xhat).sum(axis=axes, dtype=acc) if need_w or (need_x and self.training) else None
        gx = None
        if need_x:
            a = invstd.astype(dt, copy=False)
            if w is not None:
                a = a * w.astype(dt, copy=False)
            if self.training:
                n = g.size // g.shape[1]
                gx = xhat * (gxhat / n).astype(dt).reshape(shape)
                _xp(g).subtract(g, gx, out=gx)
                gx -= (gsum / n).astype(dt).reshape(shape)
                gx *= a.reshape(shape)
            else:
                gx = g * a.reshape(shape)
        return (gx, gxhat.astype(w.dtype) if need_w else None, gsum.astype(b.dtype) if need_b else None)

    def _composite(self, x, w, b):
        shape = _channel_shape(x)
        if self.training:
            xc = x - x.mean(self.axes, keepdim=True)
            y = xc * _ew.rsqrt((xc * xc).mean(self.axes, keepdim=True) + self.eps)
        else:
            mean, invstd = self.stats
            y = (x - _const(x, mean.reshape(shape))) * _const(x, invstd.reshape(shape))
        return _affine(y, w, b, shape)


def _channel_shape(a):
    return (1, -1) + (1,) * (a.ndim - 2)


def _update_running(buffer, stat, momentum):
    data = buffer._data
    stat = stat.reshape(data.shape).astype(data.dtype, copy=False)
    data *= 1.0 - momentum
    data += momentum * stat
    buffer._version[0] += 1


class NativeLayerNorm(Function):
    """(x - mean) / sqrt(var + eps) * weight + bias over the trailing ``dims`` dims, as one node.

    Keeps the standardised input and 1 / std per row; the backward is PyTorch's
    dx = rstd (gw - mean(gw) - xhat mean(gw xhat)) with gw = g * weight. Under create_graph the
    rule differentiates the composite form (mean, var, rsqrt of engine ops) with a graph."""
    __slots__ = ("dims", "eps")
    op = "layer_norm"
    backward_name = "NativeLayerNormBackward0"
    saves = (0, 1, 2)

    def forward(self, x, w, b, dims, eps):
        self.dims, self.eps = dims, eps
        if x.dtype.itemsize < 4:     # half: computed in float32, as PyTorch's CPU kernel
            out = self.forward(x.astype(np.float32), None if w is None else w.astype(np.float32),
                               None if b is None else b.astype(np.float32), dims, eps)
            return out.astype(x.dtype)
        xp = _xp(x)
        if x.size == 0:
            self.keep(x, x)
            return x.copy()
        n = int(np.prod(x.shape[x.ndim - dims:]))
        rows = x.reshape(-1, n)
        xhat = rows - _row_sums(rows, 1.0 / n)
        var = _row_sums(xp.square(xhat), 1.0 / n)
        var += x.dtype.type(eps)
        rstd = xp.sqrt(var, out=var)
        xp.reciprocal(rstd, out=rstd)
        xhat *= rstd
        self.keep(xhat, rstd)
        if w is None and b is None:
            return xhat.reshape(x.shape)
        out = xhat * w.reshape(-1) if w is not None else xhat.copy()
        if b is not None:
            out += b.reshape(-1)
        return out.reshape(x.shape)

    def backward(self, F, g, x, w, b, xhat, rstd):
        axes = tuple(range(x.ndim - self.dims, x.ndim))
        if isinstance(g, Tensor):
            return composite_grads(self, lambda x, w, b: _affine(_layer_norm_composite(x, axes, self.eps), w, b, None),
                                   (x, w, b), g)
        nf = self.next_functions
        if x.size == 0:
            xp = _xp(g)
            return (xp.zeros_like(x) if nf[0][0] is not None else None,
                    xp.zeros_like(w) if nf[1][0] is not None else None,
                    xp.zeros_like(b) if nf[2][0] is not None else None)
        g2 = g.reshape(xhat.shape).astype(xhat.dtype, copy=False)
        dw = _column_sums(g2 * xhat).reshape(w.shape).astype(w.dtype, copy=False) if nf[1][0] is not None else None
        db = _column_sums(g2).reshape(b.shape).astype(b.dtype, copy=False) if nf[2][0] is not None else None
        dx = None
        if nf[0][0] is not None:
            n = xhat.shape[1]
            gw = g2 * w.reshape(-1).astype(xhat.dtype, copy=False) if w is not None else g2
            c1 = _row_sums(gw, 1.0 / n)
            dx = gw * xhat
            c2 = _row_sums(dx, 1.0 / n)
            _xp(g).multiply(xhat, c2, out=dx)
            _xp(g).subtract(gw, dx, out=dx)
            dx -= c1
            dx *= rstd
            dx = dx.reshape(x.shape).astype(x.dtype, copy=False)
        return dx, dw, db


def _layer_norm_composite(x, axes, eps):
    mu = x.mean(axes, keepdim=True)
    xc = x - mu
    return xc * _ew.rsqrt((xc * xc).mean(axes, keepdim=True) + eps)


def _check_norm_parameter(name, t, normalized_shape, input):
    if t is None:
        return
    if tuple(t.shape) != normalized_shape:
        raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                           f"{list(t.shape)} and normalized_shape = {list(normalized_shape)}")
    if t._data.dtype != input._data.dtype:
        if input._data.dtype == np.float32:
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """Normalises over the trailing normalized_shape dims, then applies the elementwise affine."""
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (int(normalized_shape),)
    normalized_shape = tuple(int(n) for n in normalized_shape)
    k = len(normalized_shape)
    if tuple(input.shape[input.ndim - k:]) != normalized_shape or k > input.ndim:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, normalized_shape))}], but got input of size{list(input.shape)}")
    _check_norm_parameter("weight", weight, normalized_shape, input)
    _check_norm_parameter("bias", bias, normalized_shape, input)
    if input._data.dtype.kind != "f":
        raise RuntimeError(f'"LayerNormKernelImpl" not implemented for \'{_scalar_type_name(input)}\'')
    return NativeLayerNorm.apply(input, weight, bias, dims=k, eps=eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x^2) + eps) over the trailing normalized_shape dims, times weight (PyTorch's
    RMSNorm; eps None is the dtype's machine epsilon). Composed of differentiable ops, so its
    gradients of every order are theirs."""
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (int(normalized_shape),)
    normalized_shape = tuple(int(n) for n in normalized_shape)
    k = len(normalized_shape)
    if k > input.ndim or tuple(input.shape[input.ndim - k:]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*{', '.join(map(str, normalized_shape))}], but got input of size{list(input.shape)}")
    _check_norm_parameter("weight", weight, normalized_shape, input)
    if input._data.dtype.kind != "f":
        raise RuntimeError(f'"rms_norm" not implemented for \'{_scalar_type_name(input)}\'')
    if eps is None:
        eps = float(np.finfo(input._data.dtype).eps)
    square = input * input
    mean_square = square.mean(dim=tuple(range(input.ndim - k, input.ndim)), keepdim=True) if k else square
    y = input * mean_square.add(eps).rsqrt()
    return y * weight if weight is not None else y


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """Normalises each group of channels over its channels and spatial dims."""
    n, c = input.shape[0], input.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    grouped = input.reshape(n, num_groups, -1)
    y, _, _ = _standardize(grouped, (2,), eps)
    return _affine(y.reshape(tuple(input.shape)), weight, bias, (1, c) + (1,) * (input.ndim - 2))


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-05):
    """Normalises each channel of each sample over its spatial dims; updates running stats (averaged over the
    batch, the variance unbiased) when given them with use_input_stats."""
    if input.ndim < 2:
        raise ValueError(f"expected 2D or higher input (got {input.ndim}D input)")
    c = input.shape[1]
    shape = (1, c) + (1,) * (input.ndim - 2)
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    if use_input_stats:
        count = int(np.prod(input.shape[2:], dtype=np.int64))
        if count == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.shape}")
        y, mean, var = _standardize(input, tuple(range(2, input.ndim)), eps)
        if running_mean is not None:
            _update_running(running_mean, mean.mean(axis=0), momentum)
        if running_var is not None:
            _update_running(running_var, (var * (count / max(count - 1, 1))).mean(axis=0), momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
        y = (input - running_mean.reshape(shape)) * _ew.rsqrt(running_var.reshape(shape) + eps)
    return _affine(y, weight, bias, shape)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """Divides input by its p-norm along dim, the norm clamped below by eps; with ``out``, into it (as
    torch.div(..., out=out): spectral_norm's power iteration updates its vectors so)."""
    denom = _ew.clamp_min(_norm(input, p, dim, True), eps)
    if out is None:
        return input / denom
    from .. import div   # the namespace's div, with PyTorch's out= contract
    return div(input, denom, out=out)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine of the angle between x1 and x2 along dim, each norm clamped below by eps."""
    _check_broadcast(x1, x2)
    n1 = _norm(x1, 2, dim, True)
    n2 = _norm(x2, 2, dim, True)
    # PyTorch clamps the norms in place without recording it: the gradient treats the clamp as identity
    n1 = n1 + (_ew.clamp_min(n1, eps) - n1).detach()
    n2 = n2 + (_ew.clamp_min(n2, eps) - n2).detach()
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 + eps along the last dim."""
    _check_broadcast(x1, x2)
    return _norm(x1 - x2 + eps, p, -1, keepdim)


# ====================================================================== losses
_REDUCTIONS = ("none", "mean", "sum")


def _reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        if reduction not in _REDUCTIONS and reduction != "batchmean":
            raise ValueError(f"{reduction} is not a valid value for reduction")
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use reduction='mean' instead.",
                  stacklevel=3)
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _class_targets(x, target, weight, ignore_index):
    """Per-element class index (ignored ones replaced by 0) and weight, both shaped like target."""
    xp = _xp(x)
    c = x.shape[1]
    t = target
    valid = t != ignore_index
    safe = xp.where(valid, t, 0)
    if safe.size:
        lo, hi = int(safe.min()), int(safe.max())
        if lo < 0 or hi >= c:
            raise IndexError(f"Target {hi if hi >= c else lo} is out of bounds.")
    w = weight[safe] * valid if weight is not None else valid.astype(x.dtype)
    return safe, w.astype(x.dtype, copy=False)


def _reduce_weighted(losses, w, reduction):
    """Reduces per-element class losses as nll_loss does; returns (loss, d loss / d per-element loss)."""
    if reduction == "none":
        return losses, w
    if reduction == "sum":
        return losses.sum(), w
    with np.errstate(invalid="ignore", divide="ignore"):  # all targets ignored: NaN, as PyTorch
        total = w.sum()
        return losses.sum() / total, w / total


def _onehot_dim1(safe, c, dtype):
    xp = _xp(safe)
    shape = (1, c) + (1,) * (safe.ndim - 1)
    return (xp.expand_dims(safe, 1) == xp.arange(c).reshape(shape)).astype(dtype)


class NLLLoss(Function):
    """-input[n, target[n]] * weight[target[n]], reduced; linear in its input."""
    __slots__ = ("reduction", "classes")
    op = "nll_loss"
    backward_name = "NllLossBackward0"

    def forward(self, x, target, weight, ignore_index, reduction):
        self.reduction, self.classes = reduction, x.shape[1]
        safe, w = _class_targets(x, target, weight, ignore_index)
        picked = _xp(x).take_along_axis(x, safe[:, None], axis=1)[:, 0]
        out, coef = _reduce_weighted(-picked * w, w, reduction)
        self.keep(safe, coef)
        return out

    def backward(self, F, g, safe, coef):
        onehot = _onehot_dim1(_data(safe), self.classes, _data(g).dtype)
        return (-_const(g, onehot) * F.unsqueeze(coef * g, 1),)


class CrossEntropy(Function):
    """log_softmax over dim 1 and the loss against class indices or class probabilities, label
    smoothing and class weights included, in one pass, with no one-hot: the gradient is the
    softmax times a per-element factor, less the (smoothed, weighted) target.

    PyTorch records NllLossBackward0 <- LogSoftmaxBackward0 (more nodes with label smoothing or
    probabilities); here it is one node. Under create_graph the rule differentiates that
    composite form with a graph."""
    __slots__ = ("reduction", "smoothing", "ignore_index", "weight")
    op = "cross_entropy"
    saves = (0, 1)

    def forward(self, x, target, weight, ignore_index, reduction, smoothing):
        xp = _xp(x)
        self.reduction, self.smoothing, self.ignore_index, self.weight = reduction, smoothing, ignore_index, weight
        c = x.shape[1]
        if x.size == 0:
            m = xp.zeros_like(x[:, :1])
        else:
            m = _row_max(x) if x.ndim == 2 else x.max(axis=1, keepdims=True)
        p = x - m
        xp.exp(p, out=p)
        total = _row_sums(p) if x.ndim == 2 else p.sum(axis=1, keepdims=True)
        lse = xp.log(total)
        lse += m
        p /= total                                       # the softmax, kept for backward
        with np.errstate(invalid="ignore", divide="ignore"):   # nothing to average: NaN, as PyTorch
            if target.dtype.kind == "f":                 # class probabilities
                wt = target * (1 - smoothing) + smoothing / c if smoothing else target
                if weight is not None:
                    wt = wt * weight.reshape((1, c) + (1,) * (x.ndim - 2))
                losses = (lse * wt).sum(axis=1) - (wt * x).sum(axis=1)
                scale = 1.0
                if reduction == "mean":
                    scale = 1.0 / (x.size // c) if x.size else np.nan
                self.keep(p, lse, wt, scale)
                if reduction == "none":
                    return losses
                return xp.asarray(losses.sum() * scale)
            safe, w = _class_targets(x, target, weight, ignore_index)
            picked = xp.take_along_axis(x, safe[:, None], axis=1)[:, 0]
            losses = lse[:, 0] - picked
            losses *= w
            if smoothing:
                valid = (target != ignore_index).astype(x.dtype)
                if weight is None:
                    smooth = lse[:, 0] * c - x.sum(axis=1)
                else:
                    smooth = lse[:, 0] * weight.sum() - (x * weight.reshape((1, c) + (1,) * (x.ndim - 2))).sum(axis=1)
                losses *= 1 - smoothing
                losses += smooth * valid * (smoothing / c)
            scale = 1.0 / w.sum() if reduction == "mean" else 1.0
            self.keep(p, safe, w, scale)
            if reduction == "none":
                return losses
            return xp.asarray(losses.sum() * scale)

    def backward(self, F, g, x, target, p, *kept):
        if isinstance(g, Tensor):
            return composite_grads(self, lambda x, t: _cross_entropy_composite(
                x, t, self.weight, self.ignore_index, self.reduction, self.smoothing), (x, target), g) + (None,)
        xp = _xp(x)
        c = x.shape[1]
        eps = self.smoothing
        weight = None if self.weight is None else self.weight.reshape((1, c) + (1,) * (x.ndim - 2))
        if target.dtype.kind == "f":
            lse, wt, scale = kept
            r = xp.expand_dims(g, 1) if self.reduction == "none" else g * scale
            dx = dt = None
            if self.next_functions[0][0] is not None:
                dx = p * wt.sum(axis=1, keepdims=True)
                dx -= wt
                dx *= r
            if self.next_functions[1][0] is not None:
                dt = lse - x                              # -log softmax
                if weight is not None:
                    dt *= weight
                dt *= r * (1 - eps)
            return dx, dt, None
        safe, w, scale = kept
        if not np.isfinite(scale):
            scale = 0.0            # every target ignored: a NaN loss, and zero gradients (as PyTorch)
        with np.errstate(invalid="ignore"):
            r = g * scale                                 # d out / d per-element loss, times g
            rw = r * w                                    # ... of the (weighted) nll term
            a = rw * (1 - eps)
            if eps:
                rv = r * (target != self.ignore_index) * (eps / c)
                a = a + rv * (c if weight is None else self.weight.sum())
            dx = p * xp.expand_dims(a, 1)
            at = xp.expand_dims(safe, 1)
            if xp is np:
                np.put_along_axis(dx, at, np.take_along_axis(dx, at, axis=1) - np.expand_dims(rw * (1 - eps), 1), axis=1)
            else:   # no put_along_axis in every CuPy: the one-hot of the targets
                dx -= _onehot_dim1(safe, c, dx.dtype) * xp.expand_dims(rw * (1 - eps), 1)
            if eps:
                rv = xp.expand_dims(rv, 1)
                dx -= rv * weight if weight is not None else rv
        return dx, None, None


def _cross_entropy_composite(x, target, weight, ignore_index, reduction, smoothing):
    """cross_entropy as log_softmax and nll_loss (PyTorch's own decomposition), differentiable to any order."""
    c = x.shape[1]
    weight_t = None if weight is None else Tensor._adopt_array(weight, False, None)
    if not isinstance(target, Tensor):
        target = Tensor._adopt_array(target, False, None)
    if target._data.dtype.kind == "f":
        t = target * (1 - smoothing) + smoothing / c if smoothing else target
        terms = log_softmax(x, 1) * t
        if weight_t is not None:
            terms = terms * weight_t.reshape((1, c) + (1,) * (x.ndim - 2))
        losses = -terms.sum(1)
        if reduction == "mean":
            return losses.sum() / (x.numel() // c)
        return _reduce(losses, reduction)
    out = NLLLoss.apply(log_softmax(x, 1), target._data, weight, ignore_index=ignore_index, reduction=reduction)
    if smoothing:
        out = out * (1 - smoothing) + _smoothing_term(x, target, weight_t, ignore_index, reduction) * (smoothing / c)
    return out


def _class_dim_first(input, target):
    """Adds a batch dim to an unbatched (C,) input and its scalar target."""
    if input.ndim == 1:
        return input.unsqueeze(0), target.reshape(1) if target.ndim == 0 else target, True
    return input, target, False


def _check_class_target(input, target):
    """PyTorch's checks of class-index targets, in its order (input has its batch dim)."""
    if input.ndim == 2:
        if target.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if target.shape[0] != input.shape[0]:
            raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                             f"({target.shape[0]}).")
    else:
        if target.ndim == 0 or target.shape[0] != input.shape[0]:
            raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                             f"({target.shape[0] if target.ndim else 0}).")
        if tuple(target.shape[1:]) != tuple(input.shape[2:]):
            raise RuntimeError(f"Expected target size {[input.shape[0]] + list(input.shape[2:])}, got "
                               f"{list(target.shape)}")
    if target._data.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_scalar_type_name(target)}")


def _scalar_type_name(t):
    """PyTorch's name of a tensor's scalar type: Float, Long, ..."""
    return _SCALAR_TYPE.get(t._data.dtype.name, t.dtype.name.capitalize())


def _check_class_weight(input, weight, where=""):
    """PyTorch's check of a per-class weight: a vector with one value per class (dim 1 of input)."""
    c = input.shape[1]
    if weight.ndim != 1 or weight.numel() != c:
        raise RuntimeError(f"{where}weight tensor should be defined either for all {c} classes or no classes but "
                           f"got weight tensor of shape: {list(weight.shape)}")


def _check_scalar_type(input, other):
    """ATen's loss kernels read a weight as the input's scalar type: another dtype is an error, not a promotion."""
    if other._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_type_name(input)} but found {_scalar_type_name(other)}")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """The negative log likelihood loss over class indices (input holds log-probabilities, class dim 1)."""
    reduction = _reduction(size_average, reduce, reduction)
    x, t, unbatched = _class_dim_first(input, target)
    _check_class_target(x, t)
    if weight is not None:
        _check_class_weight(x, weight)
        _check_scalar_type(x, weight)
    out = NLLLoss.apply(x, t._data, None if weight is None else weight._data, ignore_index=ignore_index,
                        reduction=reduction)
    return out.reshape(()) if unbatched and reduction == "none" else out


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Cross entropy between logits (class dim 1) and class indices or class probabilities (one node)."""
    reduction = _reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    x, t, unbatched = _class_dim_first(input, target)
    if t._data.dtype.kind == "f" and tuple(t.shape) == tuple(x.shape):  # class probabilities
        if weight is not None:
            _check_class_weight(x, weight, "cross_entropy: ")
    else:
        _check_class_target(x, t)
        if weight is not None:
            _check_class_weight(x, weight)
            _check_scalar_type(x, weight)
        t = t._data
    w = None if weight is None else weight._data
    if w is not None and w.dtype.kind != "f":
        w = w.astype(x._data.dtype)    # an integer weight takes the logits' dtype (PyTorch's promotion; NumPy's is float64)
    out = CrossEntropy.apply(x, t, w, ignore_index=ignore_index, reduction=reduction,
                             smoothing=float(label_smoothing))
    return out.reshape(()) if unbatched and reduction == "none" else out


def _smoothing_term(x, t, weight, ignore_index, reduction):
    # PyTorch's label-smoothing term: -sum_c w_c log p_c per element, ignored elements masked out
    logp = log_softmax(x, 1)
    c = x.shape[1]
    if weight is not None:
        logp = logp * weight.reshape((1, c) + (1,) * (x.ndim - 2))
    valid = t != ignore_index
    smooth = _ew.where(valid, -logp.sum(1), 0.0)
    if reduction == "mean":
        if weight is not None:
            safe = _ew.where(valid, t, 0)
            return smooth.sum() / (weight[safe] * valid).sum()
        return smooth.sum() / valid.sum()
    return _reduce(smooth, reduction)


def _check_same_size(input, target):
    _check_broadcast(input, target)
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have "
                      "the same size.", stacklevel=3)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error between each element of input and target."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_same_size(input, target)
    d = input - target
    loss = d * d
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error between each element of input and target."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_same_size(input, target)
    loss = _ew.abs(input - target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Quadratic below beta, linear above: 0.5 d^2 / beta if |d| < beta else |d| - 0.5 beta."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_same_size(input, target)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    d = input - target
    ad = _ew.abs(d)
    if beta == 0:
        return _reduce(ad, reduction)
    loss = _ew.where(ad < beta, d * d * (0.5 / beta), ad - 0.5 * beta)
    return _reduce(loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 if |d| < delta else delta * (|d| - 0.5 delta)."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _check_same_size(input, target)
    d = input - target
    ad = _ew.abs(d)
    loss = _ew.where(ad < delta, d * d * 0.5, (ad - 0.5 * delta) * delta)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _bce_composite(x, t):
    log_p = _ew.clamp_min(_ew.log(x), -100.0)
    log_q = _ew.clamp_min(_ew.log(1.0 - x), -100.0)
    return -(t * log_p + (1.0 - t) * log_q)


class BinaryCrossEntropy(Function):
    """The unreduced binary cross entropy, each log clamped at -100, with PyTorch's gradients:
    (x - t) / max(x (1 - x), 1e-12) for the input, finite where a saturated sigmoid gives exactly
    0 or 1, and log(1 - x) - log(x) for the target."""
    __slots__ = ()
    op = "binary_cross_entropy"
    saves = (0, 1)

    def forward(self, x, t):
        xp = _xp(x)
        f = x.dtype.type
        with np.errstate(divide="ignore"):
            log_p = xp.maximum(xp.log(x), f(-100.0))
            log_q = xp.maximum(xp.log1p(-x), f(-100.0))
        return -(t * log_p + (f(1.0) - t) * log_q)

    def backward(self, F, g, x, t):
        if isinstance(g, Tensor):
            return composite_grads(self, _bce_composite, (x, t), g)
        xp = _xp(x)
        f = x.dtype.type
        gx = gt = None
        if self.next_functions[0][0] is not None:
            gx = g * (x - t) / xp.maximum((f(1.0) - x) * x, f(1e-12))
        if self.next_functions[1][0] is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                gt = g * (xp.log1p(-x) - xp.log(x))
        return gx, gt


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(y log p + (1 - y) log(1 - p)), each log clamped at -100 as PyTorch does."""
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if target._data.dtype != input._data.dtype:
        raise RuntimeError(f"Found dtype {_scalar_type_name(target)} but expected {_scalar_type_name(input)}")
    data = input._data
    if data.size and (float(data.min()) < 0 or float(data.max()) > 1):
        raise RuntimeError("all elements of input should be between 0 and 1")
    loss = BinaryCrossEntropy.apply(input, target)
    if weight is not None:
        loss = loss * weight.to(input.dtype)    # the loss keeps the input's dtype, as PyTorch's kernel's
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Sigmoid and binary cross entropy in one stable expression: softplus(-x) y pw + softplus(x) (1 - y)."""
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    if target._data.dtype == np.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if target._data.dtype.kind != "f":
        raise RuntimeError(f"result type {_scalar_type_name(input)} can't be cast to the desired output type "
                           f"{_scalar_type_name(target)}")
    pos_term = Softplus.apply(-input, beta=1.0, threshold=None) * target
    if pos_weight is not None:
        pos_term = pos_term * pos_weight
    loss = pos_term + Softplus.apply(input, beta=1.0, threshold=None) * (1.0 - target)
    if weight is not None:
        loss = loss * weight
    if loss.dtype != target.dtype:    # PyTorch works in place on 1 - target: the target's dtype, whatever the weights'
        loss = loss.to(target.dtype)
    return _reduce(loss, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Kullback-Leibler divergence with input as log-probabilities: target * (log target - input)."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_broadcast(input, target)
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if log_target:
        loss = _ew.exp(target) * (target - input)
    else:
        loss = _ew.xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim else loss.sum()
    return _reduce(loss, reduction)


# ====================================================================== Tensor methods
def _dim_required(fn):
    """torch.softmax and Tensor.softmax (and log_softmax) take dim as a required argument: only
    F.softmax has PyTorch's deprecated implicit dim."""
    def call(input, dim, dtype=None):
        return fn(input, dim, dtype=dtype)
    call.__name__ = call.__qualname__ = fn.__name__
    call.__doc__ = fn.__doc__
    return call


torch_softmax, torch_log_softmax = _dim_required(softmax), _dim_required(log_softmax)


def _register():
    Tensor.softmax = torch_softmax
    Tensor.log_softmax = torch_log_softmax


_register()

# ====================================================================== layers written in their own modules
from .convtranspose import conv_transpose1d, conv_transpose2d, conv_transpose3d  # noqa: E402  (they build on the helpers above)
__all__ += ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]
from .activation_extra import prelu, hardshrink, softshrink, rrelu, rrelu_  # noqa: E402
from .local_response_norm import local_response_norm  # noqa: E402
from .channel_shuffle import channel_shuffle  # noqa: E402
from .alpha_dropout import alpha_dropout, feature_alpha_dropout  # noqa: E402
__all__ += ["prelu", "hardshrink", "softshrink", "rrelu", "rrelu_", "local_response_norm", "channel_shuffle",
            "alpha_dropout", "feature_alpha_dropout"]
from .extra_losses import (margin_ranking_loss, hinge_embedding_loss, soft_margin_loss,  # noqa: E402
                           multilabel_soft_margin_loss, cosine_embedding_loss, multi_margin_loss, triplet_margin_loss,
                           triplet_margin_with_distance_loss, poisson_nll_loss, gaussian_nll_loss)
__all__ += ["margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss", "multilabel_soft_margin_loss",
            "cosine_embedding_loss", "multi_margin_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
            "poisson_nll_loss", "gaussian_nll_loss"]
from .adaptive_max_pool import adaptive_max_pool1d, adaptive_max_pool2d  # noqa: E402
from .unpooling import max_unpool1d, max_unpool2d  # noqa: E402
from .embedding_bag import embedding_bag  # noqa: E402
__all__ += ["adaptive_max_pool1d", "adaptive_max_pool2d", "max_unpool1d", "max_unpool2d", "embedding_bag"]
from .ctc_loss import ctc_loss  # noqa: E402
__all__ += ["ctc_loss"]


from .attention import multi_head_attention_forward  # noqa: E402  (nn/attention.py imports this module)
from .grid_sample import affine_grid, grid_sample  # noqa: E402
