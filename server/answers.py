"""Answers that carry tensors, written so that no answer costs the API process more than a small,
bounded multiple of its own size (SPEC section 3).

A worker's reply holds each tensor as raw bytes. A small answer is built as one JSON document (the
fast path). A large one is streamed: the JSON text of a tensor is written a block of rows at a time
(base64 a block of bytes at a time), so what the process holds beyond the reply's bytes is one
block, not a Python list per number. ``"encoding": "binary"`` answers Triton's binary tensor
extension: a JSON header whose length is in ``Inference-Header-Content-Length``, each tensor object
naming its byte count as ``"binary_data_size"``, then the raw little-endian bytes of each tensor in
the order the header lists them, sent straight from the reply's buffers.
"""
import asyncio
import base64
import threading

from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from .json_bodies import OFFLOAD_BYTES, BigPayload
from .json_codec import RawJSON, dumps
from .tensor_wire import DTYPE_NAMES, encode_tensor, tensor_data
from .wire_frames import in_charged_frame, is_array_entry, unpack_array

BINARY_HEADER = "Inference-Header-Content-Length"
BINARY_MEDIA_TYPE = "application/octet-stream"
# Numbers per JSON block, bytes per base64 block (a multiple of 3: blocks join without padding).
JSON_BLOCK = 1 << 16
B64_BLOCK = 3 << 18


class _Tensor:
    """A tensor of the answer, still raw bytes: written when the answer is."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


def skeleton(entry, buffers):
    """A reply value (array entry, {"num"}, {"list"}) with its tensors as _Tensor markers."""
    if is_array_entry(entry):
        return _Tensor(unpack_array(entry, buffers))
    if "num" in entry:
        return entry["num"]
    return [skeleton(v, buffers) for v in entry["list"]]


def reply_graph(graph, buffers):
    """A reply's graph: the worker sends its JSON text as a buffer (``{"json_buf": i}``), kept as text."""
    if type(graph) is dict and "json_buf" in graph:   # (a view of the reply's frame: charged with it, not copied)
        return RawJSON(buffers[graph["json_buf"]])
    return graph


def run_skeleton(reply, buffers):
    tree = {"values": {k: skeleton(v, buffers) for k, v in reply["values"].items()},
            "grads": {k: skeleton(v, buffers) for k, v in reply["grads"].items()},
            "graph": reply_graph(reply.get("graph"), buffers), "stdout": reply.get("stdout", ""),
            "elapsed_ms": reply.get("elapsed_ms")}
    omitted = reply.get("omitted")
    if type(omitted) is dict:   # values left out of the answer ({"limit", "message"}), the worker says which
        tree["omitted"] = {"limit": str(omitted.get("limit")), "message": str(omitted.get("message"))}
    return tree


def _arrays(tree):
    """The arrays of ``tree``'s tensors (in no particular order)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if type(node) is _Tensor:
            yield node.array
        elif type(node) is dict:
            stack.extend(node.values())
        elif type(node) is list:
            stack.extend(node)


def json_elements(tree):
    """Numbers the tensors of a JSON answer of ``tree`` would spell."""
    return sum(a.size for a in _arrays(tree))


def tensor_bytes(tree):
    return sum(a.nbytes for a in _arrays(tree))


def graph_bytes(tree):
    """The length of the graph JSON text a run's answer carries (a worker's RawJSON, up to ~52 MB)."""
    graph = tree.get("graph") if type(tree) is dict else None
    return len(graph.data) if type(graph) is RawJSON else 0


def answer_bytes(tree):
    """What an answer of ``tree`` holds besides its JSON punctuation: tensor bytes, graph text, stdout."""
    stdout = tree.get("stdout") if type(tree) is dict else None
    return tensor_bytes(tree) + graph_bytes(tree) + (len(stdout) if type(stdout) is str else 0)


def charged_bytes(tree):
    """The bytes of ``tree``'s tensors and graph text that sit in a frame the budget charged on arrival
    (``wire_frames.ChargedFrame``, charged until the answer lets go of them): not to charge again."""
    graph = tree.get("graph") if type(tree) is dict else None
    charged = graph_bytes(tree) if type(graph) is RawJSON and in_charged_frame(graph.data) else 0
    return charged + sum(a.nbytes for a in _arrays(tree) if in_charged_frame(a))


def held_bytes(tree, encoding):
    """About what ``payload(tree, encoding)`` holds in the API process: a Python number and its list slot
    per number of JSON, the base64 text otherwise, and a graph's JSON text (what a WebSocket queue
    counts, events.EventQueue)."""
    n = 32 * json_elements(tree) if encoding == "json" else tensor_bytes(tree) * 4 // 3
    return n + graph_bytes(tree)


# ------------------------------------------------------------ one document (small answers, events)
def _header(array):
    return {"shape": list(array.shape), "dtype": DTYPE_NAMES.get(array.dtype) or array.dtype.name}


def _contiguous(array):
    if array.dtype.byteorder == ">" or not array.flags.c_contiguous:
        array = array.astype(array.dtype.newbyteorder("<"), order="C")
    return array


def materialize(tree, encoding):
    """``tree`` as plain JSON values (tensors as {"shape", "dtype", "data"|"b64"})."""
    t = type(tree)
    if t is _Tensor:
        return encode_tensor(tree.array, encoding)
    if t is dict:
        return {k: materialize(v, encoding) for k, v in tree.items()}
    if t is list:
        return [materialize(v, encoding) for v in tree]
    return tree


def payload(tree, encoding):
    """The answer as one JSON-ready dict (a BigPayload when serializing it belongs off the loop);
    a binary request's answer becomes base64 here (WebSocket events are JSON text)."""
    kind = BigPayload if tensor_bytes(tree) > OFFLOAD_BYTES else dict
    return kind(materialize(tree, "json" if encoding == "json" else "base64"))


