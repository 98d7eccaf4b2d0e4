"""torch.distributed as a single process sees it: available (as in PyTorch's Linux builds), never
initialized, since a session cannot start process groups. Code that asks before it reduces
(rosinality/vq-vae-2-pytorch's ``if not dist.is_initialized(): return 1``) runs as on one GPU; the
collectives, like PyTorch's without ``init_process_group``, raise ValueError."""
import enum

__all__ = ["ReduceOp", "is_available", "is_initialized", "get_rank", "get_world_size", "all_reduce", "all_gather",
           "broadcast", "barrier"]

_NO_GROUP = "Default process group has not been initialized, please make sure to call init_process_group."


class RedOpType(enum.Enum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8


class ReduceOp:
    """The reduction of a collective (``dist.ReduceOp.SUM``, a default argument real code writes)."""
    RedOpType = RedOpType
    SUM, AVG, PRODUCT, MIN, MAX = RedOpType.SUM, RedOpType.AVG, RedOpType.PRODUCT, RedOpType.MIN, RedOpType.MAX
    BAND, BOR, BXOR, PREMUL_SUM = RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR, RedOpType.PREMUL_SUM


def is_available():
    return True


def is_initialized():
    return False


def _no_group(*args, **kwargs):
    raise ValueError(_NO_GROUP)


def get_rank(group=None):
    _no_group()


def get_world_size(group=None):
    _no_group()


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    _no_group()


def all_gather(tensor_list, tensor, group=None, async_op=False):
    _no_group()


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    _no_group()


def barrier(group=None, async_op=False, device_ids=None):
    _no_group()
