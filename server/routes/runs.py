"""POST /v1/sessions/{id}/run."""
import json

from fastapi import APIRouter, Depends, Request
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException

from .. import auth
from ..json_bodies import call_off_loop, json_response
from ..models import RunRequest, RunResult, errors
from ..runs import RunSpec


class RunRoute(APIRoute):
    """The run route, FastAPI's route with a short way through for the common request.

    The server's hot path is this route with a small body, and FastAPI's generic handler
    (content-type parsing, the dependency solver, field machinery) costs more than the
    rest of the request. A request with a JSON content type, a JSON object body that
    validates and a well-formed session id takes the short way: the same parser
    (``json.loads``), the same model validation and the same authentication dependency,
    called directly. Anything else (another content type, bad JSON, a body that fails
    validation, an unreadable body) goes through FastAPI's handler, so every error
    answers exactly as FastAPI makes it. The OpenAPI schema comes from the endpoint's
    signature as for any route.
    """

    def get_route_handler(self):
        generic = super().get_route_handler()
        endpoint = self.endpoint

        async def handler(request: Request):
            content_type = request.headers.get("content-type")
            session_id = request.path_params.get("session_id")
            if content_type is None or not _is_json(content_type) or len(session_id) > 64:
                return await generic(request)
            try:
                raw = await request.body()
            except HTTPException:  # the body cap
                raise
            except Exception:
                raise HTTPException(status_code=400, detail="There was an error parsing the body") from None
            try:  # (a big body is parsed in a thread: 64 MB of JSON would stall every other client)
                body = RunRequest.model_validate(await call_off_loop(len(raw), json.loads, raw))
            except Exception:  # bad JSON (or nested past the recursion limit), a failed validation
                return await generic(request)  # the body is cached on the request: FastAPI reads it again
            return await endpoint(request, body, await auth.session(request, session_id))

        return handler


def _is_json(content_type):
    media = content_type.partition(";")[0].strip().lower()
    return media == "application/json"


router = APIRouter(prefix="/v1/sessions/{session_id}", tags=["runs"], route_class=RunRoute)


@router.post("/run", response_model=RunResult, responses=errors(401, 404, 408, 409, 410, 413, 422, 429))
async def run(request: Request, body: RunRequest, session=Depends(auth.session)):
    """Runs a program in the session: inputs are bound first; answers values, gradients, graph and stdout.

    A second run on a session whose run is still in progress answers 409.
    """
    state = request.app.state
    spec = RunSpec(program=body.program, inputs=body.inputs, outputs=body.outputs, graph=body.graph,
                   encoding=body.encoding, size_hint=int(request.headers.get("content-length") or 0))
    payload = await state.runs.execute(session, spec, run_id=state.runs.new_run_id(), transport="http")
    return await json_response(payload)
