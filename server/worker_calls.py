"""Commands to the worker holding a session, with failures turned into API errors."""
from .backends.base import SessionGone
from .errors import ApiError, session_gone


async def call(request, session, header, buffers=()):
    """Sends ``header`` to the session's worker; returns (reply, buffers) or raises ApiError."""
    header["session"] = session.id
    try:
        reply, out = await request.app.state.backend.call(session.placement, header, buffers)
    except SessionGone:
        raise session_gone() from None
    if not reply.get("ok"):
        raise ApiError.from_error(reply.get("status", 500), reply.get("error") or {})
    return reply, out
