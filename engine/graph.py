"""The graph behind tensors as JSON (SPEC section 5), and the observer that
streams it while a run builds it and while backward walks it.

Nodes are of three kinds: ``leaf`` (a tensor made by the program rather than
by an op: a parameter's AccumulateGrad, or a constant input the observer saw),
``op`` (one Function node) and ``output`` (each tensor passed to ``to_json``).
An edge ``{"from", "to", "input_index"}`` says that node ``from`` is input
number ``input_index`` of node ``to``.

The engine calls an observer only when one is installed (``observe``), so
without one graph export costs the engine nothing. Ids come from a ``NodeIds``,
which holds nothing strongly: the ids the observer streamed are the ids
``to_json(..., ids=observer.ids)`` exports.
"""
import contextlib
import math
import weakref

import numpy as np

from . import dtypes as _dt
from .autograd.function import AccumulateGrad
from .autograd.state import state
from .tensor import Tensor

__all__ = ["to_json", "summary", "NodeIds", "GraphObserver", "observe"]

HEAD = 8  # values a summary shows


# ------------------------------------------------------------------ summaries
def _number(x):
    """A JSON-safe Python number: NaN and infinities become the strings SPEC names."""
    if isinstance(x, float):
        if math.isnan(x):
            return "NaN"
        if math.isinf(x):
            return "Infinity" if x > 0 else "-Infinity"
    return x


def summary(array_or_tensor):
    """{"min", "max", "mean", "norm", "head"} of a tensor or array, JSON-safe."""
    data = array_or_tensor._data if isinstance(array_or_tensor, Tensor) else array_or_tensor
    flat = data.reshape(-1)
    n = flat.size
    if n == 0:
        return {"min": None, "max": None, "mean": None, "norm": None, "head": []}
    integral = data.dtype.kind in "iu"
    if n <= _SMALL:
        # a few values: Python's arithmetic beats a NumPy call per statistic
        values = (flat if type(flat) is np.ndarray else flat.get()).tolist()
        head = values[:HEAD]
        wide = [float(v) for v in values]
        if any(v != v for v in wide):
            lo = hi = mean = norm = math.nan
        else:
            lo, hi = min(values), max(values)
            mean = sum(wide) / n
            norm = math.sqrt(sum([v * v for v in wide]))
    else:
        head = flat[:HEAD]
        head = (head if type(head) is np.ndarray else head.get()).tolist()
        with np.errstate(all="ignore"):
            lo, hi = flat.min(), flat.max()
            # sums in float64 a block at a time: a float64 copy of a large tensor (and its square)
            # would cost up to four times its size where the session may have no such room
            total = square = 0.0
            for start in range(0, n, _BLOCK):
                wide = flat[start:start + _BLOCK].astype(np.float64)
                total += float(wide.sum())
                square += float(wide.dot(wide))
            mean = total / n
            norm = math.sqrt(square) if square == square else math.nan
    return {
        "min": int(lo) if integral else _number(float(lo)),
        "max": int(hi) if integral else _number(float(hi)),
        "mean": _number(float(mean)),
        "norm": _number(float(norm)),
        "head": [_number(v) if isinstance(v, float) else v for v in head],
    }


_SMALL = 64
_BLOCK = 1 << 20   # elements a summary widens to float64 at a time


def _dtype_name(np_dtype):
    return _dt.from_numpy_dtype(np_dtype).name


