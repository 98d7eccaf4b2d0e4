"""Hostile programs found by the attack5 pass against a live server (tests/hostile_attack5_log.md).

Each used to end the attacker's session process (410 Gone on the server) or run far past its
limits inside one C call; now each ends in a clear ProgramError or the right answer, quickly, and
the session works afterwards.
"""
import time

import pytest

from gradserve.engine.program import Limits, Namespace, run

LIMITS = Limits(wall_time_s=20.0)


def _run(source, ns=None, seconds=10):
    """(outcome, namespace) of ``source`` in a fresh session, which still works afterwards."""
    ns = Namespace() if ns is None else ns
    started = time.monotonic()
    out = run(source, ns, LIMITS)
    assert time.monotonic() - started < seconds
    after = run("probe = 1 + 1", ns, LIMITS)
    assert after.ok and ns.get("probe") == 2, after.error
    return out, ns


# ------------------------------------------------------------------ F4: round(int, -huge)
def test_round_of_an_int_to_a_large_negative_ndigits_answers_zero_at_once():
    """int.__round__ computes 10 ** -ndigits first, in one C call the wall-time limit cannot stop:
    about 10 s for -10**7 (this test's own bound is 3 s)."""
    out, ns = _run("a = round(10**1000, -10**7)\nb = round(-7, -10**7)\nc = round(True, -10**7)", seconds=3)
    assert out.ok, out.error
    assert [ns.get(n) for n in "abc"] == [0, 0, 0]
    assert all(type(ns.get(n)) is int for n in "abc")


@pytest.mark.timeout(60)
def test_round_to_ndigits_minus_a_billion_does_not_kill_the_session():
    """On the server, round(10**1000, -10**9) passed the wall time and the session's process was killed
    (408, then 410 Gone)."""
    out, ns = _run("a = round(10**1000, -10**9)\nb = round(3, -10**18)", seconds=3)
    assert out.ok, out.error
    assert ns.get("a") == 0 and ns.get("b") == 0


@pytest.mark.parametrize("expr, expected", [
    ('round(5, -1)', 0),
    ('round(6, -1)', 10),
    ('round(15, -1)', 20),
    ('round(25, -1)', 20),
    ('round(123456, -3)', 123000),
    ('round(-987, -2)', -1000),
    ('round(7, 2)', 7),
    ('round(2.675, 2)', 2.67),
    ('round(3.7)', 4),
    ('round(-2.5)', -2),
    ('round(10**30, -29)', 1000000000000000000000000000000),
    ('round(5 * 10**29, -30)', 0),
    ('round(15 * 10**29, -30)', 2000000000000000000000000000000),
    ('round(7, None)', 7),
    ('round(1.5, ndigits=None)', 2),
    ('round(9, -1) + round(94, -1)', 100),
    ("round(2**65535 - 1, -19729)", 0),
    ("round(2**65535 - 1, -19728) > 0", True),     # 2**65535 is about 1.0e19728: the last nonzero ndigits
])
def test_round_answers_as_python_does(expr, expected):
    out, ns = _run(f"r = {expr}")
    assert out.ok, out.error
    assert ns.get("r") == expected and type(ns.get("r")) is type(expected)


def test_round_with_a_non_integer_ndigits_is_a_type_error():
    out, _ = _run("r = round(10**100, 1.5)")
    assert not out.ok and out.error.type == "TypeError"


# ------------------------------------------------------------------ F3: log() metric names
def test_log_metric_names_are_bounded():
    """Values were cut to 1000 characters but names were not: one log() of 300 names of 10**6 characters
    was a 300 MB event on every watcher's stream (the API process grew by 850 MB)."""
    out, _ = _run("ks = {('k' * 1000000 + str(j)): 1 for j in range(3)}\nlog(**ks)")
    assert not out.ok and out.error.type == "ValueError" and "at most 256 characters" in out.error.message
    assert out.error.line == 2
    out, _ = _run("log({'n' * 257: 1.0})")
    assert not out.ok and out.error.type == "ValueError"


def test_log_takes_at_most_64_metrics_in_one_call():
    out, _ = _run("log(**{'m%d' % j: j for j in range(65)})")
    assert not out.ok and out.error.type == "ValueError" and "at most 64 metrics" in out.error.message


