"""torch.cuda: whether a CUDA device (through CuPy) is available, and the few calls scripts make on it.
A module, as PyTorch's (IBM's pytorch-seq2seq does ``import torch.cuda as device`` when CUDA is there)."""
import builtins as _builtins

from .device import cuda_available as _cuda_available

__all__ = ["is_available", "is_bf16_supported", "device_count", "manual_seed", "manual_seed_all", "synchronize",
           "get_device_name", "empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved"]


def is_available():
    return _cuda_available()


def is_bf16_supported(including_emulation=True):
    """False: the engine has no bfloat16 arrays (engine/dtypes.py), on any device."""
    return False


def device_count():
    if not _cuda_available():
        return 0
    import cupy
    return cupy.cuda.runtime.getDeviceCount()


def manual_seed(seed):
    return None


manual_seed_all = manual_seed


def synchronize():
    if _cuda_available():
        import cupy
        cupy.cuda.Stream.null.synchronize()


def get_device_name(device=None):
    """The GPU's name (CuPy's device properties); PyTorch's error without one."""
    if not _cuda_available():
        raise AssertionError("Torch not compiled with CUDA enabled")   # PyTorch's CPU build's words
    import cupy
    index = device if isinstance(device, _builtins.int) else getattr(device, "index", None)
    props = cupy.cuda.runtime.getDeviceProperties(index or 0)
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def empty_cache():
    """Gives the GPU memory CuPy's pool holds unused back to the device (PyTorch: its caching
    allocator's unused blocks); nothing without a GPU, as in PyTorch. In a GPU worker other sessions
    keep their arrays: only blocks no array uses are freed."""
    if _cuda_available():
        import cupy
        cupy.get_default_memory_pool().free_all_blocks()


def _memory_statistic(name):
    def statistic(device=None):
        """0 without a GPU, as PyTorch's when CUDA was never initialized; with one, an error: the engine
        keeps no per-session account of GPU memory (CuPy's pool is shared by the worker's sessions)."""
        if _cuda_available():
            raise RuntimeError(f"torch.cuda.{name}: the engine does not account GPU memory per session")
        return 0
    statistic.__name__ = statistic.__qualname__ = name
    return statistic


memory_allocated = _memory_statistic("memory_allocated")
max_memory_allocated = _memory_statistic("max_memory_allocated")
memory_reserved = _memory_statistic("memory_reserved")
max_memory_reserved = _memory_statistic("max_memory_reserved")
