"""``torch.cpu``: the CPU as PyTorch's device module describes it, and its (deprecated) ``amp``."""
from . import cpu_amp as amp  # noqa: F401

__all__ = ["is_available", "device_count", "current_device", "synchronize"]


def is_available():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def synchronize(device=None):
    return None
