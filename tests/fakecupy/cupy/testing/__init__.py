"""cupy.testing of the fake: the NumPy assertions, device arrays brought to the host first."""
import numpy as _numpy

from .._core import ndarray


def _host(x):
    return x.get() if isinstance(x, ndarray) else x


def assert_allclose(actual, desired, rtol=1e-7, atol=0, err_msg="", verbose=True):
    _numpy.testing.assert_allclose(_host(actual), _host(desired), rtol, atol, err_msg=err_msg, verbose=verbose)


def assert_array_equal(x, y, err_msg="", verbose=True, strict=False):
    _numpy.testing.assert_array_equal(_host(x), _host(y), err_msg=err_msg, verbose=verbose, strict=strict)
