"""The embedded backend: a process per CPU session, and a shared worker per GPU, spoken to over sockets.

Each CPU session runs in a process of its own, forked from a warm template
process (``session_process``): whatever its program does, a crash, an
out-of-memory kill, or a kill at the deadline ends that session alone (410),
and the kernel enforces its limits. GPU sessions share one worker process per
GPU (spawned, never forked: CUDA contexts cannot be forked), which hosts many
sessions; with ``isolation="shared"`` CPU sessions share ``workers`` such
processes too (the model before process-per-session).

Commands to one process go one at a time, in arrival order, over a Unix socket
pair that the event loop itself reads and writes (a ``wire_frames`` frame per
message): replies and streamed events reach the waiting request without a
thread hop, and a big tensor goes out without blocking the loop. A shared
worker that dies, or that is killed because a run ignored its cancel past the
grace period, is replaced by a fresh process in the same slot; the sessions it
held answer 410 from then on. So does a session whose own process died.
"""
import asyncio
import itertools
import json
import logging
import multiprocessing
import os
import socket
from collections import deque

from .. import worker as worker_module
from ..session_process import SESSION_MAX_FILES, Template, TemplateGone, spawn_with_env
from ..wire_frames import FrameError, FrameParser, encode_frame
from .base import BackendUnavailable, Placement, RunCancelled, RunDeadline, SessionGone, WorkerBackend

log = logging.getLogger("gradserve.workers")

_SPAWN = multiprocessing.get_context("spawn")
# Commands a worker may have in its pipe. Enough that a worker finds the next one waiting when it
# ends a run, rather than sleeping until the event loop gets round to sending it: under load every
# such sleep is a wake-up that preempts the event loop. (The frames' arrays are held by their
# requests anyway; the transport keeps references, not copies.)
PIPELINE_DEPTH = 8
# A frame claiming more than this from a worker is refused (and the worker replaced).
MAX_FRAME_BYTES = 1 << 36


class _Command:
    """One command in flight to a worker, with its deadline clock."""
    __slots__ = ("req", "run_id", "fut", "deadline_s", "grace_s", "timer", "killed", "deadline_passed")

    def __init__(self, req, run_id, fut, deadline_s, grace_s):
        self.req, self.run_id, self.fut = req, run_id, fut
        self.deadline_s, self.grace_s = deadline_s, grace_s
        self.timer = None
        self.killed = False
        self.deadline_passed = False  # the run was cancelled because its deadline passed (not by a user)

    def stop_clock(self):
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


class _WorkerStream(asyncio.BufferedProtocol):
    """The event loop's end of a worker's socket: frames in, parsed where they land."""

    def __init__(self, worker):
        self.worker = worker
        self.parser = FrameParser(worker._on_frame, MAX_FRAME_BYTES, budget=worker.budget,
                                  on_refused=worker._on_refused)
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport

    def get_buffer(self, sizehint):
        return self.parser.get_buffer(sizehint)

    def buffer_updated(self, nbytes):
        try:
            self.parser.buffer_updated(nbytes)
        except FrameError as e:  # a worker that sends garbage is not trusted with more work
            log.error("%s sent a malformed message (%s); ending it", self.worker.label, e)
            self.transport.close()

    def eof_received(self):
        return False  # close our end too

    def connection_lost(self, exc):
        self.parser.close()   # a reply cut off by the worker's death gives back its answer budget
        self.worker._on_eof()


class _WorkerProcess:
    """One worker process in a slot, with its socket and the commands in flight."""

    def __init__(self, slot, generation, device, config, env, loop, on_death, budget=None):
        self.slot = slot
        self.budget = budget        # answers.AnswerBudget: big replies are charged to it as they arrive
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
        sock = await self._launch()
        self.transport, _ = await self.loop.connect_accepted_socket(lambda: _WorkerStream(self), sock)
        await asyncio.wait_for(self._hello, timeout_s)
        self.alive = True

    async def _launch(self):
        """Starts the process; returns the server's end of its command socket."""
        sock, child_sock = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        cancel_r, cancel_w = _SPAWN.Pipe(duplex=False)
        self.cancel_conn = cancel_w
        self.process = _SPAWN.Process(target=worker_module.main, args=(child_sock, cancel_r, self.config),
                                      name=f"gradserve-worker-{self.slot}", daemon=True)
        try:
            await asyncio.to_thread(spawn_with_env, self.process, self.env)
        finally:
            child_sock.close()
            cancel_r.close()
        return sock

    @property
    def pid(self):
        return self.process.pid if self.process is not None else None

    @property
    def label(self):
        return f"worker {self.slot}" if self.slot is not None else f"session process {self.pid}"

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

    def _on_reply(self, header, buffers, refusal=None):
        command = self.pending.get(header.get("reply"))
        if self.in_pipe and self.in_pipe[0] is command:
            self.in_pipe.popleft()
            if self.in_pipe:
                self._start_clock(self.in_pipe[0])
        if command is not None and not command.fut.done():
            if refusal is None:
                command.fut.set_result((header, buffers))
            else:
                command.fut.set_exception(refusal)

    def _on_refused(self, header, nbytes):
        """A reply the answer budget had no room for (its bytes were dropped as they came): its call answers
        the budget's 503; what the command did stands (a run's results stay in the session)."""
        log.info("%s: a reply of %d bytes was refused (answer_budget_bytes)", self.label, nbytes)
        if "reply" in header:
            self._on_reply(header, None, refusal=self.budget.refusal())

    def _on_eof(self):
        if not self._hello.done():
            self._hello.set_exception(BackendUnavailable(f"{self.label} exited while starting"))
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
                reply = await command.fut
                if command.deadline_passed:
                    reply[0]["deadline_passed"] = True
                return reply
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
        command.deadline_passed = True
        self.send_cancel(command.run_id)
        command.timer = self.loop.call_later(command.grace_s, self._ignored_cancel, command)

    def _ignored_cancel(self, command):
        if not command.fut.done():
            log.warning("%s: run %s ignored its cancel for %.1fs; killing the process",
                        self.label, command.run_id, command.grace_s)
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
            self._kill_process()
            self.on_death(self)

    def _kill_process(self):
        try:
            self.process.kill()
        except (OSError, AttributeError):
            pass

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


