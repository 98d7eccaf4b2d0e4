"""An answer costs the API process a bounded multiple of its size (issue 9, class 3): a tensor at the
element limit, answered as streamed JSON and as binary, measured on a real server process."""
import os
import subprocess
import sys
import threading
import time

import httpx
import psutil
import pytest

from server_harness import free_port

pytestmark = pytest.mark.slow

ELEMENTS = 1 << 23          # the server's element limit for this test (32 MiB of float32)
RAW_BYTES = ELEMENTS * 4


@pytest.fixture(scope="module")
def server():
    port = free_port()
    env = {**os.environ, "GRADSERVE_LIMIT_TENSOR_ELEMENTS": str(ELEMENTS), "GRADSERVE_JSON_MAX_ELEMENTS": str(ELEMENTS),
           "GRADSERVE_WORKERS": "1"}
    proc = subprocess.Popen([sys.executable, "-c", "from gradserve.server.cli import main; main()", "serve",
                             "--port", str(port), "--log-level", "warning"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(url + "/readyz").status_code == 200:
                break
        except httpx.TransportError:
            pass
        assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.2)
    yield url, psutil.Process(proc.pid)
    proc.terminate()
    proc.wait(30)


def _peak_rss_while(process, fn):
    """(fn's result, the process's peak RSS growth in bytes while fn ran), sampled every 10 ms."""
    base = process.memory_info().rss
    peak = base
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, process.memory_info().rss)
            time.sleep(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        result = fn()
    finally:
        done.set()
        sampler.join()
    return result, peak - base


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

        (size, first, last), growth = _peak_rss_while(api, fetch)
        c.delete(f"/v1/sessions/{created['id']}", headers=auth)
    assert size >= RAW_BYTES
    if encoding == "json":
        assert first.startswith(b'{"values":{"x":{"shape":[8388608],"dtype":"float32","data":[0.0,0.14285')
    # The reply's raw bytes are held once; the answer's text is written a block at a time.
    print(f"{encoding}: answer {size / 2**20:.0f} MiB, API RSS growth {growth / 2**20:.0f} MiB")
    assert growth < 3 * RAW_BYTES, (size, growth)
