"""A CuPy stand-in for CI machines without a GPU: NumPy memory, CuPy's host/device rules.

Only the test suite puts this package on ``sys.path`` (tests/conftest.py), and only when the real
CuPy is not installed. It has a device only while the test switch ``FAKECUPY_DEVICES=1`` is set;
otherwise ``cupy.cuda.runtime.getDeviceCount()`` raises, as CuPy does on a machine with no GPU.
The rules it keeps are listed in ``cupy/_core.py``.
"""
import numpy as _numpy

from ._core import ndarray, wrap as _wrap, dev as _dev, host_data as _host_data, _new, _out, \
    _check_dtype, require_device as _require_device, kernel_arg as _kernel_arg
from ._ufuncs import UFUNCS as _UFUNCS, ufunc
from . import cuda, random, linalg, fft, lib, testing  # noqa: F401

__version__ = "13.6.0+fake"
_FAKE = True

# NumPy's names that CuPy re-exports as they are (dtypes, constants)
from numpy import (  # noqa: F401,E402
    e, euler_gamma, inf, nan, newaxis, pi, complexfloating, floating, generic, inexact, integer, number,
    signedinteger, unsignedinteger, bool_, byte, short, intc, int_, longlong, intp, int8, int16, int32,
    int64, ubyte, ushort, uintc, uint, ulonglong, uintp, uint8, uint16, uint32, uint64, half, single,
    double, float16, float32, float64, csingle, cdouble, complex64, complex128, broadcast_shapes,
    promote_types, dtype, finfo, iinfo, issubdtype, isdtype, mintypecode, typename, index_exp, ndindex,
    s_, get_printoptions, set_printoptions, printoptions, iterable, isscalar, min_scalar_type)
from numpy.exceptions import AxisError, ComplexWarning  # noqa: F401,E402

bool = _numpy.bool   # noqa: A001
float_ = _numpy.float64
complex_ = _numpy.complex128

globals().update(_UFUNCS)


# ------------------------------------------------------------------ host <-> device
def asnumpy(a, stream=None, order="C", out=None, *, blocking=True):
    """Returns an array on the host memory from an arbitrary source array."""
    if isinstance(a, ndarray):
        return a.get(stream=stream, order=order, out=out, blocking=blocking)
    temp = _numpy.asarray(a, order=order)
    if out is not None:
        out[...] = temp
        return out
    return temp


def get_array_module(*args):
    """cupy if any argument is a device array, numpy otherwise."""
    import sys
    for arg in args:
        if isinstance(arg, ndarray):
            return sys.modules[__name__]
    return _numpy


def is_available():
    from ._core import device_count
    return device_count() > 0


def get_default_memory_pool():
    return cuda._POOL


def get_default_pinned_memory_pool():
    return cuda._PINNED_POOL


# ------------------------------------------------------------------ creation
def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *, blocking=False):
    """Creates an array on the current device (host data is copied over)."""
    _require_device()
    if isinstance(obj, ndarray):
        a = obj._a
        if dtype is not None and _numpy.dtype(dtype) != a.dtype:
            a = a.astype(dtype, order=order)
        elif copy:
            a = _numpy.array(a, order=order, copy=True)
        if ndmin > a.ndim:
            a = a.reshape((1,) * (ndmin - a.ndim) + a.shape)
        return _new(a) if a is not obj._a else obj
    a = _numpy.array(_host_data(obj), dtype=dtype, order=order, ndmin=ndmin, copy=True)
    _check_dtype(a.dtype)
    return _new(a)


def asarray(a, dtype=None, order=None, *, copy=None, blocking=False):
    if isinstance(a, ndarray) and (dtype is None or _numpy.dtype(dtype) == a.dtype) and not copy:
        return a
    return array(a, dtype, copy=bool(copy), order=order or "K", blocking=blocking)


asanyarray = asarray


def ascontiguousarray(a, dtype=None):
    if not isinstance(a, ndarray):
        raise TypeError(f"Argument 'a' has incorrect type (expected cupy._core.core._ndarray_base, "
                        f"got {type(a).__name__})")
    r = _numpy.ascontiguousarray(a._a, dtype=dtype)
    return a if r is a._a else _wrap(r, (a,))


def asfortranarray(a, dtype=None):
    if not isinstance(a, ndarray):
        raise TypeError(f"Argument 'a' has incorrect type (expected cupy._core.core._ndarray_base, "
                        f"got {type(a).__name__})")
    r = _numpy.asfortranarray(a._a, dtype=dtype)
    return a if r is a._a else _wrap(r, (a,))


