"""Worker processes: a run that ignores its cancel, a worker killed mid-run, resource limits."""
import os
import signal
import threading
import time

import pytest

from server_harness import open_session

pytestmark = pytest.mark.slow


def _placement(live_server, session):
    return live_server.app.state.sessions.sessions[session.id].placement


def _session_on_other_worker(http, live_server, worker):
    for _ in range(8):
        s = open_session(http)
        if _placement(live_server, s).worker != worker:
            return s
    raise AssertionError("no session landed on another worker")


def test_killed_worker_answers_410_for_its_sessions_only_and_is_replaced(http, live_server):
    victim = open_session(http)
    victim.ok("kept = torch.ones(1)")
    placement = _placement(live_server, victim)
    other = _session_on_other_worker(http, live_server, placement.worker)
    pid = live_server.backend.worker_pid(placement)
    restarts = live_server.backend.restarts[placement.worker]
    result = {}

    def long_run():
        result["r"] = victim.run("i = 0\nwhile True:\n    i = i + 1\n")

    t = threading.Thread(target=long_run)
    t.start()
    time.sleep(0.3)
    os.kill(pid, signal.SIGKILL)
    t.join(20)
    assert result["r"].status_code == 410
    assert result["r"].json()["error"]["type"] == "SessionGone"
    assert victim.get().status_code == 410
    assert victim.get("/variables/kept").status_code == 410
    # the other worker's session never noticed
    assert other.ok("z = torch.ones(2) * 2", outputs=["z"])["values"]["z"]["data"] == [2.0, 2.0]
    live_server.wait_ready()
    assert live_server.backend.restarts[placement.worker] == restarts + 1
    assert live_server.backend.worker_pid(_placement(live_server, victim)) is None
    fresh = [open_session(http) for _ in range(3)]
    for s in fresh:
        s.ok("a = torch.zeros(1)")
    assert victim.delete().status_code == 204  # a gone session can still be deleted
    for s in fresh + [other]:
        s.delete()
    metrics = http.get("/metrics").text
    assert f'gradserve_worker_restarts_total{{device="cpu",worker="{placement.worker}"}}' in metrics


def test_run_that_ignores_its_cancel_gets_its_worker_replaced(http, live_server):
    """A C-level loop (one huge matmul, seconds long) cannot see the cancel flag: the server kills the worker."""
    s = open_session(http)
    s.ok("a = torch.ones(6000, 6000)", outputs=[])
    with live_server.limits(wall_time_s=0.2), live_server.setting(cancel_grace_s=0.3):
        t0 = time.monotonic()
        r = s.run("b = a @ a", outputs=[])
        elapsed = time.monotonic() - t0
    assert r.status_code in (408, 410), r.text
    assert elapsed < 10
    assert s.get().status_code == 410
    live_server.wait_ready()
    s.delete()


def test_worker_processes_limit_themselves():
    """RLIMIT_FSIZE=0, RLIMIT_CORE=0, RLIMIT_NOFILE and RLIMIT_AS, as a worker sets them."""
    import multiprocessing
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:
        limits = pool.apply(_limits_after, (64 << 30, 128))
    assert limits["fsize"] == 0 and limits["core"] == 0
    assert limits["nofile"] == 128 and limits["as"] == 64 << 30
    assert limits["write"] == "refused"


def _limits_after(memory_bytes, max_files):
    import resource
    import tempfile

    from gradserve.server.worker import _limit_self
    _limit_self("cpu", memory_bytes, max_files)
    try:
        with tempfile.TemporaryFile() as f:
            f.write(b"x")
            f.flush()
        write = "allowed"
    except OSError:
        write = "refused"
    return {"fsize": resource.getrlimit(resource.RLIMIT_FSIZE)[0], "core": resource.getrlimit(resource.RLIMIT_CORE)[0],
            "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0], "as": resource.getrlimit(resource.RLIMIT_AS)[0],
            "write": write}


@pytest.mark.gpu
def test_cuda_session_runs_on_a_gpu_worker():
    import httpx

    from server_harness import LiveServer
    server = LiveServer(workers=1, gpu_workers=None).start()
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            assert "cuda" in server.backend.devices()
            s = open_session(client, device="cuda")
            body = s.ok("y = (x * x).sum()\ny.backward()\nprint(x.device.type)",
                        inputs={"x": {"data": [1.0, 2.0], "requires_grad": True}}, outputs=["y", "x"])
            assert body["stdout"] == "cuda\n"
            assert body["values"]["y"]["data"] == 5.0
            assert body["grads"]["x"]["data"] == [2.0, 4.0]
    finally:
        server.stop()
