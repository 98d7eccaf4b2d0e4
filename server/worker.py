"""A worker: the process that holds sessions and runs their programs.

It keeps no server state (no tokens, no expiry): only each session's engine
namespace, keyed by session id. Commands arrive one at a time as
``wire_frames`` messages and each gets one reply; while a run executes, the
worker pushes its events (started, node, backward, stdout, log) on the same
pipe as they happen. A second pipe carries cancel requests, read by a thread,
so a run can be stopped while the main thread is busy in it.

``Worker.handle`` is transport-free: the local backend drives it over a
socket pair, and a Ray actor can host the same class.
"""
import json
import itertools
import math
import os
import signal
import threading
import time

from gradserve.engine.limits import LimitExceeded

from . import runtime
from .json_codec import dumps
from .names import MAX_NAME_LENGTH
from .outputs import Caps, OutputRefused, encode_run_outputs
from .wire_frames import FrameReader, pack_array, send_frame, unpack_array

MAX_AUTO_OUTPUTS = 64
# Node and backward events of one run past which only their count is reported.
MAX_TRACE_EVENTS = 200_000
# Bytes of node values and gradients a traced run keeps (the last one per session) for the viewer to fetch.
TRACE_KEEP_BYTES = 32 << 20


class WorkerError(Exception):
    """A command failed for a reason the caller should see (status and error body)."""

    def __init__(self, status, type_, message, **extra):
        super().__init__(message)
        self.status = status
        self.error = {"type": type_, "message": message, **extra}


class EventBatcher:
    """Buffers one run's events and sends them in batches; stdout and log go out at once."""
    __slots__ = ("send", "run_id", "pending", "last_flush", "traced", "dropped")

    def __init__(self, send, run_id):
        self.send = send
        self.run_id = run_id
        self.pending = []
        self.last_flush = time.monotonic()
        self.traced = 0
        self.dropped = {"node": 0, "backward": 0}

    def graph_event(self, event):
        if self.traced >= MAX_TRACE_EVENTS:
            self.dropped[event["type"]] = self.dropped.get(event["type"], 0) + 1
            return
        self.traced += 1
        self.pending.append(event)
        if len(self.pending) >= 512 or time.monotonic() - self.last_flush > 0.02:
            self.flush()

    def stdout(self, text):
        self.pending.append({"type": "stdout", "text": text})
        self.flush()

    def log(self, metrics):
        self.pending.append({"type": "log", "metrics": _json_safe(metrics)})
        self.flush()

    def emit(self, event):
        self.pending.append(event)
        self.flush()

    def flush(self):
        if self.pending:
            self.send({"event": self.run_id, "events": self.pending})
            self.pending = []
        self.last_flush = time.monotonic()

    def close(self):
        if self.dropped["node"] or self.dropped["backward"]:
            self.pending.append({"type": "dropped", **self.dropped})
        self.flush()


