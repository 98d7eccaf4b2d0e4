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
