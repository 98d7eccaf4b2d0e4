"""Window functions (``torch.hann_window``, ``hamming_window``, ``blackman_window``, ``bartlett_window``,
``kaiser_window``): PyTorch's formulas; ``periodic`` windows are the symmetric window one longer,
without its last value."""
import math
import numbers

import numpy as np

from .. import dtypes as _dt
from . import creation

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


def _window(name, window_length, periodic, dtype, device, requires_grad, values):
    if isinstance(window_length, bool) or not isinstance(window_length, numbers.Integral):
        # PyTorch's argument parser, before any value check (a tensor, a float, a bool)
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{'Tensor' if hasattr(window_length, '_data') else type(window_length).__name__}")
    window_length = int(window_length)
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    if not dt.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dt}")
    if window_length == 0:
        data = np.zeros(0)
    elif window_length == 1:
        data = np.ones(1)
    else:
        m = window_length + 1 if periodic else window_length
        data = values(np.arange(m, dtype=np.float64), m - 1)[:window_length]
    return creation.tensor(data, dtype=dt, device=device, requires_grad=requires_grad)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                requires_grad=False):
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, m: 0.5 - 0.5 * np.cos(2 * math.pi * n / m))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   pin_memory=False, requires_grad=False):
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, m: alpha - beta * np.cos(2 * math.pi * n / m))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, m: 0.42 - 0.5 * np.cos(2 * math.pi * n / m) + 0.08 * np.cos(4 * math.pi * n / m))


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, m: 1 - np.abs(2 * n / m - 1))


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  pin_memory=False, requires_grad=False):
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, m: np.i0(beta * np.sqrt(np.clip(1 - (2 * n / m - 1) ** 2, 0, None))) / np.i0(beta))