class Worker:
    def __init__(self, device="cpu", send_event=None):
        self.device = device
        self.sessions = {}
        self._send_event = send_event
        self._lock = threading.Lock()
        self._current = None  # (run id, cancel Event) of the run in progress
        self._debug = None    # runtime.DebugChannel of the run in progress, in a debug run
        self._precancelled = set()
        self.traces = {}  # session id -> (run id, {node id: [value, grad]}, node ids issued) of its last traced run

    # ------------------------------------------------------------ dispatch
    def handle(self, header, buffers):
        """Executes one command; returns (reply header, reply buffers). Never raises."""
        op = header.get("op")
        method = getattr(self, "op_" + op, None) if isinstance(op, str) else None
        try:
            if method is None:
                raise WorkerError(400, "BadCommand", f"unknown command {op!r}")
            reply, out = method(header, buffers)
            reply["ok"] = True
        except (WorkerError, OutputRefused) as e:
            reply, out = {"ok": False, "status": e.status, "error": e.error}, []
        except runtime.InterpreterUnavailable as e:
            reply, out = {"ok": False, "status": 503, "error": {"type": "Unavailable", "message": str(e)}}, []
        except LimitExceeded as e:   # a limit checked by host code after the run (a graph answer's nodes)
            reply, out = {"ok": False, "status": 422, "error": {
                "type": "LimitExceeded", "limit": e.limit, "message": str(e)}}, []
        except MemoryError:
            reply, out = {"ok": False, "status": 422, "error": {
                "type": "MemoryError", "message": "the worker ran out of memory for this request"}}, []
        except Exception as e:  # a bug: report it, keep serving the other sessions
            reply, out = {"ok": False, "status": 500, "error": {
                "type": "InternalError", "message": f"{type(e).__name__}: {e}"}}, []
        return reply, out

    def cancel(self, run_id):
        """Asks the run ``run_id`` to stop at its next step, or not to start (called from another thread)."""
        with self._lock:
            if self._current is not None and self._current[0] == run_id:
                self._current[1].set()
                if self._debug is not None:
                    self._debug.put({"command": "cancel"})
            else:  # still in the pipe behind the current command
                if len(self._precancelled) > 1000:  # cancels that crossed their run's end
                    self._precancelled.clear()
                self._precancelled.add(run_id)

    def debug_command(self, run_id, command):
        """A debug command for the run ``run_id`` (called from another thread): handed to the paused run,
        or answered at once with an error event when that run is not paused."""
        if isinstance(command, dict) and command.get("command") == "cancel":
            return self.cancel(run_id)
        with self._lock:
            current = self._current is not None and self._current[0] == run_id
            channel = self._debug if current else None
        if channel is not None and channel.paused():
            channel.put(command)
            return
        kind = command.get("command") if isinstance(command, dict) else None
        why = (f"run {run_id.partition('/')[2]!r} is not a debug run" if current and channel is None else
               "the run is not paused; debug commands other than cancel wait for a paused event" if current else
               "the run is not running")
        if self._send_event is not None:
            self._send_event({"event": run_id, "events": [runtime.debug_command_error(why, kind, paused=False)]})

    def _namespace(self, header):
        try:
            return self.sessions[header["session"]]
        except KeyError:
            raise WorkerError(404, "SessionNotFound", "no such session on this worker") from None

    # ------------------------------------------------------------ sessions
    def op_ping(self, header, buffers):
        return {"pid": os.getpid(), "sessions": len(self.sessions)}, []

    def op_open(self, header, buffers):
        self.sessions[header["session"]] = runtime.new_namespace()
        return {}, []

    def op_close(self, header, buffers):
        self.sessions.pop(header["session"], None)
        self.traces.pop(header["session"], None)
        return {}, []

    def op_describe(self, header, buffers):
        ns = self._namespace(header)
        # names the API would refuse (names.MAX_NAME_LENGTH) are counted, not listed: a chain of 16,000
        # modules listed 257 MB of names, and each GET held the API's event loop for seconds
        skipped = [0]
        tensors = ns.tensors(max_name=MAX_NAME_LENGTH, skipped=skipped)
        cap = header.get("max_tensors") or len(tensors)
        variables = {name: runtime.tensor_info(t) for name, t in itertools.islice(tensors.items(), cap)}
        reply = {"variables": variables, "bytes": int(ns.nbytes())}
        omitted = max(0, len(tensors) - cap) + skipped[0]
        if omitted:
            reply["omitted"] = omitted
        return reply, []

    # ------------------------------------------------------------ runs
    def op_run(self, header, buffers):
        ns = self._namespace(header)
        run_id = header["run"]
        limits = runtime.Limits(**header.get("limits", {}))
        bound = self._bind_inputs(ns, header.get("inputs") or {}, buffers, limits)
        events = None
        if header.get("stream") and self._send_event is not None:
            events = EventBatcher(self._send_event, run_id)
            # the program text goes with it, so any watcher can show the lines nodes and pauses point to
            events.emit({"type": "started", "program": header["program"]})
        cancel = threading.Event()
        debug = None
        if header.get("debug") is not None and events is not None:
            debug = runtime.DebugChannel(events.emit, **header["debug"])
        with self._lock:
            self._current = (run_id, cancel)
            self._debug = debug
            if run_id in self._precancelled:
                self._precancelled.discard(run_id)
                cancel.set()
                if debug is not None:
                    debug.put({"command": "cancel"})
        observer = None
        if events is not None and header.get("trace"):
            observer = runtime.new_observer(events.graph_event, keep_bytes=TRACE_KEEP_BYTES)
            runtime.name_inputs(observer, ns, bound)
        elif header.get("graph"):
            # a graph asked for without a stream still gets its module boxes and every node's value
            observer = runtime.new_observer(_ignore)
            runtime.name_inputs(observer, ns, bound)
        try:
            outcome = runtime.run_program(
                ns, header["program"], limits, observer=observer, cancel=cancel,
                on_stdout=events.stdout if events is not None else None,
                on_log=events.log if events is not None else None,
                debugger=debug.debugger if debug is not None else None)
            if observer is not None and events is not None:
                # the nodes that hold the top-level variables now, named for every traced run
                names = runtime.node_names(observer, ns)
                if names:
                    events.emit({"type": "names", "names": {str(k): v for k, v in names.items()}})
                self.traces[header["session"]] = (run_id, observer.tensors, observer.ids.issued)
        finally:
            with self._lock:
                self._current = None
                self._debug = None
            if events is not None:
                events.close()
        elapsed_ms = round(outcome.elapsed_s * 1000.0, 3)
        if not outcome.ok:
            error = outcome.error
            return {"failed": True, "status": runtime.error_status(error), "error": error.to_dict(),
                    "stdout": outcome.stdout, "elapsed_ms": elapsed_ms}, []
        out = []
        names = header.get("outputs")
        given = names is not None
        omitted = None
        if not given:
            names = [n for n in dict.fromkeys(outcome.bound) if runtime.is_tensor(_lookup(ns, n))]
            if len(names) > MAX_AUTO_OUTPUTS:   # said in the answer: 64 of 70 values looked like all of them
                left = names[MAX_AUTO_OUTPUTS:]
                omitted = {"limit": "auto_outputs", "message": (
                    f"the run bound {len(names)} tensors and no \"outputs\" were asked for: the answer holds the "
                    f"first {MAX_AUTO_OUTPUTS}; left out: {', '.join(left[:8])}{', ...' if len(left) > 8 else ''} "
                    f"(name the values you want in \"outputs\")")}
                names = names[:MAX_AUTO_OUTPUTS]
        # each name once (the answer is keyed by name): 400,000 copies of one name were each encoded and
        # sent as a buffer of their own, 25 s of work for a 4 MB request (hostile pass 11)
        first = {}
        for i, name in enumerate(names):
            first.setdefault(name, i)
        resolved = [(name, _lookup(ns, name, required=True, field=f"outputs.{i}" if given else None))
                    for name, i in first.items()]
        try:
            values, grads, tensors = encode_run_outputs(resolved, bound, out, Caps.from_header(header))
        except OutputRefused as e:   # name the asked-for output's place, as a missing one's error does
            if given and e.error.get("name") in first and "field" not in e.error:
                e.error["field"] = f"outputs.{first[e.error['name']]}"
            raise
        graph = runtime.graph_json(tensors, observer, ns, _graph_max_nodes(header)) if header.get("graph") else None
        reply = {"values": values, "grads": grads, "graph": _graph_buffer(graph, out), "stdout": outcome.stdout,
                 "elapsed_ms": elapsed_ms}
        if omitted is not None:
            reply["omitted"] = omitted
        return reply, out

    def _bind_inputs(self, ns, inputs, buffers, limits):
        arrays = {name: unpack_array(entry, buffers) for name, entry in inputs.items()}
        need = sum(array.nbytes for array in arrays.values())
        budget = limits.session_bytes - runtime.session_bytes(ns, room=limits.session_bytes - need)
        tensors = {}
        for name, entry in inputs.items():
            array = arrays[name]
            budget -= array.nbytes
            if budget < 0:
                raise WorkerError(422, "LimitExceeded", f"limit exceeded: session_bytes: input {name!r} would take "
                                  f"the session past {limits.session_bytes} bytes", limit="session_bytes")
            tensors[name] = runtime.tensor_from_array(array, entry.get("requires_grad", False), self.device)
        for name, t in tensors.items():
            ns.set(name, t)
        return tensors

    # ------------------------------------------------------------ variables
    def op_get(self, header, buffers):
        value = _lookup(self._namespace(header), header["name"], required=True, status=404)
        if not runtime.is_tensor(value):
            raise _not_a_tensor(header["name"], value)
        cap = header.get("json_max_elements")   # a JSON answer: refused here, not after its bytes crossed
        numbers = runtime.array_of(value).size + (runtime.array_of(value.grad).size if value.grad is not None else 0)
        if cap is not None and numbers > cap:
            raise WorkerError(413, "LimitExceeded", f"limit exceeded: json_max_elements: a JSON answer holds at most "
                              f"{cap} numbers and {header['name']!r} has more; ask for encoding=base64 or binary",
                              limit="json_max_elements", name=header["name"])
        out = []
        grad = pack_array(runtime.array_of(value.grad), out) if value.grad is not None else None
        return {"value": pack_array(runtime.array_of(value), out), "grad": grad}, out

    def op_put(self, header, buffers):
        ns = self._namespace(header)
        name, entry = header["name"], header["tensor"]
        array = unpack_array(entry, buffers)
        _check_budget(ns, array.nbytes, header.get("session_bytes"))
        t = runtime.tensor_from_array(array, entry.get("requires_grad", False), self.device)
        if "." in name:
            self._load(ns, {name: t})
        else:
            ns.set(name, t)
        return {}, []

    def op_node(self, header, buffers):
        """The value and gradient a node of the session's last traced run held (kept up to TRACE_KEEP_BYTES)."""
        self._namespace(header)
        run_id, kept, issued = self.traces.get(header["session"], (None, {}, 0))
        if run_id is None or header.get("run") != run_id:
            run = str(header.get("run")).partition("/")[2] or header.get("run")  # the session's own run id
            raise WorkerError(404, "NotFound", f"run {run!r} is not this session's last traced run "
                              "(only its nodes' tensors are kept)", run=run)
        node = header.get("node")
        entry = kept.get(node)
        if entry is None and isinstance(node, int) and not 0 <= node < issued:
            raise WorkerError(404, "NotFound", f"this run made no node {node} (its nodes are 0 to {issued - 1})",
                              node=node)
        if entry is None:
            raise WorkerError(404, "NotFound", f"node {header.get('node')!r} of this run has no kept tensor "
                              f"(tensors past {TRACE_KEEP_BYTES} bytes in all, or "
                              f"{runtime.KEEP_ELEMENTS} elements each, are not kept)", node=header.get("node"))
        out = []
        value, grad = (pack_array(runtime.host_array(a), out) if a is not None else None for a in entry)
        return {"value": value, "grad": grad}, out

    def op_graph(self, header, buffers):
        name = header["of"]
        value = _lookup(self._namespace(header), name, required=True, status=404)
        if not runtime.is_tensor(value):
            raise _not_a_tensor(name, value)
        out = []
        graph = runtime.graph_json({name: value}, namespace=self._namespace(header), max_nodes=_graph_max_nodes(header))
        return {"graph": _graph_buffer(graph, out)}, out

    # ------------------------------------------------------------ checkpoints
    def op_save(self, header, buffers):
        out = []
        skipped = [0]   # names a checkpoint could not be restored from (names.MAX_NAME_LENGTH) are refused
        held = self._namespace(header).tensors(max_name=MAX_NAME_LENGTH, skipped=skipped)
        if skipped[0]:  # (16,000 of them, 8,000 characters each, were a 125 MB header safetensors refused: 500)
            raise WorkerError(422, "ValueError", f"{skipped[0]} of the session's tensors and parameters have "
                              f"names longer than {MAX_NAME_LENGTH} characters (modules nested too deeply); "
                              f"a checkpoint names each as a variable is named, so it cannot hold them")
        cap = header.get("max_tensors")
        if cap is not None and len(held) > cap:
            raise WorkerError(413, "LimitExceeded", f"limit exceeded: max_tensors: the session holds {len(held)} "
                              f"tensors and parameters; a checkpoint holds at most {cap}", limit="max_tensors")
        cap = header.get("max_bytes")
        nbytes = sum(t.numel() * t.element_size() for t in held.values())
        if cap is not None and nbytes > cap:
            # counted before a byte is copied: an expanded view (4 bytes held) is its whole size in a checkpoint
            raise WorkerError(413, "LimitExceeded", f"limit exceeded: answer_bytes: the session's tensors and "
                              f"parameters take {nbytes} bytes as a checkpoint; a checkpoint carries at most {cap} "
                              f"(answer_max_bytes)", limit="answer_bytes")
        tensors = {name: pack_array(runtime.array_of(t), out) for name, t in held.items()}
        return {"tensors": tensors}, out

    def op_load(self, header, buffers):
        ns = self._namespace(header)
        arrays = {name: unpack_array(entry, buffers) for name, entry in header["tensors"].items()}
        _check_budget(ns, sum(a.nbytes for a in arrays.values()), header.get("session_bytes"))
        self._load(ns, {name: runtime.tensor_from_array(a, False, self.device) for name, a in arrays.items()},
                   checkpoint=True)
        return {"restored": len(arrays)}, []

    def _load(self, ns, tensors, checkpoint=False):
        try:
            ns.load_tensors(tensors)
        except KeyError as e:
            # load_tensors says only which path failed to resolve ("head", "model.0"): name the entry that
            # needs it and what to do, since the usual cause is a fresh session without the program's modules
            message, extra = _missing_target(ns, tensors, e, checkpoint)
            raise WorkerError(422, "KeyError", message, **extra) from None
        except (ValueError, TypeError, RuntimeError) as e:
            raise WorkerError(422, type(e).__name__, _message(e)) from None


