"""``torch._utils``' flat-buffer helpers (openai's improved-diffusion fp16_util.py imports them):
programs reach these two by name, as the allowlist lists them, and nothing else of the module."""
from .ops.shape import cat
from .ops.creation import empty

__all__ = ["_flatten_dense_tensors", "_unflatten_dense_tensors"]


def _flatten_dense_tensors(tensors):
    """The tensors flattened into one 1-D tensor (one tensor: its flat view), differentiably."""
    tensors = list(tensors)
    if len(tensors) == 1:
        return tensors[0].contiguous().view(-1)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    return cat([t.contiguous().view(-1) for t in tensors])


def _unflatten_dense_tensors(flat, tensors):
    """Views of ``flat`` shaped as ``tensors``, in order (an empty tensor: a new empty one), as a tuple."""
    outputs, offset = [], 0
    for t in tensors:
        n = t.numel()
        if n == 0:
            outputs.append(empty(0, dtype=flat.dtype, device=flat.device))
        else:
            outputs.append(flat.narrow(0, offset, n).view(t.shape))
            offset += n
    return tuple(outputs)
