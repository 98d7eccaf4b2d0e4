"""The legacy typed tensor constructors: ``torch.FloatTensor``, ``LongTensor``, ...

Each is a class (as in PyTorch, ``isinstance(x, torch.LongTensor)`` asks for the dtype) whose
call builds an ordinary Tensor of its dtype, from data or from sizes as ``torch.Tensor`` does.
"""
import warnings

from . import dtypes as _dt
from .tensor import Tensor

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
           "CharTensor", "ByteTensor", "BoolTensor", "tensor_type_dtype", "set_default_tensor_type"]


class _TensorType(type):
    """Metaclass of the typed constructors: calling one makes a Tensor of its dtype."""

    def __call__(cls, *args, device=None):
        if cls.dtype is None:
            raise TypeError("TypedTensor is abstract: call FloatTensor, LongTensor, ...")
        return Tensor(*args, dtype=cls.dtype, device=device)

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and (cls.dtype is None or obj.dtype is cls.dtype)

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


class TypedTensor(metaclass=_TensorType):
    """The base of the typed constructors (what the program allowlist names)."""
    dtype = None


def _typed(name, dtype):
    return _TensorType(name, (TypedTensor,), {"dtype": dtype, "__module__": __name__,
                                  "__doc__": f"torch.{name}: a constructor of {dtype.name} tensors."})


FloatTensor = _typed("FloatTensor", _dt.float32)
DoubleTensor = _typed("DoubleTensor", _dt.float64)
HalfTensor = _typed("HalfTensor", _dt.float16)
LongTensor = _typed("LongTensor", _dt.int64)
IntTensor = _typed("IntTensor", _dt.int32)
ShortTensor = _typed("ShortTensor", _dt.int16)
CharTensor = _typed("CharTensor", _dt.int8)
ByteTensor = _typed("ByteTensor", _dt.uint8)
BoolTensor = _typed("BoolTensor", _dt.bool)


def tensor_type_dtype(t):
    """The dtype of a typed constructor (``x.type(torch.LongTensor)``), or None for anything else."""
    return t.dtype if isinstance(t, _TensorType) else None


def set_default_tensor_type(t):
    """torch.set_default_tensor_type (deprecated since PyTorch 2.1): the default floating point dtype becomes
    that of ``t``, a floating typed constructor or its name (ikostrikov/pytorch-trpo's
    ``torch.set_default_tensor_type('torch.DoubleTensor')``). As PyTorch: a warning, then set_default_dtype."""
    if isinstance(t, str):   # PyTorch imports the dotted name
        module, _, name = t.rpartition(".")
        if module != "torch":
            raise ModuleNotFoundError(f"No module named '{module or name}'")
        if not isinstance(globals().get(name), _TensorType):
            raise AttributeError(f"module 'torch' has no attribute '{name}'")
        t = globals()[name]
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning, stacklevel=2)
    if not isinstance(t, _TensorType) or t.dtype is None:
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dt.set_default_dtype(t.dtype)