class _SessionProcess(_WorkerProcess):
    """A CPU session's own process, forked from the template; ``generation`` is its serial number."""

    def __init__(self, serial, backend, config):
        super().__init__(None, serial, "cpu", config, {}, backend.loop, backend._on_session_death,
                         budget=backend.frame_budget)
        self.backend = backend
        self.handle = None  # session_process.SessionProcess

    async def _launch(self):
        self.handle = await self.backend._fork(self.config)
        self.cancel_conn = self.handle.cancel
        return self.handle.sock

    @property
    def pid(self):
        return self.handle.pid if self.handle is not None else None

    def _kill_process(self):
        if self.handle is not None:
            self.handle.kill()

    async def stop(self):
        self.alive = False
        if self.transport is not None:
            self.transport.close()
        if self.handle is not None:
            self.handle.close()  # SIGKILL through the pidfd: nothing it holds is worth waiting for


class LocalBackend(WorkerBackend):
    """Sessions on this machine: a process per CPU session (forked from a template), and a shared
    worker per GPU; with ``isolation="shared"``, ``workers`` shared CPU workers instead."""

    def __init__(self, settings):
        self.settings = settings
        self.grace_s = settings.cancel_grace_s
        self.isolation = settings.isolation
        if self.isolation == "process" and not (hasattr(os, "fork") and hasattr(os, "pidfd_open")):
            log.warning("a process per session needs Linux (fork and pidfd_open); CPU sessions share workers")
            self.isolation = "shared"
        self.slots = []
        self.restarts = []
        self._starting = {}
        self._stopping = False
        self.loop = None
        self.template = None            # session_process.Template
        self.template_restarts = 0
        self._template_lock = None
        self.processes = {}             # serial -> _SessionProcess
        self._serials = itertools.count(1)

    def _slot_specs(self):
        specs = [("cpu", None)] * max(1, self.settings.workers) if self.isolation == "shared" else []
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
        return _WorkerProcess(slot, generation, device, config, env, self.loop, self._on_death,
                              budget=self.frame_budget)

    def session_config(self):
        """What a new session process is told: its limits, fixed when it starts."""
        return {"memory_bytes": self.settings.limits.session_bytes, "threads": self.settings.worker_threads,
                "cpu_s": self.settings.session_cpu_s, "max_files": SESSION_MAX_FILES}

    async def start(self):
        self.loop = asyncio.get_running_loop()
        self._template_lock = asyncio.Lock()
        self._specs = self._slot_specs()
        self.slots = [self._new_process(i, 0) for i in range(len(self._specs))]
        self.restarts = [0] * len(self.slots)
        starting = [w.start() for w in self.slots]
        if self.isolation == "process":
            _raise_open_files(self.settings.max_sessions)
            starting.append(self._start_template())
        await asyncio.gather(*starting)
        started = [f"{w.device} worker pid {w.pid}" for w in self.slots]
        if self.template is not None:
            started.insert(0, f"a session template (pid {self.template.pid})")
        log.info("started %s", ", ".join(started))

    async def _start_template(self):
        template = Template()
        await asyncio.to_thread(template.start)
        self.template = template

    async def _fork(self, config):
        """A new session process from the template (restarted first if it died); BackendUnavailable if none."""
        for attempt in range(2):
            template = self.template
            if template is None or not template.alive():
                template = await self._restart_template(template)
            try:
                return await asyncio.to_thread(template.fork, config)
            except TemplateGone as e:
                if attempt or self._stopping:
                    raise BackendUnavailable(f"no session process could be started: {e}") from None
                log.warning("the session template failed (%s); restarting it", e)
                template.kill()
        raise AssertionError("unreachable")

    async def _restart_template(self, dead):
        async with self._template_lock:
            if self.template is not dead and self.template is not None and self.template.alive():
                return self.template
            if self._stopping:
                raise BackendUnavailable("the server is stopping")
            if dead is not None:
                self.template_restarts += 1
                await asyncio.to_thread(dead.stop, 1.0)
            try:
                await self._start_template()
            except (TemplateGone, OSError) as e:
                raise BackendUnavailable(f"the session template could not start: {e}") from None
            return self.template

    async def stop(self):
        self._stopping = True
        for task in list(self._starting.values()):
            task.cancel()
        for proc in list(self.processes.values()):
            await proc.stop()
        self.processes.clear()
        if self.template is not None:
            await asyncio.to_thread(self.template.stop)
        await asyncio.gather(*(w.stop() for w in self.slots), return_exceptions=True)

    def _on_death(self, dead):
        if self._stopping or self.slots[dead.slot] is not dead or dead.slot in self._starting:
            return
        log.warning("worker %d (pid %s) died; its %d sessions are gone; starting a replacement",
                    dead.slot, dead.pid, len(dead.sessions))
        self.restarts[dead.slot] += 1
        self._starting[dead.slot] = self.loop.create_task(self._replace(dead))

    def _on_session_death(self, dead):
        if self.processes.get(dead.generation) is not dead:
            return
        del self.processes[dead.generation]
        if not self._stopping:
            log.warning("session process %s died; session %s is gone", dead.pid, ", ".join(dead.sessions))
        self.loop.create_task(dead.stop())

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
    def _process(self, placement):
        """The live process holding a placement, or None."""
        if placement.worker is None:
            return self.processes.get(placement.generation)
        w = self.slots[placement.worker]
        return w if w.generation == placement.generation else None

    def ready(self):
        return any(w.alive for w in self.slots) or (self.template is not None and self.template.alive())

    def devices(self):
        devices = {device for device, _ in getattr(self, "_specs", [])}
        if self.isolation == "process":
            devices.add("cpu")
        return sorted(devices)

    def health(self):
        workers = []
        if self.isolation == "process":
            template = self.template
            workers.append({"worker": "sessions", "device": "cpu", "alive": template is not None and template.alive(),
                            "sessions": len(self.processes), "restarts": self.template_restarts,
                            "busy": any(p.in_pipe for p in self.processes.values())})
        workers += [{"worker": w.slot, "device": w.device, "alive": w.alive, "sessions": len(w.sessions),
                     "restarts": self.restarts[w.slot], "busy": bool(w.in_pipe)} for w in self.slots]
        return {"workers": workers}

    def worker_pid(self, placement):
        """The pid of the process holding a placement (for tests and operators)."""
        w = self._process(placement)
        return w.pid if w is not None else None

    async def open_session(self, session_id, device, session=None):
        if device == "cpu" and self.isolation == "process":
            return await self._open_in_own_process(session_id)
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

    async def _open_in_own_process(self, session_id):
        serial = next(self._serials)
        proc = _SessionProcess(serial, self, self.session_config())
        proc.sessions.add(session_id)
        self.processes[serial] = proc
        try:
            await proc.start(timeout_s=30.0)
            reply, _ = await proc.call({"op": "open", "session": session_id}, (), None, None, self.grace_s)
        except BaseException as e:
            self.processes.pop(serial, None)
            await proc.stop()
            if isinstance(e, (SessionGone, asyncio.TimeoutError)):
                raise BackendUnavailable("the session's process did not start") from None
            raise
        if not reply.get("ok"):
            self.processes.pop(serial, None)
            await proc.stop()
            raise BackendUnavailable(f"the session's process could not open it: {reply.get('error')}")
        return Placement(None, serial)

    async def close_session(self, placement, session_id):
        if placement.worker is None:
            proc = self.processes.pop(placement.generation, None)
            if proc is not None:
                await proc.stop()
            return
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
        w = self._process(placement)
        return w is not None and w.alive

    async def call(self, placement, header, buffers=(), *, on_events=None, deadline_s=None):
        w = self._process(placement)
        if w is None:
            raise SessionGone("the process holding this session died")
        return await w.call(header, buffers, on_events, deadline_s, self.grace_s)

    async def cancel(self, placement, run_id):
        w = self._process(placement)
        if w is not None and w.alive:
            w.send_cancel(run_id)

    def debug_unsupported(self, placement):
        if placement.worker is not None:   # a paused run would hold up every session of a shared worker
            return ("debugging needs a session in a process of its own: this session shares a worker "
                    "(GPU sessions, or isolation=\"shared\"), where a paused run would hold up the others")
        return None

    async def debug(self, placement, run_id, command):
        w = self._process(placement)
        if w is not None and w.alive and w.running(run_id):
            try:   # the cancel pipe: read by a thread of the session process while its run is busy or paused
                w.cancel_conn.send_bytes(json.dumps({"run": run_id, "debug": command}).encode())
            except (OSError, ValueError):
                pass


def _raise_open_files(max_sessions):
    """Each session process costs the server three descriptors (socket, cancel pipe, pidfd): raise the
    soft RLIMIT_NOFILE to the hard one, and say so if even that is short of ``max_sessions``."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    needed = 3 * max_sessions + 256
    if soft != resource.RLIM_INFINITY and soft < needed:
        log.warning("RLIMIT_NOFILE is %d: %d sessions need about %d descriptors", soft, max_sessions, needed)
