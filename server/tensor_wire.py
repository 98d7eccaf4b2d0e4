"""Tensors on the wire (SPEC section 3): reading every accepted input form into a
NumPy array, and writing outputs as nested lists or base64.

Inputs: a nested list typed as ``torch.tensor`` types it, a bare number,
``{"data", "dtype", "requires_grad"}``, ``{"b64", "shape", "dtype"}``, or a
KServe v2 tensor ``{"name", "shape", "datatype", "data"}``. ``"NaN"``,
``"Infinity"`` and ``"-Infinity"`` stand for those floats inside data.
"""
import base64
import binascii
import math

import numpy as np

DTYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64, "uint8": np.uint8,
          "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "bool": np.bool_}
_ALIASES = {"half": "float16", "float": "float32", "double": "float64", "short": "int16", "int": "int32",
            "long": "int64"}
KSERVE_DATATYPES = {"BOOL": "bool", "UINT8": "uint8", "INT8": "int8", "INT16": "int16", "INT32": "int32",
                    "INT64": "int64", "FP16": "float16", "FP32": "float32", "FP64": "float64"}
_DTYPE_NAMES = {np.dtype(t): name for name, t in DTYPES.items()}  # dtype.name is a slow property
DTYPE_NAMES = _DTYPE_NAMES
_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "nan": math.nan,
            "inf": math.inf, "-inf": -math.inf}
_MAX_NDIM = 32


class TensorFormatError(ValueError):
    """An input tensor that cannot be read; ``where`` names it, ``limit`` is set when it is too large."""

    def __init__(self, where, message, limit=None):
        super().__init__(f"{where}: {message}")
        self.where = where
        self.limit = limit


class BinaryTensor:
    """An input tensor sent as raw bytes after a binary request's JSON header (Triton's binary tensor
    extension): its header object and its bytes. JSON cannot make one: only ``attach_binary`` does."""
    __slots__ = ("obj", "raw")

    def __init__(self, obj, raw):
        self.obj = obj
        self.raw = raw


class Decoded:
    """An input tensor the body parser process has already read and validated (``body_parser``): its raw
    little-endian bytes, NumPy dtype string, shape and requires_grad. JSON cannot make one."""
    __slots__ = ("raw", "dtype", "shape", "requires_grad")

    def __init__(self, raw, dtype, shape, requires_grad):
        self.raw = raw
        self.dtype = dtype
        self.shape = shape
        self.requires_grad = requires_grad

    def __reduce__(self):
        return Decoded, (self.raw, self.dtype, self.shape, self.requires_grad)


def binary_size(obj):
    """The ``binary_data_size`` of a tensor object (top level, or in Triton's ``parameters``), or None."""
    if not isinstance(obj, dict):
        return None
    size = obj.get("binary_data_size")
    params = obj.get("parameters")
    if size is None and isinstance(params, dict):
        size = params.get("binary_data_size")
    return size


def attach_binary(inputs, data, where="inputs"):
    """Replaces each input object that names a ``binary_data_size`` by a BinaryTensor over its bytes,
    taken from ``data`` in the order the inputs are listed; every byte must be claimed."""
    if not isinstance(inputs, dict):
        return inputs
    offset = 0
    out = {}
    for name, obj in inputs.items():
        size = binary_size(obj)
        if size is None:
            out[name] = obj
            continue
        field = f"{where}.{str(name)[:80]}"
        if type(size) is not int or size < 0:
            raise TensorFormatError(field, "'binary_data_size' must be a non-negative integer")
        if offset + size > len(data):
            raise TensorFormatError(field, f"'binary_data_size' {size} runs past the {len(data) - offset} "
                                           "bytes left after the header")
        out[name] = BinaryTensor(obj, data[offset:offset + size])
        offset += size
    if offset != len(data):
        raise TensorFormatError(where, f"{len(data) - offset} bytes after the header belong to no tensor "
                                       "(each binary input names its 'binary_data_size')")
    return out


