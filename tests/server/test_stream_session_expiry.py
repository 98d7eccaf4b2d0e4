"""A session used over its WebSocket expires as one used over HTTP does (hostile pass 7, F3).

Before, only authenticating an HTTP request (or opening a stream) refreshed a session's idle clock,
and the sweeper skips a session while a run is in progress. So a session used only through an open
stream was culled at its idle timeout while in use (its stream closed with 4404 between two runs),
and one whose stream kept runs going back to back outlived its TTL indefinitely (a ttl_s=2 session
answered runs for as long as the client liked). Now each run a stream starts counts as a use, and a
run asked for after the session's expiry is refused with a SessionNotFound event (the sweeper then
frees the session and closes its streams with 4404)."""
import json
import time

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from server_harness import open_session


def _url(live_server, session):
    return f"{live_server.ws_url}{session.path}/stream?token={session.token}"


def _run(ws, run_id, program):
    """The run's last event (result or error), or the error event that refused it."""
    ws.send(json.dumps({"type": "run", "id": run_id, "program": program}))
    while True:
        event = json.loads(ws.recv(timeout=30))
        if event["type"] in ("result", "error") and event.get("run") in (run_id, None):
            return event


def test_runs_over_a_stream_keep_a_session_from_its_idle_timeout(live_server, http):
    with live_server.setting(idle_timeout_s=1.0):
        s = open_session(http)
    with connect(_url(live_server, s)) as ws:
        _run(ws, "init", "n = 0")
        for i in range(6):   # 2.4 s in all, each gap shorter than the idle timeout
            time.sleep(0.4)
            event = _run(ws, f"r{i}", "n += 1")
            assert event["type"] == "result", event
    assert s.ok("m = n", outputs=["m"])["values"]["m"] == 6


def test_a_stream_cannot_run_a_session_past_its_ttl(live_server, http):
    s = open_session(http, ttl_s=1.0)
    started = time.monotonic()
    refused = None
    try:
        with connect(_url(live_server, s)) as ws:
            for i in range(40):   # back to back, 0.1 s each: 4 s, well past the TTL
                event = _run(ws, f"r{i}", "import time\ntime.sleep(0.1)")
                if event["type"] == "error":
                    refused = event
                    break
    except ConnectionClosed as e:   # the sweeper got there first: the stream closed with 4404
        assert e.rcvd is not None and e.rcvd.code == 4404, e
        refused = {"error": {"type": "SessionNotFound"}}
    assert refused is not None, "runs went on past the session's TTL"
    assert refused["error"]["type"] == "SessionNotFound", refused
    assert time.monotonic() - started < 2.5
    assert s.get().status_code == 404
