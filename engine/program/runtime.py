"""A session's run-time state: step and depth counters, deadline, cancellation,
output and logs, memory checks. One object per session, reset at each run; the
compiled program (and every function it defines) refers to it, so a function
defined in one run counts against the limits of the run that calls it.
"""
import ctypes
import gc
import os
import threading
import time

from ..tensor import Tensor
from . import access
from .errors import Abort, PROGRAM_EXCEPTIONS, limit_abort
from .memory import held_at_most, host_available, host_reserve, read_rss, read_statm, tensor_bytes

__all__ = ["Runtime"]

_monotonic = time.monotonic
TICK_S = 0.02            # how often a running program checks its deadline, cancellation and memory
CHECK_EVERY = 16          # statements between checks where no ticker thread could be started
RSS_SLACK = 64 << 20      # interpreter noise allowed over session_bytes when judging by RSS
# resident memory is read at most this often, unless a large result asks for it (rss_next set to 0).
# Longer than CPython's switch interval (5 ms): each read gives the GIL up for
# a moment, and a thread waiting for it (a session's cancel listener) asks the running thread to
# drop it only after a whole interval with no switch, so reads every 2 ms starved it: a cancel
# landed only when a pure-Python loop ended
RSS_EVERY_S = 0.02
# A run whose resident memory has grown past this since it began also checks the host's available memory
# (memory.host_available) at each reading, and stops with LimitExceeded host_memory once less than the
# host's reserve (memory.host_reserve) is left: the run that grows is stopped, its session kept, before
# the kernel's OOM killer picks a process (sessions may together hold more than the machine has)
HOST_CHECK_GROWTH = 64 << 20
_host_reserve = []   # memory.host_reserve(), read once a process
MAX_LOGS_KEPT = 10_000
# An int metric of log() past this many bits is refused: its decimal text would pass the 4,300 digits
# that Python's int->str (and every JSON reader) refuses, and encoding the log event then failed the run
# with an internal error (server/outputs.py refuses such outputs at the same size)
MAX_METRIC_INT_BITS = 13_000
# A run past its deadline (or cancelled) this long without reaching a statement is stuck in host code
# (an engine loop over a ten-million-item list): the ticker interrupts it there (Runtime.interrupt),
# well before the server's grace period ends and it replaces the session's process, losing its state
INTERRUPT_AFTER_S = 0.25

# CPython's PyThreadState_SetAsyncExc(thread id, exception class, or NULL to withdraw it), prototyped
# here (not through the shared ctypes.pythonapi attribute, whose argtypes other code may set)
_set_async_exc = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(
    ("PyThreadState_SetAsyncExc", ctypes.pythonapi))
_clear_async_exc = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p)(
    ("PyThreadState_SetAsyncExc", ctypes.pythonapi))
_pending = {}   # thread id -> the Abort an Interrupted raised in that thread stands for


class Interrupted(Abort):
    """Raised by CPython in a run's thread, at its next bytecode, when the ticker finds the run stuck
    in host code past its deadline or its cancellation (``Runtime.interrupt``). CPython makes it
    with no arguments: it takes the abort the ticker recorded for its thread."""

    def __init__(self):
        a = _pending.pop(threading.get_ident(), None) or Abort("Cancelled", "the run was interrupted")
        super().__init__(a.type, a.message, a.limit)


