import pytest

from gradserve.client import errors as E
from gradserve.client.errors import error_from_response, parse_body


PROGRAM_ERROR = {"error": {"type": "RuntimeError", "message": "shape mismatch", "line": 3,
                           "col": 9, "traceback": [{"line": 3, "col": 9, "function": "<module>"}]}}


def test_program_error_carries_type_line_col_and_traceback():
    exc = error_from_response(422, PROGRAM_ERROR, request_id="req-1")
    assert type(exc) is E.ProgramError
    assert (exc.type, exc.message, exc.line, exc.col) == ("RuntimeError", "shape mismatch", 3, 9)
    assert exc.traceback[0]["function"] == "<module>"
    assert exc.status == 422 and exc.request_id == "req-1" and exc.body == PROGRAM_ERROR
    assert "line 3, col 9" in str(exc)
    assert exc.to_dict()["line"] == 3


def test_limit_exceeded_is_a_program_error_naming_the_limit():
    body = {"error": {"type": "LimitExceeded", "message": "too many steps", "limit": "steps",
                      "line": 2, "col": 1, "traceback": []}}
    exc = error_from_response(422, body)
    assert isinstance(exc, E.LimitExceeded) and isinstance(exc, E.ProgramError)
    assert exc.limit == "steps" and exc.line == 2


@pytest.mark.parametrize("status,limit", [(408, "wall_time"), (413, "body_bytes")])
def test_408_and_413_are_limit_exceeded(status, limit):
    exc = error_from_response(status, {"detail": "too big"})
    assert isinstance(exc, E.LimitExceeded) and exc.limit == limit and exc.status == status
    named = error_from_response(413, {"error": {"type": "LimitExceeded", "limit": "program_bytes",
                                                "message": "program too large"}})
    assert named.limit == "program_bytes"


@pytest.mark.parametrize("status,cls", [
    (400, E.BadRequest), (401, E.AuthError), (403, E.AuthError), (404, E.SessionNotFound),
    (409, E.Conflict), (410, E.SessionGone), (429, E.RateLimited), (500, E.ServerError),
    (502, E.ServerError), (503, E.ServiceUnavailable), (418, E.APIError)])
def test_status_codes_map_to_exception_classes(status, cls):
    exc = error_from_response(status, {"detail": "nope"})
    assert type(exc) is cls and exc.message == "nope" and exc.status == status
    assert isinstance(exc, E.APIError) and isinstance(exc, E.GradserveError)


def test_404_on_a_variable_route_is_not_a_missing_session():
    exc = error_from_response(404, {"error": {"type": "VariableNotFound", "message": "no w"}},
                              session_route=False)
    assert type(exc) is E.NotFound
    assert type(error_from_response(404, {"detail": "Not Found"})) is E.SessionNotFound


def test_validation_422_is_a_bad_request_not_a_program_error():
    exc = error_from_response(422, {"detail": [{"loc": ["body", "program"], "msg": "required"}]})
    assert type(exc) is E.BadRequest and "program" in exc.message


def test_rate_limited_keeps_retry_after():
    exc = error_from_response(429, None, retry_after=2.0)
    assert exc.retry_after == 2.0 and exc.message == "HTTP 429"


def test_parse_body_json_text_and_empty():
    assert parse_body(b'{"a": 1}') == {"a": 1}
    assert parse_body(b"oops") == "oops"
    assert parse_body(b"") is None
    assert error_from_response(500, "oops").message == "oops"


def test_a_cancelled_run_is_run_cancelled_not_a_limit():
    exc = error_from_response(408, {"error": {"type": "Cancelled", "message": "cancelled"}})
    assert type(exc) is E.RunCancelled
