"""Hostile pass 13 (tests/hostile_attack13_log.md): program-side findings.

F1: ``torch.tensor(a)`` / ``np.array(a)`` of a list that holds itself walked its first elements without
end: the shape it grew filled the session's memory (14-30 s, then session_bytes or wall_time)
before PyTorch's ValueError.
"""
import time

import pytest

from gradserve.engine.program import Limits

LIMITS = Limits(wall_time_s=10.0, session_bytes=256 << 20)


@pytest.mark.parametrize("program", [
    "a = []\na.append(a)\nx = torch.tensor(a)",
    "a = []\na.append(a)\nx = torch.as_tensor(a)",
    "a = []\na.append(a)\nx = torch.ones(1).new_tensor(a)",
    "a = [[]]\na[0].append(a)\nx = torch.tensor(a)",
    "import numpy as np\na = []\na.append(a)\nx = np.array(a)",
    "import numpy as np\na = [1]\nb = [a, a]\na[0] = b\nx = np.array(b)",
    "import numpy as np\na = []\na.append(a)\nx = np.ones(1) + a",
    "a = []\na.append(a)\nx = torch.ones(1) + torch.tensor(a)",
])
def test_a_list_that_holds_itself_is_pytorchs_value_error_at_once(program, run_err):
    t0 = time.monotonic()
    err = run_err(program, limits=LIMITS)
    assert time.monotonic() - t0 < 2.0
    assert err.type == "ValueError", (err.type, err.message)
    assert "too many dimensions 'list'" in err.message


def test_deep_lists_within_numpys_dimensions_still_convert(run_ok, run_err):
    out, ns = run_ok("a = 1.0\nfor i in range(64):\n    a = [a]\nx = torch.tensor(a)", limits=LIMITS)
    assert ns.get("x").dim() == 64
    err = run_err("a = (1.0,)\nfor i in range(70):\n    a = (a,)\nx = torch.tensor(a)", limits=LIMITS)
    assert err.type == "ValueError" and "too many dimensions 'tuple'" in err.message


# F3: a tensor operator with a program's own object ignored the object's reflected method
REFLECTING = """
class A:
    def __radd__(self, other):
        return "radd"
    def __rmatmul__(self, other):
        return "rmatmul"
    def __eq__(self, other):
        return "eq"
class B:
    pass
"""


def test_tensor_operators_defer_to_a_program_objects_reflected_methods(run_ok, run_err):
    out, ns = run_ok(REFLECTING + "r = (torch.ones(2) + A(), torch.ones(2) @ A(), torch.ones(2) == A(), "
                                  "torch.ones(2) == B(), torch.ones(2) != B())", limits=LIMITS)
    assert ns.get("r") == ("radd", "rmatmul", "eq", False, True)
    err = run_err(REFLECTING + "y = torch.ones(2) + B()", limits=LIMITS)
    assert err.type == "TypeError" and err.message == "unsupported operand type(s) for +: 'Tensor' and 'B'"
    err = run_err(REFLECTING + "y = torch.ones(2) @ B()", limits=LIMITS)
    assert err.type == "TypeError" and "'_data'" not in err.message


# F9/F10: a builtin's repr named the interpreter's own classes and methods
# (<bound method Builtins.b_print of <gradserve.engine.program.builtin_functions.Builtins object>>,
# <function b_isinstance>), an engine object's its host module (<gradserve.engine.autograd.grad_mode...>),
# and str.format / format() / % of any object without __format__ printed its host memory address
# (<__main__.A object at 0x7f...>), which id() and repr() keep from programs.
FORMATS = ["str(v)", "repr(v)", "f'{v}'", "f'{v!r}'", "'{}'.format(v)", "'{!r}'.format(v)", "'{x}'.format_map({'x': v})",
           "format(v)", "'%s' % (v,)", "'%r' % (v,)", "'%s' % v if not isinstance(v, tuple) else ''", "str([v])"]


@pytest.mark.parametrize("value", ["print", "isinstance", "getattr", "sorted", "len", "torch.ones",
                                   "A()", "A", "torch.no_grad()", "nn.Linear(1, 1).forward", "lambda: 1"])
def test_no_repr_or_format_shows_a_host_address_or_the_interpreters_names(value, run_ok):
    out, ns = run_ok("class A:\n    pass\nv = " + value + "\ntexts = [" + ", ".join(FORMATS) + "]", limits=LIMITS)
    for text in ns.get("texts"):
        assert " at 0x" not in text and "gradserve" not in text and "Builtins" not in text and "b_" not in text, text


def test_builtins_print_as_pythons(run_ok):
    out, ns = run_ok("t = [repr(print), str(isinstance), f'{getattr}', '{}'.format(sorted), repr(torch.no_grad())]",
                     limits=LIMITS)
    assert ns.get("t") == ["<built-in function print>", "<built-in function isinstance>",
                           "<built-in function getattr>", "<built-in function sorted>",
                           "<torch.autograd.grad_mode.no_grad object>"]
