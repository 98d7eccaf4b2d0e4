"""Keywords PyTorch's native functions accept on top of their own parameters: the NumPy-style
aliases ``axis=`` for ``dim=`` and ``keepdims=`` for ``keepdim=`` (``x.sum(axis=0, keepdims=True)``,
``torch.max(x, axis=1)``), and ``out=`` (``torch.mul(a, b, out=c)``: the result written into ``c``).

PyTorch's argument parser accepts them on every native function and Tensor method with those
parameters (not on Python-level ones such as ``F.softmax``); ``install`` wraps exactly the
engine's functions whose signature has the parameter and not already its alias.
"""
import functools
import inspect
import warnings

_ALIASES = (("axis", "dim"), ("keepdims", "keepdim"))


def _aliases_for(fn):
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return ()
    return tuple((alias, name) for alias, name in _ALIASES if name in params and alias not in params)


def _takes_out(fn):
    try:
        return "out" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _with_aliases(fn, aliases):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if kwargs:
            for alias, name in aliases:
                if alias in kwargs:
                    if name in kwargs:
                        raise TypeError(f"{fn.__name__}() got multiple values for argument '{name}'")
                    kwargs[name] = kwargs.pop(alias)
        return fn(*args, **kwargs)
    return call


def _write_out(name, out, result):
    """PyTorch's out= contract for one result: out is resized to the result's shape (with its
    warning when it had elements), takes the result's values, and keeps its own dtype when the
    result casts to it safely."""
    from . import can_cast, no_grad
    from .nn.functional import _scalar_type_name
    from .tensor import Tensor
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if out.dtype != result.dtype and not can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"result type {_scalar_type_name(result)} can't be cast to the desired output type "
                           f"{_scalar_type_name(out)}")
    if out.device != result.device:
        raise RuntimeError(f"Expected out tensor to have device {result.device}, but got {out.device} instead")
    with no_grad():
        if tuple(out.shape) != tuple(result.shape):
            if out.numel():
                warnings.warn(f"An output with one or more elements was resized since it had shape "
                              f"{list(out.shape)}, which does not match the required output shape "
                              f"{list(result.shape)}. This behavior is deprecated, and in a future PyTorch "
                              f"release outputs will not be resized unless they have zero elements. You can "
                              f"explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                              f"with t.resize_(0).", UserWarning, stacklevel=4)
            out.data = result.detach().to(out.dtype)
        else:
            out.copy_(result)


def _with_out(fn):
    name = fn.__name__

    @functools.wraps(fn)
    def call(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        from .autograd.state import state
        from .tensor import Tensor
        result = fn(*args, **kwargs)
        results = tuple(result) if isinstance(result, tuple) else (result,)
        if state.grad_enabled and any(isinstance(r, Tensor) and r.requires_grad for r in results):
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                               f"differentiation, but one of the arguments requires grad.")
        outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        if len(outs) != len(results):
            raise TypeError(f"{name}(): argument 'out' must be a tuple of {len(results)} Tensors")
        for o, r in zip(outs, results):
            _write_out(name, o, r)
        return out
    return call


def install(namespace, tensor_cls=None):
    """Rebinds the functions of ``namespace`` (a module dict: torch's, torch.linalg's) and the methods
    of ``tensor_cls`` that take ``dim``/``keepdim`` to versions that also take the aliases, and those
    that take ``out`` to versions that write it; a function reachable under several names gets one
    wrapper."""
    done = {}

    def wrapped(fn):
        key = id(fn)
        if key not in done:
            aliases = _aliases_for(fn)
            done[key] = (fn, _with_aliases(fn, aliases) if aliases else fn)
        return done[key][1]

    outs = {}
    for name, fn in list(namespace.items()):
        if not name.startswith("_") and inspect.isfunction(fn):
            fn = wrapped(fn)
            if _takes_out(fn):
                if id(fn) not in outs:
                    outs[id(fn)] = _with_out(fn)
                fn = outs[id(fn)]
            namespace[name] = fn
    for name, fn in list(vars(tensor_cls).items()) if tensor_cls is not None else ():
        if not name.startswith("_") and inspect.isfunction(fn):
            setattr(tensor_cls, name, wrapped(fn))
