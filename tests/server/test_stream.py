"""WebSocket /v1/sessions/{id}/stream: auth, origin, run/cancel/watch, ordering, slow readers."""
import json
import time

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from server_harness import StalledWebSocket, open_session


def _url(live_server, session, token=True):
    url = f"{live_server.ws_url}/v1/sessions/{session.id}/stream"
    return url + f"?token={session.token}" if token else url


def _events_until_end(ws, run_id, timeout=30):
    events = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = json.loads(ws.recv(timeout=timeout))
        if event.get("run") != run_id:
            continue
        events.append(event)
        if event["type"] in ("result", "error", "cancelled"):
            return events
    raise AssertionError(f"run {run_id} did not finish: {events[-5:]}")


PROGRAM = """
total = 0
for i in range(3):
    total = total + i
    print("step", i)
    log(step=i, loss=1.0 / (i + 1))
y = torch.ones(2) * total
"""


def test_run_streams_events_in_order_with_seq(live_server, session):
    with connect(_url(live_server, session)) as ws:
        ws.send(json.dumps({"type": "run", "id": "r1", "program": PROGRAM, "outputs": ["y"]}))
        events = _events_until_end(ws, "r1")
    kinds = [e["type"] for e in events]
    assert kinds[0] == "started" and kinds[-1] == "result"
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert "".join(e["text"] for e in events if e["type"] == "stdout") == "step 0\nstep 1\nstep 2\n"
    logs = [e["metrics"] for e in events if e["type"] == "log"]
    assert logs == [{"step": 0, "loss": 1.0}, {"step": 1, "loss": 0.5}, {"step": 2, "loss": 1.0 / 3}]
    assert events[-1]["values"]["y"]["data"] == [3.0, 3.0]
    assert {"grads", "graph", "stdout", "elapsed_ms"} <= set(events[-1])


def test_traced_run_graph_keeps_the_streamed_node_ids(live_server, session):
    program = "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x * x).sum()\ny.backward()"
    with connect(_url(live_server, session)) as ws:
        ws.send(json.dumps({"type": "run", "id": "g", "program": program, "outputs": ["y"],
                            "trace": True, "graph": True}))
        events = _events_until_end(ws, "g")
    streamed = {e["node"]["id"]: e["node"]["op"] for e in events
                if e["type"] == "node" and e["node"]["kind"] != "leaf"}
    exported = {n["id"]: n["op"] for n in events[-1]["graph"]["nodes"] if n["kind"] != "leaf"}
    assert streamed and {i: op for i, op in exported.items() if i in streamed} == streamed
    assert set(streamed) <= set(exported)


def test_token_may_come_in_the_first_message(live_server, session):
    with connect(_url(live_server, session, token=False)) as ws:
        ws.send(json.dumps({"token": session.token, "type": "run", "id": "a", "program": "z = torch.zeros(1)"}))
        events = _events_until_end(ws, "a")
    assert events[-1]["type"] == "result"


def test_missing_token_closes_with_4401(live_server, session):
    with connect(_url(live_server, session, token=False)) as ws:
        ws.send(json.dumps({"type": "watch"}))
        event = json.loads(ws.recv(timeout=10))
        assert event["error"]["type"] == "Unauthorized"
        with pytest.raises(ConnectionClosed) as info:
            ws.recv(timeout=10)
    assert info.value.rcvd.code == 4401


def test_wrong_token_in_first_message_closes_with_4404(live_server, session):
    with connect(_url(live_server, session, token=False)) as ws:
        ws.send(json.dumps({"token": "wrong"}))
        assert json.loads(ws.recv(timeout=10))["error"]["type"] == "SessionNotFound"
        with pytest.raises(ConnectionClosed) as info:
            ws.recv(timeout=10)
    assert info.value.rcvd.code == 4404


def test_wrong_token_in_the_query_is_refused_before_accepting(live_server, session):
    with pytest.raises(InvalidStatus) as info:
        connect(f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token=wrong")
    assert info.value.response.status_code == 404


def test_foreign_origin_is_refused_before_accepting(live_server, session):
    with pytest.raises(InvalidStatus) as info:
        connect(_url(live_server, session), origin="https://evil.example")
    assert info.value.response.status_code == 403
    with connect(_url(live_server, session), origin=live_server.url) as ws:  # the viewer's own origin
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(timeout=10))["type"] == "pong"


def test_watch_receives_the_events_of_http_runs(live_server, session):
    with connect(_url(live_server, session)) as ws:
        ws.send(json.dumps({"type": "watch"}))
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(timeout=10))["type"] == "pong"  # the watch is registered
        session.ok("print('hello')\nq = torch.ones(1)")
        first = json.loads(ws.recv(timeout=10))
        run_id = first["run"]
        events = [first] + _events_until_end(ws, run_id)
    kinds = [e["type"] for e in events]
    assert kinds[0] == "started" and kinds[-1] == "result"
    assert any(e["type"] == "stdout" and e["text"] == "hello\n" for e in events)


