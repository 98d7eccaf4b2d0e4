"""Hostile pass 15 (tests/hostile_attack15_log.md): program-side findings.

F3: a ``return``, ``break`` or ``continue`` in a ``finally`` ended a limit's abort there, as it ends an
exception in Python: ``def f(): try: x = [0] * 10**9 finally: return 1`` answered 200 with the limit
gone, and so did call_depth, string_length, integer_size, tensor_elements and the others raised at the
operation (only the step, time and memory limits, re-raised at every statement, came back). An abort
now goes on through such a ``finally``, as it goes through ``except BaseException``; exceptions keep
Python's semantics.
"""
import pytest

from gradserve.engine.program import Limits

LIMITS = Limits(wall_time_s=10.0, steps=2_000_000, sequence_length=1_000_000, string_length=1_000_000,
                tensor_elements=1 << 20, call_depth=50)


@pytest.mark.parametrize("statement, limit", [
    ("x = [0] * 10**9", "sequence_length"),
    ("x = 'a' * 10**9", "string_length"),
    ("x = 2 ** (2 ** 30)", "integer_size"),
    ("x = torch.zeros(2**30)", "tensor_elements"),
    ("x = g()", "call_depth"),
])
@pytest.mark.parametrize("escape", [
    "def f():\n    try:\n        {s}\n    finally:\n        return 1\nprint(f())",
    "for i in range(3):\n    try:\n        {s}\n    finally:\n        break\nprint('after')",
    "for i in range(3):\n    try:\n        {s}\n    finally:\n        continue\nprint('after')",
    "def f():\n    try:\n        try:\n            {s}\n        except BaseException:\n            return 2\n"
    "    finally:\n        return 1\nprint(f())",
    "def f():\n    try:\n        {s}\n        yield 1\n    finally:\n        return\nprint(list(f()))",
])
def test_a_finally_that_returns_does_not_end_a_limit(statement, limit, escape, run_err):
    program = "def g():\n    return g()\n" + escape.format(s=statement)
    err = run_err(program, limits=LIMITS)
    assert err.type == "LimitExceeded" and err.limit == limit, (err.type, err.message)


def test_return_break_and_continue_in_finally_still_end_an_exception(run_ok):
    out, ns = run_ok("def f():\n    try:\n        1 / 0\n    finally:\n        return 1\n"
                     "n = 0\nfor i in range(3):\n    try:\n        raise KeyError(i)\n    finally:\n        n += 1\n"
                     "        continue\n"
                     "for i in range(3):\n    try:\n        [][1]\n    finally:\n        break\n"
                     "r = f()")
    assert ns.get("r") == 1 and ns.get("n") == 3 and ns.get("i") == 0
    out, ns = run_ok("def gen():\n    try:\n        yield 1\n        1 / 0\n    finally:\n        return\nr = list(gen())")
    assert ns.get("r") == [1]
