"""The Ray side of the Ray backend: a session actor per session, and the session directory.

A ``SessionActor`` is one session: its process holds the session's engine namespace
(a ``Worker`` with that one session), its record (token digest, device, expiry,
last use), the run in progress, and the watchers of its events. API replicas keep
nothing: they find the actor by name (``session:<id>`` in the ``gradserve``
namespace) and every call carries the token's digest, which the actor checks.

The ``Directory`` remembers which sessions exist (id and token digest), so a
replica can tell a session whose actor died (410) from one that never existed
(404) when the actor cannot be reached, and counts sessions cluster-wide.

Headers cross as JSON bytes and tensors as raw byte arrays (NumPy ``uint8``,
which Ray's object store hands over without a copy): nothing a program
controls is ever pickled.
"""
import asyncio
import hmac
import json
import os
import time

import numpy as np
import ray

from ..json_codec import dumps

NAMESPACE = "gradserve"
DIRECTORY = "gradserve-directory"
WATCH_QUEUE = 4096  # events a watcher's queue holds before node/backward/log events are dropped
_DROPPABLE = frozenset({"node", "backward", "log"})


def actor_name(session_id):
    return f"session:{session_id}"


def to_arrays(buffers):
    """Byte buffers as uint8 arrays, the form Ray moves through its object store without copying."""
    return [np.frombuffer(b, dtype=np.uint8) for b in buffers]


def _denied(status, type_, message):
    return dumps({"ok": False, "status": status, "error": {"type": type_, "message": message}})


@ray.remote(num_cpus=0, max_restarts=0, max_task_retries=0)
class Directory:
    """Which sessions exist: {id: {"digest", "state", "device", "expires_at"}}; 'gone' ones are kept
    (until their expiry) so that they answer 410, not 404."""

    def __init__(self):
        self.records = {}

    def add(self, session_id, digest, device, expires_at, max_sessions):
        self._purge()
        live = sum(r["state"] == "live" for r in self.records.values())
        if live >= max_sessions:
            return False
        self.records[session_id] = {"digest": digest, "state": "live", "device": device,
                                    "expires_at": expires_at}
        return True

    def remove(self, session_id):
        self.records.pop(session_id, None)

    def mark_gone(self, session_id):
        record = self.records.get(session_id)
        if record is not None:
            record["state"] = "gone"

    def lookup(self, session_id, digest):
        """'live', 'gone' or None (unknown id or wrong token: the same answer)."""
        record = self.records.get(session_id)
        if record is None or not hmac.compare_digest(record["digest"], digest):
            return None
        return record["state"]

    def counts(self):
        self._purge()
        counts = {"live": 0, "gone": 0}
        for r in self.records.values():
            counts[r["state"]] += 1
        return counts

    def live(self):
        return [k for k, r in self.records.items() if r["state"] == "live"]

    def _purge(self):
        now = time.time()
        for k in [k for k, r in self.records.items() if r["state"] == "gone" and r["expires_at"] < now]:
            del self.records[k]