# ------------------------------------------------------------------ ids
class NodeIds:
    """Stable integer ids for the nodes of one run, in the order they are first seen.

    Op nodes are keyed by their Node, leaves by their tensor (a leaf's
    AccumulateGrad may be made again), output nodes by their tensor in a space
    of their own. An id is kept on the object itself (its ``_gid`` slot, tagged
    with this NodeIds), so numbering a million nodes costs a tuple each and
    nothing outlives the objects. The values and gradients recorded for export
    stop at ``max_records`` nodes, which bounds an observed run's memory.
    """
    max_records = 10_000

    def __init__(self):
        self._token = object()
        self._next = 0
        self._outputs = {}    # id(tensor) -> (weakref, node id), for output nodes
        self.inputs = {}      # op node id -> input node ids, kept where an input is a constant
        self.values = {}      # node id -> summary of its value when it was made
        self.grads = {}       # node id -> summary of the gradient backward last brought it
        self.constants = {}   # node id -> node JSON of a constant leaf the observer saw
        self.modules = {}     # node id -> (module path, module call id) of an op made inside a forward
        self.calls = {}       # module call id -> {"call", "path", "class", "parent"}
        self.leaf_names = {}  # node id -> name of a leaf (a parameter's module path, an input's name)

    def get(self, obj):
        tag = getattr(obj, "_gid", None)
        return tag[1] if tag is not None and tag[0] is self._token else None

    def assign(self, obj):
        """The id of ``obj`` (a Node, or a leaf's tensor), and whether it is new."""
        tag = getattr(obj, "_gid", None)
        if tag is not None and tag[0] is self._token:
            return tag[1], False
        nid = self._new_id()
        obj._gid = (self._token, nid)
        return nid, True

    def output(self, t):
        """The id of the output node for tensor ``t``."""
        entry = self._outputs.get(id(t))
        if entry is not None and entry[0]() is t:
            return entry[1]
        nid = self._new_id()
        outputs, key = self._outputs, id(t)
        outputs[key] = (weakref.ref(t, lambda _: outputs.pop(key, None)), nid)
        return nid

    def record(self, table, nid, value):
        """Keeps ``value`` in ``table`` (values, grads, constants) while under max_records."""
        if nid in table or len(table) < self.max_records:
            table[nid] = value

    @property
    def issued(self):
        """How many node ids were given out (ids are 0 to issued - 1)."""
        return self._next

    def _new_id(self):
        nid = self._next
        self._next += 1
        return nid


def _key(node):
    return node.variable if type(node) is AccumulateGrad else node


def _leaf_json(nid, t, name=None, module=None, call=None):
    return {"id": nid, "kind": "leaf", "op": None, "name": name, "shape": list(t._data.shape),
            "dtype": _dtype_name(t._data.dtype), "requires_grad": bool(t.requires_grad), "line": None,
            "module": module, "call": call,
            "value": summary(t), "grad": summary(t.grad) if t.grad is not None else None}


def _op_json(nid, node, name=None, value=None, grad=None, module=None, call=None):
    return {"id": nid, "kind": "op", "op": node.op, "grad_fn": node.name(), "name": name,
            "shape": list(node.shape), "dtype": _dtype_name(node.dtype), "requires_grad": True,
            "line": node.line, "module": module, "call": call, "value": value, "grad": grad}


def _param_module(name):
    """The module path a parameter's dotted name belongs to ("fc1.weight" -> "fc1", "weight" -> "")."""
    return name.rpartition(".")[0]


def module_tensor_names(module, prefix=""):
    """{id(tensor): (dotted name, tensor)} of a module's parameters and buffers, named as in its state_dict."""
    from .nn.module import Module  # the engine's own methods: a program's override is never called here

    out = {}
    if not isinstance(module, Module):
        return out
    for named in (Module.named_parameters, Module.named_buffers):
        for name, t in named(module):
            if isinstance(t, Tensor):
                out.setdefault(id(t), (prefix + name, t))
    return out


def _child_path(parent, child):
    """``child``'s dotted path inside ``parent`` ("" when it is not a submodule)."""
    from .nn.module import Module

    if not isinstance(parent, Module):
        return ""
    return next((name for name, m in Module.named_modules(parent) if m is child and name), "")


