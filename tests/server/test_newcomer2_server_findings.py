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


def test_h1_a_session_says_why_it_expires_before_its_ttl(http):
    """H1: ``POST /v1/sessions {"ttl_s": 3600}`` answered an ``expires_at`` 30 minutes away and nothing
    said why (the idle timeout comes first); the session's info now gives both ends and the schema says
    what ``expires_at`` is."""
    from datetime import datetime

    from server_harness import open_session
    s = open_session(http, ttl_s=3600)
    try:
        info = s.get("").json()
        created, expires, ends = (datetime.fromisoformat(info[k].replace("Z", "+00:00"))
                                  for k in ("created_at", "expires_at", "ttl_expires_at"))
        assert abs((ends - created).total_seconds() - 3600) < 1
        idle = info["idle_timeout_s"]
        assert isinstance(idle, (int, float)) and idle > 0
        assert expires <= ends and abs((expires - created).total_seconds() - min(3600, idle)) < 5
        schema = http.get("/openapi.json").json()["components"]["schemas"]
        for model in ("SessionCreated", "SessionInfo"):
            assert "idle timeout" in schema[model]["properties"]["expires_at"]["description"]
        assert "GRADSERVE_IDLE_TIMEOUT_S" in schema["CreateSession"]["properties"]["ttl_s"]["description"]
    finally:
        s.delete()


def test_h5_a_variable_that_is_a_number_says_how_to_get_it(session):
    session.ok("n = 3\nrate = 0.5\nhead = nn.Linear(2, 1)")
    r = session.get("/variables/n")
    assert r.status_code == 422
    assert r.json()["error"]["message"] == "'n' is an int, not a tensor; a number comes back as a run's output " \
                                           "(\"outputs\": ['n'])"
    assert session.ok("pass", outputs=["n", "rate"])["values"] == {"n": 3, "rate": 0.5}
    assert session.get("/variables/head").json()["error"]["message"] == "'head' is a Linear, not a tensor"
    assert session.get("/graph", params={"of": "rate"}).json()["error"]["message"].startswith(
        "'rate' is a float, not a tensor;")
