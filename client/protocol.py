"""The HTTP routes of SPEC section 3 as data: each builder returns a ``Call`` that says what to send
and how to read the answer. ``Client`` and ``AsyncClient`` only differ in how they send a ``Call``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import quote

import httpx

from .encoding import BINARY_HEADER, ENCODINGS, binary_body, decode_value, parse_binary
from .errors import parse_body
from .results import RunResult, SessionInfo


def _json(response: httpx.Response) -> Any:
    header_length = response.headers.get(BINARY_HEADER)
    if header_length is not None and header_length.isdigit():
        return parse_binary(response.content, int(header_length))
    return parse_body(response.content)


def _answer_encoding(encoding: str) -> str:
    """The encoding asked of the server: "auto" asks for binary answers."""
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding must be one of {ENCODINGS}, not {encoding!r}")
    return "binary" if encoding == "auto" else encoding


def _nothing(response: httpx.Response) -> None:
    return None


@dataclass(frozen=True)
class Call:
    """One request: route, body, credentials, whether repeating it is harmless, answer parser."""

    method: str
    path: str
    parse: Callable[[httpx.Response], Any] = _json
    json: Any = None
    content: bytes | None = None
    headers: dict | None = None
    params: dict | None = None
    token: str | None = None
    # Repeating it after a broken connection cannot do anything twice (GET, PUT, DELETE).
    idempotent: bool = True
    # A 404 here means "no such session" (as opposed to "no such variable").
    session_route: bool = True


def _session_path(session_id: str, *rest: str) -> str:
    return "/".join(["/v1/sessions", quote(session_id, safe=""), *rest])


def create_session(api_key: str | None, device: str, ttl_s: float | None) -> Call:
    body: dict[str, Any] = {"device": device}
    if ttl_s is not None:
        body["ttl_s"] = ttl_s
    return Call("POST", "/v1/sessions", json=body, token=api_key, idempotent=False,
                session_route=False)


def session_info(session_id: str, token: str) -> Call:
    return Call("GET", _session_path(session_id), token=token,
                parse=lambda r: SessionInfo.from_json(_json(r)))


def delete_session(session_id: str, token: str) -> Call:
    return Call("DELETE", _session_path(session_id), token=token, parse=_nothing)


def run(session_id: str, token: str, program: str, inputs: dict | None, outputs: list | None,
        graph: bool, encoding: str, raws: list | None = None) -> Call:
    """A run; with ``raws`` (the raw bytes of inputs that name a binary_data_size), a binary request."""
    body: dict[str, Any] = {"program": program, "inputs": inputs or {}, "graph": bool(graph),
                            "encoding": _answer_encoding(encoding)}
    if outputs is not None:
        body["outputs"] = list(outputs)
    parse = lambda r: RunResult.from_json(_json(r))  # noqa: E731
    if raws is not None:
        content, header_length = binary_body(body, raws)
        return Call("POST", _session_path(session_id, "run"), content=content, token=token,
                    headers={BINARY_HEADER: str(header_length)}, idempotent=False, parse=parse)
    return Call("POST", _session_path(session_id, "run"), json=body, token=token,
                idempotent=False, parse=parse)


def _variable(response: httpx.Response) -> tuple[Any, Any]:
    body = _json(response)
    grad = body.get("grad")
    return decode_value(body.get("value")), (None if grad is None else decode_value(grad))


def get_variable(session_id: str, token: str, name: str, encoding: str = "auto") -> Call:
    encoding = _answer_encoding(encoding)
    params = {"encoding": encoding} if encoding != "json" else None
    return Call("GET", _session_path(session_id, "variables", quote(name, safe="")),
                params=params, token=token, parse=_variable, session_route=False)


def put_variable(session_id: str, token: str, name: str, tensor: Any, raws: list | None = None) -> Call:
    """Binds a variable; with ``raws`` (the tensor object names its binary_data_size), a binary request."""
    path = _session_path(session_id, "variables", quote(name, safe=""))
    if raws is not None:
        content, header_length = binary_body(tensor, raws)
        return Call("PUT", path, content=content, headers={BINARY_HEADER: str(header_length)}, token=token,
                    parse=_nothing, session_route=False)
    return Call("PUT", path, json=tensor, token=token, parse=_nothing, session_route=False)


def graph(session_id: str, token: str, of: str) -> Call:
    return Call("GET", _session_path(session_id, "graph"), params={"of": of}, token=token,
                session_route=False)


def get_checkpoint(session_id: str, token: str) -> Call:
    return Call("GET", _session_path(session_id, "checkpoint"), token=token,
                parse=lambda r: r.content)


def put_checkpoint(session_id: str, token: str, content: bytes) -> Call:
    return Call("PUT", _session_path(session_id, "checkpoint"), content=content, token=token,
                parse=_nothing)


def health() -> Call:
    return Call("GET", "/healthz", session_route=False)


def ready() -> Call:
    return Call("GET", "/readyz", session_route=False)
