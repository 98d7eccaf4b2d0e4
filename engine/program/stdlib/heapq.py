"""Program-side ``heapq``: the heap queue on a program's list, as CPython's (a beam search's
``heapq.heappush(heap, (score, node))``). Items compare as the interpreter compares them (a
program class's ``__lt__`` runs as program code); each operation counts its steps."""
import heapq as _h
import math

from . import call, check_sequence, materialize, step

__all__ = ["heapify", "heappop", "heappush", "heappushpop", "heapreplace", "nlargest", "nsmallest"]


def _heap(fn, heap):
    if type(heap) is not list:
        raise TypeError(f"{fn}() argument 1 must be list, not {type(heap).__name__}")
    return heap


def _log(n):
    return int(math.log2(n)) + 1 if n > 1 else 1


def heappush(heap, item):
    _heap("heappush", heap)
    check_sequence(len(heap) + 1)
    step(_log(len(heap) + 1))
    _h.heappush(heap, item)


def heappop(heap):
    _heap("heappop", heap)
    step(_log(len(heap)))
    return _h.heappop(heap)


def heappushpop(heap, item):
    _heap("heappushpop", heap)
    step(_log(len(heap) + 1))
    return _h.heappushpop(heap, item)


def heapreplace(heap, item):
    _heap("heapreplace", heap)
    step(_log(len(heap)))
    return _h.heapreplace(heap, item)


def heapify(x):
    _heap("heapify", x)
    step(len(x) + 1)
    _h.heapify(x)


def _select(fn, n, iterable, key):
    if type(n) is not int:
        raise TypeError(f"'{type(n).__name__}' object cannot be interpreted as an integer")
    items = materialize(iterable)
    step(len(items) * _log(max(n, 1)) + 1)
    if key is None:
        return fn(n, items)
    return fn(n, items, key=lambda x: call(key, [x]))


def nlargest(n, iterable, key=None):
    return _select(_h.nlargest, n, iterable, key)


def nsmallest(n, iterable, key=None):
    return _select(_h.nsmallest, n, iterable, key)
