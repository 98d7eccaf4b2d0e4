"""Tensors on the wire (SPEC section 3): NumPy arrays to JSON objects and back.

Inputs go as a nested list (typed by the server as ``torch.tensor`` types it), a bare number, the
object form ``{"data", "dtype", "requires_grad"}`` (``data`` may be a NumPy array) or
``{"b64", "shape", "dtype"}``. Outputs come back as ``{"shape", "dtype", "data"}`` or
``{"shape", "dtype", "b64"}``; non-finite floats travel as the strings ``"NaN"``, ``"Infinity"`` and
``"-Infinity"``.

``"binary"`` is Triton's binary tensor extension, both ways: a JSON header whose length is sent as
``Inference-Header-Content-Length``, then the raw bytes of each tensor whose object names its
``"binary_data_size"``, in order. With ``"auto"`` (the default) the client asks for binary answers
(exact, and nothing to parse per number) and sends NumPy inputs as raw bytes once they pass
``BINARY_INPUT_BYTES`` together.
"""
from __future__ import annotations

import base64
import json
import math
from typing import Any

import numpy as np

ENCODINGS = ("auto", "json", "base64", "binary")
BINARY_HEADER = "Inference-Header-Content-Length"
# NumPy input bytes past which "auto" sends a run's inputs as a binary request.
BINARY_INPUT_BYTES = 1 << 16

def _float_json(x: float) -> float | str:
    if math.isfinite(x):
        return x
    return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")


def array_to_data(array: np.ndarray) -> Any:
    """A nested list (a bare value for 0-d) with NaN and infinities spelled as strings."""
    if array.dtype.kind == "f" and not np.isfinite(array).all():
        out = array.astype(object)
        out[np.isnan(array)] = "NaN"
        out[np.isposinf(array)] = "Infinity"
        out[np.isneginf(array)] = "-Infinity"
        return out.tolist()
    return array.tolist()


def _nested_json(value: Any) -> Any:
    """A nested Python list with non-finite floats spelled as strings (numbers kept as they are)."""
    if isinstance(value, (list, tuple)):
        return [_nested_json(v) for v in value]
    if isinstance(value, float):
        return _float_json(value)
    if isinstance(value, np.generic):
        return _nested_json(value.item())
    return value


def _holds_arrays(value: Any) -> bool:
    """Whether a nested list holds arrays (NumPy's, or anything with ``__array__``, such as torch's)."""
    if isinstance(value, (list, tuple)):
        return any(_holds_arrays(v) for v in value)
    return not isinstance(value, (bool, int, float, np.generic)) and hasattr(value, "__array__")


def _stacked(value: list | tuple) -> np.ndarray:
    """A list of equal-shape arrays as one array of their dtype, as ``torch.tensor(list_of_arrays)`` makes;
    arrays of different shapes are not one tensor (a ragged batch): ``ValueError`` saying what to send."""
    try:
        return np.asarray(value)
    except ValueError:
        shapes = [tuple(np.shape(v)) for v in value[:4]]
        more = ", ..." if len(value) > 4 else ""
        raise ValueError(f"a list of arrays of different shapes ({', '.join(map(str, shapes))}{more}) is not one "
                         f"tensor: send each as an input of its own (inputs={{'x0': a, 'x1': b}}, then "
                         f"[x0, x1] in the program), or pad them to one shape") from None


def torch_typed_array(data: Any) -> np.ndarray:
    """Python data typed as ``torch.tensor`` types it: floats float32, integers int64, bools bool."""
    array = np.asarray(data)
    if array.dtype.kind == "f":
        return array.astype(np.float32)
    if array.dtype.kind in "iu":
        return array.astype(np.int64)
    if array.dtype.kind == "b":
        return array
    raise TypeError(f"cannot send {type(data).__name__} of dtype {array.dtype} as a tensor")


def _dtype_name(dtype: Any) -> str:
    return np.dtype(dtype).name


def encode_tensor(value: Any, *, encoding: str = "json", requires_grad: bool = False,
                  dtype: Any = None) -> Any:
    """The wire form of an input tensor.

    NumPy arrays and scalars keep their dtype (the object form always names it); Python lists and
    numbers are left for the server to type like ``torch.tensor`` unless ``dtype`` is given or
    ``encoding="base64"`` needs raw bytes.
    """
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding must be one of {ENCODINGS}, not {encoding!r}")
    if isinstance(value, (list, tuple)) and _holds_arrays(value):
        value = _stacked(value)  # (json could not write the arrays inside; their dtype is kept)
    is_python = isinstance(value, (bool, int, float, list, tuple))
    if encoding in ("auto", "binary"):  # one JSON object: NumPy data exact as base64, Python data as JSON
        encoding = "json" if is_python else "base64"
    if is_python and dtype is None and encoding == "json":
        data = _nested_json(value)
        if not requires_grad and not isinstance(data, str):
            return data
        obj: dict[str, Any] = {"data": data}
        if isinstance(data, str):  # a bare non-finite float: say it is a float tensor
            obj["dtype"] = "float32"
        if requires_grad:
            obj["requires_grad"] = True
        return obj
    if is_python:
        array = torch_typed_array(value) if dtype is None else np.asarray(value, dtype=dtype)
    else:
        array = np.asarray(value, dtype=dtype)
    if array.dtype.kind not in "fiub":
        raise TypeError(f"cannot send an array of dtype {array.dtype} as a tensor")
    if encoding == "base64":
        little = array.astype(array.dtype.newbyteorder("<"), copy=False)
        obj = {"b64": base64.b64encode(np.ascontiguousarray(little).tobytes()).decode("ascii"),
               "shape": list(array.shape), "dtype": _dtype_name(array.dtype)}
    else:
        obj = {"data": array_to_data(array), "dtype": _dtype_name(array.dtype)}
    if requires_grad:
        obj["requires_grad"] = True
    return obj


