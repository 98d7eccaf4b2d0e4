"""The embedded backend: worker processes on this machine, spoken to over pipes.

Each worker slot holds one process (spawned, never forked, so it shares
nothing with the server) and many sessions. Commands to one worker go one at a
time, in arrival order, over a Unix socket pair that the event loop itself
reads and writes (a ``wire_frames`` frame per message): replies and streamed
events reach the waiting request without a thread hop, and a big tensor goes
out without blocking the loop. A worker that dies, or that is killed because a
run ignored its cancel past the grace period, is replaced by a fresh process in
the same slot; the sessions it held answer 410 from then on.
"""
import asyncio
import itertools
import json
import logging
import multiprocessing
import os
import socket
import threading
from collections import deque

from .. import worker as worker_module
from ..wire_frames import FrameError, FrameParser, encode_frame
from .base import BackendUnavailable, Placement, RunCancelled, RunDeadline, SessionGone, WorkerBackend

log = logging.getLogger("gradserve.workers")

_SPAWN = multiprocessing.get_context("spawn")
_ENV_LOCK = threading.Lock()
# Commands a worker may have in its pipe. Enough that a worker finds the next one waiting when it
# ends a run, rather than sleeping until the event loop gets round to sending it: under load every
# such sleep is a wake-up that preempts the event loop. (The frames' arrays are held by their
# requests anyway; the transport keeps references, not copies.)
PIPELINE_DEPTH = 8
# A frame claiming more than this from a worker is refused (and the worker replaced).
MAX_FRAME_BYTES = 1 << 36


class _Command:
    """One command in flight to a worker, with its deadline clock."""
    __slots__ = ("req", "run_id", "fut", "deadline_s", "grace_s", "timer", "killed")

    def __init__(self, req, run_id, fut, deadline_s, grace_s):
        self.req, self.run_id, self.fut = req, run_id, fut
        self.deadline_s, self.grace_s = deadline_s, grace_s
        self.timer = None
        self.killed = False

    def stop_clock(self):
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


def _start_with_env(process, env):
    """Starts ``process`` with ``env`` added to its environment (spawn copies os.environ at start)."""
    with _ENV_LOCK:
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            process.start()
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


class _WorkerStream(asyncio.BufferedProtocol):
    """The event loop's end of a worker's socket: frames in, parsed where they land."""

    def __init__(self, worker):
        self.worker = worker
        self.parser = FrameParser(worker._on_frame, MAX_FRAME_BYTES)
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport

    def get_buffer(self, sizehint):
        return self.parser.get_buffer(sizehint)

    def buffer_updated(self, nbytes):
        try:
            self.parser.buffer_updated(nbytes)
        except FrameError as e:  # a worker that sends garbage is not trusted with more work
            log.error("worker %d sent a malformed message (%s); replacing it", self.worker.slot, e)
            self.transport.close()

    def eof_received(self):
        return False  # close our end too

    def connection_lost(self, exc):
        self.worker._on_eof()