def _ignore(event):
    pass


def _message(e):
    return e.args[0] if isinstance(e, KeyError) and e.args else str(e)


def _missing_target(ns, tensors, error, checkpoint):
    """(message, extra fields) for a load that named something the session does not hold: the first
    entry whose module (or the tensor inside it) is missing, and what to do about it."""
    missing = _message(error)
    entry, holder = (missing if missing in tensors else None), None
    for path in tensors:
        parent = path.rpartition(".")[0]
        if not parent:
            continue
        try:
            ns.resolve(parent)
        except (KeyError, AttributeError, IndexError, TypeError):
            entry, holder = path, parent
            break
    entry = entry or missing
    where = "the checkpoint's entry" if checkpoint else "the variable"
    if holder is not None:
        top = holder.partition(".")[0]
        message = (f"{where} {entry!r} goes into {holder!r}, which this session does not have: module "
                   f"parameters are restored into the modules that hold them, so run the program that builds "
                   f"{top!r} first")
    else:
        parent, _, leaf = entry.rpartition(".")
        message = f"{where} {entry!r} names no tensor: {parent!r} holds no parameter, buffer or tensor {leaf!r}"
    extra = {"name": entry}
    if checkpoint:
        message += "; nothing was restored"
        extra["field"] = "checkpoint"
    return message, extra


