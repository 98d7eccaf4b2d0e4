"""Devices and the array module behind them: NumPy on "cpu", CuPy on "cuda"."""
import numpy as np

__all__ = ["device", "get_array_module", "cuda_available", "as_device"]

_cupy = None
_cupy_checked = False


def _load_cupy():
    global _cupy, _cupy_checked
    if not _cupy_checked:
        _cupy_checked = True
        try:
            import cupy
            if cupy.cuda.runtime.getDeviceCount() > 0:
                _cupy = cupy
        except Exception:  # no CuPy, no driver or no device: CPU only
            _cupy = None
    return _cupy


def cuda_available():
    return _load_cupy() is not None


class device:
    """Where a tensor's memory lives (``torch.device``)."""
    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        if ":" in type:
            type, _, idx = type.partition(":")
            index = int(idx)
        if type not in ("cpu", "cuda"):
            raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {type}")
        self.type = type
        self.index = index

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and (
            self.index == other.index or self.index is None or other.index is None)

    def __hash__(self):
        return hash(self.type)

    def __repr__(self):
        return f"device(type='{self.type}'" + (f", index={self.index})" if self.index is not None else ")")

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"


CPU = device("cpu")
CUDA = device("cuda")


def as_device(d):
    if d is None:
        return None
    if isinstance(d, device):
        return CPU if d.type == "cpu" else d
    d = device(d)
    return CPU if d.type == "cpu" else d


def array_module_for(dev):
    """NumPy for the CPU, CuPy for CUDA (raising as PyTorch does when there is none)."""
    if dev is None or dev.type == "cpu":
        return np
    cp = _load_cupy()
    if cp is None:
        raise RuntimeError("Torch not compiled with CUDA enabled: no CUDA device is available")
    return cp


def get_array_module(array):
    """NumPy or CuPy, whichever holds ``array`` (Chainer's get_array_module)."""
    if type(array) is np.ndarray or _cupy is None:
        return np
    return _cupy if isinstance(array, _cupy.ndarray) else np


def device_of(array):
    if type(array) is np.ndarray:
        return CPU
    if not _cupy_checked and hasattr(array, "__cuda_array_interface__"):
        _load_cupy()       # a CuPy array before the engine first looked for CuPy
    if _cupy is None or not isinstance(array, _cupy.ndarray):
        return CPU
    return device("cuda", array.device.id)
