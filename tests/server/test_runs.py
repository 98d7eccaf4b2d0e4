"""POST /run: values, gradients, outputs, program errors, limits, admission."""
import json
import threading
import time

import numpy as np
import pytest

GRAD_PROGRAM = """
y = (x * x + 2 * x).sum()
y.backward()
print("y =", y.item())
"""


def test_run_answers_values_grads_stdout_and_elapsed(session):
    body = session.ok(GRAD_PROGRAM, inputs={"x": {"data": [1.0, 2.0, 3.0], "requires_grad": True}},
                      outputs=["x", "y"])
    assert body["values"]["x"] == {"shape": [3], "dtype": "float32", "data": [1.0, 2.0, 3.0]}
    assert body["values"]["y"] == {"shape": [], "dtype": "float32", "data": 26.0}
    assert body["grads"] == {"x": {"shape": [3], "dtype": "float32", "data": [4.0, 6.0, 8.0]}}
    assert body["stdout"] == "y = 26.0\n"
    assert body["graph"] is None
    assert body["elapsed_ms"] >= 0


def test_outputs_omitted_returns_every_tensor_the_run_bound(session):
    body = session.ok("a = torch.ones(2)\nb = a * 3\nn = 5\n")
    assert set(body["values"]) == {"a", "b"}
    assert body["values"]["b"]["data"] == [3.0, 3.0]


def test_values_persist_between_runs(session):
    session.ok("w = torch.zeros(2)\nw += 1")
    body = session.ok("w = w * 5", outputs=["w"])
    assert body["values"]["w"]["data"] == [5.0, 5.0]


def test_numbers_and_lists_of_tensors_are_outputs_too(session):
    body = session.ok("n = 3\nf = 2.5\nparts = [torch.ones(1), torch.zeros(1)]\nbad = float('nan')",
                      outputs=["n", "f", "parts", "bad"])
    assert body["values"]["n"] == 3 and body["values"]["f"] == 2.5
    assert body["values"]["bad"] == "NaN"
    assert [p["data"] for p in body["values"]["parts"]] == [[1.0], [0.0]]


def test_nan_and_infinity_travel_as_strings(session):
    body = session.ok("y = x * 1", inputs={"x": [1.0, "NaN", "Infinity", "-Infinity"]}, outputs=["y"])
    assert body["values"]["y"]["data"] == [1.0, "NaN", "Infinity", "-Infinity"]


def test_base64_encoding_round_trips_bytes(session):
    import base64
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    body = session.ok("y = x * 2", inputs={"x": {"b64": base64.b64encode(x.tobytes()).decode(), "shape": [3, 4],
                                                 "dtype": "float64"}}, outputs=["y"], encoding="base64")
    y = body["values"]["y"]
    assert y["shape"] == [3, 4] and y["dtype"] == "float64"
    np.testing.assert_array_equal(np.frombuffer(base64.b64decode(y["b64"]), np.float64).reshape(3, 4), x * 2)


def test_kserve_tensor_is_accepted_as_input(session):
    body = session.ok("y = x.sum()", inputs={"x": {"name": "x", "shape": [2, 2], "datatype": "INT32",
                                                   "data": [1, 2, 3, 4]}}, outputs=["y"])
    assert body["values"]["y"]["data"] == 10


def test_missing_output_is_a_422_naming_it(session):
    r = session.run("a = 1", outputs=["nothere"])
    assert r.status_code == 422
    assert "nothere" in r.json()["error"]["message"]


def test_non_tensor_output_is_a_422_naming_it(session):
    r = session.run("s = 'text'", outputs=["s"])
    assert r.status_code == 422
    assert "'s'" in r.json()["error"]["message"]


def test_program_error_is_a_422_pointing_into_the_program(session):
    r = session.run("a = torch.ones(2)\nb = a * 2\nraise ValueError('bad value')\n")
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["type"] == "ValueError"
    assert "bad value" in error["message"]
    assert error["line"] == 3
    assert {"message", "col", "traceback"} <= set(error)


def test_syntax_error_is_a_422(session):
    r = session.run("a = (1 +\n")
    assert r.status_code == 422
    assert r.json()["error"]["type"] == "SyntaxError"


def test_values_bound_before_a_failure_persist(session):
    assert session.run("kept = torch.ones(1)\nraise ValueError('stop')").status_code == 422
    assert session.ok("z = kept + 1", outputs=["z"])["values"]["z"]["data"] == [2.0]


def test_program_larger_than_the_limit_answers_413(session, live_server):
    with live_server.limits(program_bytes=100):
        r = session.run("a = 1\n" * 50)
    assert r.status_code == 413
    assert r.json()["error"]["limit"] == "program_bytes"


def test_wall_time_answers_408_and_the_session_stays_usable(session, live_server):
    session.ok("before = torch.ones(1)")
    with live_server.limits(wall_time_s=0.5):
        t0 = time.monotonic()
        r = session.run("i = 0\nwhile True:\n    i = i + 1\n")
        assert r.status_code == 408, r.text
        assert time.monotonic() - t0 < 5
    assert r.json()["error"]["type"] == "LimitExceeded"
    assert session.ok("after = before + 1", outputs=["after"])["values"]["after"]["data"] == [2.0]


