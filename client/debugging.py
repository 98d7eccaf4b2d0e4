"""Debugging a run (SPEC section 4) from Python: ``session.debug(...)`` yields a ``Pause`` each time
the run stops; its methods look into the paused frame (``eval``), change it (``exec``) and resume
the run (``step``, ``next``, ``out``, ``continue_``) or end it (``cancel``).

    with client.session() as s:
        run = s.debug(program, breakpoints=[12, (20, "loss > 2")], pause_on=["anomaly"])
        for pause in run:
            print(pause.reason, pause.line, pause.locals["loss"])
            pause.eval("model.fc1.weight", full=True)      # the whole tensor, as NumPy
            pause.exec("opt.param_groups[0]['lr'] = 0.01")
            pause.continue_()                              # (iterating on continues by itself)
        run.result.values                                  # the run's RunResult, once it finished

The run's other events (stdout, log, ...) go to ``on_event`` as they come and are kept in
``run.stdout``; a program error ends the iteration by raising ``ProgramError`` (after the
post-mortem pause, when there was one). ``_DebugState`` holds what both twins share; ``DebugRun``
and ``AsyncDebugRun`` move the bytes through an ``EventStream`` / ``AsyncEventStream``.
"""
from __future__ import annotations

import base64
import json
from typing import Any, Callable, Iterable

import numpy as np

from .errors import GradserveError, LimitExceeded, ProgramError
from .events import BreakpointsSet, CommandRefused, Evaluated, Event, Paused, Stdout

_RESUME = ("continue", "step", "next", "out")


class DebugCommandError(GradserveError):
    """The run could not take a debug command (not paused any more, a breakpoint on a line with no
    code, ...); the run goes on as it was."""

    def __init__(self, message: str, command: str | None = None):
        super().__init__(message)
        self.message = message
        self.command = command


# what session.debug and Pause.breakpoints take: lines, (line, condition) pairs or {"line", "condition"} dicts
Breakpoints = Iterable["int | tuple[int, str | None] | dict"]


def breakpoint_list(breakpoints: Breakpoints | None) -> list[dict]:
    """Breakpoints as the wire wants them, from ints, ``(line, condition)`` pairs or dicts."""
    out = []
    for b in breakpoints or ():
        if isinstance(b, dict):
            out.append(dict(b))
        elif isinstance(b, (tuple, list)):
            line, condition = (b[0], b[1]) if len(b) > 1 else (b[0], None)
            out.append({"line": int(line), **({"condition": condition} if condition else {})})
        else:
            out.append({"line": int(b)})
    return out


def decode_value(value: Any, full: bool) -> Any:
    """An ``evaluated`` value as Python: the whole tensor as NumPy (``full``), a tensor's summary
    (a dict: shape, dtype, min, max, mean, norm, head), a number / string / bool / None, or the
    ``repr`` text of anything else."""
    if not isinstance(value, dict):
        return value
    tensor = value.get("tensor")
    if full and value.get("full_error"):   # past the size a paused run sends whole: say so, not a summary in its place
        error = LimitExceeded(str(value["full_error"]) + " (the exception's .summary has its summary)",
                              type="LimitExceeded", limit="eval_full_elements")
        error.summary = {k: v for k, v in value.items() if k != "full_error"}
        raise error
    if full and isinstance(tensor, dict):
        array = np.frombuffer(base64.b64decode(tensor["b64"]), dtype=np.dtype(tensor["dtype"]))
        return array.reshape(tensor["shape"]).copy()
    if "value" in value:
        return value["value"]
    if "shape" in value and "dtype" in value:
        return {k: v for k, v in value.items() if k != "tensor"}
    return value.get("repr")


def _raise_eval_error(error: dict) -> None:
    cls = LimitExceeded if error.get("type") == "LimitExceeded" else ProgramError   # (a ProgramError too)
    raise cls(str(error.get("message", "")), type=str(error.get("type", "Error")),
                       line=error.get("line"), col=error.get("col"), limit=error.get("limit"))


