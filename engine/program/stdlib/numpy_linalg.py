"""Program-side ``numpy.linalg``: NumPy's, with the work of each call bounded first."""
import numpy as _np

from .numpy import _check_dot, _check_square_work, _function

__all__ = ["norm", "inv", "pinv", "det", "slogdet", "solve", "lstsq", "eig", "eigh", "eigvals", "eigvalsh", "svd",
           "qr", "cholesky", "matrix_rank", "matrix_power", "cond", "multi_dot", "LinAlgError"]

from ..errors import PROGRAM_EXCEPTIONS as _P  # noqa: E402

LinAlgError = _P["ValueError"]


def _check_power(a, n):
    _check_square_work(a)
    if isinstance(n, int) and abs(n) > 1 << 20:
        raise ValueError("matrix_power exponent too large for programs")


def _check_multi(arrays):
    for x, y in zip(arrays, arrays[1:]):
        _check_dot(x, y)


norm = _function(_np.linalg.norm, None, "norm")
for _name in ("inv", "pinv", "det", "slogdet", "solve", "lstsq", "eig", "eigh", "eigvals", "eigvalsh", "svd", "qr",
              "cholesky", "matrix_rank", "cond"):
    globals()[_name] = _function(getattr(_np.linalg, _name), _check_square_work, _name)
matrix_power = _function(_np.linalg.matrix_power, _check_power, "matrix_power")
multi_dot = _function(_np.linalg.multi_dot, _check_multi, "multi_dot")
del _name