class _Ticker:
    """Asks each running program to check its limits at its next statement, every TICK_S.

    A statement compares its step count with ``check_at``, which stays past the step limit while
    nothing is due; a daemon thread sets it to 0 every tick. So the deadline, cancellation and
    memory are checked by time, as they are limits of time and of memory, however long each
    statement takes (a host call in BLAS, or a loop of cheap statements), and the statements
    themselves do no timing: a long statement is followed by a check because a tick came during
    it. The thread holds the GIL only to set the attribute (it waits for the running thread to
    give it up, at most CPython's switch interval). Started with the first run of a process;
    ``stop`` ends it before a process forks (a session's template), and a child forked from a
    process that had one starts its own (threads do not survive a fork)."""

    def __init__(self):
        self._after_fork()
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._after_fork)

    def _after_fork(self):
        self.runs = set()
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.thread = None
        self.halt = threading.Event()   # stop() asks the thread to end (it waits on it between ticks)

    def start(self):
        """Starts the thread unless it runs (a confined process starts it before it may start no
        more threads); False where it cannot be started."""
        with self.lock:
            if self.thread is None:
                thread = threading.Thread(target=self._tick, daemon=True, name="program-ticker")
                try:
                    thread.start()
                except RuntimeError:   # "can't start new thread": RLIMIT_NPROC, or no memory for a stack
                    return False
                self.thread = thread
            return True

    def add(self, rt):
        """Counts ``rt`` among the running programs; False where there is no ticker (see Runtime.check)."""
        if not self.start():
            return False
        with self.lock:
            self.runs.add(rt)
            if not self.wake.is_set():
                self.wake.set()
        return True

    def discard(self, rt):
        with self.lock:
            self.runs.discard(rt)

    def stop(self):
        """Ends the thread (no run may be active); the next run starts another."""
        with self.lock:
            thread, self.thread = self.thread, None
            self.halt.set()
            self.wake.set()
        if thread is not None:
            thread.join()
        with self.lock:
            self.halt.clear()
            self.wake.clear()

    def _tick(self):
        # idle (waiting on wake) only after a whole tick with no run: back-to-back runs (a training
        # loop's steps sent one by one) do not wake the thread each, and it takes the GIL once a tick
        while True:
            self.wake.wait()
            if self.halt.wait(TICK_S):
                return
            with self.lock:
                if self.halt.is_set():
                    # stop() came after the wait timed out: clearing ``wake`` now would wait on it for
                    # ever while stop() joins this thread (a hang of the suite; hostile pass 14)
                    return
                runs = tuple(self.runs)
                if not runs:
                    self.wake.clear()
            now = _monotonic()
            for rt in runs:
                rt.check_at = 0
                if rt.interruptible:
                    rt.interrupt_if_stuck(now)


_ticker = _Ticker()
start_ticker = _ticker.start
stop_ticker = _ticker.stop


