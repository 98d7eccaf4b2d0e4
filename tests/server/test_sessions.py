"""Sessions: create, describe, delete, tokens, API keys, TTL and idle expiry."""
import os
import time
from datetime import datetime

import psutil
import pytest

from server_harness import open_session


def test_create_session_answers_id_token_device_and_expiry(http):
    r = http.post("/v1/sessions", json={"device": "cpu", "ttl_s": 60})
    assert r.status_code == 201
    body = r.json()
    assert set(body) == {"id", "token", "device", "expires_at"}
    assert body["device"] == "cpu"
    assert len(body["token"]) >= 43  # 256 bits in URL-safe base64
    expires = datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert 50 < expires.timestamp() - time.time() <= 61
    http.delete(f"/v1/sessions/{body['id']}", headers={"Authorization": f"Bearer {body['token']}"})


def test_create_session_without_body_uses_defaults(http):
    r = http.post("/v1/sessions")
    assert r.status_code == 201, r.text
    assert r.json()["device"] == "cpu"


def test_get_session_lists_tensor_variables_and_bytes(session):
    assert session.put("/variables/w", json={"data": [[1.0, 2.0]], "dtype": "float64", "requires_grad": True}
                       ).status_code == 204
    body = session.get().json()
    assert body["id"] == session.id and body["device"] == "cpu"
    assert body["variables"]["w"] == {"shape": [1, 2], "dtype": "float64", "requires_grad": True, "has_grad": False}
    assert body["bytes"] >= 16
    assert {"created_at", "expires_at"} <= set(body)


def test_request_without_token_answers_401(http, session):
    r = http.get(session.path)
    assert r.status_code == 401
    assert r.headers["www-authenticate"] == "Bearer"
    assert r.json()["error"]["type"] == "Unauthorized"


def test_wrong_token_and_unknown_session_answer_the_same_404(http, session):
    wrong = http.get(session.path, headers={"Authorization": "Bearer " + "x" * 43})
    unknown = http.get("/v1/sessions/nonexistent", headers=session.headers)
    assert wrong.status_code == unknown.status_code == 404
    assert wrong.json() == unknown.json()


def test_token_of_one_session_does_not_open_another(http):
    a, b = open_session(http), open_session(http)
    r = http.get(b.path, headers=a.headers)
    assert r.status_code == 404
    a.delete(), b.delete()


