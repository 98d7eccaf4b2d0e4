"""NumPy arrays wherever a tensor goes (the object form too), and the binary tensor extension:
binary answers by default, binary requests above a size, both exact."""
import json

import httpx
import numpy as np
import pytest

from gradserve.client import protocol
from gradserve.client.encoding import (BINARY_HEADER, BINARY_INPUT_BYTES, decode_value, encode_input,
                                       parse_binary)
from gradserve.client.session import encode_inputs

SQUARE = "y = (x * x).sum()\ny.backward()"


def test_numpy_data_in_the_object_form_asks_for_a_gradient_in_one_call(session):
    result = session.run(SQUARE, inputs={"x": {"data": np.array([1.0, 2.0]), "requires_grad": True}})
    np.testing.assert_array_equal(result.grads["x"], [2.0, 4.0])
    assert result.grads["x"].dtype == np.float64   # the array's dtype is kept
    assert result.values["y"] == 5.0


@pytest.mark.parametrize("encoding", ["auto", "json", "base64", "binary"])
def test_numpy_object_form_in_every_encoding(session, encoding):
    x = np.array([[1.5, -2.0]], dtype=np.float32)
    result = session.run(SQUARE, inputs={"x": {"data": x, "requires_grad": True}}, encoding=encoding)
    np.testing.assert_array_equal(result.grads["x"], 2 * x)
    assert result.grads["x"].dtype == np.float32


def test_an_object_form_with_numpy_data_and_a_dtype_is_converted():
    wire = encode_input({"data": np.array([1, 2]), "dtype": "float32", "requires_grad": True}, "json")
    assert wire == {"data": [1.0, 2.0], "dtype": "float32", "requires_grad": True}
    assert json.dumps(encode_inputs({"x": {"data": np.float64(2.5)}}, "auto"))   # JSON-ready


def test_auto_sends_big_numpy_inputs_as_a_binary_request():
    big = np.ones(BINARY_INPUT_BYTES // 8 + 1)
    raws = []
    inputs = encode_inputs({"x": {"data": big, "requires_grad": True}, "k": 3}, "auto", raws)
    call = protocol.run("s", "t", "y = x", inputs, None, False, "auto", raws)
    n = int(call.headers[BINARY_HEADER])
    head = json.loads(call.content[:n])
    assert head["encoding"] == "binary" and head["inputs"]["k"] == 3
    assert head["inputs"]["x"] == {"shape": [big.size], "dtype": "float64", "binary_data_size": big.nbytes,
                                   "requires_grad": True}
    assert call.content[n:] == big.tobytes()
    small = protocol.run("s", "t", "y = x", encode_inputs({"x": np.ones(3)}, "auto"), None, False, "json")
    assert small.content is None and small.json["encoding"] == "json"


def test_big_inputs_and_answers_round_trip_exactly(session):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 200))                     # 480 KB: a binary request
    x[0, 0], x[1, 1] = np.nan, np.inf
    result = session.run("y = x * 2\nk = (x * 0).sum()", inputs={"x": x}, outputs=["y", "k"])
    np.testing.assert_array_equal(result.values["y"], x * 2)
    assert result.values["y"].dtype == np.float64 and result.values["y"].flags.writeable
    assert np.isnan(result.values["k"])


def test_the_client_asks_for_binary_answers_and_reads_them(session, server_url):
    session.put("w", np.arange(6, dtype=np.int32).reshape(2, 3))
    r = httpx.get(f"{server_url}/v1/sessions/{session.id}/variables/w", params={"encoding": "binary"},
                  headers={"Authorization": f"Bearer {session.token}"})
    assert r.headers["content-type"] == "application/octet-stream"
    value = parse_binary(r.content, int(r.headers[BINARY_HEADER]))
    np.testing.assert_array_equal(decode_value(value["value"]), np.arange(6).reshape(2, 3))
    assert value["grad"] is None
    got = session.get("w")
    assert got.dtype == np.int32 and got.shape == (2, 3)


def test_parse_binary_reads_tensors_in_header_order():
    a, b = np.arange(3, dtype=np.float32), np.array([[True, False]])
    head = json.dumps({"values": {"a": {"shape": [3], "dtype": "float32", "binary_data_size": 12},
                                  "l": [1, {"shape": [1, 2], "dtype": "bool", "binary_data_size": 2}]},
                       "grads": {}}).encode()
    parsed = parse_binary(head + a.tobytes() + b.tobytes(), len(head))
    np.testing.assert_array_equal(parsed["values"]["a"], a)
    assert parsed["values"]["l"][0] == 1
    np.testing.assert_array_equal(parsed["values"]["l"][1], b)


def test_lists_of_tensors_and_numbers_come_back_from_a_binary_answer(session):
    result = session.run("a = [torch.ones(2), 3, (torch.zeros(1, dtype=torch.int64), 2.5)]", outputs=["a"])
    ones, three, (zeros, half) = result.values["a"]
    np.testing.assert_array_equal(ones, [1.0, 1.0])
    assert three == 3 and half == 2.5 and zeros.dtype == np.int64


def test_a_hostile_output_is_a_clear_client_error(session):
    from gradserve.client import ProgramError
    with pytest.raises(ProgramError) as info:
        session.run("a = [1]\na.append(a)", outputs=["a"])
    assert "'a'" in str(info.value)


def test_put_sends_big_arrays_as_a_binary_request_and_they_arrive_exactly(session):
    big = np.random.default_rng(1).normal(size=(200, 100))       # 160 KB
    call = session._put_call("w", big, True, "auto")
    assert call.content is not None and BINARY_HEADER in call.headers
    session.put("w", big, requires_grad=True)
    got = session.get("w")
    np.testing.assert_array_equal(got, big)
    assert session.variables()["w"].requires_grad
    small = session._put_call("v", np.ones(3), False, "auto")
    assert small.content is None


def test_put_binary_request_mismatches_are_refused(session, server_url):
    head = json.dumps({"shape": [2], "dtype": "float32", "binary_data_size": 8}).encode()
    headers = {"Authorization": f"Bearer {session.token}", "Content-Type": "application/octet-stream"}
    url = f"{server_url}/v1/sessions/{session.id}/variables/w"
    for body, length, status in [(head + b"\0" * 7, len(head), 422), (head + b"\0" * 8, len(head) + 50, 400),
                                 (head + b"\0" * 8, 3, 400)]:
        r = httpx.put(url, content=body, headers={**headers, BINARY_HEADER: str(length)})
        assert r.status_code == status, r.text
    r = httpx.put(url, content=head + b"\0" * 8, headers={**headers, BINARY_HEADER: str(len(head))})
    assert r.status_code == 204
    assert "w" in session.variables()