def _kserve_dtype(datatype, where):
    """The dtype a KServe ``datatype`` names (checked as a string first: a list or object is no name, and
    looking it up would fail on hashing it)."""
    if not isinstance(datatype, str) or datatype not in KSERVE_DATATYPES:
        shown = repr(datatype[:40]) if isinstance(datatype, str) else f"a {_json_kind(datatype)}"
        raise TensorFormatError(f"{where}.datatype", f"unknown KServe datatype {shown}; use one of "
                                                     f"{', '.join(KSERVE_DATATYPES)}")
    return KSERVE_DATATYPES[datatype]


def _json_kind(value):
    """What a JSON value is, in JSON's words (for messages about a field of the wrong type)."""
    return {dict: "object", list: "list", str: "string", bool: "boolean", int: "number", float: "number",
            type(None): "null"}.get(type(value), type(value).__name__)


def _from_binary(tensor, where, max_elements):
    obj = tensor.obj
    if "datatype" in obj:
        dtype = _kserve_dtype(obj.get("datatype"), where)
    else:
        dtype = _dtype(obj.get("dtype"), where, required=True)
    shape, count = _shape(obj.get("shape"), where, max_elements)
    itemsize = np.dtype(DTYPES[dtype]).itemsize
    if len(tensor.raw) != count * itemsize:
        raise TensorFormatError(where, f"'binary_data_size' is {len(tensor.raw)} bytes but shape {list(shape)} of "
                                       f"{dtype} needs {count * itemsize}")
    array = _checked_raw(tensor.raw, dtype, shape, where)
    return array, _requires_grad(obj, where, array)


def decode_tensor(obj, where, max_elements):
    """Reads one input tensor: returns (array, requires_grad)."""
    if type(obj) is BinaryTensor:
        return _from_binary(obj, where, max_elements)
    if type(obj) is Decoded:
        return np.frombuffer(obj.raw, dtype=np.dtype(obj.dtype)).reshape(obj.shape), obj.requires_grad
    if isinstance(obj, dict):
        if binary_size(obj) is not None:
            raise TensorFormatError(where, "'binary_data_size' needs a binary request (Content-Type "
                                           "application/octet-stream with Inference-Header-Content-Length)")
        if "b64" in obj:
            array = _from_b64(obj, where, max_elements)
        elif "datatype" in obj:
            array = _from_kserve(obj, where, max_elements)
        elif "data" in obj:
            dtype = _dtype(obj.get("dtype"), where)
            array = _from_nested(obj["data"], where, dtype, max_elements)
            if "shape" in obj:
                shape, count = _shape(obj["shape"], where, max_elements)
                if array.size != count:
                    raise TensorFormatError(f"{where}.shape", f"'data' has {array.size} values but shape "
                                                              f"{list(shape)} needs {count}")
                array = array.reshape(shape)
        else:
            raise TensorFormatError(where, "a tensor object needs 'data', 'b64' (with 'shape' and 'dtype'), "
                                           "or KServe's 'datatype', 'shape' and 'data'")
        return array, _requires_grad(obj, where, array)
    return _from_nested(obj, where, None, max_elements), False


def _requires_grad(obj, where, array):
    value = obj.get("requires_grad", False)
    if not isinstance(value, bool):
        raise TensorFormatError(f"{where}.requires_grad", "'requires_grad' must be true or false")
    if value and array.dtype.kind != "f":
        raise TensorFormatError(where, "only floating-point tensors can require gradients "
                                       f"(this one is {array.dtype.name})")
    return value


def _dtype(name, where, required=False):
    if name is None and not required:
        return None
    if not isinstance(name, str):
        raise TensorFormatError(f"{where}.dtype", f"'dtype' must be a string such as \"float32\", not a "
                                                  f"{_json_kind(name)}")
    key = _ALIASES.get(name.removeprefix("torch."), name.removeprefix("torch."))
    if key not in DTYPES:
        raise TensorFormatError(where, f"unknown dtype {name!r}; use one of {', '.join(DTYPES)}")
    return key


