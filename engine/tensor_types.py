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
        if len(args) == 1 and isinstance(args[0], Tensor) and args[0].dtype is not cls.dtype:
            # PyTorch's legacy constructor takes a tensor only of its own dtype (pygcn run in float64)
            raise TypeError(f"expected {_options(cls.dtype, args[0])} (got {_options(args[0].dtype, args[0])})")
        return Tensor(*args, dtype=cls.dtype, device=device)

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and (cls.dtype is None or obj.dtype is cls.dtype)

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
              "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _options(dtype, like):
    """PyTorch's printed TensorOptions of a dtype, on ``like``'s device."""
    return (f"TensorOptions(dtype={_CPP_NAMES.get(dtype.name, dtype.name)}, device={like.device.type}, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


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
