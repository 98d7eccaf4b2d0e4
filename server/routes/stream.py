"""WebSocket /v1/sessions/{id}/stream (SPEC section 4).

The Origin is checked before the socket is accepted. The token comes as
``?token=`` (checked before accepting too) or in the first message. Client
messages: run, cancel, watch, debug (and ping). A debug run (``"debug": true``) pauses and takes
``debug`` commands from any connection of its session (section 4); its connection closing leaves it
running (or paused, until ``pause_timeout_s``), so a watcher can take it over. Each connection has a sender task
draining its own bounded EventQueue, so a stalled reader holds up nobody else.
"""
import asyncio
import json
import logging
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse

from ..errors import SESSION_ENDED, SESSION_NOT_FOUND, ApiError
from ..answers import ANSWER_FREE_BYTES
from ..events import CLOSE, DROPPABLE, EventQueue, SharedEvent, held_back
from ..body_parser import PROCESS_BYTES
from ..json_bodies import BigPayload, dumps_off_loop
from ..backends.base import BackendUnavailable, SessionGone
from ..runs import Cancelled, RunSpec, reply_event
from ..parse_budget import FREE_BYTES, refusal
from ..ws_protocol import CHARGE_KEY

router = APIRouter(tags=["stream"])
log = logging.getLogger("gradserve.stream")

# Close codes: 1008 policy (bad origin), 1009 too big, 4401 no token, 4404 unknown session or wrong token,
# 4410 the session's worker died, 1013 the client reads too slowly to keep up.


def origin_allowed(websocket, settings):
    """Non-browser clients send no Origin; a browser's must be a configured CORS origin, or a page of this
    server itself: an origin whose host is one of the server's trusted host names (never judged by the
    request's own Host header, which a rebinding attacker's page controls)."""
    origin = websocket.headers.get("origin")
    if origin is None or origin in settings.cors_origins:
        return True
    try:
        parts = urlsplit(origin)
        host = parts.hostname
        parts.port  # noqa: B018 - a malformed port raises here
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not host:
        return False
    host = f"[{host}]" if ":" in host else host
    trusted = [h for h in settings.trusted_hosts() if h != "*"]
    if "*" in settings.allowed_hosts:  # Host is not checked: only loopback pages count as the server's own
        trusted = ["localhost", "127.0.0.1", "[::1]"]
    return any(host == h or h.startswith("*.") and host.endswith(h[1:]) for h in trusted)


async def _deny(websocket, status, type_, message):
    try:
        await websocket.send_denial_response(JSONResponse({"error": {"type": type_, "message": message}},
                                                          status_code=status))
    except RuntimeError:  # the server cannot answer a handshake with a response: close instead
        await websocket.close(code=1008)


@router.websocket("/v1/sessions/{session_id}/stream")
async def stream(websocket: WebSocket, session_id: str):
    state = websocket.app.state
    if not origin_allowed(websocket, state.settings):
        return await _deny(websocket, 403, "Forbidden", "this origin may not open streams")
    token = websocket.query_params.get("token")
    first = None
    if token is not None:
        session = await state.sessions.authenticate(session_id, token, verify=True)
        if session is None:
            return await _deny(websocket, 404, SESSION_NOT_FOUND[0], state.sessions.not_found(session_id, token))
        if not state.backend.is_alive(session.placement):
            return await _deny(websocket, 410, "SessionGone", "the worker holding this session died")
        await websocket.accept()
    else:
        await websocket.accept()
        try:
            text, charge = await asyncio.wait_for(receive_text(websocket), state.settings.ws_auth_timeout_s)
            try:
                first = json.loads(text)
            finally:
                if charge is not None:
                    charge.release()
            token = first.get("token") if isinstance(first, dict) else None
        except (asyncio.TimeoutError, ValueError, RecursionError, KeyError, WebSocketDisconnect):
            token = None
        if not isinstance(token, str):
            return await _refuse(websocket, 4401, "Unauthorized", "send the session token as ?token= or in the "
                                                                  "first message: {\"token\": ...}")
        session = await state.sessions.authenticate(session_id, token, verify=True)
        if session is None:
            return await _refuse(websocket, 4404, SESSION_NOT_FOUND[0], state.sessions.not_found(session_id, token))
        if not state.backend.is_alive(session.placement):
            return await _refuse(websocket, 4410, "SessionGone", "the worker holding this session died")
        if first.get("type") not in ("run", "cancel", "watch", "ping", "debug"):
            first = None
    await Connection(websocket, state, session).serve(first)


