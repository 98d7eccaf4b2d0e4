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
    if x.size == 0:   # sums of nothing: zeros, without a keepdims intermediate as large as shape's other dims
        from ..limits import check_elements
        check_elements(shape, "sum_to result")
        return get_array_module(x).zeros(shape, x.dtype)
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


def log1p(x):
    return get_array_module(x).log1p(x)


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
    """PyTorch's sign in derivative formulas (abs, norm, ...): 0 at NaN, where NumPy's gives NaN."""
    xp = get_array_module(x)
    s = xp.sign(x)
    if s.dtype.kind == "f":
        return xp.where(s == s, s, 0).astype(s.dtype, copy=False)
    return s


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


# ---- shape, indexing and linear algebra: the kernels their ops run on in forward and backward
def _add_at(out, index, values):
    """out[index] += values with repeated indices adding up (NumPy's ufunc.at, CuPy's scatter_add)."""
    if type(out) is np.ndarray:
        np.add.at(out, index, values)
    else:
        import cupyx
        cupyx.scatter_add(out, index, values)


def flip(x, dims):
    return get_array_module(x).flip(x, axis=tuple(dims)) if dims else x


def roll(x, shifts, dims):
    return get_array_module(x).roll(x, tuple(shifts), axis=tuple(dims))


def _tri_mask(x, k):
    n, m = x.shape[-2:]
    return get_array_module(x).tri(n, m, k, dtype=bool)


def tril(x, diagonal=0):
    if x.size == 0:
        return x.copy()   # no mask (an empty matrix may have a 2**30 side)
    return get_array_module(x).where(_tri_mask(x, diagonal), x, x.dtype.type(0))


def triu(x, diagonal=0):
    if x.size == 0:
        return x.copy()
    return get_array_module(x).where(_tri_mask(x, diagonal - 1), x.dtype.type(0), x)


def diagonal(x, offset=0, dim1=0, dim2=1):
    from ..ops.shape import _diagonal_view
    return _diagonal_view(x, offset, dim1, dim2)


def diagonal_scatter(x, src, offset=0, dim1=0, dim2=1):
    out = x.copy()
    diagonal(out, offset, dim1, dim2)[...] = src
    return out


def _along(index, dim):
    """The full NumPy index that makes out[...] address index's positions along dim
    (gather/scatter's ``out[i][index[i][j]] ... `` rule): index on dim, aranges elsewhere."""
    xp = get_array_module(index)
    nd = index.ndim
    if index.size == 0:
        # nothing is addressed: no aranges (an empty index may have a 2**30 dim beside its 0)
        zero = xp.zeros((1,) * nd, dtype=xp.intp)
        return tuple(index if d == dim else zero for d in range(nd))
    parts = []
    for d, n in enumerate(index.shape):
        if d == dim:
            parts.append(index)
        else:
            shape = [1] * nd
            shape[d] = n
            parts.append(xp.arange(n).reshape(shape))
    return tuple(parts)


def gather(x, dim, index):
    if x.ndim == 0:
        return x.reshape(1)[index.reshape(1)].reshape(index.shape)
    return x[_along(index, dim)]


def _fit(src, index):
    """src cut down to index's shape (scatter reads only that corner of a larger src)."""
    if not hasattr(src, "shape") or src.shape == index.shape or src.ndim == 0:
        return src
    return src[tuple(slice(0, n) for n in index.shape)]


def scatter(x, dim, index, src):
    out = x.copy()
    if out.ndim == 0:
        out.reshape(1)[index.reshape(1)] = _fit(src, index).reshape(-1) if hasattr(src, "shape") else src
        return out
    out[_along(index, dim)] = _fit(src, index)
    return out


def scatter_add(x, dim, index, src):
    out = x.copy()
    src = _fit(src, index)
    if out.ndim == 0:
        _add_at(out.reshape(1), index.reshape(1), src.reshape(-1))
        return out
    _add_at(out, _along(index, dim), src)
    return out


_REDUCE_IDENTITY = {"sum": 0, "mean": 0, "prod": 1}


def _reduce_at(reduce, out, index, values):
    """out[index] reduced with values, repeated indices accumulating (NumPy's ufunc.at; CuPy's
    scatter_add, scatter_max and scatter_min)."""
    if reduce in ("sum", "mean"):
        _add_at(out, index, values)
    elif type(out) is np.ndarray:
        {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum}[reduce].at(out, index, values)
    elif reduce == "prod":
        raise NotImplementedError("scatter_reduce(reduce='prod') is not supported on the GPU")
    else:
        import cupyx
        (cupyx.scatter_max if reduce == "amax" else cupyx.scatter_min)(out, index, values)


def scatter_reduce(x, dim, index, src, reduce, include_self=True):
    """PyTorch's scatter_reduce: src reduced into a copy of x at index's positions along dim; without
    include_self the positions scattered to start from the reduction's identity (x's values there are
    left out); mean divides by how many values each position reduced (at least 1)."""
    xp = get_array_module(x)
    out = x.copy()
    src = _fit(src, index)
    if out.ndim == 0:
        view, pos, values = out.reshape(1), (index.reshape(1),), src.reshape(-1)
    else:
        view, pos, values = out, _along(index, dim), src
    if not include_self:
        if reduce in _REDUCE_IDENTITY:
            view[pos] = _REDUCE_IDENTITY[reduce]
        elif out.dtype.kind == "f":
            view[pos] = -np.inf if reduce == "amax" else np.inf
        elif out.dtype.kind == "b":
            view[pos] = reduce == "amin"
        else:
            info = np.iinfo(out.dtype)
            view[pos] = info.min if reduce == "amax" else info.max
    _reduce_at(reduce, view, pos, values)
    if reduce == "mean":
        count = xp.ones(out.shape, dtype=out.dtype) if include_self else xp.zeros(out.shape, dtype=out.dtype)
        _add_at(count.reshape(1) if out.ndim == 0 else count, pos, 1)
        count[count == 0] = 1
        out = out // count if out.dtype.kind in "iub" else out / count
    return out


def index_select(x, dim, index):
    if x.ndim == 0:
        return x.reshape(1)[index.reshape(-1)]
    return get_array_module(x).take(x, index.reshape(-1), axis=dim)


def index_add(x, dim, index, source, alpha=1):
    out = x.copy()
    if alpha != 1:
        source = source * alpha
    if out.ndim == 0:
        _add_at(out.reshape(1), index.reshape(-1), source.reshape(-1))
        return out
    _add_at(out, (slice(None),) * dim + (index.reshape(-1),), source)
    return out


def einsum(equation, *operands):
    from ..ops.linalg import _einsum_arrays
    return _einsum_arrays(equation, operands)


# ---- elementwise and reduction rules (their differentiable twins live in ops/elementwise.py, ops/reduction.py)
def trunc(x):
    return get_array_module(x).trunc(x)


def digamma(x):
    from ..ops.special import Digamma
    return Digamma.forward(None, x)


def polygamma(n, x):
    from ..ops.special import Polygamma
    return Polygamma.forward(None, x, n)


def sinh(x):
    return get_array_module(x).sinh(x)


def cosh(x):
    return get_array_module(x).cosh(x)


def logcumsumexp(x, dim):
    return get_array_module(x).logaddexp.accumulate(x, axis=dim)


def cumsum(x, dim):
    return x.cumsum(axis=dim)


def cumprod(x, dim):
    return x.cumprod(axis=dim)
