"""A session's own process, outside any server: the template, the fork, the limits seen from inside,
BLAS threads after the fork, and the blocking client a host without an event loop (a Ray actor) uses."""
import multiprocessing
import os
import time

import psutil
import pytest

from gradserve.server.session_process import GC_THRESHOLD, SessionClient, Template, TemplateGone, confine

pytestmark = pytest.mark.slow

CONFIG = {"memory_bytes": 64 << 20, "threads": 1, "cpu_s": 3600}


@pytest.fixture(scope="module")
def template():
    t = Template().start()
    yield t
    t.stop()


def _open(template, **config):
    process = template.fork({**CONFIG, **config})
    client = SessionClient(process)
    reply, _ = client.call({"op": "open", "session": "s"})
    assert reply["ok"]
    return process, client


def _run(client, program, outputs=None):
    reply, out = client.call({"op": "run", "session": "s", "run": "r", "program": program, "inputs": {},
                              "outputs": outputs, "limits": {}})
    return reply, out


def test_template_runs_no_blas_threads_and_forks_children_it_reaps(template):
    tp = psutil.Process(template.pid)
    assert tp.num_threads() == 1  # forking with live OpenBLAS threads can deadlock the child
    process, client = _open(template)
    assert psutil.Process(process.pid).ppid() == template.pid
    reply, out = _run(client, "x = torch.ones(3, requires_grad=True)\ny = (x * x).sum()\ny.backward()", ["y"])
    assert reply["ok"] and reply["values"]["y"]["shape"] == []
    assert bytes(out[0]) == b"\x00\x00\x40\x40"  # 3.0 as float32
    process.close()
    deadline = time.monotonic() + 5
    while psutil.pid_exists(process.pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not psutil.pid_exists(process.pid)  # killed through its pidfd, reaped by the template


def test_killed_session_process_reads_as_eof_and_the_template_forks_on(template):
    process, client = _open(template)
    process.kill()
    with pytest.raises((EOFError, OSError)):
        _run(client, "a = 1")
    assert process.exited(5.0)
    process.close()
    other, other_client = _open(template)
    assert _run(other_client, "a = torch.ones(2)", ["a"])[0]["ok"]
    other.close()


def test_blas_threads_started_after_the_fork_share_a_matmul():
    """threads=2: OpenBLAS gets its second thread in the child (never in the template), and a matmul
    is spread over both (each accrues CPU time)."""
    template = Template().start()
    try:
        one, one_client = _open(template, threads=1)
        two, two_client = _open(template, threads=2)
        assert psutil.Process(two.pid).num_threads() == psutil.Process(one.pid).num_threads() + 1
        _run(two_client, "a = torch.ones(1200, 1200)")
        before = {t.id: t.user_time + t.system_time for t in psutil.Process(two.pid).threads()}
        reply, _ = _run(two_client, "for i in range(6):\n    b = a @ a")
        assert reply["ok"], reply
        after = {t.id: t.user_time + t.system_time for t in psutil.Process(two.pid).threads()}
        busy = sorted((after[k] - before.get(k, 0.0) for k in after), reverse=True)
        assert busy[1] > 0.2 * busy[0], busy
        one.close(), two.close()
    finally:
        template.stop()


def test_fork_after_the_template_died_raises_template_gone():
    template = Template().start()
    template.kill()
    template.process.join(5)
    with pytest.raises(TemplateGone):
        template.fork(CONFIG)
    template.stop()


# ---------------------------------------------------------------- limits seen from inside
def _inside(memory_bytes):
    """In a fresh process: confine as a session process does, then try what a session must not do."""
    import resource
    import signal
    import tempfile
    import threading
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    applied = confine({"memory_bytes": memory_bytes, "threads": 1, "cpu_s": 100})
    seen = {"applied": applied, "as": resource.getrlimit(resource.RLIMIT_AS)[0]}
    try:
        with tempfile.TemporaryFile() as f:
            f.write(b"x" * 10)
            f.flush()
        seen["write"] = "allowed"
    except OSError:
        seen["write"] = "refused"
    try:
        bytearray(seen["as"])
        seen["alloc"] = "allowed"
    except MemoryError:
        seen["alloc"] = "refused"
    try:
        t = threading.Thread(target=lambda: None)
        t.start()
        t.join()
        seen["thread"] = "allowed"
    except RuntimeError:
        seen["thread"] = "refused"
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        seen["fork"] = "allowed"
    except OSError:
        seen["fork"] = "refused"
    with open("/proc/self/status") as f:
        seen["no_new_privs"] = "NoNewPrivs:\t1" in f.read()
    return seen


def test_limits_observed_from_inside_a_confined_process():
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        seen = pool.apply(_inside, (64 << 20,))
    assert seen["write"] == "refused"               # RLIMIT_FSIZE=0
    assert seen["alloc"] == "refused"               # RLIMIT_AS
    assert seen["as"] < psutil.Process().memory_info().vms + (64 << 20) * 2 + (1 << 30)
    assert seen["no_new_privs"]
    assert seen["applied"]["nproc"] == 0 and seen["applied"]["fsize"] == 0
    assert seen["applied"]["oom_score_adj"] == 1000
    if os.geteuid() != 0:  # the kernel does not apply RLIMIT_NPROC to root
        assert seen["thread"] == "refused" and seen["fork"] == "refused"


def _oom_score_adj(pid):
    with open(f"/proc/{pid}/oom_score_adj") as f:
        return int(f.read())


def test_session_processes_are_the_oom_killers_first_choice(template):
    """attack8 F4: sessions are planned at a quarter of their byte limit, so sessions filling theirs can
    exhaust the host; the OOM killer must then end a session process, not the API process, the template
    or anything else on the machine."""
    process, client = _open(template)
    try:
        reply, _ = _run(client, "x = 1")
        assert reply["ok"]
        assert _oom_score_adj(process.pid) == 1000
        assert _oom_score_adj(template.pid) < 1000
        assert _oom_score_adj(os.getpid()) < 1000
    finally:
        process.kill()
        process.close()


def _collector_after_tune():
    """In a fresh process: the thresholds tune_gc leaves, and whether a reference cycle is still freed
    by the collector on its own (the allocations past the threshold, no gc.collect call)."""
    import gc
    import weakref

    from gradserve.server.session_process import tune_gc
    tune_gc()

    class Node:
        pass
    a, b = Node(), Node()
    a.other, b.other = b, a
    alive = weakref.ref(a)
    del a, b
    junk = [[] for _ in range(GC_THRESHOLD[0] * 3)]   # enough allocations for a young collection
    del junk
    return {"threshold": gc.get_threshold(), "enabled": gc.isenabled(), "cycle_freed": alive() is None}


def test_a_session_process_collects_cycles_less_often_but_still_collects_them():
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        seen = pool.apply(_collector_after_tune)
    assert seen["threshold"] == GC_THRESHOLD and GC_THRESHOLD[0] > 700
    assert seen["enabled"] and seen["cycle_freed"]
