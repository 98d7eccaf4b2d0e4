"""Client and Session against a real server: every call, and errors mapped to exceptions."""
import time

import numpy as np
import pytest

from gradserve.client import (AuthError, BadRequest, Client, Conflict, Error, LimitExceeded, Log,
                              NotFound, ProgramError, Result, SessionNotFound, Started, Stdout)
from gradserve.client.cli_run import embedded_server

GRAD_PROGRAM = """
y = (x * x + 2 * x).sum()
y.backward()
print("y =", y.item())
n = 3
"""


def test_health_and_readiness(client):
    assert client.health()["status"] == "ok"
    assert client.ready()


def test_session_context_manager_deletes_the_session(client):
    with client.session() as s:
        assert s.id and s.device == "cpu" and s.expires_at
        assert s.info().id == s.id
    with pytest.raises(SessionNotFound):
        client.attach(s.id, s.token).info()


def test_run_returns_values_grads_stdout_and_numbers(session):
    x = {"data": [1.0, 2.0, 3.0], "requires_grad": True}  # a wire-form input passes unchanged
    result = session.run(GRAD_PROGRAM, inputs={"x": x}, outputs=["y", "n"])
    assert result.stdout == "y = 26.0\n" and result.elapsed_ms >= 0
    assert isinstance(result.values["n"], int) and result.values["n"] == 3
    y = result["y"]
    assert isinstance(y, np.ndarray) and y.shape == () and y.dtype == np.float32 and y == 26.0
    # y is not a leaf (no .grad); x, an input that requires grad, received one (SPEC section 3)
    assert list(result.grads) == ["x"]
    np.testing.assert_allclose(result.grads["x"], [4.0, 6.0, 8.0])
    assert result.graph is None