def _is_numpy(value: Any) -> bool:
    return isinstance(value, (np.ndarray, np.generic))


def encode_input(value: Any, encoding: str = "auto", raws: list | None = None) -> Any:
    """The wire form of one run input: anything ``encode_tensor`` takes, or an object form whose
    ``data`` may be a NumPy array (``{"data": np.array(...), "requires_grad": True}``). With ``raws``
    (a binary request), NumPy data goes as raw bytes appended to ``raws``."""
    requires_grad, dtype = False, None
    if isinstance(value, dict):
        data = value.get("data")
        if not _is_numpy(data):
            return value  # already a wire form (a nested list, b64, KServe): sent as it is
        requires_grad = bool(value.get("requires_grad", False))
        dtype = value.get("dtype")
        value = data
    if raws is not None and _is_numpy(value):
        array = np.asarray(value, dtype=dtype)
        if array.dtype.kind not in "fiub":
            raise TypeError(f"cannot send an array of dtype {array.dtype} as a tensor")
        raw = np.ascontiguousarray(array.astype(array.dtype.newbyteorder("<"), copy=False)).tobytes()
        raws.append(raw)
        obj: dict[str, Any] = {"shape": list(array.shape), "dtype": _dtype_name(array.dtype),
                               "binary_data_size": len(raw)}
        if requires_grad:
            obj["requires_grad"] = True
        return obj
    return encode_tensor(value, encoding=encoding, requires_grad=requires_grad, dtype=dtype)


def numpy_bytes(inputs: dict) -> int:
    """Bytes of the NumPy arrays among ``inputs`` (bare or as an object form's ``data``)."""
    total = 0
    for value in inputs.values():
        data = value.get("data") if isinstance(value, dict) else value
        if _is_numpy(data):
            total += data.nbytes
    return total


def binary_body(header: dict, raws: list) -> tuple[bytes, int]:
    """A binary request's body and its header length."""
    head = json.dumps(header, separators=(",", ":"), allow_nan=False).encode()
    return head + b"".join(raws), len(head)


def parse_binary(content: bytes, header_length: int) -> Any:
    """A binary answer as JSON values, each tensor object with a ``binary_data_size`` replaced by its
    array (the raw bytes follow the header in the order the header lists the tensors)."""
    header = json.loads(content[:header_length])
    body = memoryview(bytearray(content[header_length:]))  # one copy: arrays the caller may write to
    offset = 0

    def walk(node: Any) -> Any:
        nonlocal offset
        if isinstance(node, dict):
            size = node.get("binary_data_size")
            if isinstance(size, int) and "dtype" in node:
                raw = body[offset:offset + size]
                offset += size
                dtype = np.dtype(node["dtype"]).newbyteorder("<")
                return np.frombuffer(raw, dtype=dtype).astype(dtype.newbyteorder("="), copy=False) \
                    .reshape(tuple(node.get("shape", ())))
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(header)


def is_tensor_object(value: Any) -> bool:
    """Whether a decoded JSON value is a tensor object (as opposed to a number or a list)."""
    return isinstance(value, dict) and "dtype" in value and ("data" in value or "b64" in value)


def decode_tensor(obj: dict) -> np.ndarray:
    """A NumPy array (0-d for a scalar tensor) from a tensor object, dtype kept."""
    dtype = np.dtype(obj["dtype"])
    shape = tuple(obj.get("shape", ()))
    if "b64" in obj:
        raw = base64.b64decode(obj["b64"])
        array = np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype)
        return array.reshape(shape)
    # NumPy parses "NaN", "Infinity" and "-Infinity" when it casts strings to a float dtype.
    array = np.array(obj["data"], dtype=dtype)
    if "shape" in obj and array.shape != shape:
        array = array.reshape(shape)
    return array


def decode_value(value: Any) -> Any:
    """An output value: tensor objects become arrays, lists stay lists, numbers stay numbers."""
    if isinstance(value, np.ndarray):  # already an array (a binary answer)
        return value
    if is_tensor_object(value):
        return decode_tensor(value)
    if isinstance(value, list):
        return [decode_value(v) for v in value]
    if isinstance(value, str) and value in ("NaN", "Infinity", "-Infinity"):
        return float(value)  # Python parses "NaN" and "Infinity" itself
    if isinstance(value, dict):
        return {k: decode_value(v) for k, v in value.items()}
    return value
