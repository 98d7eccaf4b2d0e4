"""The debugger in the interpreter (SPEC section 4): where runs pause, what stepping visits, eval
and exec in the paused frame, and that runs without a debugger are unchanged."""
import queue

import pytest

from gradserve.engine.program import Namespace, run
from gradserve.engine.program.debugger import Debugger


class Script:
    """Drives a debug run: answers each pause with the next command and records the events."""

    def __init__(self, commands):
        self.commands = list(commands)
        self.events = []
        self.queue = queue.Queue()

    def emit(self, event):
        self.events.append(event)
        if event["type"] in ("paused", "evaluated", "breakpoints") or event.get("paused") is True:
            self.queue.put(self.commands.pop(0) if self.commands else {"command": "continue"})

    def wait(self, timeout_s):
        try:
            return self.queue.get(timeout=timeout_s)
        except queue.Empty:
            return None

    @property
    def pauses(self):
        return [e for e in self.events if e["type"] == "paused"]

    @property
    def answers(self):
        return [e for e in self.events if e["type"] == "evaluated"]


def debug(source, commands=(), ns=None, **options):
    script = Script(commands)
    ns = ns or Namespace()
    outcome = run(source, ns, debugger=Debugger(script.wait, script.emit, **options))
    return outcome, script


def lines(script):
    return [(p["line"], p["stack"][-1]["function"]) for p in script.pauses]


STEPS = """\
def f(a):
    b = a * 2
    return b + 1
total = 0
for i in range(2):
    total += f(i)
squares = [f(v) for v in [1, 2]]
done = total
"""


def test_step_visits_every_line_into_calls_and_back_out():
    _, s = debug(STEPS, [{"command": "step"}] * 40, breakpoints=[{"line": 4}])
    assert lines(s) == [(4, "<module>"), (5, "<module>"), (6, "<module>"), (2, "f"), (3, "f"), (5, "<module>"),
                        (6, "<module>"), (2, "f"), (3, "f"), (7, "<module>"), (2, "f"), (3, "f"),
                        (2, "f"), (3, "f"), (8, "<module>")]


def test_next_stays_in_the_frame_and_revisits_the_loop_head():
    _, s = debug(STEPS, [{"command": "next"}] * 40, breakpoints=[{"line": 4}])
    # the loop's head before each iteration (Python also stops there once more as the loop ends)
    assert [line for line, _ in lines(s)] == [4, 5, 6, 5, 6, 7, 8]


def test_out_returns_to_the_caller_next_line():
    _, s = debug(STEPS, [{"command": "out"}, {"command": "breakpoints", "breakpoints": []}], breakpoints=[{"line": 2}])
    assert lines(s)[:2] == [(2, "f"), (5, "<module>")]


def test_next_from_a_return_lands_in_the_caller():
    _, s = debug(STEPS, [{"command": "next"}, {"command": "next"},
                         {"command": "breakpoints", "breakpoints": []}], breakpoints=[{"line": 2}])
    assert lines(s)[:3] == [(2, "f"), (3, "f"), (5, "<module>")]


def test_next_from_a_return_in_a_comprehension_goes_to_the_callers_next_line():
    """A comprehension calls f twice: `next` from the first call's return stops in the caller (as pdb does),
    not in the second call, a sibling frame at the same depth."""
    _, s = debug(STEPS, [{"command": "step"}, {"command": "next"}, {"command": "next"}], breakpoints=[{"line": 7}])
    assert lines(s) == [(7, "<module>"), (2, "f"), (3, "f"), (8, "<module>")]


def test_step_into_a_method_that_calls_another_then_out_twice():
    src = ("class Net(nn.Module):\n"
           "    def helper(self, h):\n"
           "        g = h * 2\n"
           "        return g\n"
           "    def forward(self, x):\n"
           "        h = x + 1\n"
           "        h = self.helper(h)\n"
           "        return h.sum()\n"
           "model = Net()\n"
           "b = model(torch.ones(2))\n"
           "c = b + 1\n")
    _, s = debug(src, [{"command": c} for c in ("step", "next", "step", "out", "out")], breakpoints=[{"line": 10}])
    assert lines(s) == [(10, "<module>"), (6, "forward"), (7, "forward"), (3, "helper"), (8, "forward"), (11, "<module>")]
    assert [f["function"] for f in s.pauses[3]["stack"]] == ["<module>", "forward", "helper"]


