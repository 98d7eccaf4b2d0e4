"""Tensors on the wire: every input form, output forms, and clear 422s for bad ones."""
import base64

import numpy as np
import pytest

from gradserve.server.tensor_wire import TensorFormatError, decode_tensor, encode_tensor


@pytest.mark.parametrize("data, dtype, shape", [
    ([1, 2, 3], "int64", (3,)),
    ([1.0, 2, 3], "float32", (3,)),
    ([[True, False]], "bool", (1, 2)),
    (7, "int64", ()),
    (2.5, "float32", ()),
    (True, "bool", ()),
    ([], "float32", (0,)),
])
def test_nested_lists_are_typed_as_torch_tensor_types_them(data, dtype, shape):
    array, requires_grad = decode_tensor(data, "x", 1000)
    assert array.dtype.name == dtype and array.shape == shape and requires_grad is False


def test_object_form_takes_dtype_and_requires_grad():
    array, rg = decode_tensor({"data": [1, 2], "dtype": "float64", "requires_grad": True}, "x", 10)
    assert array.dtype == np.float64 and rg is True


def test_b64_form_reads_little_endian_bytes():
    raw = np.array([[1, -2]], dtype="<i4").tobytes()
    array, _ = decode_tensor({"b64": base64.b64encode(raw).decode(), "shape": [1, 2], "dtype": "int32"}, "x", 10)
    np.testing.assert_array_equal(array, [[1, -2]])


def test_special_float_strings_become_floats():
    array, _ = decode_tensor([["NaN", "Infinity"], ["-Infinity", 1]], "x", 10)
    assert np.isnan(array[0, 0]) and array[0, 1] == np.inf and array[1, 0] == -np.inf


@pytest.mark.parametrize("bad, fragment", [
    ([[1, 2], [3]], "ragged"),
    ({"data": [1], "dtype": "complex128"}, "unknown dtype"),
    ({"b64": "AAAA", "shape": [2], "dtype": "float32"}, "needs 8"),
    ({"b64": "not base64!", "shape": [1], "dtype": "int8"}, "not valid base64"),
    ({"b64": "AAAA", "shape": [-1], "dtype": "int8"}, "non-negative"),
    ({"name": "x", "shape": [3], "datatype": "FP32", "data": [1, 2]}, "needs 3"),
    ({"name": "x", "shape": [1], "datatype": "FP128", "data": [1]}, "datatype"),
    (["one"], "not a number"),
    ([None], "not a number"),
    ({"data": [1, 2], "requires_grad": True}, "floating-point"),
    ({"data": [1.5], "dtype": "int64"}, "non-integer"),
    ({"shape": [1]}, "needs 'data'"),
    ([2 ** 70], "out of range"),
    ("text", "a tensor must be"),
    (list(range(20)), "tensor_elements"),
])
def test_bad_tensors_raise_clear_errors(bad, fragment):
    with pytest.raises(TensorFormatError) as info:
        decode_tensor(bad, "inputs.x", 10)
    assert fragment in str(info.value)
    assert str(info.value).startswith("inputs.x")


def test_outputs_encode_as_lists_or_base64():
    a = np.array([[1.5, np.nan]], dtype=np.float32)
    assert encode_tensor(a) == {"shape": [1, 2], "dtype": "float32", "data": [[1.5, "NaN"]]}
    assert encode_tensor(np.array(3, dtype=np.int64)) == {"shape": [], "dtype": "int64", "data": 3}
    b = encode_tensor(a, "base64")
    assert base64.b64decode(b["b64"]) == a.tobytes()


# ------------------------------------------------------------------ over HTTP
def test_variables_put_and_get_round_trip(session):
    assert session.put("/variables/w", json={"data": [[1, 2], [3, 4]], "dtype": "float64"}).status_code == 204
    r = session.get("/variables/w")
    assert r.json() == {"value": {"shape": [2, 2], "dtype": "float64", "data": [[1.0, 2.0], [3.0, 4.0]]},
                        "grad": None}
    r = session.get("/variables/w", params={"encoding": "base64"})
    assert np.frombuffer(base64.b64decode(r.json()["value"]["b64"]), np.float64).tolist() == [1, 2, 3, 4]


def test_variable_grad_is_returned_after_backward(session):
    session.put("/variables/w", json={"data": [1.0, 2.0], "requires_grad": True})
    session.ok("(w * w).sum().backward()")
    assert session.get("/variables/w").json()["grad"]["data"] == [2.0, 4.0]


def test_missing_variable_answers_404_naming_it(session):
    r = session.get("/variables/ghost")
    assert r.status_code == 404
    assert "ghost" in r.json()["error"]["message"]


def test_non_tensor_variable_answers_422(session):
    session.ok("n = 3")
    assert session.get("/variables/n").status_code == 422


@pytest.mark.parametrize("body", [
    [[1, 2], [3]],
    {"data": [1], "dtype": "bogus"},
    {"b64": "AAAA", "shape": [3], "dtype": "float32"},
    {"nothing": 1},
    "NaNs",
])
def test_bad_tensor_bodies_answer_422(session, body):
    r = session.put("/variables/w", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["message"]


def test_bad_variable_names_answer_422(session):
    assert session.put("/variables/1abc", json=[1]).status_code == 422
    assert session.put("/variables/a-b", json=[1]).status_code == 422


def test_bad_input_tensor_in_a_run_names_it(session):
    r = session.run("y = x", inputs={"x": [[1, 2], [3]]})
    assert r.status_code == 422
    assert r.json()["error"]["field"] == "inputs.x"


def test_tensor_past_the_element_limit_answers_422(session, live_server):
    with live_server.limits(tensor_elements=8):
        r = session.put("/variables/w", json=list(range(9)))
    assert r.status_code == 422
    assert r.json()["error"]["limit"] == "tensor_elements"


def test_session_bytes_limit_applies_to_uploads(session, live_server):
    with live_server.limits(session_bytes=64):
        r = session.put("/variables/w", json={"b64": base64.b64encode(bytes(80)).decode(), "shape": [10],
                                              "dtype": "float64"})
    assert r.status_code == 422
    assert r.json()["error"]["limit"] == "session_bytes"


def test_checkpoint_saves_and_restores_safetensors(session, http):
    from safetensors.numpy import load
    session.put("/variables/a", json={"data": [1.0, 2.0], "dtype": "float64"})
    session.put("/variables/b", json=[[1, 2, 3]])
    r = session.get("/checkpoint")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/octet-stream"
    saved = load(r.content)
    assert saved["a"].tolist() == [1.0, 2.0] and saved["b"].dtype == np.int64
    session.put("/variables/a", json=[9.0])
    assert session.put("/checkpoint", content=r.content).status_code == 204
    assert session.get("/variables/a").json()["value"]["data"] == [1.0, 2.0]


def test_checkpoint_restore_rejects_garbage_with_422(session):
    r = session.put("/checkpoint", content=b"\x00" * 32)
    assert r.status_code == 422
    assert "safetensors" in r.json()["error"]["message"]
