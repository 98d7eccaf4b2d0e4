"""The C heap's top pad: how much freed memory glibc keeps instead of giving it back.

A training step allocates and frees the same few dozen megabytes of arrays every
step. With glibc's defaults the heap is trimmed once the step's arrays are freed,
and the next step faults every page back in (on the CNN benchmark that was a third
of the step: 19 -> 11 ms). A 32 MiB top pad keeps one step's working set mapped;
larger arrays still get their own mappings, returned when freed. The process's peak
RSS does not change; after a large computation up to the pad stays resident.
``MALLOC_TOP_PAD_`` in the environment (glibc's own setting) wins, and
``GRADSERVE_MALLOC_TOP_PAD`` (bytes, 0 for glibc's default) sets the engine's value.
"""
import ctypes
import os
import sys

M_TOP_PAD = -2          # glibc's mallopt parameter number
DEFAULT_TOP_PAD = 32 << 20


def set_top_pad():
    """Applies the top pad on glibc; returns the bytes set, or None where nothing was set."""
    if not sys.platform.startswith("linux") or "MALLOC_TOP_PAD_" in os.environ:
        return None
    try:
        pad = int(os.environ.get("GRADSERVE_MALLOC_TOP_PAD", DEFAULT_TOP_PAD))
    except ValueError:
        return None
    if pad <= 0:
        return None
    try:
        mallopt = ctypes.CDLL(None).mallopt   # glibc (musl has no mallopt: nothing to tune)
    except (OSError, AttributeError):
        return None
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return pad if mallopt(M_TOP_PAD, pad) == 1 else None


top_pad = set_top_pad()


def _malloc_trim():
    try:
        trim = ctypes.CDLL(None).malloc_trim   # glibc only
    except (OSError, AttributeError):
        return None
    trim.argtypes = (ctypes.c_size_t,)
    trim.restype = ctypes.c_int
    return trim


_trim = _malloc_trim() if sys.platform.startswith("linux") else None


def trim():
    """Gives the C heap's free pages back to the system (glibc's malloc_trim(0)), after a run that filled
    its session with small objects failed and freed them: the heap they fragmented would otherwise stay
    resident though the session holds nothing (attack13 F8: 1.1 GB). True where memory was returned."""
    return bool(_trim(0)) if _trim is not None else False
