"""``torch.utils.checkpoint``: checkpoint and checkpoint_sequential with PyTorch's signatures, warnings and
errors. PyTorch frees a checkpointed segment's activations and recomputes them in backward, trading
compute for memory; here the segment runs once and keeps its graph, so values and gradients are the
same (the random state needs no replay) and only that memory saving is not made."""
import warnings

__all__ = ["checkpoint", "checkpoint_sequential"]

_EXPLICIT = ("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch "
             "2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is "
             "recommended, but if you need to preserve the current default behavior, you can pass "
             "use_reentrant=True. Refer to docs for more details on the differences between the two variants.")


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               preserve_rng_state=True, **kwargs):
    """``function(*args, **kwargs)``, as a checkpointed segment (see the module's docstring)."""
    if use_reentrant is None:
        warnings.warn(_EXPLICIT)
        use_reentrant = True
    if use_reentrant and kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant and (context_fn is not None or debug is not False):
        raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
    return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """The functions (or an ``nn.Sequential``'s children) applied in turn to ``input``, in ``segments``
    checkpointed segments."""
    if use_reentrant is None:
        warnings.warn(_EXPLICIT)
    kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    from ..nn import Sequential
    if isinstance(functions, Sequential):   # PyTorch's test: a program object's attributes decide nothing here
        functions = list(functions.children())
    segment_size = len(functions) // segments   # PyTorch's ZeroDivisionError for 0 segments
    range(0, segment_size * (segments - 1), segment_size)   # and its ValueError for more segments than functions
    for f in functions:
        input = f(input)
    return input
