"""cupy.cuda of the fake: one device while the test switch is on, none otherwise."""
from .. import _core
from . import runtime  # noqa: F401
from .runtime import CUDARuntimeError  # noqa: F401


def is_available():
    return _core.device_count() > 0


class Device:
    """A CUDA device of the fake (``cupy.cuda.Device``)."""

    def __init__(self, device=None):
        self.id = 0 if device is None else int(device)

    def use(self):
        if not 0 <= self.id < _core.device_count():
            raise CUDARuntimeError(101, "cudaErrorInvalidDevice: invalid device ordinal")

    def __enter__(self):
        self.use()
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self):
        pass

    @property
    def compute_capability(self):
        return "90"

    @property
    def mem_info(self):
        return runtime.memGetInfo()

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def __repr__(self):
        return f"<CUDA Device {self.id}>"


class Stream:
    """A CUDA stream of the fake: work is synchronous, so synchronize() has nothing to wait for."""
    null = None

    def __init__(self, null=False, non_blocking=False, ptds=False):
        self.ptr = 0

    def synchronize(self):
        pass

    def use(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def done(self):
        return True


Stream.null = Stream(null=True)


def get_current_stream(device_id=None):
    return Stream.null


class MemoryPointer:
    def __init__(self, a):
        self.ptr = a.ctypes.data
        self.device_id = 0
        self.device = Device(0)
        self.mem = None


class MemoryPool:
    """The device memory pool: the fake keeps no blocks, so it reports nothing held."""

    def __init__(self):
        self._limit = 0

    def used_bytes(self):
        return 0

    def total_bytes(self):
        return 0

    def free_bytes(self):
        return 0

    def free_all_blocks(self, stream=None):
        pass

    def n_free_blocks(self):
        return 0

    def set_limit(self, size=None, fraction=None):
        self._limit = int(size or 0)

    def get_limit(self):
        return self._limit


class PinnedMemoryPool(MemoryPool):
    pass


_POOL = MemoryPool()
_PINNED_POOL = PinnedMemoryPool()


def set_allocator(allocator=None):
    pass


def set_pinned_memory_allocator(allocator=None):
    pass
