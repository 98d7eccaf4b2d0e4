"""Variables and graphs of a session: GET/PUT /variables/{name}, GET /graph?of=name."""
from typing import Literal

from fastapi import APIRouter, Body, Depends, Path, Query, Request, Response
from fastapi.routing import APIRoute

from .. import answers, auth
from ..errors import ApiError, not_json_message, tensor_error
from ..json_bodies import BigPayload, call_off_loop, json_response
from ..json_codec import RawJSON
from ..names import MAX_NAME_LENGTH, PATH_PATTERN, check_name
from ..models import Graph, NodeTensors, TensorIn, VariableValue, errors
from ..tensor_wire import BinaryTensor, TensorFormatError, binary_size, decode_tensor
from ..body_parser import PROCESS_BYTES
from .runs import _is_json, read_binary_request
from ..runs import _worker_run_id
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
                       **errors(401, 404, 410, 413, 422, 503)})
async def get_variable(request: Request, name: str = _NAME, encoding: Literal["json", "base64", "binary"] = "json",
                       session=Depends(auth.session)):
    """A variable's value and gradient."""
    check_name(name, "name", dotted=True)
    header = {"op": "get", "name": name}
    if encoding == "json":   # the worker refuses past it before sending (a 2^27-element tensor stays there)
        header["json_max_elements"] = request.app.state.settings.json_max_elements
    reply, out = await call(request, session, header)
    grad = reply["grad"]
    tree = {"value": answers.skeleton(reply["value"], out),
            "grad": answers.skeleton(grad, out) if grad is not None else None}
    return request.app.state.answer_budget.response(tree, encoding)


class BinaryTensorRoute(APIRoute):
    """PUT /variables/{name}, which also takes a binary request: a JSON tensor object naming its
    ``binary_data_size`` as a header of ``Inference-Header-Content-Length`` bytes, then those bytes."""

    def get_route_handler(self):
        generic = super().get_route_handler()
        endpoint = self.endpoint

        async def handler(request: Request):
            header_length = request.headers.get(answers.BINARY_HEADER)
            session_id = request.path_params.get("session_id", "")
            if header_length is None and len(session_id) <= 64 and _is_json(request.headers.get("content-type") or "") \
                    and int(request.headers.get("content-length") or 0) > PROCESS_BYTES:
                # a large JSON tensor: parsed in the parser process (a thread would hold the GIL throughout)
                session = await auth.session(request, session_id)
                tensor = await request.app.state.body_parser.parse(
                    await request.body(), request.app.state.settings.limits.tensor_elements, "tensor", key=session.id)
                return await endpoint(request, request.path_params.get("name", ""), tensor, session)
            if header_length is None or len(session_id) > 64:
                return await generic(request)
            session = await auth.session(request, session_id)
            head, data = await read_binary_request(request, header_length)
            size = binary_size(head)
            if size != len(data):
                raise ApiError(422, "ValidationError", f"body: the header's binary_data_size ({size}) must be the "
                                                       f"{len(data)} bytes after it", field="body")
            return await endpoint(request, request.path_params.get("name", ""), BinaryTensor(head, data), session)

        return handler


async def put_variable(request: Request, name: str = _NAME, tensor: TensorIn = Body(...),
                       session=Depends(auth.session)):
    """Binds a tensor to a variable (a dotted path restores into an existing module's parameter).

    The tensor may also come as a binary request: its object, naming its `binary_data_size`, as a JSON
    header of `Inference-Header-Content-Length` bytes, then its raw little-endian bytes.
    """
    check_name(name, "name", dotted=True)
    if isinstance(tensor, (bytes, bytearray)):  # the body came with another Content-Type than JSON's
        raise ApiError(422, "ValidationError", f"body: {not_json_message(request, 'a JSON tensor')}", field="body")
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


router.add_api_route("/variables/{name}", put_variable, methods=["PUT"], status_code=204, response_class=Response,
                     responses=errors(401, 404, 410, 413, 422), route_class_override=BinaryTensorRoute)


@router.get("/graph", response_model=Graph, responses=errors(401, 404, 410, 422))
async def get_graph(request: Request, of: str = Query(max_length=MAX_NAME_LENGTH, pattern=PATH_PATTERN, description="the variable whose graph to show"),
                    session=Depends(auth.session)):
    """The graph that produced a variable (SPEC section 5)."""
    check_name(of, "of", dotted=True)
    caps = {"graph_max_nodes": request.app.state.settings.graph_answer_max_nodes}
    reply, out = await call(request, session, {"op": "graph", "of": of, "answer": caps})
    graph = answers.reply_graph(reply["graph"], out)
    if type(graph) is RawJSON:  # the worker's JSON text, passed through unparsed (charged while it is sent)
        return request.app.state.answer_budget.raw(graph.data)
    return await json_response(BigPayload(graph))


@router.get("/nodes/{node_id}", response_model=NodeTensors,
            responses={200: {"content": {answers.BINARY_MEDIA_TYPE: {"schema": {"type": "string", "format": "binary"}}},
                             "description": "the node's value and gradient; with encoding=binary, a JSON header "
                                            "of Inference-Header-Content-Length bytes and then the tensors' bytes"},
                       **errors(401, 404, 410, 413, 422, 503)})
async def get_node(request: Request, node_id: int = Path(ge=0, le=2**53),
                   run: str = Query(min_length=1, max_length=128, description="the run's id (its events' \"run\")"),
                   encoding: Literal["json", "base64", "binary"] = "json", session=Depends(auth.session)):
    """The full value and gradient a graph node held in the session's last traced run (SPEC section 5:
    summaries travel with the graph, the tensors behind them come from here). A traced run keeps its
    nodes' tensors up to a byte budget; a node past it answers 404."""
    reply, out = await call(request, session, {"op": "node", "run": _worker_run_id(session, run), "node": node_id})
    tree = {"run": run, "node": node_id,
            "value": answers.skeleton(reply["value"], out) if reply["value"] is not None else None,
            "grad": answers.skeleton(reply["grad"], out) if reply["grad"] is not None else None}
    cap = request.app.state.settings.json_max_elements
    if encoding == "json" and answers.json_elements(tree) > cap:
        raise ApiError(413, "LimitExceeded", f"limit exceeded: json_max_elements: a JSON answer holds at most {cap} "
                                             f"numbers and node {node_id} has more; ask for encoding=base64 or binary",
                       limit="json_max_elements")
    return request.app.state.answer_budget.response(tree, encoding)
