"""A run stopped by the API's deadline answers 408 LimitExceeded wall_time, not Cancelled (hostile pass 7, F4).

The worker's wall-time clock starts with the program; the API's deadline (the wall time plus the cancel
grace) starts when the command reaches the worker's pipe. Host work before the program (counting a large
session's bytes after a PUT, the collector going over millions of its objects) let the API's deadline
fire first: the worker, cancelled before its own clock ran out, reported a plain Cancelled, and the
answer was 408 {"type": "Cancelled", "message": "the run was cancelled"}, which the client raises as
RunCancelled (a cancel of the user's own) instead of LimitExceeded. Seen on a live server with a session
holding 10M-element lists: elapsed 28.9 s, 408 Cancelled. Here the host work is simulated by holding the
run's frame back before the worker sees it."""
import json

from websockets.sync.client import connect

from server_harness import open_session


def _delay_frames(live_server, session, delay_s):
    """The session process receives every frame ``delay_s`` late (its clock starts late, the API's does not)."""
    process = live_server.backend._process(live_server.app.state.sessions.sessions[session.id].placement)
    send = process._send
    process._send = lambda header, buffers: process.loop.call_later(delay_s, send, header, buffers)
    return lambda: setattr(process, "_send", send)


def test_a_run_the_api_deadline_stopped_is_a_wall_time_408(live_server, http):
    s = open_session(http)
    s.ok("keep = 7")
    with live_server.limits(wall_time_s=1.0):
        restore = _delay_frames(live_server, s, 0.8)
        try:
            r = s.run("while True:\n    pass")
        finally:
            restore()
    assert r.status_code == 408, r.text
    error = r.json()["error"]
    assert error["type"] == "LimitExceeded" and error["limit"] == "wall_time", error
    assert error["message"] == "limit exceeded: wall_time: the run took longer than 1 s", error
    assert s.ok("k = keep", outputs=["k"])["values"]["k"] == 7   # the session kept its state


def test_the_stream_reports_it_the_same_way(live_server, http):
    s = open_session(http)
    with live_server.limits(wall_time_s=1.0):
        restore = _delay_frames(live_server, s, 0.8)
        try:
            with connect(f"{live_server.ws_url}{s.path}/stream?token={s.token}") as ws:
                ws.send(json.dumps({"type": "run", "id": "r", "program": "while True:\n    pass"}))
                while True:
                    event = json.loads(ws.recv(timeout=30))
                    if event["type"] in ("result", "error", "cancelled"):
                        break
        finally:
            restore()
    assert event["type"] == "error" and event["status"] == 408, event
    assert event["error"]["type"] == "LimitExceeded" and event["error"]["limit"] == "wall_time", event
