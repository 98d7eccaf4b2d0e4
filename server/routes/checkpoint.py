"""GET/PUT /v1/sessions/{id}/checkpoint: the session's tensors and parameters as safetensors."""
import json
import math
import struct

import numpy as np
from fastapi import APIRouter, Depends, Request, Response
from starlette.concurrency import run_in_threadpool

from .. import auth
from ..errors import ApiError
from ..models import errors
from ..names import check_name
from ..wire_frames import pack_array, unpack_array
from ..worker_calls import call

router = APIRouter(prefix="/v1/sessions/{session_id}", tags=["checkpoints"])

_SAFETENSORS = {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}
# safetensors dtype names the engine holds (BF16, the F8 kinds and unsigned 16-64 bits it does not)
_DTYPES = {"F16": "<f2", "F32": "<f4", "F64": "<f8", "U8": "u1", "I8": "i1", "I16": "<i2", "I32": "<i4",
           "I64": "<i8", "BOOL": "?"}
_MAX_HEADER_BYTES = 100 << 20
_HEADER_BYTES_PER_TENSOR = 1024  # a name of at most 256 characters, dtype, shape and offsets, generously


def _too_many(why, max_tensors):
    return ApiError(413, "LimitExceeded", f"checkpoint: limit exceeded: max_tensors: a checkpoint holds at most "
                                          f"{max_tensors} tensors; {why}", limit="max_tensors", field="checkpoint")


@router.get("/checkpoint", response_class=Response, responses={200: {"content": _SAFETENSORS}, **errors(401, 404, 410, 413, 422)})
async def save_checkpoint(request: Request, session=Depends(auth.session)):
    """Every tensor and module parameter of the session, in safetensors format."""
    settings = request.app.state.settings
    reply, out = await call(request, session, {"op": "save", "max_tensors": settings.max_tensors,
                                               "max_bytes": settings.answer_max_bytes})
    pieces = await run_in_threadpool(_save, reply["tensors"], out)
    out = None
    # charged to answer_budget_bytes while it is sent: a client that stalled on a plain Response held
    # the whole checkpoint (768 MB) in the API process, even after its session was deleted (pass 9, F7).
    # The file is the header and the received buffers themselves, sent in turn: building it as one bytes
    # object first held three times its size (a 1 GiB checkpoint of a session holding 4 bytes of expanded
    # views: 3.3 GB of the API process; hostile pass 13, F11)
    return request.app.state.answer_budget.raw(
        pieces, media_type="application/octet-stream",
        headers={"Content-Disposition": f'attachment; filename="{session.id}.safetensors"'})


@router.put("/checkpoint", status_code=204, response_class=Response,
            openapi_extra={"requestBody": {"required": True, "content": _SAFETENSORS}},
            responses=errors(401, 404, 410, 413, 422))
async def restore_checkpoint(request: Request, session=Depends(auth.session)):
    """Restores tensors and parameters from safetensors bytes (into existing modules where names match)."""
    data = await request.body()
    settings = request.app.state.settings
    limits = settings.limits
    entries, buffers = await run_in_threadpool(_read, data, limits.tensor_elements, settings.max_tensors)
    await call(request, session, {"op": "load", "tensors": entries, "session_bytes": limits.session_bytes}, buffers)
    return Response(status_code=204)


_CODES = {np.dtype(v).str if np.dtype(v).itemsize > 1 else np.dtype(v).char: k for k, v in _DTYPES.items()}


def _save(tensors, out):
    """A safetensors file of the worker's arrays as pieces (its header, then each array's received bytes,
    none copied), in the layout safetensors writes: tensors by alignment then name, the header padded to 8."""
    arrays = {name: unpack_array(entry, out) for name, entry in tensors.items()}
    order = sorted(arrays, key=lambda n: (-arrays[n].dtype.itemsize, n))
    header, offset, pieces = {"__metadata__": {"format": "gradserve"}}, 0, []
    for name in order:
        a = arrays[name]
        code = _CODES[a.dtype.str if a.dtype.itemsize > 1 else a.dtype.char]
        header[name] = {"dtype": code, "shape": list(a.shape), "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
        if a.nbytes:
            pieces.append(memoryview(a.reshape(-1)).cast("B"))
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-(8 + len(text)) % 8)
    return [struct.pack("<Q", len(text)) + text] + pieces


