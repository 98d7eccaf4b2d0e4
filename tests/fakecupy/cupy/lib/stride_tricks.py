"""cupy.lib.stride_tricks of the fake."""
import numpy as _numpy

from .._core import ndarray, wrap as _wrap


def as_strided(x, shape=None, strides=None):
    """A view of ``x`` with the given shape and strides (CuPy's takes no ``writeable``)."""
    if not isinstance(x, ndarray):
        raise TypeError(f"Unsupported type {type(x)}")
    return _wrap(_numpy.lib.stride_tricks.as_strided(x._a, shape, strides), (x,))


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    if not isinstance(x, ndarray):
        raise TypeError(f"Unsupported type {type(x)}")
    return _wrap(_numpy.lib.stride_tricks.sliding_window_view(x._a, window_shape, axis, writeable=writeable),
                 (x,))