def test_second_concurrent_run_on_a_session_answers_409(session, live_server):
    results = {}

    def slow():
        results["slow"] = session.run("i = 0\nwhile i < 300000:\n    i = i + 1\n")

    t = threading.Thread(target=slow)
    t.start()
    deadline = time.monotonic() + 5
    while live_server.app.state.sessions.sessions[session.id].run_id is None and time.monotonic() < deadline:
        time.sleep(0.005)
    r = session.run("a = 1")
    t.join()
    assert r.status_code == 409
    assert r.json()["error"]["type"] == "Conflict"
    assert results["slow"].status_code == 200


def test_queue_cap_answers_429_with_retry_after(session, live_server):
    with live_server.setting(max_queued_runs=0):
        r = session.run("a = 1")
    assert r.status_code == 429
    assert r.headers["retry-after"] == "1"


def test_graph_true_returns_the_graph_of_the_outputs(session):
    body = session.ok(GRAD_PROGRAM, inputs={"x": {"data": [1.0, 2.0], "requires_grad": True}}, outputs=["y"],
                      graph=True)
    graph = body["graph"]
    assert {"nodes", "edges"} <= set(graph)
    ops = {n["op"] for n in graph["nodes"] if n["kind"] != "leaf"}
    assert ops  # mul/add/sum, named as the engine names them
    assert any(n.get("name") == "y" for n in graph["nodes"])


def test_graph_route_shows_a_variables_graph(session):
    session.ok(GRAD_PROGRAM, inputs={"x": {"data": [1.0, 2.0], "requires_grad": True}})
    r = session.get("/graph", params={"of": "y"})
    assert r.status_code == 200, r.text
    assert r.json()["nodes"]
    assert session.get("/graph", params={"of": "missing"}).status_code == 404


@pytest.mark.parametrize("body", [
    {},                                       # no program
    {"program": 5},
    {"program": "a = 1", "outputs": "a"},     # not a list
    {"program": "a = 1", "encoding": "hex"},
    {"program": "a = 1", "colour": 1},
])
def test_malformed_run_bodies_answer_422(session, body):
    r = session.client.post(session.path + "/run", json=body, headers=session.headers)
    assert r.status_code == 422
    assert r.json()["error"]["type"] == "ValidationError"


def test_malformed_json_answers_422(session):
    r = session.client.post(session.path + "/run", content=b'{"program": "a = 1",', headers={
        **session.headers, "Content-Type": "application/json"})
    assert r.status_code == 422


def _post(session, body, content_type, headers=None):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    hdrs = dict(session.headers if headers is None else headers)
    if content_type is not None:
        hdrs["Content-Type"] = content_type
    return session.client.post(session.path + "/run", content=raw, headers=hdrs)


# "application/json" may take the run route's short way; "+json" types always take FastAPI's handler.
@pytest.mark.parametrize("body", [
    {"program": "a = torch.ones(2)", "outputs": ["a"]},
    {},
    {"program": 5},
    {"program": "a = 1", "inputs": {"x": [[1, 2], [3]]}},
    {"program": "a = 1", "colour": 1},
    [1, 2],
    b'{"program": "a = 1",',
    b"[" * 100_000 + b"]" * 100_000,
    b"",
])
def test_run_answers_the_same_whichever_way_fastapi_reads_the_body(session, body):
    fast = _post(session, body, "application/json")
    generic = _post(session, body, "application/vnd.gradserve+json")
    assert fast.status_code == generic.status_code and fast.status_code < 500
    if fast.status_code == 200:
        assert fast.json()["values"] == generic.json()["values"]
    else:
        assert fast.json() == generic.json()


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8",
                                          "application/vnd.gradserve+json"])
def test_run_authentication_fails_the_same_for_any_json_content_type(session, content_type):
    body = {"program": "a = 1"}
    assert _post(session, body, content_type, headers={}).status_code == 401
    assert _post(session, body, content_type, headers={"Authorization": "Bearer wrong"}).status_code == 404
    long_id = session.client.post(f"/v1/sessions/{'x' * 65}/run", json=body, headers=session.headers)
    assert long_id.status_code == 422


def test_big_integers_and_lone_surrogates_reach_the_caller(session):
    assert session.ok("n = 2 ** 100", outputs=["n"])["values"]["n"] == 2 ** 100
    r = session.run('raise ValueError("a\\ud800b")')
    assert r.status_code == 422 and r.json()["error"]["message"] == "a\ud800b"


def test_a_program_side_numpy_array_is_an_output_with_no_gradient(session):
    body = session.ok("import numpy as np\nw = torch.ones(2, requires_grad=True)\n"
                      "a = (w * 3).detach().numpy()\nb = np.arange(3) * 2", outputs=["a", "b", "w"])
    assert body["values"]["a"] == {"shape": [2], "dtype": "float32", "data": [3.0, 3.0]}
    assert body["values"]["b"]["data"] == [0, 2, 4] and body["values"]["b"]["dtype"] == "int64"
    assert "a" not in body["grads"] and "b" not in body["grads"]
