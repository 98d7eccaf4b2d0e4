"""``torch.nn.utils.stateless``: ``functional_call``, PyTorch 1.12's name for ``torch.func.functional_call``
(deprecated since 2.0, with PyTorch's warning)."""
import warnings

__all__ = ["functional_call"]


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """``torch.func.functional_call``, under its deprecated name."""
    from ...func import functional_call as call
    warnings.warn("This API is deprecated as of PyTorch 2.0 and will be removed in a future version of PyTorch. "
                  "Please use torch.func.functional_call instead which is a drop-in replacement for this API.",
                  FutureWarning, stacklevel=2)
    return call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
