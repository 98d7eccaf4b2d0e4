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
    if kind == "error":
        return Error(**common, error=error_from_event(message))
    if kind == "cancelled":
        return Cancelled(**common)
    return Event(**common)
