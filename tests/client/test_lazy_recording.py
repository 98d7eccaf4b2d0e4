"""Lazy tensors without a server: what they record, and when they send it."""
import asyncio
import base64
import gc
import json

import httpx
import numpy as np
import pytest

from gradserve.client import AsyncClient, Client, ProgramError

SESSION = {"id": "s1", "token": "t1", "device": "cpu", "expires_at": None}


def tensor_json(array):
    array = np.asarray(array)
    return {"shape": list(array.shape), "dtype": array.dtype.name,
            "b64": base64.b64encode(array.astype(array.dtype.newbyteorder("<")).tobytes()).decode()}


class FakeServer:
    """Answers runs with ``values[name]`` for each requested output, recording every body."""

    def __init__(self, values=None, error=None):
        self.values = values or {}
        self.error = error
        self.runs = []

    def __call__(self, request):
        if request.method == "POST" and request.url.path == "/v1/sessions":
            return httpx.Response(201, json=SESSION)
        if request.method == "DELETE":
            return httpx.Response(204)
        body = json.loads(request.content)
        self.runs.append(body)
        if self.error is not None:
            return httpx.Response(422, json={"error": self.error})
        values = {name: self.values[name] for name in body["outputs"]}
        return httpx.Response(200, json={"values": values, "grads": {}, "graph": None,
                                         "stdout": "", "elapsed_ms": 1.0})

    def statements(self, run=-1):
        return self.runs[run]["program"].splitlines()[2:]


@pytest.fixture
def server():
    return FakeServer()


@pytest.fixture
def session(server):
    with Client("http://test", transport=httpx.MockTransport(server)) as client:
        with client.session() as s:
            yield s


def test_operations_record_and_send_nothing_until_a_value_is_needed(session, server):
    x = session.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x ** 2).sum()
    assert server.runs == []
    assert session._lazy.pending == [f"{y.name.replace('3', '2')} = {x.name} ** 2",
                                     f"{y.name} = rt_2.sum()"]
    server.values[y.name] = 14.0
    assert y.item() == 14.0
    run = server.runs[0]
    assert run["program"].splitlines()[:2] == ["import torch", "import math"]
    assert run["inputs"] == {"rt_1": {"data": [1.0, 2.0, 3.0], "requires_grad": True}}
    assert run["outputs"] == ["rt_3"] and run["encoding"] == "base64"
    assert session._lazy.pending == []


def test_values_are_cached_until_something_may_change_them(session, server):
    x = session.tensor(np.arange(3, dtype=np.float64))
    server.values[x.name] = tensor_json(np.arange(3.0))
    np.testing.assert_array_equal(x.numpy(), [0.0, 1.0, 2.0])
    assert x.tolist() == [0.0, 1.0, 2.0]
    assert len(server.runs) == 1
    x.add_(1)
    x.numpy()
    assert len(server.runs) == 2
    assert server.statements() == [f"{x.name}.add_(1)"]


def test_numpy_upload_keeps_dtype_as_raw_bytes(session, server):
    x = session.tensor(np.array([1, 2], dtype=np.int32))
    server.values[x.name] = tensor_json(np.array([1, 2], dtype=np.int32))
    assert x.numpy().dtype == np.int32
    wire = server.runs[0]["inputs"][x.name]
    assert wire["dtype"] == "int32" and wire["shape"] == [2] and "b64" in wire