def test_log_within_the_bounds_still_streams_every_metric():
    events = []
    ns = Namespace()
    out = run("log(**{'m%d' % j: j for j in range(63)}, step=1)\nlog({'n' * 256: 2.5}, loss=torch.tensor(0.5))",
              ns, LIMITS, on_log=events.append)
    assert out.ok, out.error
    assert len(events) == 2 and len(events[0]) == 64 and events[0]["m62"] == 62 and events[0]["step"] == 1
    assert events[1] == {"n" * 256: 2.5, "loss": 0.5}


# ------------------------------------------------------------------ hooks and custom Functions: gradient sizes
HOOK = "x = torch.ones(2, requires_grad=True)\n{target}.register_hook(lambda g: {ret})\n{y}.sum().backward()"
FUNCTION = """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return {ret}
x = torch.ones(2, requires_grad=True)
F.apply(x).sum().backward()
"""
BAD_GRADIENTS = [
    ("hook_leaf_bigger", HOOK.format(target="x", ret="torch.ones(5)", y="(x * 2)"), "RuntimeError"),
    ("hook_leaf_smaller", HOOK.format(target="x", ret="torch.ones(1)", y="(x * 2)"), "RuntimeError"),
    ("hook_inner_bigger", "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.register_hook(lambda g: torch.ones(5))\n"
                          "y.sum().backward()", "RuntimeError"),
    ("hook_returns_str", HOOK.format(target="x", ret="'x'", y="(x * 2)"), "TypeError"),
    ("function_bigger", FUNCTION.format(ret="torch.ones(100)"), "RuntimeError"),
    ("function_smaller", FUNCTION.format(ret="torch.ones(1)"), "RuntimeError"),
]


@pytest.mark.parametrize("case, source, error_type", BAD_GRADIENTS, ids=[c[0] for c in BAD_GRADIENTS])
def test_a_gradient_of_the_wrong_size_or_kind_is_refused_as_in_pytorch(case, source, error_type):
    """A hook or a custom Function's backward that returned a gradient of another shape was accepted:
    x.grad of shape [5] (or [100]) for x of shape [2]."""
    out, ns = _run(source)
    assert not out.ok, f"accepted; x.grad = {ns.get('x').grad}"
    assert out.error.type == error_type, out.error


def _torch_cases(torch):
    """The same six cases written in PyTorch itself."""
    class Fn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    def hook(target_is_leaf, ret):
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        (x if target_is_leaf else y).register_hook(lambda g: ret)
        y.sum().backward()

    def function(ret):
        x = torch.ones(2, requires_grad=True)

        class F(Fn):
            @staticmethod
            def backward(ctx, g):
                return ret
        F.apply(x).sum().backward()

    return {"hook_leaf_bigger": lambda: hook(True, torch.ones(5)),
            "hook_leaf_smaller": lambda: hook(True, torch.ones(1)),
            "hook_inner_bigger": lambda: hook(False, torch.ones(5)), "hook_returns_str": lambda: hook(True, "x"),
            "function_bigger": lambda: function(torch.ones(100)), "function_smaller": lambda: function(torch.ones(1))}


@pytest.mark.parametrize("case, source, error_type", BAD_GRADIENTS, ids=[c[0] for c in BAD_GRADIENTS])
def test_pytorch_refuses_the_same_gradients(case, source, error_type):
    torch = pytest.importorskip("torch")
    with pytest.raises({"RuntimeError": RuntimeError, "TypeError": TypeError}[error_type]):
        _torch_cases(torch)[case]()


@pytest.mark.parametrize("source, expected", [
    (HOOK.format(target="x", ret="g * 3", y="(x * 2)"), [6.0, 6.0]),
    ("x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.register_hook(lambda g: g + 1)\ny.sum().backward()",
     [4.0, 4.0]),
    (FUNCTION.format(ret="torch.ones(3, 2)"), [3.0, 3.0]),   # sums to the input's shape, as in PyTorch
    (FUNCTION.format(ret="g * 5"), [5.0, 5.0]),
])
def test_gradients_of_the_right_size_still_pass(source, expected):
    out, ns = _run(source)
    assert out.ok, out.error
    assert ns.get("x").grad.tolist() == expected
