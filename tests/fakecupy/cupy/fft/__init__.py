"""cupy.fft of the fake: numpy.fft on device arrays."""
import numpy as _numpy

from .._core import dev as _dev, wrap as _wrap, require_device as _require_device


def _wrap_fft(name):
    npf = getattr(_numpy.fft, name)

    def f(*args, **kwargs):
        _require_device()
        return _wrap(npf(*[_dev(a) for a in args], **{k: _dev(v) for k, v in kwargs.items()}))
    f.__name__ = name
    return f


for _name in ("fft ifft fft2 ifft2 fftn ifftn rfft irfft rfft2 irfft2 rfftn irfftn hfft ihfft fftshift "
              "ifftshift").split():
    globals()[_name] = _wrap_fft(_name)


def fftfreq(n, d=1.0):
    _require_device()
    return _wrap(_numpy.fft.fftfreq(n, d))


def rfftfreq(n, d=1.0):
    _require_device()
    return _wrap(_numpy.fft.rfftfreq(n, d))


del _name