def test_stepping_into_a_class_body_keeps_the_module_frame_under_it():
    src = "class Net(nn.Module):\n    scale = 2\n    def forward(self, x):\n        return x\nnet = Net()\n"
    _, s = debug(src, [{"command": "step"}] * 4, breakpoints=[{"line": 1}])
    assert lines(s) == [(1, "<module>"), (2, "Net"), (3, "Net"), (5, "<module>")]
    assert s.pauses[1]["stack"] == [{"function": "<module>", "line": 1, "col": 1},
                                    {"function": "Net", "line": 2, "col": 5}]


def test_stack_lists_caller_lines_outermost_first():
    src = "def g(x):\n    return x + 1\ndef f(x):\n    return g(x) * 2\ny = f(3)\n"
    _, s = debug(src, breakpoints=[{"line": 2}])
    assert s.pauses[0]["stack"] == [{"function": "<module>", "line": 5, "col": 1},
                                    {"function": "f", "line": 4, "col": 5},
                                    {"function": "g", "line": 2, "col": 5}]
    assert s.pauses[0]["locals"] == {"x": "3"}


def test_conditional_breakpoint_sees_the_frame_locals():
    src = "def f(a):\n    return a * 2\nout = [f(i) for i in range(5)]\n"
    _, s = debug(src, breakpoints=[{"line": 2, "condition": "a == 3"}])
    assert [p["locals"]["a"] for p in s.pauses] == ["3"]


def test_a_condition_that_calls_the_breakpoints_own_function_does_not_reenter_the_debugger():
    # hostile pass 13 F2: the condition's call of g reached the breakpoint in g, whose condition
    # called g again, ... until call_depth ended the run at "line 1"; and a breakpoint() in a condition
    # paused the run a second time (pdb stops nowhere while it evaluates a condition)
    src = "def g(n):\n    return n + 1\nfor i in range(3):\n    y = g(i)\ndone = y\n"
    out, s = debug(src, breakpoints=[{"line": 2, "condition": "g(n) > 2"}])
    assert out.ok, out.error.to_dict()
    assert [p["locals"]["n"] for p in s.pauses] == ["2"]
    assert not any("condition_error" in p for p in s.pauses)
    out, s = debug(src, breakpoints=[{"line": 4, "condition": "breakpoint() is None and i == 1"}])
    assert out.ok and [(p["reason"], p["locals"]["i"]) for p in s.pauses] == [("breakpoint", "1")]
    out, s = debug("x = torch.zeros(1)\nfor i in range(2):\n    y = x + i\n", pause_on=["anomaly"],
                   breakpoints=[{"line": 3, "condition": "(torch.log(x) * 0).sum() is None"}])
    assert out.ok and s.pauses == []   # the condition's NaN is not the program's anomaly
    out, s = debug(src, breakpoints=[{"line": 2, "condition": "g(n) > 100"}])
    assert out.ok and s.pauses == []


def test_breakpoint_call_pauses_only_debug_runs():
    ns = Namespace()
    assert run("a = 1\nbreakpoint()\nb = 2", ns).ok
    _, s = debug("a = 1\nbreakpoint()\nb = 2")
    assert [(p["reason"], p["line"]) for p in s.pauses] == [("breakpoint", 2)]


def test_exec_changes_persist_in_function_and_module_frames():
    src = "def f(a):\n    b = a + 1\n    return b * 10\nr = f(1)\nfinal = r\n"
    ns = Namespace()
    outcome, s = debug(src, [{"command": "exec", "code": "b = 100"}, {"command": "continue"},
                             {"command": "exec", "code": "r = r + 5"}],
                       ns=ns, breakpoints=[{"line": 3}, {"line": 5}])
    assert outcome.ok and ns.get("final") == 1005


def test_eval_sees_closures_and_comprehensions_over_locals():
    src = "def outer(k):\n    def inner(a):\n        return a + k\n    return inner(1)\nv = outer(10)\n"
    _, s = debug(src, [{"command": "eval", "expr": "[a + k + j for j in range(2)]"}], breakpoints=[{"line": 3}])
    assert s.answers[0]["value"]["repr"] == "[11, 12]"


