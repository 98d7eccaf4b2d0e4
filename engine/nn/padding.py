"""Padding layers: zero, constant, reflection, replication and circular padding, as modules over F.pad."""
from . import functional as F
from .module import Module

__all__ = ["ZeroPad1d", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d",
           "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
           "CircularPad1d", "CircularPad2d", "CircularPad3d"]


class _PadNd(Module):
    """Pads the last ``_nd`` dimensions by ``padding`` (an int for every side, or a tuple
    (left, right, top, bottom, front, back) from the last dimension back)."""
    _nd = 0
    _mode = "constant"

    def __init__(self, padding, value=None):
        super().__init__()
        n = 2 * self._nd
        if isinstance(padding, int):
            padding = (padding,) * n
        padding = tuple(padding)
        if len(padding) != n:
            raise ValueError(f"expected padding to be an int or a tuple of {n} ints, but got {padding}")
        self.padding = padding
        if value is not None:
            self.value = value

    def forward(self, input):
        if self._mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        if self._mode == "constant":
            return f"padding={self.padding}, value={self.value}"
        return f"{self.padding}"


def _pad(name, nd, mode, doc):
    return type(name, (_PadNd,), {"_nd": nd, "_mode": mode, "__doc__": doc, "__module__": __name__})


class ConstantPad1d(_PadNd):
    """Pads the last dimension with a constant value."""
    _nd = 1

    def __init__(self, padding, value):
        super().__init__(padding, value)


class ConstantPad2d(ConstantPad1d):
    """Pads the last 2 dimensions with a constant value."""
    _nd = 2


class ConstantPad3d(ConstantPad1d):
    """Pads the last 3 dimensions with a constant value."""
    _nd = 3


class ZeroPad1d(ConstantPad1d):
    """Pads the last dimension with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ZeroPad1d):
    """Pads the last 2 dimensions with zeros."""
    _nd = 2


ReflectionPad1d = _pad("ReflectionPad1d", 1, "reflect", "Pads the last dimension with its reflection.")
ReflectionPad2d = _pad("ReflectionPad2d", 2, "reflect", "Pads the last 2 dimensions with their reflection.")
ReflectionPad3d = _pad("ReflectionPad3d", 3, "reflect", "Pads the last 3 dimensions with their reflection.")
ReplicationPad1d = _pad("ReplicationPad1d", 1, "replicate", "Pads the last dimension by repeating its edge.")
ReplicationPad2d = _pad("ReplicationPad2d", 2, "replicate", "Pads the last 2 dimensions by repeating their edges.")
ReplicationPad3d = _pad("ReplicationPad3d", 3, "replicate", "Pads the last 3 dimensions by repeating their edges.")
CircularPad1d = _pad("CircularPad1d", 1, "circular", "Pads the last dimension circularly.")
CircularPad2d = _pad("CircularPad2d", 2, "circular", "Pads the last 2 dimensions circularly.")
CircularPad3d = _pad("CircularPad3d", 3, "circular", "Pads the last 3 dimensions circularly.")