# ------------------------------------------------------------ streamed JSON
def _nested_blocks(array):
    """The JSON text of ``array``'s nested list, in pieces of about JSON_BLOCK numbers."""
    if array.ndim == 0 or array.size <= JSON_BLOCK:
        yield dumps(tensor_data(array))
        return
    rows = array.shape[0]
    row_size = array.size // rows
    yield b"["
    if row_size > JSON_BLOCK:
        for i in range(rows):
            if i:
                yield b","
            yield from _nested_blocks(array[i])
    else:
        step = max(1, JSON_BLOCK // row_size)
        for i in range(0, rows, step):
            if i:
                yield b","
            yield dumps(tensor_data(array[i:i + step]))[1:-1]
    yield b"]"


def _b64_blocks(array):
    raw = memoryview(_contiguous(array).reshape(-1)).cast("B") if array.size else b""
    for i in range(0, len(raw), B64_BLOCK):
        yield base64.b64encode(raw[i:i + B64_BLOCK])


def stream_json(tree, encoding):
    """The pieces of ``tree``'s JSON text, each tensor written a block at a time."""
    if type(tree) is _Tensor:
        head = dumps(_header(tree.array))[:-1]
        if encoding == "json":
            yield head + b',"data":'
            yield from _nested_blocks(tree.array)
        else:
            yield head + b',"b64":"'
            yield from _b64_blocks(tree.array)
            yield b'"'
        yield b"}"
    elif type(tree) is dict:
        yield b"{"
        for i, (key, value) in enumerate(tree.items()):
            yield (b"," if i else b"") + dumps(key) + b":"
            yield from stream_json(value, encoding)
        yield b"}"
    elif type(tree) is list:
        yield b"["
        for i, value in enumerate(tree):
            if i:
                yield b","
            yield from stream_json(value, encoding)
        yield b"]"
    else:
        yield dumps(tree)


def _coalesced(pieces, size=1 << 16):
    """Pieces joined into writes of about ``size`` bytes (one per small piece would be slow)."""
    batch, have = [], 0
    for piece in pieces:
        batch.append(piece)
        have += len(piece)
        if have >= size:
            yield b"".join(batch)
            batch, have = [], 0
    if batch:
        yield b"".join(batch)


# ------------------------------------------------------------ binary (Triton's extension)
def binary_parts(tree):
    """(header dict, raw buffers in header order): each tensor object carries "binary_data_size"."""
    buffers = []
    return _binary_header(tree, buffers), buffers


def _binary_header(node, buffers):
    # (A module function, not a closure calling itself: that closure is a reference cycle, and one that
    # held ``buffers`` kept a whole answer alive until the cyclic collector ran.)
    t = type(node)
    if t is _Tensor:
        array = _contiguous(node.array)
        raw = memoryview(array.reshape(-1)).cast("B") if array.size else b""
        buffers.append(raw)
        return {**_header(array), "binary_data_size": len(raw)}
    if t is dict:
        return {k: _binary_header(v, buffers) for k, v in node.items()}
    if t is list:
        return [_binary_header(v, buffers) for v in node]
    return node


def binary_response(tree, status_code=200):
    header, buffers = binary_parts(tree)
    head = dumps(header)
    total = len(head) + sum(len(b) for b in buffers)

    def pieces():
        try:
            yield head
            while buffers:  # each tensor's bytes are let go as soon as they are written
                raw = buffers.pop(0)
                for i in range(0, len(raw), 1 << 20):
                    yield bytes(raw[i:i + (1 << 20)])
                del raw
        finally:  # a client gone, or the task cancelled: nothing of the answer outlives it
            buffers.clear()

    return AnswerStream(pieces(), in_thread=False, status_code=status_code, media_type=BINARY_MEDIA_TYPE,
                        headers={BINARY_HEADER: str(len(head)), "Content-Length": str(total)})


class AnswerStream(Response):
    """An answer written a piece at a time, that lets go of everything it holds the moment it is done.

    Starlette's StreamingResponse pulls a plain iterator through ``iterate_in_threadpool``, whose
    StopIteration (re-raised as another exception) leaves tracebacks whose frames refer to the
    generator: a reference cycle that keeps the reply's buffers (the whole answer) alive until the
    cyclic garbage collector happens to run, which large byte buffers do not make it do. Each 64 MiB
    binary answer stayed in the API process that way. Here the iterator is advanced with ``next(it,
    None)`` (no exception), closed in a ``finally`` whatever happens (a client that goes away, a
    cancelled task), and dropped, so no cycle can keep an answer's bytes. ``in_thread``: each piece is
    made in a thread (JSON text, base64); binary pieces are copies of 1 MiB, made on the loop.
    """

    def __init__(self, pieces, *, in_thread, status_code=200, media_type=None, headers=None):
        self._pieces = pieces
        self._in_thread = in_thread
        self.status_code = status_code
        self.media_type = media_type
        self.background = None
        self.init_headers(headers)

    _release = None   # AnswerBudget's: called once the answer is sent or abandoned
    # the answer's tree, kept until it is sent: tensors that sit in a frame charged on arrival
    # (wire_frames.ChargedFrame) stay charged until then, not only until their last piece is made
    _keep = None

    def __del__(self):  # an answer never sent (its request failed first) gives its budget back too
        release, self._release = self._release, None
        if release is not None:
            release()

    async def __call__(self, scope, receive, send):
        pieces, self._pieces = self._pieces, None
        gone = asyncio.Event()

        async def watch():  # the body was read before the answer started: the next message is the disconnect
            while (await receive())["type"] != "http.disconnect":
                pass
            gone.set()

        watcher = asyncio.ensure_future(watch())
        try:
            await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
            while not gone.is_set():
                piece = await run_in_threadpool(next, pieces, None) if self._in_thread else next(pieces, None)
                if piece is None:
                    break
                await send({"type": "http.response.body", "body": piece, "more_body": True})
                del piece
            if not gone.is_set():
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watcher.cancel()
            pieces.close()
            del pieces
            self._keep = None
            release = getattr(self, "_release", None)
            if release is not None:
                self._release = None
                release()


def response(tree, encoding, status_code=200, release=None):
    """The HTTP answer for ``tree``: binary, one JSON document when small, else streamed JSON.
    ``release()`` runs once the answer no longer holds the tree's bytes (sent, or its client gone)."""
    try:
        if encoding == "binary":
            stream = binary_response(tree, status_code)
        elif answer_bytes(tree) <= ANSWER_FREE_BYTES:   # one document; larger ones are streamed (and charged)
            return Response(dumps(materialize(tree, encoding)), status_code=status_code,
                            media_type="application/json")
        else:
            stream = AnswerStream(_coalesced(stream_json(tree, encoding)), in_thread=True, status_code=status_code,
                                  media_type="application/json")
    except BaseException:
        if release is not None:
            release()
        raise
    else:
        stream._keep = tree
        if release is None:
            return stream
        stream._release = release
        release = None
        return stream
    finally:
        if release is not None:   # a plain Response: the tree's bytes are its body's now, and small
            release()


# Answers up to this many tensor bytes are not charged to the answer budget.
# An answer past this is charged. It was 1 MiB of tensor bytes, stdout not counted: each client that
# stalled on such an answer held ~1 MB of the API process (kernel socket buffers take the first few MB),
# uncharged, and max_connections allows ~19,000 of them (hostile pass 9, F8)
ANSWER_FREE_BYTES = 64 << 10
RETRY_AFTER_S = 1


class AnswerBudget:
    """Bytes of tensor answers the API process may hold at once while they are sent, over every request
    (hostile pass 6, F5). An answer is held until its client has read it: four clients reading 512 MiB
    binary answers slowly held 2.1 GB of the API process, and nothing bounded how many sessions could do
    that at once (the API serves everyone; its memory is not a session's). Answers over
    ANSWER_FREE_BYTES are charged before they are sent and given back when sent or abandoned; one that
    would pass ``total`` is refused at once (503, Retry-After) and its bytes let go, while the run's
    results stay in the session (GET .../variables/{name}). Charged on the event loop; given back wherever
    a frame's bytes are let go (``wire_frames.ChargedFrame``: the last reference to an answer's tree may
    go in a thread that wrote its JSON), hence the lock."""

    def __init__(self, total):
        self.total = int(total)
        self.used = 0
        self.refused = 0
        self._lock = threading.Lock()

    def response(self, tree, encoding):
        """``response(tree, encoding)`` charged to the budget; ApiError 503 when it is spent. A run's graph
        text and stdout count with its tensors (hostile pass 9, F6: unread 14 MB graph answers were never
        charged)."""
        charged = charged_bytes(tree)
        nbytes = answer_bytes(tree) - charged
        if nbytes <= ANSWER_FREE_BYTES:
            return response(tree, encoding)
        return self._charged(nbytes, lambda release: response(tree, encoding, release=release), charged)

    def raw(self, data, media_type="application/json", headers=None):
        """Bytes made elsewhere (``GET .../graph``'s JSON text, up to ~52 MB; a checkpoint, up to
        answer_max_bytes, as a list of buffers sent in turn) as an answer charged to the budget while it
        is sent, a MiB at a time."""
        parts = data if isinstance(data, list) else [data]
        nbytes = sum(memoryview(p).nbytes for p in parts)
        if nbytes <= ANSWER_FREE_BYTES:
            return Response(b"".join(parts), media_type=media_type, headers=headers)

        def pieces():
            for part in parts:
                view = memoryview(part)
                for i in range(0, len(view), 1 << 20):
                    yield bytes(view[i:i + (1 << 20)])

        def stream(release):
            answer = AnswerStream(pieces(), in_thread=False, media_type=media_type,
                                  headers={**(headers or {}), "Content-Length": str(nbytes)})
            answer._release = release
            return answer
        charged = sum(memoryview(p).nbytes for p in parts if in_charged_frame(p))
        return stream(None) if nbytes - charged <= ANSWER_FREE_BYTES else self._charged(nbytes - charged, stream, charged)

    def hold(self, nbytes, own=0):
        """Charges ``nbytes`` (a worker's frame, before it is read: ``wire_frames.FrameParser``; the rest of an
        answer whose frame holds ``own`` of what is charged); returns the callable that gives them back, or
        None when they would pass the budget (a frame is then dropped and its call answers ``refusal()``)."""
        with self._lock:
            if self.used + nbytes > self.total and self.used > own:
                self.refused += 1
                return None
            self.used += nbytes
        released = []

        def release():
            with self._lock:
                if not released:
                    released.append(True)
                    self.used -= nbytes
        return release

    def refusal(self):
        """The 503 of an answer the budget has no room for."""
        from .errors import ApiError
        return ApiError(503, "Unavailable", f"the server is sending other large answers just now "
                                           f"(answer_budget_bytes: {self.total} bytes at once); the run's "
                                           f"results stay in the session: fetch them again in {RETRY_AFTER_S} s "
                                           f"(GET /v1/sessions/{{id}}/variables/{{name}})",
                        headers={"Retry-After": str(RETRY_AFTER_S)}, limit="answer_budget_bytes")

    def _charged(self, nbytes, make, own=0):
        release = self.hold(nbytes, own)
        if release is None:
            raise self.refusal()
        return make(release)
