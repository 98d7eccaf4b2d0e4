"""The Ray backend: sessions live on a Ray cluster, API replicas hold nothing.

``gradserve serve --backend ray`` joins the cluster at ``RAY_ADDRESS`` (or starts
a local Ray). Each session is a named actor (``ray_actors.SessionActor``) that Ray
places on a node with room, GPU sessions asking for ``num_gpus``. A replica finds
the actor by name for every request; the session's record and its watchers live in
the actor, the set of sessions in the ``Directory`` actor, so any replica serves any
session and a run's events reach watchers on every replica (Ray streaming
generators, no polling).

An actor that dies (its process killed, its node lost) is never restarted: its
sessions answer 410 on every replica, through the directory's record.
"""
import asyncio
import hashlib
import json
import logging
import os
import secrets
import time
from dataclasses import dataclass

from ..json_codec import dumps
from ..sessions import Session, SessionRegistry, _digest
from .base import BackendUnavailable, RunCancelled, RunDeadline, SessionGone, WorkerBackend

log = logging.getLogger("gradserve.ray")


@dataclass(eq=False)
class RayPlacement:
    """Where a session lives: its actor, found by name; ``alive`` turns False once it is known dead."""
    session_id: str
    digest: str
    alive: bool = True


_NOT_FOUND = {"ok": False, "status": 404, "error": {"type": "SessionNotFound",
                                                   "message": "no such session, or a wrong token"}}


def _hex_digest(token):
    return _digest(token).hex()


class ClusterSessions(SessionRegistry):
    """The session registry of a stateless replica: records live in the cluster (actors and directory).

    New records are made here as locally (id, token, expiry); the backend stores them when it opens
    the session. Expiry is each actor's own business, so there is nothing to sweep."""

    def __init__(self, settings, backend):
        super().__init__(settings)
        self.backend = backend

    def __len__(self):
        return self.backend.session_count()

    def add(self, session):
        pass

    async def authenticate(self, session_id, token, verify=False):
        """Over HTTP every command carries the token's digest and the actor checks it, so no round trip is
        spent here (``verify=False``); a WebSocket verifies once, when it opens."""
        if verify:
            return await self.backend.authenticate(session_id, token)
        digest = _hex_digest(token)
        now = time.time()
        return Session(id=session_id, token_digest=bytes.fromhex(digest), device="", created_at=now,
                       ttl_expires_at=now, idle_timeout_s=0.0, last_used=now,
                       placement=RayPlacement(session_id, digest))

    def remove(self, session_id):
        return None

    def expired(self):
        return []


