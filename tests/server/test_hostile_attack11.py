"""Hostile pass 11 (tests/hostile_attack11_log.md): server findings.

F6: a WebSocket ``cancel`` sent right behind its ``run`` message was often lost: the connection handles the
cancel before the run's task first runs, when the session's run is not yet that one, and the cancel did
nothing (no error either), so the run went on to its end (or to the wall-time limit). Half of 30 such
pairs ran to completion. Now such a run is not started: it answers ``cancelled``.

F8: a debug command the paused run refused (an unknown command, a breakpoint condition that does not
parse) is answered with an ``error`` event marked ``"paused": true``; the API took any ``error`` event for
the run's end and cleared the session's paused flag, so its other routes no longer answered 409 at once
(hostile pass 7, F5) but waited behind the paused run for up to pause_timeout_s (10 minutes), and a PUT
whose client had given up was applied when the pause ended.

F9: a run's inputs were decoded one by one (about 50 us each) with no bound on how many: a body under 4 MB
with 150,000 inputs ``{"k0": 1, ...}`` took 8 s of the API process's CPU and was answered 200 (six at once:
39 s each, /healthz up to 2 s for everyone); past 4 MB the single shared parser process decoded all of
them before refusing the body (body_values), so a 64 MB body held every other user's large request for
minutes. Now a run takes at most 50,000 inputs, counted before any is decoded.

F10 (low): a WebSocket connection remembered the id of every debug run it started (``debug_runs``, which
decides which runs outlive the connection) for as long as it stayed open: one connection making debug runs
with 128-character ids grew the API process without bound. Now a finished run is forgotten.

F11: a run's ``outputs`` had no bound on its length: 200,000 one-number outputs (a 5 MB request) took 17 s
and held the API's event loop (/healthz) for up to 4 s while their answer was read back and written; 400,000
copies of one name were each encoded and sent as a buffer of their own (25 s). Now a run answers at most
10,000 outputs, and the worker answers each name once. The same held for one output holding a list of
100,000 one-number tensors (5 s, /healthz 1.5 s): an answer now carries at most 10,000 tensors
(413, limit ``output_tensors``; the run's results stay in the session).
"""
import asyncio
import json
import time
from types import SimpleNamespace

import httpx
import pytest
from websockets.sync.client import connect

from test_debug_stream import _paused, _start

PROGRAM = "n = 0\nwhile n < 3_000_000:\n    n += 1\ndone = torch.ones(1)\n"


def _url(live_server, session):
    return f"{live_server.ws_url}{session.path}/stream?token={session.token}"


