"""``Session`` and ``AsyncSession``: one server session, its runs, variables, checkpoints, streams
and lazy tensors. Both build the same ``protocol`` calls; one sends them now, the other awaits.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from . import protocol
from .encoding import BINARY_INPUT_BYTES, encode_input, encode_tensor, numpy_bytes
from .errors import SessionGone, SessionNotFound
from .lazy import LazyProgram, RemoteTensor, TorchNamespace
from .results import RunResult, SessionInfo, VariableInfo
from .debugging import AsyncDebugRun, Breakpoints, DebugRun, breakpoint_list
from .events import Event
from .streaming import AsyncEventStream, EventStream, _StreamState, run_message, stream_url

if TYPE_CHECKING:
    from .client import AsyncClient, Client


def encode_inputs(inputs: dict | None, encoding: str, raws: list | None = None) -> dict:
    """Each input in its wire form (wire-form dicts pass unchanged; an object form's NumPy ``data`` is
    encoded); with ``raws``, NumPy data goes as raw bytes of a binary request."""
    out = {}
    for name, value in (inputs or {}).items():
        if isinstance(value, RemoteTensor) or isinstance(value, (list, tuple)) and any(
                isinstance(v, RemoteTensor) for v in value):
            raise TypeError(f"input {name!r} is or holds a RemoteTensor: use its .name in the program")
        try:
            out[name] = encode_input(value, encoding, raws)
        except (TypeError, ValueError) as e:
            raise type(e)(f"input {name!r}: {e}") from None
    return out


def _binary_inputs(inputs: dict | None, encoding: str) -> bool:
    """Whether a run's inputs go as a binary request: asked for, or "auto" past BINARY_INPUT_BYTES."""
    return bool(inputs) and (encoding == "binary" or
                             encoding == "auto" and numpy_bytes(inputs) > BINARY_INPUT_BYTES)


class _SessionBase:
    """What both kinds of session share: identity, lazy tensors, and building stream requests."""

    def __init__(self, client, session_id: str, token: str, device: str = "cpu",
                 expires_at: str | None = None, *, is_async: bool):
        self._client = client
        self.id = session_id
        self.token = token
        self.device = device
        self.expires_at = expires_at
        self._closed = False
        self._lazy = LazyProgram(self._run_lazy, is_async=is_async)
        self.torch = TorchNamespace(self._lazy)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id} on {self.device}>"

    @property
    def viewer_url(self) -> str:
        """The address that opens this session in the server's graph viewer (its runs drawn as they go,
        pauses shown with their controls). It holds the session's token: share it as you would the token."""
        from urllib.parse import quote
        return f"{self._client.base_url}/viewer#session={quote(self.id)}&token={quote(self.token)}"

    def _run_call(self, program: str, inputs, outputs, graph: bool, encoding: str) -> protocol.Call:
        self._lazy.invalidate()  # the program may change any variable a remote tensor caches
        raws = [] if _binary_inputs(inputs, encoding) else None
        return protocol.run(self.id, self.token, program, encode_inputs(inputs, encoding, raws),
                            outputs, graph, encoding, raws)

    def _put_call(self, name: str, value: Any, requires_grad: bool, encoding: str) -> protocol.Call:
        """PUT /variables/{name}: NumPy data past BINARY_INPUT_BYTES (or asked) goes as a binary request."""
        raws = [] if _binary_inputs({name: value}, encoding) and numpy_bytes({name: value}) else None
        if raws is not None:
            wire = encode_input({"data": value, "requires_grad": requires_grad}, encoding, raws)
        else:
            wire = encode_tensor(value, encoding=encoding, requires_grad=requires_grad)
        return protocol.put_variable(self.id, self.token, name, wire, raws)

    def _lazy_call(self, body: dict) -> protocol.Call:
        return protocol.run(self.id, self.token, body["program"], body["inputs"],
                            body["outputs"], False, body["encoding"])

    def _stream_args(self, program: str | None, inputs, outputs, progress, trace: bool,
                     encoding: str):
        if program is not None:
            self._lazy.invalidate()
            # (events are JSON text: "auto" and "binary" answers come as exact base64)
            wire = "base64" if encoding in ("auto", "binary") else encoding
            message = run_message(program, encode_inputs(inputs, encoding), outputs, trace, wire)
        else:
            message = None
        client = self._client
        return (stream_url(client.base_url, self.id, self.token),
                _StreamState(message, progress), client.retry,
                client.timeout.connect or 10.0)

    def _debug_args(self, program: str, inputs, outputs, breakpoints, pause_on, trace: bool,
                    encoding: str):
        args = self._stream_args(program, inputs, outputs, False, trace, encoding)
        message = args[1].first_message
        message.update(debug=True, breakpoints=breakpoint_list(breakpoints))
        if pause_on is not None:
            message["pause_on"] = [pause_on] if isinstance(pause_on, str) else list(pause_on)
        return args

    def tensor(self, data: Any, requires_grad: bool = False, dtype: Any = None) -> RemoteTensor:
        """A lazy tensor held by this session, like ``torch.tensor(data, requires_grad=...)``.

        It is uploaded with the next run that needs it; operations on it are recorded and sent
        when a value is needed.
        """
        return self._lazy.upload(data, requires_grad=requires_grad, dtype=dtype)

    def no_grad(self):
        """Record the operations inside the block under ``torch.no_grad()``."""
        return self._lazy.no_grad()


