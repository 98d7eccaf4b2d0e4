"""The backward pass: dependency counts from the roots, a ready queue ordered by
creation sequence (latest first), gradients summed per node and reduced to each
input's shape in one place, saved buffers released node by node. Iterative, so
graph depth is bounded by memory, not the recursion limit (PyTorch's engine.cpp).
"""
import heapq
import sys

import numpy as np

from . import array_ops
from ..device import get_array_module
from .function import AccumulateGrad, Function
from .state import state

_heappush, _heappop = heapq.heappush, heapq.heappop
_ndarray = np.ndarray
_getrefcount = sys.getrefcount


def _unshared_count():
    """What getrefcount reports for an array held by one local variable only."""
    g = np.empty(0)
    return _getrefcount(g)


_UNSHARED = _unshared_count()
Tensor = None  # set by engine.tensor
graph_ops = None  # the engine's differentiable namespace, set by engine/__init__


def run_backward(roots, root_grads, retain_graph, create_graph, inputs=None, allow_unused=False):
    """Backpropagates ``root_grads`` from the ``roots`` tensors.

    With ``inputs`` (autograd.grad), gradients reaching those tensors are
    returned instead of accumulated into ``.grad``, and only the part of the
    graph that leads to them runs.
    """
    buffers = {}
    for t, g in zip(roots, root_grads):
        node = t.grad_fn if t.grad_fn is not None else t._grad_accumulator()
        buffers[node] = g if node not in buffers else buffers[node] + g

    deps = _count_dependencies(buffers)
    targets = needed = None
    captured = None
    if inputs is not None:
        targets = {}
        for i, t in enumerate(inputs):
            node = t.grad_fn if t.grad_fn is not None else t._grad_accumulator()
            targets.setdefault(node, []).append(i)
        needed = _needed_nodes(buffers, targets)
        captured = [None] * len(inputs)

    observer = state.observer
    anomaly = state.anomaly
    on_grads = getattr(observer, "on_grads", None)   # a debug run's anomaly check of each node's gradients
    F = graph_ops if create_graph else array_ops
    sum_to = F.sum_to
    heap = [(-node.seq, node) for node in buffers if deps[node] == 0]
    heapq.heapify(heap)
    prev_grad_mode = state.grad_enabled
    state.grad_enabled = create_graph
    try:
        while heap:
            node = _heappop(heap)[1]
            g = buffers.pop(node, None)
            if g is None or (needed is not None and node not in needed):
                grads = ()
            else:
                is_leaf = type(node) is AccumulateGrad
                hooks = node.variable._hooks if is_leaf else node.pre_hooks
                if hooks:
                    g = _run_hooks(hooks, g, create_graph)
                if observer is not None:
                    observer.on_backward(node, g)
                if is_leaf:
                    if targets is None:
                        # a gradient nothing else refers to becomes .grad without a copy
                        # (PyTorch steals a new_grad whose use_count is 1 the same way)
                        owned = type(g) is _ndarray and _getrefcount(g) == _UNSHARED and g.base is None
                        node.variable._accumulate(g, create_graph, owned)
                    else:
                        for i in targets[node]:
                            captured[i] = g
                    continue
                grads = None
                if targets is not None and node in targets:
                    for i in targets[node]:
                        captured[i] = g
                    if not any(n in needed for n, _ in node.next_functions):
                        grads = ()  # nothing below this target is asked for
                if grads is None:
                    saved = node.saved
                    if saved or create_graph or saved is None or node.extra:
                        grads = node.backward(F, g, *node.unpack(create_graph))
                    else:
                        grads = node.backward(F, g)
                    if anomaly:
                        _check_anomaly(node, grads)
                    if on_grads is not None:
                        on_grads(node, g, grads)
                    if not retain_graph and (saved or node.extra):
                        node.saved = None   # frees what the node kept; a later unpack raises
                        node.extra = ()
            n_grads = len(grads)
            i = -1
            for nxt, _ in node.next_functions:
                i += 1
                if nxt is None:
                    continue
                gi = grads[i] if i < n_grads else None
                if gi is not None:
                    # each input gets its gradient in its own shape, dtype and device (validate_outputs)
                    if (type(gi._data) if create_graph else type(gi)) is not nxt.array_type:
                        gi = _move(gi, nxt.array_type, create_graph)
                    if gi.shape != nxt.shape:
                        gi = sum_to(gi, nxt.shape)
                    dt = gi._data.dtype if create_graph else gi.dtype
                    if dt is not nxt.dtype and dt != nxt.dtype:
                        gi = _cast(gi, nxt.dtype, create_graph)
                    prev = buffers.get(nxt)
                    buffers[nxt] = gi if prev is None else prev + gi
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0:
                    _heappush(heap, (-nxt.seq, nxt))
            grads = gi = prev = None   # the buffers hold the only references to what was sent on
    finally:
        state.grad_enabled = prev_grad_mode

    if inputs is not None:
        for i, g in enumerate(captured):
            if g is None and not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used "
                                   f"in the graph. Set allow_unused=True if this is the desired behavior.")
        return captured
    return None


