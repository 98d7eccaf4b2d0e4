"""Large JSON bodies, parsed in a process of their own (attack report S7).

A thread does not keep the event loop free here: ``json.loads`` and ``np.array`` of a nested list
are C loops that hold the GIL from start to end, so a 30-60 MB body parsed "off the loop" still
stalled every other client (``/healthz`` up to 7 s). A body past ``PROCESS_BYTES`` goes to a parser
process instead, which reads the JSON and turns each input tensor into its raw bytes
(``tensor_wire.decode_tensor``, the same validation, the same errors), and sends back the body with
each tensor as a ``Decoded`` (bytes, dtype, shape): copying that back costs the API process a memcpy.
The parser only parses: it runs no program code, and what it sends back is plain data.
"""
import asyncio
import concurrent.futures
import json
import logging
import multiprocessing

from .errors import ApiError
from .tensor_wire import Decoded, TensorFormatError, decode_tensor

log = logging.getLogger("gradserve.body_parser")

PROCESS_BYTES = 4 << 20   # bodies past this are parsed in the parser process
# Values a parsed body may hold outside its decoded tensors (each list, object, string and number counts
# one). The API process unpickles what the parser sends back: 60 MB of ``[[],[],...]`` outside a
# tensor would come back as 20 million lists, 1.6 GB in the API process.
MAX_VALUES = 100_000


class BadJson(Exception):
    pass


def _decoded(array, requires_grad):
    array = array.astype(array.dtype.newbyteorder("<"), copy=False)
    return Decoded(array.tobytes(), array.dtype.str, list(array.shape), requires_grad)


def parse(raw, max_elements, tensor_fields):
    """(body, None) with the tensors of ``tensor_fields`` decoded, or (None, (where, message, limit)) for a
    tensor that cannot be read; BadJson for a body that is not JSON. In the parser process."""
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise BadJson() from None
    try:
        if tensor_fields == "inputs":   # a run: {"inputs": {name: tensor}}
            inputs = body.get("inputs") if isinstance(body, dict) else None
            if isinstance(inputs, dict):
                for name, obj in inputs.items():
                    inputs[name] = _decoded(*decode_tensor(obj, f"inputs.{name[:80]}", max_elements))
        elif tensor_fields == "tensor":  # PUT /variables: the body is the tensor
            body = _decoded(*decode_tensor(body, "body", max_elements))
    except TensorFormatError as e:
        return None, (e.where, str(e), e.limit)
    if _values_past(body, MAX_VALUES):
        return None, ("body", f"limit exceeded: body_values: the body holds more than {MAX_VALUES} values outside "
                              "its input tensors", "body_values")
    return body, None


def _values_past(body, cap):
    """Whether ``body`` holds more than ``cap`` values (a key counts one), its decoded tensors one each."""
    count = 1
    stack = [body]
    while stack:
        obj = stack.pop()
        if type(obj) is dict:
            count += 2 * len(obj)
            items = obj.values()
        elif type(obj) is list:
            count += len(obj)
            items = obj
        else:
            continue
        if count > cap:
            return True
        stack.extend(v for v in items if type(v) is dict or type(v) is list)
    return False


class BodyParser:
    """One parser process, started when the first large body comes (spawned: nothing of the API's state)."""

    def __init__(self):
        self.pool = None

    def _pool(self):
        if self.pool is None:
            self.pool = concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        return self.pool

    async def parse(self, raw, max_elements, tensor_fields):
        """The parsed body (tensors decoded), off this process; ApiError 400/422 as the thread path answers."""
        loop = asyncio.get_running_loop()
        try:
            if not isinstance(raw, (bytes, str)):  # (a str, a WebSocket message, is sent as it is: no copy here)
                raw = bytes(raw)
            body, error = await loop.run_in_executor(self._pool(), parse, raw, max_elements, tensor_fields)
        except BadJson:
            raise ApiError(400, "BadRequest", "the request body is not JSON (or nests too deeply)") from None
        except concurrent.futures.process.BrokenProcessPool:
            log.warning("the body parser process died; starting another")
            self.pool = None
            raise ApiError(413, "LimitExceeded", "the request body took more memory to parse than the server "
                                                 "allows; send large tensors as base64 or binary",
                           limit="body_bytes") from None
        if error is not None:
            where, message, limit = error
            raise ApiError(422, "LimitExceeded" if limit else "ValidationError", message, field=where,
                           **({"limit": limit} if limit else {}))
        return body

    def stop(self):
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None
