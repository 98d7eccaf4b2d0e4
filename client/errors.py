"""The one exception hierarchy of the client, and the mapping from an HTTP answer to it.

Every error the client raises is a ``GradserveError``; every error that came from (or failed to
reach) the server is an ``APIError`` carrying the status, the parsed body and the request id.
"""
from __future__ import annotations

import json
from typing import Any


class GradserveError(Exception):
    """Base class of every exception raised by ``gradserve.client``."""


class APIError(GradserveError):
    """The server answered with an error status (or could not be reached: ``status`` is None)."""

    def __init__(self, message: str, *, status: int | None = None, body: Any = None,
                 request_id: str | None = None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.body = body
        self.request_id = request_id

    def __str__(self) -> str:
        parts = [self.message]
        if self.status is not None:
            parts.append(f"(HTTP {self.status})")
        if self.request_id:
            parts.append(f"[request {self.request_id}]")
        return " ".join(parts)


class APIConnectionError(APIError):
    """The request did not get an answer: connection refused, reset, or a protocol failure."""


class APITimeoutError(APIConnectionError):
    """The request timed out on the client side."""


class BadRequest(APIError):
    """400, or a 422 that is about the request's shape rather than the program (validation)."""


class AuthError(APIError):
    """401 (no credentials) or 403 (credentials refused)."""


class NotFound(APIError):
    """404 for something other than the session itself, such as a variable name."""


class SessionNotFound(NotFound):
    """404: the session does not exist or the token is wrong (the server does not say which)."""


class Conflict(APIError):
    """409: the request conflicts with the session's state (for example, a run already going)."""


class SessionGone(APIError):
    """410: the session existed but is lost (its worker died or it expired)."""


class ProgramError(APIError):
    """The program failed: ``type``, ``message``, 1-based ``line`` and ``col``, ``traceback``."""

    def __init__(self, message: str, *, type: str = "Error", line: int | None = None,
                 col: int | None = None, traceback: list[dict] | None = None,
                 limit: str | None = None, status: int | None = None, body: Any = None,
                 request_id: str | None = None):
        super().__init__(message, status=status, body=body, request_id=request_id)
        self.type = type
        self.line = line
        self.col = col
        self.traceback = list(traceback or [])
        self.limit = limit
        # What the program printed before it failed (the server sends it with the error).
        self.stdout: str = body.get("stdout", "") if isinstance(body, dict) else ""
        # Set by lazy tensors: the recorded statement that failed, and ``file:line`` of the user code
        # that recorded it (``line``/``col`` are then in the program the client generated).
        self.statement: str | None = None
        self.origin: str | None = None

    def __str__(self) -> str:
        where = ""
        if self.line is not None and not self.statement:
            where = f" at line {self.line}" + (f", col {self.col}" if self.col is not None else "")
        text = f"{self.type}{where}: {self.message}"
        if self.statement:
            text += f"\n  in recorded operation: {self.statement}"
            if self.origin:
                text += f"\n  recorded at {self.origin}"
        return text

    def to_dict(self) -> dict:
        """The error object as the server sends it."""
        out = {"type": self.type, "message": self.message, "line": self.line, "col": self.col,
               "traceback": self.traceback}
        if self.limit is not None:
            out["limit"] = self.limit
        return out


class LimitExceeded(ProgramError):
    """A limit was hit: 422 with type LimitExceeded, 408 (wall time) or 413 (size); ``limit`` names it."""


class RunCancelled(APIError):
    """The run was cancelled before it finished (by ``stream.cancel()`` or the session's deletion)."""


class RateLimited(APIError):
    """429: too many requests; ``retry_after`` is the server's hint in seconds, when it gave one."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs):
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ServerError(APIError):
    """A 5xx answer."""


class ServiceUnavailable(ServerError):
    """503: the server cannot take the request now (not ready, no worker); safe to retry."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequest, 401: AuthError, 403: AuthError, 409: Conflict, 410: SessionGone,
    415: BadRequest,
    429: RateLimited, 503: ServiceUnavailable,
}