def empty(shape, dtype=float, order="C"):
    return ndarray(shape, dtype, order=order)


def zeros(shape, dtype=float, order="C"):
    _require_device()
    return _new(_numpy.zeros(shape, _check_dtype(_numpy.dtype(dtype)), order))


def ones(shape, dtype=float, order="C"):
    _require_device()
    return _new(_numpy.ones(shape, _check_dtype(_numpy.dtype(dtype)), order))


def full(shape, fill_value, dtype=None, order="C"):
    _require_device()
    if dtype is None:
        dtype = fill_value.dtype if isinstance(fill_value, ndarray) else _numpy.array(fill_value).dtype
    out = ndarray(shape, dtype, order=order)
    out.fill(fill_value)
    return out


def _like(a, dtype, shape):
    if not isinstance(a, ndarray):
        raise TypeError(f"Unsupported type {type(a)}")
    return (a.shape if shape is None else shape), (a.dtype if dtype is None else dtype)


def empty_like(prototype, dtype=None, order="K", subok=None, shape=None):
    shape, dtype = _like(prototype, dtype, shape)
    return empty(shape, dtype)


def zeros_like(a, dtype=None, order="K", subok=None, shape=None):
    shape, dtype = _like(a, dtype, shape)
    return zeros(shape, dtype)


def ones_like(a, dtype=None, order="K", subok=None, shape=None):
    shape, dtype = _like(a, dtype, shape)
    return ones(shape, dtype)


def full_like(a, fill_value, dtype=None, order="K", subok=None, shape=None):
    shape, dtype = _like(a, dtype, shape)
    return full(shape, fill_value, dtype)


def arange(start, stop=None, step=1, dtype=None):
    _require_device()
    return _new(_numpy.arange(start, stop, step, dtype=dtype) if stop is not None
                else _numpy.arange(start, step=step, dtype=dtype))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    _require_device()
    r = _numpy.linspace(_kernel_arg(start), _kernel_arg(stop), num, endpoint, retstep, dtype, axis)
    return (_new(r[0]), r[1]) if retstep else _new(r)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    _require_device()
    return _new(_numpy.logspace(start, stop, num, endpoint, base, dtype, axis))


def eye(N, M=None, k=0, dtype=float, order="C"):
    _require_device()
    return _new(_numpy.eye(N, M, k, dtype, order))


def identity(n, dtype=float):
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=float):
    _require_device()
    return _new(_numpy.tri(N, M, k, dtype))


# ------------------------------------------------------------------ routines with CuPy's signatures
def _r(name, *args, out=None, **kwargs):
    args = [_dev(a) for a in args]
    kwargs = {k: _dev(v) for k, v in kwargs.items()}
    if out is not None:
        kwargs["out"] = _out(out)
    r = getattr(_numpy, name)(*args, **kwargs)
    return out if out is not None else _wrap(r)


def _array_arg(a, name="a"):
    if not isinstance(a, ndarray):
        raise TypeError(f"Unsupported type {type(a)}") if isinstance(a, _numpy.ndarray) else \
            TypeError(f"Argument '{name}' has incorrect type (expected cupy.ndarray, got {type(a).__name__})")
    return a


def sum(a, axis=None, dtype=None, out=None, keepdims=False):  # noqa: A001
    return _array_arg(a).sum(axis, dtype, out, keepdims)


