"""A run stuck in host code past its deadline or its cancellation is interrupted there (the ticker
raises ``runtime.Interrupted`` in its thread): it fails with the limit it overran, at its line, and
the session keeps what it held. Before, an engine loop over a long list (``torch.stack`` of three
million tensors) ran to its end whatever the deadline, and on a server past the grace period its
session's process was killed and the session's state lost."""
import gc
import threading
import time

import pytest

from gradserve.engine.program import Limits, Namespace, run, runtime

# session_bytes past what the test process holds: a process holding more than the limit (a whole suite's
# worker) walks the session's variables after each statement, which with a 6M-item list is itself slow
SLOW = Limits(wall_time_s=0.5, session_bytes=1 << 40)
ROOMY = Limits(session_bytes=1 << 40)
GRACE_S = 2.0   # the server's cancel_grace_s: a run must end within it past its deadline


@pytest.fixture(autouse=True)
def no_collections():
    """The collector off: a collection is C code no interrupt stops, and in a process holding a whole
    suite's objects one takes long enough to pass a test's deadline before the host loop under test
    has begun (the run then fails at its statement, correctly, but not where the test looks)."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.fixture
def stuck():
    """A session; ``L`` in a program below is a list whose torch.stack takes seconds of host code
    (no statement runs) and allocates nothing the collector walks. The list is made in the statement
    that uses it, not kept in the session: where the session's bytes are walked after each statement
    (a process with CuPy loaded, as a test process is once a GPU test has run) a 6M-item list makes
    each walk slow enough to pass the deadline before the host loop has begun."""
    ns = Namespace()
    out = run("keep = 41", ns, ROOMY)
    assert out.ok, out.error
    return ns


L = "[torch.ones(1)] * 6_000_000"


def timed(source, ns, limits, cancel=None):
    started = time.monotonic()
    out = run(source, ns, limits, cancel=cancel)
    return out, time.monotonic() - started


@pytest.mark.parametrize("source, line", [
    (f"t = torch.stack({L})", 1),
    (f"x = 1\nt = torch.cat({L})", 2),
])
def test_a_host_loop_past_the_deadline_fails_with_wall_time_and_keeps_the_session(stuck, source, line):
    out, elapsed = timed(source, stuck, SLOW)
    assert not out.ok
    assert out.error.type == "LimitExceeded" and out.error.limit == "wall_time", out.error
    assert out.error.line == line
    assert elapsed < SLOW.wall_time_s + GRACE_S
    after = run("keep = keep + 1", stuck, ROOMY)
    assert after.ok and stuck.get("keep") == 42
    assert not runtime._pending


def test_the_programs_finally_and_except_base_exception_do_not_outlive_the_interrupt(stuck):
    source = ("def f():\n"
              "    try:\n"
              f"        return torch.stack({L})\n"
              "    except BaseException:\n"
              "        return 'swallowed'\n"
              "    finally:\n"
              "        global keep\n"
              "        keep = 0\n"
              "r = f()")
    out, elapsed = timed(source, stuck, SLOW)
    assert not out.ok and out.error.limit == "wall_time", out.error
    assert [(f["line"], f["function"]) for f in out.error.to_dict()["traceback"]][0] == (9, "<module>")
    assert out.error.to_dict()["traceback"][-1]["function"] == "f"
    assert stuck.get("keep") == 41 and "r" not in stuck.globals
    assert elapsed < SLOW.wall_time_s + GRACE_S


def test_a_cancelled_run_stuck_in_host_code_is_interrupted(stuck):
    cancel = threading.Event()
    timer = threading.Timer(0.2, cancel.set)
    timer.start()
    try:
        out, elapsed = timed(f"t = torch.stack({L})", stuck, Limits(wall_time_s=60, session_bytes=1 << 40),
                              cancel=cancel)
    finally:
        timer.cancel()
    assert not out.ok and out.error.type == "Cancelled", out.error
    assert elapsed < 0.2 + GRACE_S
    assert run("keep = keep + 1", stuck, ROOMY).ok and stuck.get("keep") == 42


def test_no_interrupt_reaches_the_host_after_runs_that_end_around_the_deadline():
    """Runs whose host call ends about when the ticker would interrupt it: whichever comes first,
    ``run`` returns an Outcome (never raises), and nothing is left pending for the thread, which
    then runs host code of its own for longer than a tick without an exception."""
    ns = Namespace()
    assert run("l = [torch.ones(1)] * 200_000", ns, Limits()).ok
    limits = Limits(wall_time_s=0.01)
    outcomes = set()
    for n in range(60_000, 260_000, 20_000):
        out = run(f"t = torch.stack(l[:{n}])", ns, limits)
        outcomes.add(out.ok or out.error.limit)
        assert not runtime._pending
        deadline = time.monotonic() + 2 * runtime.TICK_S
        spins = 0
        while time.monotonic() < deadline:   # host bytecode, where a stray interrupt would be raised
            spins += 1
        assert spins > 0
    assert "wall_time" in outcomes


def test_the_ticker_leaves_a_paused_run_alone():
    """A debug run paused past its deadline has stopped its clock (the debugger restores it): the
    ticker must not interrupt it."""
    ns = Namespace()
    rt = ns.runtime

    class Paused:
        paused = True

    rt.begin(Limits(wall_time_s=0.01), None, None, None)
    try:
        rt.arm()
        rt.debugger = Paused()
        rt.interrupt_if_stuck(time.monotonic() + 10)
        assert not rt.interrupting and rt.abort is None
        rt.debugger = None
        with pytest.raises(runtime.Interrupted, match="wall_time"):   # raised in this thread, the run's
            rt.interrupt_if_stuck(time.monotonic() + 10)
            for _ in range(1000):   # bytecode, where CPython raises it
                pass
        assert rt.abort is not None and rt.abort.limit == "wall_time"
    finally:
        while True:
            try:
                rt.disarm()
                break
            except runtime.Interrupted:
                continue
        rt.abort = None
        rt.end()
    assert not runtime._pending
