"""GET/PUT /v1/sessions/{id}/checkpoint: the session's tensors and parameters as safetensors."""
from fastapi import APIRouter, Depends, Request, Response
from safetensors import SafetensorError
from safetensors.numpy import load as load_safetensors
from safetensors.numpy import save as save_safetensors
from starlette.concurrency import run_in_threadpool

from .. import auth
from ..errors import ApiError
from ..models import errors
from ..wire_frames import DTYPES, pack_array, unpack_array
from ..worker_calls import call

router = APIRouter(prefix="/v1/sessions/{session_id}", tags=["checkpoints"])

_SAFETENSORS = {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}


@router.get("/checkpoint", response_class=Response, responses={200: {"content": _SAFETENSORS}, **errors(401, 404, 410, 422)})
async def save_checkpoint(request: Request, session=Depends(auth.session)):
    """Every tensor and module parameter of the session, in safetensors format."""
    reply, out = await call(request, session, {"op": "save"})
    arrays = {name: unpack_array(entry, out) for name, entry in reply["tensors"].items()}
    data = await run_in_threadpool(save_safetensors, arrays, {"format": "gradserve"})
    return Response(data, media_type="application/octet-stream",
                    headers={"Content-Disposition": f'attachment; filename="{session.id}.safetensors"'})


@router.put("/checkpoint", status_code=204, response_class=Response,
            openapi_extra={"requestBody": {"required": True, "content": _SAFETENSORS}},
            responses=errors(401, 404, 410, 413, 422))
async def restore_checkpoint(request: Request, session=Depends(auth.session)):
    """Restores tensors and parameters from safetensors bytes (into existing modules where names match)."""
    data = await request.body()
    try:
        arrays = await run_in_threadpool(load_safetensors, data)
    except (SafetensorError, ValueError, TypeError, OverflowError) as e:
        raise ApiError(422, "ValidationError", f"not a safetensors file: {e}") from None
    limits = request.app.state.settings.limits
    buffers, entries = [], {}
    for name, array in arrays.items():
        if array.dtype.name not in DTYPES:
            raise ApiError(422, "ValidationError", f"tensor {name!r} has dtype {array.dtype.name}, which the engine "
                                                   "does not support", field=name)
        if array.size > limits.tensor_elements:
            raise ApiError(422, "LimitExceeded", f"limit exceeded: tensor_elements: {name!r} has {array.size} "
                                                 "elements", limit="tensor_elements", field=name)
        entries[name] = pack_array(array, buffers)
    await call(request, session, {"op": "load", "tensors": entries, "session_bytes": limits.session_bytes}, buffers)
    return Response(status_code=204)
