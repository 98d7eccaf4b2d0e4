"""``Client`` and ``AsyncClient``: the same surface, one sends with httpx.Client, the other with
httpx.AsyncClient. Building requests, reading answers and deciding retries is shared (``_Base``).
"""
from __future__ import annotations

import asyncio
import os
import time
from typing import Any

import httpx

from . import protocol
from .errors import (APIConnectionError, APIError, APITimeoutError, error_from_response,
                     parse_body)
from .retries import RetryPolicy, retry_after_seconds
from .session import AsyncSession, Session

DEFAULT_URL = "http://127.0.0.1:8000"
# A run may take the server's 30 s wall-time limit plus queueing; reads wait longer than that.
DEFAULT_TIMEOUT = httpx.Timeout(90.0, connect=10.0)


class _Base:
    """Configuration, request building and answer parsing shared by both clients."""

    def __init__(self, base_url: str | None, api_key: str | None, timeout: Any,
                 max_retries: int, retry: RetryPolicy | None):
        self.base_url = (base_url or os.environ.get("GRADSERVE_URL") or DEFAULT_URL).rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("GRADSERVE_API_KEY")
        self.timeout = timeout if isinstance(timeout, httpx.Timeout) else (
            DEFAULT_TIMEOUT if timeout is None else httpx.Timeout(timeout))
        self.retry = retry or RetryPolicy(max_retries=max_retries)

    def _build(self, http: httpx.Client | httpx.AsyncClient, call: protocol.Call) -> httpx.Request:
        headers = {"Accept": "application/json"}
        if call.token:
            headers["Authorization"] = f"Bearer {call.token}"
        if call.content is not None:
            headers["Content-Type"] = "application/octet-stream"
        if call.headers:
            headers.update(call.headers)
        return http.build_request(call.method, call.path, params=call.params, headers=headers,
                                  json=call.json if call.content is None else None,
                                  content=call.content)

    def _retry_delay(self, call: protocol.Call, attempt: int, *,
                     response: httpx.Response | None = None,
                     error: BaseException | None = None) -> float | None:
        """Seconds to wait before sending ``call`` again, or None to give up."""
        status = response.status_code if response is not None else None
        if not self.retry.should_retry(attempt, idempotent=call.idempotent, status=status,
                                       error=error):
            return None
        hint = retry_after_seconds(response.headers.get("retry-after")) if response else None
        return self.retry.delay(attempt, hint)

    @staticmethod
    def _answer(call: protocol.Call, response: httpx.Response) -> Any:
        """The parsed answer, or the mapped exception for an error status."""
        if response.is_success:
            return call.parse(response)
        raise error_from_response(
            response.status_code, parse_body(response.content),
            request_id=response.headers.get("x-request-id"),
            retry_after=retry_after_seconds(response.headers.get("retry-after")),
            session_route=call.session_route)

    def _check_open(self, call: protocol.Call) -> None:
        """A closed client raises ``APIConnectionError`` saying so (httpx's own is a bare RuntimeError)."""
        if self._http.is_closed:
            raise APIConnectionError(f"{call.method} {call.path}: this client is closed (its `with` block ended, "
                                     f"or close() was called); use its sessions inside the block, or make a new "
                                     f"client and attach(session_id, token)")

    @staticmethod
    def _connection_error(call: protocol.Call, exc: httpx.TransportError) -> APIError:
        cls = APITimeoutError if isinstance(exc, httpx.TimeoutException) else APIConnectionError
        return cls(f"{call.method} {call.path} failed: {exc!r}")

    def _session_kwargs(self, body: dict) -> dict:
        return {"session_id": body["id"], "token": body["token"],
                "device": body.get("device", "cpu"), "expires_at": body.get("expires_at")}


