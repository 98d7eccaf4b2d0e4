"""Variables and graphs of a session: GET/PUT /variables/{name}, GET /graph?of=name."""
from typing import Literal

from fastapi import APIRouter, Body, Depends, Path, Query, Request, Response

from .. import auth
from .. import answers
from ..errors import ApiError, tensor_error
from ..json_bodies import BigPayload, call_off_loop, json_response
from ..names import MAX_NAME_LENGTH, PATH_PATTERN, check_name
from ..models import Graph, TensorIn, VariableValue, errors
from ..tensor_wire import TensorFormatError, decode_tensor
from ..wire_frames import pack_array
from ..worker_calls import call

router = APIRouter(prefix="/v1/sessions/{session_id}", tags=["variables"])

_NAME = Path(max_length=MAX_NAME_LENGTH, pattern=PATH_PATTERN,
             description="a variable name or a dotted path such as model.fc.weight (no keywords, no names "
                         "starting with '_')")


@router.get("/variables/{name}", response_model=VariableValue,
            responses={200: {"content": {answers.BINARY_MEDIA_TYPE: {"schema": {"type": "string", "format": "binary"}}},
                             "description": "the value and gradient; with encoding=binary, a JSON header of "
                                            "Inference-Header-Content-Length bytes and then the tensors' bytes"},
                       **errors(401, 404, 410, 413, 422)})
async def get_variable(request: Request, name: str = _NAME, encoding: Literal["json", "base64", "binary"] = "json",
                       session=Depends(auth.session)):
    """A variable's value and gradient."""
    check_name(name, "name", dotted=True)
    reply, out = await call(request, session, {"op": "get", "name": name})
    grad = reply["grad"]
    tree = {"value": answers.skeleton(reply["value"], out),
            "grad": answers.skeleton(grad, out) if grad is not None else None}
    cap = request.app.state.settings.json_max_elements
    if encoding == "json" and answers.json_elements(tree) > cap:
        raise ApiError(413, "LimitExceeded", f"limit exceeded: json_max_elements: a JSON answer holds at most {cap} "
                                             f"numbers and {name!r} has more; ask for encoding=base64 or binary",
                       limit="json_max_elements", name=name)
    return answers.response(tree, encoding)


@router.put("/variables/{name}", status_code=204, response_class=Response, responses=errors(401, 404, 410, 413, 422))
async def put_variable(request: Request, name: str = _NAME, tensor: TensorIn = Body(...),
                       session=Depends(auth.session)):
    """Binds a tensor to a variable (a dotted path restores into an existing module's parameter)."""
    check_name(name, "name", dotted=True)
    limits = request.app.state.settings.limits
    buffers = []

    def decode():
        try:
            array, requires_grad = decode_tensor(tensor, "body", limits.tensor_elements)
        except TensorFormatError as e:
            raise tensor_error(e) from None
        entry = pack_array(array, buffers)
        entry["requires_grad"] = requires_grad
        return entry

    entry = await call_off_loop(int(request.headers.get("content-length") or 0), decode)
    await call(request, session, {"op": "put", "name": name, "tensor": entry,
                                  "session_bytes": limits.session_bytes}, buffers)
    return Response(status_code=204)


@router.get("/graph", response_model=Graph, responses=errors(401, 404, 410, 422))
async def get_graph(request: Request, of: str = Query(max_length=MAX_NAME_LENGTH, pattern=PATH_PATTERN, description="the variable whose graph to show"),
                    session=Depends(auth.session)):
    """The graph that produced a variable (SPEC section 5)."""
    check_name(of, "of", dotted=True)
    reply, _ = await call(request, session, {"op": "graph", "of": of})
    return await json_response(BigPayload(reply["graph"]))