def test_operator_rendering(session, server):
    x = session.tensor([1.0])
    a = np.array([2.0])
    exprs = [2 - x, x / 3, x // 2, x % 2, 2 ** x, -x, abs(x), x @ x, a @ x, x > 0.5, x == 1,
             x != 1, x[0], x[1:3], x[::2, None, ...], x[:, 0], x.softmax(dim=0),
             x.reshape(-1, 1), x.sum(dim=(0,), keepdim=True), x.clamp(min=float("-inf")),
             x.to(np.float64), x * float("nan")]
    texts = [line.split(" = ", 1)[1] for line in session._lazy.pending]
    assert texts[:13] == ["2 - rt_1", "rt_1 / 3", "rt_1 // 2", "rt_1 % 2", "2 ** rt_1", "-rt_1",
                          "abs(rt_1)", "rt_1 @ rt_1", "rt_10 @ rt_1", "rt_1 > 0.5", "rt_1 == 1",
                          "rt_1 != 1", "rt_1[0]"]
    assert texts[13:] == ["rt_1[1:3]", "rt_1[::2, None, ...]", "rt_1[:, 0]",
                          "rt_1.softmax(dim=0)", "rt_1.reshape(-1, 1)",
                          "rt_1.sum(dim=(0,), keepdim=True)", "rt_1.clamp(min=-math.inf)",
                          "rt_1.to(torch.float64)", "rt_1 * math.nan"]
    assert len(exprs) == 22
    x[1:], x[:2], x[:], x[::-1], x[()]
    assert [line.split(" = ", 1)[1] for line in session._lazy.pending[-5:]] == [
        "rt_1[1:]", "rt_1[:2]", "rt_1[:]", "rt_1[::-1]", "rt_1[()]"]
    transposed = x.T  # an attribute is read when it is used
    assert session._lazy.pending[-1].endswith("rt_1[()]")
    transposed @ x
    assert session._lazy.pending[-2:] == [f"{transposed.name} = rt_1.T",
                                          f"rt_{int(transposed.name[3:]) + 1} = "
                                          f"{transposed.name} @ rt_1"]


def test_in_place_operations_return_the_same_tensor(session):
    x = session.tensor([1.0])
    y = x
    x += 1
    x[0] = 5.0
    assert x is y and x.mul_(2) is x
    x.grad = None
    assert session._lazy.pending == ["rt_1 += 1", "rt_1[0] = 5.0", "rt_1.mul_(2)",
                                     "rt_1.grad = None"]


def test_tuple_results_unpack_into_named_fields(session):
    x = session.tensor([[1.0, 2.0]])
    values, indices = x.max(dim=1)
    assert session._lazy.pending[-1] == f"{values.name}, {indices.name} = rt_1.max(dim=1)"
    result = x.sort()
    assert result.values.name and result.indices.name
    elementwise = x.max(x)
    assert session._lazy.pending[-1] == f"{elementwise.name} = rt_1.max(rt_1)"
    pair = session.torch.max(x, 0)
    assert session._lazy.pending[-1].endswith("= torch.max(rt_1, 0)") and len(pair) == 2


def test_torch_namespace_and_no_grad(session):
    x = session.tensor([1.0], requires_grad=True)
    y = session.torch.nn.functional.relu(x)
    z = session.torch.cat([x, y], dim=0)
    with session.no_grad():
        x -= 0.1 * z
    assert session._lazy.pending == [
        "rt_2 = torch.nn.functional.relu(rt_1)", "rt_3 = torch.cat([rt_1, rt_2], dim=0)",
        "with torch.no_grad(): rt_4 = 0.1 * rt_3", "with torch.no_grad(): rt_1 -= rt_4"]


def test_backward_runs_at_once_and_grad_asks_for_it(session, server):
    x = session.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    assert len(server.runs) == 1 and server.runs[0]["outputs"] == []
    assert server.statements()[-1] == "rt_3.backward()"
    server.values["rt_q"] = [tensor_json(np.array([2.0, 4.0], dtype=np.float32))]
    grad = x.grad
    lines = server.statements()
    assert f"{grad.name} = rt_1.grad" in lines
    assert f"rt_q = [] if {grad.name} is None else [{grad.name}]" in lines
    np.testing.assert_array_equal(grad.numpy(), [2.0, 4.0])
    assert len(server.runs) == 2  # the gradient's value came with the answer
    server.values["rt_q"] = []
    assert x.grad is None


def test_shape_dtype_and_len_are_asked_of_the_server(session, server):
    x = session.tensor([[1.0, 2.0, 3.0]])
    server.values["rt_q"] = [tensor_json(np.array([1, 3])), tensor_json(np.zeros(0, np.float32)),
                             tensor_json(np.array(False)), tensor_json(np.array(True))]
    assert x.shape == (1, 3) and x.size(1) == 3 and x.dim() == 2 and x.numel() == 3
    assert x.dtype == np.float32 and x.requires_grad is False and x.is_leaf is True
    assert len(server.runs) == 1
    server.values["rt_q"] = 1
    assert len(x) == 1 and server.statements()[-1] == "rt_q = len(rt_1)"
    server.values["rt_2"] = tensor_json(np.array([1.0, 2.0, 3.0], np.float32))
    assert [row.name for row in x] == ["rt_2"]


