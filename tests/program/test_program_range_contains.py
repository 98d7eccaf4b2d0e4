"""Hostile pass 6, F2: ``x in range(...)``, ``range.count`` and ``range.index`` for an x that is not an int
(a float, a tensor, a list) made CPython compare x with every item of the range in C, and ``x in l``
for a long list of tensors called the host's == once per item, with no step counted and no limit
able to interrupt either: ``1.5 in range(10**12)`` ran until the server killed the worker at the
deadline (the session's state lost; in a shared GPU worker, every session on it). Numbers are now
answered at once and anything else is compared a step at a time, with Python's answers."""
import math

import pytest

from gradserve.engine.program import Limits

VALUES = ["3", "4", "3.0", "3.5", "-0.0", "float('nan')", "float('inf')", "3+0j", "3+1j", "True", "False", "None",
          "[3]", "'3'", "(3,)", "10**20", "30.0", "27.0"]
RANGES = ["range(0, 30, 3)", "range(30, 0, -3)", "range(0)", "range(-5, 5)"]


def _python(expr):
    try:
        return ("ok", eval(expr, {"math": math}))
    except ValueError as e:
        return ("ValueError", str(e))


@pytest.mark.parametrize("r", RANGES)
@pytest.mark.parametrize("v", VALUES)
def test_range_membership_count_and_index_answer_as_python(run_ok, r, v):
    for expr in (f"{v} in {r}", f"{v} not in {r}", f"{r}.count({v})", f"{r}.index({v})"):
        want = _python(expr)
        out, ns = run_ok(f"try:\n    got = ('ok', {expr})\nexcept ValueError as e:\n    got = ('ValueError', str(e))\n")
        assert ns.globals["got"] == want, expr


def test_a_tensor_in_a_range_is_compared_item_by_item_as_python(run_ok):
    out, ns = run_ok("a = torch.tensor(6.0) in range(0, 30, 3)\nb = torch.tensor([6.5]) in range(10)\n"
                     "c = range(10).index(torch.tensor(4))\nd = range(10).count(torch.tensor(4.0))")
    assert (ns.globals["a"], ns.globals["b"], ns.globals["c"], ns.globals["d"]) == (True, False, 4, 1)


SMALL = Limits(steps=100_000, wall_time_s=30.0)


@pytest.mark.parametrize("source", [
    "x = torch.tensor(-1.0) in range(10**6)",
    "x = range(10**6).count(torch.tensor(-1.0))",
    "x = [1] in range(10**6)",
    "l = [torch.ones(1)] * 300000\nx = torch.tensor(-1.0) in l",
    "l = (torch.ones(1),) * 300000\nx = torch.tensor(-1.0) not in l",
])
def test_scans_that_run_host_code_per_item_count_steps(run_err, source):
    err = run_err(source, limits=SMALL)
    assert err.type == "LimitExceeded" and err.limit == "steps", err.to_dict()


def test_numbers_in_a_huge_range_answer_at_once(run_ok):
    out, ns = run_ok("import numpy as np\na = 1.5 in range(10**12)\nb = 10.0**11 in range(10**12)\nc = range(10**12).count(2.5)\n"
                     "d = range(10**12).index(7.0)\ne = np.float64(8.0) in range(10**12)\nf = 3+0j in range(10**12)",
                     limits=SMALL)
    g = ns.globals
    assert (g["a"], g["b"], g["c"], g["d"], g["e"], g["f"]) == (False, True, 0, 7, True, True)


def test_a_short_list_of_tensors_still_uses_python_search(run_ok):
    out, ns = run_ok("t = torch.ones(1)\nl = [torch.zeros(1), t]\nx = t in l\ny = torch.tensor([2.0]) in l")
    assert ns.globals["x"] is True and ns.globals["y"] is False


@pytest.mark.parametrize("source", [
    "l = [torch.ones(1)] * 300000\nx = l.count(torch.tensor(-1.0))",
    "l = [torch.ones(1)] * 300000\nx = l.index(torch.tensor(-1.0))",
    "l = [torch.ones(1)] * 300000\nl.remove(torch.tensor(-1.0))",
    "l = (torch.ones(1),) * 300000\nx = l.count(torch.tensor(-1.0))",
    "l = [torch.ones(1)] * 300000\nm = [torch.ones(1)] * 300000\nx = l == m",
    "l = (torch.ones(1),) * 300000\nm = (torch.ones(1),) * 300000\nx = l < m",
    "import collections\nd = collections.deque([torch.ones(1)] * 300000)\nx = torch.tensor(-1.0) in d",
])
def test_list_methods_and_comparisons_that_run_host_code_per_item_count_steps(run_err, source):
    err = run_err(source, limits=SMALL)
    assert err.type == "LimitExceeded" and err.limit == "steps", err.to_dict()


SEQ_CASES = [
    "a.count(2)", "a.count(7)", "a.index(3)", "a.index(3, 5000)", "a.index(3, -3)", "a.index(9)", "a.index(3, 2, 1)",
    "a == b", "a != b", "a < b", "a <= b", "a > b", "a >= b", "a == a", "a < a", "a == b[:-1]", "a < b[:-1]",
    "a[:-1] < a", "3 in a", "9 in a",
]


@pytest.mark.parametrize("kind", ["list", "tuple"])
@pytest.mark.parametrize("expr", SEQ_CASES)
def test_long_sequences_answer_as_python(run_ok, kind, expr):
    a = [i % 5 for i in range(6000)]
    b = list(a)
    b[4000] = 2.5
    make = f"a = {kind}([i % 5 for i in range(6000)])\nb = list(a)\nb[4000] = 2.5\nb = {kind}(b)\n"
    env = {"a": (tuple if kind == "tuple" else list)(a), "b": (tuple if kind == "tuple" else list)(b)}
    try:
        want = ("ok", eval(expr, env))
    except ValueError as e:
        want = ("ValueError", str(e))
    # the same expressions with a tensor in the list take the counted path
    for extra in ("", "a = type(a)(list(a) + [torch.ones(1)])\nb = type(b)(list(b) + [torch.ones(1)])\n"):
        if extra and ("==" in expr or "<" in expr or ">" in expr or "!=" in expr):
            continue
        src = make + extra + f"try:\n    got = ('ok', {expr})\nexcept ValueError as e:\n    got = ('ValueError', str(e))\n"
        out, ns = run_ok(src)
        assert ns.globals["got"] == want, (expr, extra)


def test_remove_and_index_find_a_tensor_by_identity_in_a_long_list(run_ok):
    out, ns = run_ok("t = torch.ones(1)\nl = [torch.zeros(1)] * 5000 + [t] + [torch.zeros(1)]\n"
                     "i = l.index(t)\nl.remove(t)\nn = len(l)\nc = l.count(t)")
    assert (ns.globals["i"], ns.globals["n"], ns.globals["c"]) == (5000, 5001, 0)