def _count_dependencies(roots):
    """How many edges lead into each node reachable from ``roots`` (0 for a root nothing leads into).
    The counts are also the walk's record of the nodes it has reached: one dict lookup an edge."""
    deps = dict.fromkeys(roots, 0)
    get = deps.get
    stack = list(deps)
    pop, push = stack.pop, stack.append
    while stack:
        for nxt, _ in pop().next_functions:
            if nxt is None:
                continue
            n = get(nxt)
            if n is None:
                deps[nxt] = 1
                push(nxt)
            else:
                deps[nxt] = n + 1
    return deps


def _needed_nodes(roots, targets):
    """Nodes from which some target is reachable (PyTorch's exec_info)."""
    needed = set(targets)
    # iterative post-order: a node is needed if any of its next functions is
    stack = [(node, False) for node in roots]
    done = set()
    while stack:
        node, expanded = stack.pop()
        if expanded:
            if any(n in needed for n, _ in node.next_functions if n is not None):
                needed.add(node)
            done.add(node)
            continue
        if node in done:
            continue
        stack.append((node, True))
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in done:
                stack.append((nxt, False))
    return needed


def _run_hooks(hooks, g, create_graph):
    for hook in list(hooks):
        t = g if create_graph else Tensor._adopt_array(as_array(g), False, None)
        result = hook(t)
        if result is not None:
            # as PyTorch: a hook may replace the gradient, not change its kind or size
            if not isinstance(result, Tensor):
                raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
            if result.shape != t.shape:
                raise RuntimeError(f"hook has changed the size of value (from {list(t.shape)} to "
                                   f"{list(result.shape)})")
            g = result if create_graph else result._data
    return g


def as_array(g):
    """A gradient as an array: NumPy hands back scalars, not 0-d arrays, from 0-d arithmetic."""
    return np.asarray(g) if isinstance(g, np.generic) else g


def _move(g, array_type, create_graph):
    """A gradient moved to the device whose arrays are of ``array_type`` (or a NumPy scalar
    made an array)."""
    to_host = array_type is np.ndarray
    if create_graph:
        return g.to("cpu" if to_host else "cuda")
    if isinstance(g, np.generic):
        g = np.asarray(g)
        if to_host:
            return g
    return g.get() if to_host else _cupy().asarray(g)


def _cupy():
    from ..device import _load_cupy
    return _load_cupy()


def _cast(g, np_dtype, create_graph):
    if create_graph:
        from ..dtypes import from_numpy_dtype
        return g.to(from_numpy_dtype(np_dtype))
    return g.astype(np_dtype)


def _check_anomaly(node, grads):
    for i, g in enumerate(grads):
        if g is None:
            continue
        data = g._data if isinstance(g, Tensor) else g
        if data.dtype.kind == "f" and bool(get_array_module(data).isnan(data).any()):
            message = f"Function '{node.name()}' returned nan values in its {i}th output."
            if node.line is not None:
                message += f" Its forward op was created at line {node.line}."
            elif node.trace:
                message += ("\nTraceback of forward call that caused the error:\n"
                            + "".join(node.trace[-6:]))
            raise RuntimeError(message)