def test_python_control_flow_reads_remote_values(session, server):
    x = session.tensor(8.0)
    steps = 0
    while True:
        above = x > 1.0
        server.values[above.name] = tensor_json(np.array(8.0 / 2 ** steps > 1.0))
        if not above:
            break
        x = x / 2
        steps += 1
        assert steps < 10
    assert steps == 3 and len(server.runs) == 4


def test_bool_of_many_values_is_ambiguous(session, server):
    x = session.tensor([1.0, 2.0])
    server.values[x.name] = tensor_json(np.array([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(x)
    with pytest.raises(RuntimeError, match="2 elements"):
        x.item()


def test_freed_tensors_are_released_by_the_next_run(session, server):
    x = session.tensor([1.0])
    y = x + 1
    name = y.name
    del y
    gc.collect()
    server.values[x.name] = tensor_json(np.array([1.0]))
    x.numpy()  # sends y's statement: y can go once it has been sent
    assert server.statements() == [f"{name} = rt_1 + 1"]
    gc.collect()
    x.add_(1)
    x.numpy()
    assert server.statements() == ["rt_1.add_(1)", f"{name} = None"]


def test_a_failed_statement_poisons_what_it_and_later_ones_define(session, server):
    x = session.tensor([1.0])
    ok = x + 1
    bad = x @ x
    later = bad + 1
    server.error = {"type": "RuntimeError", "message": "matmul: 1-D", "line": 4, "col": 8,
                    "traceback": []}
    with pytest.raises(ProgramError) as info:
        later.numpy()
    assert info.value.statement == "rt_3 = rt_1 @ rt_1"
    assert "in recorded operation" in str(info.value)
    assert ok.name == "rt_2"
    with pytest.raises(ProgramError):
        bad + 1
    server.error = None
    server.values[ok.name] = tensor_json(np.array([2.0]))
    assert ok.item() == 2.0


def test_tensors_of_another_session_are_refused(server):
    with Client("http://test", transport=httpx.MockTransport(server)) as client:
        a, b = client.session(), client.session()
        with pytest.raises(ValueError, match="another session"):
            a.tensor([1.0]) + b.tensor([1.0])


def test_async_lazy_tensors_await_their_values():
    server = FakeServer()

    async def main():
        async with AsyncClient("http://test", transport=httpx.MockTransport(server)) as client:
            async with client.session() as s:
                x = s.tensor([1.0, 2.0], requires_grad=True)
                y = (x * 2).sum()
                server.values[y.name] = 6.0
                assert await y.item() == 6.0
                assert await y.item() == 6.0  # cached: no second run
                await y.backward()
                server.values["rt_q"] = [tensor_json(np.array([2.0, 2.0], np.float32))]
                grad = await x.grad
                assert (await grad.numpy()).tolist() == [2.0, 2.0]
                with pytest.raises(TypeError, match="AsyncSession"):
                    bool(y)
                assert "await" in repr(x)
                return len(server.runs)
    assert asyncio.run(main()) == 3


def test_a_failed_statement_names_the_line_of_user_code_that_recorded_it(session, server):
    # The server's line and column point into the program the client generated (header included),
    # which the user never wrote: the error says where in the user's own code the operation came from.
    x = session.tensor([1.0])
    bad = x @ x; recorded_at = f"{__file__}:{bad_line()}"   # noqa: E702 (the same line, on purpose)
    server.error = {"type": "RuntimeError", "message": "matmul: 1-D", "line": 3, "col": 8, "traceback": []}
    with pytest.raises(ProgramError) as info:
        bad.numpy()
    assert info.value.statement == "rt_2 = rt_1 @ rt_1"
    text = str(info.value)
    assert info.value.origin == recorded_at
    assert f"recorded at {recorded_at}" in text
    assert "line 3" not in text and "col 8" not in text      # the generated program's position
    assert info.value.line == 3                              # (still there for those who want it)


def bad_line():
    import sys
    return sys._getframe(1).f_lineno
