"""The Ray side of the Ray backend: session hosts and the session directory.

A ``SessionHost`` is a Ray actor that holds up to ``capacity`` sessions. For CPU sessions
it forks each one a process of its own from a warm template (``session_process``: the
kernel-enforced limits and the crash isolation of the local backend, a few MB and tens
of milliseconds per session); GPU sessions share the host's process, as they share a
GPU worker locally. With ``capacity=1`` and ``isolation="shared"`` it is the actor-per-
session layout, kept to measure against (README, "Scaling out").

For each session the host keeps its record (token digest, device, expiry, last use), the
run in progress and the watchers of its events; API replicas keep nothing. Every call
carries the token's digest, which the host checks. The ``Directory`` (one named actor)
knows which host holds which session, which hosts exist and how full they are, and
remembers sessions whose host or process died, so they answer 410 (not 404) on every
replica. Expiry is each host's own business: no replica is in charge.

Headers cross as JSON bytes and tensors as raw bytes: buffers big enough for Ray's object store as
NumPy ``uint8`` arrays (which it hands over without a copy), small ones, which Ray inlines in the call,
as ``bytes``: nothing a program controls is ever pickled.
"""
import hmac
import json
import os
import queue
import threading
import time

import numpy as np
import ray

from ..json_codec import dumps

NAMESPACE = "gradserve"
DIRECTORY = "gradserve-directory"
WATCH_QUEUE = 4096  # events a watcher's queue holds before node/backward/log events are dropped
_DROPPABLE = frozenset({"node", "backward", "log"})
GONE = dumps({"ok": False, "gone": True})
# A host's threads, in groups that never wait on each other: commands (a run holds one for its whole length;
# a host is created with two per session it holds, plus a few), control (cancel, kill, close, touch: never
# stuck behind the runs they are meant to stop) and watchers (one each while they watch; a watcher's thread
# looks every WATCH_POLL_S whether its caller went away).
CONTROL_THREADS = 8
WATCH_THREADS = 256
WATCH_POLL_S = 0.5


def command_threads(capacity):
    return 2 * capacity + 4


# Ray inlines an argument or a result smaller than this (its max_direct_call_object_size) in the call itself;
# bigger ones go through its shared-memory object store.
INLINE_BYTES = 100 * 1024


def to_arrays(buffers):
    """Byte buffers for a Ray call. A buffer Ray may move through its object store goes as a uint8 array,
    which it hands over without copying; a small one, which Ray inlines in the call anyway, as bytes: Ray
    writes those raw (msgpack's bin), where an array costs a pickle-5 round (measured: ~0.2 ms a direction
    on a tiny run). Neither is ever pickled from user data."""
    return [bytes(b) if _nbytes(b) < INLINE_BYTES else np.frombuffer(b, dtype=np.uint8) for b in buffers]


def _nbytes(b):
    return b.nbytes if isinstance(b, (memoryview, np.ndarray)) else len(b)


def _denied(status, type_, message):
    return dumps({"ok": False, "status": status, "error": {"type": type_, "message": message}})


NOT_FOUND = _denied(404, "SessionNotFound", "no such session, or a wrong token")


