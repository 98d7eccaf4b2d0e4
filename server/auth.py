"""Authentication dependencies: API keys for creating sessions, session tokens for the rest."""
import hmac

from fastapi import Depends, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .errors import session_gone, session_not_found, unauthorized

bearer = HTTPBearer(auto_error=False, description="the session token (or, to create a session, an API key)")


async def api_key(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(bearer)):
    """Passes when the server has no API keys, or the request carries one of them."""
    keys = request.app.state.settings.api_keys
    if not keys:
        return None
    if credentials is None:
        raise unauthorized("this server needs an API key to create sessions")
    given = credentials.credentials.encode("utf-8", "surrogatepass")
    if not any([hmac.compare_digest(given, k.encode()) for k in keys]):  # every key compared, no early exit
        raise unauthorized("unknown API key")
    return credentials.credentials


async def any_session(request: Request, session_id: str = Path(max_length=64),
                credentials: HTTPAuthorizationCredentials | None = Depends(bearer)):
    """The session named in the path, authenticated by its token: 401 without one, 404 if wrong or unknown."""
    if credentials is None:
        raise unauthorized()
    found = request.app.state.sessions.authenticate(session_id, credentials.credentials)
    if found is None:
        raise session_not_found()
    return found


async def session(request: Request, found=Depends(any_session)):
    """As any_session, and 410 once the worker holding the session has died."""
    if not request.app.state.backend.is_alive(found.placement):
        raise session_gone()
    return found
