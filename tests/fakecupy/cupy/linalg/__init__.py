"""cupy.linalg of the fake: numpy.linalg on device arrays (the names CuPy has)."""
import numpy as _numpy
from numpy.linalg import LinAlgError  # noqa: F401

from .._core import dev as _dev, wrap as _wrap, require_device as _require_device


def _wrap_linalg(name, npf):
    def f(*args, **kwargs):
        _require_device()
        return _wrap(npf(*[_dev(a) for a in args], **{k: _dev(v) for k, v in kwargs.items()}))
    f.__name__ = name
    return f


for _name in ("matrix_power matmul matrix_transpose cholesky qr svd eigh eig eigvalsh eigvals norm cond det "
              "matrix_rank slogdet solve tensorsolve lstsq inv pinv tensorinv").split():
    globals()[_name] = _wrap_linalg(_name, getattr(_numpy.linalg, _name))
cross = _wrap_linalg("cross", _numpy.linalg.cross)
del _name
