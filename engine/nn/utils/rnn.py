"""torch.nn.utils.rnn: PackedSequence and packing / padding of variable-length batches.

A PackedSequence holds the time steps of a batch of sequences, sorted by
decreasing length, as rows: step t's ``batch_sizes[t]`` rows, then step t+1's.
``sorted_indices`` maps the sorted order back to the caller's batch (None when the
batch came sorted); the recurrent layers run on the rows directly.
"""
from collections import namedtuple

import numpy as np

from ...autograd import array_ops as _array_ops
from ...autograd.function import Op
from ...device import get_array_module
from ...ops import creation as _creation
from ...ops.shape import stack
from ...tensor import Tensor

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pack_sequence", "pad_sequence",
           "unpack_sequence", "unpad_sequence", "invert_permutation"]


class PackedSequence(namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """(data, batch_sizes, sorted_indices, unsorted_indices), as PyTorch's."""
    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            raise RuntimeError("PackedSequence needs batch_sizes: build one with pack_padded_sequence or "
                               "pack_sequence")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _with_data(self, data):
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else self._with_data(data)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, *args, **kwargs):
        return self.to("cuda")

    def double(self):
        return self._with_data(self.data.double())

    def float(self):
        return self._with_data(self.data.float())

    def half(self):
        return self._with_data(self.data.half())

    def detach(self):
        return self._with_data(self.data.detach())

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False

    def __repr__(self):
        return (f"PackedSequence(data={self.data!r}, batch_sizes={self.batch_sizes!r}, "
                f"sorted_indices={self.sorted_indices!r}, unsorted_indices={self.unsorted_indices!r})")


def invert_permutation(permutation):
    if permutation is None:
        return None
    inv = np.empty(permutation.shape[0], dtype=np.int64)
    inv[_ints(permutation)] = np.arange(permutation.shape[0])
    return _long(inv, permutation)


def _ints(t):
    data = t._data if isinstance(t, Tensor) else t
    if not isinstance(data, np.ndarray):
        data = data.get() if hasattr(data, "get") else np.asarray(data)
    return data.astype(np.int64)


def _long(values, like=None):
    t = _creation.tensor(np.asarray(values, dtype=np.int64))
    if like is not None and isinstance(like, Tensor) and like.device.type != "cpu":
        return t.to(like.device)
    return t


class _PackRows(Op):
    """rows (T * B, *) -> packed rows (N, *): the rows of the active sequences, step by step."""
    __slots__ = ("rows", "total")
    op = "pack_padded_sequence"
    backward_name = "PackPaddedSequenceBackward0"

    def forward(self, x, index=None):
        xp = get_array_module(x)
        self.rows = xp.asarray(index)
        self.total = x.shape[0] * x.shape[1]
        return x.reshape((self.total,) + x.shape[2:])[self.rows]

    def backward(self, F, g):
        if F is _array_ops:
            xp = get_array_module(g)
            out = xp.zeros((self.total,) + g.shape[1:], dtype=g.dtype)
            out[self.rows] = g
            return (out.reshape(self.next_functions[0][0].shape),)
        rows = Tensor._adopt_array(self.rows, False, None)
        shape = tuple(self.next_functions[0][0].shape)
        out = F.index_put(F.zeros((self.total,) + tuple(g.shape[1:]), dtype=g.dtype, device=g.device),
                          (rows,), g, accumulate=True)
        return (F.reshape(out, shape),)


class _PadRows(Op):
    """packed rows (N, *) -> padded (T, B, *) filled with padding_value."""
    __slots__ = ("rows",)
    op = "pad_packed_sequence"
    backward_name = "PadPackedSequenceBackward0"

    def forward(self, data, index=None, shape=None, padding_value=0.0):
        xp = get_array_module(data)
        self.rows = xp.asarray(index)
        out = xp.full((shape[0] * shape[1],) + data.shape[1:], padding_value, dtype=data.dtype)
        out[self.rows] = data
        return out.reshape(tuple(shape) + data.shape[1:])

    def backward(self, F, g):
        flat = F.reshape(g, (-1,) + tuple(g.shape[2:]))
        if F is _array_ops:
            return (flat[self.rows],)
        return (F.index_select(flat, 0, Tensor._adopt_array(self.rows, False, None)),)


def _row_index(batch_sizes, batch):
    """The rows of a (T, B) grid that a packed sequence with these batch sizes keeps, in order."""
    return np.concatenate([t * batch + np.arange(n) for t, n in enumerate(batch_sizes)]) if len(batch_sizes) \
        else np.zeros(0, dtype=np.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch (T, B, *) (or (B, T, *) with batch_first) of sequences of ``lengths``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"pack_padded_sequence(): argument 'input' must be Tensor, not {type(input).__name__}")
    lens = _ints(lengths) if isinstance(lengths, Tensor) else np.asarray(list(lengths), dtype=np.int64)
    if lens.ndim != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lens.ndim}D")
    if enforce_sorted:
        if len(lens) > 1 and bool((lens[:-1] < lens[1:]).any()):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                               "to sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
    else:
        order = np.argsort(-lens, kind="stable")
        lens = lens[order]
        sorted_indices = _long(order, input)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if input.ndim < 2:
        raise RuntimeError(f"pack_padded_sequence: expected input of at least 2 dimensions, got {input.ndim}")
    if batch_first:
        input = input.transpose(0, 1)
    steps, batch = input.shape[0], input.shape[1]
    if len(lens) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
                           f"(batch_size={batch})")
    if len(lens) and lens.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if len(lens) and lens.max() > steps:
        raise RuntimeError(f"pack_padded_sequence: a length of {int(lens.max())} exceeds the input's "
                           f"{steps} time steps")
    batch_sizes = [int((lens > t).sum()) for t in range(int(lens.max()) if len(lens) else 0)]
    data = _PackRows.apply(input, index=_row_index(batch_sizes, batch))
    return PackedSequence(data, _long(batch_sizes), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of pack_padded_sequence: (padded, lengths)."""
    if not isinstance(sequence, PackedSequence):
        raise TypeError(f"pad_packed_sequence(): expected a PackedSequence, got {type(sequence).__name__}")
    batch_sizes = _ints(sequence.batch_sizes).tolist()
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    batch = batch_sizes[0] if batch_sizes else 0
    data = sequence.data
    padded = _PadRows.apply(data, index=_row_index(batch_sizes, batch), shape=(steps, batch),
                            padding_value=float(padding_value))
    lengths = np.zeros(batch, dtype=np.int64)
    for n in batch_sizes:
        lengths[:n] += 1
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths[_ints(sequence.unsorted_indices)]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, _long(lengths)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks tensors of shape (L_i, *) into (L_max, B, *) (or (B, L_max, *)), padding the short ones."""
    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0))
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    from ..functional import pad
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        extra = longest - s.shape[0]
        if extra:
            widths = [0, 0] * (s.ndim - 1) + ([0, extra] if padding_side == "right" else [extra, 0])
            s = pad(s, widths, value=padding_value)
        padded.append(s)
    return stack(padded, 0 if batch_first else 1)


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of tensors of shape (L_i, *)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The sequences of a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(n)] for seq, n in zip(padded_sequences.unbind(0), _ints(lengths) if isinstance(lengths, Tensor)
                                           else lengths)]


def unpack_sequence(packed_sequences):
    """The sequences of a PackedSequence, as a list of tensors."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
