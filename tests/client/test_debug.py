"""session.debug against a real server (SPEC sections 4 and 6): pauses as objects, eval (summaries
and whole tensors), exec that alters the model, stepping, post-mortem, the result at the end, typed
events with ``.type``, and the async twin."""
import asyncio

import numpy as np
import pytest

from gradserve.client import (AsyncClient, DebugCommandError, Pause, Paused, ProgramError, Stdout)

PROGRAM = """\
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 2)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        return self.fc2(h)

torch.manual_seed(0)
model = Net()
x = torch.ones(5, 3)
for step in range(2):
    print("step", step)
    out = model(x)
    loss = out.pow(2).mean()
width = out.shape[1]
"""


def test_debug_yields_pauses_and_the_result_at_the_end(session):
    seen = []
    run = session.debug(PROGRAM, breakpoints=[19], outputs=["width", "loss"], on_event=seen.append)
    lines = []
    for pause in run:
        assert isinstance(pause, Pause) and pause.type == "paused" and pause.reason == "breakpoint"
        lines.append(pause.line)
        assert pause.locals["x"]["shape"] == [5, 3]
        assert pause.stack[-1] == {"function": "<module>", "line": 19, "col": 5}
        assert pause.eval("step") == len(lines) - 1
    assert lines == [19, 19]
    assert run.result["width"] == 2 and run.stdout == "step 0\nstep 1\n"
    assert any(isinstance(e, Stdout) and e.type == "stdout" for e in seen)
    assert any(isinstance(e, Paused) and e.type == "paused" for e in run.events)


def test_eval_full_gives_the_tensor_as_numpy_and_a_summary_otherwise(session):
    run = session.debug(PROGRAM, breakpoints=[20])
    pause = next(iter(run))
    summary = pause.eval("out")
    assert summary["shape"] == [5, 2] and set(summary) >= {"min", "max", "mean", "norm", "head"}
    full = pause.eval("out", full=True)
    assert isinstance(full, np.ndarray) and full.shape == (5, 2) and full.dtype == np.float32
    np.testing.assert_allclose(full.mean(), summary["mean"], rtol=1e-5)
    assert pause.eval("model.fc1") .startswith("Linear(")
    with pytest.raises(ProgramError) as e:
        pause.eval("out.nope")
    assert e.value.type == "AttributeError"
    assert pause.eval("1 + 1") == 2          # still paused after the error
    pause.cancel()
    with pytest.raises(Exception):
        run.wait()


def test_a_limit_inside_exec_raises_limit_exceeded_and_the_run_goes_on(session):
    from gradserve.client import LimitExceeded
    run = session.debug(PROGRAM, breakpoints=[17], outputs=["width"])
    pause = next(iter(run))
    with pytest.raises(LimitExceeded) as e:
        pause.exec("while True:\n    pass")
    assert e.value.limit == "steps"
    assert pause.eval("x.shape[0]") == 5
    pause.breakpoints([])
    pause.continue_()
    assert run.wait()["width"] == 2


def test_debug_takes_numpy_inputs_and_answers_their_gradients(session):
    """inputs= as in session.run: a NumPy array in the object form, with requires_grad, is bound before the
    run; a pause sees it, and the result has its gradient (SPEC section 3)."""
    program = "y = (x * x).sum()\ny.backward()\nz = 1\n"
    run = session.debug(program, inputs={"x": {"data": np.array([1.0, 2.0, 3.0]), "requires_grad": True}},
                        breakpoints=[3])
    for pause in run:
        assert pause.locals["x"]["shape"] == [3] and pause.locals["x"]["requires_grad"] is True
        np.testing.assert_allclose(pause.eval("x.grad", full=True), [2.0, 4.0, 6.0])
    np.testing.assert_allclose(run.result.grads["x"], [2.0, 4.0, 6.0])
    assert run.result.values["y"] == 14.0


