"""``torch.nn.modules.utils``: the argument normalisers layer code imports from PyTorch
(torchbnn's ``from torch.nn.modules.utils import _single, _pair, _triple``), as PyTorch's: an
iterable becomes a tuple of its items, anything else is repeated n times. In-process only: the
names begin with ``_``, so programs never reach them (SPEC section 2)."""
import collections.abc
from itertools import repeat

__all__ = ["_ntuple", "_single", "_pair", "_triple", "_quadruple", "_reverse_repeat_tuple"]


def _ntuple(n, name="parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """The items of ``t`` in reverse order, each repeated ``n`` times (a Conv's padding for F.pad)."""
    return tuple(x for x in reversed(t) for _ in range(n))
