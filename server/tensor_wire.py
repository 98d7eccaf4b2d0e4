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
_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "nan": math.nan,
            "inf": math.inf, "-inf": -math.inf}
_MAX_NDIM = 32


class TensorFormatError(ValueError):
    """An input tensor that cannot be read; ``where`` names it, ``limit`` is set when it is too large."""

    def __init__(self, where, message, limit=None):
        super().__init__(f"{where}: {message}")
        self.where = where
        self.limit = limit


def decode_tensor(obj, where, max_elements):
    """Reads one input tensor: returns (array, requires_grad)."""
    if isinstance(obj, dict):
        if "b64" in obj:
            return _from_b64(obj, where, max_elements), _requires_grad(obj, where)
        if "datatype" in obj:
            return _from_kserve(obj, where, max_elements), _requires_grad(obj, where)
        if "data" in obj:
            dtype = _dtype(obj.get("dtype"), where)
            array = _from_nested(obj["data"], where, dtype, max_elements)
            return array, _requires_grad(obj, where, array)
        raise TensorFormatError(where, "a tensor object needs 'data', 'b64' (with 'shape' and 'dtype'), "
                                       "or KServe's 'datatype', 'shape' and 'data'")
    return _from_nested(obj, where, None, max_elements), False


def _requires_grad(obj, where, array=None):
    value = obj.get("requires_grad", False)
    if not isinstance(value, bool):
        raise TensorFormatError(where, "'requires_grad' must be true or false")
    if value and array is not None and array.dtype.kind != "f":
        raise TensorFormatError(where, "only floating-point tensors can require gradients "
                                       f"(this one is {array.dtype.name})")
    return value


def _dtype(name, where, required=False):
    if name is None and not required:
        return None
    if not isinstance(name, str):
        raise TensorFormatError(where, "'dtype' must be a string such as \"float32\"")
    key = _ALIASES.get(name.removeprefix("torch."), name.removeprefix("torch."))
    if key not in DTYPES:
        raise TensorFormatError(where, f"unknown dtype {name!r}; use one of {', '.join(DTYPES)}")
    return key


def _shape(shape, where, max_elements):
    if not isinstance(shape, list) or len(shape) > _MAX_NDIM or not all(
            isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape):
        raise TensorFormatError(where, "'shape' must be a list of non-negative integers")
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
    return np.frombuffer(raw, dtype=np.dtype(DTYPES[dtype]).newbyteorder("<")).reshape(shape)


def _from_kserve(obj, where, max_elements):
    datatype = obj.get("datatype")
    if datatype not in KSERVE_DATATYPES:
        raise TensorFormatError(where, f"unknown KServe datatype {datatype!r}; use one of "
                                       f"{', '.join(KSERVE_DATATYPES)}")
    shape, count = _shape(obj.get("shape"), where, max_elements)
    array = _from_nested(obj.get("data"), where, KSERVE_DATATYPES[datatype], max_elements)
    if array.size != count:
        raise TensorFormatError(where, f"'data' has {array.size} values but shape {list(shape)} needs {count}")
    return array.reshape(shape)


def _from_nested(data, where, dtype, max_elements):
    """A nested list or a number, typed as torch.tensor types it unless ``dtype`` is given."""
    if data is None or isinstance(data, dict) or isinstance(data, str) and data not in _SPECIAL:
        raise TensorFormatError(where, "a tensor must be a number, a nested list of numbers, or a tensor object")
    try:
        array = np.array(data)
    except ValueError:
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
    try:
        with np.errstate(over="raise", invalid="ignore"):
            return array.astype(DTYPES[dtype], copy=False)
    except (OverflowError, FloatingPointError, ValueError):
        raise TensorFormatError(where, f"a value does not fit in {dtype}") from None


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
    # A finite sum rules out NaN and infinities in one pass (an overflowing sum only takes the exact check).
    if dtype.kind == "f" and array.size and not math.isfinite(array.sum()) and not np.isfinite(array).all():
        data = array.astype(object)
        data[np.isnan(array)] = "NaN"
        data[array == np.inf] = "Infinity"
        data[array == -np.inf] = "-Infinity"
        out["data"] = data.tolist()
    else:
        out["data"] = array.tolist()
    return out
