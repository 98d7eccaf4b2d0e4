"""Authentication dependencies: API keys for creating sessions, session tokens for the rest.

The session dependencies are HTTPBearer security schemes themselves (so OpenAPI
shows the Bearer requirement) that read the header and the path's session id
in one step: FastAPI solves each nested dependency level per request, and the
run route is the server's hot path.
"""
import hmac

from fastapi import Depends, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .errors import session_gone, session_not_found, unauthorized

_DESCRIPTION = "the session token (or, to create a session, an API key)"

bearer = HTTPBearer(auto_error=False, scheme_name="HTTPBearer", description=_DESCRIPTION)


async def api_key(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(bearer)):
    """Passes when the server has no API keys, or the request carries one of them."""
    keys = request.app.state.settings.api_keys
    if not keys:
        return None
    if credentials is None:
        raise unauthorized(_missing(request, "this server needs an API key to create sessions", "KEY"))
    given = credentials.credentials.encode("utf-8", "surrogatepass")
    if not any([hmac.compare_digest(given, k.encode()) for k in keys]):  # every key compared, no early exit
        raise unauthorized("unknown API key")
    return credentials.credentials


def _missing(request, what, placeholder):
    """Why a request carries no bearer credential, and how to send one (the header's value is not echoed)."""
    if request.headers.get("authorization"):
        return f"{what}: the Authorization header is not of the form 'Bearer {placeholder}'"
    return f"{what}: send it as the header 'Authorization: Bearer {placeholder}'"


def bearer_token(request):
    """The token of an ``Authorization: Bearer <token>`` header, or None (as HTTPBearer reads it)."""
    scheme, _, token = (request.headers.get("authorization") or "").partition(" ")
    token = token.strip()
    if not token or scheme.lower() != "bearer":
        return None
    return token


class SessionBearer(HTTPBearer):
    """The session named in the path, authenticated by its token: 401 without one, 404 if wrong or unknown;
    with ``live``, 410 once the worker holding the session has died."""

    def __init__(self, live):
        super().__init__(auto_error=False, scheme_name="HTTPBearer", description=_DESCRIPTION)
        self.live = live

    async def __call__(self, request: Request, session_id: str = Path(max_length=64)):
        token = bearer_token(request)
        if token is None:
            raise unauthorized(_missing(request, "missing bearer token (the session's token)", "TOKEN"))
        state = request.app.state
        found = await state.sessions.authenticate(session_id, token)
        if found is None:
            raise session_not_found(state.sessions.not_found(session_id, token))
        if self.live and not state.backend.is_alive(found.placement):
            raise session_gone()
        return found


any_session = SessionBearer(live=False)
session = SessionBearer(live=True)
