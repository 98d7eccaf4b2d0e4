"""Commands to the worker holding a session, with failures turned into API errors."""
from .backends.base import SessionGone
from .errors import ApiError, session_gone


async def call(request, session, header, buffers=()):
    """Sends ``header`` to the session's worker; returns (reply, buffers) or raises ApiError."""
    if session.paused:
        # the session's process serves one command at a time and waits in the debugger: the command would
        # wait for the pause to end (up to pause_timeout_s, 10 minutes), and one whose client gave up would
        # still run then (a PUT applied after its 'timeout')
        raise ApiError(409, "Conflict", f"the session's run {session.run_id!r} is paused in the debugger; "
                                        "continue or cancel it (over the session's stream) first",
                       run=session.run_id)
    header["session"] = session.id
    try:
        reply, out = await request.app.state.backend.call(session.placement, header, buffers)
    except SessionGone:
        raise session_gone() from None
    if not reply.get("ok"):
        raise ApiError.from_error(reply.get("status", 500), reply.get("error") or {})
    return reply, out
