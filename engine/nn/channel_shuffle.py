"""Channel shuffle (ShuffleNet): (N, g * c, ...) -> channels regrouped as (N, c * g, ...)."""
from .module import Module

__all__ = ["ChannelShuffle", "channel_shuffle"]


def channel_shuffle(input, groups):
    """Divides the channels into ``groups`` groups and interleaves them."""
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c = input.shape[0], input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    rest = tuple(input.shape[2:])
    return input.reshape((n, groups, c // groups) + rest).transpose(1, 2).reshape((n, c) + rest)


class ChannelShuffle(Module):
    """Divides the channels of a (N, C, ...) input into groups and interleaves them."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
