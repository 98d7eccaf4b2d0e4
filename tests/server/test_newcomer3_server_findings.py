"""Findings of the newcomer3 pass (tests/newcomer3_log.md) on the HTTP API and the stream, one test each."""
import base64
import json

import numpy as np
import pytest
from websockets.sync.client import connect

MANY = "\n".join(f"t{i} = torch.ones(1) * {i}" for i in range(70)) + "\n"


@pytest.mark.parametrize("encoding", ["json", "base64", "binary"])
def test_f7_an_answer_without_outputs_says_which_tensors_it_left_out(session, encoding):
    """A run that names no outputs answers at most 64 of the tensors it bound: 64 of 70 values came back and
    nothing said six were missing. The answer's ``omitted`` says so and names them."""
    r = session.run(MANY, encoding=encoding)
    assert r.status_code == 200, r.text
    if encoding == "binary":
        length = int(r.headers["Inference-Header-Content-Length"])
        body = json.loads(r.content[:length])
    else:
        body = r.json()
    assert list(body["values"]) == [f"t{i}" for i in range(64)]
    assert body["omitted"]["limit"] == "auto_outputs"
    message = body["omitted"]["message"]
    assert "bound 70 tensors" in message and "the first 64" in message and "t64, t65" in message
    assert "t69" in message and "\"outputs\"" in message
    if encoding == "base64":
        assert np.frombuffer(base64.b64decode(body["values"]["t3"]["b64"]), np.float32).tolist() == [3.0]
    # named outputs, or 64 tensors and fewer: nothing left out, no "omitted"
    assert "omitted" not in session.ok(MANY, outputs=["t69"], encoding=encoding if encoding != "binary" else "json")
    assert "omitted" not in session.ok("a = torch.ones(2)")


def test_f7_a_streamed_result_says_so_too(live_server, session):
    url = f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token={session.token}"
    with connect(url) as ws:
        ws.send(json.dumps({"type": "run", "id": "r1", "program": MANY, "trace": False}))
        while True:
            event = json.loads(ws.recv(timeout=30))
            if event["type"] in ("result", "error"):
                break
    assert event["type"] == "result" and len(event["values"]) == 64
    assert event["omitted"]["limit"] == "auto_outputs" and "t64" in event["omitted"]["message"]


def test_f7_the_client_result_carries_it():
    from gradserve.client import RunResult

    omitted = {"limit": "auto_outputs", "message": "left out: t64"}
    r = RunResult.from_json({"values": {}, "grads": {}, "graph": None, "stdout": "", "omitted": omitted})
    assert r.omitted == omitted and "omitted" not in repr(r)
    assert RunResult.from_json({"values": {}, "grads": {}}).omitted is None


@pytest.mark.parametrize("header, says", [
    (None, "send it as the header 'Authorization: Bearer TOKEN'"),
    ("TOKEN_ALONE", "the Authorization header is not of the form 'Bearer TOKEN'"),
    ("Token abc", "the Authorization header is not of the form 'Bearer TOKEN'")])
def test_f10_a_missing_or_misspelt_bearer_header_says_how_to_send_the_token(session, header, says):
    """`curl -H "Authorization: $TOKEN"` (the scheme left out, a common slip) answered "missing bearer token",
    as if nothing had been sent; the answer says what the header must look like, and never echoes it."""
    headers = {} if header is None else {"Authorization": session.token if header == "TOKEN_ALONE" else header}
    r = session.client.get(session.path, headers=headers)
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    error = r.json()["error"]
    assert error["type"] == "Unauthorized" and error["message"].startswith("missing bearer token (the session's token): ")
    assert says in error["message"] and session.token not in r.text


def test_f10_an_api_key_server_says_how_to_send_the_key(live_server, http):
    before = live_server.settings.api_keys
    live_server.settings.api_keys = ["k1"]
    try:
        error = http.post("/v1/sessions").json()["error"]
        assert error["message"] == ("this server needs an API key to create sessions: send it as the header "
                                    "'Authorization: Bearer KEY'")
        error = http.post("/v1/sessions", headers={"Authorization": "k1"}).json()["error"]
        assert "not of the form 'Bearer KEY'" in error["message"] and "k1" not in error["message"]
        created = http.post("/v1/sessions", headers={"Authorization": "Bearer k1"})
        assert created.status_code == 201
        http.delete(f"/v1/sessions/{created.json()['id']}", headers={"Authorization": f"Bearer {created.json()['token']}"})
    finally:
        live_server.settings.api_keys = before
