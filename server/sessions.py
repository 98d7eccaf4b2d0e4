"""Sessions as the API sees them: id, token, lifetime, where they live.

The token is 256 random bits; only its SHA-256 is kept, and it is compared in
constant time. An unknown id and a wrong token look the same to the caller.
A session expires at its TTL or after ``idle_timeout_s`` without a request,
whichever comes first; a background sweeper frees expired sessions.
"""
import asyncio
import hashlib
import hmac
import logging
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timezone

from .errors import SESSION_NOT_FOUND
from .events import FanoutBudget

log = logging.getLogger("gradserve.sessions")

_DUMMY_DIGEST = hashlib.sha256(b"no such session").digest()
REMEMBER_ENDED = 10_000     # ended sessions whose end a request with the right token is told of
REMEMBER_ENDED_S = 86_400.0 # ... for a day


def _digest(token):
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def iso(ts):
    return datetime.fromtimestamp(ts, timezone.utc).isoformat().replace("+00:00", "Z")


@dataclass(eq=False)
class Session:
    id: str
    token_digest: bytes
    device: str
    created_at: float
    ttl_expires_at: float
    idle_timeout_s: float
    last_used: float
    placement: object = None
    run_id: str | None = None                   # the run in progress (one at a time per session)
    paused: bool = False                        # that run waits in the debugger (events.RunEvents sets it)
    watchers: set = field(default_factory=set)  # WebSocket connections receiving every run's events
    streams: set = field(default_factory=set)   # every WebSocket connection open on it (objects with end())
    ended: bool = False                         # deleted or expired: its streams are closed (4404)
    fanout: object = None                       # events.FanoutBudget of its streams' node/backward events (or None)

    def end(self):
        """The session is gone from the registry: its WebSocket connections say so and close with 4404
        (as one opened now would be refused), instead of staying open and silent."""
        self.ended = True
        for stream in list(self.streams):
            stream.end()

    @property
    def expires_at(self):
        return min(self.ttl_expires_at, self.last_used + self.idle_timeout_s)

    def expired(self, now):
        return now >= self.expires_at


class SessionRegistry:
    def __init__(self, settings):
        self.settings = settings
        self.sessions = {}
        self.ended = OrderedDict()   # id -> (token digest, how it ended, when): the last REMEMBER_ENDED

    def __len__(self):
        return len(self.sessions)

    def new(self, device, ttl_s):
        """A new session record and its token (not yet placed on a worker)."""
        now = time.time()
        token = secrets.token_urlsafe(32)
        session = Session(id=secrets.token_urlsafe(12), token_digest=_digest(token), device=device,
                          created_at=now, ttl_expires_at=now + ttl_s,
                          idle_timeout_s=self.settings.idle_timeout_s, last_used=now,
                          fanout=FanoutBudget(rate) if (rate := self.settings.stream_events_per_s) > 0 else None)
        return session, token

    def add(self, session):
        self.sessions[session.id] = session

    async def authenticate(self, session_id, token, verify=True):
        """The live session with this id and token, or None (the same for either mismatch)."""
        session = self.sessions.get(session_id)
        expected = session.token_digest if session is not None else _DUMMY_DIGEST
        matches = hmac.compare_digest(expected, _digest(token))
        if session is None or not matches:
            return None
        now = time.time()
        if session.expired(now):
            return None
        session.last_used = now
        return session

    def touch(self, session):
        """A use of ``session`` over a connection opened earlier (its WebSocket): refreshes its idle clock
        as authenticating a request does; False once it has ended or expired (past its TTL or idle
        timeout), when nothing new may start in it. Without this a stream's runs neither counted as use
        (the session was culled at its idle timeout while in use) nor stopped at its TTL."""
        now = time.time()
        if session.ended or session.expired(now):
            return False
        session.last_used = now
        return True

    def remove(self, session_id, how="deleted"):
        session = self.sessions.pop(session_id, None)
        if session is not None:
            session.end()
            at = session.expires_at if how == "expired" else time.time()
            self.ended[session_id] = (session.token_digest, how, at)
            while len(self.ended) > REMEMBER_ENDED:
                self.ended.popitem(last=False)
        return session

    def not_found(self, session_id, token):
        """What a 404 for this id and token says: why the session is gone when the token is its own (it
        expired or was deleted, within the last REMEMBER_ENDED sessions and a day); otherwise the same
        words for an unknown id and a wrong token."""
        now = time.time()
        session = self.sessions.get(session_id)
        if session is not None:
            ended = (session.token_digest, "expired", session.expires_at) if session.expired(now) else None
        else:
            ended = self.ended.get(session_id)
        if ended is None or not isinstance(token, str):
            return SESSION_NOT_FOUND[1]
        digest, how, at = ended
        if not hmac.compare_digest(digest, _digest(token)) or now - at > REMEMBER_ENDED_S:
            return SESSION_NOT_FOUND[1]
        why = (f"it expired at {iso(at)} (its TTL, or {self.settings.idle_timeout_s:g} s without a request)"
               if how == "expired" else f"it was deleted at {iso(at)}")
        return f"the session has ended: {why}; create a new one"

    def expired(self):
        now = time.time()
        return [s for s in self.sessions.values() if s.expired(now) and s.run_id is None]


async def sweep_forever(registry, close, interval_s):
    """Frees expired sessions every ``interval_s`` seconds, with ``close(session)``."""
    while True:
        await asyncio.sleep(interval_s)
        for session in registry.expired():
            registry.remove(session.id, how="expired")
            try:
                await close(session)
            except Exception:
                log.exception("freeing expired session %s failed", session.id)
