"""The Ray backend: sessions live on a Ray cluster, API replicas hold nothing.

``gradserve serve --backend ray`` joins the cluster at ``RAY_ADDRESS`` (or starts a
local Ray). Sessions live in ``ray_actors.SessionHost`` actors that Ray places on nodes
with room (spread across nodes; GPU hosts ask for ``num_gpus``, fractions allowed). By
default a host holds up to ``ray_sessions_per_host`` CPU sessions, each in a process of its
own forked from the host's warm template; ``ray_isolation=shared`` with one session per
host gives the actor-per-session layout instead (measured in benchmarks/ray_backend.py).

A replica keeps no records: the ``Directory`` actor says which host holds a session
(cached here, as a handle, once asked), the host checks the token's digest on every call
and keeps the session's record, its run and its watchers, so any replica serves any
session and a run's events reach watchers on every replica (Ray streaming generators, no
polling). A host or a session process that dies is never restarted: its sessions answer
410 on every replica, through the directory's record.
"""
import asyncio
import contextlib
import json
import logging
import os
import secrets
import time
from dataclasses import dataclass

from ..events import FanoutBudget
from ..json_codec import dumps
from ..sessions import Session, SessionRegistry, _digest
from .base import BackendUnavailable, RunDeadline, SessionGone, WorkerBackend

log = logging.getLogger("gradserve.ray")

_NOT_FOUND = {"ok": False, "status": 404, "error": {"type": "SessionNotFound",
                                                   "message": "no such session, or a wrong token"}}


@dataclass(eq=False)
class RayPlacement:
    """Where a session lives: its id and token digest; its host is looked up once, then cached.
    ``alive`` turns False once the session is known gone."""
    session_id: str
    digest: str
    alive: bool = True


HEAD_NODE_RESOURCE = "node:__internal_head__"


def _hex_digest(token):
    return _digest(token).hex()


class ClusterSessions(SessionRegistry):
    """The session registry of a stateless replica: records live in the cluster (hosts and directory).

    New records are made here as locally (id, token, expiry); the backend stores them when it opens
    the session. Expiry is each host's own business, so there is nothing to sweep."""

    def __init__(self, settings, backend):
        super().__init__(settings)
        self.backend = backend

    def __len__(self):
        return self.backend.session_count()

    def add(self, session):
        pass

    async def authenticate(self, session_id, token, verify=False):
        """Over HTTP every command carries the token's digest and the host checks it, so no round trip is
        spent here (``verify=False``); a WebSocket verifies once, when it opens."""
        if verify:
            return await self.backend.authenticate(session_id, token)
        now = time.time()
        digest = _hex_digest(token)
        return Session(id=session_id, token_digest=bytes.fromhex(digest), device="", created_at=now,
                       ttl_expires_at=now, idle_timeout_s=0.0, last_used=now,
                       placement=RayPlacement(session_id, digest))

    def touch(self, session):
        return True   # each command carries the token's digest: its host checks expiry and counts the use

    def remove(self, session_id):
        return None

    def expired(self):
        return []


