"""The host's memory (attack8 F4): sessions may together hold more than the machine has, so a run
whose resident memory grows while the host (or the cgroup it runs in) has less than its reserve left
stops with LimitExceeded host_memory, its bindings released and its session kept, before the kernel's
OOM killer has to pick a process. A run that does not grow never reads the host."""
import pytest

from gradserve.engine.program import Limits, Namespace, run
from gradserve.engine.program import memory, runtime

# 192 MB held for 0.2 s (resident memory is read every 20 ms), past HOST_CHECK_GROWTH
GROW = """
import time
big = torch.ones(48_000_000)
t = time.monotonic()
while time.monotonic() - t < 0.2:
    pass
"""


@pytest.fixture
def reserve(monkeypatch):
    def set_reserve(nbytes):
        monkeypatch.setattr(runtime, "_host_reserve", [nbytes])
    return set_reserve


def test_the_host_is_read():
    available, reserve = memory.host_available(), memory.host_reserve()
    assert available is not None and available > 0
    assert reserve is not None and reserve >= 512 << 20


def test_the_reserve_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv(memory.HOST_RESERVE_ENV, str(3 << 30))
    assert memory.host_reserve() == 3 << 30


def test_a_growing_run_stops_when_the_host_is_short_and_the_session_stays(reserve):
    reserve(memory.host_available() + (64 << 30))   # more than the host could ever have left
    ns = Namespace()
    assert run("import torch\nkeep = torch.arange(3.0)", ns).ok
    out = run(GROW, ns, Limits(session_bytes=8 << 30))
    assert not out.ok and out.error.type == "LimitExceeded" and out.error.limit == "host_memory"
    assert "host_memory" in out.error.message and "session kept" in out.error.message
    assert "big" not in ns.names() and "big" not in out.bound          # the run's bindings released
    again = run("total = float(keep.sum())", ns)
    assert again.ok and ns.get("total") == 3.0


def test_a_run_that_does_not_grow_is_not_stopped(reserve):
    reserve(memory.host_available() + (64 << 30))
    ns = Namespace()
    out = run("import torch\nx = torch.ones(1000)\ny = [i * i for i in range(100000)]", ns)
    assert out.ok, out.error.to_dict()


def test_with_room_left_the_same_run_succeeds(reserve):
    reserve(0)
    ns = Namespace()
    out = run("import torch\n" + GROW, ns, Limits(session_bytes=8 << 30))
    assert out.ok, out.error.to_dict()
    assert ns.get("big").numel() == 48_000_000


def test_a_forked_child_that_closes_its_descriptors_still_reads_its_memory_and_the_host(monkeypatch):
    """A session process is forked from a template whose warm-up run opened /proc/self/statm, and closes
    every descriptor it inherits: the module's kept descriptors are forgotten at the fork and opened
    again (before, read_statm answered (None, None) in every session process). A fake CuPy an earlier
    test loaded would turn held_at_most off: this is a CPU session process's view."""
    import os
    import resource
    import sys
    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    assert memory.read_statm()[0] is not None and memory.host_available() is not None   # opened here
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: close everything but the pipe's write end, then read
        try:
            os.closerange(3, w)
            os.closerange(w + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
            rss, data = memory.read_statm()
            ok = rss is not None and data is not None and memory.held_at_most() is not None \
                and memory.host_available() is not None
            os.write(w, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(w)
    answer = os.read(r, 1)
    os.close(r)
    os.waitpid(pid, 0)
    assert answer == b"1"


def test_a_session_bytes_failure_gives_the_freed_heap_back(monkeypatch):
    """attack13 F8: a run that filled its session with small objects and failed freed them, but glibc kept the
    fragmented heap resident (1.1 GB for a session holding nothing): the runner trims the heap after such a
    failure (malloc_trim), and only then."""
    from gradserve.engine import _malloc
    calls = []
    real = _malloc.trim
    monkeypatch.setattr(_malloc, "trim", lambda: calls.append(1) or real())
    ns, limits = Namespace(), Limits(session_bytes=50_000_000)
    out = run("keep = []\nfor i in range(2_000_000):\n    keep.append([i, 'x' * 20])\n", ns, limits)
    assert not out.ok and out.error.limit == "session_bytes"
    assert calls == [1] and ns.nbytes() == 0
    assert run("ok = sum(range(10))\n", ns, limits).ok and calls == [1]
    assert isinstance(real(), bool)
