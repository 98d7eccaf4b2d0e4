"""The API process bounds what it spends reading and parsing bodies and WebSocket messages, all requests
together (attack report F5, ``server/parse_budget.py``).

Twelve 66 MB WebSocket text frames sent at once took the API process from 288 MB to 2.6 GB; a 60 MB
JSON body of zeros to 770 MB. Measured here on a real server process (``gradserve serve``, its RSS peak
read from /proc): concurrent large frames and bodies stay within the parse budget, those that do not
fit answer 503 with Retry-After (or an ``error`` event with status 503 and close code 1013), one that
could never fit answers 413, and a small request from another session is answered meanwhile.
"""
import asyncio
import os
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from gradserve.server import body_parser
from gradserve.server.parse_budget import FREE_BYTES, LARGE_COST, ParseBudget, cost

from server_harness import server_process

MiB = 1 << 20
BUDGET = 160 * MiB           # the server's parse budget in these tests
FRAME = 16 * MiB             # a large message: one fits the budget at a time (cost 8x: 128 MiB)
CONNECTIONS = 8


# -- the accountant ------------------------------------------------------------------------------------

def test_a_charge_holds_what_its_bytes_cost_and_gives_it_back():
    budget = ParseBudget(2 * cost(5 * MiB) - 1)
    a, b = budget.charge(), budget.charge()
    assert a.cover(FREE_BYTES) is None and a.held == 0            # small: never charged
    assert a.cover(5 * MiB) is None and a.held == cost(5 * MiB) == 5 * MiB * LARGE_COST
    assert a.cover(MiB) is None and a.held == cost(5 * MiB)      # it only grows
    assert cost(3 * MiB, partial=True) == 3 * MiB * LARGE_COST < cost(3 * MiB)   # parsed here once complete
    assert b.cover(5 * MiB) == 503 and b.held == 0                # more than is free now
    assert b.cover(10 * MiB) == 413 and b.held == 0               # more than the whole budget
    assert budget.refused == 2 and budget.used == a.held
    a.release()
    a.release()                                                   # once
    assert budget.used == 0
    assert b.cover(5 * MiB) is None and budget.used == b.held
    del b                                                         # dropped unreleased: given back all the same
    assert budget.used == 0


# -- a real server process -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def server():
    # permessage-deflate on (it is off by default): a compressed frame inflating in the server is charged too
    with server_process(GRADSERVE_WORKERS="1", GRADSERVE_PARSE_BUDGET_BYTES=str(BUDGET),
                        GRADSERVE_WS_DEFLATE="1") as running:
        yield running


def _status(pid, field):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(field))


class PeakRss:
    """The API process's peak resident memory over a block, less where it began: the kernel's own peak
    (VmHWM, reset through clear_refs) where this process may reset it, else VmRSS sampled every 2 ms."""

    def __init__(self, pid):
        self.pid = pid

    def __enter__(self):
        self.base = _status(self.pid, "VmRSS")
        try:
            with open(f"/proc/{self.pid}/clear_refs", "w") as f:
                f.write("5")
            self.hwm = True
        except OSError:
            self.hwm = False
        self.peak = self.base
        self.done = threading.Event()
        self.sampler = threading.Thread(target=self._sample)
        self.sampler.start()
        return self

    def _sample(self):
        while not self.done.is_set():
            self.peak = max(self.peak, _status(self.pid, "VmRSS"))
            time.sleep(0.002)

    def __exit__(self, *exc):
        self.done.set()
        self.sampler.join()
        if self.hwm:
            self.peak = max(self.peak, _status(self.pid, "VmHWM"))
        self.growth = self.peak - self.base


def _session(c):
    created = c.post("/v1/sessions").json()
    return f"/v1/sessions/{created['id']}", created["token"], {"Authorization": f"Bearer {created['token']}"}


def _neighbour_keeps_working(c, stop, answers):
    """Small runs from another session, one after another until ``stop``: each must be answered 200."""
    path, _, auth = _session(c)
    i = 0
    while not stop.is_set() or i == 0:
        r = c.post(path + "/run", json={"program": f"y = {i} + 1", "outputs": ["y"]}, headers=auth)
        answers.append((r.status_code, r.json().get("values", {}).get("y") if r.status_code == 200 else r.text))
        i += 1


def _wait(condition, what, timeout_s=15):
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"not so within {timeout_s} s: {what}"
        time.sleep(0.05)


