"""Hostile pass 9 (tests/hostile_attack9_log.md).

F1: ``log(a=10**5000)`` answered HTTP 500 (and an ``error`` event with status 500) whenever someone
watched the session: the metric's int reached the JSON encoder, and Python refuses to write an int of
more than 4,300 digits. Now log() refuses such an int at the program's line, as outputs do.

F2: a debug run paused with ``x = 10**5000`` among its locals ended with an internal error: the pause's
locals summary is the value's repr, which raises for such an int. Now the summary gives its size.

F3: a WebSocket watcher that never reads held every run's result (and stdout) in the API process:
results and stdout are never dropped, so its queue grew by each run's answer, 160 MB a run for a
4M-number result, 2 MB a run at 80 runs a second for 1 MB of stdout (freed only when it closed). Now
a queue also counts its bytes, and past ``ws_queue_bytes`` the lagging connection is closed (1013).
"""
import asyncio
import json
import threading
import time

from websockets.sync.client import connect

from gradserve.server.events import CLOSE, EventQueue, SharedEvent
from server_harness import StalledWebSocket

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


# ---------------------------------------------------------------- F3
def _drain(queue):
    async def run():
        out = []
        while queue.items:
            out.append(await queue.get())
        return out
    return asyncio.run(run())


def test_a_queue_past_its_byte_bound_lets_go_and_closes():
    queue = EventQueue(1024, max_bytes=10_000)
    for i in range(5):
        queue.put({"type": "stdout", "run": "r", "seq": i, "text": "x" * 3000})
    assert queue.close_code == 1013 and queue.held_bytes < 1000
    queue.put({"type": "result", "run": "r", "seq": 9})   # closing: nothing more is queued
    events = _drain(queue)
    assert events[-1] is CLOSE and len(events) == 2, events
    assert events[0]["error"]["limit"] == "ws_queue_bytes" and events[0]["status"] == 503, events[0]


def test_a_reader_keeping_up_is_never_closed_and_counts_return_to_zero():
    queue = EventQueue(4, max_bytes=10_000)
    for i in range(50):
        big = SharedEvent(type="result", run=str(i), seq=0, stdout="")
        big.cost = 9_000   # one large result at a time is always admitted
        queue.put(big)
        queue.put({"type": "stdout", "run": str(i), "seq": 1, "text": "y" * 500})
        assert [e["type"] for e in _drain(queue)] == ["result", "stdout"]
    assert queue.close_code is None and queue.held_bytes == 0
    # merged stdout (a lagging reader) is counted piece by piece and given back whole
    for i in range(4):
        queue.put({"type": "node", "run": "m", "seq": i})
    for i in range(20):
        queue.put({"type": "stdout", "run": "m", "seq": 4 + i, "text": "z" * 100})
    assert queue.held_bytes >= 2000
    _drain(queue)
    assert queue.held_bytes == 0 and queue.close_code is None


def test_debug_answers_and_errors_count_their_texts():
    """A whole tensor in an eval answer (up to 4M numbers, 22 MB of base64), an error's message (64 KiB)
    and a pause's locals were queued at 256 bytes each: 25 ``eval x full`` answers to a stalled watcher
    held 1 GB of the API process."""
    queue = EventQueue(1024, max_bytes=1 << 20)
    answer = {"type": "evaluated", "run": "d", "seq": 1,
              "value": {"repr": "r" * 100, "tensor": {"shape": [1], "dtype": "float32", "b64": "A" * 400_000}}}
    queue.put(answer)
    assert queue.held_bytes >= 400_100
    queue.put({"type": "error", "run": "e", "seq": 0, "error": {"type": "ValueError", "message": "m" * 300_000}})
    assert queue.held_bytes >= 700_100
    queue.put({"type": "paused", "run": "d", "seq": 2, "locals": {f"v{i}": "1" for i in range(100)}})
    queue.put(dict(answer, seq=3))   # past the bound now: the next one closes
    queue.put(dict(answer, seq=4))
    assert queue.close_code == 1013
    # a breakpoints command's answer echoes up to 1000 conditions of 64 KiB (20 MB a command measured)
    queue = EventQueue(1024, max_bytes=1 << 20)
    queue.put({"type": "breakpoints", "run": "d", "seq": 5,
               "breakpoints": [{"line": 3, "condition": "x == 1" * 1000}] * 1000})
    assert queue.held_bytes >= 6_000_000


def _api_queues(live_server, session):
    return list(live_server.app.state.sessions.sessions[session.id].watchers)


