"""POST /v1/sessions, GET and DELETE /v1/sessions/{id}."""
from fastapi import APIRouter, Body, Depends, Request, Response

from .. import auth
from ..errors import ApiError, session_not_found
from ..models import CreateSession, SessionCreated, SessionInfo, errors
from ..sessions import Session, iso


def sessions_record(record):
    """A Session from the record a cluster backend returns (no token: it is only shown)."""
    return Session(id=record["id"], token_digest=b"", device=record["device"], created_at=record["created_at"],
                   ttl_expires_at=record["ttl_expires_at"], idle_timeout_s=record["idle_timeout_s"],
                   last_used=record["last_used"])
from ..worker_calls import call

router = APIRouter(prefix="/v1/sessions", tags=["sessions"])


@router.post("", status_code=201, response_model=SessionCreated,
             responses=errors(401, 413, 422, 429, 503))
async def create_session(request: Request, body: CreateSession = Body(default_factory=CreateSession),
                         _key=Depends(auth.api_key)):
    """Creates a session on a worker; the answer holds its token, shown this once."""
    state = request.app.state
    settings = state.settings
    if len(state.sessions) + state.creating >= settings.max_sessions:
        raise ApiError(429, "TooManyRequests", f"the server holds its maximum of {settings.max_sessions} sessions "
                                               "(GRADSERVE_MAX_SESSIONS; by default derived from the machine's "
                                               "memory); delete one or retry later",
                       headers={"Retry-After": "5"}, limit="max_sessions")
    if body.device not in state.backend.devices():
        raise ApiError(422, "ValidationError", f"no {body.device} workers on this server "
                                               f"(devices: {', '.join(state.backend.devices())})", field="device")
    ttl_s = min(body.ttl_s or settings.session_ttl_s, settings.max_session_ttl_s)
    session, token = state.sessions.new(body.device, ttl_s)
    state.creating += 1
    try:
        session.placement = await state.backend.open_session(session.id, body.device, session=session)
    finally:
        state.creating -= 1
    state.sessions.add(session)
    return {"id": session.id, "token": token, "device": session.device, "expires_at": iso(session.expires_at)}


@router.get("/{session_id}", response_model=SessionInfo, responses=errors(401, 404, 410, 422))
async def get_session(request: Request, session=Depends(auth.session)):
    """The session's variables (tensors and module parameters) and the bytes they hold."""
    reply, _ = await call(request, session, {"op": "describe", "max_tensors": request.app.state.settings.max_tensors})
    record = reply.get("record")  # a backend that keeps records in its cluster sends the session's own
    if record is not None:
        session = sessions_record(record)
    return {"id": session.id, "device": session.device, "created_at": iso(session.created_at),
            "expires_at": iso(session.expires_at), "ttl_expires_at": iso(session.ttl_expires_at),
            "idle_timeout_s": session.idle_timeout_s, "variables": reply["variables"], "bytes": reply["bytes"],
            **({"omitted": reply["omitted"]} if reply.get("omitted") else {})}


@router.delete("/{session_id}", status_code=204, response_class=Response, responses=errors(401, 404, 422))
async def delete_session(request: Request, session=Depends(auth.any_session)):
    """Deletes the session and frees everything it holds on its worker."""
    state = request.app.state
    state.sessions.remove(session.id)
    if session.run_id is not None:
        await state.runs.cancel(session, session.run_id)
    if await state.backend.close_session(session.placement, session.id) is False:
        raise session_not_found()  # a backend that checks the token only now (Ray) found no such session
    return Response(status_code=204)
