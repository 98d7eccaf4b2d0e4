"""Hostile pass 9 (tests/hostile_attack9_log.md).

F1: ``log(a=10**5000)`` answered HTTP 500 (and an ``error`` event with status 500) whenever someone
watched the session: the metric's int reached the JSON encoder, and Python refuses to write an int of
more than 4,300 digits. Now log() refuses such an int at the program's line, as outputs do.

F2: a debug run paused with ``x = 10**5000`` among its locals ended with an internal error: the pause's
locals summary is the value's repr, which raises for such an int. Now the summary gives its size.
"""
import json
import time

from websockets.sync.client import connect


from test_hostile_wire import neighbour  # noqa: F401  (the fixture)


def _url(live_server, session):
    return f"{live_server.ws_url}{session.path}/stream?token={session.token}"


def _until(ws, run_id, types, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        event = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        if event.get("run") == run_id and event["type"] in types:
            return event


# ---------------------------------------------------------------- F1
def test_log_of_an_int_too_large_for_json_is_a_program_error_not_a_500(live_server, session, neighbour):
    with connect(_url(live_server, session)) as ws:
        ws.send(json.dumps({"type": "run", "id": "a", "program": "x = 1\nlog(step=10**5000)"}))
        error = _until(ws, "a", ("error", "result"))
    assert error["type"] == "error" and error["status"] == 422, error
    assert error["error"]["type"] == "ValueError" and error["error"]["line"] == 2, error
    assert "'step'" in error["error"]["message"] and "bits" in error["error"]["message"], error

    # an HTTP run while a watcher is connected (the watcher's log event was what failed)
    with connect(_url(live_server, session)) as ws:
        ws.send(json.dumps({"type": "watch"}))
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(timeout=30))["type"] == "pong"
        r = session.run("log(loss=-(10**5000))")
        assert r.status_code == 422, r.text
        assert r.json()["error"]["type"] == "ValueError", r.text
    body = session.ok("log(step=10**100, loss=1.5)\ny = torch.ones(1)", outputs=["y"])   # a large, encodable int
    assert body["values"]["y"]["data"] == [1.0]
    neighbour.check()


# ---------------------------------------------------------------- F2
def test_a_pause_with_an_int_too_large_for_repr_among_its_locals_describes_it(live_server, session):
    program = "big = 7 ** 9000\nsmall = 12\nbreakpoint()\ndone = 1"
    with connect(_url(live_server, session)) as ws:
        ws.send(json.dumps({"type": "run", "id": "d", "program": program, "debug": True}))
        paused = _until(ws, "d", ("paused", "error", "result"))
        assert paused["type"] == "paused", paused
        assert paused["locals"]["small"] == "12"
        assert paused["locals"]["big"] == f"<int of {(7 ** 9000).bit_length()} bits>", paused["locals"]
        ws.send(json.dumps({"type": "debug", "id": "d", "command": "eval", "expr": "big * 7"}))
        answer = _until(ws, "d", ("evaluated",))
        assert answer["value"] == {"repr": f"<int of {(7 ** 9001).bit_length()} bits>"}, answer
        ws.send(json.dumps({"type": "debug", "id": "d", "command": "continue"}))
        assert _until(ws, "d", ("result", "error"))["type"] == "result"
