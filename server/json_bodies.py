"""JSON bodies, kept off the event loop when they are big: decoding or encoding a
64 MB tensor takes long enough to stall every other client."""
from fastapi.responses import JSONResponse as _JSONResponse
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from .json_codec import dumps

# Tensor bytes past which conversion and serialization move to a thread.
OFFLOAD_BYTES = 256 * 1024


class BigPayload(dict):
    """A payload big enough that serializing it belongs off the event loop (and, sent to several
    connections, serialized once: ``wire`` keeps the text; ``cost``: see events.EventQueue)."""
    __slots__ = ("wire", "cost", "__weakref__")


def _dumps_text(obj):
    return dumps(obj).decode()


async def dumps_off_loop(obj, text=False):
    """``obj`` as JSON bytes (``text``: str), serialized in a thread when it is a BigPayload."""
    fn = _dumps_text if text else dumps
    return await run_in_threadpool(fn, obj) if type(obj) is BigPayload else fn(obj)


async def call_off_loop(nbytes, fn, *args):
    """``fn(*args)``, in a thread when it handles more than OFFLOAD_BYTES."""
    return await run_in_threadpool(fn, *args) if nbytes > OFFLOAD_BYTES else fn(*args)


async def json_response(payload, status_code=200):
    return Response(await dumps_off_loop(payload), status_code=status_code, media_type="application/json")


class JSONResponse(_JSONResponse):
    """Starlette's JSONResponse written by ``json_codec``: the same JSON, faster, and a program's lone
    surrogate in an error message is escaped instead of failing the answer."""

    def render(self, content):
        return dumps(content)
