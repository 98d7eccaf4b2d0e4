"""JSON bodies, kept off the event loop when they are big: decoding or encoding a
64 MB tensor takes long enough to stall every other client."""
import json

from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

# Tensor bytes past which conversion and serialization move to a thread.
OFFLOAD_BYTES = 256 * 1024


class BigPayload(dict):
    """A payload big enough that serializing it belongs off the event loop."""


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


async def dumps_off_loop(obj):
    return await run_in_threadpool(dumps, obj) if type(obj) is BigPayload else dumps(obj)


async def call_off_loop(nbytes, fn, *args):
    """``fn(*args)``, in a thread when it handles more than OFFLOAD_BYTES."""
    return await run_in_threadpool(fn, *args) if nbytes > OFFLOAD_BYTES else fn(*args)


async def json_response(payload, status_code=200):
    return Response(await dumps_off_loop(payload), status_code=status_code, media_type="application/json")