def _shape(shape, where, max_elements):
    """A validated shape: every dimension a non-negative integer no larger than the element limit
    (a zero-element tensor with a dimension of 2**64 is no tensor anyone can use)."""
    if not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape):
        raise TensorFormatError(f"{where}.shape", "'shape' must be a list of non-negative integers")
    if len(shape) > _MAX_NDIM:
        raise TensorFormatError(f"{where}.shape", f"at most {_MAX_NDIM} dimensions")
    for i, s in enumerate(shape):
        if s > max_elements:
            raise TensorFormatError(f"{where}.shape", f"limit exceeded: tensor_elements: dimension {i} is {s} "
                                                      f"(at most {max_elements})", limit="tensor_elements")
    count = math.prod(shape)
    _check_elements(count, where, max_elements)
    return tuple(shape), count


def _check_elements(count, where, max_elements):
    if count > max_elements:
        raise TensorFormatError(where, f"limit exceeded: tensor_elements: {count} elements (at most {max_elements})",
                                limit="tensor_elements")


def _from_b64(obj, where, max_elements):
    dtype = _dtype(obj.get("dtype"), where, required=True)
    shape, count = _shape(obj.get("shape"), where, max_elements)
    text = obj["b64"]
    if not isinstance(text, str):
        raise TensorFormatError(where, "'b64' must be a base64 string")
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise TensorFormatError(where, "'b64' is not valid base64") from None
    itemsize = np.dtype(DTYPES[dtype]).itemsize
    if len(raw) != count * itemsize:
        raise TensorFormatError(where, f"'b64' holds {len(raw)} bytes but shape {list(shape)} of {dtype} "
                                       f"needs {count * itemsize}")
    return _checked_raw(raw, dtype, shape, where)


def _checked_raw(raw, dtype, shape, where):
    """An array over raw little-endian bytes; a bool tensor's bytes must each be 0 or 1."""
    if dtype == "bool" and len(raw) and np.frombuffer(raw, dtype=np.uint8).max() > 1:
        raise TensorFormatError(where, "a bool tensor's bytes must each be 0 or 1")
    return np.frombuffer(raw, dtype=np.dtype(DTYPES[dtype]).newbyteorder("<")).reshape(shape)


def _from_kserve(obj, where, max_elements):
    dtype = _kserve_dtype(obj.get("datatype"), where)
    shape, count = _shape(obj.get("shape"), where, max_elements)
    if "name" in obj and not isinstance(obj["name"], str):
        raise TensorFormatError(f"{where}.name", f"'name' must be a string, not a {_json_kind(obj['name'])}")
    array = _from_nested(obj.get("data"), where, dtype, max_elements)
    if array.size != count:
        raise TensorFormatError(f"{where}.data", f"'data' has {array.size} values but shape {list(shape)} needs {count}")
    return array.reshape(shape)


