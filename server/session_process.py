"""A process per session (SPEC section 7), forked from a warm template process.

The template is spawned once (never forked from the server, so it shares
nothing with it), imports the engine and the interpreter, runs a small warm-up
program, freezes its objects for the garbage collector and waits. It starts no
BLAS threads (``OPENBLAS_NUM_THREADS=1`` in its environment): forking a process
whose OpenBLAS threads are live can deadlock the child. For each session the
server sends it the child's end of a socket pair and of a cancel pipe (over a
SOCK_SEQPACKET control socket, as SCM_RIGHTS); the template forks, and answers
with the child's pid and a pidfd, so the server can kill the session process
later without any risk of signalling a recycled pid.

The session process (``_session_child``) closes every inherited descriptor but
its two channels, points stdin/stdout/stderr at /dev/null, starts its BLAS
threads (``threads``; threadpoolctl, after the fork), starts its cancel thread,
and only then confines itself (``confine``): ``RLIMIT_AS`` a little above the
session's byte limit, ``RLIMIT_FSIZE=0``, ``RLIMIT_CORE=0``, a small
``RLIMIT_NOFILE``, ``RLIMIT_NPROC=0`` (no new thread or process; the kernel
does not apply it to root), ``RLIMIT_CPU`` per command as a backstop behind the
server's deadline, and ``PR_SET_NO_NEW_PRIVS``. Then it serves one session with
``worker.Worker`` and ``worker.serve``, the loop a shared worker runs: commands
are ``wire_frames`` messages (a JSON header and raw buffers, never pickled).

Nothing here depends on the local backend: ``Template.fork`` gives a
``SessionProcess`` (pid, pidfd, socket, cancel pipe), and ``SessionClient``
speaks to it with blocking calls, which is what a Ray actor hosting sessions
would use.
"""
import ctypes
import gc
import json
import logging
import multiprocessing
import os
import resource
import signal
import socket
import threading
import time
from multiprocessing.connection import Connection

from ..engine.program.runtime import start_ticker, stop_ticker
from . import runtime
from .wire_frames import FrameReader, send_frame
from .worker import STACK_SHARED_WORKER_BYTES, Worker, run_on_stack, serve, stack_for

log = logging.getLogger("gradserve.sessions")

_SPAWN = multiprocessing.get_context("spawn")
_ENV_LOCK = threading.Lock()
MiB = 1 << 20

# The template's environment: no BLAS threads before the fork, and few malloc arenas (each thread's
# arena reserves 64 MiB of address space, which counts against RLIMIT_AS).
TEMPLATE_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                "MALLOC_ARENA_MAX": "2"}
# Run once in the template, so the interpreter's lazy imports and caches are in pages every session shares.
WARM_UP = """
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(3, 4, requires_grad=True)
loss = F.mse_loss(net(x), torch.zeros(3, 1))
opt.zero_grad()
loss.backward()
opt.step()
y = (x * x).sum()
y.backward()
print(y.item(), [1, 2.5, "s"])
"""
# Descriptors a session process may hold open (its two channels, stdio, and files the interpreter's
# lazy imports read).
SESSION_MAX_FILES = 32
# Address space a session process may map beyond what it maps when it starts and the session's byte
# limit: NumPy's temporaries, a malloc arena, each BLAS thread's buffers.
AS_HEADROOM = 256 * MiB
AS_PER_THREAD = 72 * MiB
# CPU seconds a command other than a run may use (saving a checkpoint, reading a variable).
COMMAND_CPU_S = 60


class TemplateGone(OSError):
    """The template process died or refused to fork."""


def spawn_with_env(process, env):
    """Starts a spawn-context ``process`` with ``env`` added to its environment (spawn copies os.environ)."""
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


# ---------------------------------------------------------------- the server's side
class SessionProcess:
    """A session's own process, as its parent's caller holds it: pid, pidfd, channel and cancel pipe."""

    def __init__(self, pid, pidfd, sock, cancel):
        self.pid, self.pidfd, self.sock, self.cancel = pid, pidfd, sock, cancel

    def kill(self):
        """SIGKILL through the pidfd: never another process, even once this pid is reused."""
        if self.pidfd is None:
            return
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        except (ProcessLookupError, OSError):
            pass

    def exited(self, timeout_s=0.0):
        """Whether the process has ended (its pidfd turns readable then)."""
        if self.pidfd is None:
            return True
        import select
        return bool(select.select([self.pidfd], [], [], timeout_s)[0])

    def close(self):
        """Kills the process and closes everything this side holds of it."""
        self.kill()
        for closer in (self.cancel.close, self.sock.close):
            try:
                closer()
            except OSError:
                pass
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None