@ray.remote(num_cpus=0, max_restarts=0, max_task_retries=0)
class Directory:
    """Sessions {id: {"digest", "host", "state", "expires_at"}} and hosts {name: {"device", "capacity",
    "sessions", "alive"}}; sessions whose host or process died stay (as 'gone') until their expiry."""

    def __init__(self):
        self.sessions = {}
        self.hosts = {}
        self._nodes_read_at = 0.0

    def _reap_lost_nodes(self, every_s=1.0):
        """Hosts on nodes Ray has declared dead are gone, with their sessions (at most once per ``every_s``).

        Nothing else tells the directory that a node was lost: a replica finds out only when it calls a
        host there, and hosts nobody calls (emptied, or holding sessions nobody uses) would otherwise stay
        placeable forever."""
        now = time.monotonic()
        if now - self._nodes_read_at < every_s or not any(h["alive"] for h in self.hosts.values()):
            return
        self._nodes_read_at = now
        try:
            dead = {n["NodeID"] for n in ray.nodes() if not n["Alive"]}
        except Exception:  # the GCS is busy: the next call tries again
            return
        for name, h in list(self.hosts.items()):
            if h["alive"] and h["node"] in dead:
                self.host_gone(name)

    # hosts
    def add_host(self, name, device, capacity, isolation, node, taken=0):
        """A new host; ``taken`` places counted as taken already (its creator's session)."""
        self.hosts[name] = {"device": device, "capacity": capacity, "sessions": taken, "alive": True,
                            "isolation": isolation, "node": node}

    def node_loads(self, device, isolation):
        """Live hosts of a kind per node, for spreading new hosts over the cluster."""
        loads = {}
        for h in self.hosts.values():
            if h["alive"] and h["device"] == device and h["isolation"] == isolation:
                loads[h["node"]] = loads.get(h["node"], 0) + 1
        return loads

    def place(self, device, isolation, max_sessions, nodes, avoid=()):
        """A host with room for one more session (counted as taken), on the node of ``nodes`` (the nodes the
        caller sees alive) holding the fewest sessions, never one named in ``avoid``; None when a node has
        no such host yet or none has room (the caller starts one there); False when the cluster holds
        ``max_sessions`` already."""
        self._purge()
        self._reap_lost_nodes()
        if sum(r["state"] == "live" for r in self.sessions.values()) >= max_sessions:
            return False
        kind = {name: h for name, h in self.hosts.items()
                if h["alive"] and h["device"] == device and h["isolation"] == isolation
                and (not nodes or h["node"] in nodes) and name not in avoid}
        if any(not any(h["node"] == node for h in kind.values()) for node in nodes):
            return None
        on_node = {}
        for h in kind.values():
            on_node[h["node"]] = on_node.get(h["node"], 0) + h["sessions"]
        fits = [(on_node[h["node"]], h["sessions"], name) for name, h in kind.items() if h["sessions"] < h["capacity"]]
        if not fits:
            return None
        name = min(fits)[2]
        self.hosts[name]["sessions"] += 1
        return name

    def host_gone(self, name):
        host = self.hosts.get(name)
        if host is not None:
            host["alive"] = False
        for record in self.sessions.values():
            if record["host"] == name:
                record["state"] = "gone"

    # sessions
    def add(self, session_id, digest, host, expires_at):
        self.sessions[session_id] = {"digest": digest, "host": host, "state": "live", "expires_at": expires_at}

    def release(self, host):
        """A place taken with ``place`` but not used (the session could not start)."""
        if host in self.hosts:
            self.hosts[host]["sessions"] = max(0, self.hosts[host]["sessions"] - 1)

    def remove(self, session_id, digest=None):
        """Forgets a session; answers the name of the host that held it, or None for an unknown id or (when
        ``digest`` is given) a wrong token, and then forgets nothing."""
        record = self.sessions.get(session_id)
        if record is None or (digest is not None and not hmac.compare_digest(record["digest"], digest)):
            return None
        del self.sessions[session_id]
        if record["state"] == "live":
            self.release(record["host"])
        return record["host"]

    def mark_gone(self, session_id):
        record = self.sessions.get(session_id)
        if record is not None and record["state"] == "live":
            record["state"] = "gone"
            self.release(record["host"])

    def locate(self, session_id, digest):
        """(state, host) of a session, or None for an unknown id or a wrong token (the same answer)."""
        record = self.sessions.get(session_id)
        if record is None or not hmac.compare_digest(record["digest"], digest):
            return None
        return record["state"], record["host"]

    def counts(self):
        self._purge()
        self._reap_lost_nodes()
        states = [r["state"] for r in self.sessions.values()]
        return {"live": states.count("live"), "gone": states.count("gone"),
                "hosts": sum(h["alive"] for h in self.hosts.values()),
                "hosts_lost": sum(not h["alive"] for h in self.hosts.values()),
                "per_host": [{"host": name, "node": h["node"], "device": h["device"], "alive": h["alive"],
                              "sessions": h["sessions"] if h["alive"] else 0, "capacity": h["capacity"]}
                             for name, h in self.hosts.items()]}

    def _purge(self):
        now = time.time()
        for k in [k for k, r in self.sessions.items() if r["state"] == "gone" and r["expires_at"] < now]:
            del self.sessions[k]
        for k in [k for k, h in self.hosts.items() if not h["alive"]
                  and not any(r["host"] == k for r in self.sessions.values())]:
            del self.hosts[k]


