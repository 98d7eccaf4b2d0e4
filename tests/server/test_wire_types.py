"""Every field of every wire input is type-checked before it is used (attack report S2, S3).

A KServe "datatype" that was a list or an object reached a dict lookup and failed on hashing it (500 on
/run and PUT /variables, an InternalError over the WebSocket); a safetensors "dtype" likewise. This is a
sweep over the class: each field of each input form (a tensor object in its JSON, base64 and KServe
forms, through /run, PUT /variables, a binary request and the WebSocket; a checkpoint entry; every
WebSocket message field) gets values of every wrong JSON type, and each answer is a 4xx (or an error
event) naming the field, never a 500, and another session on the same server is untouched.
"""
import base64
import json
import struct

import pytest
from websockets.sync.client import connect

from server_harness import open_session

# A value of every JSON kind, most of them wrong for any given field.
WRONG = [["FP32"], {"a": 1}, None, True, 1.5, -1, "zz", [[1]], 2 ** 70, []]

TWO = base64.b64encode(struct.pack("<2f", 1.0, 2.0)).decode()
FORMS = {
    "data": {"data": [1.0, 2.0], "dtype": "float32", "requires_grad": False, "shape": [2]},
    "b64": {"b64": TWO, "shape": [2], "dtype": "float32", "requires_grad": False},
    "kserve": {"name": "x", "shape": [2], "datatype": "FP32", "data": [1.0, 2.0]},
}
CASES = [(form, key, value) for form, obj in FORMS.items() for key in obj for value in WRONG]


def _case_id(case):
    form, key, value = case
    return f"{form}.{key}={json.dumps(value)[:12]}"


@pytest.fixture(scope="module")
def neighbour(live_server):
    import httpx
    with httpx.Client(base_url=live_server.url, timeout=60) as client:
        s = open_session(client)
        s.ok("keep = torch.arange(4.0)")

        def check():
            assert s.ok("twice = keep * 2", outputs=["twice"])["values"]["twice"]["data"] == [0.0, 2.0, 4.0, 6.0]
            assert s.get("/variables/keep").json()["value"]["data"] == [0.0, 1.0, 2.0, 3.0]

        s.check = check
        yield s
        s.delete()


def _accepted_or_named(r, prefix):
    """200/204 (the value happened to be valid there), or a 4xx whose error names the tensor or its field."""
    assert r.status_code < 500, r.text
    if r.status_code not in (200, 204):
        assert r.status_code in (400, 413, 422), r.text
        error = r.json()["error"]
        assert (error.get("field") or "").startswith(prefix) or prefix in error["message"], error
    return r.status_code


def _with(form, key, value):
    return {**FORMS[form], key: value}


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_every_tensor_field_of_the_wrong_type_is_a_4xx_naming_it(session, neighbour, case):
    form, key, value = case
    tensor = _with(form, key, value)
    _accepted_or_named(session.run("y = x", inputs={"x": tensor}, outputs=["y"]), "inputs.x")
    _accepted_or_named(session.put("/variables/x", json=tensor), "body")
    head = json.dumps({"program": "y = x", "outputs": ["y"],
                       "inputs": {"x": {**{k: v for k, v in tensor.items() if k not in ("data", "b64")},
                                        "binary_data_size": 8}}}).encode()
    r = session.client.post(session.path + "/run", content=head + struct.pack("<2f", 1.0, 2.0), headers={
        **session.headers, "Content-Type": "application/octet-stream", "Inference-Header-Content-Length": str(len(head))})
    _accepted_or_named(r, "inputs.x")
    neighbour.check()


@pytest.mark.parametrize("key", ["datatype", "shape", "data", "name"])
def test_kserve_fields_of_the_wrong_type_over_the_websocket_are_error_events(live_server, session, neighbour, key):
    with connect(f"{live_server.ws_url}{session.path}/stream?token={session.token}") as ws:
        for i, value in enumerate(WRONG):
            ws.send(json.dumps({"type": "run", "id": f"r{i}", "program": "y = x", "outputs": ["y"],
                                "inputs": {"x": _with("kserve", key, value)}}))
            while True:
                event = json.loads(ws.recv(timeout=30))
                if event["type"] in ("result", "error"):
                    break
            if event["type"] == "error":
                assert event["error"]["type"] != "InternalError", event
                assert event["status"] == 422, event
    neighbour.check()


# ------------------------------------------------------------ checkpoints
def _safetensors(header, data=b"\0" * 8):
    head = json.dumps(header).encode()
    return struct.pack("<Q", len(head)) + head + data


CHECKPOINT_ENTRY = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}


@pytest.mark.parametrize("key", ["dtype", "shape", "data_offsets"])
def test_every_checkpoint_field_of_the_wrong_type_is_a_422_naming_it(session, neighbour, key):
    for value in WRONG:
        r = session.put("/checkpoint", content=_safetensors({"w": {**CHECKPOINT_ENTRY, key: value}}))
        assert r.status_code == 422, (value, r.text)
        # (an empty shape is one: then the byte count is what does not fit)
        assert r.json()["error"]["field"] == f"checkpoint.w.{'data_offsets' if key == 'shape' and value == [] else key}", r.text
    neighbour.check()


def test_checkpoint_entries_and_metadata_of_the_wrong_type_are_refused(session, neighbour):
    for value in WRONG:
        r = session.put("/checkpoint", content=_safetensors({"w": value}))
        assert r.status_code == 422 and r.json()["error"]["field"].startswith("checkpoint.w"), r.text
        if not isinstance(value, dict):
            r = session.put("/checkpoint", content=_safetensors({"__metadata__": value, "w": CHECKPOINT_ENTRY}))
            assert r.status_code == 422 and r.json()["error"]["field"] == "checkpoint.__metadata__", r.text
    assert session.put("/checkpoint", content=_safetensors({"w": CHECKPOINT_ENTRY})).status_code == 204
    neighbour.check()


# ------------------------------------------------------------ WebSocket messages
RUN = {"type": "run", "program": "y = 1", "outputs": ["y"]}
MESSAGES = [({**RUN, key: value}, key) for key in ("id", "program", "inputs", "outputs", "encoding", "graph", "trace")
            for value in WRONG] + \
           [({"type": "cancel", "id": value}, "id") for value in WRONG] + \
           [({"type": "debug", "id": value, "command": "continue"}, "id") for value in WRONG] + \
           [({"type": "debug", "id": "r", "command": value}, "command") for value in WRONG] + \
           [({"type": value}, "type") for value in WRONG]


def test_every_websocket_message_field_of_the_wrong_type_is_an_error_event(live_server, session, neighbour):
    """Each malformed message answers an error event that is no InternalError (or, where the value happens
    to be valid, the run's result), and the connection keeps serving: a ping after each answers."""
    with connect(f"{live_server.ws_url}{session.path}/stream?token={session.token}") as ws:
        for n, (message, key) in enumerate(MESSAGES):
            if message.get("type") == "run" and key != "id":
                message = {**message, "id": f"m{n}"}
            ws.send(json.dumps(message))
            ws.send(json.dumps({"type": "ping"}))
            seen = []
            while True:
                event = json.loads(ws.recv(timeout=30))
                seen.append(event)
                assert not (event["type"] == "error" and event["error"]["type"] == "InternalError"), (message, event)
                kinds = {e["type"] for e in seen}
                if "pong" in kinds and (message.get("type") != "run" or kinds & {"result", "error"}):
                    break
    neighbour.check()
