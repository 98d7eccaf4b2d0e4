"""EmbeddingBag: sums, means or maxima of bags of embeddings without building the
(bags, length, dim) tensor of lookups, as torch.nn.EmbeddingBag.

Written from differentiable engine ops: the rows are looked up with F.embedding (its
padding_idx and scale_grad_by_freq rules), summed into their bags with index_add, or for
``max`` gathered into a (bags, longest bag, dim) block whose padding reads -inf."""
import numpy as np

from ..limits import check_elements
from ..ops.creation import empty, full, zeros
from ..ops.shape import cat
from ..tensor import Tensor
from . import init
from .functional import _embedding_renorm, _xp, embedding
from .module import Module
from .parameter import Parameter

__all__ = ["EmbeddingBag", "embedding_bag"]


def _bags(input, offsets, include_last_offset):
    """(flat indices tensor, bag of each position (array), number of bags) from PyTorch's two layouts."""
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        b, length = input.shape
        return input.reshape(-1), np.repeat(np.arange(b), length), b
    if input.ndim != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.ndim != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    if offsets._data.dtype.kind not in "iu":
        raise RuntimeError("Expected tensor for argument #2 'offsets' to have one of the following scalar types: "
                           f"Long, Int; but got {offsets.type()} instead (while checking arguments for embedding_bag)")
    starts = np.asarray(offsets._data.get() if hasattr(offsets._data, "get") else offsets._data).astype(np.int64)
    n = input.shape[0]
    if starts.size and starts[0] != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {starts[0]}")
    if starts.size and starts[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of "
                           f"{starts[-1]}")
    if np.any(np.diff(starts) < 0):
        raise RuntimeError("offsets must be non-decreasing")
    if include_last_offset:
        # as ATen: the last bag runs to the end of input, whatever offsets[-1] says
        ends = np.append(starts[1:-1], n) if starts.size > 1 else starts[1:]
        starts = starts[:-1]
    else:
        ends = np.append(starts[1:], n)
    counts = ends - starts
    bag_of = np.repeat(np.arange(len(starts)), counts)
    used = int(counts.sum())
    return input[:used] if used != n else input, bag_of, len(starts)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, averages or takes the maximum of each bag of embeddings."""
    if isinstance(weight, Tensor) and weight._data.dtype.kind in "iu" and input.is_floating_point():
        import warnings
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input._data.dtype.kind not in "iu":
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.type()} instead (while checking arguments for embedding_bag)")
    idx, bag_of, n_bags = _bags(input, offsets, include_last_offset)
    if per_sample_weights is not None:
        per_sample_weights = per_sample_weights.reshape(-1)[:idx.shape[0]]
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    n = weight.shape[0]
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise AssertionError("padding_idx must be within num_embeddings")
        padding_idx = padding_idx + n if padding_idx < 0 else padding_idx
    data = idx._data
    if data.size and (int(data.min()) < 0 or int(data.max()) >= n):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _embedding_renorm(weight, data, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    rows = embedding(idx, weight, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq)   # (L, D)
    host_idx = np.asarray(data.get() if hasattr(data, "get") else data)
    keep = host_idx != padding_idx if padding_idx is not None else np.ones(host_idx.shape, bool)
    xp = _xp(weight._data)
    on_device = (lambda a: a) if xp is np else xp.asarray
    d = weight.shape[1]
    if mode == "max":
        return _bag_max(rows, bag_of[keep], np.flatnonzero(keep), n_bags, d, weight, on_device)
    scale = keep.astype(weight._data.dtype)
    if mode == "mean":
        counts = np.bincount(bag_of[keep], minlength=n_bags)
        scale = scale / np.maximum(counts, 1)[bag_of]
    rows = rows * Tensor._adopt_array(on_device(scale.reshape(-1, 1)), False, None)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1, 1)
    out = zeros((n_bags, d), dtype=weight.dtype, device=weight.device)
    return out.index_add(0, Tensor._adopt_array(on_device(bag_of.astype(np.int64)), False, None), rows)


def _bag_max(rows, bag_of, positions, n_bags, d, weight, on_device):
    """Per bag and dim, the first maximum of its rows (empty bags give 0)."""
    counts = np.bincount(bag_of, minlength=n_bags)
    longest = int(counts.max()) if n_bags and counts.size else 0
    if longest == 0:
        return zeros((n_bags, d), dtype=weight.dtype, device=weight.device)
    check_elements((n_bags, longest, d), "embedding_bag max block")
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    slot = np.arange(len(bag_of)) - start[bag_of]
    block = np.full((n_bags, longest), rows.shape[0], dtype=np.int64)   # the -inf row
    block[bag_of, slot] = positions
    minus_inf = full((1, d), float("-inf"), dtype=weight.dtype, device=weight.device)
    padded = cat([rows, minus_inf], 0)                                   # row L: what padding slots read
    picked = padded.index_select(0, Tensor._adopt_array(on_device(block.reshape(-1)), False, None))
    best = picked.reshape(n_bags, longest, d).max(1)[0]
    empty_bags = Tensor._adopt_array(on_device((counts == 0).reshape(-1, 1)), False, None)
    return best.masked_fill(empty_bags, 0.0) if bool((counts == 0).any()) else best


class EmbeddingBag(Module):
    """Sums, means or maxima over bags of embeddings, without materialising the lookups."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None,
                 dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if padding_idx > 0 and padding_idx >= num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            if padding_idx < 0:
                if padding_idx < -num_embeddings:
                    raise AssertionError("padding_idx must be within num_embeddings")
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(empty((num_embeddings, embedding_dim), device=device, dtype=dtype))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight._data[self.padding_idx] = 0

    def forward(self, input, offsets=None, per_sample_weights=None):
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                             self.mode, self.sparse, per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm!r}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type!r}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq!r}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx!r}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                        mode="mean", sparse=False, include_last_offset=False, padding_idx=None):
        """Creates an EmbeddingBag from a 2-D tensor of vectors."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, max_norm=max_norm,
                  norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
