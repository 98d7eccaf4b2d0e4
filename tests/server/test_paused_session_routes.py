"""While a session's run is paused in the debugger, its other routes answer 409 at once (hostile pass 7, F5).

A session's process serves one command at a time, and a paused run holds it until a debug command or
the pause timeout (10 minutes by default). Before, GET /v1/sessions/{id}, the variables, graph, nodes
and checkpoint routes all waited that long without a word; a PUT whose client gave up after its own
timeout still ran when the pause ended, so a write the client took for failed changed the session
later. Now they answer 409 Conflict naming the paused run; DELETE still ends the session, and once
the run goes on every route answers again."""
import json
import struct
import time

from websockets.sync.client import connect

from server_harness import open_session
from test_debug_stream import _cmd, _end, _paused, _start, _url


def _checkpoint():
    head = json.dumps({"x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}).encode()
    return struct.pack("<Q", len(head)) + head + struct.pack("<f", 5.0)


def test_a_paused_sessions_routes_answer_409_at_once_and_change_nothing(live_server, http):
    s = open_session(http)
    s.ok("x = torch.tensor([1.0])")
    with connect(_url(live_server, s)) as ws:
        _start(ws, "p", "y = x * 2\nz = y + 1", breakpoints=[{"line": 2}])
        _paused(ws, "p")
        started = time.monotonic()
        answers = [s.get(timeout=10), s.get("/variables/x", timeout=10), s.get("/graph", params={"of": "x"}, timeout=10),
                   s.get("/checkpoint", timeout=10), s.get("/nodes/0", params={"run": "p"}, timeout=10),
                   s.put("/variables/x", json=[9.0], timeout=10), s.put("/checkpoint", content=_checkpoint(), timeout=10)]
        assert time.monotonic() - started < 5
        for r in answers:
            assert r.status_code == 409, (r.request.url, r.text)
            error = r.json()["error"]
            assert error["type"] == "Conflict" and error["run"] == "p" and "paused" in error["message"], error
        _cmd(ws, "p", "continue")
        assert _end(ws, "p")["type"] == "result"
    assert s.get().status_code == 200
    assert s.get("/variables/x").json()["value"]["data"] == [1.0]   # neither PUT was applied, then or later
    assert s.put("/variables/x", json=[9.0]).status_code == 204


def test_a_paused_session_can_still_be_deleted(live_server, http):
    s = open_session(http)
    with connect(_url(live_server, s)) as ws:
        _start(ws, "p", "a = 1\nb = 2", breakpoints=[{"line": 2}])
        _paused(ws, "p")
        assert s.delete().status_code == 204
    assert s.get().status_code == 404