class Template:
    """The warm template process, and forking session processes from it (thread-safe, blocking)."""

    def __init__(self, name="gradserve-template"):
        self.name = name
        self.process = None
        self.ctl = None
        self.lock = threading.Lock()

    def start(self, timeout_s=120.0):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.process = _SPAWN.Process(target=template_main, args=(theirs,), name=self.name, daemon=True)
        try:
            spawn_with_env(self.process, TEMPLATE_ENV)
        finally:
            theirs.close()
        ours.settimeout(timeout_s)
        try:
            ready = ours.recv(64)
        except OSError:
            ready = b""
        if ready != b"ready":
            ours.close()
            self.kill()
            raise TemplateGone("the template process did not start")
        ours.settimeout(None)
        self.ctl = ours
        return self

    @property
    def pid(self):
        return self.process.pid if self.process is not None else None

    def alive(self):
        return self.ctl is not None and self.process is not None and self.process.is_alive()

    def fork(self, config):
        """A new session process configured by ``config`` (see ``_session_child``); raises TemplateGone."""
        sock, child_sock = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        cancel_r, cancel_w = os.pipe()
        try:
            with self.lock:
                if self.ctl is None:
                    raise TemplateGone("the template process is not running")
                try:
                    socket.send_fds(self.ctl, [json.dumps(config).encode()], [child_sock.fileno(), cancel_r])
                    message, fds, _, _ = socket.recv_fds(self.ctl, 4096, 1)
                except OSError as e:
                    raise TemplateGone(f"the template process is gone ({e})") from None
        except BaseException:
            sock.close()
            os.close(cancel_w)
            raise
        finally:
            child_sock.close()
            os.close(cancel_r)
        reply = json.loads(message) if message else {"error": "the template process is gone"}
        if "error" in reply or not fds:
            for fd in fds:
                os.close(fd)
            sock.close()
            os.close(cancel_w)
            raise TemplateGone(f"could not start a session process: {reply.get('error')}")
        return SessionProcess(reply["pid"], fds[0], sock, Connection(cancel_w, readable=False))

    def kill(self):
        if self.process is not None and self.process.pid is not None:
            try:
                self.process.kill()
            except (OSError, AttributeError):
                pass

    def stop(self, timeout_s=3.0):
        """Stops the template (it exits when its control socket closes); session processes live on."""
        if self.ctl is not None:
            self.ctl.close()
            self.ctl = None
        if self.process is not None and self.process.pid is not None:
            self.process.join(timeout_s)
            if self.process.is_alive():
                self.process.kill()
                self.process.join(timeout_s)


class SessionClient:
    """Blocking calls to a session process (for a host with no event loop, such as a Ray actor)."""

    def __init__(self, process, timeout_s=30.0, max_frame_bytes=1 << 40):
        self.process = process
        self.reader = FrameReader(process.sock, max_frame_bytes)
        self._req = 0
        process.sock.settimeout(timeout_s)
        header, _ = self.reader.read()
        process.sock.settimeout(None)
        if "hello" not in header:
            raise TemplateGone("the session process did not say hello")

    def call(self, header, buffers=(), on_events=None):
        """Sends one command; returns (reply header, reply buffers). EOFError if the process died."""
        self._req += 1
        header = dict(header, req=self._req)
        send_frame(self.process.sock, header, buffers)
        while True:
            reply, out = self.reader.read()
            if "event" in reply:
                if on_events is not None:
                    on_events(reply.get("events") or [])
            elif reply.get("reply") == self._req:
                return reply, out

    def cancel(self, run_id):
        self.process.cancel.send_bytes(json.dumps({"run": run_id}).encode())


