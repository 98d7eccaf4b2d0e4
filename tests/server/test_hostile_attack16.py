"""Hostile pass 16 (tests/hostile_attack16_log.md): server findings.

F2: a WebSocket run admitted and then refused with 409, 413 or 429 (a result past json_max_elements)
sent its error twice: the run's own ``error`` event (its next seq) and, from the stream route, which
took every such status for a refusal before admission, a second one with seq 0 (a connection notice),
so a client that takes the first terminal event as the end saw a stray one at the start of its next
run. The run's error event now marks the error as sent, and the route adds none.
"""
import json


def _events_until_quiet(ws, timeout=2.0):
    events = []
    while True:
        try:
            events.append(json.loads(ws.recv(timeout=timeout)))
        except TimeoutError:
            return events


def test_an_admitted_run_refused_with_413_sends_one_error_event(live_server, session):
    from websockets.sync.client import connect
    with live_server.setting(json_max_elements=100), \
            connect(f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token={session.token}") as ws:
        ws.send(json.dumps({"type": "run", "id": "r1", "program": "x = torch.ones(1000)", "trace": False}))
        events = _events_until_quiet(ws)
        ws.send(json.dumps({"type": "run", "id": "r2", "program": "y = 1", "outputs": ["y"], "trace": False}))
        after = _events_until_quiet(ws)
    assert [e["type"] for e in events] == ["started", "error"], events
    assert events[1]["status"] == 413 and events[1]["error"]["limit"] == "json_max_elements"
    assert [e["seq"] for e in events] == [0, 1] and all(e["run"] == "r1" for e in events)
    assert [(e["type"], e["run"]) for e in after] == [("started", "r2"), ("result", "r2")], after


def test_a_run_refused_before_admission_still_gets_its_error_event(live_server, session):
    from websockets.sync.client import connect
    with connect(f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token={session.token}") as ws:
        ws.send(json.dumps({"type": "run", "id": "r1", "program": "x = 1\n" * 20000}))
        events = _events_until_quiet(ws)
    assert [(e["type"], e["run"], e["status"]) for e in events] == [("error", "r1", 413)], events
    assert events[0]["error"]["limit"] == "program_bytes"
