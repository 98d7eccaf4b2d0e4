"""POST /v1/sessions/{id}/run."""
from fastapi import APIRouter, Depends, Request
from .. import auth
from ..json_bodies import json_response
from ..models import RunRequest, RunResult, errors
from ..runs import RunSpec

router = APIRouter(prefix="/v1/sessions/{session_id}", tags=["runs"])


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