def test_run_with_gradients_and_graph(session):
    session.put("x", np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
    result = session.run(GRAD_PROGRAM, outputs=["x", "y"], graph=True)
    np.testing.assert_allclose(result.grads["x"], [4.0, 6.0, 8.0])
    assert result.grads["x"].dtype == np.float32
    names = {node.get("name") for node in result.graph["nodes"]}
    assert {"x", "y"} <= names


@pytest.mark.parametrize("encoding", ["json", "base64"])
def test_dtype_nan_and_infinity_survive_the_round_trip(session, encoding):
    x = np.array([[1.5, np.nan], [np.inf, -np.inf]], dtype=np.float64)
    result = session.run("y = x * 1\nk = x.shape[0]\nparts = [x[0], x[1]]",
                         inputs={"x": x}, outputs=["y", "k", "parts"], encoding=encoding)
    y = result.values["y"]
    assert y.dtype == np.float64 and y.shape == (2, 2)
    np.testing.assert_array_equal(y, x)
    assert result.values["k"] == 2
    assert isinstance(result.values["parts"], list) and len(result.values["parts"]) == 2
    np.testing.assert_array_equal(result.values["parts"][1], x[1])


def test_python_inputs_are_typed_like_torch_tensor(session):
    result = session.run("a = f * 1\nb = i * 1\nc = s * 1",
                         inputs={"f": [1.0, 2.0], "i": [1, 2], "s": 2.5}, outputs=["a", "b", "c"])
    assert result["a"].dtype == np.float32 and result["b"].dtype == np.int64
    assert result["c"].shape == () and result["c"].dtype == np.float32


def test_variables_get_put_and_grad(session):
    session.put("w", np.arange(6, dtype=np.float64).reshape(2, 3), requires_grad=True)
    session.run("loss = (w ** 2).sum()\nloss.backward()")
    variables = session.variables()
    assert variables["w"].shape == (2, 3) and variables["w"].dtype == "float64"
    assert variables["w"].requires_grad and variables["w"].has_grad
    np.testing.assert_array_equal(session.get("w"), np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(session.get_grad("w", encoding="base64"),
                                  2 * np.arange(6.0).reshape(2, 3))
    assert session.get_grad("loss") is None
    with pytest.raises(NotFound) as info:
        session.get("missing")
    assert not isinstance(info.value, SessionNotFound)


def test_graph_of_a_variable(session):
    session.run("a = torch.ones(2, requires_grad=True)\nb = (a * 3).sum()")
    graph = session.graph(of="b")
    assert graph["nodes"] and "edges" in graph
    assert any(node.get("name") == "b" for node in graph["nodes"])


def test_checkpoint_save_and_restore_through_a_file(session, client, tmp_path):
    session.put("w", np.array([1.0, 2.0], dtype=np.float32))
    path = session.save_checkpoint(tmp_path / "ckpt.safetensors")
    assert path.stat().st_size > 8
    with client.session() as other:
        other.restore_checkpoint(path)
        np.testing.assert_array_equal(other.get("w"), [1.0, 2.0])


def test_program_errors_carry_type_line_and_column(session):
    with pytest.raises(ProgramError) as info:
        session.run("a = 1\nb = missing + 1\n")
    exc = info.value
    assert (exc.type, exc.line, exc.col, exc.status) == ("NameError", 2, 5, 422)
    assert "missing" in exc.message and "line 2, col 5" in str(exc)
    with pytest.raises(ProgramError) as info:
        session.run("def f(v):\n    return v @ torch.ones(3)\n\nf(torch.ones(2))")
    assert info.value.type == "RuntimeError" and info.value.line == 2
    with pytest.raises(ProgramError) as info:
        session.run("x = (")
    assert info.value.type == "SyntaxError" and info.value.line == 1


def test_limits_raise_limit_exceeded_naming_the_limit(session):
    with pytest.raises(LimitExceeded) as info:
        session.run("i = 0\nwhile True:\n    i += 1\n")
    assert info.value.limit == "steps" and info.value.status == 422
    with pytest.raises(LimitExceeded) as info:
        session.run("x = 1\n" + "#" * (70 * 1024))
    assert info.value.status == 413 and info.value.limit == "program_bytes"
    with pytest.raises(LimitExceeded) as info:
        session.run("big = torch.zeros(2 ** 28)")
    assert info.value.limit == "tensor_elements" and isinstance(info.value, ProgramError)
    assert session.run("ok = 1 + 1", outputs=["ok"]).values["ok"] == 2  # still usable


def test_unknown_output_name_is_an_error_naming_it(session):
    with pytest.raises(ProgramError, match="nope"):
        session.run("a = 1", outputs=["nope"])


def test_bad_requests_and_wrong_tokens(client, session):
    with pytest.raises(BadRequest):
        session.run("y = x", inputs={"x": {"data": [1, 2], "dtype": "complex"}})
    with pytest.raises(SessionNotFound):
        client.attach(session.id, "not-the-token").info()
    with pytest.raises(AuthError):
        client.attach(session.id, "").run("a = 1")


def test_stream_yields_typed_events_and_ends_with_the_result(session):
    program = ("for i in range(3):\n    print('step', i)\n"
               "    log(step=i + 1, total=3, loss=1.0 / (i + 1))\ny = torch.ones(2) * 2")
    with session.stream(program, outputs=["y"]) as stream:
        events = list(stream)
    assert isinstance(events[0], Started) and isinstance(events[-1], Result)
    assert len({e.run for e in events}) == 1 and stream.run_id == events[0].run
    seqs = [e.seq for e in events]
    assert seqs == sorted(seqs)
    assert "".join(e.text for e in events if isinstance(e, Stdout)) == "step 0\nstep 1\nstep 2\n"
    logs = [e for e in events if isinstance(e, Log)]
    assert [e.step for e in logs] == [1, 2, 3] and logs[-1].metrics["loss"] == pytest.approx(1 / 3)
    np.testing.assert_array_equal(events[-1].result.values["y"], [2.0, 2.0])
    assert stream.result is events[-1].result


def test_stream_error_is_yielded_then_raised_with_line_and_column(session):
    seen = []
    with pytest.raises(ProgramError) as info:
        for event in session.stream("print('before')\nz = undefined_name * 2"):
            seen.append(event)
    assert isinstance(seen[-1], Error) and seen[-1].error is info.value
    assert (info.value.type, info.value.line, info.value.col) == ("NameError", 2, 5)
    assert session.run("ok = 1", outputs=["ok"]).values["ok"] == 1


def test_watch_receives_the_events_of_runs_made_elsewhere(session):
    with session.watch().open() as watcher:
        result = session.run("print('seen')\nw = torch.ones(1)", outputs=["w"])
        events = []
        for event in watcher:
            events.append(event)
            if isinstance(event, Result):
                break
    assert isinstance(events[0], Started)
    assert any(isinstance(e, Stdout) and e.text == "seen\n" for e in events)
    assert events[-1].result.stdout == result.stdout == "seen\n"


def test_stream_progress_bar_follows_log_events(session, capsys):
    stream = session.stream("for i in range(4):\n    log(step=i + 1, total=4, loss=0.5)\n"
                            "done = 1", outputs=["done"], progress=True)
    assert stream.wait().values["done"] == 1
    err = capsys.readouterr().err
    assert "4/4" in err and "loss" in err


def test_stream_cancel_ends_with_cancelled(session):
    from gradserve.client import Cancelled
    with session.stream("i = 0\nwhile i < 10 ** 9:\n    i += 1\n    log(step=i)") as stream:
        for event in stream:
            if isinstance(event, (Started, Log)):
                stream.cancel()
                break
        rest = list(stream)
    assert rest and isinstance(rest[-1], Cancelled)


def test_leaving_a_stream_early_cancels_its_run(session):
    started = time.monotonic()
    with session.stream("i = 0\nwhile i < 10 ** 9:\n    i += 1\n    log(step=i)") as stream:
        for event in stream:
            if isinstance(event, Log) and event.step > 100:
                break
    assert time.monotonic() - started < 3
    assert session.run("after = 1", outputs=["after"]).values["after"] == 1  # no Conflict


def test_a_second_run_while_one_is_going_is_a_conflict(client):
    with client.session() as s:
        with s.stream("i = 0\nwhile i < 10 ** 9:\n    i += 1\n    log(step=i)") as stream:
            next(stream)
            with pytest.raises(Conflict):
                s.run("a = 1")
            stream.cancel()


def test_api_keys_are_required_when_the_server_has_them():
    with embedded_server(env={"GRADSERVE_API_KEYS": "k1"}) as url:
        with Client(url) as anonymous, pytest.raises(AuthError):
            anonymous.session()
        with Client(url, api_key="k1") as keyed, keyed.session() as s:
            assert s.run("a = 2", outputs=["a"]).values["a"] == 2
