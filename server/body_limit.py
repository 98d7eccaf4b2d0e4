"""A cap on request bodies, counted as they stream in (uvicorn has none of its own), and their share of
the API process's parse budget (``parse_budget``), charged as they stream in too."""
import json

from starlette.exceptions import HTTPException

from .parse_budget import FREE_BYTES, RETRY_AFTER_S, Charge, refusal


class BodyTooLarge(HTTPException):
    # An HTTPException, so FastAPI's body parsing re-raises it instead of turning it into a 400.
    def __init__(self, limit):
        super().__init__(413, f"the request body is larger than {limit} bytes")


class BodyOverBudget(HTTPException):
    """The body's bytes would pass the parse budget (status 413 or 503). An HTTPException, as BodyTooLarge;
    ``error`` is the answer's error object (the app's HTTPException handler answers with it)."""

    def __init__(self, status, budget):
        message, self.error = refusal(status, budget)
        super().__init__(status, message, headers={"Retry-After": str(RETRY_AFTER_S)} if status == 503 else None)


class BodySizeLimit:
    """ASGI middleware: 413 as soon as a body is known to pass ``max_bytes``; 503 (or 413) as soon as it
    is known to pass what is left of ``budget`` (a ``ParseBudget``), which it holds until the answer is
    sent."""

    def __init__(self, app, max_bytes, budget=None):
        self.app = app
        self.max_bytes = max_bytes
        self.budget = budget

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = self.max_bytes
        budget = self.budget
        charge = None  # (made for a body past FREE_BYTES only: the common small request costs nothing here)
        for key, value in scope.get("headers", ()):
            if key == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > limit:
                    return await _reject(send, limit)
                if declared > FREE_BYTES and budget is not None:
                    charge = Charge(budget)
                    if (status := charge.cover(declared)) is not None:
                        return await _refuse(send, status, budget)
        received = 0
        started = False

        async def counting_receive():
            nonlocal received, charge
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
                if received > FREE_BYTES and budget is not None:  # (past a Content-Length it covered: a no-op)
                    if charge is None:
                        charge = Charge(budget)
                    if (status := charge.cover(received, partial=message.get("more_body", False))) is not None:
                        raise BodyOverBudget(status, budget)
            return message

        async def tracking_send(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            if started:
                raise
            await _reject(send, limit)
        except BodyOverBudget as e:
            if started:
                raise
            await _refuse(send, e.status_code, self.budget)
        finally:
            if charge is not None:
                charge.release()


async def _reject(send, limit):
    body = json.dumps({"error": {"type": "TooLarge", "message": f"the request body is larger than {limit} bytes",
                                 "limit": "body_bytes"}}).encode()
    await _answer(send, 413, body)


async def _refuse(send, status, budget):
    body = json.dumps({"error": refusal(status, budget)[1]}).encode()
    await _answer(send, status, body, [(b"retry-after", str(RETRY_AFTER_S).encode())] if status == 503 else [])


async def _answer(send, status, body, headers=()):
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close"), *headers]})
    await send({"type": "http.response.body", "body": body})
