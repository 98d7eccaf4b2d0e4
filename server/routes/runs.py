"""POST /v1/sessions/{id}/run."""
import json

from fastapi import APIRouter, Depends, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException

from .. import auth
from .. import answers
from ..errors import ApiError, tensor_error
from ..body_parser import PROCESS_BYTES
from ..json_bodies import call_off_loop
from ..models import RunRequest, RunResult, errors
from ..runs import RunSpec
from ..tensor_wire import TensorFormatError, attach_binary


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
            header_length = request.headers.get(answers.BINARY_HEADER)
            if header_length is not None and len(session_id) <= 64:
                session = await auth.session(request, session_id)
                return await endpoint(request, await _binary_body(request, header_length), session)
            if content_type is None or not _is_json(content_type) or len(session_id) > 64:
                return await generic(request)
            try:
                raw = await request.body()
            except HTTPException:  # the body cap
                raise
            except Exception:
                raise HTTPException(status_code=400, detail="There was an error parsing the body") from None
            if len(raw) > PROCESS_BYTES:  # (in a thread it would still hold the GIL, and so every other client)
                session = await auth.session(request, session_id)   # (the parser's turns are per session)
                parsed = await request.app.state.body_parser.parse(
                    raw, request.app.state.settings.limits.tensor_elements, "inputs", key=session.id)
                try:
                    body = RunRequest.model_validate(parsed)
                except ValidationError as e:
                    raise RequestValidationError(e.errors(include_url=False, include_context=False)) from None
                return await endpoint(request, body, session)
            try:  # (a mid-sized body is parsed in a thread)
                body = RunRequest.model_validate(await call_off_loop(len(raw), json.loads, raw))
            except Exception:  # bad JSON (or nested past the recursion limit), a failed validation
                return await generic(request)  # the body is cached on the request: FastAPI reads it again
            return await endpoint(request, body, await auth.session(request, session_id))

        return handler


async def read_binary_request(request, header_length):
    """A binary request (Triton's binary tensor extension): (its JSON header as a dict, the bytes after it)."""
    raw = await request.body()
    try:
        n = int(header_length)
    except ValueError:
        n = -1
    if not 0 < n <= len(raw):
        raise ApiError(400, "BadRequest", f"{answers.BINARY_HEADER} must be the JSON header's length in bytes "
                                          f"(1 to the body's {len(raw)})", field=answers.BINARY_HEADER)
    try:
        head = await call_off_loop(n, json.loads, raw[:n])
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ApiError(400, "BadRequest", "the binary request's header is not JSON") from None
    if not isinstance(head, dict):
        raise ApiError(422, "ValidationError", "the binary request's header must be a JSON object", field="body")
    return head, memoryview(raw)[n:]


async def _binary_body(request, header_length):
    """A binary run request: the header is the run's JSON body; the bytes after it are the raw bytes of
    each input that names its ``binary_data_size``, in order."""
    head, data = await read_binary_request(request, header_length)
    try:
        head["inputs"] = attach_binary(head.get("inputs", {}), data)
    except TensorFormatError as e:
        raise tensor_error(e) from None
    try:
        return RunRequest.model_validate(head)
    except ValidationError as e:
        raise RequestValidationError(e.errors(include_url=False, include_context=False)) from None


def _is_json(content_type):
    media = content_type.partition(";")[0].strip().lower()
    return media == "application/json"


router = APIRouter(prefix="/v1/sessions/{session_id}", tags=["runs"], route_class=RunRoute)


_BINARY_ANSWER = {200: {"content": {answers.BINARY_MEDIA_TYPE: {"schema": {"type": "string", "format": "binary"}}},
                        "description": "values, gradients, graph and stdout; with \"encoding\": \"binary\", a JSON "
                                       "header of Inference-Header-Content-Length bytes, then the tensors' bytes"}}


@router.post("/run", response_model=RunResult,
             responses={**_BINARY_ANSWER, **errors(401, 404, 408, 409, 410, 413, 422, 429, 503)})
async def run(request: Request, body: RunRequest, session=Depends(auth.session)):
    """Runs a program in the session: inputs are bound first; answers values, gradients, graph and stdout.

    A second run on a session whose run is still in progress answers 409. Inputs may also come as a
    binary request (Triton's binary tensor extension): the JSON body as a header of
    `Inference-Header-Content-Length` bytes, then the raw little-endian bytes of each input whose
    object names its `binary_data_size`, in order.
    """
    state = request.app.state
    spec = RunSpec(program=body.program, inputs=body.inputs, outputs=body.outputs, graph=body.graph,
                   encoding=body.encoding, size_hint=int(request.headers.get("content-length") or 0))
    tree = await state.runs.execute(session, spec, run_id=state.runs.new_run_id(), transport="http")
    return state.answer_budget.response(tree, body.encoding)