def test_eval_error_leaves_the_run_paused_and_the_run_finishes():
    outcome, s = debug("x = 1\ny = 2\n", [{"command": "eval", "expr": "x / 0"}, {"command": "eval", "expr": "x + 1"}],
                       breakpoints=[{"line": 2}])
    assert s.answers[0]["error"]["type"] == "ZeroDivisionError"
    assert s.answers[1]["value"]["value"] == 2
    assert outcome.ok


def test_eval_cannot_reach_host_internals():
    _, s = debug("x = 1\ny = 2\n", [{"command": "eval", "expr": "x.__class__.__subclasses__()"},
                                    {"command": "exec", "code": "import subprocess"},
                                    {"command": "eval", "expr": "eval('1')"}], breakpoints=[{"line": 2}])
    assert [a["error"]["type"] for a in s.answers] == ["AttributeError", "ImportError", "NameError"]


def test_eval_is_held_to_the_step_limit_and_the_run_goes_on():
    """An eval past the step limit answers LimitExceeded; the run stays paused with its own budget intact
    (the next eval answers, and the run finishes once continued)."""
    from gradserve.engine.limits import Limits
    script = Script([{"command": "eval", "expr": "sum(i for i in range(10**7))"},
                     {"command": "exec", "code": "z = sum(i for i in range(100))"}])
    ns = Namespace()
    outcome = run("x = 1\ny = 2\nfor i in range(3000):\n    x = x + 1\n", ns, Limits(steps=10_000),
                  debugger=Debugger(script.wait, script.emit, breakpoints=[{"line": 2}]))
    assert script.answers[0]["error"]["type"] == "LimitExceeded" and script.answers[0]["error"]["limit"] == "steps"
    assert "error" not in script.answers[1]
    assert outcome.ok and ns.get("x") == 3001 and ns.get("z") == 4950


def test_exec_is_held_to_the_wall_time_limit_and_the_run_goes_on():
    from gradserve.engine.limits import Limits
    script = Script([{"command": "exec", "code": "while True:\n    pass"}, {"command": "eval", "expr": "x"}])
    outcome = run("x = 1\ny = 2\n", Namespace(), Limits(wall_time_s=0.3),
                  debugger=Debugger(script.wait, script.emit, breakpoints=[{"line": 2}]))
    assert script.answers[0]["error"]["limit"] == "wall_time"
    assert script.answers[1]["value"]["value"] == 1
    assert outcome.ok


def test_post_mortem_pauses_in_the_raising_frame_then_reports_the_error():
    src = "def f(a):\n    b = a * 2\n    return b[10]\nr = f([1])\n"
    outcome, s = debug(src, [{"command": "eval", "expr": "b"}])
    assert [(p["reason"], p["line"]) for p in s.pauses] == [("exception", 3)]
    assert s.answers[0]["value"]["repr"] == "[1, 1]"
    assert outcome.error.type == "IndexError" and outcome.error.line == 3


def test_caught_exception_does_not_pause():
    src = "try:\n    x = [][1]\nexcept IndexError:\n    x = 0\ny = x\n"
    outcome, s = debug(src)
    assert outcome.ok and s.pauses == []


def test_post_mortem_off_when_pause_on_omits_exception():
    outcome, s = debug("x = 1 / 0\n", pause_on=[])
    assert s.pauses == [] and outcome.error.type == "ZeroDivisionError"


def test_anomaly_pause_in_backward_names_the_node_and_its_forward_line():
    src = "x = torch.tensor([0.0, 1.0], requires_grad=True)\ny = x.sqrt()\ny.sum().backward()\n"
    _, s = debug(src, pause_on=["anomaly"])
    (p,) = s.pauses
    assert p["reason"] == "anomaly" and p["line"] == 3
    assert p["node"]["phase"] == "backward" and p["node"]["line"] == 2


def test_bad_breakpoint_line_is_reported_and_skipped():
    outcome, s = debug("x = 1\n\ny = 2\n", breakpoints=[{"line": 2}, {"line": 3}])
    errors = [e for e in s.events if e["type"] == "error"]
    assert "line 2 has no code" in errors[0]["error"]["message"]
    assert [p["line"] for p in s.pauses] == [3]