# The status a limit maps to when the server does not name the limit itself.
_LIMIT_BY_STATUS = {408: "wall_time", 413: "body_bytes"}


def parse_body(content: bytes) -> Any:
    """The answer's body as JSON when it is JSON, else as text (None when empty)."""
    if not content:
        return None
    try:
        return json.loads(content)
    except ValueError:
        return content.decode("utf-8", "replace")


def _error_object(body: Any) -> dict:
    """The ``{"type", "message", ...}`` object inside a body, whichever of the usual forms it takes."""
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            return error
        if isinstance(error, str):
            return {"message": error}
        detail = body.get("detail")
        if isinstance(detail, dict):
            inner = detail.get("error", detail)
            return inner if isinstance(inner, dict) else {"message": str(inner)}
        if isinstance(detail, str):
            return {"message": detail}
        if detail is not None:  # FastAPI's validation errors: a list of problems
            return {"type": "ValidationError", "message": json.dumps(detail)}
        if "message" in body:
            return body
    if isinstance(body, str) and body:
        return {"message": body}
    return {}


def program_error(error: dict, *, status: int | None = None, body: Any = None,
                  request_id: str | None = None) -> ProgramError:
    """A ``ProgramError`` (or ``LimitExceeded``) from the server's error object."""
    kind = error.get("type") or "Error"
    limit = error.get("limit")
    if status in _LIMIT_BY_STATUS:
        limit = limit or _LIMIT_BY_STATUS[status]
    cls = LimitExceeded if (kind == "LimitExceeded" or limit is not None
                            or status in _LIMIT_BY_STATUS) else ProgramError
    return cls(str(error.get("message", "")), type=kind, line=error.get("line"),
               col=error.get("col"), traceback=error.get("traceback"), limit=limit,
               status=status, body=body, request_id=request_id)


# The status an error stands for when a WebSocket error event does not carry one.
_STATUS_BY_TYPE = {"ValidationError": 422, "BadRequest": 400, "Conflict": 409, "InternalError": 500,
                   "SessionNotFound": 404, "SessionGone": 410, "Unauthorized": 401,
                   "TooManyRequests": 429, "Unavailable": 503}


def error_from_event(message: dict) -> APIError:
    """The exception for a WebSocket ``error`` event (a run's failure, or a refused message)."""
    error = message.get("error")
    if not isinstance(error, dict):
        error = {"type": "Error", "message": str(error or "the run failed")}
    status = message.get("status") or _STATUS_BY_TYPE.get(error.get("type"), 422)
    return error_from_response(status, {**message, "error": error})


def error_from_response(status: int, body: Any, request_id: str | None = None,
                        retry_after: float | None = None, *, session_route: bool = True) -> APIError:
    """The exception for an error answer: status first, then the body's error ``type``.

    ``session_route`` says whether a 404 is about the session (wrong id or token) or about a
    name inside it (a variable), which the server tells apart by the error's type.
    """
    error = _error_object(body)
    message = str(error.get("message") or f"HTTP {status}")
    common = {"status": status, "body": body, "request_id": request_id}
    if error.get("type") == "Cancelled":
        return RunCancelled(message, **common)
    if status in _LIMIT_BY_STATUS or error.get("type") == "LimitExceeded":
        return program_error(error, **common)
    if status == 422:
        if error.get("type") in (None, "ValidationError", "RequestValidationError"):
            return BadRequest(message, **common)
        return program_error(error, **common)
    if status == 404:
        kind = error.get("type")
        if kind == "SessionNotFound" or (session_route and kind in (None, "NotFound")):
            return SessionNotFound(message, **common)
        return NotFound(message, **common)
    if status == 429:
        return RateLimited(message, retry_after=retry_after, **common)
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else APIError)
    return cls(message, **common)
