"""PyTorch's dtypes over NumPy's, and PyTorch's type-promotion rules."""
import builtins as _builtins

import numpy as np

from .autograd.state import state

__all__ = ["dtype", "float32", "float64", "int64", "int32", "bool", "float16", "bfloat16",
           "int16", "int8", "uint8", "result_type", "as_dtype", "to_numpy_dtype",
           "from_numpy_dtype", "get_default_dtype", "set_default_dtype"]

_builtin_bool, _py_float, _py_int = _builtins.bool, _builtins.float, _builtins.int

# Categories order promotion between kinds: bool < integer < floating.
_BOOL, _INT, _FLOAT = 0, 1, 2


class dtype:
    """A tensor element type (``torch.dtype``)."""
    __slots__ = ("name", "np", "is_floating_point", "is_signed", "itemsize", "category")

    def __init__(self, name, np_dtype, category):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.category = category
        self.is_floating_point = category == _FLOAT
        self.is_signed = self.np.kind in "fi"
        self.itemsize = self.np.itemsize

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return self.name


float16 = dtype("float16", np.float16, _FLOAT)
float32 = dtype("float32", np.float32, _FLOAT)
float64 = dtype("float64", np.float64, _FLOAT)
uint8 = dtype("uint8", np.uint8, _INT)
int8 = dtype("int8", np.int8, _INT)
int16 = dtype("int16", np.int16, _INT)
int32 = dtype("int32", np.int32, _INT)
int64 = dtype("int64", np.int64, _INT)
bool = dtype("bool", np.bool_, _BOOL)  # noqa: A001 - PyTorch's name

half, float, double = float16, float32, float64  # noqa: A001


class _Unsupported(dtype):
    """A PyTorch dtype this engine has no arrays of: it can be named and compared (``dtype in
    (torch.float16, torch.bfloat16)``, a config's ``{"bfloat16": torch.bfloat16}``), and making a
    tensor of it raises a TypeError that says so."""
    __slots__ = ()

    def __init__(self, name, itemsize):
        self.name = name
        self.np = None
        self.category = _FLOAT
        self.is_floating_point = True
        self.is_signed = True
        self.itemsize = itemsize


bfloat16 = _Unsupported("bfloat16", 2)   # NumPy has no bfloat16
short, int, long = int16, int32, int64  # noqa: A001

_ALL = (float16, float32, float64, uint8, int8, int16, int32, int64, bool)
_BY_NP = {d.np: d for d in _ALL}
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update(half=float16, float=float32, double=float64, short=int16,
                int=int32, long=int64)

state.default_dtype = float32


def get_default_dtype():
    """Get the current default floating point torch.dtype."""
    return state.default_dtype


def set_default_dtype(d):
    """Sets the default floating point dtype to d (float32 or float64)."""
    d = as_dtype(d)
    if d not in (float32, float64):
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    state.default_dtype = d


def from_numpy_dtype(np_dtype):
    try:
        return _BY_NP[np_dtype]
    except KeyError:
        raise TypeError(f"unsupported dtype {np_dtype}") from None


def to_numpy_dtype(d):
    return as_dtype(d).np


def as_dtype(d):
    """Accepts a dtype, its name, a NumPy dtype or the Python types float/int/bool (float64, int64, bool,
    as PyTorch)."""
    if type(d) is dtype:
        return d
    if d is None:
        return None
    if type(d) is _Unsupported:
        raise TypeError(f"{d} is not supported by this engine: NumPy has no {d.name} arrays (use torch.float32 or "
                        f"torch.float16)")
    if d is _py_float:
        return float64   # PyTorch's: Python's float is a double, whatever the default dtype
    if d is _py_int:
        return int64
    if d is _builtin_bool:
        return bool
    if isinstance(d, str):
        try:
            return _BY_NAME[d.removeprefix("torch.")]
        except KeyError:
            raise TypeError(f"unknown dtype {d!r}") from None
    try:
        return _BY_NP[np.dtype(d)]
    except (TypeError, KeyError):
        raise TypeError(f"unsupported dtype {d!r}") from None


def _scalar_category(x):
    if isinstance(x, _builtin_bool):
        return _BOOL
    if isinstance(x, _py_int):
        return _INT
    return _FLOAT


def _default_for(category):
    return (bool, int64, state.default_dtype)[category]


def _promote_pair(a, b):
    """Promotes two dtypes of the same standing (PyTorch's promoteTypes)."""
    if a is b:
        return a
    if a.category != b.category:
        return a if a.category > b.category else b
    if a.category == _FLOAT:
        return a if a.itemsize >= b.itemsize else b
    # integers: uint8 with a signed type needs a wider signed type
    if a is uint8 or b is uint8:
        other = b if a is uint8 else a
        return int16 if other is int8 else other
    return a if a.itemsize >= b.itemsize else b


def result_type(*operands):
    """The dtype of an op over tensors and Python numbers, as torch.result_type.

    Dimensioned tensors outrank zero-dim tensors, which outrank Python numbers;
    a lower-ranked operand only matters when it is of a higher category.
    """
    dims = zero = scal = None
    scal_cat = -1
    for x in operands:
        d = getattr(x, "dtype", None)
        if type(d) is dtype:
            if x.ndim:
                dims = d if dims is None else _promote_pair(dims, d)
            else:
                zero = d if zero is None else _promote_pair(zero, d)
        elif d is not None:  # a NumPy array
            d = from_numpy_dtype(d)
            dims = d if dims is None else _promote_pair(dims, d)
        else:
            scal_cat = max(scal_cat, _scalar_category(x))
    result = dims
    if zero is not None:
        if result is None:
            result = zero
        elif zero.category > result.category:
            result = zero
    if scal_cat >= 0:
        if result is None:
            result = _default_for(scal_cat)
        elif scal_cat > result.category:
            result = _default_for(scal_cat)
    return result


_C_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "long"}


def checked_scalar(value, np_dtype):
    """A Python int to be written into an integer tensor (fill_, full, masked_fill), checked as PyTorch
    checks it: past the dtype's range raises RuntimeError; an unsigned dtype takes negatives down to
    -max, wrapped (-1 as uint8 is 255). Other values pass unchanged."""
    if type(value) is not _builtins.int or np_dtype.kind not in "iu":
        return value
    info = np.iinfo(np_dtype)
    low = -info.max if np_dtype.kind == "u" else info.min
    if not low <= value <= info.max:
        raise RuntimeError(f"value cannot be converted to type {_C_NAMES.get(np_dtype.name, np_dtype.name)} "
                           f"without overflow")
    return value if value >= 0 else np.array(value, dtype=np.int64).astype(np_dtype)[()]