class Session(_SessionBase):
    """A session on the server; ``with client.session() as s:`` deletes it on exit."""

    def __init__(self, client: "Client", session_id: str, token: str, device: str = "cpu",
                 expires_at: str | None = None):
        super().__init__(client, session_id, token, device, expires_at, is_async=False)

    def _run_lazy(self, body: dict) -> RunResult:
        return self._client._call(self._lazy_call(body))

    def info(self) -> SessionInfo:
        """The session's device, lifetime, variables and bytes held."""
        return self._client._call(protocol.session_info(self.id, self.token))

    def variables(self) -> dict[str, VariableInfo]:
        """The session's variables: shape, dtype, requires_grad and has_grad of each."""
        return self.info().variables

    def run(self, program: str, inputs: dict | None = None, outputs: list[str] | None = None,
            graph: bool = False, encoding: str = "auto") -> RunResult:
        """Run a program; ``inputs`` are bound as variables first, each a NumPy array, a torch tensor, a
        number, a nested list, a list of equal-shape arrays (one tensor, as ``torch.tensor`` makes) or a
        wire form (``{"data": ..., "requires_grad": True}``). Raises ``ProgramError``."""
        return self._client._call(self._run_call(program, inputs, outputs, graph, encoding))

    def stream(self, program: str, inputs: dict | None = None, outputs: list[str] | None = None,
               progress: bool = False, trace: bool = True, encoding: str = "auto") -> EventStream:
        """Run a program over the WebSocket, yielding its events as they happen."""
        return EventStream(*self._stream_args(program, inputs, outputs, progress, trace,
                                              encoding))

    def debug(self, program: str, inputs: dict | None = None, outputs: list[str] | None = None,
              breakpoints: Breakpoints | None = None, pause_on: Iterable[str] | None = None,
              trace: bool = False, encoding: str = "auto",
              on_event: Callable[[Event], None] | None = None) -> DebugRun:
        """Run a program under the debugger (SPEC section 4): iterate the answer for its pauses.

        ``breakpoints``: lines, ``(line, condition)`` pairs or ``{"line", "condition"}`` dicts;
        ``pause_on``: ``["exception"]`` by default (a post-mortem pause), ``"anomaly"`` to stop at
        the first NaN/Inf; ``on_event`` receives the run's other events (stdout, log, ...) as they
        come. The run's ``RunResult`` is ``.result`` once the iteration ended. A breakpoint the server
        refuses (a line with no code, a condition that is not an expression) cancels the run and
        raises ``DebugCommandError`` from the iteration, saying which.
        """
        return DebugRun(EventStream(*self._debug_args(program, inputs, outputs, breakpoints, pause_on,
                                                      trace, encoding)), on_event)

    def watch(self) -> EventStream:
        """The events of every run of this session, as the viewer receives them (no end)."""
        return EventStream(*self._stream_args(None, None, None, False, True, "auto"))

    def get(self, name: str, encoding: str = "auto") -> Any:
        """The value of a variable (a dotted path such as ``model.fc.weight`` works too)."""
        return self._client._call(protocol.get_variable(self.id, self.token, name, encoding))[0]

    def get_grad(self, name: str, encoding: str = "auto") -> Any:
        """The ``.grad`` of a variable, or None."""
        return self._client._call(protocol.get_variable(self.id, self.token, name, encoding))[1]

    def put(self, name: str, value: Any, requires_grad: bool = False,
            encoding: str = "auto") -> None:
        """Bind a variable to a tensor made from ``value`` (dtype kept)."""
        self._lazy.invalidate()
        self._client._call(self._put_call(name, value, requires_grad, encoding))

    def graph(self, of: str) -> dict:
        """The graph JSON (SPEC section 5) of the tensor named ``of``."""
        return self._client._call(protocol.graph(self.id, self.token, of))

    def save_checkpoint(self, path: str | os.PathLike) -> Path:
        """Write the session's tensors and parameters to a safetensors file."""
        content = self._client._call(protocol.get_checkpoint(self.id, self.token))
        path = Path(path)
        path.write_bytes(content)
        return path

    def restore_checkpoint(self, path: str | os.PathLike) -> None:
        """Load a safetensors file into the session, all or nothing: module parameters and buffers
        (``model.fc.weight``) go into the session's modules of those names, which must exist (run the
        program that builds them first), in place so optimizers keep them; top-level tensors are bound
        as variables. A missing module raises ``ProgramError`` (``KeyError``) naming the entry."""
        self._lazy.invalidate()
        content = Path(path).read_bytes()
        self._client._call(protocol.put_checkpoint(self.id, self.token, content))

    def close(self) -> None:
        """Delete the session on the server (once; a session already gone is fine)."""
        if self._closed:
            return
        self._closed = True
        try:
            self._client._call(protocol.delete_session(self.id, self.token))
        except (SessionNotFound, SessionGone):
            pass

    delete = close

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class AsyncSession(_SessionBase):
    """The async twin of ``Session``: same methods, awaited (``stream`` is ``async for``)."""

    def __init__(self, client: "AsyncClient", session_id: str, token: str, device: str = "cpu",
                 expires_at: str | None = None):
        super().__init__(client, session_id, token, device, expires_at, is_async=True)

    async def _run_lazy(self, body: dict) -> RunResult:
        return await self._client._call(self._lazy_call(body))

    async def info(self) -> SessionInfo:
        return await self._client._call(protocol.session_info(self.id, self.token))

    async def variables(self) -> dict[str, VariableInfo]:
        return (await self.info()).variables

    async def run(self, program: str, inputs: dict | None = None,
                  outputs: list[str] | None = None, graph: bool = False,
                  encoding: str = "auto") -> RunResult:
        return await self._client._call(self._run_call(program, inputs, outputs, graph,
                                                       encoding))

    def stream(self, program: str, inputs: dict | None = None, outputs: list[str] | None = None,
               progress: bool = False, trace: bool = True,
               encoding: str = "auto") -> AsyncEventStream:
        return AsyncEventStream(*self._stream_args(program, inputs, outputs, progress, trace,
                                                   encoding))

    def debug(self, program: str, inputs: dict | None = None, outputs: list[str] | None = None,
              breakpoints: Breakpoints | None = None, pause_on: Iterable[str] | None = None,
              trace: bool = False, encoding: str = "auto",
              on_event: Callable[[Event], None] | None = None) -> AsyncDebugRun:
        """``async for pause in session.debug(...)``: the async twin of ``Session.debug``."""
        return AsyncDebugRun(AsyncEventStream(*self._debug_args(program, inputs, outputs, breakpoints,
                                                                pause_on, trace, encoding)), on_event)

    def watch(self) -> AsyncEventStream:
        return AsyncEventStream(*self._stream_args(None, None, None, False, True, "auto"))

    async def get(self, name: str, encoding: str = "auto") -> Any:
        call = protocol.get_variable(self.id, self.token, name, encoding)
        return (await self._client._call(call))[0]

    async def get_grad(self, name: str, encoding: str = "auto") -> Any:
        call = protocol.get_variable(self.id, self.token, name, encoding)
        return (await self._client._call(call))[1]

    async def put(self, name: str, value: Any, requires_grad: bool = False,
                  encoding: str = "auto") -> None:
        self._lazy.invalidate()
        await self._client._call(self._put_call(name, value, requires_grad, encoding))

    async def graph(self, of: str) -> dict:
        return await self._client._call(protocol.graph(self.id, self.token, of))

    async def save_checkpoint(self, path: str | os.PathLike) -> Path:
        content = await self._client._call(protocol.get_checkpoint(self.id, self.token))
        path = Path(path)
        path.write_bytes(content)
        return path

    async def restore_checkpoint(self, path: str | os.PathLike) -> None:
        self._lazy.invalidate()
        content = Path(path).read_bytes()
        await self._client._call(protocol.put_checkpoint(self.id, self.token, content))

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            await self._client._call(protocol.delete_session(self.id, self.token))
        except (SessionNotFound, SessionGone):
            pass

    delete = close

    async def __aenter__(self) -> "AsyncSession":
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.close()