def _graph_buffer(graph, out):
    """A graph answer as its JSON text in a buffer of the reply ({"json_buf": index}), not in the reply's
    header: the API passes the text through (``json_codec.RawJSON``) instead of parsing a frame header of
    tens of MB on its event loop. None stays None."""
    if graph is None:
        return None
    out.append(dumps(graph))
    return {"json_buf": len(out) - 1}


def _graph_max_nodes(header):
    """The nodes a graph answer may carry: the API's setting, sent with the run's answer caps."""
    caps = header.get("answer")
    n = caps.get("graph_max_nodes") if isinstance(caps, dict) else None
    return int(n) if isinstance(n, int) and n > 0 else runtime.GRAPH_ANSWER_MAX_NODES



def _not_a_tensor(name, value):
    """The 422 for a variable route asked for a value that is not a tensor (a number goes back as a run's
    output instead)."""
    kind = type(value).__name__
    article = "an" if kind[:1].lower() in "aeiou" else "a"
    hint = (f"; a number comes back as a run's output (\"outputs\": [{name!r}])"
            if isinstance(value, (int, float)) and not isinstance(value, bool) else "")
    return WorkerError(422, "TypeError", f"{name!r} is {article} {kind}, not a tensor{hint}")


def _lookup(ns, name, required=False, status=422, field=None):
    try:
        return ns.resolve(name)
    except (KeyError, AttributeError, IndexError, TypeError) as e:
        if not required:
            return None
        extra = {"field": field} if field is not None else {}
        raise WorkerError(status, "KeyError", f"no variable or attribute {name!r} in the session",
                          name=name, detail=_message(e), **extra) from None


