"""cupyx.scipy.special of the fake: elementwise kernels over the math module (float32 stays float32)."""
import math

import numpy as _numpy

from cupy._core import _new, kernel_arg as _kernel_arg, require_device as _require_device, \
    _out, ndarray as _ndarray


class _Special:
    def __init__(self, name, scalar):
        self.__name__ = name
        self._f = _numpy.frompyfunc(scalar, 1, 1)
        self.nin, self.nout, self.nargs = 1, 1, 2

    def __call__(self, x, out=None):
        _require_device()
        a = _numpy.asarray(_kernel_arg(x))
        dt = a.dtype if a.dtype in (_numpy.float32, _numpy.float64) else \
            (_numpy.dtype(_numpy.float32) if a.dtype == _numpy.float16 else _numpy.dtype(_numpy.float64))
        r = self._f(a.astype(_numpy.float64)).astype(dt)
        if out is not None:
            _out(out)[...] = r
            return out
        return _new(_numpy.asarray(r))


def _xlogy(x, y):
    return 0.0 if x == 0 and not math.isnan(y) else x * math.log(y) if y > 0 else (
        -math.inf if y == 0 else math.nan)


erf = _Special("erf", math.erf)
erfc = _Special("erfc", math.erfc)
gammaln = _Special("gammaln", lambda v: math.lgamma(v) if v > 0 or v != math.floor(v) else math.inf)
expit = _Special("expit", lambda v: 1.0 / (1.0 + math.exp(-v)) if v >= 0 else math.exp(v) / (1.0 + math.exp(v)))
ndtr = _Special("ndtr", lambda v: 0.5 * math.erfc(-v / math.sqrt(2.0)))
