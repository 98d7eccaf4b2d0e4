"""Program-side ``statistics``: CPython's functions on a program's numbers (uvadlc's meta-learning
notebook imports ``mean`` and ``stdev`` for its test accuracies). The data is walked first, a step
per item (a generator runs through the interpreter), and must be plain numbers (NumPy scalars as
their Python values; ``mode`` and ``multimode`` also take strings): CPython's statistics then runs
on plain data only, so the host never calls a program's methods."""
import statistics as _st

from ..errors import PROGRAM_EXCEPTIONS as _P
from . import materialize

__all__ = ["StatisticsError", "fmean", "geometric_mean", "harmonic_mean", "mean", "median", "median_high",
           "median_low", "mode", "multimode", "pstdev", "pvariance", "quantiles", "stdev", "variance"]


class StatisticsError(_P["ValueError"]):
    """statistics.StatisticsError: data these functions cannot take (too few points, no mode)."""


def _plain(x, strings=False):
    t = type(x)
    if t is int or t is float or t is bool or (strings and t is str):
        return x
    from .numpy import _Scalar
    if isinstance(x, _Scalar):
        return x._plain()
    raise _P["TypeError"](f"can't convert type '{t.__name__}' to numerator/denominator")


def _data(data, strings=False):
    return [_plain(x, strings) for x in materialize(data)]


def _run(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except _st.StatisticsError as e:
        raise StatisticsError(str(e)) from None
    except (TypeError, ValueError, ZeroDivisionError) as e:   # CPython's own errors on plain numbers
        raise _P[type(e).__name__](str(e)) from None


def mean(data):
    """Return the sample arithmetic mean of data."""
    return _run(_st.mean, _data(data))


def fmean(data, weights=None):
    """Convert data to floats and compute the arithmetic mean."""
    return _run(_st.fmean, _data(data), None if weights is None else _data(weights))


def geometric_mean(data):
    """Convert data to floats and compute the geometric mean."""
    return _run(_st.geometric_mean, _data(data))


def harmonic_mean(data, weights=None):
    """Return the harmonic mean of data."""
    return _run(_st.harmonic_mean, _data(data), None if weights is None else _data(weights))


def median(data):
    """Return the median (middle value) of numeric data."""
    return _run(_st.median, _data(data))


def median_low(data):
    """Return the low median of numeric data."""
    return _run(_st.median_low, _data(data))


def median_high(data):
    """Return the high median of data."""
    return _run(_st.median_high, _data(data))


def mode(data):
    """Return the most common data point from discrete or nominal data."""
    return _run(_st.mode, _data(data, strings=True))


def multimode(data):
    """Return a list of the most frequently occurring values."""
    return _run(_st.multimode, _data(data, strings=True))


def quantiles(data, *, n=4, method="exclusive"):
    """Divide data into n continuous intervals with equal probability."""
    if type(n) is not int:
        raise _P["TypeError"]("n must be an int")
    if n > 10_000:
        raise _P["ValueError"]("n is at most 10000 in programs")
    return _run(_st.quantiles, _data(data), n=n, method=method)


def _xbar(v):
    return None if v is None else _plain(v)


def variance(data, xbar=None):
    """Return the sample variance of data."""
    return _run(_st.variance, _data(data), _xbar(xbar))


def pvariance(data, mu=None):
    """Return the population variance of data."""
    return _run(_st.pvariance, _data(data), _xbar(mu))


def stdev(data, xbar=None):
    """Return the square root of the sample variance."""
    return _run(_st.stdev, _data(data), _xbar(xbar))


def pstdev(data, mu=None):
    """Return the square root of the population variance."""
    return _run(_st.pstdev, _data(data), _xbar(mu))
