"""Every failure becomes a ProgramError pointing into the program: the class
Python or PyTorch would raise, the innermost program frame's line and column,
and a traceback of program frames only."""
import pytest

from gradserve.engine.program import Limits, Namespace, ProgramError, run


def frames(error):
    return [(f["line"], f["function"]) for f in error.traceback]


def test_syntax_error_has_line_and_column(run_err):
    e = run_err("x = 1\ny = (2 +\n")
    assert e.type == "SyntaxError" and e.line == 2 and e.col is not None


def test_indentation_error_keeps_its_name(run_err):
    e = run_err("if True:\nx = 1\n")
    assert e.type == "IndentationError" and e.line == 2


def test_name_error_points_at_the_name(run_err):
    e = run_err("x = 1\ny = x + undefined_thing\n")
    assert (e.type, e.line, e.col) == ("NameError", 2, 9)
    assert "undefined_thing" in e.message


def test_error_inside_functions_reports_program_frames_only():
    out = run("def inner(v):\n    return v[10]\n\ndef outer(v):\n    return inner(v) * 2\n\nouter([1, 2])\n",
              Namespace())
    e = out.error
    assert (e.type, e.line, e.col) == ("IndexError", 2, 12)
    assert frames(e) == [(7, "<module>"), (5, "outer"), (2, "inner")]
    assert all(set(f) == {"line", "col", "function"} for f in e.traceback)
    assert "gradserve" not in str(e.to_dict())


def test_shape_mismatch_is_a_runtime_error_at_the_operator(run_err):
    e = run_err("a = torch.ones(3)\nb = torch.ones(4)\nc = a +  b\n")
    assert (e.type, e.line, e.col) == ("RuntimeError", 3, 5)
    assert "must match the size" in e.message


def test_error_in_forward_reports_the_method_and_the_call_site(run_err):
    e = run_err("""
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)

        def forward(self, x):
            return self.fc(x)

    net = Net()
    y = net(torch.ones(4))
    """)
    assert e.type == "RuntimeError"
    assert frames(e) == [(11, "<module>"), (8, "forward")]


def test_error_during_backward_points_at_the_backward_call(run_err):
    e = run_err("""
    x = torch.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()
    """)
    assert (e.type, e.line) == ("RuntimeError", 5)
    assert "second time" in e.message


def test_anomaly_mode_names_the_forward_line(run_err):
    e = run_err("""
    with torch.autograd.detect_anomaly():
        x = torch.tensor([1.0, 0.0], requires_grad=True)
        y = (x / 0 * 0).sum()
        y.backward()
    """)
    assert (e.type, e.line) == ("RuntimeError", 5)
    assert "line 4" in e.message
    assert "File " not in e.message  # no host stack in the message


def test_error_raised_in_a_hook_during_backward(run_err):
    e = run_err("""
    def hook(g):
        raise ValueError("bad grad")

    x = torch.ones(2, requires_grad=True)
    x.register_hook(hook)
    (x * 2).sum().backward()
    """)
    assert e.type == "ValueError" and e.message == "bad grad"
    assert frames(e) == [(7, "<module>"), (3, "hook")]


def test_program_catches_engine_errors_by_pytorch_class(run_ok):
    out, _ = run_ok("""
    try:
        torch.ones(2, 3) @ torch.ones(2, 3)
    except RuntimeError as e:
        print("RuntimeError", "shapes" in str(e))
    try:
        torch.ones(3)[5]
    except IndexError as e:
        print("IndexError", len(e.args))
    try:
        torch.ones(3).view(-1, -1)
    except (RuntimeError, ValueError) as e:
        print("caught")
    """)
    assert out.stdout == "RuntimeError True\nIndexError 1\ncaught\n"


def test_exception_objects_expose_only_args(run_err, run_ok):
    out, _ = run_ok("""
    try:
        1 / 0
    except ZeroDivisionError as e:
        print(e.args, str(e), repr(e))
    """)
    assert out.stdout == "('division by zero',) division by zero ZeroDivisionError('division by zero')\n"
    for attr in ("with_traceback", "__traceback__", "__class__.__bases__", "add_note", "__context__"):
        e = run_err(f"try:\n    1 / 0\nexcept Exception as e:\n    x = e.{attr}\n")
        assert e.type == "AttributeError"


