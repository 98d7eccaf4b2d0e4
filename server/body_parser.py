"""Large JSON bodies, parsed in a process of their own (attack report S7).

A thread does not keep the event loop free here: ``json.loads`` and ``np.array`` of a nested list
are C loops that hold the GIL from start to end, so a 30-60 MB body parsed "off the loop" still
stalled every other client (``/healthz`` up to 7 s). A body past ``PROCESS_BYTES`` goes to a parser
process instead, which reads the JSON and turns each input tensor into its raw bytes
(``tensor_wire.decode_tensor``, the same validation, the same errors), and sends back the body with
each tensor as a ``Decoded`` (bytes, dtype, shape), its bytes read straight into the API process's buffer.
The parser only parses: it runs no program code, and what it sends back is plain data.
"""
import asyncio
import concurrent.futures
import heapq
import json
import logging
import multiprocessing
import os
import socket

from .errors import ApiError
from .tensor_wire import Decoded, TensorFormatError, decode_tensor

log = logging.getLogger("gradserve.body_parser")

PROCESS_BYTES = 4 << 20   # bodies past this are parsed in the parser process
# Values a parsed body may hold outside its decoded tensors (each list, object, string and number counts
# one). The API process unpickles what the parser sends back: 60 MB of ``[[],[],...]`` outside a
# tensor would come back as 20 million lists, 1.6 GB in the API process.
MAX_VALUES = 100_000
# Inputs of one run: each is decoded on its own (about 50 us each), so 5 million tiny ones in a 64 MB body
# held the one parser process for minutes before body_values refused them, and under PROCESS_BYTES
# (no body_values check) 150,000 took 8 s of the API process's CPU each (hostile pass 11). Counted first.
MAX_INPUTS = MAX_VALUES // 2


def too_many_inputs(inputs):
    """The (where, message, limit) refusing a run's ``inputs`` mapping past MAX_INPUTS, else None."""
    if len(inputs) > MAX_INPUTS:
        return ("inputs", f"limit exceeded: body_values: a run takes at most {MAX_INPUTS} inputs "
                          f"(this one has {len(inputs)})", "body_values")
    return None


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
                refused = too_many_inputs(inputs)
                if refused is not None:
                    return None, refused
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


def _decoded_slots(body, tensor_fields):
    """(container, key) of each Decoded in a parsed body; for a bare tensor body, (None, None)."""
    if tensor_fields == "tensor":
        return [(None, None)] if type(body) is Decoded else []
    inputs = body.get("inputs") if isinstance(body, dict) else None
    if not isinstance(inputs, dict):
        return []
    return [(inputs, name) for name, obj in inputs.items() if type(obj) is Decoded]


def _serve(conn):
    """The parser process: a body at a time, until the pipe closes. Each answer is a small pickled message;
    a decoded tensor's bytes follow it raw, so the API process reads them straight into their buffer."""
    out = socket.socket(fileno=os.dup(conn.fileno()))
    while True:
        try:
            max_elements, tensor_fields = conn.recv()
            raw = conn.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            body, error = parse(raw, max_elements, tensor_fields)
        except BadJson:
            conn.send(("bad_json",))
            continue
        except Exception as e:  # a bug of ours: the API logs it and answers 500
            conn.send(("failed", repr(e)))
            continue
        del raw
        if error is not None:
            conn.send(("error", error))
            continue
        raws = []
        for container, key in _decoded_slots(body, tensor_fields):
            obj = body if container is None else container[key]
            raws.append(obj.raw)
            obj.raw = len(raws) - 1
        conn.send(("ok", body, [len(r) for r in raws]))
        for r in raws:
            out.sendall(r)


class ParserDied(Exception):
    pass


