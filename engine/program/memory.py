"""What a session holds: its tensors by name, and the bytes they occupy.

The walk starts from the session's top-level variables and follows what a
program can keep tensors in: containers, modules (parameters, buffers,
submodules), optimizers (their state), the program's own objects, the scopes
its functions close over (and the class a method was defined in), the graphs
kept alive by tensors (their saved tensors), hooks on tensors and graph nodes
(and the handles to them), iterators and dictionary views (what they iterate
over), and static methods, class methods, properties and super objects (what
they wrap), exceptions (their arguments, attributes and the exceptions they chain to),
instances' slots, deques and partials. Views share their base's memory, so bytes are
counted once per base array. Large containers and strings count their own bytes too (a list
of ten million references holds 80 MB with no tensor in it). The walk visits a bounded number
of objects.

What the walk counts never exceeds the process's data size (``held_at_most``), read in
microseconds: while that is within session_bytes, runs skip the walk.
"""
import gc
import os
import sys
from collections import OrderedDict, deque
from functools import partial
from operator import attrgetter, itemgetter, methodcaller
from types import MemberDescriptorType, ModuleType

import numpy as np

from ..autograd.function import Node, SavedOutput, _RemovableHandle
from ..tensor import Tensor
from .access import _ITERATOR_TYPES
from .errors import exception_args
from .generators import ProgramGenerator
from .values import BoundMethod, Function, ProgramIterator

__all__ = ["tensor_bytes", "module_tensors", "read_rss", "read_statm", "held_at_most", "reserve_stack",
           "host_available", "host_reserve"]

# Bytes of this process's data size that are the stack of the thread programs run on (a session
# process and a shared worker run them on a thread with a large stack, server/worker.run_on_stack):
# private writable memory no array lies in, left out of held_at_most's bound.
_stack_reserved = 0


def reserve_stack(nbytes):
    """Records that ``nbytes`` of this process's data size are a thread's stack (see held_at_most)."""
    global _stack_reserved
    _stack_reserved = max(0, int(nbytes))

_WALK_BUDGET = 200_000
_ndarray = np.ndarray


def _base(a):
    """The array whose memory ``a`` views: its chain of bases followed to the end, through the
    DummyArray NumPy's stride tricks put between a strided view and the array it views (a
    diagonal or a strided reshape): stopping there counted the view's own nbytes, a 1,000th of
    what a diagonal holds alive, or a million times what an expanded scalar reshaped holds."""
    owner = a
    while True:
        a = getattr(a, "base", None)
        if a is None:
            return owner
        if hasattr(a, "nbytes"):
            owner = a


# not walked: numbers, strings, and modules (the engine's own objects keep NumPy in a slot or an
# attribute; a module holds no session data, and its namespace is the whole library)
_LEAVES = frozenset((int, float, str, bool, type(None), bytes, complex, range, slice, ModuleType))
_SEQUENCES = frozenset((list, tuple, set, frozenset, deque))
_SIZED_LEAVES = (str, bytes)
# containers and strings count their own memory (sys.getsizeof) from this many items or characters
# on: below it they are noise beside the tensors, and the figure of a session of tensors stays theirs
_OWN_BYTES_FROM = 1024
_BIG_INT_BITS = 8 * _OWN_BYTES_FROM   # an int of 1 KB and more counts its memory too (programs cap them at 8 KB)


def _array_bytes(a, seen_arrays):
    a = _base(a)
    ai = id(a)
    if ai in seen_arrays:
        return 0
    seen_arrays.add(ai)
    return int(a.nbytes)


(_DICT, _TENSOR, _SEQUENCE, _NODE, _FUNCTION, _BOUND, _DICT_LIKE, _CLASS, _EXCEPTION, _OBJECT, _PROGRAM_ITERATOR,
 _HOST_ITERATOR, _WRAPPER, _HANDLE, _ARRAY, _SEQUENCE_SUBCLASS, _PARTIAL, _PROGRAM_GENERATOR) = range(18)
# whether a program of this process has kept a tensor as a tensor's own attribute (``x.g = ...``,
# access._tensor_own_set): from then on the walk reads each tensor's __dict__ too. Until then it does
# not, since reading a tensor's __dict__ makes one where it has none
_tensor_dicts = False


