"""cupy.cuda.runtime of the fake."""
from .._core import CUDARuntimeError, device_count

_TOTAL = 16 << 30


def getDeviceCount():
    n = device_count()
    if n < 1:
        raise CUDARuntimeError()
    return n


def getDevice():
    getDeviceCount()
    return 0


def setDevice(device):
    if not 0 <= device < getDeviceCount():
        raise CUDARuntimeError(101, "cudaErrorInvalidDevice: invalid device ordinal")


def deviceSynchronize():
    pass


def memGetInfo():
    getDeviceCount()
    return _TOTAL, _TOTAL


def getDeviceProperties(device):
    setDevice(device)
    return {"name": b"FakeCuPy device (NumPy memory)", "totalGlobalMem": _TOTAL, "major": 9, "minor": 0,
            "multiProcessorCount": 1}


def runtimeGetVersion():
    return 12000


def driverGetVersion():
    return 12000
