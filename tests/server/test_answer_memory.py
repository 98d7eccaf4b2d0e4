"""An answer costs the API process a bounded multiple of its size (issue 9, class 3): a tensor at the
element limit, answered as streamed JSON and as binary, measured on a real server process."""
import json
import socket
import time

import httpx
import psutil
import pytest

from server_harness import peak_rss_while, server_process

pytestmark = pytest.mark.slow

ELEMENTS = 1 << 23          # the server's element limit for this test (32 MiB of float32)
RAW_BYTES = ELEMENTS * 4


@pytest.fixture(scope="module")
def server():
    with server_process(GRADSERVE_LIMIT_TENSOR_ELEMENTS=str(ELEMENTS), GRADSERVE_JSON_MAX_ELEMENTS=str(ELEMENTS),
                        GRADSERVE_WORKERS="1") as (url, pid):
        yield url, psutil.Process(pid)


@pytest.mark.parametrize("encoding", ["json", "binary"])
def test_a_tensor_at_the_element_limit_is_answered_within_a_bounded_multiple(server, encoding):
    url, api = server
    with httpx.Client(base_url=url, timeout=120) as c:
        created = c.post("/v1/sessions").json()
        auth = {"Authorization": f"Bearer {created['token']}"}
        path = f"/v1/sessions/{created['id']}/run"
        program = f"x = torch.arange({float(ELEMENTS)}) / 7"
        body = {"program": program, "outputs": ["x"], "encoding": encoding}
        c.post(path, json={"program": "w = torch.ones(2)"}, headers=auth)  # warm the route

        def fetch():
            size, first, last = 0, b"", b""
            with c.stream("POST", path, json=body, headers=auth) as r:
                assert r.status_code == 200
                for chunk in r.iter_bytes(1 << 20):
                    first = first or chunk[:200]
                    last = chunk[-200:]
                    size += len(chunk)
            return size, first, last

        (size, first, last), growth = peak_rss_while(api, fetch)
        c.delete(f"/v1/sessions/{created['id']}", headers=auth)
    assert size >= RAW_BYTES
    if encoding == "json":
        assert first.startswith(b'{"values":{"x":{"shape":[8388608],"dtype":"float32","data":[0.0,0.14285')
    # The reply's raw bytes are held once; the answer's text is written a block at a time.
    print(f"{encoding}: answer {size / 2**20:.0f} MiB, API RSS growth {growth / 2**20:.0f} MiB")
    assert growth < 3 * RAW_BYTES, (size, growth)


def _rss(process):
    """The API process's resident memory, read by pid from /proc."""
    with open(f"/proc/{process.pid}/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS"))


@pytest.mark.parametrize("encoding", ["binary", "base64"])
def test_repeated_large_answers_leave_nothing_behind(server, encoding):
    """Attack report S1: each binary answer of 64 MiB or more stayed in the API process (the reply's
    buffers were held by a reference cycle through the streaming iterator's tracebacks until the
    cyclic collector ran). Ten 64 MiB answers, read whole or dropped after the headers, and the
    session deleted: the API's RSS stays within one answer of where it was after the first two."""
    url, api = server
    with httpx.Client(base_url=url, timeout=120) as c:
        def session():
            created = c.post("/v1/sessions").json()
            return f"/v1/sessions/{created['id']}", {"Authorization": f"Bearer {created['token']}"}

        neighbour, n_auth = session()
        assert c.post(neighbour + "/run", json={"program": "keep = torch.arange(4.0)"}, headers=n_auth).status_code == 200
        path, auth = session()
        made = c.post(path + "/run", json={"program": f"a = torch.zeros({ELEMENTS})\nb = a + 1", "outputs": []},
                      headers=auth)
        assert made.status_code == 200, made.text
        body = {"program": "n = 1", "outputs": ["a", "b"], "encoding": encoding}

        def answer(read):
            if read:
                with c.stream("POST", path + "/run", json=body, headers=auth) as r:
                    assert r.status_code == 200
                    assert sum(len(chunk) for chunk in r.iter_bytes(1 << 20)) >= 2 * RAW_BYTES
                return
            # a client that goes away after the status line: a raw socket, closed for certain
            data = json.dumps(body).encode()
            port = int(url.rsplit(":", 1)[1])
            with socket.create_connection(("127.0.0.1", port)) as sock:
                sock.sendall(f"POST {path}/run HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                             f"Authorization: {auth['Authorization']}\r\nContent-Length: {len(data)}\r\n\r\n".encode()
                             + data)
                assert sock.recv(64).startswith(b"HTTP/1.1 200")

        answer(True)
        answer(True)
        base = _rss(api)
        for i in range(8):
            answer(read=i % 4 != 3)  # every fourth one closed after the headers
        time.sleep(0.5)  # an answer dropped after its headers finishes on the server's side
        after = _rss(api)
        assert c.delete(path, headers=auth).status_code == 204
        time.sleep(0.5)
        gone = _rss(api)
        check = c.post(neighbour + "/run", json={"program": "twice = keep * 2", "outputs": ["twice"]}, headers=n_auth)
        assert check.status_code == 200 and check.json()["values"]["twice"]["data"] == [0.0, 2.0, 4.0, 6.0]
    answer_bytes = 2 * RAW_BYTES
    print(f"{encoding}: RSS after 2 answers {base / 2**20:.0f} MiB, after 10 {after / 2**20:.0f} MiB, "
          f"session deleted {gone / 2**20:.0f} MiB")
    assert after - base < answer_bytes, (base, after)
    assert gone - base < answer_bytes, (base, gone)
