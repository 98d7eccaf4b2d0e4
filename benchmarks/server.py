"""Server benchmarks: each gradserve figure beside the same figure for a bare
FastAPI endpoint served by uvicorn with the same settings, in the same run, and
beside gradserve with ``isolation="shared"`` (CPU sessions sharing one worker
process per core, the model before a process per session).

  - round trip of a tiny gradient program, p50 and p99, over HTTP and over WebSocket
  - requests per second with 16 concurrent clients (each on its own session)
  - MB/s of a 64 MB float32 tensor uploaded and downloaded in base64
  - session creation, p50 and p99 (POST /v1/sessions: a fork, for a process per session)
  - memory per idle session (after one tiny run): the growth of the server's process
    tree, USS and PSS, over 40 sessions

Both servers run as subprocesses on 127.0.0.1; the load comes from this process
through a minimal keep-alive HTTP/1.1 client, so client overhead stays small
and equal for both. Usage: python benchmarks/server.py [--quick]
"""
import argparse
import asyncio
import base64
import json
import os
import socket
import statistics
import subprocess
import sys
import time

import numpy as np

# The same for both servers; no access log for either (at log level warning uvicorn would not write it anyway).
UVICORN = dict(log_level="warning", access_log=False, http="httptools", loop="uvloop", ws_max_size=256 << 20,
               ws_ping_interval=20.0, ws_ping_timeout=20.0, ws_per_message_deflate=False)   # as gradserve serves (ws_deflate)
TENSOR_BYTES = 64 << 20
TINY = {"program": "y = (x * x).sum()\ny.backward()", "inputs": {"x": {"data": [1.0, 2.0, 3.0], "requires_grad": True}},
        "outputs": ["y", "x"]}


# ---------------------------------------------------------------- the servers
def bare_app():
    """The comparison: FastAPI endpoints that parse the same bodies and answer the same shapes, doing no work."""
    from fastapi import Body, FastAPI, Request, WebSocket, WebSocketDisconnect
    from fastapi.responses import JSONResponse, Response

    app = FastAPI()
    answer = {"values": {"y": {"shape": [], "dtype": "float32", "data": 14.0},
                         "x": {"shape": [3], "dtype": "float32", "data": [1.0, 2.0, 3.0]}},
              "grads": {"x": {"shape": [3], "dtype": "float32", "data": [2.0, 4.0, 6.0]}},
              "graph": None, "stdout": "", "elapsed_ms": 0.0}
    held = {}

    @app.post("/run")
    async def run(body: dict = Body(...)):
        return JSONResponse(answer)

    @app.websocket("/stream")
    async def stream(ws: WebSocket):
        await ws.accept()
        try:
            while True:
                message = json.loads(await ws.receive_text())
                await ws.send_text(json.dumps({"type": "result", "run": message.get("id"), "seq": 0, **answer}))
        except WebSocketDisconnect:
            pass

    @app.put("/tensor")
    async def put(request: Request):
        body = await request.json()
        held["t"] = np.frombuffer(base64.b64decode(body["b64"]), np.float32).reshape(body["shape"])
        return Response(status_code=204)

    @app.get("/tensor")
    async def get():
        t = held["t"]
        return JSONResponse({"value": {"shape": list(t.shape), "dtype": "float32",
                                       "b64": base64.b64encode(t.tobytes()).decode()}, "grad": None})

    return app


def serve(kind, port):
    import uvicorn
    if kind == "bare":
        app = bare_app()
    else:
        from gradserve.server.app import create_app
        from gradserve.server.settings import Settings
        isolation = "shared" if kind == "shared" else "process"
        app = create_app(Settings.from_env(port=port, max_body_bytes=128 << 20, ws_max_message_bytes=128 << 20,
                                           isolation=isolation))
    uvicorn.run(app, host="127.0.0.1", port=port, **UVICORN)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(kind):
    port = free_port()
    proc = subprocess.Popen([sys.executable, __file__, "--serve", kind, "--port", str(port)])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            time.sleep(0.1)
    else:
        proc.kill()
        raise RuntimeError(f"{kind} server did not start")
    return proc, port


# ---------------------------------------------------------------- a lean HTTP/1.1 client
class Connection:
    def __init__(self, reader, writer, port):
        self.reader, self.writer, self.port = reader, writer, port

    @classmethod
    async def open(cls, port):
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 24)
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(reader, writer, port)

    async def request(self, method, path, body=b"", headers=()):
        head = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}", f"Content-Length: {len(body)}",
                "Content-Type: application/json", *headers, "", ""]
        self.writer.write("\r\n".join(head).encode() + body)
        await self.writer.drain()
        raw = await self.reader.readuntil(b"\r\n\r\n")
        status = int(raw[9:12])
        length, chunked = 0, False
        for line in raw.split(b"\r\n"):
            lower = line.lower()
            if lower.startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
            elif lower.startswith(b"transfer-encoding:") and b"chunked" in lower:
                chunked = True
        if chunked:  # a large answer is streamed a block at a time
            parts = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                parts.append(await self.reader.readexactly(size + 2))
                if size == 0:
                    return status, b"".join(p[:-2] for p in parts)
        data = await self.reader.readexactly(length) if length else b""
        return status, data

    def close(self):
        self.writer.close()


