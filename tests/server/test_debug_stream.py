"""Debugging a run over the WebSocket (SPEC section 4): pauses, stepping, eval/exec in the paused frame,
bad commands that leave the run paused, post-mortem and anomaly pauses, watchers taking over a paused
run whose client went away, the pause timeout, and a paused session holding up no other session."""
import json
import threading
import time

from websockets.sync.client import connect

from server_harness import open_session


def _url(live_server, session):
    return f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token={session.token}"


def _next(ws, run_id, types, timeout=30):
    """The run's next event of one of ``types`` (events of other kinds are skipped)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        if event.get("run") != run_id:
            continue
        if event["type"] in types:
            return event
        if event["type"] in ("result", "cancelled") or event["type"] == "error" and "paused" not in event:
            raise AssertionError(f"the run ended while waiting for {types}: {event}")
    raise AssertionError(f"no {types} event within {timeout}s")


def _paused(ws, run_id):
    return _next(ws, run_id, ("paused",))


def _end(ws, run_id, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = json.loads(ws.recv(timeout=timeout))
        if event.get("run") == run_id and (event["type"] in ("result", "cancelled")
                                           or event["type"] == "error" and "paused" not in event):
            return event
    raise AssertionError("the run did not end")


def _cmd(ws, run_id, command, **fields):
    ws.send(json.dumps({"type": "debug", "id": run_id, "command": command, **fields}))


def _start(ws, run_id, program, **fields):
    ws.send(json.dumps({"type": "run", "id": run_id, "program": program, "debug": True, **fields}))


MODEL = """\
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 2)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        return self.fc2(h)

