"""Typed answers: what a run returns and what the server says about a session."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .encoding import decode_value


@dataclass
class RunResult:
    """A run's answer: ``values`` and ``grads`` as NumPy arrays (numbers stay numbers); ``omitted``, when the
    server left values out (``{"limit", "message"}``: a run that named no ``outputs`` and bound more than 64
    tensors answers the first 64, and the message lists the others)."""

    values: dict[str, Any]
    grads: dict[str, Any]
    graph: dict | None
    stdout: str
    elapsed_ms: float | None = None
    omitted: dict | None = field(default=None, repr=False)

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def _repr_html_(self) -> str:
        """Jupyter's view: values and gradients as heatmaps and histograms, and the graph (when the run
        asked for it) in module boxes, drawn by the same code as the server's viewer page."""
        from .notebook import run_result_html

        return run_result_html(self)

    @classmethod
    def from_json(cls, body: dict) -> "RunResult":
        return cls(values={k: decode_value(v) for k, v in (body.get("values") or {}).items()},
                   grads={k: decode_value(v) for k, v in (body.get("grads") or {}).items()},
                   graph=body.get("graph"), stdout=body.get("stdout") or "",
                   elapsed_ms=body.get("elapsed_ms"), omitted=body.get("omitted"))


@dataclass(frozen=True)
class VariableInfo:
    """What the session says about one of its variables (no values)."""

    shape: tuple[int, ...] | None
    dtype: str | None
    requires_grad: bool = False
    has_grad: bool = False

    @classmethod
    def from_json(cls, body: dict) -> "VariableInfo":
        shape = body.get("shape")
        return cls(shape=tuple(shape) if shape is not None else None, dtype=body.get("dtype"),
                   requires_grad=bool(body.get("requires_grad")),
                   has_grad=bool(body.get("has_grad")))


@dataclass(frozen=True)
class SessionInfo:
    """``GET /v1/sessions/{id}``: the session's device, lifetime, variables and bytes held."""

    id: str
    device: str
    created_at: str | None
    expires_at: str | None
    variables: dict[str, VariableInfo] = field(default_factory=dict)
    bytes: int | None = None
    ttl_expires_at: str | None = None   # the lifetime's end (created_at + ttl_s), however it is used
    idle_timeout_s: float | None = None  # expires_at is the earlier of ttl_expires_at and last use + this

    @classmethod
    def from_json(cls, body: dict) -> "SessionInfo":
        return cls(id=body["id"], device=body.get("device", "cpu"),
                   created_at=body.get("created_at"), expires_at=body.get("expires_at"),
                   variables={k: VariableInfo.from_json(v)
                              for k, v in (body.get("variables") or {}).items()},
                   bytes=body.get("bytes"), ttl_expires_at=body.get("ttl_expires_at"),
                   idle_timeout_s=body.get("idle_timeout_s"))
