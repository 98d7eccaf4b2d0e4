"""Hostile pass 17 (tests/hostile_attack17_log.md): interpreter findings.

F2: the debugger's ``exec`` in a function's frame ignored a ``global`` declaration: ``global zz; zz = 3``
bound a local ``zz`` of the paused function, which was gone when it returned (pdb's ``!global zz; zz = 3``
binds the module's). The names the exec'd text declares global now resolve to the module's.
"""
from gradserve.engine.program import Namespace

from test_program_debugger import debug

SRC = "zz = 0\ndef f(a):\n    b = a + 1\n    return b\nr = f(1)\n"


def test_exec_of_a_global_declaration_in_a_function_frame_binds_the_module_name():
    ns = Namespace()
    outcome, s = debug(SRC, [{"command": "exec", "code": "global zz\nzz = b * 7\nb = 40"}],
                       ns=ns, breakpoints=[{"line": 4}])
    assert outcome.ok, outcome.error
    assert ns.get("zz") == 14 and ns.get("r") == 40   # the module's zz; b stays the frame's local
    assert "zz" not in s.answers[0]["locals"]


def test_a_global_declared_in_a_function_the_exec_defines_stays_that_functions():
    ns = Namespace()
    code = "def g():\n    global zz\n    zz = 5\nzz = 9\ng()"   # the top-level zz = 9 is the frame's local
    outcome, s = debug(SRC, [{"command": "exec", "code": code}, {"command": "eval", "expr": "zz"}],
                       ns=ns, breakpoints=[{"line": 4}])
    assert outcome.ok, outcome.error
    assert ns.get("zz") == 5 and s.answers[1]["value"]["value"] == 9


def test_eval_of_a_value_nested_too_deeply_to_describe_is_the_call_depth_limit():
    """F3: an eval whose value's repr nests past the recursion limit answered a host RecursionError
    ("maximum recursion depth exceeded while getting the repr of an object"); a program's repr() of the
    same value is the call_depth limit, and so is the eval now. The run goes on."""
    src = "a = []\nfor i in range(20000):\n    a = [a]\nb = 2\n"
    outcome, s = debug(src, [{"command": "eval", "expr": "a"}, {"command": "eval", "expr": "i"}],
                       breakpoints=[{"line": 4}])
    assert outcome.ok, outcome.error
    error = s.answers[0]["error"]
    assert (error["type"], error["limit"]) == ("LimitExceeded", "call_depth"), error
    assert s.answers[1]["value"]["value"] == 19999   # the run is still paused and answers
