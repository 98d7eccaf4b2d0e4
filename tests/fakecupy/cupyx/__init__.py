"""cupyx of the fake: the scatter routines and scipy.special."""
from cupy._core import ndarray as _ndarray

from . import scipy  # noqa: F401


def _scatter(a, slices, value, op):
    if not isinstance(a, _ndarray):
        raise TypeError(f"Unsupported type {type(a)}")
    a._scatter_op(slices, value, op)


def scatter_add(a, slices, value):
    """Adds given values to specified elements of an array (repeated indices add up)."""
    _scatter(a, slices, value, "add")


def scatter_max(a, slices, value):
    _scatter(a, slices, value, "max")


def scatter_min(a, slices, value):
    _scatter(a, slices, value, "min")