class Client(_Base):
    """A synchronous client of one gradserve server.

    ``with Client("http://127.0.0.1:8000") as c:`` then ``with c.session() as s: s.run(...)``.
    Connection errors and 503 answers are retried with capped exponential backoff and jitter;
    a run is repeated only when it provably did not start.

    Arguments: ``base_url`` (default: ``$GRADSERVE_URL``, else ``http://127.0.0.1:8000``);
    ``api_key``, the Bearer key that creating a session needs on a server started with
    ``GRADSERVE_API_KEYS`` (default: ``$GRADSERVE_API_KEY``); ``timeout`` in seconds or an
    ``httpx.Timeout`` (default: 90 s to read, room for a run's 30 s wall time plus queueing, 10 s to
    connect); ``max_retries`` (2) or a whole ``RetryPolicy`` as ``retry``; ``transport``, an httpx
    transport (``httpx.MockTransport`` in tests).

    A timeout (``APITimeoutError``) stops waiting, not the run: it goes on on the server until it ends
    or reaches its wall time, and the session answers ``Conflict`` to another run meanwhile. To stop a
    run from the client, stream it (``session.stream``) and ``cancel()`` it.
    """

    def __init__(self, base_url: str | None = None, api_key: str | None = None,
                 timeout: float | httpx.Timeout | None = None, max_retries: int = 2, *,
                 retry: RetryPolicy | None = None, transport: httpx.BaseTransport | None = None):
        super().__init__(base_url, api_key, timeout, max_retries, retry)
        self._http = httpx.Client(base_url=self.base_url, timeout=self.timeout,
                                  transport=transport)

    def _call(self, call: protocol.Call) -> Any:
        self._check_open(call)
        attempt = 0
        while True:
            try:
                response = self._http.send(self._build(self._http, call))
            except httpx.TransportError as exc:
                delay = self._retry_delay(call, attempt, error=exc)
                if delay is None:
                    raise self._connection_error(call, exc) from exc
            else:
                delay = self._retry_delay(call, attempt, response=response)
                if delay is None:
                    return self._answer(call, response)
                response.close()
            time.sleep(delay)
            attempt += 1

    def session(self, device: str = "cpu", ttl_s: float | None = None) -> Session:
        """Create a session; use it as a context manager to delete it on exit."""
        body = self._call(protocol.create_session(self.api_key, device, ttl_s))
        return Session(self, **self._session_kwargs(body))

    def attach(self, session_id: str, token: str, device: str = "cpu") -> Session:
        """A handle on an existing session (nothing is sent)."""
        return Session(self, session_id=session_id, token=token, device=device)

    def health(self) -> Any:
        """``GET /healthz``."""
        return self._call(protocol.health())

    def ready(self) -> bool:
        """Whether ``GET /readyz`` answers 2xx (no retries: this is a probe)."""
        try:
            response = self._http.send(self._build(self._http, protocol.ready()))
        except httpx.TransportError:
            return False
        return response.is_success

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class AsyncClient(_Base):
    """The asynchronous twin of ``Client``: same methods, awaited.

    ``async with AsyncClient(url) as c:`` then ``async with c.session() as s: await s.run(...)``.

    Arguments: ``base_url`` (default: ``$GRADSERVE_URL``, else ``http://127.0.0.1:8000``);
    ``api_key``, the Bearer key that creating a session needs on a server started with
    ``GRADSERVE_API_KEYS`` (default: ``$GRADSERVE_API_KEY``); ``timeout`` in seconds or an
    ``httpx.Timeout`` (default: 90 s to read, room for a run's 30 s wall time plus queueing, 10 s to
    connect); ``max_retries`` (2) or a whole ``RetryPolicy`` as ``retry``; ``transport``, an
    ``httpx.AsyncBaseTransport``.
    """

    def __init__(self, base_url: str | None = None, api_key: str | None = None,
                 timeout: float | httpx.Timeout | None = None, max_retries: int = 2, *,
                 retry: RetryPolicy | None = None,
                 transport: httpx.AsyncBaseTransport | None = None):
        super().__init__(base_url, api_key, timeout, max_retries, retry)
        self._http = httpx.AsyncClient(base_url=self.base_url, timeout=self.timeout,
                                       transport=transport)

    async def _call(self, call: protocol.Call) -> Any:
        self._check_open(call)
        attempt = 0
        while True:
            try:
                response = await self._http.send(self._build(self._http, call))
            except httpx.TransportError as exc:
                delay = self._retry_delay(call, attempt, error=exc)
                if delay is None:
                    raise self._connection_error(call, exc) from exc
            else:
                delay = self._retry_delay(call, attempt, response=response)
                if delay is None:
                    return self._answer(call, response)
                await response.aclose()
            await asyncio.sleep(delay)
            attempt += 1

    def session(self, device: str = "cpu", ttl_s: float | None = None) -> "_SessionOpener":
        """``s = await c.session()``, or ``async with c.session() as s:`` to delete it on exit."""
        return _SessionOpener(self, device, ttl_s)

    async def _create_session(self, device: str, ttl_s: float | None) -> AsyncSession:
        body = await self._call(protocol.create_session(self.api_key, device, ttl_s))
        return AsyncSession(self, **self._session_kwargs(body))

    def attach(self, session_id: str, token: str, device: str = "cpu") -> AsyncSession:
        """A handle on an existing session (nothing is sent)."""
        return AsyncSession(self, session_id=session_id, token=token, device=device)

    async def health(self) -> Any:
        return await self._call(protocol.health())

    async def ready(self) -> bool:
        try:
            response = await self._http.send(self._build(self._http, protocol.ready()))
        except httpx.TransportError:
            return False
        return response.is_success

    async def close(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.close()


class _SessionOpener:
    """What ``AsyncClient.session()`` returns: awaitable, and an async context manager."""

    def __init__(self, client: AsyncClient, device: str, ttl_s: float | None):
        self._client, self._device, self._ttl_s = client, device, ttl_s
        self._session: AsyncSession | None = None

    def __await__(self):
        return self._client._create_session(self._device, self._ttl_s).__await__()

    async def __aenter__(self) -> AsyncSession:
        self._session = await self._client._create_session(self._device, self._ttl_s)
        return self._session

    async def __aexit__(self, *exc_info) -> None:
        await self._session.close()