def _check_budget(ns, nbytes, session_bytes):
    if session_bytes is not None and ns.nbytes() + nbytes > session_bytes:
        raise WorkerError(422, "LimitExceeded", f"limit exceeded: session_bytes: this would take the session "
                          f"past {session_bytes} bytes", limit="session_bytes")


def _json_number(x):
    if isinstance(x, float) and not math.isfinite(x):
        return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")
    return x


def _json_safe(value):
    """Metrics from log(): numbers stay numbers, one-element tensors become numbers, the rest text."""
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, (bool, int, float)) or value is None:
        return _json_number(value)
    if isinstance(value, str):
        return value
    if runtime.is_tensor(value) and value.numel() == 1:
        return _json_number(value.item())
    return str(value)


# ---------------------------------------------------------------- process entry
def _limit_self(device, memory_bytes, max_files):
    """The worker's own resource limits: the last line of defence against a hostile program."""
    import resource

    def lower(which, value):
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past RLIMIT_FSIZE fails instead of killing
    # CuPy compiles each kernel on its first use in a process and saves it to its disk cache; with
    # no file to be written that save fails, and with it the run (seen on an H100: a session's first
    # float32 * int64 failed). The worker keeps its kernels in memory instead.
    os.environ["CUPY_CACHE_IN_MEMORY"] = "1"
    lower(resource.RLIMIT_FSIZE, 0)
    lower(resource.RLIMIT_CORE, 0)
    lower(resource.RLIMIT_NOFILE, max_files)
    if device == "cpu" and memory_bytes:  # CUDA maps far more address space than it uses
        lower(resource.RLIMIT_AS, memory_bytes)