class _Hosted:
    """One session on a host: its record, its executor (a session process or the host's own worker),
    the run in progress and its watchers."""

    def __init__(self, session_id, digest, device, created_at, ttl_expires_at, idle_timeout_s, execute, cancel,
                 process=None):
        self.id = session_id
        self.digest = digest
        self.device = device
        self.created_at = created_at
        self.ttl_expires_at = ttl_expires_at
        self.idle_timeout_s = idle_timeout_s
        self.last_used = created_at
        # (header, buffers, on_events) -> (reply, buffers), blocking, one command at a time (``lock``);
        # EOFError or OSError once the process is dead. on_events is called in the calling thread.
        self.execute = execute
        self.cancel = cancel        # run id -> None (never waits for the command in progress)
        self.process = process      # session_process.SessionProcess, or None when in the host's process
        self.lock = threading.Lock()  # held by the command in progress
        self.process_closed = False
        self.run_id = None
        self.own = None             # the run in progress's own event queue, when its caller streams
        self.watchers = set()       # queue.Queue each
        self.closed = False
        self.gone = False

    @property
    def expires_at(self):
        return min(self.ttl_expires_at, self.last_used + self.idle_timeout_s)

    def auth(self, digest, touch=True):
        if self.closed or not hmac.compare_digest(self.digest, digest):
            return False
        now = time.time()
        if now >= self.expires_at:
            return False
        if touch:
            self.last_used = now
        return True

    def record(self):
        return {"id": self.id, "device": self.device, "created_at": self.created_at,
                "ttl_expires_at": self.ttl_expires_at, "idle_timeout_s": self.idle_timeout_s,
                "last_used": self.last_used, "run_id": self.run_id, "watchers": len(self.watchers),
                "pid": self.process.pid if self.process is not None else os.getpid(),
                "node": ray.get_runtime_context().get_node_id()}

    def publish(self, item):
        for q in list(self.watchers):
            if q.qsize() >= WATCH_QUEUE and item["kind"] == "events":
                kept = [e for e in item["events"] if e.get("type") not in _DROPPABLE]
                if not kept:
                    continue
                item = {**item, "events": kept}
            q.put_nowait(item)

    def fan_out(self, events):
        own = self.own
        if own is not None:
            own.put_nowait(events)
        if self.watchers:
            self.publish({"kind": "events", "run": self.run_id, "events": events})


_END = object()


# A threaded actor, not an async one: each call runs in one of Ray's own threads, which also speaks to the
# session process over its socket, blocking. An async actor hands every call from the thread Ray received it
# on to its event loop's thread and the result back (measured, an echo through a session-like process:
# 1.62 ms async, 1.22 ms threaded, load ~2). Watchers hold a thread each, in a group of their own, so that
# they never take the threads commands need.
@ray.remote(num_cpus=0, max_restarts=0, max_task_retries=0, max_concurrency=command_threads(1),
            concurrency_groups={"control": CONTROL_THREADS, "watch": WATCH_THREADS})
