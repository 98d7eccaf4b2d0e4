"""Program-side ``time``: clocks only (and ``sleep``, counted against the run's wall time)."""
import time as _t

from . import runtime

__all__ = ["time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "process_time",
           "process_time_ns", "sleep"]

time = _t.time
time_ns = _t.time_ns
perf_counter = _t.perf_counter
perf_counter_ns = _t.perf_counter_ns
monotonic = _t.monotonic
monotonic_ns = _t.monotonic_ns
process_time = _t.process_time
process_time_ns = _t.process_time_ns


def sleep(secs):
    """Sleeps in short slices, checking the run's limits (its deadline, a cancel) between them."""
    if type(secs) not in (int, float):
        raise TypeError(f"'{type(secs).__name__}' object cannot be interpreted as an integer or float")
    if secs < 0:
        raise ValueError("sleep length must be non-negative")
    rt = runtime()
    end = _t.monotonic() + secs
    while True:
        rt.check()
        left = end - _t.monotonic()
        if left <= 0:
            return None
        _t.sleep(min(left, 0.05))