class Runtime:
    __slots__ = ("namespace", "active", "steps", "check_at", "step_limit", "deadline", "wall_time",
                 "cancel", "depth", "max_depth", "abort", "out", "out_bytes", "out_limit", "on_stdout",
                 "on_log", "logs", "bound", "bound_set", "limits", "elem_limit", "str_limit", "seq_limit",
                 "session_limit", "mem_next", "mem_cost", "rss_base", "bytes_base", "base_exact", "bytes_known", "statm_last",
                 "handled", "started", "rss_next", "text_budget", "debugger", "ticked", "thread_id",
                 "interruptible", "interrupting", "cancel_seen")

    def __init__(self, namespace):
        self.namespace = namespace
        self.active = False
        self.steps = 0
        self.check_at = 0
        self.step_limit = 0
        self.deadline = 0.0
        self.wall_time = 0.0
        self.cancel = None
        self.depth = 0
        self.max_depth = 200
        self.abort = None
        self.out = []
        self.out_bytes = 0
        self.out_limit = 0
        self.on_stdout = None
        self.on_log = None
        self.logs = []
        self.bound = []
        self.bound_set = set()
        self.limits = None
        self.elem_limit = None
        self.str_limit = 10_000_000
        self.seq_limit = 10_000_000
        self.session_limit = 1 << 30
        self.mem_next = 0.0
        self.mem_cost = 0.0
        self.rss_base = None
        self.bytes_base = 0
        self.base_exact = True    # bytes_base is the session's bytes as the run began (else a bound on them)
        self.bytes_known = None   # the session's bytes as the last run ended (None: changed since)
        self.statm_last = None    # (time, resident, data) read as the last run ended (None: changed since)
        self.handled = []
        self.started = 0.0
        self.rss_next = 0.0
        self.debugger = None      # the run's debugger.Debugger, in a debug run
        self.ticked = True        # the ticker asks for this run's checks (else every CHECK_EVERY statements)
        self.text_budget = None   # characters program __repr__/__str__ may still return to the host's
                                  # printing of one value (None: not printing)
        self.thread_id = None     # the thread running the program (arm)
        self.interruptible = False   # its statements are running: the ticker may interrupt it (arm/disarm)
        self.interrupting = False    # an Interrupted is pending or raised in it
        self.cancel_seen = None   # when the ticker first found the run cancelled

    # ------------------------------------------------------------------ runs
    def begin(self, limits, cancel, on_stdout, on_log):
        self.limits = limits
        self.active = True
        self.steps = 0
        self.step_limit = int(limits.steps)
        self.started = _monotonic()
        self.rss_next = self.started + RSS_EVERY_S   # resident memory is read below (rss_base): next in 20 ms
        self.wall_time = float(limits.wall_time_s)
        self.deadline = self.started + self.wall_time
        self.cancel = cancel
        self.depth = 0
        self.max_depth = int(limits.call_depth)
        self.abort = None
        self.out = []
        self.out_bytes = 0
        self.out_limit = int(limits.output_bytes)
        self.on_stdout = on_stdout
        self.on_log = on_log
        self.logs = []
        self.bound = []
        self.bound_set = set()
        self.elem_limit = int(limits.tensor_elements)
        self.str_limit = int(limits.string_length)
        self.seq_limit = int(limits.sequence_length)
        self.session_limit = int(limits.session_bytes)
        self.handled = []
        access.set_limits(self.str_limit, self.seq_limit)
        known = self.bytes_known
        self.bytes_known = None
        last, self.statm_last = self.statm_last, None
        if last is not None and self.started - last[0] < RSS_EVERY_S:
            # the last run ended moments ago (a training loop's steps sent one by one) with the session
            # unchanged since: its reading stands for this one, as one RSS_EVERY_S old would in a run.
            # Each read is a system call, whose cost (and the caches it costs the program) was about a
            # third of a step's run-form overhead on the LSTM benchmark (issue 11)
            self.rss_base, data = last[1], last[2]
        else:
            self.rss_base, data = read_statm()
        self.base_exact = True
        if known is not None:
            self.bytes_base = known
        else:
            bound = held_at_most(data)
            if bound is not None and bound <= self.session_limit:
                # the walk could not fail this run before it grows: what it holds is only needed if
                # resident growth comes near the limit (check_memory)
                self.bytes_base = bound
                self.base_exact = False
            else:
                self.bytes_base = self.namespace_bytes()
        self.mem_cost = 0.0
        self.mem_next = self.started + 0.05
        self.ticked = _ticker.add(self)
        self.check_at = self.next_check(0)   # the ticker sets it to 0 when a check is due

    def charge(self, n=1):
        """``n`` steps of an engine loop (limits.charge_steps), checked as a statement's are."""
        self.steps += n
        if self.steps >= self.check_at:
            self.check()

    def session_changed(self):
        """Something outside a run changed what the session holds (a variable set, a checkpoint
        restored, a failed run's bindings released): the next run measures it afresh."""
        self.bytes_known = None
        self.statm_last = None

    def count_text(self, text):
        """A program ``__repr__``/``__str__`` returned ``text`` to host code printing a value
        (an engine module's repr of program submodules): counted against the string limit."""
        budget = self.text_budget
        if budget is not None and type(text) is str:
            budget -= len(text)
            self.text_budget = budget
            if budget < 0:
                raise limit_abort("string_length", f"limit exceeded: string_length: printing this value would "
                                                   f"build more than {self.str_limit} characters")

    def arm(self):
        """The program's statements start: from here until ``disarm`` the ticker may interrupt the
        run's thread where it is stuck in host code (``interrupt_if_stuck``)."""
        self.thread_id = threading.get_ident()
        self.interrupting = False
        self.cancel_seen = None
        self.interruptible = True

    def disarm(self):
        """The statements have ended: no interrupt is raised in the thread after this returns, and one
        the ticker asked for that has not been raised yet is withdrawn. An Interrupted may still be
        raised in this call (before it takes the lock): the caller calls it again until it returns."""
        with _ticker.lock:
            self.interruptible = False
            if self.interrupting:
                self.interrupting = False
                _pending.pop(self.thread_id, None)
                _clear_async_exc(self.thread_id, None)

    def interrupt_if_stuck(self, now):
        """Called by the ticker at each tick: a run past its deadline, or cancelled, for
        INTERRUPT_AFTER_S without reaching a statement's check is stuck in host code (an engine loop
        over a huge list, a program __eq__ called from a C loop): Interrupted is raised in its thread
        at its next bytecode, and the run fails with the limit (or the cancellation) it overran, its
        session kept. A statement would have failed it at once (check). A paused debug run has
        stopped its clock, and waits without running host code."""
        debugger = self.debugger
        if self.interrupting or (debugger is not None and debugger.paused):
            return
        cancel = self.cancel
        if cancel is not None and cancel.is_set():
            if self.cancel_seen is None:
                self.cancel_seen = now
            if now - self.cancel_seen > INTERRUPT_AFTER_S:
                self.interrupt(Abort("Cancelled", "the run was cancelled"))
            return
        if now > self.deadline + INTERRUPT_AFTER_S:
            self.interrupt(self.deadline_abort())

    def interrupt(self, abort):
        with _ticker.lock:
            if not self.interruptible or self.interrupting:
                return
            if self.abort is None:
                self.abort = abort
            self.check_at = 0   # what runs after it (a program's finally) fails again at its statement
            self.interrupting = True
            _pending[self.thread_id] = self.abort
            _set_async_exc(self.thread_id, Interrupted)

    def end(self):
        self.active = False
        _ticker.discard(self)
        self.text_budget = None
        abort = self.abort
        if abort is not None:   # its traceback would keep the failed run's frames (and tensors) alive
            abort.__traceback__ = abort.__context__ = abort.__cause__ = None
            self.abort = None
        self.cancel = None
        self.on_stdout = None
        self.on_log = None
        self.handled = []

    # ------------------------------------------------------------------ checks
    def check(self):
        """Runs when a statement finds ``check_at`` reached: at the step limit, at each tick
        (``_Ticker``), after a large result, and every CHECK_EVERY statements in a process where no
        ticker thread could be started: step limit, deadline, cancellation, memory."""
        if self.abort is not None:
            raise self.abort.again()
        steps = self.steps
        if steps > self.step_limit:
            self.fail(limit_abort("steps", f"limit exceeded: steps: the program ran more than "
                                           f"{self.step_limit} steps"))
        now = _monotonic()
        self.check_deadline(now)
        cancel = self.cancel
        if cancel is not None and cancel.is_set():
            self.fail(Abort("Cancelled", "the run was cancelled"))
        self.check_at = self.next_check(steps)
        self.check_memory(now)

    def next_check(self, steps):
        """``check_at`` with no check due: the step limit where the ticker asks for the others,
        else CHECK_EVERY statements on from ``steps``."""
        return self.step_limit + 1 if self.ticked else min(steps + CHECK_EVERY, self.step_limit + 1)

    def check_deadline(self, now):
        if now > self.deadline:
            self.fail(self.deadline_abort())

    def deadline_abort(self):
        return limit_abort("wall_time", f"limit exceeded: wall_time: the run took longer than {self.wall_time:g} s")

    def fail(self, abort):
        self.abort = abort
        self.check_at = 0   # every statement after it (a program's finally) raises it again
        raise abort

    def depth_abort(self):
        return limit_abort("call_depth", f"limit exceeded: call_depth: more than {self.max_depth} nested "
                                         f"calls (maximum recursion depth)")

    def namespace_bytes(self):
        return tensor_bytes(self.namespace.roots())

    def check_memory(self, now):
        """Session bytes: by the process's resident memory growth at every check (cheap,
        and it sees everything the run allocates), and exactly for what the session's
        variables hold, walked at most every 50 ms (more rarely when the walk is slow)."""
        if now >= self.rss_next:
            self.rss_next = now + RSS_EVERY_S
            rss = read_rss()
            if rss is not None and self.rss_base is not None:
                grown = rss - self.rss_base
                if self.bytes_base + grown > self.session_limit + RSS_SLACK and gc.collect():
                    # some of the growth may be cyclic garbage the collector has not reached yet
                    # (session processes collect less often): collected, the growth is read again
                    rss = read_rss()
                    grown = rss - self.rss_base if rss is not None else grown
                if self.bytes_base + grown > self.session_limit + RSS_SLACK and not self.base_exact:
                    # the run began with a bound on what the session held, not the figure: what it
                    # holds now stands in for it where smaller (never more than the bound)
                    self.bytes_base = min(self.bytes_base, self.namespace_bytes())
                    self.base_exact = True
                if self.bytes_base + grown > self.session_limit + RSS_SLACK:
                    self.fail(self._bytes_abort(self.bytes_base + grown))
                if grown > HOST_CHECK_GROWTH:
                    self.check_host(grown)
        if now < self.mem_next:
            return
        bound = held_at_most()
        if bound is not None and bound <= self.session_limit:
            self.mem_next = now + 0.05   # the walk cannot fail: the process holds less than the limit
            return
        held = self.namespace_bytes()
        cost = _monotonic() - now
        self.mem_cost = cost
        self.mem_next = now + max(0.05, 20 * cost)
        if held > self.session_limit and held > self.bytes_base:
            self.fail(self._bytes_abort(held))

    def check_host(self, grown):
        """Fails the run when the host has less memory left than its reserve (HOST_CHECK_GROWTH)."""
        if not _host_reserve:
            _host_reserve.append(host_reserve())
        reserve = _host_reserve[0]
        if reserve is None:
            return
        available = host_available()
        if available is None or available >= reserve:
            return
        gc.collect()   # cyclic garbage the collector has not reached may hold some of it
        available = host_available()
        if available is not None and available < reserve:
            self.fail(limit_abort("host_memory", f"limit exceeded: host_memory: the server has {available} bytes "
                                                 f"of memory left, less than the {reserve} it keeps for its other "
                                                 f"work, and this run had grown by {grown} bytes; it was stopped and "
                                                 f"its session kept: try again later, or hold less"))

    def _bytes_abort(self, n):
        return limit_abort("session_bytes", f"limit exceeded: session_bytes: the session holds about {n} bytes "
                                            f"(at most {self.session_limit})")

    def after_statement(self, final=False):
        """After each top-level statement: what the session holds stays within its limit.
        Walking a large session is amortised over time; the last statement always checks.
        A session left over its limit by an earlier run fails only when it grows, so a
        program can still read it and free what it holds. While the whole process's data size
        is within the limit the walk is skipped (memory.held_at_most): the session holds less."""
        # one long statement (an operator in BLAS) may pass the deadline between step checks
        self.check_deadline(_monotonic())
        if not final and self.mem_cost > 1e-4 and _monotonic() < self.mem_next:
            return
        rss, data = read_statm()
        if final:
            self.statm_last = (_monotonic(), rss, data)
        bound = held_at_most(data) if data is not None else None
        if bound is not None and bound <= self.session_limit:
            return   # the session holds less than the whole process: within its limit (bytes_known stays None)
        start = _monotonic()
        held = self.namespace_bytes()
        self.mem_cost = _monotonic() - start
        if final:
            self.bytes_known = held   # the next run starts from here unless the session changes
        if held > self.session_limit and held > self.bytes_base:
            self.fail(self._bytes_abort(held))

    # ------------------------------------------------------------------ values
    def wrap(self, v):
        t = type(v)
        if t is Tensor:
            limit = self.elem_limit
            if limit is not None and v._data.size > limit:
                raise self.elements_abort(v)
            return v
        return access.wrap(v, self)

    def elements_abort(self, t):
        return limit_abort("tensor_elements", f"limit exceeded: tensor_elements: a tensor of shape "
                                              f"{list(t._data.shape)} has {t._data.size} elements "
                                              f"(at most {self.elem_limit})")

    # ------------------------------------------------------------------ output
    def write(self, text):
        n = len(text) if text.isascii() else len(text.encode("utf-8"))
        if self.out_bytes + n > self.out_limit:
            room = self.out_limit - self.out_bytes
            if room > 0:
                part = text[:room]
                self.out.append(part)
                self.out_bytes += len(part)
                self._emit(part)
            self.fail(limit_abort("output_bytes", f"limit exceeded: output_bytes: the program printed more than "
                                                  f"{self.out_limit} bytes"))
        self.out_bytes += n
        self.out.append(text)
        self._emit(text)

    def _emit(self, text):
        cb = self.on_stdout
        if cb is not None:
            try:
                cb(text)
            except Exception:
                pass  # the caller's stream failing does not fail the program

    def log(self, metrics):
        entry = {}
        for key, value in metrics.items():
            entry[key] = _metric(key, value)
        if len(self.logs) < MAX_LOGS_KEPT:
            self.logs.append(entry)
        cb = self.on_log
        if cb is not None:
            try:
                cb(dict(entry))
            except Exception:
                pass
        return None


def _metric(key, value):
    t = type(value)
    if t is bool or t is int:
        if value.bit_length() > MAX_METRIC_INT_BITS:
            raise PROGRAM_EXCEPTIONS["ValueError"](
                f"log(): metric '{key}' is an integer of {value.bit_length()} bits, too large to report; "
                f"log a float or a smaller number")
        return value
    if t is float:
        return value
    if isinstance(value, Tensor):
        if value._data.size != 1:
            raise PROGRAM_EXCEPTIONS["ValueError"](
                f"log(): metric '{key}' is a tensor with {value._data.size} elements; log a number or a "
                f"one-element tensor")
        return float(value.item())
    if t is str:
        return value[:1000]
    if isinstance(value, (int, float)):
        return float(value)
    raise PROGRAM_EXCEPTIONS["TypeError"](f"log(): metric '{key}' must be a number or a one-element tensor, "
                                          f"not {t.__name__}")