class FairTurns:
    """The parser's turns, one body at a time, in start-time fair queuing by key (a session) and size (hostile
    pass 15, F4: first come first served, three clients posting 36 MB bodies in a loop made another session's
    4.8 MB run wait for each of theirs, 20-30 s here). A body's start tag is the later of the virtual time
    (the start tag of the body being parsed) and the end of its key's previous body (its start tag plus its
    bytes); the smallest goes next. A session that has not been parsing goes next, behind only the body in
    the parser; one that sends many, or large ones, takes turns in proportion to its bytes."""

    def __init__(self):
        self.waiting = []   # heap of (start tag, arrival, future)
        self.ends = {}      # key -> where its last body's share ends
        self.now = 0
        self.arrivals = 0
        self.busy = False

    async def acquire(self, key, nbytes):
        start = max(self.now, self.ends.get(key, 0))
        self.ends[key] = start + nbytes
        if not self.busy:
            self.busy, self.now = True, start
            return
        turn = asyncio.get_running_loop().create_future()
        self.arrivals += 1
        heapq.heappush(self.waiting, (start, self.arrivals, turn))
        try:
            await turn
        except asyncio.CancelledError:   # its request went away: its body is dropped unparsed
            if turn.done() and not turn.cancelled():   # given the turn as it was cancelled: pass it on
                self.release()
            raise

    def release(self):
        while self.waiting:
            start, _, turn = heapq.heappop(self.waiting)
            if not turn.done():
                self.now = start
                turn.set_result(None)
                return
        self.busy = False
        self.ends = {k: end for k, end in self.ends.items() if end > self.now}   # the others start at now


class BodyParser:
    """One parser process, started when the first large body comes (spawned: nothing of the API's state),
    fed one body at a time by a thread of its own.

    Its answers come back without a copy the size of the tensors: ``multiprocessing``'s queues read a
    message whole into a buffer and unpickle a second copy from it (a 60 MB body of zeros, 240 MB of int64,
    briefly held 480 MB of the API process); here each tensor's bytes are read straight into the buffer
    the run uses, and the body goes out from the API's own bytes (a WebSocket text is encoded once)."""

    def __init__(self):
        self.process = None
        self.conn = None
        self.sock = None
        self.thread = None
        self.turns = FairTurns()

    async def parse(self, raw, max_elements, tensor_fields, key=None):
        """The parsed body (tensors decoded), off this process, in ``key``'s turn (its session: FairTurns);
        ApiError 400/422 as the thread path answers."""
        if self.thread is None:
            self.thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="body-parser")
        loop = asyncio.get_running_loop()
        await self.turns.acquire(key, len(raw))
        try:
            reply = await loop.run_in_executor(self.thread, self._call, raw, max_elements, tensor_fields)
        except ParserDied:
            log.warning("the body parser process died; starting another")
            raise ApiError(413, "LimitExceeded", "the request body took more memory to parse than the server "
                                                 "allows; send large tensors as base64 or binary",
                           limit="body_bytes") from None
        finally:   # (its request gone while the parser has it: the next turn's body queues behind it there)
            self.turns.release()
        kind = reply[0]
        if kind == "ok":
            return reply[1]
        if kind == "bad_json":
            raise ApiError(400, "BadRequest", "the request body is not JSON (or nests too deeply)")
        if kind == "error":
            where, message, limit = reply[1]
            raise ApiError(422, "LimitExceeded" if limit else "ValidationError", message, field=where,
                           **({"limit": limit} if limit else {}))
        raise RuntimeError(f"the body parser failed: {reply[1]}")

    def _call(self, raw, max_elements, tensor_fields):
        """One body through the parser process (in self.thread: one at a time)."""
        if self.process is None or not self.process.is_alive():
            self._start()
        conn = self.conn
        try:
            conn.send((max_elements, tensor_fields))
            conn.send_bytes(raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw)
            reply = conn.recv()
            if reply[0] == "ok":
                body = reply[1]
                buffers = [self._read(n) for n in reply[2]]
                for container, key in _decoded_slots(body, tensor_fields):
                    obj = body if container is None else container[key]
                    obj.raw = buffers[obj.raw]
            return reply
        except (EOFError, OSError):
            self._end()
            raise ParserDied() from None

    def _read(self, n):
        buf = bytearray(n)
        view = memoryview(buf)
        got = 0
        while got < n:
            k = self.sock.recv_into(view[got:])
            if k == 0:
                raise EOFError()
            got += k
        return buf

    def _start(self):
        self._end()
        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe()
        process = context.Process(target=_serve, args=(child,), daemon=True, name="gradserve-body-parser")
        process.start()
        child.close()
        self.process, self.conn = process, parent
        self.sock = socket.socket(fileno=os.dup(parent.fileno()))

    def _end(self):
        if self.process is not None:
            self.process.kill()
            self.process.join(5)
            self.process = None
        for closable in (self.sock, self.conn):
            if closable is not None:
                closable.close()
        self.sock = self.conn = None

    def stop(self):
        if self.thread is not None:
            self.thread.shutdown(wait=False, cancel_futures=True)
            self.thread = None
        self._end()