class Target:
    """Where one server's figures come from: paths and headers for each measurement."""

    def __init__(self, kind, port):
        self.kind, self.port = kind, port
        self.headers = ()
        self.run_path = "/run"
        self.tensor_path = "/tensor"
        self.ws_path = "/stream"

    async def new_session(self):
        if self.kind == "bare":
            return self
        conn = await Connection.open(self.port)
        status, body = await conn.request("POST", "/v1/sessions", b"{}")
        conn.close()
        assert status == 201, body
        created = json.loads(body)
        t = Target(self.kind, self.port)
        t.headers = (f"Authorization: Bearer {created['token']}",)
        base = f"/v1/sessions/{created['id']}"
        t.run_path, t.tensor_path = base + "/run", base + "/variables/big"
        t.ws_path = base + f"/stream?token={created['token']}"
        return t


def percentiles(samples):
    samples = sorted(samples)
    return samples[len(samples) // 2], samples[min(len(samples) - 1, int(len(samples) * 0.99))]


async def http_latency(target, n):
    session = await target.new_session()
    conn = await Connection.open(target.port)
    body = json.dumps(TINY).encode()
    times = []
    for i in range(n + n // 10):
        t0 = time.perf_counter()
        status, data = await conn.request("POST", session.run_path, body, session.headers)
        times.append(time.perf_counter() - t0)
        assert status == 200, data
    conn.close()
    return percentiles(times[n // 10:])


async def ws_latency(target, n):
    from websockets.asyncio.client import connect
    session = await target.new_session()
    times = []
    async with connect(f"ws://127.0.0.1:{target.port}{session.ws_path}", max_size=None, compression=None) as ws:
        for i in range(n + n // 10):
            message = json.dumps({"type": "run", "id": str(i), "trace": False, **TINY})
            t0 = time.perf_counter()
            await ws.send(message)
            while True:
                event = json.loads(await ws.recv())
                if event["type"] in ("result", "error"):
                    break
            times.append(time.perf_counter() - t0)
            assert event["type"] == "result", event
    return percentiles(times[n // 10:])


async def throughput(target, clients, seconds):
    body = json.dumps(TINY).encode()
    sessions = [await target.new_session() for _ in range(clients)]
    done = 0
    stop = time.perf_counter() + seconds

    async def client(session):
        nonlocal done
        conn = await Connection.open(target.port)
        while time.perf_counter() < stop:
            status, data = await conn.request("POST", session.run_path, body, session.headers)
            assert status == 200, data
            done += 1
        conn.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(client(s) for s in sessions))
    return done / (time.perf_counter() - t0)


async def tensor_transfer(target, payload, repeats):
    session = await target.new_session()
    conn = await Connection.open(target.port)
    up, down = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        status, data = await conn.request("PUT", session.tensor_path, payload, session.headers)
        up.append(time.perf_counter() - t0)
        assert status == 204, data[:300]
        t0 = time.perf_counter()
        status, data = await conn.request("GET", session.tensor_path + "?encoding=base64", b"", session.headers)
        down.append(time.perf_counter() - t0)
        assert status == 200 and len(data) > TENSOR_BYTES, data[:300]
    conn.close()
    mb = TENSOR_BYTES / 1e6
    return mb / statistics.median(up), mb / statistics.median(down)


async def session_creation(target, n):
    """p50 and p99 of POST /v1/sessions (each session deleted after, untimed)."""
    conn = await Connection.open(target.port)
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        status, body = await conn.request("POST", "/v1/sessions", b"{}")
        times.append(time.perf_counter() - t0)
        assert status == 201, body
        created = json.loads(body)
        status, _ = await conn.request("DELETE", f"/v1/sessions/{created['id']}", b"",
                                       (f"Authorization: Bearer {created['token']}",))
        assert status == 204
    conn.close()
    return percentiles(times)


def tree_memory(pid):
    """(USS, PSS) in bytes of the server process and every process below it."""
    import psutil
    root = psutil.Process(pid)
    uss = pss = 0
    for p in [root, *root.children(recursive=True)]:
        try:
            info = p.memory_full_info()
        except psutil.Error:
            continue
        uss += info.uss
        pss += getattr(info, "pss", info.uss)
    return uss, pss


async def idle_session_memory(target, pid, n):
    """Bytes (USS, PSS) the server's processes grow by per idle session that has done one tiny run."""
    body = json.dumps(TINY).encode()
    await asyncio.sleep(0.5)
    before = tree_memory(pid)
    sessions = [await target.new_session() for _ in range(n)]
    conn = await Connection.open(target.port)
    for session in sessions:
        status, data = await conn.request("POST", session.run_path, body, session.headers)
        assert status == 200, data
    await asyncio.sleep(0.5)
    after = tree_memory(pid)
    for session in sessions:
        await conn.request("DELETE", session.run_path[:-len("/run")], b"", session.headers)
    conn.close()
    return (after[0] - before[0]) / n, (after[1] - before[1]) / n


async def measure(kind, port, quick, pid):
    target = Target(kind, port)
    n = 300 if quick else 1000
    payload = json.dumps({"b64": base64.b64encode(np.ones(TENSOR_BYTES // 4, np.float32).tobytes()).decode(),
                          "shape": [TENSOR_BYTES // 4], "dtype": "float32"}).encode()
    results = {"http": await http_latency(target, n), "ws": await ws_latency(target, n),
               "rps": await throughput(target, 16, 2.0 if quick else 5.0)}
    if kind != "bare":
        results["create"] = await session_creation(target, 50 if quick else 200)
        results["idle"] = await idle_session_memory(target, pid, 40)
    if kind != "shared":
        results["mbps"] = await tensor_transfer(target, payload, 2 if quick else 3)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", choices=["bare", "gradserve", "shared"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="fewer samples")
    args = parser.parse_args()
    if args.serve:
        return serve(args.serve, args.port)
    results = {}
    for kind in ("bare", "shared", "gradserve"):
        proc, port = start(kind)
        try:
            results[kind] = asyncio.run(measure(kind, port, args.quick, proc.pid))
        finally:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
    g, b, old = results["gradserve"], results["bare"], results["shared"]
    ms, MB = 1000.0, 1e6
    rows = [
        ("tiny program, HTTP p50 (ms)", g["http"][0] * ms, b["http"][0] * ms, "<= 3 ms"),
        ("tiny program, HTTP p99 (ms)", g["http"][1] * ms, b["http"][1] * ms, ""),
        ("tiny program, WebSocket p50 (ms)", g["ws"][0] * ms, b["ws"][0] * ms, "<= 1.5 ms"),
        ("tiny program, WebSocket p99 (ms)", g["ws"][1] * ms, b["ws"][1] * ms, ""),
        ("requests/s, 16 clients", g["rps"], b["rps"], ">= 40% of bare"),
        ("64 MB base64 upload (MB/s)", g["mbps"][0], b["mbps"][0], ""),
        ("64 MB base64 download (MB/s)", g["mbps"][1], b["mbps"][1], ""),
    ]
    print(f"{'measure':36} {'gradserve':>10} {'bare':>10} {'ratio':>7}  target")
    for name, mine, bare, target in rows:
        print(f"{name:36} {mine:10.2f} {bare:10.2f} {mine / bare:7.2f}  {target}")
    rows = [
        ("tiny program, HTTP p50 (ms)", g["http"][0] * ms, old["http"][0] * ms, "within 10%"),
        ("tiny program, HTTP p99 (ms)", g["http"][1] * ms, old["http"][1] * ms, ""),
        ("tiny program, WebSocket p50 (ms)", g["ws"][0] * ms, old["ws"][0] * ms, ""),
        ("requests/s, 16 clients", g["rps"], old["rps"], "within 10%"),
        ("session creation p50 (ms)", g["create"][0] * ms, old["create"][0] * ms, "< 50 ms"),
        ("session creation p99 (ms)", g["create"][1] * ms, old["create"][1] * ms, ""),
        ("idle session, USS (MB)", g["idle"][0] / MB, old["idle"][0] / MB, "< 10 MB"),
        ("idle session, PSS (MB)", g["idle"][1] / MB, old["idle"][1] / MB, ""),
    ]
    print(f"\n{'process per session vs shared workers':36} {'process':>10} {'shared':>10} {'ratio':>7}  target")
    for name, mine, shared, target in rows:
        ratio = f"{mine / shared:7.2f}" if shared > 0 else "      -"
        print(f"{name:36} {mine:10.2f} {shared:10.2f} {ratio}  {target}")
    ok = g["http"][0] * ms <= 3 and g["ws"][0] * ms <= 1.5 and g["rps"] >= 0.4 * b["rps"]
    ok_sessions = (g["create"][0] * ms < 50 and g["idle"][0] < 10 * MB and g["http"][0] <= 1.1 * old["http"][0]
                   and g["rps"] >= 0.9 * old["rps"])
    print(f"({os.cpu_count()} cores; targets against bare {'met' if ok else 'NOT met'}; "
          f"process-per-session targets {'met' if ok_sessions else 'NOT met'})")


if __name__ == "__main__":
    main()