class _WorkerProcess:
    """One worker process in a slot, with its socket and the commands in flight."""

    def __init__(self, slot, generation, device, config, env, loop, on_death):
        self.slot = slot
        self.generation = generation
        self.device = device
        self.config = config
        self.env = env
        self.loop = loop
        self.on_death = on_death
        self.process = None
        self.transport = None
        self.cancel_conn = None
        self.alive = False
        self.sessions = set()
        self.room = asyncio.Semaphore(PIPELINE_DEPTH)
        self.pending = {}           # req id -> _Command
        self.in_pipe = deque()      # commands sent and not yet answered, in the worker's order
        self.event_handlers = {}    # run id -> callable(events)
        self.precancelled = set()
        self._hello = loop.create_future()
        self._req_ids = itertools.count(1)

    async def start(self, timeout_s=120.0):
        sock, child_sock = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        cancel_r, cancel_w = _SPAWN.Pipe(duplex=False)
        self.cancel_conn = cancel_w
        self.process = _SPAWN.Process(target=worker_module.main, args=(child_sock, cancel_r, self.config),
                                      name=f"gradserve-worker-{self.slot}", daemon=True)
        try:
            await asyncio.to_thread(_start_with_env, self.process, self.env)
        finally:
            child_sock.close()
            cancel_r.close()
        self.transport, _ = await self.loop.connect_accepted_socket(lambda: _WorkerStream(self), sock)
        await asyncio.wait_for(self._hello, timeout_s)
        self.alive = True

    @property
    def pid(self):
        return self.process.pid if self.process is not None else None

    # ------------------------------------------------------------ reading
    def _on_frame(self, header, buffers):
        """Every message from the worker, in order, on the event loop."""
        if "event" in header:
            self._on_events(header["event"], header.get("events") or [])
        elif "reply" in header:
            self._on_reply(header, buffers)
        elif "hello" in header:
            self._on_hello()

    def _on_hello(self):
        if not self._hello.done():
            self._hello.set_result(None)

    def _on_events(self, run_id, events):
        handler = self.event_handlers.get(run_id)
        if handler is not None:
            try:
                handler(events)
            except Exception:
                log.exception("event handler failed")

    def _on_reply(self, header, buffers):
        command = self.pending.get(header.get("reply"))
        if self.in_pipe and self.in_pipe[0] is command:
            self.in_pipe.popleft()
            if self.in_pipe:
                self._start_clock(self.in_pipe[0])
        if command is not None and not command.fut.done():
            command.fut.set_result((header, buffers))

    def _on_eof(self):
        if not self._hello.done():
            self._hello.set_exception(BackendUnavailable(f"worker {self.slot} exited while starting"))
        self._mark_dead()
        self.on_death(self)

    def _mark_dead(self):
        was_alive, self.alive = self.alive, False
        for command in self.pending.values():
            command.stop_clock()
            if not command.fut.done():
                command.fut.set_exception(SessionGone("the worker holding this session died"))
                command.fut.exception()  # retrieved here: a caller may already have gone
        return was_alive

    # ------------------------------------------------------------ commands
    async def call(self, header, buffers, on_events, deadline_s, grace_s):
        run_id = header.get("run")
        async with self.room:  # at most PIPELINE_DEPTH commands in the pipe
            if not self.alive:
                raise SessionGone("the worker holding this session died")
            if run_id is not None and run_id in self.precancelled:
                self.precancelled.discard(run_id)
                raise RunCancelled(run_id)
            req = next(self._req_ids)
            header["req"] = req
            command = _Command(req, run_id, self.loop.create_future(), deadline_s, grace_s)
            self.pending[req] = command
            if on_events is not None and run_id is not None:
                self.event_handlers[run_id] = on_events
            self.in_pipe.append(command)
            if len(self.in_pipe) == 1:
                self._start_clock(command)
            try:
                self._send(header, buffers)  # a whole frame at once: messages never interleave
                return await command.fut
            except SessionGone:
                if command.killed:
                    raise RunDeadline(run_id) from None
                raise
            finally:
                command.stop_clock()
                self.pending.pop(req, None)
                if run_id is not None:
                    self.event_handlers.pop(run_id, None)

    def _start_clock(self, command):
        """The worker starts ``command`` now (the one before it answered): its deadline runs from here."""
        if command.deadline_s is not None:
            command.timer = self.loop.call_later(command.deadline_s, self._deadline_passed, command)

    def _deadline_passed(self, command):
        if command.fut.done():
            return
        self.send_cancel(command.run_id)
        command.timer = self.loop.call_later(command.grace_s, self._ignored_cancel, command)

    def _ignored_cancel(self, command):
        if not command.fut.done():
            log.warning("worker %d: run %s ignored its cancel for %.1fs; replacing the worker",
                        self.slot, command.run_id, command.grace_s)
            command.killed = True
            self.kill()

    def _send(self, header, buffers):
        """Queues one frame on the socket (the transport writes it as the worker reads; nothing blocks)."""
        transport = self.transport
        if transport is None or transport.is_closing():
            raise SessionGone("the worker holding this session died")
        transport.writelines(encode_frame(header, buffers))

    def running(self, run_id):
        return any(c.run_id == run_id for c in self.in_pipe)

    def send_cancel(self, run_id):
        """Cancels a run in the pipe (the worker stops it, or skips it when it comes up), or one still waiting."""
        if run_id is None:
            return
        if self.running(run_id):
            try:
                self.cancel_conn.send_bytes(json.dumps({"run": run_id}).encode())
            except (OSError, ValueError):
                pass
        else:
            if len(self.precancelled) > 1000:  # cancels that crossed their run's end
                self.precancelled.clear()
            self.precancelled.add(run_id)

    def kill(self):
        """Kills the process now; its death is handled like any other."""
        if self._mark_dead():
            try:
                self.process.kill()
            except (OSError, AttributeError):
                pass
            self.on_death(self)

    async def stop(self):
        self.alive = False
        if self.transport is not None:
            self.transport.close()
        try:
            self.cancel_conn.close()
        except (OSError, AttributeError):
            pass
        if self.process is not None and self.process.pid is not None:
            await asyncio.to_thread(self.process.join, 3.0)
            if self.process.is_alive():
                self.process.kill()
                await asyncio.to_thread(self.process.join, 3.0)


