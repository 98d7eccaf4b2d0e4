"""Streamed runs over ``/v1/sessions/{id}/stream`` (SPEC section 4), sync and async.

``_StreamState`` holds everything but the I/O: the messages to send, the filtering of events by
run id, the end of the stream (a ``Result`` or ``Cancelled``; an ``Error`` is yielded and then
raised), and the progress bar. ``EventStream`` and ``AsyncEventStream`` only move the bytes.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections import deque
from typing import Any
from urllib.parse import quote, urlencode

from websockets.asyncio.client import connect as async_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect as sync_connect

from .errors import (APIConnectionError, APIError, AuthError, GradserveError, RunCancelled, SessionGone,
                     SessionNotFound, error_from_response, parse_body)
from .events import Cancelled, Error, Event, Log, Result, parse_event
from .progress import ProgressBar
from .results import RunResult
from .retries import RetryPolicy

# How long closing a stream whose run is still going waits for the cancelled run to end.
_ABANDON_TIMEOUT_S = 5.0


def stream_url(base_url: str, session_id: str, token: str) -> str:
    scheme, rest = base_url.split("://", 1)
    ws_scheme = {"http": "ws", "https": "wss"}.get(scheme, scheme)
    path = f"/v1/sessions/{quote(session_id, safe='')}/stream"
    return f"{ws_scheme}://{rest.rstrip('/')}{path}?{urlencode({'token': token})}"


def _handshake_error(exc: InvalidStatus) -> APIError:
    response = exc.response
    return error_from_response(response.status_code, parse_body(response.body or b""))


# Close codes the server gives a stream whose session ended (deleted, expired), whose worker died, or that
# sent no token: raised as what an HTTP call on that session raises.
_CLOSED_FOR = {4404: (SessionNotFound, "the session has ended (deleted or expired) or does not exist"),
               4410: (SessionGone, "the worker holding this session died; its state is lost"),
               4401: (AuthError, "the stream was closed: no session token")}


class _StreamState:
    """The I/O-free part of a stream: what to send first, and what each message means."""

    def __init__(self, run_message: dict | None, progress: bool | ProgressBar = False):
        self.run_id = run_message["id"] if run_message else None
        self.first_message = run_message or {"type": "watch"}
        self.finished = False
        self.result: RunResult | None = None
        self._raise: GradserveError | None = None
        self._notice: GradserveError | None = None
        self._bar = (progress if isinstance(progress, ProgressBar)
                     else ProgressBar() if progress else None)

    def opening_messages(self) -> list[str]:
        """What to send once connected. A watch is followed by a ping: the server handles a
        connection's messages in order, so its pong says the subscription is in place."""
        messages = [self.first_message] + ([{"type": "ping"}] if self.run_id is None else [])
        return [json.dumps(m) for m in messages]

    @staticmethod
    def is_pong(raw: str | bytes) -> bool:
        return json.loads(raw).get("type") == "pong"

    def pending_error(self) -> GradserveError | None:
        """The exception to raise now that the ``Error`` event has been yielded (once)."""
        exc, self._raise = self._raise, None
        return exc

    def accept(self, raw: str | bytes) -> Event | None:
        """The event for a message, or None when it belongs to another run."""
        message = json.loads(raw)
        if not isinstance(message, dict):
            return None
        event = parse_event(message)
        if self.run_id is not None and event.run is not None and event.run != self.run_id:
            return None
        if self._bar is not None and isinstance(event, Log):
            self._bar.update(event)
        if isinstance(event, Error) and event.run is None:
            self._notice = event.error  # a connection-wide error (the one before a close says why)
        if self.run_id is None:  # watching: every run's events, no end
            return event
        if isinstance(event, Result):
            self.result = event.result
            self._end(finished=True)
        elif isinstance(event, Cancelled):
            self._end(finished=False)
        elif isinstance(event, Error):
            self._raise = event.error
            self._end(finished=False)
        return event

    def connection_lost(self, exc: BaseException) -> GradserveError:
        self._end(finished=False)
        code = getattr(getattr(exc, "rcvd", None), "code", None)
        if code in _CLOSED_FOR:  # the session ended (or its worker died): not a network fault to retry
            cls, message = _CLOSED_FOR[code]
            notice = self._notice
            return notice if isinstance(notice, cls) else cls(message)
        return APIConnectionError(f"the stream closed before the run finished: {exc}")

    def _end(self, finished: bool) -> None:
        self.finished = True
        if self._bar is not None:
            self._bar.close(finished)

    def cancel_message(self) -> str:
        return json.dumps({"type": "cancel", "id": self.run_id})


def run_message(program: str, inputs: dict | None, outputs: list | None, trace: bool,
                encoding: str = "json") -> dict:
    message: dict[str, Any] = {"type": "run", "id": uuid.uuid4().hex, "program": program,
                               "inputs": inputs or {}, "trace": bool(trace),
                               "encoding": encoding}
    if outputs is not None:
        message["outputs"] = list(outputs)
    return message


