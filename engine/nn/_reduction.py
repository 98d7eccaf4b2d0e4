"""``torch.nn._reduction``: the reduction names' enum and the legacy ``size_average`` / ``reduce``
arguments' meaning, as PyTorch's. Loss code written against PyTorch imports it (torchbnn's
``from torch.nn import _reduction as _Reduction``); in-process only: its name begins with ``_``,
so programs never reach it (SPEC section 2)."""
import warnings

__all__ = ["get_enum", "legacy_get_string", "legacy_get_enum"]

_ENUM = {"none": 0, "mean": 1, "elementwise_mean": 1, "sum": 2}


def get_enum(reduction):
    """0, 1 or 2 for 'none', 'mean' (or the deprecated 'elementwise_mean') and 'sum'."""
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=2)
    if not isinstance(reduction, str) or reduction not in _ENUM:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _ENUM[reduction]


def legacy_get_string(size_average, reduce, emit_warning=True):
    """The reduction the deprecated ``size_average`` and ``reduce`` flags stand for (None is True)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                      stacklevel=2)
    return ret


def legacy_get_enum(size_average, reduce, emit_warning=True):
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))