def walk_tensor_attributes():
    global _tensor_dicts
    _tensor_dicts = True


_WALK_KINDS = {}   # type -> how the walk reads its objects (host types only: program classes come and go)

_HEAP_TYPE = 1 << 9   # Py_TPFLAGS_HEAPTYPE: a class defined in Python (not a C type)

# what a host iterator or dictionary view holds is read with gc.get_referents (the objects its C
# traversal visits: the sequence, dict or iterators it was made from, a map's function)
_HOST_ITERATORS = frozenset(_ITERATOR_TYPES + (
    type({}.keys()), type({}.values()), type({}.items()),
    type(OrderedDict().keys()), type(OrderedDict().values()), type(OrderedDict().items())))


def _walk_kind(t):
    if t is dict:
        kind = _DICT
    elif issubclass(t, Tensor):
        kind = _TENSOR
    elif t in _SEQUENCES:
        kind = _SEQUENCE
    elif issubclass(t, (list, tuple, set, frozenset, deque)):
        kind = _SEQUENCE_SUBCLASS   # a namedtuple, a program's list subclass: read as its C base type
    elif t in (partial, methodcaller, itemgetter, attrgetter):
        kind = _PARTIAL   # C objects holding their arguments: read through gc.get_referents
    elif issubclass(t, Node):
        kind = _NODE
    elif t is Function:
        kind = _FUNCTION
    elif t is BoundMethod:
        kind = _BOUND
    elif t is ProgramIterator:
        kind = _PROGRAM_ITERATOR
    elif t is ProgramGenerator:
        kind = _PROGRAM_GENERATOR
    elif issubclass(t, _ndarray):
        kind = _ARRAY   # an engine object's own array (an op's index kept for backward)
    elif t in _HOST_ITERATORS or (hasattr(t, "__next__") and not t.__flags__ & _HEAP_TYPE):
        kind = _HOST_ITERATOR   # and any other iterator implemented in C (list_reverseiterator, ...)
    elif t in (staticmethod, classmethod, property, super):
        kind = _WRAPPER
    elif t is _RemovableHandle:
        kind = _HANDLE
    elif issubclass(t, dict):
        kind = _DICT_LIKE
    elif issubclass(t, type):
        kind = _CLASS
    elif issubclass(t, BaseException):
        kind = _EXCEPTION
    else:
        kind = _OBJECT
    if len(_WALK_KINDS) < 4096 and "__gs_program__" not in t.__dict__ and not _has_program_base(t):
        _WALK_KINDS[t] = kind
    return kind


_NODE_BASE_SLOTS = frozenset(Node.__slots__)   # read above by name (saved, extra, next_functions, pre_hooks)
_NODE_SLOTS = {}


def _node_slots(t):
    """The slots a graph node's class adds to Node's: where an op keeps what it needs for backward
    besides ``saved`` and ``extra``."""
    names = _NODE_SLOTS.get(t)
    if names is None:
        names = tuple(dict.fromkeys(d.__name__ for d in _slot_descriptors(t) if d.__name__ not in _NODE_BASE_SLOTS))
        if len(_NODE_SLOTS) < 4096:
            _NODE_SLOTS[t] = names
    return names


_SLOTS = {}


def _slot_descriptors(t):
    """The member descriptors of the slots an object of class ``t`` has (a program class or a
    dataclass with __slots__ keeps its attributes there, not in __dict__): read through the
    descriptor itself, so no property a subclass puts in a slot's name runs."""
    found = _SLOTS.get(t)
    if found is None:
        found = []
        for k in t.__mro__:
            slots = k.__dict__.get("__slots__", ())
            for name in ((slots,) if isinstance(slots, str) else slots):
                d = k.__dict__.get(name)
                if type(d) is MemberDescriptorType and d not in found:
                    found.append(d)
        found = tuple(found)
        if len(_SLOTS) < 4096 and not _has_program_base(t):
            _SLOTS[t] = found
    return found