# ------------------------------------------------------------------ export
def to_json(*tensors, names=None, ids=None, max_nodes=None):
    """The graph that produced ``tensors``: {"nodes": [...], "edges": [...]} (SPEC section 5).

    ``names`` maps variable names to tensors, so that leaves, outputs and
    named intermediates carry their "name"; ``ids`` (an observer's NodeIds)
    keeps the ids, values and gradients that observer streamed. A graph of more than
    ``max_nodes`` nodes raises LimitExceeded (graph_nodes) before its JSON is built.
    """
    ids = ids if ids is not None else NodeIds()
    by_tensor = {}
    named_nodes = {}
    params = {}
    constant_names = {}   # id of a constant the observer saw -> the variable that holds it
    for name, t in (names or {}).items():
        if isinstance(t, Tensor):
            by_tensor.setdefault(id(t), name)
            if t.grad_fn is None and not t.requires_grad and ids.get(t) is not None:
                constant_names.setdefault(ids.get(t), name)
            if t.grad_fn is not None:
                named_nodes.setdefault(t.grad_fn, (name, t))
        elif not isinstance(t, (int, float, str)):   # a module: its parameters by their path in it ("fc1.weight")
            for key, entry in module_tensor_names(t).items():
                params.setdefault(key, entry[0])

    # every node the outputs' history reaches, without recursion
    ops, leaves = set(), set()
    stack = [t.grad_fn if t.grad_fn is not None else t._grad_accumulator()
             for t in tensors if t.requires_grad]
    seen = set(stack)
    while stack:
        node = stack.pop()
        (leaves if type(node) is AccumulateGrad else ops).add(node)
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)

    if max_nodes is not None and len(ops) + len(leaves) > max_nodes:
        from .limits import LimitExceeded
        raise LimitExceeded("graph_nodes", max_nodes,
                            f"limit exceeded: graph_nodes: this graph has {len(ops) + len(leaves)} nodes, and a graph "
                            f"answer carries at most {max_nodes} (about 260 bytes of JSON each): ask for the values "
                            f"without the graph, or for the graph of a smaller part")
    nodes, edges = [], []
    emitted = set()

    def emit_leaf(acc):
        t = acc.variable
        nid, _ = ids.assign(t)
        if nid not in emitted:
            emitted.add(nid)
            name = ids.leaf_names.get(nid) or params.get(id(t)) or by_tensor.get(id(t))
            module = _param_module(name) if id(t) in params else None
            module, call = ids.modules.get(nid, (module, None))
            nodes.append(_leaf_json(nid, t, name, module, call))
        return nid

    # creation order: every input is exported before the op that reads it
    for node in sorted(ops, key=lambda n: n.seq):
        inputs = []
        for nxt, _ in node.next_functions:
            if nxt is None:
                inputs.append(None)
            elif type(nxt) is AccumulateGrad:
                inputs.append(emit_leaf(nxt))
            else:
                inputs.append(ids.assign(nxt)[0])
        nid, _ = ids.assign(node)
        recorded = ids.inputs.get(nid)
        if recorded is not None and len(recorded) == len(inputs):
            for i, cid in enumerate(recorded):   # constants the observer saw fill the gaps
                if inputs[i] is None and cid is not None and cid in ids.constants:
                    inputs[i] = cid
                    if cid not in emitted:
                        emitted.add(cid)
                        constant = ids.constants[cid]
                        name = constant.get("name") or ids.leaf_names.get(cid) or constant_names.get(cid)
                        nodes.append(dict(constant, name=name) if name != constant.get("name") else constant)
        name, named = named_nodes.get(node, (None, None))
        value = summary(named) if named is not None else ids.values.get(nid)
        grad = summary(named.grad) if named is not None and named.grad is not None else ids.grads.get(nid)
        emitted.add(nid)
        module, call = ids.modules.get(nid, (None, None))
        nodes.append(_op_json(nid, node, name, value, grad, module, call))
        edges.extend({"from": src, "to": nid, "input_index": i} for i, src in enumerate(inputs) if src is not None)
    for acc in sorted(leaves, key=lambda n: ids.assign(n.variable)[0]):
        emit_leaf(acc)   # a leaf passed as an output with no op after it

    for t in tensors:
        nid = ids.output(t)
        fn = t.grad_fn
        nodes.append({"id": nid, "kind": "output", "op": fn.op if fn is not None else None,
                      "name": by_tensor.get(id(t)), "shape": list(t._data.shape),
                      "dtype": _dtype_name(t._data.dtype), "requires_grad": bool(t.requires_grad),
                      "line": fn.line if fn is not None else None, "value": summary(t),
                      "grad": summary(t.grad) if t.grad is not None else None})
        if fn is not None:
            edges.append({"from": ids.assign(fn)[0], "to": nid, "input_index": 0})
        elif t.requires_grad:
            edges.append({"from": ids.assign(t)[0], "to": nid, "input_index": 0})
    graph = {"nodes": nodes, "edges": edges}
    if ids.calls:
        # the module calls this graph's nodes were made under, with the calls enclosing them: not every
        # call of the run (a 50-step loop's graph of its last loss has 4 calls of its 200)
        used = set()
        for n in nodes:
            call = n.get("call")
            while call is not None and call not in used and call in ids.calls:
                used.add(call)
                call = ids.calls[call].get("parent")
        if used:
            graph["modules"] = [info for call, info in ids.calls.items() if call in used]
    return graph


