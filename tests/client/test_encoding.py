import base64
import math

import numpy as np
import pytest

from gradserve.client.encoding import (array_to_data, decode_tensor, decode_value, encode_tensor,
                                       is_tensor_object, torch_typed_array)


def test_python_lists_are_sent_as_lists_for_the_server_to_type():
    assert encode_tensor([[1.0, 2.0], [3.0, 4.0]]) == [[1.0, 2.0], [3.0, 4.0]]
    assert encode_tensor([1, 2, 3]) == [1, 2, 3]
    assert encode_tensor(2.5) == 2.5


def test_non_finite_floats_in_lists_travel_as_strings():
    assert encode_tensor([1.0, math.nan, math.inf, -math.inf]) == [1.0, "NaN", "Infinity",
                                                                    "-Infinity"]
    assert encode_tensor(math.nan) == {"data": "NaN", "dtype": "float32"}


def test_requires_grad_uses_the_object_form():
    assert encode_tensor([1.0, 2.0], requires_grad=True) == {"data": [1.0, 2.0],
                                                              "requires_grad": True}


def test_numpy_arrays_keep_their_dtype_in_json():
    obj = encode_tensor(np.array([[1.0, np.nan]], dtype=np.float64))
    assert obj == {"data": [[1.0, "NaN"]], "dtype": "float64"}
    assert encode_tensor(np.array([1, 2], dtype=np.int32)) == {"data": [1, 2], "dtype": "int32"}
    assert encode_tensor(np.array(True)) == {"data": True, "dtype": "bool"}


def test_base64_is_raw_little_endian_bytes_with_shape_and_dtype():
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    obj = encode_tensor(array, encoding="base64")
    assert obj["shape"] == [2, 3] and obj["dtype"] == "float32"
    assert base64.b64decode(obj["b64"]) == array.tobytes()
    big_endian = array.astype(">f4")
    assert encode_tensor(big_endian, encoding="base64")["b64"] == obj["b64"]


def test_base64_of_python_data_is_typed_like_torch_tensor():
    obj = encode_tensor([1.0, 2.0], encoding="base64")
    assert obj["dtype"] == "float32"
    assert encode_tensor([1, 2], encoding="base64")["dtype"] == "int64"
    assert encode_tensor([True], encoding="base64")["dtype"] == "bool"
    assert torch_typed_array([[1, 2.5]]).dtype == np.float32


def test_unsupported_values_are_refused():
    with pytest.raises(TypeError):
        encode_tensor(np.array(["a"]))
    with pytest.raises(ValueError):
        encode_tensor([1.0], encoding="msgpack")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
@pytest.mark.parametrize("encoding", ["json", "base64"])
def test_round_trip_keeps_dtype_shape_and_values(dtype, encoding):
    rng = np.random.default_rng(0)
    array = (rng.normal(size=(2, 3, 4)) * 10).astype(dtype)
    if array.dtype.kind == "f":
        array.flat[:3] = [np.nan, np.inf, -np.inf]
    wire = encode_tensor(array, encoding=encoding)
    out = decode_tensor({**wire, "shape": list(array.shape)})
    assert out.dtype == array.dtype and out.shape == array.shape
    np.testing.assert_array_equal(out, array)


def test_decode_output_forms():
    scalar = decode_tensor({"shape": [], "dtype": "float32", "data": 1.5})
    assert scalar.shape == () and scalar.dtype == np.float32 and scalar == 1.5
    empty = decode_tensor({"shape": [0, 3], "dtype": "int64", "data": []})
    assert empty.shape == (0, 3) and empty.dtype == np.int64
    nan = decode_tensor({"shape": [3], "dtype": "float64", "data": ["NaN", "Infinity", "-Infinity"]})
    assert np.isnan(nan[0]) and nan[1] == np.inf and nan[2] == -np.inf
    decoded = decode_tensor({"shape": [2], "dtype": "float32",
                             "b64": base64.b64encode(np.array([1, 2], "<f4").tobytes()).decode()})
    assert decoded.flags.writeable


def test_decode_value_keeps_numbers_and_lists():
    assert decode_value(3) == 3 and isinstance(decode_value(3), int)
    assert decode_value(2.5) == 2.5
    assert decode_value(True) is True
    assert math.isnan(decode_value("NaN"))
    pair = decode_value([{"shape": [1], "dtype": "int64", "data": [1]}, 2])
    assert isinstance(pair, list) and pair[0].dtype == np.int64 and pair[1] == 2
    assert decode_value([]) == []


def test_is_tensor_object():
    assert is_tensor_object({"shape": [], "dtype": "float32", "data": 1})
    assert not is_tensor_object({"a": 1})
    assert not is_tensor_object([1])


def test_array_to_data_finite_is_plain_tolist():
    assert array_to_data(np.array([1.0, 2.0])) == [1.0, 2.0]