torch.manual_seed(0)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.ones(5, 3)
for step in range(3):
    out = model(x)
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
shape = out.shape[1]
"""


def test_breakpoint_pause_shows_line_stack_and_locals_then_continues(live_server, session):
    with connect(_url(live_server, session)) as ws:
        _start(ws, "b", MODEL, breakpoints=[{"line": 11}], outputs=["loss"])
        p = _paused(ws, "b")
        assert p["reason"] == "breakpoint" and p["line"] == 11 and p["col"] == 9
        assert [f["function"] for f in p["stack"]] == ["<module>", "forward"]
        assert p["stack"][0]["line"] == 19
        assert p["locals"]["x"]["shape"] == [5, 3] and p["locals"]["x"]["dtype"] == "float32"
        assert p["locals"]["self"] == "<Net>"
        _cmd(ws, "b", "breakpoints", breakpoints=[])
        assert _next(ws, "b", ("breakpoints",))["breakpoints"] == []
        _cmd(ws, "b", "continue")
        result = _end(ws, "b")
    assert result["type"] == "result" and "loss" in result["values"]


def test_conditional_breakpoint_stops_only_when_true(live_server, session):
    with connect(_url(live_server, session)) as ws:
        _start(ws, "c", MODEL, breakpoints=[{"line": 20, "condition": "step == 2"}])
        p = _paused(ws, "c")
        assert p["line"] == 20 and p["locals"]["step"] == "2"
        _cmd(ws, "c", "continue")
        assert _end(ws, "c")["type"] == "result"


def test_step_next_out_are_line_accurate(live_server, session):
    with connect(_url(live_server, session)) as ws:
        _start(ws, "s", MODEL, breakpoints=[{"line": 19}])
        assert _paused(ws, "s")["line"] == 19
        _cmd(ws, "s", "step")          # into forward
        p = _paused(ws, "s")
        assert (p["line"], p["stack"][-1]["function"]) == (11, "forward"), p
        _cmd(ws, "s", "next")
        assert _paused(ws, "s")["line"] == 12
        _cmd(ws, "s", "next")          # returns: the caller's next line
        p = _paused(ws, "s")
        assert (p["line"], len(p["stack"])) == (20, 1)
        _cmd(ws, "s", "next")
        assert _paused(ws, "s")["line"] == 21
        _cmd(ws, "s", "next")
        assert _paused(ws, "s")["line"] == 22
        _cmd(ws, "s", "next")
        assert _paused(ws, "s")["line"] == 23
        _cmd(ws, "s", "next")          # the loop's head again
        assert _paused(ws, "s")["line"] == 18
        _cmd(ws, "s", "next")
        assert _paused(ws, "s")["line"] == 19   # the breakpoint's line, by stepping
        _cmd(ws, "s", "step")
        assert _paused(ws, "s")["line"] == 11
        _cmd(ws, "s", "out")
        p = _paused(ws, "s")
        assert (p["line"], len(p["stack"])) == (20, 1)
        _cmd(ws, "s", "breakpoints", breakpoints=[])
        _next(ws, "s", ("breakpoints",))
        _cmd(ws, "s", "continue")
        assert _end(ws, "s")["type"] == "result"


def test_eval_exec_in_the_paused_frame_persist_and_alter_the_model(live_server, session):
    with connect(_url(live_server, session)) as ws:
        _start(ws, "e", MODEL, breakpoints=[{"line": 19}], outputs=["shape"])
        _paused(ws, "e")
        _cmd(ws, "e", "eval", expr="x.sum()", full=True)
        ev = _next(ws, "e", ("evaluated",))
        assert ev["value"]["mean"] == 15.0 and ev["value"]["tensor"]["shape"] == []
        _cmd(ws, "e", "exec", code="model.fc2 = nn.Linear(4, 7)\nopt.param_groups[0]['lr'] = 0.5")
        assert "error" not in _next(ws, "e", ("evaluated",))
        _cmd(ws, "e", "eval", expr="(model.fc2.out_features, opt.param_groups[0]['lr'])")
        assert _next(ws, "e", ("evaluated",))["value"]["repr"] == "(7, 0.5)"
        _cmd(ws, "e", "step")
        p = _paused(ws, "e")
        assert p["line"] == 11
        _cmd(ws, "e", "eval", expr="self.fc1(x).shape")   # a local of forward, through the program's own module
        assert _next(ws, "e", ("evaluated",))["value"]["repr"] == "torch.Size([5, 4])"
        _cmd(ws, "e", "breakpoints", breakpoints=[])
        _next(ws, "e", ("breakpoints",))
        _cmd(ws, "e", "continue")
        result = _end(ws, "e")
    assert result["type"] == "result" and result["values"]["shape"] == 7


def test_bad_commands_answer_errors_and_leave_the_run_paused(live_server, session):
    with connect(_url(live_server, session)) as ws:
        _start(ws, "x", MODEL, breakpoints=[{"line": 9}, {"line": 17}])
        bad_line = _next(ws, "x", ("error",))
        assert bad_line["paused"] is False and "line 9 has no code" in bad_line["error"]["message"]
        assert bad_line["error"]["line"] == 9
        assert _paused(ws, "x")["line"] == 17
        _cmd(ws, "x", "jump")
        e = _next(ws, "x", ("error",))
        assert e["paused"] is True and "unknown debug command 'jump'" in e["error"]["message"]
        _cmd(ws, "x", "eval", expr="1 / 0")
        ev = _next(ws, "x", ("evaluated",))
        assert ev["error"]["type"] == "ZeroDivisionError"
        _cmd(ws, "x", "eval", expr="undefined + 1")
        assert _next(ws, "x", ("evaluated",))["error"]["type"] == "NameError"
        _cmd(ws, "x", "exec", code="import subprocess")
        assert _next(ws, "x", ("evaluated",))["error"]["type"] == "ImportError"
        _cmd(ws, "x", "eval", expr="open('/etc/passwd')")
        assert _next(ws, "x", ("evaluated",))["error"]["type"] == "NameError"
        _cmd(ws, "x", "breakpoints", breakpoints=[{"line": 2000}])
        e = _next(ws, "x", ("error",))
        assert e["paused"] is True and "line 2000 has no code" in e["error"]["message"] and e["error"]["line"] == 2000
        _cmd(ws, "x", "eval", expr="model.fc1.out_features")   # still paused, still answering
        assert _next(ws, "x", ("evaluated",))["value"]["value"] == 4
        _cmd(ws, "x", "continue")
        assert _end(ws, "x")["type"] == "result"
        _cmd(ws, "x", "step")                   # the run is over
        assert _next(ws, "x", ("error",))["error"]["type"] == "DebugError"


def test_malformed_debug_messages_are_refusals_that_leave_the_run_paused(live_server, session):
    """A debug message without a command, with a command that is not a string, or for a run that is not in
    progress is an error event marked with "paused" (a refusal, which a client does not take for the run's
    end); a limit reached inside an exec answers LimitExceeded and the run, still paused, finishes."""
    with live_server.limits(steps=50_000):
        with connect(_url(live_server, session)) as ws:
            ws.send(json.dumps({"type": "debug", "id": "nosuch", "command": "continue"}))
            e = json.loads(ws.recv(timeout=10))
            assert e["type"] == "error" and e["paused"] is False and "not in progress" in e["error"]["message"]
            _start(ws, "m", "a = 1\nbreakpoint()\nfor i in range(10000):\n    a = a + 1\n", outputs=["a"])
            _paused(ws, "m")
            for bad in ({"type": "debug", "id": "m"}, {"type": "debug", "id": "m", "command": 5}):
                ws.send(json.dumps(bad))
                e = _next(ws, "m", ("error",))
                assert e["error"]["type"] == "ValidationError" and "paused" in e
            _cmd(ws, "m", "exec", code="while True:\n    pass")
            assert _next(ws, "m", ("evaluated",))["error"]["limit"] == "steps"
            _cmd(ws, "m", "eval", expr="a")
            assert _next(ws, "m", ("evaluated",))["value"]["value"] == 1
            _cmd(ws, "m", "continue")
            end = _end(ws, "m")
    assert end["type"] == "result" and end["values"]["a"] == 10001


def test_command_for_a_running_unpaused_run_is_an_error(live_server, session):
    program = "log(running=1)\ni = 0\nwhile i < 1000000:\n    i += 1\nbreakpoint()\ndone = i"
    with connect(_url(live_server, session)) as ws:
        _start(ws, "r", program)
        _next(ws, "r", ("log",))
        _cmd(ws, "r", "step")
        e = _next(ws, "r", ("error",))
        assert e["paused"] is False and "not paused" in e["error"]["message"]
        p = _paused(ws, "r")
        assert p["reason"] == "breakpoint" and p["line"] == 5
        _cmd(ws, "r", "continue")
        assert _end(ws, "r")["type"] == "result"


def test_uncaught_exception_pauses_post_mortem_in_the_failing_frame(live_server, session):
    program = "def f(a):\n    b = a * 2\n    return b[10]\nv = [1, 2]\nr = f(v)\n"
    with connect(_url(live_server, session)) as ws:
        _start(ws, "pm", program)
        p = _paused(ws, "pm")
        assert p["reason"] == "exception" and p["line"] == 3
        assert p["exception"]["type"] == "IndexError"
        assert [f["function"] for f in p["stack"]] == ["<module>", "f"]
        _cmd(ws, "pm", "eval", expr="len(b)")
        assert _next(ws, "pm", ("evaluated",))["value"]["value"] == 4
        _cmd(ws, "pm", "continue")
        end = _end(ws, "pm")
    assert end["type"] == "error" and end["error"]["type"] == "IndexError" and end["error"]["line"] == 3


def test_anomaly_pauses_at_the_forward_op_that_made_nan(live_server, session):
    program = "x = torch.tensor([1.0, -1.0])\ny = x * 2\nz = torch.log(x)\nw = z + 1\n"
    with connect(_url(live_server, session)) as ws:
        _start(ws, "an", program, pause_on=["anomaly"])
        p = _paused(ws, "an")
        assert p["reason"] == "anomaly" and p["line"] == 3
        assert p["node"]["phase"] == "forward" and p["node"]["op"].startswith("Log")
        assert p["node"]["inputs"][0]["min"] == -1.0
        _cmd(ws, "an", "continue")
        assert _end(ws, "an")["type"] == "result"


def test_anomaly_in_backward_shows_the_node_and_its_forward_line(live_server, session):
    program = ("x = torch.tensor([0.0, 4.0], requires_grad=True)\n"
               "y = torch.sqrt(x)\n"
               "loss = y.sum()\n"
               "loss.backward()\n")
    with connect(_url(live_server, session)) as ws:
        _start(ws, "ab", program, pause_on=["anomaly"])
        p = _paused(ws, "ab")
        assert p["reason"] == "anomaly" and p["line"] == 4
        node = p["node"]
        assert node["phase"] == "backward" and node["op"].startswith("Sqrt") and node["line"] == 2
        assert node["nonfinite"] == [0]
        _cmd(ws, "ab", "continue")
        assert _end(ws, "ab")["type"] == "result"


def test_anomaly_pause_of_a_traced_run_names_the_graph_node(live_server, session):
    """In a traced run (a viewer watching) the anomaly's node carries its id in the run's node events, for
    the forward op that made NaN and for the backward node whose gradient was NaN."""
    forward = "x = torch.tensor([1.0, -1.0], requires_grad=True)\ny = x * 2\nz = torch.log(y)\n"
    backward = ("x = torch.tensor([0.0, 4.0], requires_grad=True)\ny = torch.sqrt(x)\n"
                "loss = (y * 3).sum()\nloss.backward()\n")
    with connect(_url(live_server, session)) as ws:
        for run_id, program, op in (("tf", forward, "log"), ("tb", backward, "sqrt")):
            _start(ws, run_id, program, pause_on=["anomaly"], trace=True)
            nodes = {}
            while True:
                event = _next(ws, run_id, ("node", "paused"))
                if event["type"] == "paused":
                    break
                nodes[event["node"]["id"]] = event["node"]
            assert event["reason"] == "anomaly"
            assert nodes[event["node"]["id"]]["op"] == op, (event["node"], nodes)
            _cmd(ws, run_id, "continue")
            assert _end(ws, run_id)["type"] == "result"


def test_breakpoint_call_is_ignored_without_debug(live_server, session):
    r = session.ok("a = 1\nbreakpoint()\nb = a + 1", outputs=["b"])
    assert r["values"]["b"] == 2


def test_disconnected_clients_paused_run_waits_and_a_watcher_resumes_it(live_server, session):
    with connect(_url(live_server, session)) as watcher:
        watcher.send(json.dumps({"type": "watch"}))
        time.sleep(0.2)
        with connect(_url(live_server, session)) as ws:
            _start(ws, "w", MODEL, breakpoints=[{"line": 24}], outputs=["shape"])
            assert _paused(ws, "w")["line"] == 24
        p = _paused(watcher, "w")                   # the watcher saw the pause too
        assert p["line"] == 24
        time.sleep(0.5)                             # the client is gone: the run waits
        _cmd(watcher, "w", "eval", expr="step")
        assert _next(watcher, "w", ("evaluated",))["value"]["value"] == 2
        _cmd(watcher, "w", "continue")
        assert _end(watcher, "w")["type"] == "result"


def test_pause_timeout_cancels_a_paused_run(live_server, session):
    with live_server.setting(pause_timeout_s=0.5):
        with connect(_url(live_server, session)) as ws:
            _start(ws, "t", "a = 1\nbreakpoint()\nb = 2")
            _paused(ws, "t")
            end = _end(ws, "t")
    assert end["type"] in ("cancelled", "error")
    if end["type"] == "error":
        assert "pause_timeout_s" in end["error"]["message"]
    assert session.ok("c = 3", outputs=["c"])["values"]["c"] == 3   # the session is usable again


def test_paused_wall_clock_is_stopped(live_server, session):
    with live_server.limits(wall_time_s=1.0):
        with connect(_url(live_server, session)) as ws:
            _start(ws, "clk", "a = 1\nbreakpoint()\nb = 2", outputs=["b"])
            _paused(ws, "clk")
            time.sleep(1.5)                         # longer than the run's wall time, while paused
            _cmd(ws, "clk", "continue")
            assert _end(ws, "clk")["type"] == "result"


def test_a_paused_run_uses_no_cpu(live_server, session):
    """While paused, the session's process sleeps on its command pipe: no CPU time accrues, in any of its
    threads (the same process burns a second of CPU on the loop before the pause, to show it is the one)."""
    import psutil
    program = "total = 0\nfor i in range(400000):\n    total = total + i\nbreakpoint()\ndone = total"
    pid = live_server.backend.worker_pid(live_server.app.state.sessions.sessions[session.id].placement)
    process = psutil.Process(pid)
    with connect(_url(live_server, session)) as ws:
        before_run = sum(process.cpu_times()[:2])
        _start(ws, "cpu", program, outputs=["done"])
        _paused(ws, "cpu")
        time.sleep(0.2)   # (the pause event is sent before the process blocks on its pipe)
        t0 = sum(process.cpu_times()[:2])
        assert t0 - before_run > 0.05          # the loop ran in this process
        time.sleep(2.0)
        idle = sum(process.cpu_times()[:2]) - t0
        assert idle < 0.05, f"a paused run used {idle:.3f} s of CPU in 2 s"
        _cmd(ws, "cpu", "continue")
        assert _end(ws, "cpu")["values"]["done"] == sum(range(400000))


def test_paused_run_holds_up_no_other_session(live_server, http, session):
    other = open_session(http)
    try:
        with connect(_url(live_server, session)) as ws:
            _start(ws, "n", "a = 1\nbreakpoint()\nb = 2")
            _paused(ws, "n")
            results = []

            def neighbour():
                for i in range(5):
                    t0 = time.monotonic()
                    r = other.ok(f"y = torch.ones(3) * {i}", outputs=["y"])
                    results.append((r["values"]["y"]["data"][0], time.monotonic() - t0))
            t = threading.Thread(target=neighbour)
            t.start()
            t.join(30)
            assert [v for v, _ in results] == [0.0, 1.0, 2.0, 3.0, 4.0]
            assert max(s for _, s in results) < 10
            _cmd(ws, "n", "continue")
            assert _end(ws, "n")["type"] == "result"
    finally:
        other.delete()


def test_cancel_a_paused_run(live_server, session):
    with connect(_url(live_server, session)) as ws:
        _start(ws, "k", "a = 1\nbreakpoint()\nb = 2")
        _paused(ws, "k")
        _cmd(ws, "k", "cancel")
        assert _end(ws, "k")["type"] in ("cancelled", "error")
    assert session.ok("c = 3", outputs=["c"])["values"]["c"] == 3


def test_bad_pause_on_is_refused(live_server, session):
    with connect(_url(live_server, session)) as ws:
        _start(ws, "po", "a = 1", pause_on=["everything"])
        e = json.loads(ws.recv(timeout=10))
        assert e["type"] == "error" and "pause_on" in e["error"]["message"]


def test_sessions_on_shared_workers_refuse_debug_runs_with_an_error_event():
    from server_harness import LiveServer
    import httpx
    server = LiveServer(isolation="shared", workers=1).start()
    try:
        with httpx.Client(base_url=server.url, timeout=60) as http:
            shared = open_session(http)
            with connect(_url(server, shared)) as ws:
                _start(ws, "sh", "a = 1\nbreakpoint()")
                e = json.loads(ws.recv(timeout=10))
                assert e["type"] == "error" and e["run"] == "sh" and e["error"]["type"] == "NotSupported"
                assert "process of its own" in e["error"]["message"]
            assert shared.ok("b = 2", outputs=["b"])["values"]["b"] == 2   # ordinary runs go on
    finally:
        server.stop()


def test_other_backends_refuse_debug_runs_by_default():
    from gradserve.server.backends.base import WorkerBackend
    from gradserve.server.backends.ray_backend import RayBackend
    assert RayBackend.debug_unsupported is WorkerBackend.debug_unsupported
    assert "does not support debugging" in WorkerBackend.debug_unsupported(None, None)