@pytest.mark.parametrize("raised", ["KeyboardInterrupt", "BaseException", "GeneratorExit", "SystemExit(3)",
                                    "SystemExit('why')"])
def test_base_exceptions_stay_inside_the_program(run_err, raised):
    e = run_err(f"raise {raised}\n")
    assert e.type == raised.split("(")[0] and e.line == 1


@pytest.mark.parametrize("exit_", ["sys.exit()", "sys.exit(0)", "exit()", "quit(0)", "raise SystemExit",
                                   "raise SystemExit(None)", "sys.exit(False)"])
def test_a_clean_exit_ends_the_program_as_a_script_ends(run_ok, exit_):
    """sys.exit() / exit() / quit() with no status or 0, uncaught: the run ends there and succeeds with
    what it bound (a script exits quietly); the statements after it do not run."""
    out, ns = run_ok(f"import sys\nx = 1\nprint('before')\n{exit_}\ny = 2\n")
    assert out.stdout == "before\n"
    assert ns.globals["x"] == 1 and "y" not in ns.globals


@pytest.mark.parametrize("exit_, code", [("sys.exit(2)", "2"), ("exit('bad input')", "bad input"), ("quit(1)", "1")])
def test_an_exit_with_a_status_is_the_runs_error(run_err, exit_, code):
    e = run_err(f"import sys\n{exit_}\n")
    assert e.type == "SystemExit" and e.message == code and e.line == 2


def test_system_exit_code_is_readable_where_caught(run_ok):
    out, _ = run_ok("import sys\nfor s in [(), (3,), ('x',), (1, 2)]:\n    try:\n        raise SystemExit(*s)\n"
                    "    except SystemExit as e:\n        print(e.code)\n")
    assert out.stdout == "None\n3\nx\n(1, 2)\n"


def test_except_exception_does_not_catch_base_exceptions(run_err):
    e = run_err("try:\n    raise KeyboardInterrupt\nexcept Exception:\n    pass\n")
    assert e.type == "KeyboardInterrupt"


def test_raising_a_non_exception_is_a_type_error(run_err):
    assert run_err("raise 3\n").type == "TypeError"
    assert run_err("try:\n    pass\nexcept 3:\n    pass\nraise ValueError\n").type == "ValueError"


def test_user_exception_class_is_reported_by_its_name(run_err):
    e = run_err("class Oops(RuntimeError):\n    pass\n\nraise Oops('it broke')\n")
    assert (e.type, e.message, e.line) == ("Oops", "it broke", 4)


def test_unsupported_syntax_is_refused_before_running(run_err):
    ns = Namespace()
    out = run("x = 1\ndef gen():\n    return [(yield i) for i in range(3)]\n", ns)
    assert out.error.type == "SyntaxError" and out.error.line == 3
    assert "x" not in ns.names()   # nothing ran
    for source in ("async def f():\n    pass\n", "match x:\n    case 1:\n        pass\n",
                   "return 1\n", "break\n", "class A(flag=True):\n    pass\n", "lambda: (yield)\n",
                   "yield 1\n", "class C:\n    yield 1\n"):
        assert run_err(source).type == "SyntaxError", source


@pytest.mark.parametrize("source", [
    "import shelve", "import socket", "import pandas as pd", "import builtins", "import importlib",
    "from os import system", "from os import listdir", "from sys import modules", "from sys import _getframe",
    "import os.nosuch", "import pathlib", "from torch import _C", "from torch.nn import NoSuchLayer", "import torch.onnx",
    "import numpy.ctypeslib", "from numpy import ctypeslib", "import subprocess", "import ctypes",
])
def test_imports_other_than_the_allowed_ones_are_errors(run_err, source):
    e = run_err(source + "\n")
    assert e.type == "ImportError" and e.line == 1