def _slot_values(v, t):
    out = []
    for d in _slot_descriptors(t):
        try:
            out.append(d.__get__(v, t))
        except AttributeError:   # an empty slot
            pass
    return out


def _own_bytes(v):
    """A container's or string's own memory when it is large, else 0."""
    try:
        return sys.getsizeof(v) if len(v) >= _OWN_BYTES_FROM else 0
    except TypeError:
        return 0


def _has_program_base(t):
    return any("__gs_program__" in k.__dict__ for k in t.__mro__)


def tensor_bytes(roots):
    """Bytes of the distinct arrays behind every tensor reachable from ``roots``
    (including gradients and the saved tensors of graphs they keep alive), and of large containers
    and strings. Numbers and short strings are not walked (nor charged to the walk's budget); a
    walk that runs out of budget with objects left answers at least the process's data size
    (``held_at_most``): what it has not read may hold anything, and a program must not be able to
    hide tensors behind a few hundred thousand objects."""
    seen_objs = set()
    seen_arrays = set()
    see, see_array = seen_objs.add, seen_arrays.add
    kinds = _WALK_KINDS
    tensor_dicts = _tensor_dicts
    total = 0
    stack = []
    push = stack.append

    def extend(items):
        nonlocal total
        for x in items:
            tx = type(x)
            if tx in _LEAVES:
                if (tx in _SIZED_LEAVES and len(x) >= _OWN_BYTES_FROM
                        or tx is int and x.bit_length() >= _BIG_INT_BITS) and id(x) not in seen_objs:
                    see(id(x))
                    total += sys.getsizeof(x)
            else:
                push(x)

    extend(roots)
    pop = stack.pop
    budget = _WALK_BUDGET
    while stack and budget > 0:
        v = pop()
        budget -= 1
        t = type(v)
        if t in _LEAVES:   # pushed on its own (a node's slot, a chained value): counted as extend counts it
            extend((v,))
            continue
        i = id(v)
        if i in seen_objs:
            continue
        see(i)
        kind = kinds.get(t)
        if kind is None:
            kind = _walk_kind(t)
        if kind == _TENSOR:
            a = v._data
            if type(a) is _ndarray:
                b = a.base
                if b is not None:   # a view: its base array's bytes, counted once
                    a = b if type(b) is _ndarray and b.base is None else _base(a)
                ai = id(a)
                if ai not in seen_arrays:
                    see_array(ai)
                    total += a.nbytes
            else:
                total += _array_bytes(a, seen_arrays)
            g = v.grad
            if g is not None:
                push(g)
            g = v.grad_fn
            if g is not None:
                push(g)   # a graph kept alive keeps its saved tensors
            g = v._hooks
            if g is not None:
                push(g)   # register_hook's functions (and what they close over)
            if tensor_dicts:
                g = v.__dict__
                if g:
                    push(g)   # a program's own attributes (``x.g = out.g @ w.t()``)
        elif kind == _DICT:
            if v:
                if len(v) >= _OWN_BYTES_FROM:
                    total += sys.getsizeof(v)
                extend(v.values())
                extend(v)   # keys hold too (optimizer state is keyed by parameter)
        elif kind == _OBJECT:
            d = getattr(v, "__dict__", None)
            if type(d) is dict:
                push(d)
            extend(_slot_values(v, t))
        elif kind == _SEQUENCE:
            total += _own_bytes(v)
            extend(v)
        elif kind == _SEQUENCE_SUBCLASS:
            total += _own_bytes(v)
            for base in (list, tuple, set, frozenset, deque):
                if isinstance(v, base):
                    extend(base.__iter__(v))   # the C type's own iteration: no program __iter__ runs
                    break
            d = getattr(v, "__dict__", None)
            if type(d) is dict:
                push(d)
            extend(_slot_values(v, t))
        elif kind == _PARTIAL:
            extend(gc.get_referents(v))   # its function or names, arguments, keywords and __dict__
        elif kind == _NODE:
            for item in (v.saved or ()):
                if isinstance(item, Tensor):
                    push(item)
                elif isinstance(item, SavedOutput):
                    total += _array_bytes(item.data, seen_arrays)
            for item in (getattr(v, "extra", None) or ()):
                if hasattr(item, "nbytes") and hasattr(item, "dtype"):
                    total += _array_bytes(item, seen_arrays)
            for n, _ in v.next_functions:
                if n is not None:
                    push(n)
            hooks = getattr(v, "pre_hooks", None)
            if hooks:
                extend(hooks)
            for name in _node_slots(t):   # what an op keeps in its own slots (index arrays, a custom
                item = getattr(v, name, None)   # Function's ctx, AccumulateGrad's leaf tensor)
                if item is not None:
                    push(item)
        elif kind == _FUNCTION:
            extend(v.defaults)
            extend(v.kwdefaults.values())
            extend(v.cells)
            if v.cls is not None:
                push(v.cls)   # [class] of the class body it was defined in
        elif kind == _BOUND:
            push(v.obj)
        elif kind == _PROGRAM_ITERATOR:
            push(v.it)
        elif kind == _PROGRAM_GENERATOR:
            # a suspended generator: its frame (variables, temporaries, closed-over scopes), the host
            # generators its body runs as (the iterators its loops hold, what it delegates to) and
            # the exceptions its handlers were handling
            push(v._frame)
            push(v._gen)
            if v._handled:
                extend(v._handled)
        elif kind == _HOST_ITERATOR:
            extend(gc.get_referents(v))
        elif kind == _WRAPPER:
            if t is property:
                extend((v.fget, v.fset, v.fdel))
            elif t is super:
                push(v.__self__)
            else:
                push(v.__func__)
        elif kind == _ARRAY:
            total += _array_bytes(v, seen_arrays)
        elif kind == _HANDLE:
            push(v.hooks)
            push(v.fn)
        elif kind == _DICT_LIKE:
            total += _own_bytes(v)
            extend(dict.values(v))   # dict's own: no program values() or keys() runs
            extend(dict.keys(v))
        elif kind == _CLASS:
            d = v.__dict__
            if "__gs_program__" in d:
                extend(d.values())
        else:   # an exception: its arguments, its attributes and the exceptions it chains to
            extend(exception_args(v))
            d = getattr(v, "__dict__", None)
            if type(d) is dict:
                push(d)
            for chained in (v.__cause__, v.__context__):
                if chained is not None:
                    push(chained)
    if stack:   # out of budget: the rest is unread
        bound = held_at_most()
        if bound is not None:
            total = max(total, bound)
    return total


