"""A real uvicorn server on 127.0.0.1 with its worker processes, for the server tests.

The server runs in a thread of the test process (uvicorn.Server), so a test can
reach its app (settings, backend) to change a limit or find a worker's pid,
while every request goes over real HTTP and WebSocket connections.
"""
import contextlib
import dataclasses
import socket
import threading
import time

import uvicorn

from gradserve.server.app import create_app
from gradserve.server.settings import Settings


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    def __init__(self, **overrides):
        overrides.setdefault("workers", 2)
        overrides.setdefault("gpu_workers", 0)
        overrides.setdefault("cancel_grace_s", 0.5)
        overrides.setdefault("sweep_interval_s", 0.2)
        self.settings = Settings.from_env(env={}, host="127.0.0.1", port=free_port(), **overrides)
        self.app = create_app(self.settings)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.settings.port, log_level="warning",
                                ws_max_size=self.settings.ws_max_message_bytes, ws_ping_interval=5,
                                ws_ping_timeout=5, timeout_graceful_shutdown=2)
        self.server = uvicorn.Server(config)
        self.url = f"http://127.0.0.1:{self.settings.port}"
        self.ws_url = f"ws://127.0.0.1:{self.settings.port}"
        self.thread = threading.Thread(target=self.server.run, daemon=True, name="uvicorn")

    def start(self):
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def stop(self):
        self.server.should_exit = True
        self.thread.join(30)

    @property
    def backend(self):
        return self.app.state.backend

    @contextlib.contextmanager
    def limits(self, **changes):
        """Changes run limits for the duration of a block."""
        saved = self.settings.limits
        self.settings.limits = dataclasses.replace(saved, **changes)
        try:
            yield
        finally:
            self.settings.limits = saved

    @contextlib.contextmanager
    def setting(self, **changes):
        saved = {k: getattr(self.settings, k) for k in changes}
        for k, v in changes.items():
            setattr(self.settings, k, v)
        try:
            yield
        finally:
            for k, v in saved.items():
                setattr(self.settings, k, v)

    def wait_ready(self, timeout_s=60):
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if all(w.alive for w in self.backend.slots):
                return
            time.sleep(0.05)
        raise AssertionError("workers were not replaced in time")


class SessionHandle:
    def __init__(self, client, body):
        self.client = client
        self.id = body["id"]
        self.token = body["token"]
        self.headers = {"Authorization": f"Bearer {self.token}"}
        self.path = f"/v1/sessions/{self.id}"

    def run(self, program, **body):
        return self.client.post(self.path + "/run", json={"program": program, **body}, headers=self.headers)

    def ok(self, program, **body):
        r = self.run(program, **body)
        assert r.status_code == 200, r.text
        return r.json()

    def get(self, suffix="", **kw):
        return self.client.get(self.path + suffix, headers=self.headers, **kw)

    def put(self, suffix, **kw):
        return self.client.put(self.path + suffix, headers=self.headers, **kw)

    def delete(self):
        return self.client.delete(self.path, headers=self.headers)


def open_session(client, **body):
    r = client.post("/v1/sessions", json=body)
    assert r.status_code == 201, r.text
    return SessionHandle(client, r.json())