@ray.remote(num_cpus=0, max_restarts=0, max_task_retries=0, max_concurrency=64)
class SessionActor:
    """One session on the cluster (see the module docstring)."""

    def __init__(self, session_id, digest, device, created_at, ttl_expires_at, idle_timeout_s, worker_config):
        from ..worker import Worker
        self.id = session_id
        self.digest = digest
        self.device = device
        self.created_at = created_at
        self.ttl_expires_at = ttl_expires_at
        self.idle_timeout_s = idle_timeout_s
        self.last_used = created_at
        self.run_id = None
        self.watchers = set()
        self.loop = None
        self.worker = Worker(device, send_event=self._from_worker)
        self._own = None  # the queue of the run in progress's own stream
        self.closed = False
        self.worker.handle({"op": "open", "session": session_id}, [])

    # ------------------------------------------------------------ record
    @property
    def expires_at(self):
        return min(self.ttl_expires_at, self.last_used + self.idle_timeout_s)

    def _auth(self, digest, touch=True):
        if self.closed or not hmac.compare_digest(self.digest, digest):
            return False
        now = time.time()
        if now >= self.expires_at:
            return False
        if touch:
            self.last_used = now
        return True

    def _record(self):
        return {"id": self.id, "device": self.device, "created_at": self.created_at,
                "ttl_expires_at": self.ttl_expires_at, "idle_timeout_s": self.idle_timeout_s,
                "last_used": self.last_used, "run_id": self.run_id, "watchers": len(self.watchers),
                "pid": os.getpid(), "node": ray.get_runtime_context().get_node_id()}

    async def start(self, sweep_interval_s):
        """Starts the actor's own expiry check (no replica is in charge of culling)."""
        self.loop = asyncio.get_running_loop()
        self.loop.create_task(self._expire_when_due(sweep_interval_s))
        return self._record()

    async def close(self):
        """Refuses every later command (until Ray has ended the process), and stops the run in progress."""
        self.closed = True
        if self.run_id is not None:
            self.worker.cancel(self.run_id)

    async def touch(self, digest):
        """The session's record if ``digest`` is its token's, else None."""
        return self._record() if self._auth(digest) else None

    async def _expire_when_due(self, interval_s):
        while True:
            await asyncio.sleep(interval_s)
            if self.run_id is None and time.time() >= self.expires_at:
                directory = ray.get_actor(DIRECTORY, namespace=NAMESPACE)
                await directory.remove.remote(self.id)
                ray.kill(ray.get_runtime_context().current_actor, no_restart=True)
                return

    # ------------------------------------------------------------ commands
    async def call(self, digest, header_json, buffers):
        """One non-run command (describe, get, put, graph, save, load): (reply JSON, reply buffers)."""
        if not self._auth(digest):
            return _denied(404, "SessionNotFound", "no such session, or a wrong token"), []
        header = json.loads(header_json)
        if header.get("op") == "run":
            return _denied(400, "BadCommand", "runs go through SessionActor.run"), []
        reply, out = await asyncio.to_thread(self.worker.handle, header, list(buffers))
        if header.get("op") == "describe" and reply.get("ok"):
            reply["record"] = self._record()
        return dumps(reply), to_arrays(out)

    def _refusal(self, digest):
        """Why a run cannot start now (a reply JSON), or None."""
        if not self._auth(digest):
            return _denied(404, "SessionNotFound", "no such session, or a wrong token")
        if self.run_id is not None:
            return dumps({"ok": False, "status": 409, "error": {
                "type": "Conflict", "message": "a run is already in progress in this session; wait for it or "
                                               "cancel it", "run": self.run_id.partition("/")[2]}})
        return None

    async def run_once(self, digest, header_json, buffers):
        """A run whose caller wants only its reply: (reply JSON, buffers). Watchers still get its events."""
        refusal = self._refusal(digest)
        if refusal is not None:
            return refusal, []
        async for item in self._run(json.loads(header_json), buffers, stream=False):
            if item[0] == "reply":
                return item[1], item[2]

    async def run(self, digest, header_json, buffers):
        """A run, as a stream: ("events", [event, ...]) items while it executes, then ("reply", JSON, buffers).

        Its events also go to every watcher of the session, on whichever replica they are."""
        refusal = self._refusal(digest)
        if refusal is not None:
            yield ("reply", refusal, [])
            return
        async for item in self._run(json.loads(header_json), buffers, stream=True):
            yield item

    async def _run(self, header, buffers, stream):
        watched = bool(self.watchers)
        header["stream"] = bool(header.get("stream")) or watched
        header["trace"] = bool(header.get("trace")) or watched
        self.run_id = header["run"]
        own = asyncio.Queue()
        self._own = own if stream else None
        self._publish_all({"kind": "begin", "run": self.run_id})
        task = asyncio.ensure_future(asyncio.to_thread(self.worker.handle, header, list(buffers)))
        try:
            while True:
                getter = asyncio.ensure_future(own.get())
                done, _ = await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
                if getter in done:
                    yield ("events", getter.result())
                    continue
                getter.cancel()
                while not own.empty():
                    yield ("events", own.get_nowait())
                break
            reply, out = task.result()
        finally:
            self._own = None
            self.run_id = None
        reply_json, arrays = dumps(reply), to_arrays(out)
        self._publish_all({"kind": "reply", "run": header["run"], "reply": reply_json, "buffers": arrays})
        yield ("reply", reply_json, arrays)

    async def cancel(self, digest, run_id):
        if self._auth(digest, touch=False):
            self.worker.cancel(run_id)

    async def watch(self, digest):
        """Every run's events, as they happen, until the watcher goes away."""
        if not self._auth(digest):
            yield {"kind": "denied"}
            return
        queue = asyncio.Queue()
        self.watchers.add(queue)
        try:
            yield {"kind": "watching"}
            while True:
                yield await queue.get()
        finally:
            self.watchers.discard(queue)

    # ------------------------------------------------------------ events
    def _from_worker(self, frame):
        """Called by the worker's thread during a run with {"event": run, "events": [...]}."""
        self.loop.call_soon_threadsafe(self._fan_out, frame["events"])

    def _fan_out(self, events):
        own = self._own
        if own is not None:
            own.put_nowait(events)
        if self.watchers:
            self._publish_all({"kind": "events", "run": self.run_id, "events": events})

    def _publish_all(self, item):
        for queue in self.watchers:
            if queue.qsize() >= WATCH_QUEUE and item["kind"] == "events":
                kept = [e for e in item["events"] if e.get("type") not in _DROPPABLE]
                if not kept:
                    continue
                item = {**item, "events": kept}
            queue.put_nowait(item)