def prod(a, axis=None, dtype=None, out=None, keepdims=False):
    return _array_arg(a).prod(axis, dtype, out, keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    return _array_arg(a).mean(axis, dtype, out, keepdims)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return _array_arg(a).var(axis, dtype, out, ddof, keepdims)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return _array_arg(a).std(axis, dtype, out, ddof, keepdims)


def amax(a, axis=None, out=None, keepdims=False):
    return _array_arg(a).max(axis, out, keepdims)


def amin(a, axis=None, out=None, keepdims=False):
    return _array_arg(a).min(axis, out, keepdims)


max = amax  # noqa: A001
min = amin  # noqa: A001


def ptp(a, axis=None, out=None, keepdims=False):
    return _array_arg(a).ptp(axis, out, keepdims)


def argmax(a, axis=None, dtype=None, out=None, keepdims=False):
    return _array_arg(a).argmax(axis, out, dtype, keepdims)


def argmin(a, axis=None, dtype=None, out=None, keepdims=False):
    return _array_arg(a).argmin(axis, out, dtype, keepdims)


def all(a, axis=None, out=None, keepdims=False):  # noqa: A001
    return _array_arg(a).all(axis, out, keepdims)


def any(a, axis=None, out=None, keepdims=False):  # noqa: A001
    return _array_arg(a).any(axis, out, keepdims)


def cumsum(a, axis=None, dtype=None, out=None):
    return _array_arg(a).cumsum(axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None):
    return _array_arg(a).cumprod(axis, dtype, out)


def clip(a, a_min, a_max, out=None):
    return _array_arg(a).clip(a_min, a_max, out)


def around(a, decimals=0, out=None):
    return _array_arg(a).round(decimals, out)


round = around  # noqa: A001


def sort(a, axis=-1, kind=None):
    r = _array_arg(a).copy() if axis is not None else a.ravel().copy()
    r.sort(-1 if axis is None else axis)
    return r


def argsort(a, axis=-1, kind=None):
    return _array_arg(a).argsort(axis, kind)


def take(a, indices, axis=None, out=None):
    a = _array_arg(a)
    if isinstance(indices, ndarray):
        idx = indices._a
    elif isinstance(indices, (int, _numpy.integer)):
        idx = indices
    else:
        idx = _numpy.asarray(_host_data(indices))      # host indices are copied over
    return _result(_numpy.take(a._a, idx, axis, _out(out), mode="wrap"), out)


def _result(r, out):
    return out if out is not None else _wrap(r)


def take_along_axis(a, indices, axis):
    a, indices = _array_arg(a), _array_arg(indices, "indices")
    idx = indices._a
    if axis is not None and a.shape[axis] > 0:
        idx = _numpy.mod(idx, a.shape[axis])
    return _wrap(_numpy.take_along_axis(a._a, idx, axis))


def put_along_axis(arr, indices, values, axis):
    arr, indices = _array_arg(arr, "arr"), _array_arg(indices, "indices")
    _numpy.put_along_axis(arr._a, indices._a, _kernel_arg(values), axis)


def concatenate(tup, axis=0, out=None, *, dtype=None, casting="same_kind"):
    for x in tup:
        if not isinstance(x, ndarray):
            raise TypeError("Only cupy arrays can be concatenated")
    return _r("concatenate", tup, axis, out=out, dtype=dtype, casting=casting)


def stack(tup, axis=0, out=None, *, dtype=None, casting="same_kind"):
    for x in tup:
        if not isinstance(x, ndarray):
            raise TypeError(f"Unsupported type {type(x)}")
    return _r("stack", tup, axis, out=out, dtype=dtype, casting=casting)


def where(condition, x=None, y=None):
    if (x is None) != (y is None):
        raise ValueError("Must give either both or neither of x and y")
    if x is None:
        return nonzero(condition)
    return _wrap(_numpy.where(_kernel_arg(condition), _kernel_arg(x), _kernel_arg(y)))


def nonzero(a):
    return _array_arg(a).nonzero()


def count_nonzero(a, axis=None):
    return _new(_numpy.asarray(_numpy.count_nonzero(_array_arg(a)._a, axis)))


def allclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    return isclose(a, b, rtol, atol, equal_nan).all()


def isclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    return _new(_numpy.asarray(_numpy.isclose(_kernel_arg(a), _kernel_arg(b), rtol, atol, equal_nan)))


def array_equal(a1, a2, equal_nan=False):
    return _new(_numpy.asarray(_numpy.array_equal(_dev(a1), _dev(a2), equal_nan)))


def copyto(dst, src, casting="same_kind", where=None):
    _numpy.copyto(_array_arg(dst, "dst")._a, _kernel_arg(src), casting,
                  True if where is None else _kernel_arg(where))


def searchsorted(a, v, side="left", sorter=None):
    return _wrap(_numpy.searchsorted(_array_arg(a)._a, _kernel_arg(v), side,
                                     None if sorter is None else _array_arg(sorter, "sorter")._a))


def result_type(*arrays_and_dtypes):
    return _numpy.result_type(*[a.dtype if isinstance(a, ndarray) else a for a in arrays_and_dtypes])


def can_cast(from_, to, casting="safe"):
    return _numpy.can_cast(from_.dtype if isinstance(from_, ndarray) else from_, to, casting=casting)


def shape(a):
    return a.shape if isinstance(a, ndarray) else _numpy.shape(a)


def ndim(a):
    return a.ndim if isinstance(a, ndarray) else _numpy.ndim(a)


def size(a, axis=None):
    return (a.size if axis is None else a.shape[axis]) if isinstance(a, ndarray) else _numpy.size(a, axis)


def iscomplexobj(x):
    return x.dtype.kind == "c" if isinstance(x, ndarray) else _numpy.iscomplexobj(x)


def isrealobj(x):
    return not iscomplexobj(x)


def may_share_memory(a, b, max_work=None):
    return _numpy.may_share_memory(_dev(a), _dev(b))


def shares_memory(a, b, max_work=None):
    return _numpy.shares_memory(_dev(a), _dev(b))


def astype(x, dtype, /, *, copy=True):
    return _array_arg(x, "x").astype(dtype, copy=copy)


def reshape(a, newshape, order="C"):
    return _array_arg(a).reshape(newshape, order=order)


def transpose(a, axes=None):
    return _array_arg(a).transpose(axes)


def ravel(a, order="C"):
    return _array_arg(a).ravel(order)


def squeeze(a, axis=None):
    return _array_arg(a).squeeze(axis)


def swapaxes(a, axis1, axis2):
    return _array_arg(a).swapaxes(axis1, axis2)


def copy(a, order="K"):
    return _array_arg(a).copy("C" if order == "K" else order)


def dot(a, b, out=None):
    return _array_arg(a).dot(b, out)


def repeat(a, repeats, axis=None):
    return _array_arg(a).repeat(repeats, axis)


def _writable_view(r, a):
    """r (a read-only NumPy view NumPy made of a's memory) as the writable view CuPy gives."""
    return _numpy.lib.stride_tricks.as_strided(a, r.shape, r.strides) if not r.flags.writeable else r


def broadcast_to(array, shape):
    """A view of ``array`` with the given shape: writable, as CuPy's (NumPy's is read-only), so that
    writing into it writes each shared element several times instead of raising."""
    a = _array_arg(array, "array")._a
    return _wrap(_writable_view(_numpy.broadcast_to(a, shape), a), (array,))


def broadcast_arrays(*args):
    arrays = [_array_arg(x) for x in args]
    return [_wrap(_writable_view(r, x._a), (x,)) for r, x in zip(_numpy.broadcast_arrays(*[x._a for x in arrays]),
                                                                  arrays)]


def diagonal(a, offset=0, axis1=0, axis2=1):
    return _array_arg(a).diagonal(offset, axis1, axis2)


def _generic(name):
    npf = getattr(_numpy, name)

    def f(*args, **kwargs):
        parents = args
        args = [_dev(a) for a in args]
        out = kwargs.pop("out", None)
        kwargs = {k: _dev(v) for k, v in kwargs.items()}
        if out is not None:
            kwargs["out"] = _out(out)
        _require_device()
        r = npf(*args, **kwargs)
        return out if out is not None else _wrap(r, parents)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"cupy.{name} (fake): numpy.{name} on device arrays."
    return f


# Routines of CuPy's top-level namespace (cupy/__init__.py) taken from NumPy as they are, device
# arrays in and out; those defined above keep CuPy's own signatures.
_GENERIC = (
    "angle append apply_along_axis apply_over_axes argpartition argwhere array_equiv array_split "
    "atleast_1d atleast_2d atleast_3d average bincount choose column_stack "
    "compress concat convolve corrcoef correlate cov cross cumulative_prod cumulative_sum delete diag "
    "diag_indices diag_indices_from diagflat diagonal diff digitize dsplit dstack ediff1d einsum "
    "expand_dims extract fill_diagonal fix flatnonzero flip fliplr flipud gradient histogram histogram2d "
    "histogramdd hsplit hstack i0 imag indices inner interp intersect1d iscomplex isin isneginf isposinf "
    "isreal ix_ kron lexsort matrix_transpose median meshgrid moveaxis nan_to_num nanargmax nanargmin "
    "nancumprod nancumsum nanmax nanmean nanmedian nanmin nanprod nanstd nansum nanvar outer packbits pad "
    "partition percentile permute_dims piecewise place poly polyadd polyfit polymul polysub polyval put "
    "putmask quantile ravel_multi_index real real_if_close resize roll rollaxis roots rot90 select "
    "setdiff1d setxor1d sinc sort_complex split tensordot tile trace trapezoid tril tril_indices "
    "tril_indices_from trim_zeros triu triu_indices triu_indices_from union1d unique unique_all "
    "unique_counts unique_inverse unique_values unpackbits unravel_index unwrap vander vdot vsplit vstack"
).split()
for _name in _GENERIC:
    if hasattr(_numpy, _name):
        globals()[_name] = _generic(_name)
del _name
