"""What a watcher learns about a traced run beyond its nodes (SPEC sections 4 and 5): the program
text in ``started``, parameters named by module path, nodes grouped by module call, variables
named after the run, and the full tensors behind a node's summaries (GET /nodes/{id}?run=)."""
import json
import time

import numpy as np
import pytest
from websockets.sync.client import connect

TRANSFORMER = """import torch
import torch.nn as nn
torch.manual_seed(0)
encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16), num_layers=2)
src = torch.randn(5, 2, 8)
out = encoder(src).sum()
out.backward()
"""

MLP = """import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
pred = model(x)
loss = ((pred - torch.ones(3, 1)) ** 2).mean()
loss.backward()
"""


def _stream(live_server, session, program, run_id, **extra):
    with connect(f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token={session.token}", max_size=None) as ws:
        ws.send(json.dumps({"type": "run", "id": run_id, "program": program, "trace": True, **extra}))
        events, deadline = [], time.monotonic() + 60
        while time.monotonic() < deadline:
            event = json.loads(ws.recv(timeout=60))
            if event.get("run") == run_id:
                events.append(event)
                if event["type"] in ("result", "error", "cancelled"):
                    return events
    raise AssertionError("the run did not finish")


def _nodes(events):
    return {e["node"]["id"]: e["node"] for e in events if e["type"] == "node"}


def test_started_event_carries_the_program_text(live_server, session):
    events = _stream(live_server, session, "y = torch.ones(2) * 3\n", "p")
    assert events[0]["type"] == "started" and events[0]["program"] == "y = torch.ones(2) * 3\n"


def test_parameters_are_named_by_module_path_and_inputs_by_name_in_every_traced_run(live_server, session):
    x = {"data": np.arange(12.0).reshape(3, 4).tolist(), "requires_grad": True}
    events = _stream(live_server, session, MLP, "mlp", inputs={"x": x}, outputs=["loss"])
    nodes = _nodes(events)
    leaves = {n["name"]: n for n in nodes.values() if n["kind"] == "leaf"}
    assert {"x", "0.weight", "0.bias", "2.weight", "2.bias"} <= set(leaves)
    assert leaves["0.weight"]["module"] == "0" and leaves["2.bias"]["module"] == "2"
    assert leaves["x"]["module"] is None  # an input belongs to no module
    linears = [n for n in nodes.values() if n["op"] == "linear"]
    assert [n["module"] for n in linears] == ["0", "2"]
    assert [n["module"] for n in nodes.values() if n["op"] == "relu"] == ["1"]
    # module calls are announced before their first node, each with its parent call
    calls = {e["call"]: e for e in events if e["type"] == "module"}
    assert {c["path"]: c["class"] for c in calls.values()} == {"": "Sequential", "0": "Linear", "1": "ReLU", "2": "Linear"}
    root = next(c for c in calls.values() if c["path"] == "")
    assert all(c["parent"] == root["call"] for c in calls.values() if c["path"])
    assert calls[linears[0]["call"]]["path"] == "0"
    # names: the variables the run bound, sent before the result even without "graph": true
    names = next(e["names"] for e in events if e["type"] == "names")
    by_name = {v: int(k) for k, v in names.items()}
    assert nodes[by_name["loss"]]["op"] == "mean" and nodes[by_name["pred"]]["op"] == "linear"
    assert [e["type"] for e in events].index("names") < len(events) - 1


def test_nested_module_paths_name_transformer_parameters_and_nodes(live_server, session):
    events = _stream(live_server, session, TRANSFORMER, "tf")
    nodes = _nodes(events)
    names = {n["name"] for n in nodes.values() if n["kind"] == "leaf" and n["requires_grad"]}
    assert "layers.0.self_attn.in_proj_weight" in names and "layers.1.linear2.bias" in names
    modules = {n["module"] for n in nodes.values() if n["kind"] == "op"}
    assert {"layers.0.self_attn", "layers.1.linear1", "layers.0"} <= modules
    calls = {e["call"]: e for e in events if e["type"] == "module"}
    attn = next(c for c in calls.values() if c["path"] == "layers.0.self_attn")
    assert calls[attn["parent"]]["path"] == "layers.0" and calls[calls[attn["parent"]]["parent"]]["path"] == ""


def test_graph_export_names_inputs_not_listed_in_outputs_and_carries_modules(live_server, session):
    x = {"data": np.ones((3, 4)).tolist(), "requires_grad": True}
    events = _stream(live_server, session, MLP, "g", inputs={"x": x}, outputs=["loss"], graph=True)
    graph = events[-1]["graph"]
    leaves = {n["name"] for n in graph["nodes"] if n["kind"] == "leaf"}
    assert {"x", "0.weight", "2.bias"} <= leaves
    assert {m["path"] for m in graph["modules"]} == {"", "0", "1", "2"}
    named_ops = {n["name"]: n["op"] for n in graph["nodes"] if n["kind"] == "op" and n["name"]}
    assert named_ops.get("pred") == "linear"


def test_graph_export_names_top_level_constants(live_server, session):
    """A tensor the program made without grad (x = torch.randn(...)) is a constant leaf of the graph; the
    export names it by its variable, in a streamed run and in an HTTP run with "graph": true."""
    program = ("import torch.nn as nn\nmodel = nn.Linear(4, 2)\nx = torch.randn(3, 4)\n"
               "loss = model(x).sum()\nloss.backward()\n")
    events = _stream(live_server, session, program, "k", outputs=["loss"], graph=True)
    http = session.ok(program, outputs=["loss"], graph=True)
    for graph in (events[-1]["graph"], http["graph"]):
        leaves = {n["name"]: n for n in graph["nodes"] if n["kind"] == "leaf"}
        assert {"x", "weight", "bias"} <= set(leaves), leaves
        assert leaves["x"]["requires_grad"] is False and leaves["x"]["shape"] == [3, 4]


def test_graph_route_names_parameters_by_module_path(session):
    session.ok("import torch.nn as nn\nm = nn.Linear(3, 2)\ny = m(torch.ones(1, 3)).sum()")
    graph = session.get("/graph", params={"of": "y"}).json()
    assert {"weight", "bias"} <= {n["name"] for n in graph["nodes"] if n["kind"] == "leaf"}


def test_node_route_answers_the_full_value_and_gradient_of_a_traced_run(live_server, session):
    x = {"data": np.arange(12.0).reshape(3, 4).tolist(), "requires_grad": True}
    events = _stream(live_server, session, MLP, "t", inputs={"x": x}, outputs=["loss"])
    nodes = _nodes(events)
    weight = next(n for n in nodes.values() if n["name"] == "0.weight")
    r = session.get(f"/nodes/{weight['id']}", params={"run": "t"})
    assert r.status_code == 200, r.text
    body = r.json()
    value = np.array(body["value"]["data"])
    assert body["value"]["shape"] == [8, 4] and value.shape == (8, 4)
    assert value.min() == pytest.approx(weight["value"]["min"]) and value.max() == pytest.approx(weight["value"]["max"])
    grad = np.array(body["grad"]["data"])
    assert np.linalg.norm(grad) == pytest.approx(weight["grad"]["norm"] if weight["grad"] else
                                                 next(e["grad"]["norm"] for e in events
                                                      if e["type"] == "backward" and e["node"] == weight["id"]))
    # the input's value is what was sent
    xs = next(n for n in nodes.values() if n["name"] == "x")
    assert session.get(f"/nodes/{xs['id']}", params={"run": "t"}).json()["value"]["data"] == x["data"]


def test_node_route_refuses_an_older_run_and_an_unknown_node(live_server, session):
    _stream(live_server, session, "a = torch.ones(2, requires_grad=True)\nb = (a * 2).sum()", "first")
    _stream(live_server, session, "c = torch.ones(2, requires_grad=True)\nd = (c * 3).sum()", "second")
    old = session.get("/nodes/0", params={"run": "first"})
    assert old.status_code == 404 and "last traced run" in old.json()["error"]["message"]
    assert session.get("/nodes/999", params={"run": "second"}).status_code == 404
    assert session.get("/nodes/0", params={"run": "second"}).status_code == 200


def test_node_route_keeps_tensors_within_its_size_cap(live_server, session):
    """A traced run keeps each node's tensors up to KEEP_ELEMENTS elements (and TRACE_KEEP_BYTES in all): a
    bigger one answers a 404 that says why, while the small nodes of the same run still answer."""
    from gradserve.server import runtime
    n = runtime.KEEP_ELEMENTS + 1
    program = (f"big = torch.ones({n}, requires_grad=True)\n"
               "small = torch.ones(3, requires_grad=True)\n"
               "loss = (big * 2).sum() + (small * 3).sum()\n"
               "loss.backward()\n")
    events = _stream(live_server, session, program, "cap", outputs=["loss"])
    names = {v: int(k) for e in events if e["type"] == "names" for k, v in e["names"].items()}  # (named as the run ends)
    big, small = names["big"], names["small"]
    assert _nodes(events)[big]["shape"] == [n]
    r = session.get(f"/nodes/{big}", params={"run": "cap"})
    assert r.status_code == 404 and f"{runtime.KEEP_ELEMENTS} elements each" in r.json()["error"]["message"]
    body = session.get(f"/nodes/{small}", params={"run": "cap"}).json()
    assert body["value"]["data"] == [1.0, 1.0, 1.0] and body["grad"]["data"] == [3.0, 3.0, 3.0]


def test_a_graph_answer_past_its_node_cap_is_a_limit_error_and_the_session_goes_on(live_server, http, session):
    # graph=true on a graph of a million nodes (the graph_nodes limit) ran the session process out of
    # memory building the JSON (an unnamed MemoryError); now it is refused by its node count first
    settings = live_server.app.state.settings
    saved = settings.graph_answer_max_nodes
    settings.graph_answer_max_nodes = 20
    try:
        chain = "x = torch.ones(2, requires_grad=True)\ny = x\nfor i in range(30):\n    y = y * 1.01\n"
        r = http.post(f"/v1/sessions/{session.id}/run", headers=session.headers,
                      json={"program": chain, "outputs": ["y"], "graph": True})
        assert r.status_code == 422, r.text
        error = r.json()["error"]
        assert error["type"] == "LimitExceeded" and error["limit"] == "graph_nodes" and "31 nodes" in error["message"]
        r = http.get(f"/v1/sessions/{session.id}/graph", params={"of": "y"}, headers=session.headers)
        assert r.status_code == 422 and r.json()["error"]["limit"] == "graph_nodes"
        small = "a = torch.ones(2, requires_grad=True)\nb = (a * 2).sum()\n"
        r = http.post(f"/v1/sessions/{session.id}/run", headers=session.headers,
                      json={"program": small, "outputs": ["b"], "graph": True})
        assert r.status_code == 200 and len(r.json()["graph"]["nodes"]) == 4, r.text   # leaf, mul, sum, output
    finally:
        settings.graph_answer_max_nodes = saved