# ------------------------------------------------------------------ observer
class GraphObserver:
    """Reports each node as the engine creates it and each gradient as backward reaches it.

    ``on_event`` receives ``{"type": "node", "node": {... "inputs": [ids]}}``
    (inputs first: a leaf or constant is reported just before its first
    consumer), ``{"type": "backward", "node": id, "grad": summary}`` and, just
    before the first node made inside a module's ``forward``, ``{"type":
    "module", "call", "path", "class", "parent"}`` for that call (and its
    callers not yet reported; a root call also carries the ``name`` of the
    variable that holds its module, when ``name_roots`` was given a namer). A node carries the ``module`` path and the
    ``call`` it was made under; a parameter or buffer is named by its path in
    the outermost module called (``fc1.weight``), an input by its variable name
    (``name_tensors``).

    With ``keep_bytes``, the observer also keeps a copy of each node's value
    and gradient (``tensors``: id -> [value array, grad array]) up to that many
    bytes in all and ``keep_elements`` per tensor, so a viewer can fetch them.
    """

    keep_elements = 1 << 20

    def __init__(self, on_event, keep_bytes=0):
        self.on_event = on_event
        self.ids = NodeIds()
        self.names = {}      # id(tensor) -> (name, tensor): parameters, buffers, inputs known by name
        self.frames = []     # [module, path, call id, reported, root name] of the module calls in progress
        self._children = {}  # (id(parent), id(child)) -> the child's path relative to the parent
        self._next_call = 0
        self.root_namer = None   # module -> the program's variable holding it (name_roots), for root calls
        self.keep_bytes = keep_bytes
        self.kept_bytes = 0
        self.tensors = {}

    # ---------------------------------------------------------- names
    def name_tensors(self, named):
        """Names tensors by variable ({name: tensor}), e.g. a run's inputs, before their nodes are reported."""
        for name, t in named.items():
            if isinstance(t, Tensor):
                self.names.setdefault(id(t), (name, t, False))

    def name_roots(self, namer):
        """``namer(module)`` gives the name of the program variable that holds a module (or None): a
        module called outside any other's ``forward`` (a root: its path is "") is then reported with
        that ``name``, so that two top-level modules of one class (``lstm``/``head``, ``enc``/``dec``)
        are told apart where their parameters are named by their path in them (``weight``)."""
        self.root_namer = namer

    def enter_module(self, module):
        """A module's forward begins (called by Module.__call__ while this observer is installed)."""
        if self.frames:
            parent_module, parent_path = self.frames[-1][0], self.frames[-1][1]
            key = (id(parent_module), id(module))
            rel = self._children.get(key)
            if rel is None:
                rel = _child_path(parent_module, module)
                self._children[key] = rel
            path = f"{parent_path}.{rel}" if parent_path and rel else rel or parent_path
            if not rel:  # not a submodule of its caller: a root of its own
                path = ""
                self._name_parameters(module)
        else:
            path = ""
            self._name_parameters(module)
        name = self.root_namer(module) if not path and self.root_namer is not None else None
        self.frames.append([module, path, None, False, name])

    def exit_module(self):
        self.frames.pop()

    def _name_parameters(self, root):
        for key, (name, t) in module_tensor_names(root).items():
            self.names.setdefault(key, (name, t, True))

    def _scope(self):
        """(path, call id) of the innermost module call, reporting the calls not yet reported."""
        if not self.frames:
            return None, None
        if not self.frames[-1][3]:
            parent = None
            for frame in self.frames:
                if not frame[3]:
                    frame[2] = self._next_call
                    self._next_call += 1
                    frame[3] = True
                    info = {"call": frame[2], "path": frame[1], "class": type(frame[0]).__name__, "parent": parent}
                    if frame[4] is not None:
                        info["name"] = frame[4]
                    if len(self.ids.calls) < self.ids.max_records:
                        self.ids.calls[frame[2]] = info
                    self.on_event(dict(info, type="module"))
                parent = frame[2]
        return self.frames[-1][1], self.frames[-1][2]

    def _param_scope(self, name):
        """(module path, call) of a parameter named ``name``: the call in progress of the module that owns it."""
        path = _param_module(name)
        for frame in reversed(self.frames):
            if frame[1] == path and frame[3]:
                return path, frame[2]
        return path, None

    # ---------------------------------------------------------- keeping values
    def _keep(self, nid, array, slot):
        if not self.keep_bytes or array is None:
            return
        size = array.size * array.itemsize
        if array.size > self.keep_elements or self.kept_bytes + size > self.keep_bytes:
            return
        entry = self.tensors.setdefault(nid, [None, None])
        if entry[slot] is not None:
            self.kept_bytes -= entry[slot].size * entry[slot].itemsize
        entry[slot] = array.copy()
        self.kept_bytes += size

    # ---------------------------------------------------------- engine callbacks
    def _leaf(self, t):
        nid, new = self.ids.assign(t)
        if new:
            entry = self.names.get(id(t))
            name = entry[0] if entry is not None and entry[1] is t else None
            module = call = None
            if name is not None:
                self.ids.leaf_names[nid] = name
                if entry[2]:
                    module, call = self._param_scope(name)
                    self.ids.modules[nid] = (module, call)
            node = _leaf_json(nid, t, name, module, call)
            if not t.requires_grad:
                self.ids.record(self.ids.constants, nid, node)
            self._keep(nid, t._data, 0)
            self.on_event({"type": "node", "node": dict(node, inputs=[])})
        return nid

    def _known(self, node):
        """The id of a node made before observing began, reporting it on first sight."""
        if type(node) is AccumulateGrad:
            return self._leaf(node.variable)
        nid, new = self.ids.assign(node)
        if new:
            self.on_event({"type": "node", "node": dict(_op_json(nid, node), inputs=[])})
        return nid

    def on_node(self, node, out, inputs):
        module, call = self._scope()
        input_ids = []
        for x, (nxt, _) in zip(inputs, node.next_functions):
            if nxt is not None:
                input_ids.append(self._known(nxt))
            elif isinstance(x, Tensor):
                input_ids.append(self._leaf(x))
            else:
                input_ids.append(None)
        nid, _ = self.ids.assign(node)
        value = summary(out)
        if any(i is not None and nxt is None for i, (nxt, _) in zip(input_ids, node.next_functions)):
            self.ids.record(self.ids.inputs, nid, input_ids)  # only constants need it: edges give the rest
        self.ids.record(self.ids.values, nid, value)
        if module is not None:
            self.ids.record(self.ids.modules, nid, (module, call))
        self._keep(nid, out._data if isinstance(out, Tensor) else out, 0)
        self.on_event({"type": "node", "node": dict(_op_json(nid, node, value=value, module=module, call=call),
                                                    inputs=input_ids)})

    def on_backward(self, node, grad):
        nid = self._known(node)
        g = summary(grad)
        self.ids.record(self.ids.grads, nid, g)
        self._keep(nid, grad._data if isinstance(grad, Tensor) else grad, 1)
        self.on_event({"type": "backward", "node": nid, "grad": g})

    # ---------------------------------------------------------- after the run
    def node_names(self, variables):
        """{node id: name} for the nodes that hold the run's top-level variables ({name: tensor}) now:
        a leaf by its tensor, an op by the node that made the tensor. Names the export keeps too."""
        out = {}
        for name, t in variables.items():
            if not isinstance(t, Tensor):
                continue
            nid = self.ids.get(t.grad_fn) if t.grad_fn is not None else self.ids.get(t)
            if nid is None or nid in out:
                continue
            out[nid] = name
            if t.grad_fn is None:
                self.ids.leaf_names.setdefault(nid, name)
        return out


@contextlib.contextmanager
def observe(observer):
    """Installs ``observer`` (a GraphObserver, or any object with on_node and on_backward)
    for the duration of the block."""
    prev = state.observer
    state.observer = observer
    try:
        yield observer
    finally:
        state.observer = prev
