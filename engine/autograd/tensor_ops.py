"""The namespace backward rules compute with under create_graph=True: the
engine's own differentiable functions, so a rule's gradient is itself recorded
(Chainer's double-backprop design). Mirrors array_ops name for name."""
from ..ops.creation import zeros, zeros_like, ones_like  # noqa: F401
from ..ops.elementwise import *  # noqa: F401,F403
from ..ops.indexing import getitem, index_put  # noqa: F401
from ..ops.linalg import *  # noqa: F401,F403
from ..ops.reduction import *  # noqa: F401,F403
from ..ops.shape import *  # noqa: F401,F403
from ..ops.shape import sum_to  # noqa: F401
from ..ops.special import digamma, polygamma  # noqa: F401


def new_zeros(like, shape):
    return zeros(tuple(shape), dtype=like.dtype, device=like.device)
from ..ops.indexing import gather, index_add, index_select, scatter, scatter_add, scatter_reduce  # noqa: F401,E402,E501