class RayBackend(WorkerBackend):
    """Sessions as Ray actors (see the module docstring)."""

    def __init__(self, settings):
        self.settings = settings
        self.grace_s = settings.cancel_grace_s
        self.ray = None
        self.actors = None
        self.directory = None
        self._handles = {}
        self._resources = {}
        self._counts = {"live": 0, "gone": 0}
        self._refresher = None
        self._started = False

    def session_registry(self):
        return ClusterSessions(self.settings, self)

    # ------------------------------------------------------------ lifecycle
    async def start(self):
        import ray
        from . import ray_actors
        self.ray = ray
        self.actors = ray_actors
        address = os.environ.get("RAY_ADDRESS") or None

        def connect():
            if not ray.is_initialized():
                ray.init(address=address, namespace=ray_actors.NAMESPACE, logging_level=logging.WARNING,
                         log_to_driver=False, include_dashboard=False if address is None else None)
            return ray_actors.Directory.options(name=ray_actors.DIRECTORY, namespace=ray_actors.NAMESPACE,
                                                lifetime="detached", get_if_exists=True).remote()

        self.directory = await asyncio.to_thread(connect)
        await self.directory.counts.remote()
        self._resources = await asyncio.to_thread(ray.cluster_resources)
        self._refresher = asyncio.get_running_loop().create_task(self._refresh_forever())
        self._started = True
        log.info("joined the Ray cluster at %s (%s)", address or "a new local Ray", self._resources)

    async def stop(self):
        if self._refresher is not None:
            self._refresher.cancel()
        self._started = False
        # Sessions outlive a replica: they belong to the cluster, not to this process.

    async def _refresh_forever(self):
        while True:
            try:
                self._counts = await self.directory.counts.remote()
                self._resources = await asyncio.to_thread(self.ray.cluster_resources)
            except Exception as e:  # the cluster is unreachable for now: say so on /readyz
                log.warning("cannot reach the Ray cluster: %s", e)
                self._counts = None
            await asyncio.sleep(1.0)

    def ready(self):
        return self._started and self._counts is not None

    def devices(self):
        return ["cpu", "cuda"] if self._resources.get("GPU", 0) > 0 else ["cpu"]

    def health(self):
        counts = self._counts or {}
        return {"workers": [], "cluster": {"reachable": self._counts is not None,
                                           "sessions": counts.get("live", 0), "gone": counts.get("gone", 0),
                                           "nodes_cpu": self._resources.get("CPU", 0),
                                           "nodes_gpu": self._resources.get("GPU", 0)}}

    def session_count(self):
        return (self._counts or {}).get("live", 0)

    # ------------------------------------------------------------ sessions
    async def open_session(self, session_id, device, session=None):
        if session is None:
            raise BackendUnavailable("the Ray backend needs the session's record to open it")
        a = self.actors
        digest = session.token_digest.hex()
        added = await self.directory.add.remote(session_id, digest, device, session.ttl_expires_at,
                                                self.settings.max_sessions)
        if not added:
            raise BackendUnavailable(f"the cluster holds its maximum of {self.settings.max_sessions} sessions")
        # SPREAD: sessions take no CPU of their own while idle, so Ray's default policy would pack them all
        # on one node
        options = {"name": a.actor_name(session_id), "namespace": a.NAMESPACE, "lifetime": "detached",
                   "scheduling_strategy": "SPREAD"}
        if device == "cuda":
            options["num_gpus"] = self.settings.ray_gpus_per_session
        try:
            actor = a.SessionActor.options(**options).remote(
                session_id, digest, device, session.created_at, session.ttl_expires_at, session.idle_timeout_s,
                {"memory_bytes": self.settings.worker_memory_bytes})
            await actor.start.remote(self.settings.sweep_interval_s)
        except Exception as e:
            await self.directory.remove.remote(session_id)
            raise BackendUnavailable(f"the cluster could not start the session: {type(e).__name__}") from None
        self._handles[session_id] = actor
        return RayPlacement(session_id, digest)

    async def close_session(self, placement, session_id):
        await self.directory.remove.remote(session_id)
        actor = self._handles.pop(session_id, None) or self._lookup(session_id)
        if actor is not None:
            try:
                await actor.close.remote()
            except self.ray.exceptions.RayError:
                pass
            self.ray.kill(actor, no_restart=True)

    def is_alive(self, placement):
        return placement.alive

    def _lookup(self, session_id):
        actor = self._handles.get(session_id)
        if actor is None:
            try:
                actor = self.ray.get_actor(self.actors.actor_name(session_id), namespace=self.actors.NAMESPACE)
            except ValueError:
                return None
            if len(self._handles) > 10_000:  # a cache of handles, nothing more: any replica can rebuild it
                self._handles.clear()
            self._handles[session_id] = actor
        return actor

    async def authenticate(self, session_id, token):
        """The session's record from its actor; a dead actor's session comes back with alive=False (410)."""
        digest = _hex_digest(token)
        actor = self._lookup(session_id)
        if actor is not None:
            try:
                record = await actor.touch.remote(digest)
            except self.ray.exceptions.ActorUnavailableError:
                raise BackendUnavailable("the session's node cannot be reached just now; retry shortly") from None
            except self.ray.exceptions.RayError:
                record = False
            if record is None:
                return None
            if record:
                return self._session(record, digest)
        state = await self.directory.lookup.remote(session_id, digest)
        if state is None:
            return None
        await self._gone(session_id)
        now = time.time()
        return Session(id=session_id, token_digest=bytes.fromhex(digest), device="cpu", created_at=now,
                       ttl_expires_at=now, idle_timeout_s=0.0, last_used=now,
                       placement=RayPlacement(session_id, digest, alive=False))

    def _session(self, record, digest):
        return Session(id=record["id"], token_digest=bytes.fromhex(digest), device=record["device"],
                       created_at=record["created_at"], ttl_expires_at=record["ttl_expires_at"],
                       idle_timeout_s=record["idle_timeout_s"], last_used=record["last_used"],
                       placement=RayPlacement(record["id"], digest))

    async def _gone(self, session_id):
        self._handles.pop(session_id, None)
        try:
            await self.directory.mark_gone.remote(session_id)
        except Exception:
            pass

    # ------------------------------------------------------------ commands
    async def call(self, placement, header, buffers=(), *, on_events=None, deadline_s=None):
        actor = self._lookup(placement.session_id) if placement.alive else None
        if actor is not None:
            arrays = self.actors.to_arrays(buffers)
            try:
                if header.get("op") != "run":
                    reply_json, out = await actor.call.remote(placement.digest, dumps(header), arrays)
                    return json.loads(reply_json), [memoryview(a) for a in out]
                return await self._run(actor, placement, header, arrays, on_events, deadline_s)
            except self.ray.exceptions.ActorUnavailableError:
                raise BackendUnavailable("the session's node cannot be reached just now; retry shortly") from None
            except self.ray.exceptions.RayError:  # the actor died, or its node with what it held
                self._handles.pop(placement.session_id, None)
        # The actor is not there: a session deleted or expired meanwhile (404), or one whose actor died (410).
        if placement.alive and await self.directory.lookup.remote(placement.session_id, placement.digest) is None:
            return _NOT_FOUND, []
        placement.alive = False
        await self._gone(placement.session_id)
        raise SessionGone("the actor holding this session died")

    async def _run(self, actor, placement, header, arrays, on_events, deadline_s):
        if on_events is None:  # nobody here wants its events: one plain call (a stream costs a round trip more)
            async def consume():
                reply_json, out = await actor.run_once.remote(placement.digest, dumps(header), arrays)
                return json.loads(reply_json), [memoryview(a) for a in out]
        else:
            stream = actor.run.options(num_returns="streaming").remote(placement.digest, dumps(header), arrays)

        async def consume_stream():
            async for ref in stream:
                item = await ref
                if item[0] == "events":
                    if on_events is not None:
                        on_events(item[1])
                else:
                    return json.loads(item[1]), [memoryview(a) for a in item[2]]
            raise SessionGone("the session's run stream ended without a reply")

        task = asyncio.ensure_future(consume() if on_events is None else consume_stream())
        if deadline_s is None:
            return await task
        done, _ = await asyncio.wait({task}, timeout=deadline_s)
        if done:
            return task.result()
        await actor.cancel.remote(placement.digest, header["run"])
        done, _ = await asyncio.wait({task}, timeout=self.grace_s)
        if done:
            return task.result()
        # The run ignored the cancel (a long C-level call): its process goes, and with it the session.
        task.cancel()
        self.ray.kill(actor, no_restart=True)
        placement.alive = False
        await self._gone(placement.session_id)
        raise RunDeadline()

    async def cancel(self, placement, run_id):
        actor = self._lookup(placement.session_id)
        if actor is not None and placement.alive:
            try:
                await actor.cancel.remote(placement.digest, run_id)
            except self.ray.exceptions.RayError:
                pass

    async def watch(self, placement):
        """Every run's events from the session's actor: items {"kind": "begin"|"events"|"reply", "run", ...}."""
        actor = self._lookup(placement.session_id)
        if actor is None:
            raise SessionGone("the actor holding this session died")
        stream = actor.watch.options(num_returns="streaming").remote(placement.digest)
        try:
            async for ref in stream:
                try:
                    item = await ref
                except self.ray.exceptions.RayError:
                    placement.alive = False
                    await self._gone(placement.session_id)
                    raise SessionGone("the actor holding this session died") from None
                if item["kind"] in ("watching", "denied"):
                    continue
                yield item
        finally:
            try:
                self.ray.cancel(stream)
            except Exception:
                pass
