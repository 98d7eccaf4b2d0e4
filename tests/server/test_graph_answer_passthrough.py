"""Graph answers cross from the worker as JSON text and reach the client without the API parsing them.

A 190k-node graph (within graph_answer_max_nodes) was a 55 MB frame header that the API process read
with json.loads on its event loop: 2.6 s per answer during which no other session was served (attack5:
a neighbour's 10 ms run waited 4.5 s while two clients fetched such graphs). The worker now sends the
graph's text as a reply buffer, and the API writes it into the answer as it is (json_codec.RawJSON).
"""
import json

import pytest

from gradserve.server import answers, json_codec
from gradserve.server.worker import Worker

CHAIN = "x = torch.ones(2, requires_grad=True)\ny = x\nfor i in range(N):\n    y = y * 1.5\nz = y.sum()"


def _worker_run(worker, program, **extra):
    return worker.handle({"op": "run", "session": "s", "run": "r", "program": program, "inputs": {},
                          "outputs": ["z"], "limits": {}, **extra}, [])


@pytest.fixture
def worker():
    w = Worker()
    reply, _ = w.handle({"op": "open", "session": "s"}, [])
    assert reply["ok"], reply
    return w


def test_a_run_reply_carries_its_graph_as_a_buffer_not_in_its_header(worker):
    reply, out = _worker_run(worker, CHAIN.replace("N", "3000"), graph=True)
    assert reply["ok"], reply
    header = json_codec.dumps(reply)
    assert len(header) < 2000, len(header)           # the header names a buffer; the nodes are not in it
    graph = json.loads(bytes(out[reply["graph"]["json_buf"]]))
    assert len(graph["nodes"]) > 3000 and {"id", "kind", "op", "shape"} <= set(graph["nodes"][0])
    tree = answers.run_skeleton(reply, out)
    assert type(tree["graph"]) is json_codec.RawJSON
    assert json.loads(json_codec.dumps(answers.payload(tree, "json")))["graph"] == graph
    assert json.loads(b"".join(answers.stream_json(tree, "json")))["graph"] == graph


def test_a_graph_reply_carries_its_graph_as_a_buffer(worker):
    assert _worker_run(worker, CHAIN.replace("N", "3000"))[0]["ok"]
    reply, out = worker.handle({"op": "graph", "session": "s", "of": "z"}, [])
    assert reply["ok"], reply
    assert len(json_codec.dumps(reply)) < 2000
    assert len(json.loads(bytes(out[reply["graph"]["json_buf"]]))["nodes"]) > 3000


def test_a_run_without_graph_has_no_graph_buffer(worker):
    reply, out = _worker_run(worker, CHAIN.replace("N", "3"))
    assert reply["ok"] and reply["graph"] is None
    assert answers.run_skeleton(reply, out)["graph"] is None


def test_raw_json_is_written_as_it_is_also_where_orjson_cannot_write_the_answer():
    raw = json_codec.RawJSON(b'{"nodes":[{"id":0,"value":{"min":"NaN"}}],"edges":[]}')
    for stdout in ("plain", "lone \ud800 surrogate"):   # the second goes through the standard library
        text = json_codec.dumps({"graph": raw, "stdout": stdout, "values": [raw, None]})
        doc = json.loads(text)
        assert doc["graph"] == {"nodes": [{"id": 0, "value": {"min": "NaN"}}], "edges": []}
        assert doc["values"][0] == doc["graph"] and doc["stdout"] == stdout


def test_graph_answers_over_http_and_websocket_are_whole_json(live_server, http, session):
    from websockets.sync.client import connect

    # an int past 64 bits: orjson refuses it, and the answer goes through the standard library
    body = session.ok(CHAIN.replace("N", "500") + "\nbig = 2 ** 100", outputs=["z", "big"], graph=True)
    nodes = body["graph"]["nodes"]
    assert len(nodes) > 500 and body["values"]["big"] == 2 ** 100
    r = http.get(f"/v1/sessions/{session.id}/graph", params={"of": "z"},
                 headers={"Authorization": f"Bearer {session.token}"})
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    assert [n["id"] for n in r.json()["nodes"]] == [n["id"] for n in nodes]
    with connect(f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token={session.token}") as ws:
        ws.send(json.dumps({"type": "run", "id": "g", "program": "w = z * 2", "outputs": ["w"], "graph": True}))
        while True:
            event = json.loads(ws.recv(timeout=30))
            if event["type"] in ("result", "error"):
                break
    assert event["type"] == "result" and len(event["graph"]["nodes"]) > len(nodes)