def test_a_watcher_that_never_reads_does_not_hold_every_runs_output(live_server, session, neighbour):
    """The attack: a stalled watcher, then runs each answering 1 MB of stdout and a 256k-number result.
    Before, its queue held all of them (about 10 MB a run); now it is closed once it holds more than
    ws_queue_bytes, and what it held is let go."""
    stalled = StalledWebSocket("127.0.0.1", live_server.settings.port,
                               f"{session.path}/stream?token={session.token}")
    try:
        stalled.send_text('{"type": "watch"}')
        deadline = time.monotonic() + 10
        while not _api_queues(live_server, session):
            assert time.monotonic() < deadline, "the watcher was not registered"
            time.sleep(0.05)
        queue = _api_queues(live_server, session)[0]
        queue.max_bytes = 32 << 20   # (ws_queue_bytes, 256 MiB, read when the connection opened)
        for i in range(12):
            r = session.run("print('p' * 1_000_000)\ny = torch.rand(262144)", outputs=["y"])
            assert r.status_code == 200, r.text
            # never more than the bound plus one run's events, whatever the number of runs
            assert queue.held_bytes <= (32 << 20) + (12 << 20), queue.held_bytes
        assert queue.close_code == 1013, (queue.held_bytes, len(queue.items))
        assert len(queue.items) <= 3
    finally:
        stalled.sock.close()
    neighbour.check()


def test_a_stalled_watcher_is_closed_by_runs_answering_large_graphs(live_server, session, neighbour):
    """The same attack with runs answering their graph (a 60k-node graph is 14 MB of JSON text, which
    the result event carries): each run's graph was held too, and was not counted."""
    stalled = StalledWebSocket("127.0.0.1", live_server.settings.port,
                               f"{session.path}/stream?token={session.token}")
    try:
        stalled.send_text('{"type": "watch"}')
        deadline = time.monotonic() + 10
        while not _api_queues(live_server, session):
            assert time.monotonic() < deadline, "the watcher was not registered"
            time.sleep(0.05)
        queue = _api_queues(live_server, session)[0]
        queue.max_bytes = 4 << 20
        program = "x = torch.ones(1, requires_grad=True)\ny = x\nfor i in range(5000):\n    y = y + 1\n"
        for i in range(8):   # about 1.2 MB of graph a run
            r = session.run(program, graph=True, outputs=["y"])
            assert r.status_code == 200, r.text
            assert queue.held_bytes <= (4 << 20) + (2 << 20), queue.held_bytes
        assert queue.close_code == 1013, (queue.held_bytes, len(queue.items))
    finally:
        stalled.sock.close()
    neighbour.check()


def test_a_watcher_that_reads_gets_every_large_result(live_server, session):
    results = []
    with connect(_url(live_server, session), max_size=None) as ws:
        ws.send(json.dumps({"type": "watch"}))
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(timeout=30))["type"] == "pong"

        def runs():
            for _ in range(3):
                session.ok("y = torch.rand(300000)", outputs=["y"])
        t = threading.Thread(target=runs)
        t.start()
        while len(results) < 3:
            event = json.loads(ws.recv(timeout=60))
            if event["type"] == "result":
                results.append(event)
        t.join()
    assert all(len(e["values"]["y"]["data"]) == 300000 for e in results)


# ---------------------------------------------------------------- F6
GRAPH = "x = torch.ones(1, requires_grad=True)\ny = x\nfor i in range(20000):\n    y = y + 1\n"   # ~5 MB of graph


def _budget_released(budget, timeout_s=20):
    deadline = time.monotonic() + timeout_s
    while budget.used and time.monotonic() < deadline:
        time.sleep(0.05)
    return budget.used


def test_graph_answers_held_by_readers_that_stall_are_charged(live_server, http):
    """F6: an HTTP answer's graph (the worker's JSON text, up to ~52 MB) was never charged to
    answer_budget_bytes: its tensors were a few bytes, so the whole answer was one plain Response,
    held until its client read it. Ten clients that stalled on a 14 MB graph answer each held the API
    process at +14 MB a run, with no bound on how many. The run route and GET .../graph now charge the
    graph text while it is sent."""
    import httpx
    from server_harness import open_session
    budget = live_server.app.state.answer_budget
    saved = budget.total
    budget.total = 6 << 20
    try:
        slow, other = open_session(http), open_session(http)
        slow.ok(GRAPH, outputs=["y"])
        with httpx.Client(base_url=live_server.url, timeout=60) as reader:
            with reader.stream("POST", slow.path + "/run", headers=slow.headers,
                               json={"program": GRAPH, "outputs": ["y"], "graph": True}) as r:
                assert r.status_code == 200
                chunks = r.iter_raw(65536)
                next(chunks)   # then stalls with the rest unsent
                assert budget.used > 4 << 20
                refused = other.run(GRAPH, outputs=["y"], graph=True)
                assert refused.status_code == 503 and refused.json()["error"]["limit"] == "answer_budget_bytes"
                refused = slow.get("/graph", params={"of": "y"})
                assert refused.status_code == 503, refused.status_code
                assert other.run("z = torch.ones(3)", outputs=["z"], graph=True).status_code == 200   # small: free
                del chunks
        assert _budget_released(budget) == 0
        body = other.ok(GRAPH, outputs=["y"], graph=True)   # whole and valid once the budget is free
        assert len(body["graph"]["nodes"]) > 20000
        got = slow.get("/graph", params={"of": "y"})
        assert got.status_code == 200 and len(got.json()["nodes"]) > 20000
        assert _budget_released(budget) == 0
    finally:
        budget.total = saved


