"""The worker's one door into the engine: the program interpreter, graph export
and tensor conversion. Nothing else in the server imports
``gradserve.engine.program`` or ``gradserve.engine.graph``, so how they are
called lives in this file alone.
"""
import numpy as np

import gradserve.engine as torch
from gradserve.engine.limits import Limits

__all__ = ["Limits", "new_namespace", "run_program", "new_observer", "graph_json", "tensor_from_array",
           "array_of", "is_tensor", "tensor_info", "tensor_nbytes", "session_bytes", "error_status",
           "InterpreterUnavailable", "DebugChannel", "debug_command_error"]


class InterpreterUnavailable(RuntimeError):
    """The engine's program interpreter or graph export is not installed."""


def _program():
    try:
        from gradserve.engine import program
        program.run, program.Namespace  # noqa: B018 - fail here, not mid-run
    except (ImportError, AttributeError) as e:
        raise InterpreterUnavailable(f"the program interpreter (gradserve.engine.program) is missing: {e}") from None
    return program


def _graph():
    try:
        from gradserve.engine import graph
    except ImportError as e:
        raise InterpreterUnavailable(f"graph export (gradserve.engine.graph) is missing: {e}") from None
    return graph


def new_namespace():
    """A fresh session namespace (variables, random generator, print options)."""
    return _program().Namespace()


def new_observer(on_graph_event, keep_bytes=0):
    """A graph observer that reports node, module and backward events to ``on_graph_event`` as they
    happen, keeping copies of node values and gradients up to ``keep_bytes``."""
    return _graph().GraphObserver(on_graph_event, keep_bytes=keep_bytes)


KEEP_ELEMENTS = 1 << 20  # elements past which one node's tensor is not kept (GraphObserver.keep_elements)


def _variables(namespace):
    """(top-level tensors by name, top-level modules by name) of a namespace."""
    tensors, modules = {}, {}
    for name, value in namespace.globals.items():
        if isinstance(value, torch.Tensor):
            tensors[name] = value
        elif hasattr(value, "named_parameters") and hasattr(value, "_modules"):
            modules[name] = value
    return tensors, modules


def name_inputs(observer, namespace, bound):
    """Names the run's inputs and the session's tensors from earlier runs for the observer, and the
    modules the program calls at top level by the variables that hold them when they are called."""
    observer.name_tensors(bound)
    observer.name_tensors(_variables(namespace)[0])
    observer.name_roots(_root_namer(namespace))


def _root_namer(namespace):
    """module -> the top-level variable that holds it (None if none does), looked up in the session's
    live globals when the observer first sees the module called as a root; a hit is remembered while
    the variable still holds it, a miss until the program binds another top-level name (so a module
    built and called inside a function costs one scan per new global, not one per call)."""
    hits, misses = {}, {}
    variables = namespace.globals

    def name_of(module):
        key = id(module)
        name = hits.get(key)
        if name is not None and variables.get(name) is module:
            return name
        if misses.get(key) == len(variables):
            return None
        for name, value in variables.items():
            if value is module and not name.startswith("_"):
                hits[key] = name
                return name
        misses[key] = len(variables)
        return None
    return name_of


def node_names(observer, namespace):
    """{node id: variable name} of the observed nodes that hold a top-level variable after the run."""
    return observer.node_names(_variables(namespace)[0])


def host_array(array):
    """A NumPy array of a kept engine array (copied off the GPU)."""
    return array.get() if hasattr(array, "get") and not isinstance(array, np.ndarray) else array


def run_program(namespace, source, limits, *, observer=None, cancel=None, on_stdout=None, on_log=None,
                debugger=None):
    """Runs ``source`` in ``namespace``; returns the interpreter's Outcome (never raises for program faults)."""
    return _program().run(source, namespace, limits, observer=observer, cancel=cancel,
                          on_stdout=on_stdout, on_log=on_log, debugger=debugger)


class DebugChannel:
    """A debug run's commands on their way in (another thread puts them, the paused run blocks on them:
    no CPU while it waits) and its debugger, which sends paused / evaluated events with ``emit``."""

    def __init__(self, emit, breakpoints=(), pause_on=None, pause_timeout_s=600.0):
        import queue
        from gradserve.engine.program.debugger import Debugger
        self.queue = queue.Queue()
        self.debugger = Debugger(self._wait, emit, breakpoints=breakpoints, pause_on=pause_on,
                                 pause_timeout_s=pause_timeout_s)

    def _wait(self, timeout_s):
        import queue
        try:
            return self.queue.get(timeout=timeout_s)
        except queue.Empty:
            return None

    def put(self, command):
        self.queue.put(command)

    def paused(self):
        return self.debugger.paused


def debug_command_error(message, command=None, paused=True):
    """The event that answers a debug command the run cannot take (the run goes on as it was)."""
    return {"type": "error", "paused": paused,
            "error": {"type": "DebugError", "message": message, "command": command}}


# the most nodes a graph answer carries unless the settings say (graph_answer_max_nodes): about 52 MB
# of JSON, and several times that in the session process while it is built (a million-node graph,
# the graph_nodes limit, ran out of memory there)
GRAPH_ANSWER_MAX_NODES = 200_000


def graph_json(named_tensors, observer=None, namespace=None, max_nodes=GRAPH_ANSWER_MAX_NODES):
    """SPEC section 5 graph JSON of the graph that produced ``named_tensors`` ({name: tensor}).

    With the run's ``observer``, nodes keep the ids the stream already gave them; with the
    ``namespace``, every top-level variable names its node (not only the outputs) and module
    parameters are named by their path (``fc1.weight``).
    """
    names = dict(named_tensors)
    if namespace is not None:
        tensors, modules = _variables(namespace)
        for name, t in tensors.items():
            names.setdefault(name, t)
        for name, m in modules.items():
            names.setdefault(name, m)
    return _graph().to_json(*named_tensors.values(), names=names,
                            ids=observer.ids if observer is not None else None, max_nodes=max_nodes)


def error_status(error):
    """The HTTP status a program error answers with (SPEC section 2)."""
    if error.type == "LimitExceeded":
        if error.limit == "wall_time":
            return 408
        if error.limit == "program_bytes":
            return 413
        if error.limit == "host_memory":
            return 503   # the server is short of memory, not the program at fault: try again later
    if error.type == "Cancelled":
        return 408
    return 422


def tensor_from_array(array, requires_grad=False, device="cpu"):
    """An engine leaf tensor holding a copy of ``array`` on ``device``."""
    t = torch.from_numpy(np.array(array, copy=True))
    if device != "cpu":
        t = t.to(device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def array_of(tensor):
    """A host NumPy array of a tensor's values (shared with a CPU tensor, copied from a GPU one)."""
    return tensor.numpy(force=True)


def session_bytes(namespace, room=None):
    """Bytes a session's variables hold: as the interpreter counted them when its last run ended,
    unless something changed them since (then counted now). With ``room``, an upper bound on them
    may stand in for the count where that bound is at most ``room`` (the process's data size,
    memory.held_at_most: a run that found its session within its limit by that bound left no count)."""
    known = namespace.runtime.bytes_known
    if known is not None:
        return known
    if room is not None:
        bound = _program().memory.held_at_most()
        if bound is not None and bound <= room:
            return bound
    return namespace.nbytes()


def is_tensor(value):
    return isinstance(value, torch.Tensor)


def tensor_info(tensor):
    return {"shape": list(tensor.shape), "dtype": tensor.dtype.name,
            "requires_grad": bool(tensor.requires_grad), "has_grad": tensor.grad is not None}


def tensor_nbytes(tensor):
    return tensor.numel() * tensor.element_size()