class EventStream:
    """Iterates a run's events; a ``Result`` ends it and an ``Error`` is yielded, then raised.

    Use it as a context manager (or iterate it to the end) so the WebSocket is closed.
    """

    def __init__(self, url: str, state: _StreamState, retry: RetryPolicy, open_timeout: float):
        self._url = url
        self._state = state
        self._retry = retry
        self._open_timeout = open_timeout
        self._ws = None
        self._exit = contextlib.ExitStack()
        self._backlog: deque = deque()  # events that arrived while a watch waited for its pong

    @property
    def run_id(self) -> str | None:
        return self._state.run_id

    @property
    def result(self) -> RunResult | None:
        """The run's result, once the ``Result`` event has arrived."""
        return self._state.result

    def open(self) -> "EventStream":
        """Connect and send the run (or the watch); iterating does this itself when needed.

        A watch stream is subscribed when ``open()`` returns: later runs' events will arrive.
        """
        if self._ws is not None:
            return self
        attempt = 0
        while True:
            try:
                # Entered as a context manager, the form every websockets version supports.
                self._ws = self._exit.enter_context(sync_connect(
                    self._url, open_timeout=self._open_timeout, max_size=None, compression=None))
                break
            except InvalidStatus as exc:
                raise _handshake_error(exc) from exc
            except OSError as exc:  # refused, unreachable, timed out: nothing was sent yet
                if not self._retry.should_retry(attempt, idempotent=True, error=exc):
                    raise APIConnectionError(f"cannot open the stream: {exc}") from exc
                time.sleep(self._retry.delay(attempt))
                attempt += 1
        for message in self._state.opening_messages():
            self._ws.send(message)
        if self.run_id is None:
            while not self._state.is_pong(raw := self._ws.recv(timeout=self._open_timeout)):
                self._backlog.append(raw)
        return self

    def __iter__(self):
        return self

    def __next__(self) -> Event:
        exc = self._state.pending_error()
        if exc is not None:
            raise exc
        if self._state.finished:
            self.close()
            raise StopIteration
        self.open()
        while True:
            try:
                raw = self._backlog.popleft() if self._backlog else self._ws.recv()
            except ConnectionClosed as closed:
                self.close()
                raise self._state.connection_lost(closed) from closed
            event = self._state.accept(raw)
            if event is None:
                continue
            if self._state.finished:
                self.close()
            return event

    def cancel(self) -> None:
        """Ask the server to stop the run; the stream then ends with a ``Cancelled`` event."""
        self.open()._ws.send(self._state.cancel_message())

    def wait(self) -> RunResult:
        """Consume the remaining events and return the result (raises the run's error)."""
        for _ in self:
            pass
        if self._state.result is None:
            raise RunCancelled("the run was cancelled")
        return self._state.result

    def close(self) -> None:
        """Close the WebSocket; a run still going is cancelled first."""
        if self._ws is not None and self.run_id is not None and not self._state.finished:
            self._abandon()
        self._exit.close()

    def _abandon(self) -> None:
        # Unread events would hold the server's close frame back (flow control) until the close
        # timed out: cancel the run and discard its events until it ends.
        deadline = time.monotonic() + _ABANDON_TIMEOUT_S
        try:
            self._ws.send(self._state.cancel_message())
            while not self._state.finished and time.monotonic() < deadline:
                self._state.accept(self._ws.recv(timeout=deadline - time.monotonic()))
        except (ConnectionClosed, TimeoutError):
            pass

    def __enter__(self) -> "EventStream":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class AsyncEventStream:
    """The async twin of ``EventStream``: ``async for event in session.stream(...)``."""

    def __init__(self, url: str, state: _StreamState, retry: RetryPolicy, open_timeout: float):
        self._url = url
        self._state = state
        self._retry = retry
        self._open_timeout = open_timeout
        self._ws = None
        self._exit = contextlib.AsyncExitStack()
        self._backlog: deque = deque()

    @property
    def run_id(self) -> str | None:
        return self._state.run_id

    @property
    def result(self) -> RunResult | None:
        return self._state.result

    async def open(self) -> "AsyncEventStream":
        """Connect and send the run (or the watch: subscribed when this returns)."""
        if self._ws is not None:
            return self
        attempt = 0
        while True:
            try:
                self._ws = await self._exit.enter_async_context(async_connect(
                    self._url, open_timeout=self._open_timeout, max_size=None, compression=None))
                break
            except InvalidStatus as exc:
                raise _handshake_error(exc) from exc
            except OSError as exc:  # refused, unreachable, timed out: nothing was sent yet
                if not self._retry.should_retry(attempt, idempotent=True, error=exc):
                    raise APIConnectionError(f"cannot open the stream: {exc}") from exc
                await asyncio.sleep(self._retry.delay(attempt))
                attempt += 1
        for message in self._state.opening_messages():
            await self._ws.send(message)
        if self.run_id is None:
            while not self._state.is_pong(
                    raw := await asyncio.wait_for(self._ws.recv(), self._open_timeout)):
                self._backlog.append(raw)
        return self

    def __aiter__(self):
        return self

    async def __anext__(self) -> Event:
        exc = self._state.pending_error()
        if exc is not None:
            raise exc
        if self._state.finished:
            await self.close()
            raise StopAsyncIteration
        await self.open()
        while True:
            try:
                raw = self._backlog.popleft() if self._backlog else await self._ws.recv()
            except ConnectionClosed as closed:
                await self.close()
                raise self._state.connection_lost(closed) from closed
            event = self._state.accept(raw)
            if event is None:
                continue
            if self._state.finished:
                await self.close()
            return event

    async def cancel(self) -> None:
        await (await self.open())._ws.send(self._state.cancel_message())

    async def wait(self) -> RunResult:
        async for _ in self:
            pass
        if self._state.result is None:
            raise RunCancelled("the run was cancelled")
        return self._state.result

    async def close(self) -> None:
        """Close the WebSocket; a run still going is cancelled first."""
        if self._ws is not None and self.run_id is not None and not self._state.finished:
            await self._abandon()
        await self._exit.aclose()

    async def _abandon(self) -> None:
        deadline = time.monotonic() + _ABANDON_TIMEOUT_S
        try:
            await self._ws.send(self._state.cancel_message())
            while not self._state.finished and time.monotonic() < deadline:
                raw = await asyncio.wait_for(self._ws.recv(), deadline - time.monotonic())
                self._state.accept(raw)
        except (ConnectionClosed, asyncio.TimeoutError):
            pass

    async def __aenter__(self) -> "AsyncEventStream":
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.close()