def _end(ws, run_id, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        event = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        if event.get("run") == run_id and event["type"] in ("result", "error", "cancelled"):
            return event


def test_a_cancel_right_behind_its_run_message_cancels_it(live_server, session):
    ends = []
    with connect(_url(live_server, session)) as ws:
        for i in range(10):
            ws.send(json.dumps({"type": "run", "id": f"r{i}", "program": PROGRAM}))
            ws.send(json.dumps({"type": "cancel", "id": f"r{i}"}))
            ends.append(_end(ws, f"r{i}")["type"])
        assert ends == ["cancelled"] * 10, ends
        # the session is usable, and none of those runs got to its last line
        ws.send(json.dumps({"type": "run", "id": "after", "program": "x = torch.ones(2)"}))
        assert _end(ws, "after")["type"] == "result"
    assert "done" not in session.get().json()["variables"]


def test_a_debug_run_cancelled_before_it_starts_leaves_the_session_free(live_server, session):
    with connect(_url(live_server, session)) as ws:
        ws.send(json.dumps({"type": "run", "id": "d", "program": "breakpoint()\nx = 1", "debug": True}))
        ws.send(json.dumps({"type": "cancel", "id": "d"}))
        assert _end(ws, "d")["type"] == "cancelled"
        ws.send(json.dumps({"type": "run", "id": "after", "program": "y = torch.ones(2)"}))
        assert _end(ws, "after")["type"] == "result"


@pytest.mark.parametrize("command", [
    {"command": "zzz"},
    {"command": "breakpoints", "breakpoints": [{"line": 2, "condition": "(("}]},
])
def test_a_refused_debug_command_leaves_the_session_paused_for_its_routes(live_server, session, command):
    session.ok("x = torch.tensor([1.0])")
    with connect(_url(live_server, session)) as ws:
        _start(ws, "p", "for i in range(3):\n    y = x * i\n", breakpoints=[{"line": 2}])
        _paused(ws, "p")
        ws.send(json.dumps({"type": "debug", "id": "p", **command}))
        refused = _end(ws, "p")
        assert refused["type"] == "error" and refused["paused"] is True, refused
        started = time.monotonic()
        try:
            answers = [session.get(timeout=5), session.put("/variables/x", json=[9.0], timeout=5)]
        except httpx.TimeoutException:
            pytest.fail("the session's routes waited behind the paused run")
        assert time.monotonic() - started < 5
        for r in answers:
            assert r.status_code == 409 and r.json()["error"]["run"] == "p", r.text
        ws.send(json.dumps({"type": "debug", "id": "p", "command": "cancel"}))
        assert _end(ws, "p")["type"] == "cancelled"
    assert session.get("/variables/x").json()["value"]["data"] == [1.0]   # the refused PUT changed nothing


def _many_inputs(n):
    return b'{"program": "y = 1", "inputs": {' + b",".join(b'"k%d": 1' % i for i in range(n)) + b"}}"


@pytest.mark.parametrize("n", [50_001, 400_000])   # parsed in the API process / in the parser process
def test_a_run_with_too_many_inputs_is_refused_before_decoding(session, n):
    r = session.client.post(session.path + "/run", content=_many_inputs(n), timeout=120,
                            headers={**session.headers, "Content-Type": "application/json"})
    assert r.status_code == 422, r.text[:300]
    error = r.json()["error"]
    assert error["type"] == "LimitExceeded" and error["limit"] == "body_values" and error["field"] == "inputs", error
    assert "y" not in session.get().json()["variables"]


def test_a_run_with_many_inputs_under_the_bound_still_runs(session):
    r = session.client.post(session.path + "/run", content=_many_inputs(2_000), timeout=120,
                            headers={**session.headers, "Content-Type": "application/json"})
    assert r.status_code == 200, r.text[:300]


def test_a_connection_forgets_its_finished_debug_runs():
    from gradserve.server.routes.stream import Connection

    class Runs:
        async def execute(self, *args, **kwargs):
            return {}

    state = SimpleNamespace(settings=SimpleNamespace(ws_queue_events=64, ws_queue_bytes=1 << 20), runs=Runs(),
                            backend=SimpleNamespace(debug_unsupported=lambda placement: None))
    conn = Connection(None, state, SimpleNamespace(placement=None, run_id=None))

    async def runs():
        for i in range(200):
            await conn._run("d" * 100 + str(i), {"program": "pass", "debug": True}, 10)

    asyncio.run(runs())
    assert not conn.debug_runs and not conn.cancelled_early


def test_a_run_asking_for_too_many_outputs_is_refused(session):
    n = 10_001
    r = session.run(f"d = {{'k%d' % i: torch.ones(1) for i in range({n})}}", outputs=[f"d.k{i}" for i in range(n)])
    assert r.status_code == 422, r.text[:300]
    error = r.json()["error"]
    assert error["type"] == "LimitExceeded" and error["limit"] == "body_values" and error["field"] == "outputs", error
    body = session.ok("e = torch.ones(1)", outputs=["e"] * 5_000)
    assert list(body["values"]) == ["e"]


def test_the_worker_answers_each_output_name_once():
    from gradserve.server.worker import Worker
    worker = Worker()
    worker.op_open({"session": "s"}, [])
    answer = {"encoding": "json", "json_max_elements": 1 << 22, "max_bytes": 1 << 30, "graph_max_nodes": 1000,
              "max_depth": 32, "max_items": 100_000}
    reply, out = worker.op_run({"session": "s", "run": "r", "program": "y = torch.ones(2)", "limits": {},
                                "outputs": ["y"] * 5_000, "answer": answer}, [])
    assert list(reply["values"]) == ["y"] and len(out) == 1, len(out)
    # a missing name is still named by its place in the list the client sent
    reply, out = worker.handle({"op": "run", "session": "s", "run": "r2", "program": "z = 1", "limits": {},
                                "outputs": ["z", "z", "nope"], "answer": answer}, [])
    assert reply["ok"] is False and reply["error"]["field"] == "outputs.2", reply


def test_an_answer_carries_at_most_10000_tensors(session):
    r = session.run("l = [torch.ones(1) for i in range(10_001)]\nkept = torch.ones(2)", outputs=["l"])
    assert r.status_code == 413, r.text[:300]
    error = r.json()["error"]
    assert error["type"] == "LimitExceeded" and error["limit"] == "output_tensors", error
    assert "kept" in session.get().json()["variables"]
    body = session.ok("m = [torch.ones(1) for i in range(100)]", outputs=["m"])
    assert len(body["values"]["m"]) == 100
