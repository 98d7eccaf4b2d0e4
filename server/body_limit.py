"""A cap on request bodies, counted as they stream in (uvicorn has none of its own)."""
import json

from starlette.exceptions import HTTPException


class BodyTooLarge(HTTPException):
    # An HTTPException, so FastAPI's body parsing re-raises it instead of turning it into a 400.
    def __init__(self, limit):
        super().__init__(413, f"the request body is larger than {limit} bytes")


class BodySizeLimit:
    """ASGI middleware: 413 as soon as a body is known to pass ``max_bytes``."""

    def __init__(self, app, max_bytes):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = self.max_bytes
        for key, value in scope.get("headers", ()):
            if key == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > limit:
                    return await _reject(send, limit)
        received = 0
        started = False

        async def counting_receive():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
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


async def _reject(send, limit):
    body = json.dumps({"error": {"type": "TooLarge", "message": f"the request body is larger than {limit} bytes",
                                 "limit": "body_bytes"}}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
