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