def module_tensors(prefix, module, out, max_name=None, skipped=None):
    """A module's parameters and buffers by their state_dict names (walking the
    engine's registries directly: no program code runs). With ``max_name``, names longer than
    that are not built (a chain of modules n deep has names of total length n**2: 16,000 levels
    listed 257 MB of names): their tensors are counted in ``skipped[0]`` instead."""
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
                    if pre is None or (max_name is not None and len(pre) + len(name) > max_name):
                        skipped[0] += 1
                    else:
                        out[pre + name] = t
        subs = list((d.get("_modules") or {}).items())
        for name, sub in reversed(subs):
            if sub is not None:
                if pre is None or (max_name is not None and len(pre) + len(name) >= max_name):
                    stack.append((None, sub))
                else:
                    stack.append((pre + name + ".", sub))
    return out


_statm = None
_page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _forget_files():
    """In a forked child: the descriptors this module keeps open are the parent's, and a session
    process closes every descriptor it did not ask for (server/session_process._close_all_but), so
    kept ones would read nothing (or, once their numbers were reused, another file): each is opened
    again on its next read. The template's warm-up run had opened /proc/self/statm, so every session
    process read no resident memory and no data size: its runs never judged growth by RSS, and had no
    process-size bound, so each walked its session after every statement it could."""
    global _statm, _meminfo
    _statm = _meminfo = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_files)


def read_rss():
    """This process's resident memory in bytes (None where it cannot be read cheaply)."""
    return read_statm()[0]


