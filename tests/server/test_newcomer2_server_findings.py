"""Findings of the second newcomer pass (tests/newcomer2_log.md) on the HTTP API, one test each."""
import pytest


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", None, "text/plain"])
def test_h2_a_variable_put_without_the_json_content_type_says_so(session, content_type):
    """H2: ``curl -XPUT .../variables/w -d '[1.0]'`` (curl's form Content-Type) answered
    "body: a bytes is not a number"; it now says what ``POST .../run`` says in that case."""
    headers = {**session.headers, **({"Content-Type": content_type} if content_type else {})}
    r = session.client.put(session.path + "/variables/w", content=b"[1.0, 2.0]", headers=headers)
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert (error["type"], error["field"]) == ("ValidationError", "body")
    assert "must be a JSON tensor sent with Content-Type: application/json" in error["message"], error
    assert f"this request's Content-Type: {content_type or 'none'}" in error["message"], error
    assert "w" not in session.get("").json()["variables"]
    r = session.client.put(session.path + "/variables/w", content=b"[1.0, 2.0]",
                           headers={**session.headers, "Content-Type": "application/json"})
    assert r.status_code == 204, r.text
    assert session.get("/variables/w").json()["value"]["data"] == [1.0, 2.0]


def test_h2_a_binary_put_without_its_header_length_says_what_it_needs(session):
    r = session.client.put(session.path + "/variables/w", content=b"\0\0\x80?",
                           headers={**session.headers, "Content-Type": "application/octet-stream"})
    assert r.status_code == 422, r.text
    assert "needs the Inference-Header-Content-Length header" in r.json()["error"]["message"]
