"""Errors a newcomer with curl meets first: a body that is not JSON, a forgotten
Content-Type, a missing body. Each answers a 422 whose message says what to send, with
the field it is about at the top of the error object (as every other 4xx names it)."""
import pytest


JSON = {"Content-Type": "application/json"}


@pytest.mark.parametrize("route", ["create", "run"])
def test_bad_json_says_the_body_is_not_json_and_where(http, session, route):
    if route == "run":
        r = http.post(session.path + "/run", content=b'{"program": ', headers={**session.headers, **JSON})
        where = "char 12"
    else:
        r = http.post("/v1/sessions", content=b'{"ttl_s": ', headers=JSON)
        where = "char 10"
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["type"] == "ValidationError"
    assert error["field"] == "body"
    assert "not valid JSON" in error["message"]
    assert "Expecting value" in error["message"] and where in error["message"]


def test_json_sent_without_a_json_content_type_names_the_header(http, session):
    # curl -d sends application/x-www-form-urlencoded unless told otherwise
    r = http.post(session.path + "/run", content=b'{"program": "a = 1"}',
                  headers={**session.headers, "Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["field"] == "body"
    assert "Content-Type: application/json" in error["message"]
    assert "application/x-www-form-urlencoded" in error["message"]


def test_a_missing_body_says_a_json_object_is_needed(http, session):
    r = http.post(session.path + "/run", headers={**session.headers, **JSON})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["field"] == "body"
    assert "JSON object" in error["message"]


def test_validation_errors_name_their_field_at_the_top(http):
    r = http.post("/v1/sessions", json={"ttl_s": 0})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["field"] == "body.ttl_s"
    assert error["details"][0]["field"] == "body.ttl_s"