def main(sock, cancel_conn, config):
    """Process entry point (multiprocessing spawn target) of a worker that holds many sessions (a GPU's):
    commands on ``sock``, cancels on ``cancel_conn``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server stops its workers itself
    # With RLIMIT_FSIZE at 0 nothing may be written to a log file the server's output goes to.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    worker = Worker(config.get("device", "cpu"))
    try:
        runtime.new_namespace()  # import the interpreter now, not on the first request
        from gradserve.engine.program.runtime import start_ticker
        start_ticker()   # the interpreter's ticker thread (programs' time checks), before the limits
    except runtime.InterpreterUnavailable:
        pass
    memory = config.get("memory_bytes")
    run_on_stack(lambda: serve(sock, cancel_conn, worker, config.get("max_frame_bytes", 1 << 40)),
                 stack_for(memory) if worker.device == "cpu" and memory else STACK_SHARED_WORKER_BYTES,
                 # the stack is mapped by now: an address-space limit leaves the data its room
                 before=lambda stack: _limit_self(worker.device, memory and memory + stack,
                                                  config.get("max_files", 256)))


# The C stack programs run on. CPython recurses in C with no depth check when it hashes a tuple
# (tuplehash: about 65 bytes of stack a level; hash(t), {t}, {t: 1}, t in s, Counter, lru_cache) and
# when it frees a slice of slices (about 33 bytes a level), while a level of nesting costs a program
# 48 bytes of heap (a 1-tuple) and one step: on the 8 MiB main-thread stack a tuple nested ~130,000
# deep, well within a session's memory, overflowed the stack and killed the process (hostile pass 5,
# F1; in a shared GPU worker, every session there). Commands are served on a thread whose stack is
# STACK_PER_HEAP_BYTE times the memory the process may map for data, so any nesting the limits let
# a program build can be hashed and freed; its pages are touched only by such recursion. Measured
# (python 3.11): 64 MiB of stack hashed 1.03M levels and freed 2.05M levels of slices.
STACK_PER_HEAP_BYTE = 1.5
STACK_MIN_BYTES = 64 << 20
STACK_SHARED_WORKER_BYTES = 8 << 30   # a shared worker (a GPU's) without an address-space limit


def stack_for(data_bytes):
    """The serving thread's stack for a process that may map ``data_bytes`` for data."""
    return max(STACK_MIN_BYTES, int(STACK_PER_HEAP_BYTE * data_bytes)) + STACK_MIN_BYTES


