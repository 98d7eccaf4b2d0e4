"""Intra-op parallelism: the engine's share of ``torch.set_num_threads``.

NumPy runs every array operation on the calling thread, and BLAS threads a matrix
product only when it is large. PyTorch splits a convolution's batch (and any big
elementwise op) over its intra-op threads. ``split`` does the same for the array
kernels that are worth it: the work over ``range(n)`` is cut into one contiguous
part per thread, the parts run at once (NumPy releases the GIL inside its loops and
BLAS calls), and the caller's thread runs the last part itself.

The thread count follows the BLAS's own (threadpoolctl) unless ``set_num_threads``
says otherwise; one thread means no pool at all. A process that cannot start
threads (a session process confined with ``RLIMIT_NPROC``) runs every part on the
caller's thread.
"""
import os
import threading

import numpy as np

__all__ = ["get_num_threads", "set_num_threads", "use_threads", "bounds", "batch_cuts", "run", "split", "elementwise"]

_lock = threading.Lock()
_threads = None      # None: not decided yet (the BLAS's count, on first use)
_pool = None         # _threads - 1 _Worker threads, started on first use
_pool_failed = False
_run_lock = threading.Lock()   # one run at a time uses the workers


def _blas_threads():
    try:
        from threadpoolctl import threadpool_info
        counts = [p["num_threads"] for p in threadpool_info() if p.get("user_api") == "blas"]
        if counts:
            return max(1, counts[0])
    except Exception:  # threadpoolctl missing, or a BLAS it cannot read
        pass
    return 1


def get_num_threads():
    """The threads one op may use (PyTorch's intra-op thread count)."""
    global _threads
    if _threads is None:
        with _lock:
            if _threads is None:
                _threads = _blas_threads()
    return _threads


def set_num_threads(n):
    """Sets the engine's intra-op threads, and the BLAS's where threadpoolctl can."""
    use_threads(n)
    try:
        from threadpoolctl import threadpool_limits
        threadpool_limits(int(n), user_api="blas")
    except Exception:  # threadpoolctl missing: BLAS keeps its own count
        pass


def use_threads(n):
    """Sets the engine's intra-op threads (not the BLAS's) and starts their pool now, while the
    process may still start threads."""
    global _threads, _pool
    n = int(n)
    if n < 1:
        raise RuntimeError("set_num_threads expects a positive integer")
    with _lock:
        if n != _threads and _pool is not None:
            _shutdown(_pool)
            _pool = None
        _threads = n
    if n > 1:
        _get_pool(n - 1)


class _Worker:
    """A thread that runs one part at a time, handed over through two locks (a futex wake each
    way: a fraction of what a future and its condition variable cost)."""

    def __init__(self):
        self._go = threading.Lock()
        self._done = threading.Lock()
        self._go.acquire()
        self._done.acquire()
        self._job = self._result = self._error = None
        self._stop = False
        self.thread = threading.Thread(target=self._serve, name="gradserve-intraop", daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            self._go.acquire()
            if self._stop:
                return
            fn, lo, hi = self._job
            try:
                self._result = fn(lo, hi)
            except BaseException as e:  # handed to the caller, raised there
                self._error = e
            self._job = None
            self._done.release()

    def start(self, fn, lo, hi):
        self._job = (fn, lo, hi)
        self._go.release()

    def wait(self):
        """(result, exception) of the part, after it has finished."""
        self._done.acquire()
        result, error = self._result, self._error
        self._result = self._error = None
        return result, error

    def stop(self):
        self._stop = True
        self._go.release()


def _shutdown(pool):
    for worker in pool:
        worker.stop()


def _get_pool(workers):
    global _pool, _pool_failed
    with _lock:
        if _pool is None and not _pool_failed:
            pool = []
            try:
                for _ in range(workers):
                    pool.append(_Worker())
                _pool = pool
            except RuntimeError:     # "can't start new thread": a confined process
                _shutdown(pool)
                _pool_failed = True
        return _pool


def bounds(n, most=None):
    """Where ``run`` cuts ``range(n)``: one contiguous part per thread, fewer when n (or ``most``)
    is smaller."""
    k = max(1, min(n, get_num_threads(), n if most is None else most))
    return tuple(n * i // k for i in range(k + 1))


# the least work (array elements) worth a part of its own: below it a thread's hand-off
# (tens of microseconds) costs more than it saves
MIN_PART_ELEMENTS = 1 << 15


def batch_cuts(n, per_item):
    """``bounds`` for n items of ``per_item`` elements of work each: one part per thread, fewer
    when a part would have less than MIN_PART_ELEMENTS."""
    return bounds(n, most=n * per_item // MIN_PART_ELEMENTS)


def run(cuts, fn):
    """Runs ``fn(start, stop)`` for each part between consecutive ``cuts``, at once; returns their
    results in order. The caller's thread runs the last part; one part runs inline."""
    k = len(cuts) - 1
    pool = _get_pool(k - 1) if k > 1 else None
    if pool is None or len(pool) < k - 1 or not _run_lock.acquire(blocking=False):
        # one part, no threads, or the workers busy (a part that itself splits): inline
        return [fn(cuts[i], cuts[i + 1]) for i in range(k)]
    try:
        workers = pool[:k - 1]
        for i, worker in enumerate(workers):
            worker.start(fn, cuts[i], cuts[i + 1])
        try:
            last = fn(cuts[k - 1], cuts[k])
        finally:
            results = [worker.wait() for worker in workers]   # every part has finished
    finally:
        _run_lock.release()
    for _, error in results:
        if error is not None:
            raise error
    return [result for result, _ in results] + [last]


def split(n, fn):
    """``run`` over ``bounds(n)``."""
    return run(bounds(n), fn)


def elementwise(fn, out, *arrays):
    """``fn(out, *arrays)`` for an elementwise kernel writing into ``out``: over parts of the
    flattened arrays, one per thread, when they are NumPy arrays of out's shape, C-contiguous and
    big enough; else in one call. (The kernel must be elementwise: each part sees only its own
    slice.)"""
    n = out.size
    if n >= 2 * MIN_PART_ELEMENTS and get_num_threads() > 1 and type(out) is np.ndarray \
            and out.flags.c_contiguous and all(type(a) is np.ndarray and a.shape == out.shape
                                               and a.flags.c_contiguous for a in arrays):
        flat_out = out.reshape(-1)
        flat = [a.reshape(-1) for a in arrays]
        run(bounds(n, most=n // MIN_PART_ELEMENTS),
            lambda lo, hi: fn(flat_out[lo:hi], *[a[lo:hi] for a in flat]))
    else:
        fn(out, *arrays)
    return out


def _after_fork():
    """A forked child has none of its parent's pool threads."""
    global _pool, _lock, _run_lock
    _pool = None
    _lock = threading.Lock()
    _run_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