def test_cancel_stops_a_run_and_the_session_stays_usable(live_server, session):
    with connect(_url(live_server, session)) as ws:
        ws.send(json.dumps({"type": "run", "id": "forever", "program": "i = 0\nwhile True:\n    i = i + 1\n"}))
        assert json.loads(ws.recv(timeout=10))["type"] == "started"
        ws.send(json.dumps({"type": "cancel", "id": "forever"}))
        events = _events_until_end(ws, "forever", timeout=10)
        assert events[-1]["type"] == "cancelled"
        ws.send(json.dumps({"type": "run", "id": "next", "program": "j = torch.ones(1)"}))
        assert _events_until_end(ws, "next")[-1]["type"] == "result"


def test_second_run_while_one_is_in_progress_is_refused_with_409(live_server, session):
    with connect(_url(live_server, session)) as ws:
        ws.send(json.dumps({"type": "run", "id": "one", "program": "i = 0\nwhile i < 200000:\n    i = i + 1\n"}))
        assert json.loads(ws.recv(timeout=10))["type"] == "started"
        ws.send(json.dumps({"type": "run", "id": "two", "program": "a = 1"}))
        ends = {}
        while len(ends) < 2:
            event = json.loads(ws.recv(timeout=30))
            if event["type"] in ("result", "error"):
                ends[event["run"]] = event
        assert ends["two"]["type"] == "error" and ends["two"]["status"] == 409
        assert ends["one"]["type"] == "result"


def test_program_error_arrives_as_an_error_event(live_server, session):
    with connect(_url(live_server, session)) as ws:
        ws.send(json.dumps({"type": "run", "id": "bad", "program": "a = 1\nraise ValueError('no')"}))
        events = _events_until_end(ws, "bad")
    assert events[-1]["type"] == "error"
    assert events[-1]["status"] == 422 and events[-1]["error"]["line"] == 2


def test_malformed_messages_answer_error_events(live_server, session):
    with connect(_url(live_server, session)) as ws:
        for bad in ("not json", json.dumps([1]), json.dumps({"type": "fly"}), json.dumps({"type": "run"})):
            ws.send(bad)
            event = json.loads(ws.recv(timeout=10))
            assert event["type"] == "error" and event["error"]["type"] == "ValidationError"
        ws.send(json.dumps({"type": "run", "id": "ok", "program": "a = torch.ones(1)"}))
        assert _events_until_end(ws, "ok")[-1]["type"] == "result"



@pytest.mark.parametrize("message", [
    "[" * 5000 + "]" * 5000,                                                              # JSON nested 5000 deep
    '{"type": "run", "id": "a", "program": "y = x", "inputs": {"x": ' + "[" * 3000 + "]" * 3000 + "}}",
])
def test_deeply_nested_message_answers_an_error_event_and_the_connection_stays(live_server, session, message):
    """json.loads raises RecursionError (a RuntimeError) past ~1000 levels: it used to end the connection
    with no close frame and no event (attack5, F2)."""
    with connect(_url(live_server, session)) as ws:
        ws.send(message)
        event = json.loads(ws.recv(timeout=10))
        assert event["type"] == "error" and event["error"]["type"] == "ValidationError"
        ws.send(json.dumps({"type": "run", "id": "after", "program": "a = torch.ones(1)"}))
        assert _events_until_end(ws, "after")[-1]["type"] == "result"


def test_deeply_nested_first_message_is_refused_with_4401(live_server, session):
    with connect(_url(live_server, session, token=False)) as ws:
        ws.send("[" * 5000 + "]" * 5000)
        event = json.loads(ws.recv(timeout=10))
        assert event["error"]["type"] == "Unauthorized"
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
        assert closed.value.rcvd.code == 4401

BIG = """
x = torch.ones(4, requires_grad=True)
acc = x
note = "n" * 4000
for i in range(6000):
    if i < 2000:
        acc = acc * 1.0001 + 0.001
    log(step=i, note=note)
acc.sum().backward()
print("done")
"""


