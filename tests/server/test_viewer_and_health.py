"""The viewer page, health, readiness, metrics and the OpenAPI document."""


def test_viewer_serves_a_page_that_watches_over_the_websocket(http):
    r = http.get("/viewer")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert '<script src="/viewer/viewer.js">' in r.text
    js = http.get("/viewer/viewer.js")
    assert js.status_code == 200 and "javascript" in js.headers["content-type"]
    assert '"watch"' in js.text and "/stream" in js.text and "<svg" not in js.text


def test_healthz_and_readyz(http, live_server):
    assert http.get("/healthz").json() == {"status": "ok"}
    ready = http.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["status"] == "ready"
    workers = ready.json()["workers"]
    assert workers[0]["worker"] == "sessions" and workers[0]["alive"]  # the session template (a process each)
    assert len(workers) == 1 + live_server.settings.gpu_workers


def test_metrics_count_runs_errors_sessions_and_workers(http, session):
    session.ok("a = torch.ones(1)")
    session.run("raise ValueError('x')")
    text = http.get("/metrics").text
    assert 'gradserve_runs_total{outcome="ok",transport="http"}' in text
    assert 'gradserve_run_errors_total{type="ValueError"}' in text
    assert "gradserve_run_seconds_bucket" in text
    assert "gradserve_sessions " in text
    assert 'gradserve_worker_up{device="cpu",worker="sessions"} 1.0' in text


def test_openapi_documents_every_route_with_bodies(http):
    spec = http.get("/openapi.json").json()
    paths = spec["paths"]
    for path, method in [("/v1/sessions", "post"), ("/v1/sessions/{session_id}", "get"),
                         ("/v1/sessions/{session_id}", "delete"), ("/v1/sessions/{session_id}/run", "post"),
                         ("/v1/sessions/{session_id}/variables/{name}", "get"),
                         ("/v1/sessions/{session_id}/variables/{name}", "put"),
                         ("/v1/sessions/{session_id}/graph", "get"),
                         ("/v1/sessions/{session_id}/checkpoint", "get"),
                         ("/v1/sessions/{session_id}/checkpoint", "put"),
                         ("/healthz", "get"), ("/readyz", "get"), ("/metrics", "get"), ("/viewer", "get")]:
        assert method in paths[path], (path, method)
    assert "RunRequest" in spec["components"]["schemas"]
    assert http.get("/docs").status_code == 200


def test_docs_page_loads_only_the_servers_own_files(http):
    """/docs works offline (FastAPI's Swagger UI loaded its script and stylesheet from a CDN): the page, its
    script and stylesheet are the server's, under the viewer's Content-Security-Policy."""
    import re

    r = http.get("/docs")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in r.headers["content-security-policy"]
    assert re.findall(r'(?:src|href)="([^"]+)"', r.text) == ["data:,", "/viewer/docs.css", "/openapi.json", "/viewer",
                                                             "/viewer/docs.js"]
    js = http.get("/viewer/docs.js")
    assert js.status_code == 200 and "javascript" in js.headers["content-type"] and "/openapi.json" in js.text
    assert http.get("/viewer/docs.css").status_code == 200
    assert "/docs" not in http.get("/openapi.json").json()["paths"]


def test_tokens_in_websocket_paths_are_redacted_from_logs():
    import logging

    from gradserve.server.app import RedactTokens
    record = logging.LogRecord("uvicorn.error", logging.INFO, "", 0, '%s - "WebSocket %s" [accepted]',
                               ("127.0.0.1:5", "/v1/sessions/abc/stream?token=s3cr3t-T0k&x=1"), None)
    RedactTokens().filter(record)
    assert "s3cr3t" not in record.getMessage()
    assert "token=***&x=1" in record.getMessage()