class _PauseBase:
    """What a pause shows: where the run stopped and the frame's values."""

    def __init__(self, run, event: Paused):
        self._run = run
        self.event = event
        self.reason: str | None = event.reason
        self.line: int | None = event.line
        self.col: int | None = event.col
        self.stack: list[dict] = event.stack
        self.locals: dict = event.locals
        self.exception: dict | None = event.raw.get("exception")   # a post-mortem pause's error
        self.node: dict | None = event.raw.get("node")             # an anomaly pause's op
        # a breakpoint whose condition raised (it stops, as in pdb): {"condition", "type", "message"}
        self.condition_error: dict | None = event.condition_error
        self.source: str | None = run._state.source                # the program, for showing lines
        self.resumed = False

    @property
    def type(self) -> str:
        return "paused"

    def __repr__(self) -> str:
        where = self.stack[-1]["function"] if self.stack else "<module>"
        return f"<Pause {self.reason} at line {self.line} in {where}>"

    def _eval_message(self, expr: str, full: bool, frame: int | None) -> dict:
        m = {"command": "eval", "expr": expr, "full": bool(full)}
        if frame is not None:
            m["frame"] = frame
        return m

    def _exec_message(self, code: str, frame: int | None) -> dict:
        m = {"command": "exec", "code": code}
        if frame is not None:
            m["frame"] = frame
        return m

    def _resume(self, command: str) -> dict:
        if self.resumed:
            raise DebugCommandError(f"this pause was already resumed; {command} needs a new pause", command)
        self.resumed = True
        return {"command": command}

    def _repr_html_(self) -> str:
        """In a notebook: the lines around the pause, the stack and the locals (notebook.pause_html)."""
        from .notebook import pause_html
        return pause_html(self)


class Pause(_PauseBase):
    """A paused run (sync)."""

    def eval(self, expr: str, full: bool = False, frame: int | None = None) -> Any:
        """Evaluate program expression ``expr`` in the paused frame (``frame``: an index into
        ``stack``, default the innermost). A tensor comes as its summary, or whole as NumPy with
        ``full=True``; raises ``ProgramError`` when the expression fails (the run stays paused)."""
        answer = self._run._ask(self._eval_message(expr, full, frame))
        return decode_value(answer.value, full)

    def exec(self, code: str, frame: int | None = None) -> None:
        """Run program statements in the paused frame; what they assign persists."""
        self._run._ask(self._exec_message(code, frame))

    def breakpoints(self, breakpoints: Breakpoints) -> list[dict]:
        """Replace the run's breakpoints; returns the list the run took."""
        answer = self._run._ask({"command": "breakpoints", "breakpoints": breakpoint_list(breakpoints)})
        return answer.breakpoints

    def step(self) -> None:
        """Go on to the next line, into calls."""
        self._run._send(self._resume("step"))

    def next(self) -> None:
        """Go on to the next line in this frame (or its caller's)."""
        self._run._send(self._resume("next"))

    def out(self) -> None:
        """Go on until this frame returns to its caller."""
        self._run._send(self._resume("out"))

    def continue_(self) -> None:
        """Go on until the next breakpoint or pause."""
        self._run._send(self._resume("continue"))

    def cancel(self) -> None:
        """End the run."""
        self.resumed = True
        self._run._send({"command": "cancel"})


class AsyncPause(_PauseBase):
    """A paused run (async): the same methods as ``Pause``, awaited."""

    async def eval(self, expr: str, full: bool = False, frame: int | None = None) -> Any:
        answer = await self._run._ask(self._eval_message(expr, full, frame))
        return decode_value(answer.value, full)

    async def exec(self, code: str, frame: int | None = None) -> None:
        await self._run._ask(self._exec_message(code, frame))

    async def breakpoints(self, breakpoints: Breakpoints) -> list[dict]:
        answer = await self._run._ask({"command": "breakpoints", "breakpoints": breakpoint_list(breakpoints)})
        return answer.breakpoints

    async def step(self) -> None:
        await self._run._send(self._resume("step"))

    async def next(self) -> None:
        await self._run._send(self._resume("next"))

    async def out(self) -> None:
        await self._run._send(self._resume("out"))

    async def continue_(self) -> None:
        await self._run._send(self._resume("continue"))

    async def cancel(self) -> None:
        self.resumed = True
        await self._run._send({"command": "cancel"})