def read_statm():
    """(resident, data) bytes of this process, each None where it cannot be read cheaply.

    data is the size of the process's private writable mappings and its stack (statm's sixth
    field: the kernel's data_vm + stack_vm), resident or not: every array NumPy allocates lies
    there (malloc's heap and its mmapped chunks, calloc's lazily zeroed pages included), so
    what the session walk counts never exceeds it (``held_at_most``)."""
    global _statm
    try:
        if _statm is None:
            _statm = os.open("/proc/self/statm", os.O_RDONLY)
        fields = os.pread(_statm, 128, 0).split()
        return int(fields[1]) * _page, int(fields[5]) * _page
    except (OSError, ValueError, IndexError):
        return None, None


def held_at_most(data=None):
    """An upper bound on the bytes ``tensor_bytes`` can count for any session of this process, read
    in microseconds: the process's data size (``read_statm``; ``data`` if already read). Sound
    because each array the walk counts is one that owns its memory or views memory no array it
    counts owns (``_base``), and all such memory is private writable memory of this process,
    counted by data whether touched or not; memory freed to malloc but not to the system only
    makes the bound looser. A thread stack recorded with ``reserve_stack`` is left out: no array
    lies there. None where no such bound holds: when CuPy is loaded (a GPU array's memory is not
    the process's), or statm cannot be read."""
    if "cupy" in sys.modules:
        return None
    if data is None:
        data = read_statm()[1]
    if data is None:
        return None
    return max(0, data - _stack_reserved)


# ---------------------------------------------------------------- the host's memory
# Each session may hold session_bytes, and together they may hold more than the machine has
# (attack8 F4: 94 sessions of 1 GiB on 24 GB). A run that grows while the host (or the container's
# cgroup) is short of memory is stopped before the kernel's OOM killer picks a process: see
# runtime.Runtime.check_memory. HOST_RESERVE_ENV sets the memory kept for everyone else, in bytes.
HOST_RESERVE_ENV = "GRADSERVE_HOST_MEMORY_RESERVE"
_meminfo = None
_cgroup_dir = False   # not looked up yet; then the cgroup v2 directory of this process, or None


def host_reserve():
    """Bytes of memory left for the rest of the host: the environment's GRADSERVE_HOST_MEMORY_RESERVE,
    else the larger of 5% of the memory there is and 512 MiB. None where nothing can be read."""
    value = os.environ.get(HOST_RESERVE_ENV)
    if value is not None:
        try:
            return max(0, int(value))
        except ValueError:
            pass
    total = _meminfo_field(b"MemTotal:")
    limit = _cgroup_limit()
    if limit is not None:
        total = limit if total is None else min(total, limit)
    if total is None:
        return None
    return max(total // 20, 512 << 20)


def host_available():
    """Bytes of memory the host can still give (MemAvailable), or the cgroup this process runs in
    when that is less (memory.max less memory.current); None where neither can be read."""
    available = _meminfo_field(b"MemAvailable:")
    limit = _cgroup_limit()
    if limit is not None:
        current = _cgroup_read("memory.current")
        if current is not None:
            left = max(0, limit - current)
            available = left if available is None else min(available, left)
    return available


def _meminfo_field(name):
    global _meminfo
    try:
        if _meminfo is None:
            _meminfo = os.open("/proc/meminfo", os.O_RDONLY)
        text = os.pread(_meminfo, 4096, 0)
        at = text.index(name)
        return int(text[at + len(name):text.index(b"kB", at)]) * 1024
    except (OSError, ValueError):
        return None


def _cgroup_limit():
    value = _cgroup_read("memory.max")
    return value if value is not None and value < (1 << 60) else None


def _cgroup_read(name):
    """An integer file of this process's cgroup v2 directory (None for 'max' or where unreadable)."""
    global _cgroup_dir
    if _cgroup_dir is False:
        _cgroup_dir = None
        try:
            with open("/proc/self/cgroup", "rb") as f:
                for line in f.read().splitlines():
                    if line.startswith(b"0::"):
                        path = "/sys/fs/cgroup" + line[3:].decode("utf-8", "replace")
                        if os.path.exists(os.path.join(path, "memory.max")):
                            _cgroup_dir = path
        except OSError:
            pass
    if _cgroup_dir is None:
        return None
    try:
        with open(os.path.join(_cgroup_dir, name), "rb") as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None