async def receive_text(websocket):
    """(the next text message, its parse-budget Charge or None): the charge the protocol took while the
    message arrived (``ws_protocol``), to release once the message is handled. A binary message reads as
    text that is not JSON."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
    text = message.get("text")
    return (text if text is not None else ""), message.get(CHARGE_KEY)


async def _refuse(websocket, code, type_, message):
    try:
        await websocket.send_text(json.dumps({"type": "error", "run": None, "seq": 0,
                                              "error": {"type": type_, "message": message}}))
        await websocket.close(code=code)
    except (WebSocketDisconnect, RuntimeError):
        pass


_ENCODINGS = ("json", "base64", "binary")


async def _wire_text(event):
    """An event's JSON text; an event shared by several connections is encoded by the first that sends it."""
    shared = type(event) in (SharedEvent, BigPayload)
    if shared:
        try:
            return event.wire
        except AttributeError:
            pass
    text = await dumps_off_loop(event, text=True)
    if shared:
        event.wire = text
    return text


class Connection:
    def __init__(self, websocket, state, session):
        self.ws = websocket
        self.state = state
        self.session = session
        self.queue = EventQueue(state.settings.ws_queue_events, state.settings.ws_queue_bytes)
        self.runs = {}  # run id -> task, for runs this connection started
        self.debug_runs = set()  # the debug runs among them: they outlive the connection
        # runs cancelled before their task reached admission (a cancel right behind its run message is
        # handled before the run's task first runs): such a run is not started (hostile pass 11)
        self.cancelled_early = set()
        self.own_seq = 0
        self.cluster_watch = None  # with a backend that keeps watchers in its cluster: the task relaying them

    async def serve(self, first):
        sender = asyncio.create_task(self._send_events())
        self.session.streams.add(self)
        if self.session.ended:  # removed between authentication and now
            self.end()
        try:
            if first is not None:
                await self._handle(first, 0)
            while True:
                text, charge = await receive_text(self.ws)
                try:
                    # a run keeps the charge until it ends (its inputs are held until then)
                    charge = await self._message(text, charge)
                finally:
                    if charge is not None:
                        charge.release()
                    text = None
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self.session.watchers.discard(self.queue)
            self.session.streams.discard(self)
            if self.cluster_watch is not None:
                self.cluster_watch.cancel()
            for run_id, task in self.runs.items():
                if not task.done() and run_id not in self.debug_runs:
                    await self._cancel(run_id)
            sender.cancel()

    async def _message(self, text, charge):
        """Handles one message; returns its charge unless a run it started holds it now."""
        max_bytes = self.state.settings.ws_max_message_bytes
        if len(text) > max_bytes:
            self._notice("TooLarge", f"messages are capped at {max_bytes} bytes")
            await self.ws.close(code=1009)
            raise WebSocketDisconnect(1009)
        size = len(text)
        if charge is None and size > FREE_BYTES:  # uvicorn's own protocol (see ws_protocol): charged only now
            charge = self.state.parse_budget.charge()
            status = charge.cover(size)
            if status is not None:
                error = refusal(status, self.state.parse_budget)[1]
                self._notice_event({"type": "error", "status": status, "error": error})
                return None
        if size > PROCESS_BYTES:  # a large run: parsed (inputs decoded) in the parser process
            try:
                message = await self.state.body_parser.parse(text, self.state.settings.limits.tensor_elements,
                                                             "inputs", key=self.session.id)
            except ApiError as e:
                self._notice(e.error["type"], e.error["message"],
                             **{k: v for k, v in e.error.items() if k not in ("type", "message")})
                return charge
        else:
            try:
                message = json.loads(text)
            except (ValueError, RecursionError):  # RecursionError (nested too deeply) is a RuntimeError, which
                # serve() takes for a closed socket: it would drop the connection without a word
                self._notice("ValidationError", "messages must be JSON objects")
                return charge
        text = None
        return None if await self._handle(message, size, charge) else charge

    async def _handle(self, message, size, charge=None):
        """Handles a parsed message; True when it started a run, which holds ``charge`` now."""
        if not isinstance(message, dict):
            return self._notice("ValidationError", "messages must be JSON objects")
        kind = message.get("type")
        if kind == "run":
            run_id = message.get("id")
            if not isinstance(run_id, str) or not run_id or len(run_id) > 128:
                return self._notice("ValidationError", "a run needs an \"id\" (a string of at most 128 characters)")
            if run_id in self.runs and not self.runs[run_id].done():
                return self._notice("Conflict", f"run {run_id!r} is already in progress: this run message was "
                                    f"refused and that run goes on; give each run an id of its own",
                                    run=run_id, status=409)
            if not self.state.sessions.touch(self.session):   # the sweeper frees it once no run holds it
                return self._notice(SESSION_NOT_FOUND[0], "the session has ended (expired): create a new one",
                                    run=run_id, status=404)
            self.runs = {k: t for k, t in self.runs.items() if not t.done()}
            self.runs[run_id] = asyncio.create_task(self._run(run_id, message, size, charge))
            return True
        elif kind == "cancel":
            run_id = message.get("id")
            if not isinstance(run_id, str):  # (a list or object would not even hash)
                return self._notice("ValidationError", "a cancel needs \"id\": the run's id, a string", field="id")
            if run_id in self.runs and not self.runs[run_id].done():
                await self._cancel(run_id)
            else:
                return self._notice("NotFound", f"no run {run_id!r} is in progress on this connection (it has "
                                                f"finished, or was never started here): nothing was cancelled",
                                    run=run_id, status=404)
        elif kind == "watch":
            if hasattr(self.state.backend, "watch"):
                if self.cluster_watch is None or self.cluster_watch.done():  # again after a failed watch
                    self.cluster_watch = asyncio.create_task(self._watch_cluster())
            elif self.queue not in self.session.watchers:
                cap = self.state.settings.max_watchers
                if len(self.session.watchers) >= cap:
                    return self._notice("LimitExceeded", f"limit exceeded: max_watchers: this session has {cap} "
                                                         "watchers already; close one first", limit="max_watchers")
                self.session.watchers.add(self.queue)
        elif kind == "debug":
            self.state.sessions.touch(self.session)   # a paused run past its session's expiry may still finish
            await self._debug(message)
        elif kind == "ping":
            self._notice_event({"type": "pong"})
        elif "token" not in message or len(message) > 1:
            self._notice("ValidationError", "unknown message type; use run, cancel, watch, debug or ping")

    async def _cancel(self, run_id):
        """Cancels this connection's run ``run_id``: the session's run now, or, when its task has not been
        admitted yet (session.run_id is another run or none), before it starts."""
        if self.session.run_id == run_id:
            await self.state.runs.cancel(self.session, run_id)
        else:
            self.cancelled_early.add(run_id)

    async def _run(self, run_id, message, size, charge=None):
        try:
            await self._run_held(run_id, message, size)
        finally:
            self.cancelled_early.discard(run_id)
            self.debug_runs.discard(run_id)   # (it grew by every debug run the connection made: pass 11)
            if charge is not None:
                charge.release()

    async def _run_held(self, run_id, message, size):
        program = message.get("program")
        inputs = message.get("inputs") or {}
        outputs = message.get("outputs")
        if not isinstance(program, str) or not isinstance(inputs, dict) or not (
                outputs is None or isinstance(outputs, list) and all(isinstance(o, str) for o in outputs)):
            return self._notice("ValidationError", "a run needs \"program\" (a string), \"inputs\" (an object) and "
                                                   "\"outputs\" (a list of names, or omitted)", run=run_id)
        encoding = message.get("encoding") or "json"
        for key, ok, what in (("encoding", encoding in _ENCODINGS, "\"json\", \"base64\" or \"binary\""),
                              ("graph", type(message.get("graph", False)) is bool, "true or false"),
                              ("trace", type(message.get("trace", True)) is bool, "true or false"),
                              ("debug", type(message.get("debug", False)) is bool, "true or false")):
            if not ok:
                return self._notice("ValidationError", f"\"{key}\" must be {what}", run=run_id, field=key)
        debug = None
        if message.get("debug"):
            debug = self._debug_options(run_id, message)
            if debug is None:
                return
            self.debug_runs.add(run_id)
        spec = RunSpec(program=program, inputs=inputs, outputs=outputs, graph=bool(message.get("graph", False)),
                       encoding=encoding, trace=message.get("trace", True), size_hint=size, debug=debug)
        if run_id in self.cancelled_early:   # nothing awaits from here to its admission in execute()
            self.debug_runs.discard(run_id)
            return self._notice_event({"type": "cancelled", "run": run_id})
        try:
            await self.state.runs.execute(self.session, spec, run_id=run_id, transport="ws", own_queue=self.queue)
        except Cancelled:
            pass
        except ApiError as e:
            if not e.published:   # refused before it was admitted (409, 413, 429, or a 422 for a bad output name)
                self._notice_event({"type": "error", "run": run_id, "status": e.status, "error": e.error})
        except Exception:
            log.exception("run %s failed unexpectedly", run_id)
            self._notice("InternalError", "the server failed on this run; it has been logged", run=run_id)

    def _debug_options(self, run_id, message):
        """A debug run's {"breakpoints", "pause_on"}, or None after an error event saying what is wrong."""
        why = self.state.backend.debug_unsupported(self.session.placement)
        if why is not None:
            self._notice("NotSupported", why, run=run_id)
            return None
        breakpoints = message.get("breakpoints") or []
        pause_on = message.get("pause_on")
        if not isinstance(breakpoints, list) or len(breakpoints) > 1000:
            self._notice("ValidationError", "\"breakpoints\" is a list of {\"line\": N, \"condition\": \"expr\"} "
                                            "objects (at most 1000)", run=run_id)
            return None
        if pause_on is not None and (not isinstance(pause_on, list) or
                                     any(p not in ("exception", "anomaly") for p in pause_on)):
            self._notice("ValidationError", "\"pause_on\" is a list of \"exception\" and \"anomaly\"", run=run_id)
            return None
        return {"breakpoints": breakpoints, "pause_on": pause_on}

    async def _debug(self, message):
        """A debug command for the session's run ``id``: any connection of the session may send one."""
        run_id = message.get("id")
        command = message.get("command")
        if not isinstance(run_id, str) or not isinstance(command, str):
            return self._notice("ValidationError", "a debug message needs \"id\" (the run) and \"command\" "
                                                   "(continue, step, next, out, eval, exec, breakpoints or cancel)",
                                run=run_id if isinstance(run_id, str) else None, paused=None)
        body = {k: v for k, v in message.items() if k not in ("type", "id")}
        if not await self.state.runs.debug(self.session, run_id, body):
            self._notice("DebugError", f"run {run_id!r} is not in progress in this session", run=run_id,
                         command=command, paused=False)

    async def _watch_cluster(self):
        """Relays every run of the session, started through any replica, from the session's actor.

        Each replica sees a run's events in the same order and numbers them the same way; runs this
        connection started itself already reach it through its own queue. The node, backward, log and
        module events this replica relays of one session, to all its connections watching it, draw from
        one budget (events.FanoutBudget, as a server's own sessions' do): what it cannot pay for is
        counted in the connection's ``dropped`` counts."""
        seqs = {}
        held = {}   # run -> the counts of its events the budget did not pay for, since the last one sent
        try:
            with self.state.backend.relay_budget(self.session.id) as budget:
                async for item in self.state.backend.watch(self.session.placement):
                    run = item["run"].partition("/")[2]
                    if run in self.runs:
                        continue
                    if item["kind"] == "begin":
                        seqs[run] = 0
                        continue
                    if item["kind"] == "events":
                        events = item["events"]
                    else:
                        reply = json.loads(item["reply"])
                        events = [reply_event(reply, [memoryview(b) for b in item["buffers"]])]
                    for event in events:
                        seq = seqs.get(run, 0)
                        seqs[run] = seq + 1
                        event = {**event, "run": run, "seq": seq}
                        kind = event["type"]
                        if budget is not None and kind in DROPPABLE and not budget.pays(kind, 1):
                            held[run] = held_back(held.get(run), event)
                            continue
                        counts = held.pop(run, None)
                        if counts is not None:
                            self.queue.count_dropped(run, counts)
                        self.queue.put(event)
                    if item["kind"] == "reply":
                        seqs.pop(run, None)
                        held.pop(run, None)
        except SessionGone:
            self._notice("SessionGone", "the session's actor died", status=410)
        except BackendUnavailable as e:  # the cluster cannot be reached just now: watch again later
            self._notice("Unavailable", str(e), status=503)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("watching session %s failed", self.session.id)
            self._notice("InternalError", "watching this session failed; it has been logged")

    def end(self):
        """The session has ended (deleted or expired): say so, then close with 4404."""
        self.session.watchers.discard(self.queue)
        self.queue.close_after({"type": "error", "run": None, "seq": self._next_seq(),
                                "error": {"type": SESSION_NOT_FOUND[0],
                                          "message": SESSION_ENDED}}, 4404)

    def _next_seq(self):
        seq = self.own_seq
        self.own_seq += 1
        return seq

    def _notice(self, type_, message, run=None, status=None, paused=..., **fields):
        """An error that belongs to no started run (bad message, busy session). ``paused`` (a refused debug
        command: whether the run is paused, None when unknown) marks it as leaving the run as it was."""
        event = {"type": "error", "run": run, "error": {"type": type_, "message": message, **fields}}
        if status is not None:
            event["status"] = status
        if paused is not ...:
            event["paused"] = paused
        self._notice_event(event)

    def _notice_event(self, event):
        event.setdefault("run", None)
        event["seq"] = self.own_seq
        self.own_seq += 1
        self.queue.put(event)

    async def _send_events(self):
        try:
            while True:
                event = await self.queue.get()
                if event is CLOSE:
                    await self.ws.close(code=self.queue.close_code)
                    return
                if self.queue.overflowing:
                    await self.ws.close(code=1013)
                    return
                event, release = self._charged(event)
                try:
                    await self.ws.send_text(await _wire_text(event))   # (a large message: until it is written out)
                finally:
                    event = None
                    if release is not None:
                        release()
        except (WebSocketDisconnect, RuntimeError, ConnectionError):
            pass

    def _charged(self, event):
        """(event, release): a result past ANSWER_FREE_BYTES is charged to the answer budget while this
        connection writes it, its text and the copy in its socket's buffer being this connection's own
        (sixteen watchers that did not read held sixteen copies; hostile pass 15, F2). Past the budget it
        goes without its tensors, or as the 503 of this connection's own run."""
        cost = getattr(event, "cost", 0)
        budget = self.state.answer_budget
        if cost <= ANSWER_FREE_BYTES:
            return event, None
        release = budget.hold(cost)
        if release is not None:
            return event, release
        error = budget.refusal().error
        head = {"run": event["run"], "seq": event["seq"]}
        if event["run"] in self.runs:
            return {"type": "error", **head, "status": 503, "error": error}, None
        return {"type": "result", **head, "values": {}, "grads": {}, "graph": None, "stdout": event.get("stdout", ""),
                "elapsed_ms": event.get("elapsed_ms"),
                "omitted": {"limit": error["limit"], "message": error["message"]}}, None
