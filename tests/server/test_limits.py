"""Request body cap (counted as it streams), CORS allowlist."""
import httpx
import pytest

from server_harness import LiveServer


@pytest.fixture(scope="module")
def small_server():
    server = LiveServer(workers=1, max_body_bytes=1024, ws_max_message_bytes=1024,
                        cors_origins=("https://app.example",)).start()
    yield server
    server.stop()


def test_declared_body_past_the_cap_answers_413(small_server):
    with httpx.Client(base_url=small_server.url) as c:
        r = c.post("/v1/sessions", content=b"x" * 2000, headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    assert r.json()["error"]["type"] == "TooLarge"


def test_streamed_body_past_the_cap_answers_413(small_server):
    def chunks():
        for _ in range(10):
            yield b"[" + b" " * 200

    with httpx.Client(base_url=small_server.url) as c:
        r = c.post("/v1/sessions", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413


def test_body_under_the_cap_passes(small_server):
    with httpx.Client(base_url=small_server.url) as c:
        r = c.post("/v1/sessions", json={"ttl_s": 30})
    assert r.status_code == 201


def test_cors_allows_listed_origins_only(small_server):
    with httpx.Client(base_url=small_server.url) as c:
        ok = c.options("/v1/sessions", headers={"Origin": "https://app.example",
                                                "Access-Control-Request-Method": "POST"})
        bad = c.options("/v1/sessions", headers={"Origin": "https://evil.example",
                                                 "Access-Control-Request-Method": "POST"})
    assert ok.headers["access-control-allow-origin"] == "https://app.example"
    assert ok.headers["access-control-allow-credentials"] == "true"
    assert "access-control-allow-origin" not in bad.headers


def test_cors_wildcard_is_refused():
    from gradserve.server.settings import Settings
    with pytest.raises(ValueError):
        Settings.from_env(env={"GRADSERVE_CORS_ORIGINS": "*"})


def test_settings_read_the_environment():
    from gradserve.server.settings import Settings
    s = Settings.from_env(env={"GRADSERVE_WORKERS": "3", "GRADSERVE_API_KEYS": "a, b",
                               "GRADSERVE_LIMIT_WALL_TIME_S": "2.5", "GRADSERVE_GPU_WORKERS": "auto"})
    assert s.workers == 3 and s.api_keys == ("a", "b") and s.limits.wall_time_s == 2.5 and s.gpu_workers is None


def test_websocket_message_past_the_cap_closes_with_1009(small_server):
    import json

    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect
    with httpx.Client(base_url=small_server.url) as c:
        created = c.post("/v1/sessions", json={}).json()
    url = f"{small_server.ws_url}/v1/sessions/{created['id']}/stream?token={created['token']}"
    with connect(url) as ws:
        ws.send(json.dumps({"type": "run", "id": "big", "program": "a = 1\n" * 400}))
        with pytest.raises(ConnectionClosed) as info:
            while True:
                ws.recv(timeout=10)
    assert info.value.rcvd.code == 1009


def test_websocket_from_an_allowed_origin_is_accepted(small_server):
    from websockets.sync.client import connect
    with httpx.Client(base_url=small_server.url) as c:
        created = c.post("/v1/sessions", json={}).json()
    url = f"{small_server.ws_url}/v1/sessions/{created['id']}/stream?token={created['token']}"
    with connect(url, origin="https://app.example") as ws:
        ws.send('{"type": "ping"}')
        assert '"pong"' in ws.recv(timeout=10)
