"""When to repeat a request, and how long to wait first.

Only failures that say the server did not act are retried: a 503, and transport errors. A request
that runs something (a program run, a session creation) is repeated only when it provably never
reached the server (the connection was refused or never opened) or the server answered 503, which
it does only before it starts work. Reads, writes of a whole value (PUT) and deletes are
idempotent and are also repeated after a connection that broke mid-way.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from datetime import datetime, timezone
from typing import Callable

import httpx

# The request was never sent: repeating it cannot run anything twice.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout, ConnectionRefusedError)
# Failures of the connection itself (httpx's, or the socket's for WebSocket handshakes).
_TRANSPORT = (httpx.TransportError, OSError)


@dataclass(frozen=True)
class RetryPolicy:
    """Capped exponential backoff with jitter: attempt ``n`` waits up to ``min(cap, base * 2**n)``."""

    max_retries: int = 2
    base_delay_s: float = 0.25
    max_delay_s: float = 8.0

    def delay(self, attempt: int, retry_after: float | None = None,
              rand: Callable[[], float] = random.random) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based).

        "Equal jitter": half the backoff is fixed and half random, so retries from many clients
        spread out without any of them retrying at once. The server's Retry-After wins when
        given, capped like the backoff.
        """
        if retry_after is not None:
            return max(0.0, min(retry_after, self.max_delay_s))
        backoff = min(self.max_delay_s, self.base_delay_s * (2 ** attempt))
        return backoff / 2 + rand() * backoff / 2

    def should_retry(self, attempt: int, *, idempotent: bool, status: int | None = None,
                     error: BaseException | None = None) -> bool:
        """Whether a request that failed this way may be sent again (``attempt`` retries so far)."""
        if attempt >= self.max_retries:
            return False
        if status is not None:
            return status == 503
        if isinstance(error, _NOT_SENT):
            return True
        return idempotent and isinstance(error, _TRANSPORT)


def retry_after_seconds(value: str | None) -> float | None:
    """The Retry-After header in seconds (it is either a number or an HTTP date)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())
