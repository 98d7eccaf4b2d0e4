"""DNS rebinding: a request whose Host names a server this is not is refused before anything runs.

Starlette's TrustedHostMiddleware decides (its host parsing and wildcard rule); this wrapper only
gives its refusal the JSON error body every other refusal of the API has, instead of plain text.
"""
from starlette.middleware.trustedhost import TrustedHostMiddleware

from .json_bodies import JSONResponse


async def _passed(scope, receive, send):
    """What the check calls when the host is trusted: nothing is sent, so nothing is captured."""


class TrustedHosts:
    def __init__(self, app, allowed_hosts):
        self.app = app
        self.check = TrustedHostMiddleware(_passed, allowed_hosts=allowed_hosts, www_redirect=False)

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        refused = []

        async def capture(message):
            refused.append(message)

        hosts = sum(1 for key, _ in scope["headers"] if key == b"host")
        if hosts <= 1:   # (two: the check reads the first, a proxy in front may have routed by another)
            await self.check(scope, receive, capture)
            if not refused:
                return await self.app(scope, receive, send)
        message = "more than one Host header (RFC 9112 section 3.2)" if hosts > 1 else \
            "invalid Host header: this server answers only to its configured host names (GRADSERVE_ALLOWED_HOSTS)"
        body = {"error": {"type": "BadRequest", "message": message}}
        await JSONResponse(body, status_code=400)(scope, receive, send)
