"""Running programs, for HTTP and WebSocket alike: admission (one run at a time
per session, a global cap on runs in flight), the deadline, and turning the
worker's reply into the wire payload."""
import functools
import itertools
import logging
import secrets
import time
import weakref
from dataclasses import dataclass

from . import answers
from .backends.base import RunCancelled, RunDeadline, SessionGone
from .body_parser import too_many_inputs
from .errors import SESSION_ENDED, ApiError, deadline_exceeded, session_gone, session_not_found, tensor_error
from .events import RunEvents, SharedEvent
from .json_bodies import BigPayload, call_off_loop
from .metrics import error_label
from .names import check_name
from .tensor_wire import TensorFormatError, decode_tensor
from .wire_frames import pack_array

log = logging.getLogger("gradserve.runs")

MAX_OUTPUTS = 10_000   # names in a run's "outputs"


@dataclass
class RunSpec:
    program: str
    inputs: dict
    outputs: list | None = None
    graph: bool = False
    encoding: str = "json"
    trace: bool = False
    size_hint: int = 0  # bytes of the request that carried it
    debug: dict | None = None  # a debug run: {"breakpoints": [...], "pause_on": [...] or None}


class Cancelled(Exception):
    pass


class RunService:
    def __init__(self, settings, backend, metrics):
        self.settings = settings
        self.backend = backend
        self.metrics = metrics
        self.in_flight = 0
        # Run ids only need to be unique (runs are reached through their authenticated session):
        # a random per-process prefix and a counter, with no system call per run.
        self._run_prefix = secrets.token_hex(3)
        self._run_numbers = itertools.count(1)

    def new_run_id(self):
        return f"{self._run_prefix}{next(self._run_numbers):010x}"

    async def execute(self, session, spec, *, run_id, transport, own_queue=None):
        """Runs ``spec`` in ``session``; returns the answer's tree (``answers.run_skeleton``: tensors still
        raw, written by ``answers.response``) or raises ApiError / Cancelled."""
        limits = self.settings.limits
        if len(spec.program.encode("utf-8", "surrogatepass")) > limits.program_bytes:
            raise ApiError(413, "LimitExceeded", f"limit exceeded: program_bytes: the program is larger than "
                                                 f"{limits.program_bytes} bytes", limit="program_bytes")
        refused = too_many_inputs(spec.inputs)
        if refused is not None:
            raise ApiError(422, "LimitExceeded", refused[1], field=refused[0], limit=refused[2])
        if spec.outputs is not None and len(spec.outputs) > MAX_OUTPUTS:
            # each output is a tensor the worker encodes and the API process reads back and writes out on its
            # event loop: 200,000 one-number outputs took 17 s and held /healthz up to 4 s (hostile pass 11)
            raise ApiError(422, "LimitExceeded", f"limit exceeded: body_values: a run answers at most {MAX_OUTPUTS} "
                                                 f"outputs (this one asks for {len(spec.outputs)}); fetch more with "
                                                 "GET .../variables/{name}", field="outputs", limit="body_values")
        for i, name in enumerate(spec.outputs or ()):
            check_name(name, f"outputs.{i}", dotted=True, module_private=True)
        if session.run_id is not None:
            self.metrics.rejected.labels("session_busy").inc()
            if getattr(session, "paused", False):   # it will not end by itself soon: say what holds the session and how to free it
                raise ApiError(409, "Conflict", "a debug run of this session is paused in the debugger and holds "
                                                "the session until it is resumed or cancelled (in Python: close the "
                                                "DebugRun, or use it in a with block; at the gradserve run --debug "
                                                "prompt: q; or from the viewer); without a command it is cancelled "
                                                f"after pause_timeout_s ({self.settings.pause_timeout_s:g} s)",
                               run=session.run_id, paused=True)
            raise ApiError(409, "Conflict", "a run is already in progress in this session; wait for it or "
                                            "cancel it", run=session.run_id)
        if self.in_flight >= self.settings.max_queued_runs:
            self.metrics.rejected.labels("queue_full").inc()
            raise ApiError(429, "TooManyRequests", "too many runs are queued; retry shortly",
                           headers={"Retry-After": "1"})
        session.run_id = run_id
        self.in_flight += 1
        self.metrics.queued.inc()
        events = RunEvents(run_id, session, own_queue)
        started = time.perf_counter()
        outcome = "error"
        try:
            tree, nbytes = await self._execute(session, spec, run_id, events)
            outcome = "ok"
            if events.active:
                held = answers.held_bytes(tree, "json" if spec.encoding == "json" else "base64")
                budget = self.backend.frame_budget
                release = None
                if held > self.settings.ws_queue_bytes:
                    self._result_too_large(events, tree, held)
                elif held > answers.ANSWER_FREE_BYTES and budget is not None and \
                        (release := budget.hold(2 * held)) is None:   # its values as base64, and its JSON text
                    self._result_refused(events, tree, budget.refusal())
                else:
                    payload = await call_off_loop(nbytes, answers.payload, tree, spec.encoding)
                    event = (BigPayload if type(payload) is BigPayload else SharedEvent)(type="result", **payload)
                    event.cost = held
                    if release is not None:   # given back once no queue or sender holds the event
                        weakref.finalize(event, release)
                    events.publish(event)
            return tree
        except Cancelled:
            outcome = "cancelled"
            if events.active:
                events.publish({"type": "cancelled"})
            raise
        except ApiError as e:
            outcome = "timeout" if e.status == 408 else "gone" if e.status == 410 else "error"
            self.metrics.errors.labels(error_label(e.error.get("type"))).inc()
            if events.active:
                events.publish({"type": "error", "status": e.status, "error": e.error, **e.extra})
                e.published = True
            raise
        except Exception:  # a bug of ours: the run's own error event (its next seq), then a plain 500
            log.exception("run %s failed unexpectedly", run_id)
            error = ApiError(500, "InternalError", "the server failed on this run; it has been logged")
            self.metrics.errors.labels(error_label("InternalError")).inc()
            if events.active:
                events.publish({"type": "error", "status": 500, "error": error.error})
            raise error from None
        finally:
            session.run_id = None
            session.paused = False
            self.in_flight -= 1
            self.metrics.queued.dec()
            self.metrics.run_finished(transport, outcome, time.perf_counter() - started)

    def _result_too_large(self, events, tree, held):
        """A result whose event alone would pass a connection's ws_queue_bytes is not built: a WebSocket
        message is one piece, and a 2^27-element tensor as base64 was a 715 MB text made and sent whole,
        2.2 GB of the API process and 2-6 s of its event loop, which serves every session (hostile pass 14,
        F2). The run that asked over its stream gets 413 (its values stay in the session, to fetch over
        HTTP); watchers of an HTTP run get its result without the tensors, saying why."""
        message = (f"limit exceeded: ws_queue_bytes: the run's result would be a message of about {held} bytes, "
                   f"more than a stream holds (ws_queue_bytes: {self.settings.ws_queue_bytes}); its values stay in "
                   "the session: fetch them with GET /v1/sessions/{id}/variables/{name} (encoding=binary)")
        self._result_refused(events, tree, ApiError(413, "LimitExceeded", message, limit="ws_queue_bytes"))

    @staticmethod
    def _result_refused(events, tree, error):
        """The run that asked over its stream fails with ``error``; watchers of an HTTP run get its result
        without the tensors, saying why. A result is also refused while the results that WebSocket
        connections hold, unsent or in their sockets, fill the answer budget: each was held whole in the API
        process, with nothing bounding how many (four sessions whose clients did not read took it to 2.5 GB;
        hostile pass 15, F2)."""
        if events.own is not None:
            try:
                raise error
            finally:   # (error -> its traceback -> this frame -> error: a cycle that kept the tree's bytes)
                error = tree = None
        events.publish({"type": "result", "values": {}, "grads": {}, "graph": None, "stdout": tree["stdout"],
                        "elapsed_ms": tree["elapsed_ms"],
                        "omitted": {"limit": error.error["limit"], "message": error.error["message"]}})

    def answer_caps(self, encoding):
        """The bounds the worker walks and counts a run's outputs within (``outputs.Caps``)."""
        s = self.settings
        return {"encoding": encoding, "json_max_elements": s.json_max_elements, "max_bytes": s.answer_max_bytes,
                "graph_max_nodes": s.graph_answer_max_nodes,
                "max_depth": s.output_max_depth, "max_items": s.output_max_items}

    async def debug(self, session, run_id, command):
        """Hands a debug command to the session's run ``run_id``; False when that run is not in progress."""
        if session.run_id != run_id:
            return False
        await self.backend.debug(session.placement, _worker_run_id(session, run_id), command)
        return True

    async def cancel(self, session, run_id):
        if session.run_id == run_id:
            await self.backend.cancel(session.placement, _worker_run_id(session, run_id))

    async def _execute(self, session, spec, run_id, events):
        limits = self.settings.limits
        buffers = []
        inputs = await call_off_loop(spec.size_hint, _decode_inputs, spec.inputs, limits.tensor_elements, buffers)
        stream = events.active
        header = {"op": "run", "session": session.id, "run": _worker_run_id(session, run_id),
                  "program": spec.program, "inputs": inputs,
                  "outputs": spec.outputs, "graph": spec.graph, "stream": stream,
                  "trace": stream and (spec.trace or bool(session.watchers)),
                  "limits": limits.__dict__, "answer": self.answer_caps(spec.encoding)}
        if events.own is not None and spec.encoding != "json":
            # its result is one WebSocket message of base64 (4/3 of the bytes), held within ws_queue_bytes:
            # refused by the worker before the bytes cross (a JSON answer is bounded by json_max_elements)
            header["answer"]["max_bytes"] = min(header["answer"]["max_bytes"], self.settings.ws_queue_bytes * 3 // 4)
        deadline_s = limits.wall_time_s + self.settings.cancel_grace_s
        if spec.debug is not None:
            # a paused run stops its wall-time clock: the worker keeps that clock and the pause timeout,
            # and a session process stuck in host code holds up no other session
            header["debug"] = {**spec.debug, "pause_timeout_s": self.settings.pause_timeout_s}
            deadline_s = None
        on_events = events.publish_many if stream else None
        if stream and spec.debug is not None and self.backend.frame_budget is not None:
            on_events = functools.partial(_publish_charged, events, self.backend.frame_budget)
        try:
            reply, out = await self.backend.call(session.placement, header, buffers, on_events=on_events,
                                                 deadline_s=deadline_s)
        except RunCancelled:
            raise Cancelled() from None
        except RunDeadline:
            raise deadline_exceeded(limits.wall_time_s) from None
        except SessionGone:
            if session.ended:   # deleted (or expired) under the run, which ended its process: not a dead worker
                raise session_not_found(SESSION_ENDED) from None
            raise session_gone() from None
        if reply.get("failed"):
            error = reply["error"]
            if error.get("type") == "Cancelled" and reply.get("deadline_passed"):
                error = deadline_error(error, limits.wall_time_s)
            elif error.get("type") == "Cancelled" and events.own is not None:
                raise Cancelled()
            raise ApiError.from_error(reply["status"], error, extra={"stdout": reply.get("stdout", ""),
                                                                     "elapsed_ms": reply.get("elapsed_ms")})
        if not reply.get("ok"):
            raise ApiError.from_error(reply.get("status", 500), reply.get("error", {}))
        return answers.run_skeleton(reply, out), sum(len(b) for b in out)


def _publish_charged(events, budget, batch):
    """Publishes a debug run's events; an eval's whole tensor (``"full": true``, up to 2^22 elements: a 22 MB
    event) is charged to the answer budget while the API process holds it, as a result is: queued for
    connections that did not read, such events held 256 MiB a session (ws_queue_bytes) and nothing bounded
    how many sessions did that (three held 400 MB; hostile pass 17, F6). Past the budget the event goes
    without its tensor, saying why in ``full_error``, and the run stays paused."""
    for event in batch:
        value = event.get("value") if event.get("type") == "evaluated" else None
        tensor = value.get("tensor") if type(value) is dict else None
        if type(tensor) is dict and type(tensor.get("b64")) is str and len(tensor["b64"]) > answers.ANSWER_FREE_BYTES:
            release = budget.hold(2 * len(tensor["b64"]))   # its base64, and its JSON text
            if release is None:
                del value["tensor"]
                value["full_error"] = (f"the server holds other large answers just now (answer_budget_bytes: "
                                       f"{budget.total} bytes at once); eval it again in {answers.RETRY_AFTER_S} s")
            else:
                event = SharedEvent(event)
                weakref.finalize(event, release)   # given back once no queue or sender holds the event
        events.publish(event)


def deadline_error(error, wall_time_s):
    """A run the API's deadline cancelled, as the wall-time error it is. The worker's own clock starts
    with the program, the API's when the command reaches the worker: host work before the program
    (counting a large session's bytes, binding inputs) can let the API's deadline, which allows the
    grace period on top, fire first, and the worker then reports a plain Cancelled. The client took
    that 408 for a cancel of its own (RunCancelled) instead of LimitExceeded."""
    return {**error, "type": "LimitExceeded", "limit": "wall_time",
            "message": f"limit exceeded: wall_time: the run took longer than {wall_time_s:g} s"}


def _worker_run_id(session, run_id):
    """The run's name on its worker: WebSocket clients choose their run ids, so two sessions on one
    worker may use the same one; qualified by the session (one run at a time each) it is unique."""
    return f"{session.id}/{run_id}"


def _decode_inputs(inputs, max_elements, buffers):
    entries = {}
    for name, obj in inputs.items():
        check_name(name, f"inputs.{name[:80]}")
        try:
            array, requires_grad = decode_tensor(obj, f"inputs.{name}", max_elements)
        except TensorFormatError as e:
            raise tensor_error(e) from None
        entry = pack_array(array, buffers)
        entry["requires_grad"] = requires_grad
        entries[name] = entry
    return entries


def reply_event(reply, buffers):
    """A worker's run reply as the event a watcher receives: ``result`` or ``error``."""
    if reply.get("ok"):
        return {"type": "result", **answers.payload(answers.run_skeleton(reply, buffers), "json")}
    event = {"type": "error", "status": reply.get("status", 500), "error": reply.get("error") or {}}
    if reply.get("failed"):
        event.update(stdout=reply.get("stdout", ""), elapsed_ms=reply.get("elapsed_ms"))
    return event