def _budget_used(c):
    metrics = c.get("/metrics").text
    return float(next(line.split()[1] for line in metrics.splitlines()
                      if line.startswith("gradserve_parse_budget_used_bytes ")))


@pytest.mark.slow
@pytest.mark.parametrize("compression", ["deflate", None])
def test_concurrent_large_websocket_frames_stay_within_the_budget(server, compression):
    """Eight connections each send one 16 MB text frame at once (compressed, a 16 KB frame on the wire
    that inflates in the server, and plain): at most the budget's worth is read and parsed at a time;
    the others get an error event with status 503 and close code 1013, and a neighbour's runs go on."""
    url, pid = server
    ws_url = url.replace("http", "ws", 1)
    frame = json.dumps({"type": "zzz", "pad": "x" * FRAME})
    with httpx.Client(base_url=url, timeout=120) as c:
        path, token, _ = _session(c)
        stop, answers = threading.Event(), []

        async def one():
            ws = await connect(f"{ws_url}{path}/stream?token={token}", max_size=None, compression=compression,
                               open_timeout=30)
            try:
                try:
                    await ws.send(frame)
                except ConnectionClosed:  # refused while it was sending: the event is read all the same
                    pass
                try:
                    event = json.loads(await asyncio.wait_for(ws.recv(), 60))
                except ConnectionClosed as e:
                    return None, e.rcvd.code if e.rcvd else None
                try:
                    await asyncio.wait_for(ws.recv(), 0.5 if event.get("status") != 503 else 10)
                except ConnectionClosed as e:
                    return event, e.rcvd.code if e.rcvd else None
                except asyncio.TimeoutError:
                    pass
                return event, None
            finally:
                try:
                    await ws.close()
                except Exception:  # (websockets' client, closing a connection the server has ended)
                    pass

        async def all_at_once():
            return await asyncio.gather(*[one() for _ in range(CONNECTIONS)])

        neighbour = threading.Thread(target=_neighbour_keeps_working, args=(c, stop, answers))
        with PeakRss(pid) as rss:
            neighbour.start()
            results = asyncio.run(all_at_once())
            stop.set()
            neighbour.join()
        time.sleep(0.2)
        used = _budget_used(c)
    refused = [(e, code) for e, code in results if e is not None and e.get("status") == 503]
    read = [e for e, _ in results if e is not None and e["error"]["type"] == "ValidationError"]
    print(f"ws {compression}: {len(read)} read, {len(refused)} refused; API RSS growth {rss.growth / MiB:.0f} MiB "
          f"(peak from {'VmHWM' if rss.hwm else 'sampling'}), budget {BUDGET / MiB:.0f} MiB")
    assert len(read) + len(refused) == CONNECTIONS, results
    assert read and refused, results
    for event, code in refused:
        assert event["error"]["type"] == "Unavailable" and event["error"]["limit"] == "parse_budget_bytes", event
        assert code == 1013, (event, code)
    assert answers and all(status == 200 for status, _ in answers), answers
    assert used == 0, "a message's charge was not given back"
    # Before: eight frames held at once, each several times its size (400-450 MB for these eight).
    assert rss.growth < BUDGET, rss.growth


@pytest.mark.slow
def test_concurrent_large_bodies_stay_within_the_budget(server):
    """Eight 12 MB run bodies of zeros at once (each decoded to 48 MB of int64): one is read at a time,
    those past the budget answer 503 with Retry-After before their bytes are read; a neighbour's small
    runs are answered meanwhile."""
    url, pid = server
    n = 6 * MiB  # "0," each: a 12 MB body
    body = ('{"program": "s = x.sum()", "outputs": ["s"], "inputs": {"x": [' + ",".join(["0"] * n) + "]}}").encode()
    assert body_parser.PROCESS_BYTES < len(body) and 2 * cost(len(body)) > BUDGET >= cost(len(body))
    with httpx.Client(base_url=url, timeout=120) as c:
        sessions = [_session(c) for _ in range(8)]
        stop, answers = threading.Event(), []

        def post(s):
            path, _, auth = s
            with httpx.Client(base_url=url, timeout=120) as own:
                return own.post(path + "/run", content=body, headers={**auth, "Content-Type": "application/json"})

        neighbour = threading.Thread(target=_neighbour_keeps_working, args=(c, stop, answers))
        with PeakRss(pid) as rss:
            neighbour.start()
            with ThreadPoolExecutor(len(sessions)) as pool:
                results = list(pool.map(post, sessions))
            stop.set()
            neighbour.join()
        used = _budget_used(c)
        retried = post(sessions[[r.status_code for r in results].index(503)]) if 503 in [
            r.status_code for r in results] else None
    ok = [r for r in results if r.status_code == 200]
    busy = [r for r in results if r.status_code == 503]
    print(f"http: {len(ok)} answered, {len(busy)} refused; API RSS growth {rss.growth / MiB:.0f} MiB "
          f"(peak from {'VmHWM' if rss.hwm else 'sampling'}), budget {BUDGET / MiB:.0f} MiB")
    assert len(ok) + len(busy) == len(results), [(r.status_code, r.text[:200]) for r in results]
    assert ok and busy
    assert all(r.json()["values"]["s"]["data"] == 0 for r in ok)
    for r in busy:
        assert r.headers["retry-after"] == "1", r.headers
        error = r.json()["error"]
        assert error["type"] == "Unavailable" and error["limit"] == "parse_budget_bytes", error
    assert answers and all(status == 200 for status, _ in answers), answers
    assert retried.status_code == 200, retried.text   # refused for a moment, not for good
    assert used == 0, "a body's charge was not given back"
    # Before: all eight held at once, queued for the parser process (about 170 MB); now one at a time.
    assert rss.growth < cost(len(body)), rss.growth


