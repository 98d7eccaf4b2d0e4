"""gradserve.engine: define-by-run autograd on NumPy (CPU) and CuPy (CUDA) with
PyTorch's names and semantics, so ``import gradserve.engine as torch`` runs
ordinary PyTorch code of the supported subset."""
import builtins as _builtins

import numpy as _np

from . import _malloc  # noqa: F401 - glibc keeps a step's working set mapped (see _malloc)

from . import dtypes as _dtypes
from .dtypes import (dtype, float16, bfloat16, float32, float64, uint8, int8, int16, int32, int64, bool,  # noqa: A004
                     half, float, double, short, int, long, get_default_dtype, set_default_dtype)
from .device import device, cuda_available as _cuda_available
from .tensor import Tensor, Size
from .tensor_types import (FloatTensor, DoubleTensor, HalfTensor, LongTensor, IntTensor, ShortTensor,
                           CharTensor, ByteTensor, BoolTensor, set_default_tensor_type)
from .printing import set_printoptions, get_printoptions
from .autograd import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode,
                       is_anomaly_enabled, set_detect_anomaly)
from . import autograd
from .ops.creation import *  # noqa: F401,F403
from .ops.elementwise import *  # noqa: F401,F403
from .ops.reduction import *  # noqa: F401,F403
from .ops.linalg import *  # noqa: F401,F403
from .ops.factorizations import *  # noqa: F401,F403
from .ops.shape import *  # noqa: F401,F403
from .ops.indexing import *  # noqa: F401,F403
from .ops.sparse import sparse_coo_tensor, spmm  # noqa: F401
from .ops.composite import *  # noqa: F401,F403
from .ops.special import *  # noqa: F401,F403
from .ops.statistics import *  # noqa: F401,F403
from .ops.windows import *  # noqa: F401,F403
from .settings import *  # noqa: F401,F403
from .ops.elementwise import result_dtype as _result_dtype
from .autograd import engine as _autograd_engine
from .autograd import tensor_ops as _tensor_ops
from .limits import LimitExceeded, Limits
from . import graph  # noqa: E402 - after the ops it describes
from . import keyword_aliases as _keyword_aliases
from . import backends, distributed, linalg, nn, optim, sparse, utils
from . import distributions  # noqa: E402 - built on the ops above
from . import special  # noqa: E402
from .nn.functional import torch_softmax as softmax, torch_log_softmax as log_softmax  # noqa: F401
from .nn.functional import (dropout, conv1d, conv2d, conv3d, cosine_similarity,  # noqa: F401
                            pairwise_distance, max_pool1d, max_pool2d, max_pool3d, avg_pool1d, adaptive_avg_pool1d, selu, celu,
                            threshold, layer_norm, group_norm,
                            # torch.X where PyTorch's signature is F.X's
                            conv_transpose1d, conv_transpose2d, conv_transpose3d, prelu, pixel_shuffle, pixel_unshuffle,
                            channel_shuffle, hardshrink, bilinear, relu_, alpha_dropout, feature_alpha_dropout,
                            rrelu, rrelu_)

_autograd_engine.graph_ops = _tensor_ops
_keyword_aliases.install(globals(), Tensor)
_keyword_aliases.install(vars(linalg))   # torch.linalg.inv(A, out=B) wrote nothing into B before


def result_type(tensor1, tensor2):
    """Returns the dtype that would result from an arithmetic operation on the operands."""
    return _result_dtype(tensor1, tensor2)


def promote_types(type1, type2):
    """The dtype of the smallest size and scalar kind that both type1 and type2 promote to."""
    return _dtypes._promote_pair(_dtypes.as_dtype(type1), _dtypes.as_dtype(type2))


def can_cast(from_, to):
    """Whether a cast from ``from_`` to ``to`` is allowed by PyTorch's casting rules
    (never to a lower kind: float to integer, integer to bool)."""
    return _dtypes.as_dtype(from_).category <= _dtypes.as_dtype(to).category


def is_floating_point(input):
    """Returns True if the data type of input is a floating point data type."""
    return input.is_floating_point()


def is_complex(input):
    """Returns True if the data type of input is a complex data type (the engine has none)."""
    return input.is_complex()


def is_nonzero(input):
    """True if the single-element tensor input is not zero."""
    if input.numel() != 1:
        raise RuntimeError(f"Boolean value of Tensor with {'no values' if input.numel() == 0 else 'more than one value'}"
                           f" is ambiguous")
    return _builtins.bool(input.item())


class finfo:
    """Numerical properties of a floating point dtype (torch.finfo)."""

    def __init__(self, type=None):
        d = _dtypes.as_dtype(type) if type is not None else get_default_dtype()
        if not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type.")
        info = _np.finfo(d.np)
        self.dtype = d.name
        self.bits = info.bits
        self.eps = _builtins.float(info.eps)
        self.max = _builtins.float(info.max)
        self.min = _builtins.float(info.min)
        self.tiny = self.smallest_normal = _builtins.float(info.tiny)
        self.resolution = 10.0 ** -info.precision

    def __repr__(self):
        return (f"finfo(resolution={self.resolution}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.tiny:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Numerical properties of an integer dtype (torch.iinfo)."""

    def __init__(self, type):
        d = _dtypes.as_dtype(type)
        if d.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type.")
        info = _np.iinfo(d.np) if d.np.kind != "b" else None
        self.dtype = d.name
        self.bits = d.itemsize * 8
        self.max = _builtins.int(info.max) if info is not None else 1
        self.min = _builtins.int(info.min) if info is not None else 0

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


class memory_format:
    """torch.memory_format: the layouts PyTorch names. The engine's tensors are always contiguous, so the
    memory_format arguments it accepts (clone, contiguous, zeros_like, ...) change nothing; the names are here
    for code that passes them (pytorch-optimizer's ``torch.zeros_like(p, memory_format=torch.preserve_format)``)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


preserve_format = memory_format("preserve_format")
contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


def is_tensor(obj):
    """Returns True if obj is a gradserve tensor."""
    return isinstance(obj, Tensor)


def numel(input):
    return input.numel()


from . import cuda  # noqa: E402  (torch.cuda: a module, as PyTorch's: `import torch.cuda as device`)
from . import jit  # noqa: E402  (torch.jit's annotations: ScriptModule, script_method, script, ...)
from . import amp, cpu, cuda_amp  # noqa: E402  (torch.amp; torch.cpu; torch.cuda.amp)
from . import func  # noqa: E402  (torch.func: grad, vmap, functional_call, ...)
from .func import vmap  # noqa: E402,F401  (torch.vmap)
from .amp import autocast  # noqa: E402

cuda.amp = cuda_amp


class accelerator:
    """torch.accelerator: the current accelerator (CUDA through CuPy), if there is one."""

    @staticmethod
    def is_available():
        return _cuda_available()

    @staticmethod
    def current_accelerator(check_available=False):
        return device("cuda") if _cuda_available() else None

    @staticmethod
    def device_count():
        return cuda.device_count()

    @staticmethod
    def synchronize(device=None):
        cuda.synchronize()


__version__ = "0.1.0"

# torch's float constants (torch.inf in masks, torch.pi in GELU's tanh form) and its index alias
inf, nan, pi, e = _builtins.float("inf"), _builtins.float("nan"), 3.141592653589793, 2.718281828459045
newaxis = None
