"""Large JSON bodies are parsed in a parser process, so other clients keep being answered (attack S7).

A 31-60 MB JSON /run body (under the 64 MiB cap) stalled the whole API for up to 7 s: it was parsed
in a thread, but ``json.loads`` and ``np.array`` over a nested list hold the GIL from start to end.
Bodies past ``body_parser.PROCESS_BYTES`` (runs over HTTP and WebSocket, PUT /variables) are now
parsed, and their tensors decoded and validated, in a process of their own.
"""
import json
import threading
import time

import httpx
import numpy as np
import pytest
from websockets.sync.client import connect

from gradserve.server import body_parser

from test_hostile_wire import neighbour  # noqa: F401  (the fixture)

pytestmark = pytest.mark.slow


def _body(n, extra=""):
    return ('{"program": "y = x.sum()", "outputs": ["y"], "inputs": {"x": [' + ",".join(["1"] * n) + "]}" + extra
            + "}").encode()


@pytest.fixture
def api_parses(monkeypatch):
    """The sizes of the JSON texts the API process itself parses (json.loads, wherever it is called from)."""
    sizes = []
    loads = json.loads

    def recording(text, *args, **kwargs):
        sizes.append(len(text))
        return loads(text, *args, **kwargs)

    monkeypatch.setattr(json, "loads", recording)
    return sizes


def test_a_large_run_body_is_parsed_outside_the_api_process(session, neighbour, api_parses):
    n = (body_parser.PROCESS_BYTES // 2) + 1000
    body = _body(n)
    r = session.client.post(session.path + "/run", content=body,
                            headers={**session.headers, "Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    assert r.json()["values"]["y"]["data"] == n
    assert max(api_parses, default=0) < body_parser.PROCESS_BYTES, "the API process parsed the large body itself"
    # the parser's answers keep every error the thread path gave, naming the field
    bad = _body(n).replace(b'"x": [1,', b'"x": [[1],')
    r = session.client.post(session.path + "/run", content=bad, headers={**session.headers,
                                                                          "Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["error"]["field"] == "inputs.x", r.text
    r = session.client.post(session.path + "/run", content=body[:-5], headers={**session.headers,
                                                                                "Content-Type": "application/json"})
    assert r.status_code == 400, r.text
    r = session.client.post(session.path + "/run", content=_body(n, ', "graph": 3'),
                            headers={**session.headers, "Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    neighbour.check()


def test_a_large_put_variable_and_websocket_run_are_parsed_outside_too(live_server, session, neighbour, api_parses):
    n = (body_parser.PROCESS_BYTES // 4) + 1000
    tensor = {"data": np.arange(n, dtype=np.float64).tolist(), "dtype": "float64"}
    text = json.dumps(tensor)
    assert len(text) > body_parser.PROCESS_BYTES
    headers = {**session.headers, "Content-Type": "application/json"}
    r = session.client.put(session.path + "/variables/big", content=text.encode(), headers=headers)
    assert r.status_code == 204, r.text
    assert session.ok("s = big.sum()", outputs=["s"])["values"]["s"]["data"] == n * (n - 1) / 2
    bad = json.dumps({"data": tensor["data"], "dtype": ["float64"]})
    r = session.client.put(session.path + "/variables/big", content=bad.encode(), headers=headers)
    assert r.status_code == 422 and r.json()["error"]["field"] == "body.dtype", r.text
    with connect(f"{live_server.ws_url}{session.path}/stream?token={session.token}", max_size=None) as ws:
        ws.send(json.dumps({"type": "run", "id": "big", "program": "y = x.sum()", "outputs": ["y"],
                            "inputs": {"x": tensor}}))
        while True:
            event = json.loads(ws.recv(timeout=60))
            if event["type"] in ("result", "error"):
                break
    assert event["type"] == "result" and event["values"]["y"]["data"] == n * (n - 1) / 2, str(event)[:300]
    assert max(api_parses, default=0) < body_parser.PROCESS_BYTES, "the API process parsed a large body itself"
    neighbour.check()


def test_health_checks_are_answered_while_a_30_mb_body_is_parsed(live_server, session, neighbour):
    """The attack itself: /healthz answered many times before the big request finishes, each well within a
    generous bound (it took up to 7 s)."""
    body = _body(15 << 20)  # about 30 MB
    headers = {**session.headers, "Content-Type": "application/json"}
    assert session.client.post(session.path + "/run", content=_body(3 << 20), headers=headers).status_code == 200
    latencies, done = [], threading.Event()

    def poll():
        with httpx.Client(base_url=live_server.url, timeout=60) as client:
            while not done.is_set():
                started = time.monotonic()
                assert client.get("/healthz").status_code == 200
                latencies.append((started, time.monotonic() - started))
                time.sleep(0.05)

    poller = threading.Thread(target=poll)
    poller.start()
    try:
        started = time.monotonic()
        r = session.client.post(session.path + "/run", content=body, headers=headers, timeout=120)
        finished = time.monotonic()
    finally:
        done.set()
        poller.join()
    assert r.status_code == 200 and r.json()["values"]["y"]["data"] == 15 << 20
    during = [lat for t, lat in latencies if started <= t and t + lat <= finished]
    print(f"request {finished - started:.1f} s; /healthz during it: {len(during)} answers, "
          f"max {max(during, default=0):.2f} s")
    assert len(during) >= 3, latencies
    assert max(during) < 2.0, during
    neighbour.check()