# ---------------------------------------------------------------- the template process
def template_main(ctl):
    """The template's entry point (a spawn target): warm up, then fork a session process per request."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the server stops it itself
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps session processes
    blas = _warm_up()
    stop_ticker()   # the warm-up's runs started the engine's ticker thread: a template forks with none
    gc.collect()
    gc.freeze()  # objects from before the fork stay out of every child's collections: no copy-on-write there
    ctl.send(b"ready")
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(ctl, 1 << 16, 2)
        except OSError:
            os._exit(0)
        if not message:
            os._exit(0)  # the server is gone
        try:
            config = json.loads(message)
            if len(fds) != 2:
                raise ValueError("a fork request carries two descriptors")
            pid = os.fork()
        except (OSError, ValueError) as e:
            for fd in fds:
                os.close(fd)
            ctl.send(json.dumps({"error": f"{type(e).__name__}: {e}"}).encode())
            continue
        if pid == 0:
            status = 1
            try:
                _session_child(ctl, fds, config, blas)
                status = 0
            finally:
                os._exit(status)  # never back into the template's loop
        for fd in fds:
            os.close(fd)
        try:
            pidfd = os.pidfd_open(pid)
        except OSError as e:  # it died at once (and was reaped)
            ctl.send(json.dumps({"error": f"the session process ended at once ({e})"}).encode())
            continue
        try:
            socket.send_fds(ctl, [json.dumps({"pid": pid}).encode()], [pidfd])
        except OSError:
            os._exit(0)
        finally:
            os.close(pidfd)


def _warm_up():
    """Imports and exercises what a session needs; returns threadpoolctl's BLAS controllers (or [])."""
    try:
        namespace = runtime.new_namespace()
        runtime.run_program(namespace, WARM_UP, runtime.Limits())
        del namespace
    except runtime.InterpreterUnavailable:
        pass
    from . import json_codec, outputs  # noqa: F401 - imported here so every session shares them
    try:
        from threadpoolctl import ThreadpoolController
        return [c for c in ThreadpoolController().lib_controllers if c.user_api == "blas"]
    except Exception:  # not installed, or a BLAS it cannot drive: sessions run single-threaded BLAS
        return []


# ---------------------------------------------------------------- the session process
def _session_child(ctl, fds, config, blas):
    """A session process's life, from just after the fork."""
    ctl.close()
    chan_fd, cancel_fd = fds
    for sig in (signal.SIGCHLD, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past RLIMIT_FSIZE fails instead of killing
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    _close_all_but({0, 1, 2, chan_fd, cancel_fd})
    sock = socket.socket(fileno=chan_fd)
    cancel = Connection(cancel_fd, writable=False)
    threads = max(1, int(config.get("threads", 1)))
    if threads > 1:
        for controller in blas:  # after the fork: the template never started any
            controller.set_num_threads(threads)
    tune_gc()
    worker = SessionWorker(config)
    _no_new_privs()  # per thread, inherited: the main thread and every thread started from here on
    start_ticker()   # the engine's ticker thread, before confine() allows no new thread
    # served on a thread with a stack for the deepest nesting the session's memory allows (worker.
    # run_on_stack), mapped before confine() measures the address space
    run_on_stack(lambda: serve(sock, cancel, worker, config.get("max_frame_bytes", 1 << 40),
                               before_hello=lambda: confine(config)), session_stack_bytes(config))


# The cyclic collector's youngest-generation threshold in a session process (Python's default: 700).
# A graph build allocates a node, a tensor and a few tuples per op, all of them live, so at 700 the
# collector traverses the growing graph again and again: 100,000 ops took 902 ms at 700 and 730 ms
# at 10,000 (measured with the template's gc.freeze, one BLAS thread, load 2.4). The engine's graphs
# hold no cycles (reference counting frees them), so collecting less often holds back only a
# program's own cyclic garbage, and the session's memory checks see that like anything else.
GC_THRESHOLD = (10_000, 10, 10)


def tune_gc():
    """The session process's collector thresholds (GC_THRESHOLD); the collector stays enabled."""
    gc.set_threshold(*GC_THRESHOLD)


def _close_all_but(keep):
    low = 0
    for fd in sorted(keep):
        if fd > low:
            os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, max(low, resource.getrlimit(resource.RLIMIT_NOFILE)[0]))