def run_on_stack(target, stack_bytes, before=None):
    """Runs ``target()`` on a thread with a ``stack_bytes`` stack and returns what it returns (raises
    what it raises); the calling thread waits, after running ``before(stack)`` (the stack's size, 0
    without the thread) once the thread and its stack exist, before ``target`` starts. Where the kernel refuses so large a stack, a half as
    large one is tried, down to STACK_MIN_BYTES; below that ``target`` runs on the calling thread.
    Records the stack with the engine's memory accounting (a thread's stack counts in the process's
    data size, which bounds what a session holds). Threads ``target`` starts get the default stack."""
    from gradserve.engine.program.memory import reserve_stack
    result = {}
    go = threading.Event()

    def body():
        go.wait()
        try:
            result["value"] = target()
        except BaseException as e:  # handed to the calling thread
            result["error"] = e

    size = int(stack_bytes)
    thread = None
    while size >= STACK_MIN_BYTES:
        try:
            threading.stack_size(size)
            thread = threading.Thread(target=body, daemon=True, name="gradserve-runs")
            thread.start()
            break
        except (RuntimeError, ValueError, MemoryError):
            thread = None
            size //= 2
        finally:
            threading.stack_size(0)
    if thread is None:
        if before is not None:
            before(0)
        return target()
    reserve_stack(size)
    try:
        if before is not None:
            before(size)
    finally:
        go.set()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result.get("value")


def serve(sock, cancel_conn, worker, max_frame_bytes=1 << 40, before_hello=None):
    """Answers commands from ``sock`` until it closes; a thread reads cancels from ``cancel_conn``.

    The same loop serves a worker holding many sessions and a session's own process
    (``session_process``); ``before_hello()`` runs once the cancel thread is up, before
    the process says it is ready (a session process confines itself there).
    """
    send_lock = threading.Lock()

    def send(header, buffers=()):
        with send_lock:
            send_frame(sock, header, buffers)

    worker._send_event = send

    def listen_for_cancels():
        while True:
            try:
                message = json.loads(cancel_conn.recv_bytes())
            except (EOFError, OSError, ValueError):
                os._exit(0)  # the server is gone
            if "debug" in message:
                worker.debug_command(message.get("run"), message["debug"])
            else:
                worker.cancel(message.get("run"))

    threading.Thread(target=listen_for_cancels, daemon=True, name="cancel-listener").start()
    if before_hello is not None:
        before_hello()
    send({"hello": os.getpid()})
    reader = FrameReader(sock, max_frame_bytes)
    while True:
        try:
            header, buffers = reader.read()
        except (EOFError, OSError):
            return
        reply, out = worker.handle(header, buffers)
        reply["reply"] = header.get("req")
        del header, buffers
        send(reply, out)