# ---------------------------------------------------------------- F7
def test_checkpoints_held_by_readers_that_stall_are_charged(live_server, http):
    """F7: GET .../checkpoint answered the whole safetensors file as one plain Response, uncharged: a
    client that stalled on it kept it in the API process (768 MB for a session of six 2**25 tensors,
    1.6 GB for two such clients), even after the session was deleted. It is now charged to
    answer_budget_bytes while it is sent."""
    import httpx
    from server_harness import open_session, safetensors_bytes
    budget = live_server.app.state.answer_budget
    saved = budget.total
    budget.total = 40 << 20
    try:
        big, other = open_session(http), open_session(http)
        big.ok("a = torch.rand(2**22)\nb = torch.rand(2**22)", outputs=[])   # 32 MiB
        other.ok("c = torch.rand(2**22)\nd = torch.ones(3)", outputs=[])      # 16 MiB
        with httpx.Client(base_url=live_server.url, timeout=60) as reader:
            with reader.stream("GET", big.path + "/checkpoint", headers=big.headers) as r:
                assert r.status_code == 200
                assert r.headers["content-disposition"].endswith('.safetensors"')
                chunks = r.iter_raw(65536)
                next(chunks)   # then stalls
                assert budget.used >= 32 << 20
                refused = other.get("/checkpoint")
                assert refused.status_code == 503 and refused.headers["Retry-After"] == "1", refused.text
                assert refused.json()["error"]["limit"] == "answer_budget_bytes"
                del chunks
            big.delete()
        assert _budget_released(budget) == 0
        got = other.get("/checkpoint")
        assert got.status_code == 200 and len(got.content) > 16 << 20
        assert int(got.headers["content-length"]) == len(got.content)
        assert _budget_released(budget) == 0
        restored = open_session(http)
        assert restored.put("/checkpoint", content=got.content).status_code == 204
        assert restored.ok("e = d * 2", outputs=["e"])["values"]["e"]["data"] == [2.0, 2.0, 2.0]
        small = open_session(http)
        assert small.put("/checkpoint", content=safetensors_bytes({"w": ([2], [1.0, 2.0])})).status_code == 204
        assert small.get("/checkpoint").status_code == 200   # small checkpoints are never charged
    finally:
        budget.total = saved


# ---------------------------------------------------------------- F8
def test_answers_under_a_mebibyte_held_by_readers_that_stall_are_charged(live_server, http):
    """F8: answers of up to 1 MiB of tensor bytes were never charged, and stdout not counted at all:
    each client that stalled on one (262,000 numbers and 1 MB of stdout) held ~6 MB of the API process,
    100 of them 600 MB, bounded only by max_connections (~19,000). Answers past 64 KiB (tensors, graph
    text and stdout together) are now streamed and charged while they are sent."""
    import httpx
    from server_harness import open_session
    budget = live_server.app.state.answer_budget
    saved = budget.total
    budget.total = 1 << 20
    program = "print('a' * 500_000)\ny = torch.rand(200_000)"   # 800 KB of tensor, 500 KB of stdout
    try:
        slow, other = open_session(http), open_session(http)
        with httpx.Client(base_url=live_server.url, timeout=60) as reader:
            with reader.stream("POST", slow.path + "/run", headers=slow.headers,
                               json={"program": program, "outputs": ["y"]}) as r:
                assert r.status_code == 200
                chunks = r.iter_raw(65536)
                next(chunks)   # then stalls
                assert budget.used >= 1_300_000, budget.used
                refused = other.run(program, outputs=["y"])
                assert refused.status_code == 503 and refused.json()["error"]["limit"] == "answer_budget_bytes"
                assert other.run("z = torch.ones(3)\nprint('hi')", outputs=["z"]).status_code == 200   # small: free
                del chunks
        assert _budget_released(budget) == 0
        body = other.ok(program, outputs=["y"])   # streamed, whole and valid
        assert len(body["values"]["y"]["data"]) == 200_000 and len(body["stdout"]) == 500_001
        assert _budget_released(budget) == 0
    finally:
        budget.total = saved
