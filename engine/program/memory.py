"""What a session holds: its tensors by name, and the bytes they occupy.

The walk starts from the session's top-level variables and follows what a
program can keep tensors in: containers, modules (parameters, buffers,
submodules), optimizers (their state), the program's own objects, the scopes
its functions close over, and the graphs kept alive by tensors (their saved
tensors). Views share their base's memory, so bytes are
counted once per base array. The walk visits a bounded number of objects.
"""
import os

import numpy as np

from ..autograd.function import Node, SavedOutput
from ..tensor import Tensor
from .errors import exception_args
from .values import BoundMethod, Function

__all__ = ["tensor_bytes", "module_tensors", "read_rss"]

_WALK_BUDGET = 200_000
_ndarray = np.ndarray


def _base(a):
    while True:
        b = getattr(a, "base", None)
        if b is None or not hasattr(b, "nbytes"):
            return a
        a = b


_LEAVES = frozenset((int, float, str, bool, type(None), bytes, complex, range, slice))
_SEQUENCES = frozenset((list, tuple, set, frozenset))


def _array_bytes(a, seen_arrays):
    a = _base(a)
    ai = id(a)
    if ai in seen_arrays:
        return 0
    seen_arrays.add(ai)
    return int(a.nbytes)


def tensor_bytes(roots):
    """Bytes of the distinct arrays behind every tensor reachable from ``roots``
    (including gradients and the saved tensors of graphs they keep alive)."""
    seen_objs = set()
    seen_arrays = set()
    total = 0
    stack = [v for v in roots if type(v) not in _LEAVES]
    budget = _WALK_BUDGET
    while stack and budget > 0:
        v = stack.pop()
        budget -= 1
        t = type(v)
        if t in _LEAVES:
            continue
        i = id(v)
        if i in seen_objs:
            continue
        seen_objs.add(i)
        if t in _SEQUENCES:
            stack.extend(v)
        elif t is dict:
            if v:
                stack.extend(v.values())
                if isinstance(next(iter(v)), Tensor):   # optimizer state: keyed by parameter
                    stack.extend(v)
        elif isinstance(v, Tensor):
            total += _array_bytes(v._data, seen_arrays)
            if v.grad is not None:
                stack.append(v.grad)
            if v.grad_fn is not None:
                stack.append(v.grad_fn)   # a graph kept alive keeps its saved tensors
        elif isinstance(v, Node):
            for item in (v.saved or ()):
                if isinstance(item, Tensor):
                    stack.append(item)
                elif isinstance(item, SavedOutput):
                    total += _array_bytes(item.data, seen_arrays)
            for item in (getattr(v, "extra", None) or ()):
                if hasattr(item, "nbytes") and hasattr(item, "dtype"):
                    total += _array_bytes(item, seen_arrays)
            for n, _ in v.next_functions:
                if n is not None:
                    stack.append(n)
        elif t is Function:
            stack.extend(v.defaults)
            stack.extend(v.kwdefaults.values())
            stack.extend(v.cells)
        elif t is BoundMethod:
            stack.append(v.obj)
        elif isinstance(v, dict):
            stack.extend(v.values())
            stack.extend(k for k in v if isinstance(k, Tensor))
        elif isinstance(v, type):
            d = v.__dict__
            if "__gs_program__" in d:
                stack.extend(d.values())
        elif isinstance(v, BaseException):
            stack.extend(exception_args(v))
        else:
            d = getattr(v, "__dict__", None)
            if type(d) is dict:
                stack.extend(d.values())
    return total


def module_tensors(prefix, module, out):
    """A module's parameters and buffers by their state_dict names (walking the
    engine's registries directly: no program code runs)."""
    stack = [(prefix, module)]
    seen = set()
    while stack:
        pre, m = stack.pop()
        if id(m) in seen:
            continue
        seen.add(id(m))
        d = m.__dict__
        for kind in ("_parameters", "_buffers"):
            for name, t in (d.get(kind) or {}).items():
                if isinstance(t, Tensor):
                    out[pre + name] = t
        subs = list((d.get("_modules") or {}).items())
        for name, sub in reversed(subs):
            if sub is not None:
                stack.append((pre + name + ".", sub))
    return out


_statm = None
_page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def read_rss():
    """This process's resident memory in bytes (None where it cannot be read cheaply)."""
    global _statm
    try:
        if _statm is None:
            _statm = os.open("/proc/self/statm", os.O_RDONLY)
        fields = os.pread(_statm, 128, 0).split()
        return int(fields[1]) * _page
    except (OSError, ValueError, IndexError):
        return None