def address_space_bytes():
    """Bytes of address space this process maps now."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def session_stack_bytes(config):
    """The stack a session process serves on: for data up to the address space ``confine`` lets the
    session map beyond what it maps at the start (without a memory limit, a shared worker's)."""
    memory = int(config.get("memory_bytes") or 0)
    if not memory:
        return STACK_SHARED_WORKER_BYTES
    threads = max(1, int(config.get("threads", 1)))
    return stack_for(memory + memory // 4 + AS_HEADROOM + AS_PER_THREAD * threads)


def confine(config):
    """The session process's kernel-enforced limits (see the module docstring). Returns what it set."""
    threads = max(1, int(config.get("threads", 1)))
    applied = {}

    def lower(which, value, name):
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))
        applied[name] = value

    applied["oom_score_adj"] = _oom_first()
    memory = int(config.get("memory_bytes") or 0)
    if memory:
        lower(resource.RLIMIT_AS, address_space_bytes() + memory + memory // 4 + AS_HEADROOM
              + AS_PER_THREAD * threads, "as")
    lower(resource.RLIMIT_FSIZE, 0, "fsize")
    lower(resource.RLIMIT_CORE, 0, "core")
    lower(resource.RLIMIT_NOFILE, int(config.get("max_files", SESSION_MAX_FILES)), "nofile")
    lower(resource.RLIMIT_NPROC, 0, "nproc")  # threads count too: every thread it needs is running by now
    cpu_s = config.get("cpu_s")
    if cpu_s:
        hard = max(1, int(cpu_s))
        resource.setrlimit(resource.RLIMIT_CPU, (min(_cpu_used() + COMMAND_CPU_S, hard), hard))
        applied["cpu"] = hard
    applied["no_new_privs"] = _no_new_privs()
    return applied


# The kernel's OOM killer picks the process with the highest badness (resident memory, plus
# oom_score_adj in thousandths of the machine's memory). Sessions are planned at a quarter of their
# byte limit each (settings.SESSION_SHARE), so anonymous sessions filling their limits can exhaust the
# host (attack8 F4: 5 sessions took 0.9 GB each, max_sessions is 94 on a 24 GB machine). When that
# happens the kernel must end a session process, the largest (the one that filled its limit), never
# the API process, the template or anything else on the host: each session raises its own score to
# the maximum (raising needs no privilege). The session it ends answers 410, as any session whose
# process died.
OOM_SCORE_ADJ = 1000


def _oom_first():
    """Raises this process's oom_score_adj to OOM_SCORE_ADJ; the value set, or None where it could not be."""
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write(str(OOM_SCORE_ADJ))
        return OOM_SCORE_ADJ
    except OSError:
        return None


def _no_new_privs():
    """prctl(PR_SET_NO_NEW_PRIVS): no exec can ever gain privileges (setuid, file capabilities)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
    except (OSError, AttributeError):
        return False


def _cpu_used():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return int(usage.ru_utime + usage.ru_stime) + 1


class SessionWorker(Worker):
    """The worker of one session process: before each command, the CPU-time backstop is moved to
    what that command may use (a run: its wall time on every BLAS thread, twice over, plus
    ``cpu_slack_s``); past it the kernel kills the process (SIGXCPU), even if the server is too busy to."""

    def __init__(self, config):
        super().__init__("cpu")
        self.threads = max(1, int(config.get("threads", 1)))
        self.cpu_backstop = bool(config.get("cpu_s"))
        self.cpu_slack_s = int(config.get("cpu_slack_s", 10))

    def handle(self, header, buffers):
        if self.cpu_backstop:
            budget = COMMAND_CPU_S
            if header.get("op") == "run":
                wall = (header.get("limits") or {}).get("wall_time_s", 30.0)
                budget = int(2 * float(wall) * self.threads) + self.cpu_slack_s
            _, hard = resource.getrlimit(resource.RLIMIT_CPU)
            soft = _cpu_used() + budget
            if hard != resource.RLIM_INFINITY:
                soft = min(soft, hard)
            resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
        return super().handle(header, buffers)


def wait_exited(process, timeout_s=5.0):
    """Waits until a SessionProcess has ended; returns whether it did."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.exited(0.05):
            return True
    return False
