"""Hostile pass 9 (tests/hostile_attack9_log.md), F4: debugger text nested too deeply for Python's parser.

A program nested too deeply to parse is a SyntaxError; the same text as a debug ``eval`` or ``exec``
answered a bare MemoryError or "RecursionError: maximum recursion depth exceeded during ast
construction", and as a breakpoint condition its MemoryError escaped the ``breakpoints`` command and
ended the paused run as LimitExceeded session_bytes ("out of memory"). Now each is a SyntaxError
(for a condition: the command's DebugError) and the run stays paused.
"""
import pytest

from gradserve.engine.program import Namespace
from test_program_debugger import debug

DEEP = {
    "unary": "-" * 60000 + "1",             # the parser's own stack (MemoryError)
    "sum": "1" + "+1" * 30000,             # the AST's construction (RecursionError)
    "attribute": "x" + ".real" * 12000,
}
PROGRAM = "x = 1\nbreakpoint()\ny = x + 1\n"


@pytest.mark.parametrize("text", DEEP.values(), ids=DEEP.keys())
def test_deep_eval_exec_and_condition_are_syntax_errors_and_the_run_goes_on(text):
    commands = [{"command": "eval", "expr": text}, {"command": "exec", "code": "z = " + text},
                {"command": "breakpoints", "breakpoints": [{"line": 3, "condition": text}]},
                {"command": "eval", "expr": "x + 41"}, {"command": "continue"}]
    ns = Namespace()
    _, script = debug(PROGRAM, commands, ns=ns)
    answers = script.answers
    assert [a["error"]["type"] for a in answers[:2]] == ["SyntaxError", "SyntaxError"], answers
    assert all("nested too deeply" in a["error"]["message"] for a in answers[:2]), answers
    refused = [e for e in script.events if e["type"] == "error" and e.get("paused") is True]
    assert len(refused) == 1 and "nested too deeply" in refused[0]["error"]["message"], script.events
    assert answers[2]["value"]["value"] == 42, answers   # still paused, still answering
    assert ns.get("y") == 2   # and the run went on to its end


# F5: an expand whose element count passes 2**63 -------------------------------------------------
@pytest.mark.parametrize("program", [
    "x = torch.ones(3).expand(2**62, 3)",
    "x = torch.ones(1, 1).expand(2**40, 2**40)",
    "x = torch.ones(1).expand(2**63)",
    "x = torch.ones(3, 1).expand(3, 2**62)",
    "x = torch.broadcast_to(torch.ones(1, 1), (2**40, 2**40))",
    "x = torch.ones(1, 1).broadcast_to((2**40, 2**40))",
    "x = torch.expand(torch.ones(1), 2**63)",
])
def test_an_expand_past_int64_elements_is_the_tensor_elements_limit(program, run_err):
    """NumPy's broadcast_to raised ValueError 'iterator is too large' / 'Maximum allowed dimension
    exceeded' before the engine counted the elements."""
    error = run_err(program)
    assert error.type == "LimitExceeded" and error.limit == "tensor_elements", (error.type, error.message)
    assert error.line == 1


def test_ordinary_expands_still_work(run_ok):
    ns = Namespace()
    run_ok("a = torch.ones(3, 1).expand(-1, 4)\nb = torch.ones(2).expand(5, -1)\n"
           "c = torch.broadcast_to(torch.ones(1), (2, 3))\nd = torch.ones(1).expand(torch.Size([2, 2]))\n"
           "e = torch.ones(1).expand(size=(3,))\nf = torch.ones(2, 1).expand(2, 3).expand(4, 2, 3)", ns)
    assert [tuple(ns.get(k).shape) for k in "abcdef"] == [(3, 4), (5, 2), (2, 3), (2, 2), (3,), (4, 2, 3)]