@pytest.mark.slow
def test_stalled_reader_does_not_stall_the_server(http, live_server):
    """A client that stops reading mid-run fills only its own queue: node/log events are coalesced,
    the result still arrives, and other clients are served meanwhile."""
    reader = open_session(http)
    placement = live_server.app.state.sessions.sessions[reader.id].placement
    other = None
    for _ in range(8):
        candidate = open_session(http)
        if live_server.app.state.sessions.sessions[candidate.id].placement != placement:  # another process
            other = candidate
            break
    assert other is not None
    ws = StalledWebSocket("127.0.0.1", live_server.settings.port, f"{reader.path}/stream?token={reader.token}")
    try:
        ws.send_text(json.dumps({"type": "run", "id": "big", "program": BIG, "outputs": ["acc"], "trace": True}))
        state = live_server.app.state.sessions.sessions[reader.id]
        while state.run_id is None:
            time.sleep(0.01)
        latencies = []
        deadline = time.monotonic() + 120
        while state.run_id is not None and time.monotonic() < deadline:
            t0 = time.monotonic()
            assert http.get("/healthz").status_code == 200
            other.ok("b = torch.ones(2) + 1")
            latencies.append(time.monotonic() - t0)
        assert latencies and max(latencies) < 2.0, latencies
        # now read: the result arrives; events were coalesced on the way
        events = []
        while not events or events[-1]["type"] != "result":
            event = json.loads(ws.recv_text())
            events.append(event)
        kinds = {e["type"] for e in events}
        assert "dropped" in kinds
        dropped = [e for e in events if e["type"] == "dropped"]
        assert sum(d["log"] + d["node"] + d["backward"] for d in dropped) > 0
        assert "done\n" in "".join(e.get("text", "") for e in events if e["type"] == "stdout")
        seqs = [e["seq"] for e in events]
        assert seqs == sorted(seqs)
    finally:
        ws.close()
    reader.delete()
    other.delete()


def _two_sessions_on_one_worker(http, live_server):
    seen, extra = {}, []
    for _ in range(8):
        s = open_session(http)
        worker = live_server.app.state.sessions.sessions[s.id].placement.worker
        if worker in seen:
            for other in extra:
                if other is not seen[worker]:
                    other.delete()
            return seen[worker], s
        seen[worker] = s
        extra.append(s)
    raise AssertionError("no two sessions landed on one worker")


def test_sessions_on_one_worker_may_use_the_same_run_id(http, live_server):
    """Run ids are the client's choice: another session's run with the same id gets none of its
    events, and cancelling one's own run never stops the other's."""
    a, b = _two_sessions_on_one_worker(http, live_server)
    slow = 'print("A")\nt = 0\nfor i in range(300000):\n    t = t + i\nprint("A end")'
    try:
        with connect(_url(live_server, a)) as wa, connect(_url(live_server, b)) as wb:
            wa.send(json.dumps({"type": "run", "id": "same", "program": slow, "outputs": []}))
            while live_server.app.state.sessions.sessions[a.id].run_id is None:
                time.sleep(0.005)
            wb.send(json.dumps({"type": "run", "id": "same", "program": 'print("B")', "outputs": []}))
            wb.send(json.dumps({"type": "cancel", "id": "same"}))
            a_events = _events_until_end(wa, "same")
            b_events = _events_until_end(wb, "same")
    finally:
        a.delete()
        b.delete()
    assert a_events[-1]["type"] == "result", a_events[-1]
    assert "".join(e["text"] for e in a_events if e["type"] == "stdout") == "A\nA end\n"
    assert b_events[-1]["type"] in ("cancelled", "result"), b_events[-1]
    assert all(e.get("text") in (None, "B\n") for e in b_events)


def test_a_result_larger_than_a_stream_holds_is_refused_before_it_is_built(live_server, session):
    """Hostile pass 14, F2: a WebSocket result is one message; a 2^27-element tensor asked as base64 (or
    binary) was a 715 MB text, built and sent whole: 2.2 GB of the API process and 2-6 s of its event loop,
    during which every other session waited. A result past ws_queue_bytes is now refused (413) by the
    worker before its bytes cross; the values stay in the session. Watchers of an HTTP run get the run's
    result without its tensors, saying why, and the HTTP caller gets them all."""
    big = "y = torch.ones(1).expand(2**20)"   # 4 MiB of float32 (a 4-byte tensor in the session)
    with live_server.setting(ws_queue_bytes=1 << 20), connect(_url(live_server, session)) as ws:
        for encoding in ("base64", "binary"):
            ws.send(json.dumps({"type": "run", "id": encoding, "program": big, "outputs": ["y"], "encoding": encoding}))
            end = _events_until_end(ws, encoding)[-1]
            assert end["type"] == "error" and end["status"] == 413, end
            assert end["error"]["limit"] == "answer_bytes" and end["error"]["name"] == "y", end
        ws.send(json.dumps({"type": "run", "id": "small", "program": "z = y[:3] * 2", "outputs": ["z"],
                            "encoding": "base64"}))
        assert _events_until_end(ws, "small")[-1]["type"] == "result"
        ws.send(json.dumps({"type": "watch"}))
        answer = session.run(big + "\nprint('done')", outputs=["y"], encoding="binary")
        assert answer.status_code == 200 and len(answer.content) > 4 << 20
        result = {"type": None}
        while result["type"] != "result":
            result = json.loads(ws.recv(timeout=30))
        assert result["values"] == {} and result["stdout"] == "done\n", result
        assert result["omitted"]["limit"] == "ws_queue_bytes", result
    got = session.get("/variables/y", params={"encoding": "binary"})
    assert got.status_code == 200 and len(got.content) > 4 << 20
