"""The events of a streamed run (SPEC section 4) as typed dataclasses.

Every event carries ``run`` (the id of the run that caused it) and ``seq`` (its order within the
stream); ``raw`` keeps the message as the server sent it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import APIError, error_from_event
from .results import RunResult

_ENVELOPE = ("type", "run", "seq")


@dataclass(frozen=True)
class Event:
    """An event of a type this client does not know (newer servers may add some)."""

    run: str | None
    seq: int | None
    raw: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def type(self) -> str | None:
        """The event's wire name (``"started"``, ``"node"``, ``"paused"``, ...)."""
        return self.raw.get("type")


@dataclass(frozen=True)
class Started(Event):
    """The run began executing."""


@dataclass(frozen=True)
class Node(Event):
    """A graph node, as the run creates it (graph JSON of SPEC section 5, with ``inputs``)."""

    node: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Stdout(Event):
    """Text the program printed."""

    text: str = ""


@dataclass(frozen=True)
class Log(Event):
    """Metrics the program reported with ``log(step=..., total=..., loss=...)``."""

    metrics: dict = field(default_factory=dict)

    @property
    def step(self) -> Any:
        return self.metrics.get("step")

    @property
    def total(self) -> Any:
        return self.metrics.get("total")


@dataclass(frozen=True)
class Backward(Event):
    """A gradient reached node ``node``; ``grad`` summarises it."""

    node: int | None = None
    grad: dict | None = None


@dataclass(frozen=True)
class Module(Event):
    """A module call began (sent before the first node its ``forward`` makes): ``call`` numbers it in
    the run (nodes name it in their ``call``), ``path`` is the module's path under the outermost one
    called (``""`` for that one, ``"encoder.layers.0"``), ``class_name`` its class, ``parent`` the call it
    runs in (None at the top), and ``name`` the variable holding a module the program called at top level."""

    call: int | None = None
    path: str | None = None
    class_name: str | None = None
    parent: int | None = None
    name: str | None = None


@dataclass(frozen=True)
class Names(Event):
    """Sent once a traced run's program ended, before ``result``: ``names`` maps node ids to the
    top-level variables that hold them now (``{3: "loss"}``)."""

    names: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Dropped(Event):
    """A reader that fell behind: the server skipped this many ``node``, ``backward`` and ``log``
    events (and module events) of the run in its place; stdout, results and errors are never dropped."""

    node: int = 0
    backward: int = 0
    log: int = 0


@dataclass(frozen=True)
class Result(Event):
    """The run finished; ``result`` is the same answer ``session.run`` gives. Ends the stream."""

    result: RunResult | None = None


@dataclass(frozen=True)
class Error(Event):
    """The run failed (or the server refused it); ``error`` is the exception the stream raises
    after yielding this event: a ``ProgramError`` with line and column for a program fault."""

    error: APIError | None = None


@dataclass(frozen=True)
class Cancelled(Event):
    """The run was cancelled before it finished. Ends the stream."""


@dataclass(frozen=True)
class Paused(Event):
    """A debug run paused (SPEC section 4): ``reason`` is breakpoint, step, exception or anomaly;
    ``stack`` is outermost first; ``locals`` maps names to tensor summaries or short reprs.
    ``session.debug`` wraps it in a ``Pause`` that has the commands."""

    reason: str | None = None
    line: int | None = None
    col: int | None = None
    stack: list = field(default_factory=list)
    locals: dict = field(default_factory=dict)
    condition_error: dict | None = None   # a breakpoint whose condition raised: {"condition", "type", "message"}


@dataclass(frozen=True)
class Resumed(Event):
    """A paused debug run went on (``command``: continue, step, next or out)."""

    command: str | None = None


@dataclass(frozen=True)
class Evaluated(Event):
    """The answer to an ``eval`` or ``exec`` in a paused run: ``value`` or ``error`` (a dict)."""

    value: Any = None
    error: dict | None = None


@dataclass(frozen=True)
class BreakpointsSet(Event):
    """A paused run took a new breakpoint list (wire name ``breakpoints``)."""

    breakpoints: list = field(default_factory=list)


@dataclass(frozen=True)
class CommandRefused(Event):
    """A debug command (or a breakpoint) the run could not take: an ``error`` event with ``paused``;
    the run goes on as it was. ``message`` says why."""

    message: str = ""
    command: str | None = None


def _payload(message: dict) -> dict:
    return {k: v for k, v in message.items() if k not in _ENVELOPE}


def parse_event(message: dict) -> Event:
    """The typed event for one server message."""
    kind = message.get("type")
    common = {"run": message.get("run"), "seq": message.get("seq"), "raw": message}
    if kind == "started":
        return Started(**common)
    if kind == "node":
        return Node(**common, node=message.get("node") or _payload(message))
    if kind == "stdout":
        return Stdout(**common, text=str(message.get("text", message.get("data", ""))))
    if kind == "log":
        metrics = message.get("metrics")
        return Log(**common, metrics=dict(metrics) if isinstance(metrics, dict)
                   else _payload(message))
    if kind == "backward":
        return Backward(**common, node=message.get("node"), grad=message.get("grad"))
    if kind == "result":
        body = message.get("result")
        return Result(**common, result=RunResult.from_json(body if isinstance(body, dict)
                                                           else _payload(message)))
    if kind == "error" and "paused" in message:
        error = message.get("error") or {}
        return CommandRefused(**common, message=str(error.get("message", "")), command=error.get("command"))
    if kind == "error":
        return Error(**common, error=error_from_event(message))
    if kind == "paused":
        return Paused(**common, reason=message.get("reason"), line=message.get("line"), col=message.get("col"),
                      stack=list(message.get("stack") or []), locals=dict(message.get("locals") or {}),
                      condition_error=message.get("condition_error") if isinstance(message.get("condition_error"),
                                                                                    dict) else None)
    if kind == "resumed":
        return Resumed(**common, command=message.get("command"))
    if kind == "evaluated":
        return Evaluated(**common, value=message.get("value"), error=message.get("error"))
    if kind == "breakpoints":
        return BreakpointsSet(**common, breakpoints=list(message.get("breakpoints") or []))
    if kind == "cancelled":
        return Cancelled(**common)
    if kind == "module":
        return Module(**common, call=message.get("call"), path=message.get("path"),
                      class_name=message.get("class"), parent=message.get("parent"), name=message.get("name"))
    if kind == "names":
        names = message.get("names")
        return Names(**common, names={_node_id(k): v for k, v in names.items()} if isinstance(names, dict) else {})
    if kind == "dropped":
        return Dropped(**common, **{k: int(message.get(k) or 0) for k in ("node", "backward", "log")})
    return Event(**common)


def _node_id(key: Any) -> Any:
    """A ``names`` key as the node id it is (JSON object keys are strings)."""
    return int(key) if isinstance(key, str) and key.isdigit() else key