class LocalBackend(WorkerBackend):
    """Worker processes on this machine: CPU workers, plus one per visible GPU."""

    def __init__(self, settings):
        self.settings = settings
        self.grace_s = settings.cancel_grace_s
        self.slots = []
        self.restarts = []
        self._starting = {}
        self._stopping = False
        self.loop = None

    def _slot_specs(self):
        specs = [("cpu", None)] * max(1, self.settings.workers)
        gpus = self.settings.gpu_workers
        if gpus is None:
            from gradserve.engine.device import cuda_available
            gpus = 0
            if cuda_available():
                import cupy
                gpus = cupy.cuda.runtime.getDeviceCount()
        specs += [("cuda", i) for i in range(gpus)]
        return specs

    def _new_process(self, slot, generation):
        device, gpu = self._specs[slot]
        threads = str(self.settings.worker_threads)
        env = {"OMP_NUM_THREADS": threads, "OPENBLAS_NUM_THREADS": threads, "MKL_NUM_THREADS": threads}
        if gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = str(gpu)
        config = {"device": device, "memory_bytes": self.settings.worker_memory_bytes,
                  "max_files": self.settings.worker_max_files}
        return _WorkerProcess(slot, generation, device, config, env, self.loop, self._on_death)

    async def start(self):
        self.loop = asyncio.get_running_loop()
        self._specs = self._slot_specs()
        self.slots = [self._new_process(i, 0) for i in range(len(self._specs))]
        self.restarts = [0] * len(self.slots)
        await asyncio.gather(*(w.start() for w in self.slots))
        log.info("started %d workers: %s", len(self.slots), ", ".join(f"{w.device} pid {w.pid}" for w in self.slots))

    async def stop(self):
        self._stopping = True
        for task in list(self._starting.values()):
            task.cancel()
        await asyncio.gather(*(w.stop() for w in self.slots), return_exceptions=True)

    def _on_death(self, dead):
        if self._stopping or self.slots[dead.slot] is not dead or dead.slot in self._starting:
            return
        log.warning("worker %d (pid %s) died; its %d sessions are gone; starting a replacement",
                    dead.slot, dead.pid, len(dead.sessions))
        self.restarts[dead.slot] += 1
        self._starting[dead.slot] = self.loop.create_task(self._replace(dead))

    async def _replace(self, dead):
        try:
            if dead.process is not None:
                dead.process.kill()
                await asyncio.to_thread(dead.process.join, 5.0)
            await dead.stop()
            delay = 0.1
            while not self._stopping:
                fresh = self._new_process(dead.slot, dead.generation + 1)
                self.slots[dead.slot] = fresh
                try:
                    await fresh.start()
                    return
                except (BackendUnavailable, asyncio.TimeoutError, OSError) as e:
                    log.error("worker %d failed to start (%s); retrying", dead.slot, e)
                    await fresh.stop()
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 10.0)
                    dead = fresh
        finally:
            self._starting.pop(dead.slot, None)

    # ------------------------------------------------------------ interface
    def ready(self):
        return any(w.alive for w in self.slots)

    def devices(self):
        return sorted({device for device, _ in getattr(self, "_specs", [])})

    def health(self):
        return {"workers": [{"worker": w.slot, "device": w.device, "alive": w.alive, "sessions": len(w.sessions),
                             "restarts": self.restarts[w.slot], "busy": bool(w.in_pipe)}
                            for w in self.slots]}

    def worker_pid(self, placement):
        """The pid of the process holding a placement (for tests and operators)."""
        w = self.slots[placement.worker]
        return w.pid if w.generation == placement.generation else None

    async def open_session(self, session_id, device, session=None):
        candidates = [w for w in self.slots if w.alive and w.device == device]
        if not candidates:
            raise BackendUnavailable(f"no {device} worker is available")
        w = min(candidates, key=lambda w: (len(w.sessions), w.slot))
        w.sessions.add(session_id)
        placement = Placement(w.slot, w.generation)
        try:
            await self.call(placement, {"op": "open", "session": session_id})
        except BaseException:
            w.sessions.discard(session_id)
            raise
        return placement

    async def close_session(self, placement, session_id):
        w = self.slots[placement.worker]
        if w.generation != placement.generation:
            return
        w.sessions.discard(session_id)
        if w.alive:
            try:
                await w.call({"op": "close", "session": session_id}, (), None, None, self.grace_s)
            except SessionGone:
                pass

    def is_alive(self, placement):
        w = self.slots[placement.worker]
        return w.generation == placement.generation and w.alive

    async def call(self, placement, header, buffers=(), *, on_events=None, deadline_s=None):
        w = self.slots[placement.worker]
        if w.generation != placement.generation:
            raise SessionGone("the worker holding this session died")
        return await w.call(header, buffers, on_events, deadline_s, self.grace_s)

    async def cancel(self, placement, run_id):
        w = self.slots[placement.worker]
        if w.generation == placement.generation and w.alive:
            w.send_cancel(run_id)