class SessionHost:
    """Up to ``capacity`` sessions (see the module docstring)."""

    def __init__(self, name, device, capacity, isolation, sweep_interval_s):
        self.name = name
        self.device = device
        self.capacity = capacity
        self.isolation = isolation
        self.sweep_interval_s = sweep_interval_s
        self.sessions = {}
        # sessions whose process died here: {id: (digest, expires_at)}, so that they answer "gone" (410) and
        # not "no such session" (404) to a replica that still knows them as here, until they expire or are
        # deleted
        self.lost = {}
        self.lock = threading.Lock()  # sessions, lost, and each session's run_id
        self._sweeper = None
        self.template = None
        self.worker = None
        if isolation == "process":
            from ..session_process import Template
            self.template = Template(f"gradserve-template-{name}").start()
        else:
            from ..worker import Worker
            self.worker = Worker(device, send_event=self._from_worker)
            self._current = None  # the in-process session whose run is in progress

    @ray.method(concurrency_group="control")
    def ready(self):
        """Starts the host's expiry thread; answers the node it runs on."""
        with self.lock:
            if self._sweeper is None:
                self._sweeper = threading.Thread(target=self._expire_forever, name="expiry", daemon=True)
                self._sweeper.start()
        return ray.get_runtime_context().get_node_id()

    # ------------------------------------------------------------ sessions
    def open(self, session_id, digest, created_at, ttl_expires_at, idle_timeout_s, config):
        """Starts a session here; an error message, or None."""
        if len(self.sessions) >= self.capacity:
            return "this host is full"
        if self.template is not None:
            from ..session_process import SessionClient
            try:
                process = self.template.fork(config)
            except OSError as e:
                return f"could not start a session process: {e}"
            try:
                client = SessionClient(process)
            except (OSError, EOFError) as e:
                process.close()
                return f"could not start a session process: {e}"

            def execute(header, buffers, on_events):
                with hosted.lock:
                    return client.call(header, buffers, on_events)

            hosted = _Hosted(session_id, digest, self.device, created_at, ttl_expires_at, idle_timeout_s,
                             execute, client.cancel, process)
        else:
            worker = self.worker

            def execute(header, buffers, on_events):
                with hosted.lock:
                    self._current = hosted
                    try:
                        return worker.handle(header, buffers)
                    finally:
                        self._current = None

            hosted = _Hosted(session_id, digest, self.device, created_at, ttl_expires_at, idle_timeout_s,
                             execute, worker.cancel)
        reply, _ = self._execute(hosted, {"op": "open", "session": session_id}, [], None)
        if reply is None or not reply.get("ok"):
            return "the session process refused to open"
        with self.lock:
            self.sessions[session_id] = hosted
        return None

    @ray.method(concurrency_group="control")
    def close(self, session_id):
        """Ends a session: later calls answer 404, its run is cancelled, its process killed."""
        with self.lock:
            self.lost.pop(session_id, None)
            hosted = self.sessions.pop(session_id, None)
        if hosted is None:
            return
        hosted.closed = True
        if hosted.run_id is not None:
            hosted.cancel(hosted.run_id)
        self._end(hosted)

    def _end(self, hosted):
        if hosted.process is not None:
            self._close_process(hosted)
        elif self.worker is not None:
            self.worker.handle({"op": "close", "session": hosted.id}, [])

    @ray.method(concurrency_group="control")
    def kill(self, session_id):
        """Kills a session whose run ignored its cancel (a long C-level call): the session is gone.
        In the host's own process that is the whole host: the caller kills the actor."""
        hosted = self.sessions.get(session_id)
        if hosted is None or hosted.process is None:
            return False
        hosted.process.kill()
        self._lost(hosted)
        return True

    def _lost(self, hosted):
        with self.lock:
            if hosted.gone:
                return
            hosted.gone = True
            if self.sessions.pop(hosted.id, None) is not None:
                self.lost[hosted.id] = (hosted.digest, hosted.expires_at)
        if hosted.process is not None:
            hosted.process.kill()
            if hosted.lock.acquire(blocking=False):  # else the command in progress closes it when it fails
                try:
                    self._close_process(hosted)
                finally:
                    hosted.lock.release()
        directory = ray.get_actor(DIRECTORY, namespace=NAMESPACE)
        directory.mark_gone.remote(hosted.id)

    def _close_process(self, hosted):
        """Kills a session's process and closes what this side holds of it, once."""
        with self.lock:
            if hosted.process_closed:
                return
            hosted.process_closed = True
        hosted.process.close()

    def _missing(self, session_id, digest):
        """Whether a session not held here is one whose process died here (for its own token)."""
        lost = self.lost.get(session_id)
        return lost is not None and hmac.compare_digest(lost[0], digest)

    @ray.method(concurrency_group="control")
    def touch(self, session_id, digest):
        """The session's record if ``digest`` is its token's; None if not; "gone" if its process died."""
        hosted = self.sessions.get(session_id)
        if hosted is None:
            return "gone" if self._missing(session_id, digest) else None
        if hosted.process is not None and hosted.process.exited():
            self._lost(hosted)
            return "gone"
        return hosted.record() if hosted.auth(digest) else None

    def _expire_forever(self):
        directory = ray.get_actor(DIRECTORY, namespace=NAMESPACE)
        while True:
            time.sleep(self.sweep_interval_s)
            try:
                now = time.time()
                with self.lock:
                    for k in [k for k, (_, expires_at) in self.lost.items() if expires_at <= now]:
                        del self.lost[k]
                    due = [h for h in self.sessions.values() if h.run_id is None and now >= h.expires_at]
                for hosted in due:
                    ray.get(directory.remove.remote(hosted.id))
                    self.close(hosted.id)
            except Exception:  # the directory is busy or unreachable: the next sweep tries again
                pass

    # ------------------------------------------------------------ commands
    def _execute(self, hosted, header, buffers, on_events):
        try:
            return hosted.execute(header, list(buffers), on_events)
        except (EOFError, OSError):  # the session's process died (crash, OOM, killed)
            self._lost(hosted)
            if hosted.process is not None:
                self._close_process(hosted)
            return None, None

    def call(self, session_id, digest, header_json, buffers):
        """One command other than a run: (reply JSON, reply buffers)."""
        hosted = self.sessions.get(session_id)
        if hosted is None and self._missing(session_id, digest):
            return GONE, []
        if hosted is None or not hosted.auth(digest):
            return NOT_FOUND, []
        header = json.loads(header_json)
        if header.get("op") in ("run", "open", "close"):
            return _denied(400, "BadCommand", f"{header.get('op')!r} is not a command for SessionHost.call"), []
        reply, out = self._execute(hosted, header, buffers, None)
        if reply is None:
            return GONE, []
        if header.get("op") == "describe" and reply.get("ok"):
            reply["record"] = hosted.record()
        return dumps(reply), to_arrays(out)

    def _claim(self, session_id, digest, run_id):
        """(the session, None) with its run now ``run_id``; or (None, a refusal's reply JSON)."""
        with self.lock:
            hosted = self.sessions.get(session_id)
            if hosted is None and self._missing(session_id, digest):
                return None, GONE
            if hosted is None or not hosted.auth(digest):
                return None, NOT_FOUND
            if hosted.run_id is not None:
                return None, dumps({"ok": False, "status": 409, "error": {
                    "type": "Conflict", "message": "a run is already in progress in this session; wait for it or "
                                                   "cancel it", "run": hosted.run_id.partition("/")[2]}})
            hosted.run_id = run_id
            return hosted, None

    def run_once(self, header_json, buffers):
        """A run whose caller wants only its reply: (reply JSON, buffers). Watchers still get its events. The
        session and the token's digest travel in the header ("session", "digest"; the digest goes no further)."""
        header = json.loads(header_json)
        digest = header.pop("digest", None)
        if not isinstance(digest, str):
            return NOT_FOUND, []
        hosted, refusal = self._claim(header.get("session"), digest, header["run"])
        if refusal is not None:
            return refusal, []
        return self._run(hosted, header, buffers, None)

    def run(self, session_id, digest, header_json, buffers):
        """A run, as a stream: ("events", [event, ...]) items while it executes, then ("reply", JSON, buffers)."""
        header = json.loads(header_json)
        hosted, refusal = self._claim(session_id, digest, header["run"])
        if refusal is not None:
            yield ("reply", refusal, [])
            return
        own = queue.Queue()
        result = []

        def work():
            try:
                result.append(self._run(hosted, header, buffers, own))
            except BaseException as e:
                result.append(e)
            finally:
                own.put(_END)

        threading.Thread(target=work, name="run", daemon=True).start()
        while True:
            item = own.get()
            if item is _END:
                break
            yield ("events", item)
        if isinstance(result[0], BaseException):
            raise result[0]
        reply_json, arrays = result[0]
        yield ("reply", reply_json, arrays)

    def _run(self, hosted, header, buffers, own):
        """Runs in the calling thread; its run id is already claimed. (reply JSON, buffers)."""
        run_id = header["run"]
        try:
            watched = bool(hosted.watchers)
            header["stream"] = bool(header.get("stream")) or watched
            header["trace"] = bool(header.get("trace")) or watched
            hosted.own = own
            hosted.publish({"kind": "begin", "run": run_id})
            reply, out = self._execute(hosted, header, buffers, hosted.fan_out)
        finally:
            hosted.own = None
            hosted.run_id = None
        if reply is None:
            hosted.publish({"kind": "gone", "run": run_id})
            return GONE, []
        reply_json, arrays = dumps(reply), to_arrays(out)
        hosted.publish({"kind": "reply", "run": run_id, "reply": reply_json, "buffers": arrays})
        return reply_json, arrays

    @ray.method(concurrency_group="control")
    def cancel(self, session_id, digest, run_id):
        hosted = self.sessions.get(session_id)
        if hosted is not None and hosted.auth(digest, touch=False):
            hosted.cancel(run_id)

    @ray.method(concurrency_group="watch")
    def watch(self, session_id, digest):
        """Every run's events, as they happen, until the watcher goes away (its caller cancels the stream)."""
        hosted = self.sessions.get(session_id)
        if hosted is None and self._missing(session_id, digest):
            yield {"kind": "gone"}
            return
        if hosted is None or not hosted.auth(digest):
            yield {"kind": "denied"}
            return
        q = queue.Queue()
        hosted.watchers.add(q)
        context = ray.get_runtime_context()
        try:
            yield {"kind": "watching"}
            while not hosted.closed and not context.is_canceled():
                try:
                    item = q.get(timeout=WATCH_POLL_S)
                except queue.Empty:
                    if hosted.gone:
                        yield {"kind": "gone"}
                        return
                    continue
                yield item
                if item["kind"] == "gone":
                    return
        finally:
            hosted.watchers.discard(q)

    # ------------------------------------------------------------ in-process sessions
    def _from_worker(self, frame):
        """The host's own worker's events (in the thread running the in-process session's command)."""
        hosted = self._current
        if hosted is not None:
            hosted.fan_out(frame["events"])
