"""Findings of a newcomer's first hour with the product (tests/newcomer_log.md), one test each."""
import json
import struct
import time

import pytest
from websockets.exceptions import InvalidStatus

from server_harness import safetensors_bytes


def test_h1_a_checkpoint_into_a_fresh_session_says_which_module_is_missing_and_what_to_do(http, session):
    """H1: GET a trained session's checkpoint, PUT it into a new session: the answer was
    {"type": "KeyError", "message": "head"}, naming neither the entry nor the cause."""
    session.ok("torch.manual_seed(0)\nkeep = torch.ones(2)\nhead = nn.Linear(2, 1)\nmodel = nn.Sequential(nn.Linear(2, 2))")
    saved = session.get("/checkpoint")
    assert saved.status_code == 200
    from server_harness import open_session
    fresh = open_session(http)
    try:
        r = fresh.put("/checkpoint", content=saved.content)
        assert r.status_code == 422, r.text
        error = r.json()["error"]
        assert error["type"] == "KeyError"
        assert error["field"] == "checkpoint"
        assert error["name"] in ("head.weight", "head.bias", "model.0.weight", "model.0.bias"), error
        top = error["name"].partition(".")[0]
        assert f"run the program that builds {top!r} first" in error["message"], error
        assert "nothing was restored" in error["message"], error
        assert fresh.get("").json()["variables"] == {}            # all or nothing, as before
        # once the program has built the modules, the same file restores
        fresh.ok("head = nn.Linear(2, 1)\nmodel = nn.Sequential(nn.Linear(2, 2))")
        assert fresh.put("/checkpoint", content=saved.content).status_code == 204
        assert fresh.get("/variables/head.weight").json() == session.get("/variables/head.weight").json()
    finally:
        fresh.delete()


def test_h1_a_checkpoint_naming_a_missing_tensor_of_an_existing_module_names_it(session):
    session.ok("m = nn.Linear(2, 2)")
    r = session.put("/checkpoint", content=safetensors_bytes({"m.nope": ([1], [1.0])}))
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["name"] == "m.nope" and "'m' holds no parameter, buffer or tensor 'nope'" in error["message"], error


def test_h1_a_dotted_variable_put_into_a_missing_module_says_so(session):
    r = session.put("/variables/enc.weight", json=[1.0, 2.0])
    assert r.status_code == 422, r.text
    error = r.json()["error"]                   # was {"type": "KeyError", "message": "enc"}
    assert error["name"] == "enc.weight" and "run the program that builds 'enc' first" in error["message"], error


TWO_ROOTS = """torch.manual_seed(0)
lstm = nn.LSTM(3, 4, batch_first=True)
head = nn.Linear(4, 1)
def make():
    return nn.Linear(4, 1)
total = 0
for n in [2, 3]:
    out, (h, c) = lstm(torch.randn(1, n, 3))
    total = total + head(h[-1]).sum() + make()(h[-1]).sum()
total.backward()
"""


def _two_roots_graph(session):
    graph = session.ok(TWO_ROOTS, outputs=["total"], graph=True)["graph"]
    return graph, {m["call"]: m for m in graph["modules"]}


def test_h5_a_module_called_at_top_level_is_named_by_its_variable(session):
    """H5: lstm and head, called at top level, both had the path "" and no name: the viewer titled their
    boxes "LSTM" and "Linear" and their parameters were "weight", "bias", as for any other Linear."""
    graph, calls = _two_roots_graph(session)
    roots = [m for m in calls.values() if m["parent"] is None]
    assert [(m["path"], m.get("name"), m["class"]) for m in roots] == [
        ("", "lstm", "LSTM"), ("", "head", "Linear"), ("", None, "Linear")] * 2   # make()'s Linear has no variable
    # a parameter sits in the call of the module that owns it, so it is told apart by that call's name
    leaves = [n for n in graph["nodes"] if n["kind"] == "leaf" and n["name"] == "weight"]
    assert {calls[n["call"]].get("name") for n in leaves} == {"head", None}