@pytest.mark.slow
def test_a_body_that_could_never_fit_the_budget_answers_413_before_it_is_read(server):
    url, pid = server
    size = BUDGET // LARGE_COST + MiB   # under the 64 MiB body cap, over the budget
    with httpx.Client(base_url=url, timeout=60) as c:
        path, _, auth = _session(c)

        def chunks():  # streamed, no Content-Length: refused as the bytes pass the budget
            yield b'{"program": "y = 1", "inputs": {"x": "'
            for _ in range(size // MiB):
                yield b"x" * MiB
            yield b'"}}'

        for content in (b"x" * size, chunks()):
            r = c.post(path + "/run", content=content, headers={**auth, "Content-Type": "application/json"})
            assert r.status_code == 413, r.text
            error = r.json()["error"]
            assert error["type"] == "LimitExceeded" and error["limit"] == "parse_budget_bytes", error
        assert c.post(path + "/run", json={"program": "y = 2", "outputs": ["y"]},
                      headers=auth).json()["values"]["y"] == 2
        assert _budget_used(c) == 0


def test_a_large_body_with_a_mass_of_values_outside_its_tensors_is_refused_in_the_parser(session):
    """Past PROCESS_BYTES a body is parsed in the parser process and sent back: 5 MB of ``[],`` outside
    any tensor would come back as 1.7 million lists (130 MB in the API process). It answers 422."""
    n = body_parser.PROCESS_BYTES // 3 + 1000
    body = ('{"program": "y = 1", "outputs": [' + ",".join(["[]"] * n) + "]}").encode()
    r = session.client.post(session.path + "/run", content=body,
                            headers={**session.headers, "Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["type"] == "LimitExceeded" and error["limit"] == "body_values", error
    assert session.ok("y = 3", outputs=["y"])["values"]["y"] == 3


def test_with_uvicorns_own_websocket_protocol_a_message_is_charged_once_the_application_has_it():
    """``budgeted_protocol`` falls back to uvicorn's own protocol (an older uvicorn): a large message is then
    charged when the stream route receives it, refused with an error event, and the connection goes on."""
    from websockets.sync.client import connect as sync_connect

    from server_harness import LiveServer, open_session

    server = LiveServer(parse_budget_bytes=8 * MiB)
    server.server.config.ws = "auto"
    server.start()
    try:
        with httpx.Client(base_url=server.url, timeout=60) as c:
            s = open_session(c)
            with sync_connect(f"{server.ws_url}{s.path}/stream?token={s.token}", max_size=None) as ws:
                ws.send(json.dumps({"type": "zzz", "pad": "x" * MiB}))    # costs 32 MiB: never fits
                event = json.loads(ws.recv(30))
                assert event["type"] == "error" and event["status"] == 413, event
                assert event["error"]["limit"] == "parse_budget_bytes", event
                ws.send(json.dumps({"type": "ping"}))
                assert json.loads(ws.recv(30))["type"] == "pong"
            assert server.app.state.parse_budget.used == 0
    finally:
        server.stop()


@pytest.mark.slow
def test_a_client_that_goes_away_mid_body_or_mid_frame_leaves_nothing_held(server):
    """A body or frame cut off half way (the client closes its socket) gives back what it held."""
    import base64
    import socket

    url, pid = server
    port = int(url.rsplit(":", 1)[1])
    with httpx.Client(base_url=url, timeout=60) as c:
        path, token, auth = _session(c)
        size = 12 * MiB
        with socket.create_connection(("127.0.0.1", port)) as sock:   # an HTTP body, half sent
            sock.sendall(f"POST {path}/run HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         f"Authorization: {auth['Authorization']}\r\nContent-Length: {size}\r\n\r\n".encode()
                         + b"x" * (size // 2))
            _wait(lambda: _budget_used(c) == cost(size), "held from its Content-Length on")
        with socket.create_connection(("127.0.0.1", port)) as sock:   # a WebSocket frame, half sent
            key = base64.b64encode(b"0123456789abcdef").decode()
            sock.sendall(f"GET {path}/stream?token={token} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                         f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                         .encode())
            assert sock.recv(4096).startswith(b"HTTP/1.1 101")
            header = bytes([0x81, 0x80 | 127]) + size.to_bytes(8, "big") + b"\0\0\0\0"   # text, mask 0
            sock.sendall(header + b"x" * (size // 2))
            _wait(lambda: _budget_used(c) >= cost(size // 2, partial=True), "held as its bytes arrived")
        _wait(lambda: _budget_used(c) == 0, "a cut-off body or frame gave back its charge")
        assert c.post(path + "/run", json={"program": "y = 4", "outputs": ["y"]}, headers=auth).json()["values"]["y"] == 4


@pytest.mark.slow
def test_a_body_past_what_is_left_of_the_budget_is_refused_from_its_content_length_before_its_bytes(server):
    """Pass 16's F4 asked for it (its flood's refusals): a body whose Content-Length alone passes what is
    left of the budget answers 503 as soon as its headers are in, before any of its bytes is sent, and
    the server reads none of them (the connection is closed); the one holding the budget goes on."""
    import socket

    url, pid = server
    port = int(url.rsplit(":", 1)[1])
    size = 12 * MiB   # cost 96 MiB of the 160: one fits, two do not
    assert cost(size) <= BUDGET < 2 * cost(size)
    with httpx.Client(base_url=url, timeout=60) as c:
        path, _, auth = _session(c)
        head = (f"POST {path}/run HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Authorization: {auth['Authorization']}\r\nContent-Length: {size}\r\n\r\n").encode()
        with socket.create_connection(("127.0.0.1", port)) as holder:
            opening = b'{"program": "y = 1", "outputs": ["y"]'
            holder.sendall(head + opening)
            _wait(lambda: _budget_used(c) == cost(size), "held from its Content-Length on")
            with socket.create_connection(("127.0.0.1", port)) as late:
                late.settimeout(10)
                started = time.monotonic()
                late.sendall(head)   # its headers alone: not one byte of its body
                answer = b""
                while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
                    chunk = late.recv(65536)
                    if not chunk:
                        break
                    answer += chunk
                waited = time.monotonic() - started
                assert late.recv(1) == b"", "the refused request's connection is closed"
            holder.sendall(b" " * (size - len(opening) - 1) + b"}")   # (JSON whitespace: the rest of its size)
            holder.settimeout(60)
            assert holder.recv(4096).startswith(b"HTTP/1.1 200"), "the body holding the budget is answered"
        status, _, rest = answer.partition(b"\r\n")
        assert status == b"HTTP/1.1 503 Service Unavailable", answer[:300]
        assert b"retry-after: 1" in rest.lower() and b"parse_budget_bytes" in rest, answer[:300]
        assert waited < 5, waited
        _wait(lambda: _budget_used(c) == 0, "every charge given back")


def test_a_parser_process_that_dies_is_replaced(live_server, session):
    """The parser process killed between two large bodies (as the OOM killer would): the next one starts
    another, and its tensors arrive whole."""
    import signal

    n = body_parser.PROCESS_BYTES // 2 + 1000
    body = ('{"program": "s = x.sum()", "outputs": ["s"], "inputs": {"x": [' + ",".join(["3"] * n) + "]}}").encode()
    headers = {**session.headers, "Content-Type": "application/json"}
    for _ in range(2):
        r = session.client.post(session.path + "/run", content=body, headers=headers)
        assert r.status_code == 200 and r.json()["values"]["s"]["data"] == 3 * n, r.text
        process = live_server.app.state.body_parser.process
        os.kill(process.pid, signal.SIGKILL)
        process.join(10)
        assert not process.is_alive()