def test_eval_full_past_the_cap_raises_and_keeps_the_summary(session):
    from gradserve.client import LimitExceeded
    from gradserve.engine.program.debugger import MAX_FULL_ELEMENTS
    run = session.debug(f"t = torch.ones({MAX_FULL_ELEMENTS + 1})\nb = 1\n", breakpoints=[2])
    pause = next(iter(run))
    with pytest.raises(LimitExceeded) as e:
        pause.eval("t", full=True)
    assert f"at most {MAX_FULL_ELEMENTS}" in str(e.value) and e.value.limit == "eval_full_elements"
    assert e.value.summary["shape"] == [MAX_FULL_ELEMENTS + 1] and e.value.summary["mean"] == 1.0
    assert pause.eval("t[:3].sum()", full=True) == 3.0   # a 0-d tensor, whole
    pause.continue_()
    run.wait()


def test_exec_replaces_a_layer_and_the_run_uses_it(session):
    run = session.debug(PROGRAM, breakpoints=[17], outputs=["width"])
    for pause in run:
        pause.exec("model.fc2 = nn.Linear(4, 6)")
        pause.breakpoints([])
        pause.continue_()
    assert run.result["width"] == 6


def test_step_next_out_from_the_client(session):
    run = session.debug(PROGRAM, breakpoints=[19])
    pauses = iter(run)
    p = next(pauses)
    p.step()
    p = next(pauses)
    assert (p.line, p.stack[-1]["function"]) == (11, "forward")
    p.next()
    p = next(pauses)
    assert p.line == 12
    p.out()
    p = next(pauses)
    assert (p.line, len(p.stack)) == (20, 1)
    with pytest.raises(DebugCommandError):
        p.breakpoints([9])                     # a line with no code: refused, still paused
    assert p.breakpoints([]) == []
    with pytest.raises(DebugCommandError):
        p.out(); p.out()                       # noqa: E702 - a pause resumes once
    assert list(pauses) == []
    assert run.result is not None


def test_post_mortem_pause_then_the_program_error(session):
    run = session.debug("def f(a):\n    b = a * 2\n    return b[10]\nr = f([1])\n")
    with pytest.raises(ProgramError) as e:
        for pause in run:
            assert pause.reason == "exception" and pause.line == 3
            assert pause.exception["type"] == "IndexError"
            assert pause.eval("b") == "[1, 1]"
    assert e.value.type == "IndexError" and e.value.line == 3


def test_anomaly_pause_shows_the_op(session):
    run = session.debug("x = torch.tensor([1.0, -1.0])\ny = torch.log(x)\n", pause_on=["anomaly"])
    pauses = list(run)
    assert [(p.reason, p.line, p.node["phase"]) for p in pauses] == [("anomaly", 2, "forward")]


def test_async_debug_twin(server_url):
    async def main():
        async with AsyncClient(server_url) as client:
            async with client.session() as s:
                run = s.debug(PROGRAM, breakpoints=[(19, "step == 1")], outputs=["width"])
                lines = []
                async for pause in run:
                    lines.append((pause.line, await pause.eval("step")))
                    await pause.exec("model.fc2 = nn.Linear(4, 3)")
                    assert (await pause.eval("model.fc2.weight", full=True)).shape == (3, 4)
                    await pause.continue_()
                assert lines == [(19, 1)]
                assert run.result["width"] == 3
    asyncio.run(main())


def test_pause_renders_in_a_notebook_with_its_source_line(session):
    run = session.debug(PROGRAM, breakpoints=[20])
    pause = next(iter(run))
    html = pause._repr_html_()
    assert "paused (breakpoint)" in html and "loss = out.pow(2).mean()" in html
    pause.cancel()
    run.close()


def test_gradserve_pause_timeout_s_cancels_a_forgotten_pause():
    """GRADSERVE_PAUSE_TIMEOUT_S, as the README names it: a pause nobody answers ends the run, and the
    session takes the next run."""
    import time

    from gradserve.client import Client, RunCancelled
    from gradserve.client.cli_run import embedded_server
    with embedded_server(env={"GRADSERVE_PAUSE_TIMEOUT_S": "1"}) as url, Client(url) as client, \
            client.session() as s:
        run = s.debug("a = 1\nbreakpoint()\nb = 2\n")
        pause = next(iter(run))
        assert pause.line == 2
        t0 = time.monotonic()
        with pytest.raises((RunCancelled, ProgramError)) as e:
            run._stream.wait()                       # nobody answers the pause
        assert time.monotonic() - t0 < 30
        if isinstance(e.value, ProgramError):
            assert "pause_timeout_s" in str(e.value)
        assert s.run("c = 3", outputs=["c"]).values["c"] == 3