def _gone(pid, timeout_s=5.0):
    """Whether the process ``pid`` has ended (and been reaped) within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                time.sleep(0.02)
                continue
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.02)
    return False


def test_delete_frees_the_session_and_ends_its_process(http, live_server):
    s = open_session(http)
    placement = live_server.app.state.sessions.sessions[s.id].placement
    pid = live_server.backend.worker_pid(placement)
    assert pid is not None and pid != os.getpid() and psutil.pid_exists(pid)
    assert s.delete().status_code == 204
    assert s.get().status_code == 404
    assert live_server.backend.worker_pid(placement) is None
    assert _gone(pid)
    assert s.delete().status_code == 404


def test_api_keys_guard_session_creation(http, live_server):
    with live_server.setting(api_keys=("k1", "k2")):
        assert http.post("/v1/sessions").status_code == 401
        assert http.post("/v1/sessions", headers={"Authorization": "Bearer nope"}).status_code == 401
        r = http.post("/v1/sessions", headers={"Authorization": "Bearer k2"})
        assert r.status_code == 201
    body = r.json()
    http.delete(f"/v1/sessions/{body['id']}", headers={"Authorization": f"Bearer {body['token']}"})


def test_session_expires_at_its_ttl_and_the_sweeper_frees_it(http, live_server):
    s = open_session(http, ttl_s=1.0)   # the shortest lifetime a session may ask for
    placement = live_server.app.state.sessions.sessions[s.id].placement
    pid = live_server.backend.worker_pid(placement)
    assert s.get().status_code == 200
    time.sleep(1.3)
    assert s.get().status_code == 404
    assert _gone(pid)  # the sweeper culled its process
    assert live_server.backend.worker_pid(placement) is None
    assert s.id not in live_server.app.state.sessions.sessions


def test_idle_session_expires_and_its_process_is_culled(http, live_server):
    # an idle time with seconds of margin over the requests' own latency on a loaded machine
    with live_server.setting(idle_timeout_s=2.0):
        s = open_session(http)
    pid = live_server.backend.worker_pid(live_server.app.state.sessions.sessions[s.id].placement)
    idle_since = time.monotonic()
    for _ in range(3):
        time.sleep(0.8)
        assert s.get().status_code == 200  # each request keeps it alive past its 2 s idle time
    assert time.monotonic() - idle_since > 2.0
    assert psutil.pid_exists(pid)
    registry = live_server.app.state.sessions.sessions
    deadline = time.monotonic() + 10
    while s.id in registry and time.monotonic() < deadline:   # watched without a request, which would keep it
        time.sleep(0.2)
    assert s.get().status_code == 404
    assert _gone(pid)


def test_max_sessions_bounds_the_session_processes_with_a_429(http, live_server):
    backend = live_server.backend
    before = len(backend.processes)
    with live_server.setting(max_sessions=len(live_server.app.state.sessions) + 2):
        kept = [open_session(http), open_session(http)]
        r = http.post("/v1/sessions")
        assert r.status_code == 429
        assert r.json()["error"]["type"] == "TooManyRequests"
        assert "retry-after" in r.headers
        assert len(backend.processes) == before + 2
        kept[0].delete()
        replacement = open_session(http)  # room again once a session is deleted
    for s in (kept[1], replacement):
        s.delete()
    assert len(backend.processes) == before


def test_bad_session_bodies_answer_422(http):
    for body in ({"device": "tpu"}, {"ttl_s": -1}, {"ttl_s": "soon"}, {"colour": "red"}, [1, 2]):
        r = http.post("/v1/sessions", json=body)
        assert r.status_code == 422, (body, r.text)
        assert r.json()["error"]["type"] == "ValidationError"


def test_cuda_session_without_gpu_workers_answers_422(http):
    r = http.post("/v1/sessions", json={"device": "cuda"})
    assert r.status_code == 422
    assert "cuda" in r.json()["error"]["message"]


def test_max_sessions_defaults_to_what_the_machine_can_back():
    """Attack report: 155 sessions opened with no refusal (the default was a fixed 1000, and each may hold
    session_bytes). The default now comes from the machine's memory: a quarter of each session's limit."""
    from gradserve.server.settings import MAX_SESSIONS_CAP, MIN_SESSIONS, Settings, default_max_sessions
    GiB = 1 << 30
    assert default_max_sessions(GiB, memory_bytes=24 * GiB) == 96
    assert default_max_sessions(GiB, memory_bytes=2 * GiB) == MIN_SESSIONS
    assert default_max_sessions(GiB, memory_bytes=4096 * GiB) == MAX_SESSIONS_CAP
    assert default_max_sessions(256 << 20, memory_bytes=24 * GiB) == 384
    derived = Settings.from_env(env={}).max_sessions
    assert MIN_SESSIONS <= derived <= MAX_SESSIONS_CAP
    assert Settings.from_env(env={"GRADSERVE_MAX_SESSIONS": "7"}).max_sessions == 7
    assert Settings.from_env(env={"GRADSERVE_MAX_SESSIONS": "auto"}).max_sessions == derived
    with pytest.raises(ValueError):
        Settings.from_env(env={"GRADSERVE_MAX_SESSIONS": "0"})


@pytest.mark.slow
def test_past_the_derived_default_creating_a_session_is_a_clear_429(monkeypatch):
    """A server on its default max_sessions (derived, here from a small machine: MIN_SESSIONS) refuses the
    next session with a 429 naming the limit, and the sessions it holds keep their variables."""
    import httpx
    from gradserve.server import settings as settings_module
    from server_harness import LiveServer
    monkeypatch.setattr(settings_module, "machine_memory_bytes", lambda: 1 << 30)
    server = LiveServer().start()
    try:
        assert server.settings.max_sessions == settings_module.MIN_SESSIONS
        with httpx.Client(base_url=server.url, timeout=60) as client:
            first = open_session(client)
            first.ok("keep = torch.arange(3.0)")
            held = [first] + [open_session(client) for _ in range(server.settings.max_sessions - 1)]
            r = client.post("/v1/sessions")
            assert r.status_code == 429, r.text
            error = r.json()["error"]
            assert error["type"] == "TooManyRequests" and error["limit"] == "max_sessions"
            assert str(server.settings.max_sessions) in error["message"] and "retry-after" in r.headers
            assert first.ok("twice = keep * 2", outputs=["twice"])["values"]["twice"]["data"] == [0.0, 2.0, 4.0]
            held.pop().delete()
            held.append(open_session(client))  # room again once one is deleted
            for s in held:
                s.delete()
    finally:
        server.stop()