@pytest.mark.parametrize("condition", [5, "x" * ((64 << 10) + 1)])
def test_a_condition_that_is_not_a_string_or_too_long_says_which(condition):
    """A 1 MB condition string was refused as "must be a string" (attack5)."""
    outcome, s = debug("x = 1\ny = 2\n", breakpoints=[{"line": 2, "condition": condition}, {"line": 1}])
    errors = [e for e in s.events if e["type"] == "error"]
    assert "must be a string of at most 65536 characters" in errors[0]["error"]["message"]
    assert [p["line"] for p in s.pauses] == [1] and outcome.ok


def test_pause_timeout_cancels_the_run():
    script = Script([])
    script.emit = lambda event: script.events.append(event)   # nobody answers
    outcome = run("breakpoint()\nx = 1\n", Namespace(),
                  debugger=Debugger(script.wait, script.emit, pause_timeout_s=0.2))
    assert outcome.error.type == "Cancelled" and "pause_timeout_s" in outcome.error.message


def test_paused_time_does_not_count_toward_wall_time():
    import time
    from gradserve.engine.limits import Limits
    script = Script([])

    def slow_emit(event):
        script.events.append(event)
        if event["type"] == "paused":
            time.sleep(0.6)
            script.queue.put({"command": "continue"})
    outcome = run("breakpoint()\nx = 1\n", Namespace(), Limits(wall_time_s=0.5),
                  debugger=Debugger(script.wait, slow_emit))
    assert outcome.ok


@pytest.mark.parametrize("pause_on", [["everything"], ["exception", "x"]])
def test_unknown_pause_on_is_refused(pause_on):
    from gradserve.engine.program.debugger import DebugError
    with pytest.raises(DebugError):
        Debugger(lambda t: None, lambda e: None, pause_on=pause_on)


def test_eval_adds_no_node_to_the_runs_graph_and_exec_nodes_take_the_paused_line():
    """Newcomer 2, V3: an eval of ``w.norm()`` in a paused traced run became a node of the run's graph at
    ``line 1`` (the eval text's own line 1, the program's ``import``), and the viewer's diff listed it as
    added. An eval only inspects: its ops are not reported. An exec changes the run: its ops are reported
    at the paused line, and so is a tensor it made when the program uses it later."""
    from gradserve.engine.graph import GraphObserver
    src = "import torch\nw = torch.ones(3, requires_grad=True)\nx = w * 2\ny = (x * 3).sum()\ny.backward()\n"
    events = []
    observer = GraphObserver(events.append)
    script = Script([{"command": "eval", "expr": "(w * 5).norm()"},
                     {"command": "exec", "code": "x = w.exp()\nz = x + 1"}, {"command": "continue"}])
    outcome = run(src, Namespace(), observer=observer,
                  debugger=Debugger(script.wait, script.emit, breakpoints=[{"line": 4}]))
    assert outcome.ok, outcome.error
    assert script.answers[0]["value"]["max"] == pytest.approx(5 * 3 ** 0.5)
    ops = [(e["node"]["op"], e["node"]["line"]) for e in events if e["type"] == "node" and e["node"]["kind"] == "op"]
    assert ops == [("mul", 3), ("exp", 4), ("add", 4), ("mul", 4), ("sum", 4)], ops
    assert not any(op in ("norm", "linalg_vector_norm") for op, _ in ops)
    assert {e["node"] for e in events if e["type"] == "backward"} >= {
        e["node"]["id"] for e in events if e["type"] == "node" and e["node"]["op"] in ("exp", "sum")}


def test_an_eval_in_an_untraced_run_leaves_the_program_line_as_it_was():
    script = Script([{"command": "eval", "expr": "(w * 2).sum()"}, {"command": "continue"}])
    outcome = run("import torch\nw = torch.ones(2, requires_grad=True)\ny = (w * 3).sum()\n", Namespace(),
                  debugger=Debugger(script.wait, script.emit, breakpoints=[{"line": 3}]))
    assert outcome.ok and script.answers[0]["value"]["max"] == 4.0
    from gradserve.engine.autograd.state import state
    assert state.observer is None
