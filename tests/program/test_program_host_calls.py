"""Calls of host callables (engine modules and functions) from every compiled call shape: f(x),
f(x, y), f(*many), obj.method(...). The call sites make the gate's host call in place (Builtins.call
without its frame), so each shape is checked here for what the gate does with a result, and for the
check that a call outlasting a tick is followed by."""
import os

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.program import Limits, Namespace, compiler, run

SHAPES = {
    "call1": "y = m(x)",
    "call2": "y = m(x, x)",
    "call3": "y = m(x, x, x)",
    "method1": "y = m.forward(x)",
    "method2": "y = m.forward(x, x)",
    "keywords": "y = m(x, extra=x)",
}


@pytest.fixture
def host_result(monkeypatch):
    """nn.Identity's forward made to return whatever the test puts in the box."""
    box = []

    def forward(self, *args, **kwargs):
        return box[0]
    forward.__module__ = gs.nn.Identity.forward.__module__   # the engine's, as the gate requires
    monkeypatch.setattr(gs.nn.Identity, "forward", forward)
    return box


def _run(call, limits=None):
    ns = Namespace()
    return run(f"m = nn.Identity()\nx = torch.ones(2)\n{call}\n", ns, limits), ns


@pytest.mark.parametrize("call", SHAPES.values(), ids=SHAPES.keys())
def test_a_host_array_result_becomes_a_tensor_copy(host_result, call):
    array = np.arange(3.0)
    host_result.append(array)
    out, ns = _run(call)
    assert out.ok, out.error.to_dict()
    y = ns.get("y")
    assert isinstance(y, gs.Tensor) and y.tolist() == [0.0, 1.0, 2.0]
    array[0] = 9.0
    assert y.tolist()[0] == 0.0   # a copy: the program holds no host array


@pytest.mark.parametrize("call", SHAPES.values(), ids=SHAPES.keys())
def test_a_host_object_result_is_refused(host_result, call):
    host_result.append(os)
    out, _ = _run(call)
    assert not out.ok and out.error.type == "TypeError"
    assert "not available in programs" in out.error.message and out.error.line == 3


@pytest.mark.parametrize("call", SHAPES.values(), ids=SHAPES.keys())
def test_a_long_string_result_meets_the_string_limit(host_result, call):
    host_result.append("x" * 500)
    out, _ = _run(call, Limits(string_length=100))
    assert not out.ok and out.error.limit == "string_length" and out.error.line == 3


@pytest.mark.parametrize("call", SHAPES.values(), ids=SHAPES.keys())
def test_a_result_past_the_element_limit_is_refused(host_result, call):
    host_result.append(gs.Tensor._adopt_array(np.zeros(5000, dtype=np.float32), False, None))
    out, _ = _run(call, Limits(tensor_elements=1000))
    assert not out.ok and out.error.limit == "tensor_elements" and out.error.line == 3


@pytest.mark.parametrize("call", SHAPES.values(), ids=SHAPES.keys())
def test_a_host_call_longer_than_a_tick_has_the_limits_checked_at_the_next_step(monkeypatch, host_result, call):
    """The runtime's ticker asks for a check every TICK_S: a call that outlasts a tick is followed
    by a check at the next statement, where quick calls go unchecked until the step limit."""
    import time
    from gradserve.engine.program import runtime
    monkeypatch.setattr(runtime, "TICK_S", 0.002)
    host_result.append(gs.ones(2))
    checks = []
    check = runtime.Runtime.check
    monkeypatch.setattr(runtime.Runtime, "check", lambda self: (checks.append(self.steps), check(self))[1])
    loop = f"m = nn.Identity()\nx = torch.ones(2)\nfor i in range(8):\n    {call}\n"
    assert run(loop, Namespace()).ok
    quiet = len(checks)
    checks.clear()
    forward = gs.nn.Identity.forward

    def slow(self, *args, **kwargs):
        time.sleep(0.01)
        return forward(self, *args, **kwargs)
    slow.__module__ = forward.__module__
    monkeypatch.setattr(gs.nn.Identity, "forward", slow)
    assert run(loop, Namespace()).ok
    # 8 calls of 10 ms each, ticks every 2 ms (the first may come late: the ticker was asleep for the
    # tick it had begun): most calls are followed by a check
    assert quiet <= 2 and len(checks) >= 5, (quiet, checks)