def _from_nested(data, where, dtype, max_elements):
    """A nested list or a number, typed as torch.tensor types it unless ``dtype`` is given."""
    if data is None or isinstance(data, dict) or isinstance(data, str) and data not in _SPECIAL:
        raise TensorFormatError(where, "a tensor must be a number, a nested list of numbers, or a tensor object")
    try:
        array = np.array(data)
    except ValueError:
        if _depth(data) > _MAX_NDIM:
            raise TensorFormatError(where, f"at most {_MAX_NDIM} dimensions") from None
        raise TensorFormatError(where, "ragged nested list: every row must have the same length") from None
    except (OverflowError, RecursionError):
        raise TensorFormatError(where, "a number is out of range, or the list nests too deeply") from None
    kind = array.dtype.kind
    if kind in "USO":
        array = _with_specials(data, where)
        kind = "f"
    if array.ndim > _MAX_NDIM:
        raise TensorFormatError(where, f"at most {_MAX_NDIM} dimensions")
    _check_elements(array.size, where, max_elements)
    if dtype is None:
        if kind == "u":
            raise TensorFormatError(where, "an integer is out of range for int64")
        dtype = {"b": "bool", "i": "int64"}.get(kind, "float32")
    elif kind == "f" and DTYPES[dtype] not in (np.float16, np.float32, np.float64) and array.size and (
            not np.isfinite(array).all() or (array != np.trunc(array)).any()):
        raise TensorFormatError(where, f"non-integer values cannot be a {dtype} tensor")
    if dtype not in ("bool", "float16", "float32", "float64") and kind in "iuf" and array.size:
        info = np.iinfo(DTYPES[dtype])
        low, high = array.min(), array.max()
        if low < info.min or high > info.max:
            raise TensorFormatError(where, f"a value does not fit in {dtype} ({info.min} to {info.max})")
    try:
        with np.errstate(over="raise", invalid="ignore"):
            return array.astype(DTYPES[dtype], copy=False)
    except (OverflowError, FloatingPointError, ValueError):
        raise TensorFormatError(where, f"a value does not fit in {dtype}") from None


def _depth(data):
    """How deeply ``data`` nests lists (iteratively: it may nest thousands deep)."""
    depth = 0
    while isinstance(data, list) and depth <= _MAX_NDIM:
        depth += 1
        data = data[0] if data else None
    return depth


def _with_specials(data, where):
    """The slow path: a nested list holding "NaN"/"Infinity" strings (or something that is not a number)."""
    def convert(x, depth):
        if isinstance(x, list):
            if depth > _MAX_NDIM:
                raise TensorFormatError(where, f"at most {_MAX_NDIM} dimensions")
            return [convert(v, depth + 1) for v in x]
        if isinstance(x, str):
            try:
                return _SPECIAL[x]
            except KeyError:
                raise TensorFormatError(where, f"{x[:40]!r} is not a number (only \"NaN\", \"Infinity\" and "
                                               "\"-Infinity\" may be strings)") from None
        if isinstance(x, int) and not -2 ** 63 <= x < 2 ** 63:
            raise TensorFormatError(where, "an integer is out of range for int64")
        if isinstance(x, (bool, int, float)):
            return x
        raise TensorFormatError(where, f"a {type(x).__name__} is not a number")

    converted = convert(data, 0)
    try:
        array = np.array(converted, dtype=np.float64)
    except ValueError:
        raise TensorFormatError(where, "ragged nested list: every row must have the same length") from None
    except OverflowError:
        raise TensorFormatError(where, "a number is out of range") from None
    return array


# ------------------------------------------------------------------ outputs
def encode_tensor(array, encoding="json"):
    """An output tensor: {"shape", "dtype", "data"} (a bare number for 0-d) or {"shape", "dtype", "b64"}."""
    dtype = array.dtype
    out = {"shape": list(array.shape), "dtype": _DTYPE_NAMES.get(dtype) or dtype.name}
    if encoding == "base64":
        if dtype.byteorder == ">" or not array.flags.c_contiguous:
            array = array.astype(dtype.newbyteorder("<"), order="C")
        out["b64"] = base64.b64encode(array.data if array.ndim else array.tobytes()).decode()
        return out
    out["data"] = tensor_data(array)
    return out


def tensor_data(array):
    """A nested list (a bare value for 0-d) with NaN and infinities as their strings."""
    # A finite sum rules out NaN and infinities in one pass (an overflowing sum only takes the exact check).
    if array.dtype.kind == "f" and array.size and not math.isfinite(array.sum()) and not np.isfinite(array).all():
        data = array.astype(object)
        data[np.isnan(array)] = "NaN"
        data[array == np.inf] = "Infinity"
        data[array == -np.inf] = "-Infinity"
        return data.tolist()
    return array.tolist()