class _DebugState:
    """The I/O-free part: the run id, the pause in hand, the events seen, stdout so far."""

    def __init__(self, stream, on_event: Callable[[Event], None] | None):
        self.stream = stream
        self.on_event = on_event
        self.source = stream._state.first_message.get("program")
        self.pause = None
        self.paused_once = False
        self.stdout_parts: list[str] = []
        self.events: list[Event] = []

    def message(self, body: dict) -> str:
        return json.dumps({"type": "debug", "id": self.stream.run_id, **body})

    def seen(self, event: Event) -> None:
        self.events.append(event)
        if isinstance(event, Stdout):
            self.stdout_parts.append(event.text)
        if self.on_event is not None:
            self.on_event(event)

    def refused_breakpoints(self, event: Event) -> "DebugCommandError | None":
        """The error for the run's own breakpoint list refused by the server (a line with no code, a
        condition that is not an expression): the run would go on without those, so iterating raises
        instead of finishing as if they never matched. Only the refusals of the list the run started
        with count: they come before any pause, marked not paused and with the breakpoint's line (a
        list sent from a pause is answered to ``Pause.breakpoints``, which raises there; another
        watcher's refused command, which every watcher sees, is none of this run's business)."""
        if isinstance(event, Paused):
            self.paused_once = True
        if self.paused_once or not isinstance(event, CommandRefused) or event.command != "breakpoints":
            return None
        raw = event.raw if isinstance(event.raw, dict) else {}
        error = raw.get("error") if isinstance(raw.get("error"), dict) else {}
        if raw.get("paused") is not False or error.get("line") is None:
            return None
        return DebugCommandError(f"the run's breakpoints were refused, so it was cancelled: {event.message}",
                                 "breakpoints")

    @staticmethod
    def answer(event: Event, command: str):
        """The event that answers ``command``, or None to keep reading."""
        if isinstance(event, CommandRefused):
            raise DebugCommandError(event.message, event.command)
        if command in ("eval", "exec") and isinstance(event, Evaluated):
            if event.error:
                _raise_eval_error(event.error)
            return event
        if command == "breakpoints" and isinstance(event, BreakpointsSet):
            return event
        return None


class DebugRun:
    """A debug run (sync): iterate it for its pauses; ``result`` once it finished."""

    def __init__(self, stream, on_event: Callable[[Event], None] | None = None):
        self._state = _DebugState(stream, on_event)
        self._stream = stream

    @property
    def run_id(self) -> str | None:
        return self._stream.run_id

    @property
    def result(self):
        """The run's ``RunResult`` once it finished (None before, or when it failed / was cancelled)."""
        return self._stream.result

    @property
    def stdout(self) -> str:
        return "".join(self._state.stdout_parts)

    @property
    def events(self) -> list[Event]:
        return self._state.events

    def __iter__(self):
        return self

    def __next__(self) -> Pause:
        pause = self._state.pause
        if pause is not None and not pause.resumed:   # the loop body did not resume: go on
            pause.continue_()
        self._state.pause = None
        for event in self._stream:
            if isinstance(event, Paused):
                self._state.paused_once = True
                self._state.events.append(event)
                self._state.pause = Pause(self, event)
                return self._state.pause
            self._state.seen(event)
            refused = self._state.refused_breakpoints(event)
            if refused is not None:
                self._stream.close()    # cancels the run, which would go on without them
                raise refused
        raise StopIteration

    def wait(self):
        """Continue through every remaining pause; returns the ``RunResult``."""
        for _ in self:
            pass
        return self._stream.wait()

    def _send(self, body: dict) -> None:
        self._stream.open()._ws.send(self._state.message(body))

    def _ask(self, body: dict):
        self._send(body)
        for event in self._stream:
            answer = self._state.answer(event, body["command"])
            if answer is not None:
                return answer
            self._state.seen(event)
        raise DebugCommandError("the run ended before it answered", body["command"])

    def close(self) -> None:
        self._stream.close()

    def __enter__(self) -> "DebugRun":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class AsyncDebugRun:
    """A debug run (async): ``async for pause in session.debug(...)``."""

    def __init__(self, stream, on_event: Callable[[Event], None] | None = None):
        self._state = _DebugState(stream, on_event)
        self._stream = stream

    @property
    def run_id(self) -> str | None:
        return self._stream.run_id

    @property
    def result(self):
        return self._stream.result

    @property
    def stdout(self) -> str:
        return "".join(self._state.stdout_parts)

    @property
    def events(self) -> list[Event]:
        return self._state.events

    def __aiter__(self):
        return self

    async def __anext__(self) -> AsyncPause:
        pause = self._state.pause
        if pause is not None and not pause.resumed:
            await pause.continue_()
        self._state.pause = None
        async for event in self._stream:
            if isinstance(event, Paused):
                self._state.paused_once = True
                self._state.events.append(event)
                self._state.pause = AsyncPause(self, event)
                return self._state.pause
            self._state.seen(event)
            refused = self._state.refused_breakpoints(event)
            if refused is not None:
                await self._stream.close()
                raise refused
        raise StopAsyncIteration

    async def wait(self):
        async for _ in self:
            pass
        return await self._stream.wait()

    async def _send(self, body: dict) -> None:
        await (await self._stream.open())._ws.send(self._state.message(body))

    async def _ask(self, body: dict):
        await self._send(body)
        async for event in self._stream:
            answer = self._state.answer(event, body["command"])
            if answer is not None:
                return answer
            self._state.seen(event)
        raise DebugCommandError("the run ended before it answered", body["command"])

    async def close(self) -> None:
        await self._stream.close()

    async def __aenter__(self) -> "AsyncDebugRun":
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.close()