def _read(data, max_elements, max_tensors):
    """(frame entries, buffers) of a checkpoint's tensors: all of it in a thread, none on the event loop."""
    buffers, entries = [], {}
    for name, array in read_safetensors(data, max_elements, max_tensors).items():
        entries[name] = pack_array(array, buffers)
    return entries, buffers


def _bad(message, field="checkpoint"):
    return ApiError(422, "ValidationError", f"{field}: {message}", field=field)


def read_safetensors(data, max_elements, max_tensors=1 << 14):
    """{name: array} from safetensors bytes, every part checked before any array is made: the header's
    size and JSON, each name (as a program could bind it), dtype, shape (no dimension past the element
    limit) and byte range (inside the file, matching the shape, not overlapping another tensor's)."""
    if len(data) < 8:
        raise _bad("not a safetensors file: shorter than its 8-byte header length")
    (head_len,) = struct.unpack_from("<Q", data)
    if head_len > len(data) - 8:
        raise _bad(f"not a safetensors file: its header length ({head_len} bytes) runs past the file")
    header_cap = min(_MAX_HEADER_BYTES, max_tensors * _HEADER_BYTES_PER_TENSOR)
    if head_len > header_cap:  # (checked before parsing: JSON parsing holds the GIL, and so every other client)
        raise _too_many(f"its header is {head_len} bytes; {max_tensors} tensors take at most {header_cap}",
                        max_tensors)
    try:
        header = json.loads(bytes(data[8:8 + head_len]))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise _bad("not a safetensors file: its header is not JSON") from None
    if not isinstance(header, dict):
        raise _bad("not a safetensors file: its header is not a JSON object")
    count = len(header) - ("__metadata__" in header)
    if count > max_tensors:
        raise _too_many(f"it holds {count} tensors", max_tensors)
    body = memoryview(data)[8 + head_len:]
    ranges, arrays = [], {}
    for name, entry in header.items():
        if name == "__metadata__":
            if not isinstance(entry, dict) or not all(isinstance(v, str) for v in entry.values()):
                raise _bad("'__metadata__' must map names to strings", "checkpoint.__metadata__")
            continue
        field = f"checkpoint.{name[:80]}"
        check_name(name, field, dotted=True, module_private=True)
        if not isinstance(entry, dict):
            raise _bad("each tensor's entry must be an object with dtype, shape and data_offsets", field)
        dtype = entry.get("dtype")
        if not isinstance(dtype, str) or dtype not in _DTYPES:  # (a list or object is no name: unhashable)
            shown = repr(dtype[:20]) if isinstance(dtype, str) else f"of type {type(dtype).__name__}"
            raise _bad(f"dtype {shown} is not supported (a string: the engine holds {', '.join(_DTYPES)})",
                       field + ".dtype")
        shape = entry.get("shape")
        if not isinstance(shape, list) or len(shape) > 32 or not all(type(s) is int and s >= 0 for s in shape):
            raise _bad("'shape' must be a list of at most 32 non-negative integers", field + ".shape")
        if any(s > max_elements for s in shape) or math.prod(shape) > max_elements:
            raise ApiError(422, "LimitExceeded", f"{field}.shape: limit exceeded: tensor_elements: shape {shape} "
                                                 f"(at most {max_elements} elements)",
                           limit="tensor_elements", field=field + ".shape")
        offsets = entry.get("data_offsets")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(type(o) is int for o in offsets)
                and 0 <= offsets[0] <= offsets[1] <= len(body)):
            raise _bad(f"'data_offsets' must be [start, end] within the {len(body)} data bytes",
                       field + ".data_offsets")
        dt = np.dtype(_DTYPES[dtype])
        start, end = offsets
        if end - start != math.prod(shape) * dt.itemsize:
            raise _bad(f"shape {shape} of {dtype} needs {math.prod(shape) * dt.itemsize} bytes, "
                       f"'data_offsets' give {end - start}", field + ".data_offsets")
        raw = body[start:end]
        if dtype == "BOOL" and len(raw) and np.frombuffer(raw, dtype=np.uint8).max() > 1:
            raise _bad("a BOOL tensor's bytes must each be 0 or 1", field)
        ranges.append((start, end, field))
        arrays[name] = np.frombuffer(raw, dtype=dt).reshape(shape)
    ranges.sort()
    for (s0, e0, _), (s1, e1, f1) in zip(ranges, ranges[1:]):
        if s1 < e0:
            raise _bad("its bytes overlap another tensor's", f1 + ".data_offsets")
    return arrays
