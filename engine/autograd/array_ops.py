"""The namespace backward rules compute with in an ordinary backward: the
engine's function names and signatures (torch's), over raw NumPy/CuPy arrays.

Under create_graph=True the same rules get the engine's differentiable
functions instead, so every name here must exist there with the same meaning.
"""
import numpy as np

from ..device import get_array_module


def _axes(dim, ndim):
    if dim is None:
        return None
    if isinstance(dim, int):
        return dim
    return tuple(dim)


def sum(x, dim=None, keepdim=False):
    out = x.sum(axis=_axes(dim, x.ndim), keepdims=keepdim)
    return np.asarray(out) if isinstance(out, np.generic) else out


def sum_to(x, shape):
    """Sums a broadcast gradient back to ``shape``: the one place broadcasting is undone."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(shape) if n == 1 and x.shape[i + lead] != 1)
    out = x.sum(axis=axes, keepdims=True) if axes else x
    if lead:
        out = out.reshape(out.shape[lead:])
    return out if not isinstance(out, np.generic) else np.asarray(out)


def expand(x, shape):
    return get_array_module(x).broadcast_to(x, tuple(shape))


def reshape(x, shape):
    return x.reshape(tuple(shape))


def unsqueeze(x, dim):
    return get_array_module(x).expand_dims(x, dim)


def transpose(x, dim0, dim1):
    return x.swapaxes(dim0, dim1)


def permute(x, dims):
    return x.transpose(tuple(dims))


def matmul(a, b):
    return a @ b


def where(cond, a, b):
    return get_array_module(cond).where(cond, a, b)


def zeros_like(x):
    return get_array_module(x).zeros_like(x)


def ones_like(x):
    return get_array_module(x).ones_like(x)


def exp(x):
    return get_array_module(x).exp(x)


def log(x):
    return get_array_module(x).log(x)


def sqrt(x):
    return get_array_module(x).sqrt(x)


def sin(x):
    return get_array_module(x).sin(x)


def cos(x):
    return get_array_module(x).cos(x)


def tanh(x):
    return get_array_module(x).tanh(x)


def sigmoid(x):
    xp = get_array_module(x)
    return 0.5 * (xp.tanh(0.5 * x) + 1.0)


def sign(x):
    return get_array_module(x).sign(x)


def abs(x):
    return get_array_module(x).abs(x)


def pow(x, e):
    return x ** e


def reciprocal(x):
    return 1.0 / x


def conj(x):
    return x


def to_dtype_of(x, like):
    return x.astype(like.dtype, copy=False)


def new_zeros(like, shape):
    return get_array_module(like).zeros(tuple(shape), like.dtype)


def getitem(x, index):
    return x[index]


def index_put(x, index, values, accumulate=False):
    out = x.copy()
    if accumulate:
        get_array_module(x).add.at(out, index, values)
    else:
        out[index] = values
    return out
