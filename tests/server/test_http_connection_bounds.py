"""HTTP connections are bounded before the application sees them (attack8 F2, F3; server/http_protocol.py).

F2: uvicorn's httptools protocol kept every header line with no limit: one connection that never ended
its headers grew the API process by 1.1 GB. F3: no timeout before headers are complete or while a body
trickles in, and no cap on connections: 19,960 half-sent requests took every file descriptor of the API
process and every other client was refused.
"""
import socket
import time

import httpx
import pytest

from server_harness import LiveServer, open_session

HEADER_TIMEOUT_S = 1.0
BODY_IDLE_TIMEOUT_S = 1.0
MAX_CONNECTIONS = 40


@pytest.fixture(scope="module")
def server():
    s = LiveServer(header_timeout_s=HEADER_TIMEOUT_S, body_idle_timeout_s=BODY_IDLE_TIMEOUT_S,
                   max_connections=MAX_CONNECTIONS).start()
    yield s
    s.stop()


@pytest.fixture
def http(server):
    with httpx.Client(base_url=server.url, timeout=60) as client:
        yield client


def _connect(server):
    sock = socket.create_connection(("127.0.0.1", server.settings.port), timeout=10)
    return sock


def _read_all(sock, timeout=10):
    """What the server sends until it closes the connection (or the timeout passes: then None)."""
    sock.settimeout(timeout)
    out = b""
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return out
            out += data
    except socket.timeout:
        return None
    except ConnectionResetError:
        return out


HEAD = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"


def test_a_header_line_past_the_limit_is_refused_with_431(server):
    sock = _connect(server)
    sock.sendall(HEAD + b"X-A: ")
    sent = 0
    try:
        for _ in range(64):   # 4 MiB, far past the 64 KiB limit; before the fix all of it was kept
            sock.sendall(b"a" * 65536)
            sent += 1
    except (BrokenPipeError, ConnectionResetError):
        pass
    answer = _read_all(sock)
    sock.close()
    assert answer is not None and answer.startswith(b"HTTP/1.1 431"), answer
    assert b"RequestHeaderFieldsTooLarge" in answer


def test_many_short_header_lines_past_the_limit_are_refused_with_431(server):
    sock = _connect(server)
    sock.sendall(HEAD)
    try:
        for _ in range(100):
            sock.sendall(b"X-B: b\r\n" * 2000)
    except (BrokenPipeError, ConnectionResetError):
        pass
    answer = _read_all(sock)
    sock.close()
    assert answer is not None and answer.startswith(b"HTTP/1.1 431"), answer


def test_a_request_with_large_legitimate_headers_and_a_body_in_one_write_is_answered(server, http):
    s = open_session(http)
    try:
        body = b'{"program": "x = torch.ones(3)\\ny = (x * 2).sum()", "outputs": ["y"], "graph": false' + \
               b', "inputs": {"pad": [' + b"0.5, " * 200_000 + b'0.5]}}'
        headers = b"".join([b"POST /v1/sessions/%s/run HTTP/1.1\r\n" % s.id.encode(), b"Host: 127.0.0.1\r\n",
                            b"Authorization: %s\r\n" % s.headers["Authorization"].encode(),
                            b"X-Pad: " + b"p" * 30_000 + b"\r\n",
                            b"Content-Type: application/json\r\n", b"Content-Length: %d\r\n" % len(body),
                            b"Connection: close\r\n\r\n"])
        sock = _connect(server)
        sock.sendall(headers + body)
        answer = _read_all(sock, timeout=60)
        sock.close()
        assert answer is not None and answer.startswith(b"HTTP/1.1 200"), answer[:300]
        assert b'"data":6.0' in answer.replace(b" ", b"")
    finally:
        s.delete()


def test_headers_that_never_end_time_out_with_408(server):
    sock = _connect(server)
    sock.sendall(HEAD + b"X-Slow: 1\r\n")
    t0 = time.monotonic()
    answer = _read_all(sock, timeout=HEADER_TIMEOUT_S + 10)
    sock.close()
    assert answer is not None, "the connection was still open"
    assert answer.startswith(b"HTTP/1.1 408"), answer
    assert time.monotonic() - t0 < HEADER_TIMEOUT_S + 5


def test_a_connection_that_sends_nothing_is_closed(server):
    sock = _connect(server)
    answer = _read_all(sock, timeout=HEADER_TIMEOUT_S + 10)
    sock.close()
    assert answer == b""


def test_a_body_that_stalls_is_closed_and_the_server_goes_on(server, http):
    sock = _connect(server)
    sock.sendall(b"POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 1000\r\n\r\n{")
    answer = _read_all(sock, timeout=BODY_IDLE_TIMEOUT_S + 10)
    sock.close()
    assert answer is not None, "the connection was still open"
    assert http.get("/healthz").status_code == 200


def test_a_slow_answer_on_a_kept_alive_connection_is_not_cut_by_the_header_timeout(server, http):
    s = open_session(http)
    try:
        # two requests on one connection, the first taking longer than the header timeout to answer
        r = http.post(f"/v1/sessions/{s.id}/run", headers=s.headers,
                      json={"program": "import time\ntime.sleep(2.5)\ny = 1", "outputs": ["y"]})
        assert r.status_code == 200 and r.json()["values"]["y"] == 1
        r = http.post(f"/v1/sessions/{s.id}/run", headers=s.headers, json={"program": "z = 2", "outputs": ["z"]})
        assert r.status_code == 200 and r.json()["values"]["z"] == 2
    finally:
        s.delete()


def test_pipelined_requests_are_all_answered(server):
    sock = _connect(server)
    sock.sendall((HEAD + b"\r\n") * 50 + HEAD + b"Connection: close\r\n\r\n")
    answer = _read_all(sock, timeout=30)
    sock.close()
    assert answer is not None and answer.count(b"HTTP/1.1 200") == 51


def test_connections_past_the_cap_are_refused_and_others_served_once_they_go(server, http):
    held = []
    try:
        for _ in range(MAX_CONNECTIONS + 10):
            held.append(_connect(server))
        time.sleep(0.3)
        refused = 0
        for sock in held:
            sock.settimeout(0.05)
            try:
                data = sock.recv(200)
                refused += data.startswith(b"HTTP/1.1 503") or data == b""
            except (socket.timeout, BlockingIOError):
                pass
            except ConnectionResetError:
                refused += 1
        assert refused >= 10
    finally:
        for sock in held:
            sock.close()
    time.sleep(0.3)
    assert http.get("/healthz").status_code == 200
