"""Hostile pass 17 (tests/hostile_attack17_log.md): server findings.

F1: a WebSocket run refused before admission with a 422 (an output name that is not a name or dotted
path, a private one, one past 256 characters, more than 10,000 outputs, too many input values) got no
event at all: the stream route sent an error only for 409, 413 and 429, so the client waited for a run
that never started. Every refusal before admission now gets its one error event.
"""
import json

import pytest


def _events_until_quiet(ws, timeout=2.0):
    events = []
    while True:
        try:
            events.append(json.loads(ws.recv(timeout=timeout)))
        except TimeoutError:
            return events


@pytest.mark.parametrize("outputs, field", [
    (["_x"], "outputs.0"),
    (["a[0]"], "outputs.0"),
    (["y", "class"], "outputs.1"),
    (["a." * 200 + "b"], "outputs.0"),
    (["y.__class__"], "outputs.0"),
    ([f"x{i}" for i in range(10_001)], "outputs"),
])
def test_a_websocket_run_with_a_bad_output_name_gets_its_error_event(live_server, session, outputs, field):
    from websockets.sync.client import connect
    with connect(f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token={session.token}") as ws:
        ws.send(json.dumps({"type": "run", "id": "r1", "program": "y = 1", "outputs": outputs}))
        events = _events_until_quiet(ws)
        ws.send(json.dumps({"type": "run", "id": "r2", "program": "y = 2", "outputs": ["y"], "trace": False}))
        after = _events_until_quiet(ws)
    assert [(e["type"], e["run"], e["status"]) for e in events] == [("error", "r1", 422)], events
    assert events[0]["error"]["field"] == field
    assert [(e["type"], e["run"]) for e in after] == [("started", "r2"), ("result", "r2")], after
    assert after[1]["values"] == {"y": 2}
