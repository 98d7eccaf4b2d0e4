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


def tensor_bytes(roots):
    """Bytes of the distinct arrays behind every tensor reachable from ``roots``
    (including gradients)."""
    seen_objs = set()
    seen_arrays = set()
    total = 0
    stack = list(roots)
    budget = _WALK_BUDGET
    while stack and budget > 0:
        v = stack.pop()
        budget -= 1
        i = id(v)
        if i in seen_objs:
            continue
        t = type(v)
        if t in (int, float, str, bool, type(None)):
            continue
        seen_objs.add(i)
        if isinstance(v, Tensor):
            a = _base(v._data)
            ai = id(a)
            if ai not in seen_arrays:
                seen_arrays.add(ai)
                total += int(a.nbytes)
            if v.grad is not None:
                stack.append(v.grad)
            if v.grad_fn is not None:
                stack.append(v.grad_fn)   # a graph kept alive keeps its saved tensors
            continue
        if isinstance(v, Node):
            for item in (v.saved or ()):
                if isinstance(item, Tensor):
                    stack.append(item)
                elif isinstance(item, SavedOutput):
                    a = _base(item.data)
                    if id(a) not in seen_arrays:
                        seen_arrays.add(id(a))
                        total += int(a.nbytes)
            for item in (getattr(v, "extra", None) or ()):
                if hasattr(item, "nbytes") and hasattr(item, "dtype"):
                    a = _base(item)
                    if id(a) not in seen_arrays:
                        seen_arrays.add(id(a))
                        total += int(a.nbytes)
            stack.extend(n for n, _ in v.next_functions if n is not None)
            continue
        if t in (list, tuple, set, frozenset):
            stack.extend(v)
            continue
        if isinstance(v, dict):
            stack.extend(v.values())
            stack.extend(k for k in v if isinstance(k, Tensor))
            continue
        if t is Function:
            stack.extend(v.defaults)
            stack.extend(v.kwdefaults.values())
            stack.extend(v.cells)
            continue
        if t is BoundMethod:
            stack.append(v.obj)
            continue
        d = getattr(v, "__dict__", None)
        if isinstance(d, dict) and not isinstance(v, type):
            stack.extend(d.values())
        elif isinstance(v, type):
            d = v.__dict__
            if "__gs_program__" in d:
                stack.extend(d.values())
        elif isinstance(v, BaseException):
            stack.extend(v.args)
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