def test_h5_the_stream_names_root_modules_too(live_server, session):
    from websockets.sync.client import connect
    with connect(f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token={session.token}") as ws:
        ws.send(json.dumps({"type": "run", "id": "r", "program": TWO_ROOTS, "trace": True}))
        modules = []
        while True:
            event = json.loads(ws.recv(timeout=60))
            if event["type"] == "module":
                modules.append((event["path"], event.get("name"), event["class"]))
            if event["type"] in ("result", "error"):
                assert event["type"] == "result", event
                break
    assert modules[:3] == [("", "lstm", "LSTM"), ("", "head", "Linear"), ("", None, "Linear")]


DRAW_BOXES = r"""
const fs = require("fs");
global.performance = global.performance || require("perf_hooks").performance;
require("vm").runInThisContext(fs.readFileSync(process.argv[2], "utf8") + "\nglobal.GradGraph = GradGraph;");
const graph = JSON.parse(fs.readFileSync(0, "utf8"));
const r = { nodes: new Map(), consumers: new Map(), calls: new Map(), folds: new Map(), selected: null, state: "done" };
(graph.modules || []).forEach((m) => r.calls.set(m.call, m));
const inputs = new Map();
graph.edges.forEach((e) => { if (!inputs.has(e.to)) inputs.set(e.to, []); inputs.get(e.to)[e.input_index] = e.from; });
graph.nodes.forEach((raw) => {
  if (raw.kind === "output") return;
  const n = Object.assign({}, raw, { inputs: Array.from(inputs.get(raw.id) || [], (s) => (s === undefined ? null : s)) });
  r.nodes.set(n.id, n);
  n.inputs.forEach((s) => { if (s === null) return; if (!r.consumers.has(s)) r.consumers.set(s, []); r.consumers.get(s).push(n.id); });
});
GradGraph.layout(r);
console.log(JSON.stringify(r.boxes.map((b) => b.label)));
"""


def test_h5_the_viewer_titles_a_root_module_box_with_its_variable(session, tmp_path):
    """draw.js (the viewer's and the notebook's layout) titles a root call's box "head · Linear"."""
    import shutil
    import subprocess
    from pathlib import Path
    import pytest
    node = shutil.which("node")
    if node is None:
        pytest.skip("needs node to run draw.js")
    graph, _ = _two_roots_graph(session)
    script = tmp_path / "boxes.js"
    script.write_text(DRAW_BOXES)
    draw_js = Path(__file__).resolve().parents[2] / "client" / "static" / "draw.js"
    out = subprocess.run([node, str(script), str(draw_js)], input=json.dumps(graph), capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    labels = json.loads(out.stdout)
    assert "lstm · LSTM" in labels and "head · Linear" in labels, labels
    assert "Linear" in labels                     # make()'s module, held by no variable


def test_h2_a_refused_variable_name_says_why_in_words(session):
    """H2: PUT /variables/_x answered pydantic's "String should match pattern '^[A-Za-z]...$'"."""
    cases = {"_x": "private name '_x'", "1x": "is not a name", "a.__class__": "private name '__class__'",
             "x-y": "is not a name"}
    for name, words in cases.items():
        r = session.put(f"/variables/{name}", json=[1.0])
        assert r.status_code == 422, (name, r.text)
        error = r.json()["error"]
        assert error["type"] == "ValidationError" and error["field"] == "path.name", error
        assert words in error["message"] and "pattern" not in error["message"], (name, error)
    r = session.get("/graph", params={"of": "_hidden"})
    assert r.status_code == 422 and "private name '_hidden'" in r.json()["error"]["message"], r.text


def test_h3_an_output_that_cannot_be_answered_names_its_field(session):
    """H3: outputs=["x", "a"] with a a str answered 422 with "name" but no "field", where a missing
    output's 422 says "field": "outputs.1"."""
    r = session.run("x = torch.ones(1)\na = 'text'", outputs=["x", "a"])
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["type"] == "TypeError" and error["name"] == "a" and error["field"] == "outputs.1", error
    r = session.run("x = torch.ones(1)", outputs=["x", "missing"])
    assert r.json()["error"]["field"] == "outputs.1", r.text


def test_h4_a_graph_lists_only_the_module_calls_its_nodes_were_made_under(session):
    """H4: the graph of a 50-step loop's last loss had its 13 nodes and all 200 module calls of the run."""
    program = ("torch.manual_seed(0)\nmodel = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))\n"
               "x = torch.randn(16, 4)\nfor step in range(50):\n    loss = model(x).pow(2).mean()\n    loss.backward()\n")
    graph = session.ok(program, outputs=["loss"], graph=True)["graph"]
    calls = {m["call"]: m for m in graph["modules"]}
    used = {n["call"] for n in graph["nodes"] if n.get("call") is not None}
    # the last step's Sequential and its 3 layers, and the first step's calls its parameters were first
    # seen under (a parameter leaf keeps the call it was reported in): 7 of the run's 200
    assert len(calls) <= 7, graph["modules"]
    assert used <= set(calls)
    assert {m["call"] for m in calls.values() if m["parent"] is not None} <= used
    assert all(m["parent"] is None or m["parent"] in calls for m in calls.values())


def test_w1_a_run_message_reusing_the_id_of_a_run_in_progress_is_a_409_that_says_the_run_goes_on(live_server, session):
    """README: a run on a busy session is, over the WebSocket, an error event with "status": 409. A run
    message reusing the id of the run in progress got a Conflict error event without a status (and
    under that run's id, so it read like that run's own failure)."""
    from websockets.sync.client import connect
    busy = "import time\nt = time.time()\nwhile time.time() - t < 1:\n    pass\n"
    with connect(f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token={session.token}") as ws:
        ws.send(json.dumps({"type": "run", "id": "a", "program": busy}))
        assert json.loads(ws.recv(timeout=30))["type"] == "started"
        ws.send(json.dumps({"type": "run", "id": "a", "program": "x = 1"}))
        event = json.loads(ws.recv(timeout=30))
        assert event["type"] == "error" and event["status"] == 409, event
        assert "that run goes on" in event["error"]["message"], event
        assert json.loads(ws.recv(timeout=30))["type"] == "result"


def test_h6_a_node_the_run_never_made_is_said_to_be_none_of_its_nodes(live_server, session):
    """H6: GET /nodes/99?run=RUN of a 3-node run answered that node 99 "has no kept tensor (tensors past
    33554432 bytes in all, or 1048576 elements each, are not kept)": the wrong reason."""
    from websockets.sync.client import connect
    with connect(f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token={session.token}") as ws:
        ws.send(json.dumps({"type": "run", "id": "t", "trace": True,
                            "program": "w = torch.ones(2, requires_grad=True)\ny = (w * 2).sum()\ny.backward()"}))
        while json.loads(ws.recv(timeout=60))["type"] not in ("result", "error"):
            pass
    assert session.get("/nodes/0", params={"run": "t"}).status_code == 200
    r = session.get("/nodes/99", params={"run": "t"})
    assert r.status_code == 404, r.text
    assert r.json()["error"]["message"] == "this run made no node 99 (its nodes are 0 to 2)", r.text


def test_h8_a_binary_body_without_its_header_length_says_what_is_missing(session):
    """H8: a Triton binary run body (application/octet-stream) sent without Inference-Header-Content-Length
    answered only "the body must be a JSON object sent with Content-Type: application/json"."""
    head = json.dumps({"program": "y = x * 2", "outputs": ["y"],
                       "inputs": {"x": {"shape": [3], "dtype": "float32", "binary_data_size": 12}}}).encode()
    body = head + struct.pack("<3f", 1, 2, 3)
    r = session.client.post(f"/v1/sessions/{session.id}/run", content=body,
                            headers={**session.headers, "Content-Type": "application/octet-stream"})
    assert r.status_code == 422, r.text
    assert "needs the Inference-Header-Content-Length header" in r.json()["error"]["message"], r.text
    r = session.client.post(f"/v1/sessions/{session.id}/run", content=body,
                            headers={**session.headers, "Content-Type": "application/octet-stream",
                                     "Inference-Header-Content-Length": str(len(head))})
    assert r.status_code == 200 and r.json()["values"]["y"]["data"] == [2.0, 4.0, 6.0], r.text


def test_w2_a_cancel_of_a_run_not_in_progress_is_answered(live_server, session):
    """W2: a WebSocket {"type": "cancel", "id": ...} naming no run in progress got no answer at all, so a
    client could not tell a typo from a cancel still under way. Now it is answered with a NotFound error."""
    from websockets.sync.client import connect
    url = f"{live_server.ws_url}{session.path}/stream?token={session.token}"
    with connect(url) as ws:
        ws.send(json.dumps({"type": "run", "id": "done", "program": "y = 1"}))
        while json.loads(ws.recv(timeout=30))["type"] != "result":
            pass
        for run_id in ("unknown", "done"):   # never started, and finished
            ws.send(json.dumps({"type": "cancel", "id": run_id}))
            event = json.loads(ws.recv(timeout=30))
            assert event["type"] == "error" and event["run"] == run_id and event["status"] == 404, event
            assert event["error"]["type"] == "NotFound", event
            assert "nothing was cancelled" in event["error"]["message"], event
        ws.send(json.dumps({"type": "run", "id": "after", "program": "z = 2"}))   # the connection goes on
        while (event := json.loads(ws.recv(timeout=30)))["type"] not in ("result", "error"):
            pass
        assert event["type"] == "result" and event["run"] == "after", event


def test_h7_an_ended_session_says_it_ended_to_its_own_token_only(live_server, http):
    """H7: a request for a session past its TTL, with its own token, was answered as if the id were
    unknown. Now the 404 says it expired (or was deleted) and when; a wrong token, or an id never made,
    still gets the one answer that tells nothing."""
    from server_harness import open_session
    from websockets.sync.client import connect
    expiring = open_session(http, ttl_s=1)
    deleted = open_session(http)
    deleted.delete()
    time.sleep(1.2)
    answer = expiring.get("")        # expired, before or after the sweeper freed it
    assert answer.status_code == 404, answer.text
    error = answer.json()["error"]
    assert error["type"] == "SessionNotFound" and "the session has ended: it expired at" in error["message"], error
    error = deleted.get("").json()["error"]
    assert "the session has ended: it was deleted at" in error["message"], error
    generic = "no such session, or the token does not match it"
    wrong = http.get(f"{expiring.path}", headers={"Authorization": "Bearer " + "x" * 43})
    assert wrong.status_code == 404 and wrong.json()["error"]["message"] == generic, wrong.text
    never = http.get("/v1/sessions/nope", headers={"Authorization": f"Bearer {expiring.token}"})
    assert never.status_code == 404 and never.json()["error"]["message"] == generic, never.text
    with pytest.raises(InvalidStatus) as refused:   # the stream's refusal says the same
        connect(f"{live_server.ws_url}{deleted.path}/stream?token={deleted.token}").close()
    assert refused.value.response.status_code == 404
    assert b"it was deleted at" in refused.value.response.body, refused.value.response.body
