"""Every error answers ``{"error": {"type", "message", ...}}``; this module maps
exceptions to that body and its status."""
import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException

from .backends.base import BackendUnavailable, RunDeadline, SessionGone
from .json_bodies import JSONResponse
from .tensor_wire import TensorFormatError

log = logging.getLogger("gradserve.server")

_TYPES = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed",
          408: "Timeout", 409: "Conflict", 410: "Gone", 413: "TooLarge", 415: "UnsupportedMediaType",
          422: "ValidationError", 429: "TooManyRequests", 503: "Unavailable"}


class ApiError(Exception):
    """An error answer: status, the error object, optional headers and extra top-level fields."""

    def __init__(self, status, type_, message, *, headers=None, extra=None, **fields):
        super().__init__(message)
        self.status = status
        self.error = {"type": type_, "message": message, **fields}
        self.headers = headers
        self.extra = extra or {}
        self.published = False   # a run's own error event already carries it (runs.execute)

    @classmethod
    def from_error(cls, status, error, extra=None):
        e = cls(status, error.get("type", "Error"), error.get("message", ""), extra=extra)
        e.error = error
        return e

    def response(self):
        return JSONResponse({"error": self.error, **self.extra}, status_code=self.status, headers=self.headers)


def unauthorized(message="missing bearer token"):
    return ApiError(401, "Unauthorized", message, headers={"WWW-Authenticate": "Bearer"})


SESSION_NOT_FOUND = ("SessionNotFound", "no such session, or the token does not match it")
SESSION_ENDED = "the session has ended (deleted or expired)"


def session_not_found(message=SESSION_NOT_FOUND[1]):
    return ApiError(404, SESSION_NOT_FOUND[0], message)


def session_gone():
    return ApiError(410, "SessionGone", "the worker holding this session died; its state is lost "
                                        "(delete it and create a new one)")


def deadline_exceeded(limit_s):
    return ApiError(408, "LimitExceeded", f"limit exceeded: wall_time: the run did not stop within {limit_s} s "
                                          "and its worker was replaced; the session's state is lost",
                    limit="wall_time")


def tensor_error(e):
    fields = {"field": e.where}
    if e.limit:
        return ApiError(422, "LimitExceeded", str(e), limit=e.limit, **fields)
    return ApiError(422, "ValidationError", str(e), **fields)


def not_json_message(request, what):
    """Why a body sent with another Content-Type than JSON's was not read (curl's ``-d`` sends
    ``application/x-www-form-urlencoded``), and what a binary body needs instead."""
    content_type = request.headers.get("content-type") or "none"
    binary = ("; a binary body (Triton's binary tensor extension) needs the Inference-Header-Content-Length "
              "header: the length of the JSON header in front of the tensors' bytes"
              if content_type.split(";")[0].strip().lower() == "application/octet-stream" else "")
    return (f"the body must be {what} sent with Content-Type: application/json (this request's Content-Type: "
            f"{content_type[:100]}){binary}")


def _validation_detail(err, request):
    """One of FastAPI's validation errors as ``{"field", "message"}``, in words a caller can act on
    where FastAPI's own would puzzle one: a body that is not JSON (FastAPI puts the character's
    position into the field: ``body.12: JSON decode error``), JSON sent with another Content-Type
    (curl's ``-d`` sends ``application/x-www-form-urlencoded``; FastAPI then hands the bytes to the
    model: ``Input should be a valid dictionary``), and no body at all. Other content types stay
    refused: a browser sends them cross-origin without asking first."""
    loc = tuple(err.get("loc", ()))
    kind = err.get("type")
    if loc[:1] == ("body",) and kind == "json_invalid":
        reason = (err.get("ctx") or {}).get("error") or "JSON decode error"
        at = f" at char {loc[1]}" if len(loc) > 1 and isinstance(loc[1], int) else ""
        return {"field": "body", "message": f"the request body is not valid JSON: {reason}{at}"}
    if loc == ("body",) and isinstance(err.get("input"), (bytes, bytearray)):
        return {"field": "body", "message": not_json_message(request, "a JSON object")}
    if loc == ("body",) and kind == "missing":
        return {"field": "body", "message": "the request needs a JSON object as its body "
                                            "(with Content-Type: application/json)"}
    if kind == "string_pattern_mismatch" and loc[:1] in (("path",), ("query",)) and isinstance(err.get("input"), str):
        # a variable name the route's pattern refused (/variables/_x, ?of=1x): say why in words, as the
        # route's own check does for keywords, not with the regular expression
        from .names import name_problem
        problem = name_problem(err["input"], dotted=True)
        if problem is not None:
            return {"field": ".".join(str(p) for p in loc), "message": f"{err['input'][:80]!r} {problem}"}
    return {"field": ".".join(str(p) for p in loc), "message": err.get("msg", "")}


def install(app: FastAPI):
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError):
        return exc.response()

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, exc: HTTPException):
        message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        headers = getattr(exc, "headers", None)
        if exc.status_code == 405:  # every method the path takes, not only the first matching route's
            from .openapi import allowed_methods
            headers = {**(headers or {}), "Allow": ", ".join(allowed_methods(request.app, request.url.path))}
        error = getattr(exc, "error", None) or {"type": _TYPES.get(exc.status_code, "Error"), "message": message}
        return JSONResponse({"error": error}, status_code=exc.status_code, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError):
        details = [_validation_detail(err, request) for err in exc.errors()]
        summary = "; ".join(f"{d['field']}: {d['message']}" for d in details[:5]) or "invalid request"
        error = {"type": "ValidationError", "message": summary}
        if details:  # the field at the top, as every other 4xx names it; all of them in details
            error["field"] = details[0]["field"]
        return JSONResponse({"error": {**error, "details": details}}, status_code=422)

    @app.exception_handler(TensorFormatError)
    async def _tensor_error(request: Request, exc: TensorFormatError):
        return tensor_error(exc).response()

    @app.exception_handler(SessionGone)
    async def _gone(request: Request, exc: SessionGone):
        return session_gone().response()

    @app.exception_handler(BackendUnavailable)
    async def _unavailable(request: Request, exc: BackendUnavailable):
        return ApiError(503, "Unavailable", str(exc), headers={"Retry-After": "1"}).response()

    @app.exception_handler(RunDeadline)
    async def _deadline(request: Request, exc: RunDeadline):
        return deadline_exceeded(request.app.state.settings.limits.wall_time_s).response()

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception):
        # A bug, never the caller's input: log it whole, answer without internals.
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return JSONResponse({"error": {"type": "InternalError",
                                       "message": "the server failed on this request; it has been logged"}},
                            status_code=500)