class RayBackend(WorkerBackend):
    """Sessions on Ray actors (see the module docstring)."""

    def __init__(self, settings):
        self.settings = settings
        self.grace_s = settings.cancel_grace_s
        self.ray = None
        self.actors = None
        self.directory = None
        self._hosts = {}      # host name -> actor handle
        self._where = {}      # session id -> host name (a cache: the directory has the truth)
        self._relay_budgets = {}   # session id -> [FanoutBudget, this replica's connections relaying it]
        self._resources = {}
        self._nodes = []      # alive nodes: [(node id, {resource: amount})]
        self._counts = {"live": 0, "gone": 0, "hosts": 0, "hosts_lost": 0}
        self._refresher = None
        self._started = False
        self._opening = None

    def session_registry(self):
        return ClusterSessions(self.settings, self)

    # ------------------------------------------------------------ lifecycle
    async def start(self):
        import ray
        from . import ray_actors
        self.ray = ray
        self.actors = ray_actors
        self._opening = asyncio.Lock()
        address = os.environ.get("RAY_ADDRESS") or None

        def connect():
            if not ray.is_initialized():
                ray.init(address=address, namespace=ray_actors.NAMESPACE, logging_level=logging.WARNING,
                         log_to_driver=False, **({} if address else {"include_dashboard": False}))
            # The directory lives on the head node (Ray's own head-node resource, as Ray Train pins its
            # state actor): a lost worker node takes its sessions with it, never the cluster's records.
            return ray_actors.Directory.options(name=ray_actors.DIRECTORY, namespace=ray_actors.NAMESPACE,
                                                lifetime="detached", get_if_exists=True,
                                                resources={HEAD_NODE_RESOURCE: 0.001}).remote()

        self.directory = await asyncio.to_thread(connect)
        self._counts = await self._ask("counts")
        await self._read_cluster()
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
            await asyncio.sleep(1.0)
            try:
                self._counts = await self._ask("counts")
                await self._read_cluster()
            except Exception as e:  # the cluster is unreachable for now: /readyz says so
                log.warning("cannot reach the Ray cluster: %s", e)
                self._counts = None

    async def _read_cluster(self):
        def read():
            nodes = [(n["NodeID"], n["Resources"]) for n in self.ray.nodes() if n["Alive"]]
            return nodes, self.ray.cluster_resources()
        self._nodes, self._resources = await asyncio.to_thread(read)

    def ready(self):
        return self._started and self._counts is not None

    def devices(self):
        return ["cpu", "cuda"] if self._resources.get("GPU", 0) > 0 else ["cpu"]

    def health(self):
        counts = self._counts or {}
        return {"workers": [], "cluster": {"reachable": self._counts is not None,
                                           "sessions": counts.get("live", 0), "sessions_gone": counts.get("gone", 0),
                                           "hosts": counts.get("hosts", 0), "hosts_lost": counts.get("hosts_lost", 0),
                                           "nodes": len(self._nodes),
                                           "cpus": self._resources.get("CPU", 0),
                                           "gpus": self._resources.get("GPU", 0)}}

    def cluster_hosts(self):
        """Every session host the directory knows (alive or lost), as last read: for /metrics."""
        return (self._counts or {}).get("per_host", [])

    def session_count(self):
        return (self._counts or {}).get("live", 0)

    # ------------------------------------------------------------ hosts
    def _layout(self, device):
        """(isolation, capacity) of the hosts for ``device``."""
        if device == "cuda" or self.settings.ray_isolation == "shared":
            return "shared", (1 if device == "cpu" else self.settings.ray_sessions_per_host)
        return "process", self.settings.ray_sessions_per_host

    async def _place(self, device, avoid=()):
        """The name of a host with room for one more session (never one in ``avoid``), started if none has
        room."""
        isolation, capacity = self._layout(device)
        candidates = [n for n, res in self._nodes if device == "cpu" or res.get("GPU", 0) > 0]
        name = await self._ask("place", device, isolation, self.settings.max_sessions, candidates, list(avoid))
        if name is False:
            raise BackendUnavailable(f"the cluster holds its maximum of {self.settings.max_sessions} sessions")
        if name is not None:
            return name
        a = self.actors
        name = f"host:{secrets.token_hex(6)}"
        options = {"name": name, "namespace": a.NAMESPACE, "lifetime": "detached",
                   "max_concurrency": a.command_threads(capacity)}
        if device == "cuda":
            options["num_gpus"] = self.settings.ray_gpus_per_host
        # Hosts take no CPU while idle, so Ray's default policy would pack them all on one node: ask for the
        # node with the fewest of ours (softly: Ray places the host elsewhere if that node cannot take it).
        if candidates:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
            loads = await self._ask("node_loads", device, isolation)
            node = min(candidates, key=lambda n: loads.get(n, 0))
            options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node_id=node, soft=True)
        host = a.SessionHost.options(**options).remote(name, device, capacity, isolation,
                                                        self.settings.sweep_interval_s)
        try:
            node = await host.ready.remote()
        except self.ray.exceptions.RayError as e:
            raise BackendUnavailable(f"the cluster could not start a session host: {type(e).__name__}") from None
        # the first place on a new host is its creator's: placed afresh, a concurrent request could take it
        # first (one session per host: 2 of 100 concurrent creations answered 503 that way)
        await self._ask("add_host", name, device, capacity, isolation, node, 1)
        self._hosts[name] = host
        return name

    async def _ask(self, method, *args):
        """A call to the directory; a directory that cannot answer is the cluster unavailable (503)."""
        try:
            return await getattr(self.directory, method).remote(*args)
        except self.ray.exceptions.RayError as e:
            log.warning("the session directory did not answer %s: %s", method, type(e).__name__)
            raise BackendUnavailable("the cluster's session directory cannot be reached; retry shortly") from None

    def _actor_gone(self, error):
        """Whether a Ray error says the actor (or its node) is dead for good, not merely unreachable now or a
        failure of one call: only then are its sessions lost (410)."""
        ex = self.ray.exceptions
        return (isinstance(error, (ex.RayActorError, ex.NodeDiedError, ex.WorkerCrashedError))
                and not isinstance(error, ex.ActorUnavailableError))

    def _unsure(self, session_id, name, error):
        """Any other Ray error on a call to host ``name``: 503, and the next request asks the directory
        afresh (which, once Ray declares the node dead, says the session is gone)."""
        log.warning("a call to session host %s failed: %s", name, type(error).__name__)
        self._where.pop(session_id, None)
        self._hosts.pop(name, None)
        return BackendUnavailable("the session's host cannot be reached just now; retry shortly")

    def _host(self, name):
        """The handle of host ``name``; None when Ray knows no live actor of that name (it died)."""
        host = self._hosts.get(name)
        if host is None:
            try:
                host = self.ray.get_actor(name, namespace=self.actors.NAMESPACE)
            except ValueError:
                return None
            except Exception as e:  # the GCS cannot answer just now
                raise BackendUnavailable(f"the cluster cannot be reached just now ({type(e).__name__}); "
                                         "retry shortly") from None
            self._hosts[name] = host
        return host

    async def _host_of(self, placement):
        """(host name, handle) of a session, or (None, None) when the directory does not know it;
        SessionGone when it knows it is gone."""
        name = self._where.get(placement.session_id)
        if name is None:
            found = await self._ask("locate", placement.session_id, placement.digest)
            if found is None:
                return None, None
            state, name = found
            if state != "live":
                placement.alive = False
                raise SessionGone("the process holding this session died")
            if len(self._where) > 100_000:  # a cache, nothing more: any replica can rebuild it
                self._where.clear()
            self._where[placement.session_id] = name
        host = self._host(name)
        if host is None:
            await self._lost_with_host(placement, name)
            return None, None
        return name, host

    async def _lost_with_host(self, placement, name):
        """The host ``name`` of a session died (found through this replica's hint or by a call to it). The
        directory hears of it (its sessions turn gone) and the hints go; then the directory, not the hint,
        decides: SessionGone (410) while it knows the session, None (404) when it no longer does (deleted
        through another replica, or a wrong token). A hint left behind would answer 410 for ever on this
        replica, even once the session was deleted."""
        await self._host_lost(name)
        self._where.pop(placement.session_id, None)
        found = await self._ask("locate", placement.session_id, placement.digest)
        if found is None:
            return None
        placement.alive = False
        raise SessionGone("the actor holding this session died")

    async def _host_lost(self, name):
        self._hosts.pop(name, None)
        try:
            await self.directory.host_gone.remote(name)
        except Exception:
            pass

    async def _session_lost(self, placement):
        placement.alive = False
        self._where.pop(placement.session_id, None)
        try:
            await self.directory.mark_gone.remote(placement.session_id)
        except Exception:
            pass

    def _session_config(self):
        from ..session_process import SESSION_MAX_FILES
        return {"memory_bytes": self.settings.limits.session_bytes, "threads": self.settings.worker_threads,
                "cpu_s": getattr(self.settings, "session_cpu_s", 0), "max_files": SESSION_MAX_FILES}

    # ------------------------------------------------------------ sessions
    async def open_session(self, session_id, device, session=None):
        if session is None:
            raise BackendUnavailable("the Ray backend needs the session's record to open it")
        digest = session.token_digest.hex()
        config = self._session_config() if self._layout(device)[0] == "process" else {}
        tried = []
        for attempt in range(5):
            name = await self._place(device, avoid=tried)
            tried.append(name)
            host = self._host(name)
            if host is None:  # its actor is dead (its node lost, most likely): never a home for a session
                await self._host_lost(name)
                continue
            try:
                problem = await host.open.remote(session_id, digest, session.created_at, session.ttl_expires_at,
                                                 session.idle_timeout_s, config)
            except self.ray.exceptions.RayError as e:
                if self._actor_gone(e):
                    await self._host_lost(name)
                else:  # unreachable for now, maybe not dead: another host
                    await self._ask("release", name)
                continue
            if problem is None:
                await self._ask("add", session_id, digest, name, session.ttl_expires_at)
                self._where[session_id] = name
                return RayPlacement(session_id, digest)
            await self._ask("release", name)
            log.warning("host %s could not open a session: %s", name, problem)
        raise BackendUnavailable("the cluster could not start the session; retry shortly")

    async def close_session(self, placement, session_id):
        """Ends the session on its host and forgets it; False (404) for an unknown id or a wrong token: over
        HTTP nothing checked the token before this."""
        name = await self._ask("remove", session_id, placement.digest)
        self._where.pop(session_id, None)
        if name is None:
            return False
        host = self._host(name)  # None once its actor is dead: nothing is left to free
        if host is not None:
            try:
                await host.close.remote(session_id)
            except self.ray.exceptions.RayError:
                pass
        return True

    def is_alive(self, placement):
        return placement.alive

    async def authenticate(self, session_id, token):
        """The session's record from its host; a session known gone comes back with alive=False (410)."""
        placement = RayPlacement(session_id, _hex_digest(token))
        name = None
        try:
            name, host = await self._host_of(placement)
            record = None if host is None else await host.touch.remote(session_id, placement.digest)
        except SessionGone:
            record = "gone"
        except self.ray.exceptions.RayError as e:
            if not self._actor_gone(e):
                raise self._unsure(session_id, name, e) from None
            try:
                record = await self._lost_with_host(placement, name)
            except SessionGone:
                record = "gone"
        if record is None:
            return None
        if record == "gone":
            await self._session_lost(placement)
            now = time.time()
            return Session(id=session_id, token_digest=bytes.fromhex(placement.digest), device="cpu",
                           created_at=now, ttl_expires_at=now, idle_timeout_s=0.0, last_used=now,
                           placement=placement)
        return Session(id=record["id"], token_digest=bytes.fromhex(placement.digest), device=record["device"],
                       created_at=record["created_at"], ttl_expires_at=record["ttl_expires_at"],
                       idle_timeout_s=record["idle_timeout_s"], last_used=record["last_used"], placement=placement)

    # ------------------------------------------------------------ commands
    async def call(self, placement, header, buffers=(), *, on_events=None, deadline_s=None):
        if not placement.alive:
            raise SessionGone("the process holding this session died")
        name, host = await self._host_of(placement)
        if host is None:
            return _NOT_FOUND, []
        arrays = self.actors.to_arrays(buffers)
        try:
            if header.get("op") == "run":
                reply, out = await self._run(host, placement, header, arrays, on_events, deadline_s)
            else:
                reply_json, out = await host.call.remote(placement.session_id, placement.digest, dumps(header),
                                                          arrays)
                reply = json.loads(reply_json)
        except self.ray.exceptions.RayError as e:
            if not self._actor_gone(e):
                raise self._unsure(placement.session_id, name, e) from None
            # the host died, or its node with what it held: 410, or 404 if deleted meanwhile
            if await self._lost_with_host(placement, name) is None:
                return _NOT_FOUND, []
        if reply.get("gone"):
            await self._session_lost(placement)
            raise SessionGone("the process holding this session died")
        return reply, [memoryview(a) for a in out]

    async def _run(self, host, placement, header, arrays, on_events, deadline_s):
        sid, digest = placement.session_id, placement.digest
        if on_events is None:  # nobody here wants its events: one plain call (a stream costs a round trip more)
            async def consume():
                reply_json, out = await host.run_once.remote(dumps({**header, "session": sid, "digest": digest}),
                                                             arrays)
                return json.loads(reply_json), out
        else:
            async def consume():
                async for ref in host.run.options(num_returns="streaming").remote(sid, digest, dumps(header), arrays):
                    item = await ref
                    if item[0] == "events":
                        on_events(item[1])
                    else:
                        return json.loads(item[1]), item[2]
                raise SessionGone("the session's run stream ended without a reply")

        task = asyncio.ensure_future(consume())
        if deadline_s is None:
            return await task
        done, _ = await asyncio.wait({task}, timeout=deadline_s)
        if done:
            return task.result()
        await host.cancel.remote(sid, digest, header["run"])
        done, _ = await asyncio.wait({task}, timeout=self.grace_s)
        if done:
            reply, out = task.result()
            reply["deadline_passed"] = True   # its Cancelled is the deadline's (runs.deadline_error)
            return reply, out
        # The run ignored the cancel (a long C-level call): its process goes, and with it the session.
        task.cancel()
        if not await host.kill.remote(sid):
            self.ray.kill(host, no_restart=True)  # a session in the host's own process: the host goes
            await self._host_lost(self._where.get(sid, ""))
        await self._session_lost(placement)
        raise RunDeadline()

    async def cancel(self, placement, run_id):
        if not placement.alive:
            return
        try:
            _, host = await self._host_of(placement)
            if host is not None:
                await host.cancel.remote(placement.session_id, placement.digest, run_id)
        except (SessionGone, self.ray.exceptions.RayError):
            pass

    @contextlib.contextmanager
    def relay_budget(self, session_id):
        """The FanoutBudget this replica's connections watching session ``session_id`` share while they
        relay its events (None where settings.stream_events_per_s is 0)."""
        rate = self.settings.stream_events_per_s
        if rate <= 0:
            yield None
            return
        entry = self._relay_budgets.setdefault(session_id, [FanoutBudget(rate), 0])
        entry[1] += 1
        try:
            yield entry[0]
        finally:
            entry[1] -= 1
            if not entry[1]:
                del self._relay_budgets[session_id]

    async def watch(self, placement):
        """Every run's events from the session's host: items {"kind": "begin"|"events"|"reply", "run", ...}."""
        name, host = await self._host_of(placement)
        if host is None:
            return
        stream = host.watch.options(num_returns="streaming").remote(placement.session_id, placement.digest)
        try:
            async for ref in stream:
                try:
                    item = await ref
                except self.ray.exceptions.RayError as e:
                    if not self._actor_gone(e):
                        raise self._unsure(placement.session_id, name, e) from None
                    await self._lost_with_host(placement, name)
                    return
                if item["kind"] in ("watching", "denied"):
                    continue
                if item["kind"] == "gone":
                    await self._session_lost(placement)
                    raise SessionGone("the process holding this session died")
                yield item
        finally:
            try:
                self.ray.cancel(stream)
            except Exception:
                pass
