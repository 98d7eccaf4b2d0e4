"""gradserve.engine: define-by-run autograd on NumPy (CPU) and CuPy (CUDA) with
PyTorch's names and semantics, so ``import gradserve.engine as torch`` runs
ordinary PyTorch code of the supported subset."""
from . import dtypes as _dtypes
from .dtypes import (dtype, float16, float32, float64, uint8, int8, int16, int32, int64, bool,  # noqa: A004
                     half, float, double, short, int, long, get_default_dtype, set_default_dtype)
from .device import device, cuda_available as _cuda_available
from .tensor import Tensor, Size
from .printing import set_printoptions, get_printoptions
from .autograd import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled, is_anomaly_enabled,
                       set_detect_anomaly)
from . import autograd
from .ops.creation import *  # noqa: F401,F403
from .ops.elementwise import *  # noqa: F401,F403
from .ops.reduction import *  # noqa: F401,F403
from .ops.linalg import *  # noqa: F401,F403
from .ops.shape import *  # noqa: F401,F403
from .ops.indexing import *  # noqa: F401,F403
from .ops.elementwise import result_dtype as _result_dtype
from .autograd import engine as _autograd_engine
from .autograd import tensor_ops as _tensor_ops
from .limits import LimitExceeded, Limits
from . import graph  # noqa: E402 - after the ops it describes
from . import nn, optim
from .nn.functional import (softmax, log_softmax, dropout, conv1d, conv2d, cosine_similarity,  # noqa: F401
                            pairwise_distance)

_autograd_engine.graph_ops = _tensor_ops


def result_type(tensor1, tensor2):
    """Returns the dtype that would result from an arithmetic operation on the operands."""
    return _result_dtype(tensor1, tensor2)


def is_tensor(obj):
    """Returns True if obj is a gradserve tensor."""
    return isinstance(obj, Tensor)


def numel(input):
    return input.numel()


class cuda:
    """torch.cuda: whether a CUDA device (through CuPy) is available."""

    @staticmethod
    def is_available():
        return _cuda_available()

    @staticmethod
    def device_count():
        if not _cuda_available():
            return 0
        import cupy
        return cupy.cuda.runtime.getDeviceCount()

    @staticmethod
    def manual_seed(seed):
        return None

    manual_seed_all = manual_seed

    @staticmethod
    def synchronize():
        if _cuda_available():
            import cupy
            cupy.cuda.Stream.null.synchronize()


__version__ = "0.1.0"
