"""cupy.random of the fake: NumPy's legacy generator, results on the device.

The streams are NumPy's, not cuRAND's: a seed gives other numbers than real CuPy, as it does there
compared with NumPy. Code that needs the same numbers on both devices must draw on the host.
"""
import numpy as _numpy

from .._core import _new, require_device as _require_device, kernel_arg as _kernel_arg


class RandomState:
    def __init__(self, seed=None, method=None):
        self._rs = _numpy.random.RandomState(seed)

    def seed(self, seed=None):
        self._rs.seed(seed)

    def _draw(self, name, *args, dtype=None, **kwargs):
        _require_device()
        r = _numpy.asarray(getattr(self._rs, name)(*[_kernel_arg(a) if not isinstance(a, (tuple, list))
                                                     else a for a in args], **kwargs))
        return _new(r if dtype is None else r.astype(dtype))

    def rand(self, *size, dtype=float):
        return self._draw("random_sample", size or None, dtype=dtype)

    def randn(self, *size, dtype=float):
        return self._draw("standard_normal", size or None, dtype=dtype)

    def random_sample(self, size=None, dtype=float):
        return self._draw("random_sample", size, dtype=dtype)

    random = random_sample

    def standard_normal(self, size=None, dtype=float):
        return self._draw("standard_normal", size, dtype=dtype)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=float):
        return self._draw("normal", loc, scale, size, dtype=dtype)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=float):
        return self._draw("uniform", low, high, size, dtype=dtype)

    def randint(self, low, high=None, size=None, dtype=int):
        return self._draw("randint", low, high, size, dtype=dtype)

    def exponential(self, scale=1.0, size=None, dtype=float):
        return self._draw("exponential", scale, size, dtype=dtype)

    def permutation(self, num):
        return self._draw("permutation", num)

    def choice(self, a, size=None, replace=True, p=None):
        return self._draw("choice", a, size, replace, None if p is None else p.get())


_state = RandomState()


def get_random_state():
    return _state


def seed(seed=None):
    _state.seed(seed)


def reset_states():
    global _state
    _state = RandomState()


for _name in ("rand randn random_sample random standard_normal normal uniform randint exponential permutation "
              "choice").split():
    globals()[_name] = (lambda n: lambda *a, **k: getattr(_state, n)(*a, **k))(_name)
del _name
