"""A real uvicorn server on 127.0.0.1 with its worker processes, for the server tests.

The server runs in a thread of the test process (uvicorn.Server), so a test can
reach its app (settings, backend) to change a limit or find a worker's pid,
while every request goes over real HTTP and WebSocket connections.
"""
import contextlib
import dataclasses
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time

import httpx
import uvicorn

from gradserve.server.app import create_app
from gradserve.server.settings import Settings


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def safetensors_bytes(entries):
    """safetensors bytes of {name: (shape, float32 values)}, entries in the order given (a test of a
    checkpoint refused part-way needs its valid entries first)."""
    header, data = {}, b""
    for name, (shape, values) in entries.items():
        raw = struct.pack(f"<{len(values)}f", *values)
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    head = json.dumps(header).encode()
    return struct.pack("<Q", len(head)) + head + data


@contextlib.contextmanager
def server_process(**env):
    """``gradserve serve`` in a process of its own (its memory measurable alone), with ``GRADSERVE_*``
    variables ``env`` on top of this process's: yields (base URL, pid) once it is ready; stopped by pid."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", "from gradserve.server.cli import main; main()", "serve",
                             "--port", str(port), "--log-level", "warning"], env={**os.environ, **env},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "/readyz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
        yield url, proc.pid
    finally:
        proc.terminate()
        proc.wait(30)


class LiveServer:
    def __init__(self, **overrides):
        overrides.setdefault("workers", 2)
        overrides.setdefault("gpu_workers", 0)
        overrides.setdefault("cancel_grace_s", 0.5)
        overrides.setdefault("sweep_interval_s", 0.2)
        self.settings = Settings.from_env(env={}, host="127.0.0.1", port=free_port(), **overrides)
        self.app = create_app(self.settings)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.settings.port, log_level="warning",
                                http=self.app.state.http_protocol, ws=self.app.state.ws_protocol, ws_max_size=self.settings.ws_max_message_bytes,
                                ws_ping_interval=5, ws_per_message_deflate=self.settings.ws_deflate,
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
            if all(w["alive"] for w in self.backend.health()["workers"]):
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


class StalledWebSocket:
    """A bare WebSocket client that can stop reading entirely, as a stalled browser tab does.

    (Library clients keep reading into memory in a background thread, which hides backpressure.)
    """

    def __init__(self, host, port, path):
        import base64
        import os
        import socket
        self.sock = socket.create_connection((host, port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                          f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                          .encode())
        self.buf = bytearray()
        while b"\r\n\r\n" not in self.buf:
            self.buf += self.sock.recv(4096)
        head, _, rest = bytes(self.buf).partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head
        self.buf = bytearray(rest)

    def send_text(self, text):
        import os
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        header = bytearray([0x81])
        if n < 126:
            header.append(0x80 | n)
        elif n < 65536:
            header += bytes([0x80 | 126]) + n.to_bytes(2, "big")
        else:
            header += bytes([0x80 | 127]) + n.to_bytes(8, "big")
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(bytes(header) + mask + masked)

    def _need(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("closed")
            self.buf += chunk

    def recv_text(self, timeout=30):
        """The next text message (control frames skipped)."""
        self.sock.settimeout(timeout)
        while True:
            self._need(2)
            opcode, length = self.buf[0] & 0x0F, self.buf[1] & 0x7F
            offset = 2
            if length == 126:
                self._need(4)
                length, offset = int.from_bytes(self.buf[2:4], "big"), 4
            elif length == 127:
                self._need(10)
                length, offset = int.from_bytes(self.buf[2:10], "big"), 10
            self._need(offset + length)
            payload = bytes(self.buf[offset:offset + length])
            del self.buf[:offset + length]
            if opcode == 8:
                raise ConnectionError(f"closed by the server: {payload[:2].hex()}")
            if opcode == 1:
                return payload.decode()

    def close(self):
        self.sock.close()


def peak_rss_while(process, fn, interval_s=0.01):
    """(fn's result, a psutil ``process``'s peak RSS growth in bytes while fn ran), sampled every ``interval_s``."""
    base = peak = process.memory_info().rss
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, process.memory_info().rss)
            time.sleep(interval_s)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        result = fn()
    finally:
        done.set()
        sampler.join()
    return result, peak - base