def test_allowed_imports_bind_the_engine_views(run_ok):
    _, ns = run_ok("""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import torch.optim as optim
    from torch import nn, optim
    from torch.nn import functional as F
    import math
    """)
    assert set(ns.names()) == {"torch", "nn", "F", "optim", "math"}


def test_values_bound_before_a_failing_statement_persist():
    ns = Namespace()
    out = run("a = 1\nb = torch.ones(2)\nc = a / 0\nd = 4\n", ns)
    assert out.error.type == "ZeroDivisionError"
    assert out.bound == ["a", "b"] and ns.get("a") == 1 and "d" not in ns.names()
    out = run("d = a + 1\n", ns)
    assert out.ok and ns.get("d") == 2


def test_outcome_records_bound_names_in_order_and_logs(run_ok):
    out, _ = run_ok("""
    b = 1
    a = 2
    b = 3
    def f():
        global g
        g = 5
    f()
    for i in range(2):
        log(step=i, loss=torch.tensor(0.5) * i, name="x")
    """)
    assert out.bound == ["b", "a", "f", "g", "i"]
    assert out.logs == [{"step": 0, "loss": 0.0, "name": "x"}, {"step": 1, "loss": 0.5, "name": "x"}]
    assert out.elapsed_s > 0


def test_log_rejects_values_that_are_not_metrics(run_err):
    assert run_err("log(x=torch.ones(3))\n").type == "ValueError"
    assert run_err("log(x=[1, 2])\n").type == "TypeError"
    assert run_err("log(1, 2)\n").type == "TypeError"


def test_stdout_and_logs_stream_to_callbacks():
    chunks, logs = [], []
    out = run("print('a')\nlog(step=1)\nprint('b', end='')\n", Namespace(), on_stdout=chunks.append,
              on_log=logs.append)
    assert out.ok and chunks == ["a\n", "b"] and logs == [{"step": 1}] and out.stdout == "a\nb"


def test_failing_callbacks_do_not_fail_the_program():
    def broken(_):
        raise OSError("client went away")
    out = run("print('x')\nlog(a=1)\n", Namespace(), on_stdout=broken, on_log=broken)
    assert out.ok


def test_error_to_dict_shape():
    e = run("x = 1 / 0\n", Namespace()).error
    assert isinstance(e, ProgramError)
    assert e.to_dict() == {"type": "ZeroDivisionError", "message": "division by zero", "line": 1, "col": 5,
                           "traceback": [{"line": 1, "col": 5, "function": "<module>"}]}
    limited = run("while True:\n    pass\n", Namespace(), Limits(steps=1000)).error
    assert limited.to_dict()["limit"] == "steps"


def test_deep_recursion_traceback_is_trimmed(run_err):
    e = run_err("def r(n):\n    return r(n + 1)\n\nr(0)\n")
    assert (e.type, e.limit) == ("LimitExceeded", "call_depth")
    assert len(e.traceback) == 50
    assert e.traceback[0]["function"] == "<module>" and e.traceback[-1]["function"] == "r"


def test_str_of_error_in_user_str_method_does_not_break_reporting(run_err):
    e = run_err("""
    class Bad(Exception):
        def __str__(self):
            return 1 / 0
    raise Bad("x")
    """)
    assert e.type == "Bad"


def test_slow_last_statement_past_the_deadline_is_a_located_wall_time_error():
    """A single operator that outlasts the deadline (one BLAS call, no steps in between) still fails."""
    from gradserve.engine.limits import Limits
    from gradserve.engine.program import Namespace, run
    ns = Namespace()
    assert run("a = torch.ones(2000, 2000)", ns).ok
    outcome = run("x = 1\nb = a @ a @ a @ a", ns, Limits(wall_time_s=0.001))
    assert not outcome.ok
    assert outcome.error.type == "LimitExceeded" and outcome.error.limit == "wall_time"
    # after the statement (its check), or inside its expression where the ticker interrupted the host
    # code between two products (runtime.Runtime.interrupt), depending on how long they take
    assert (outcome.error.line, outcome.error.col) in ((2, 1), (2, 5))
