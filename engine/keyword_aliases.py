"""NumPy-style keyword aliases PyTorch's native functions accept: ``axis=`` for ``dim=`` and
``keepdims=`` for ``keepdim=`` (``x.sum(axis=0, keepdims=True)``, ``torch.max(x, axis=1)``).

PyTorch's argument parser accepts them on every native function and Tensor method with those
parameters (not on Python-level ones such as ``F.softmax``); ``install`` wraps exactly the
engine's functions whose signature has the parameter and not already its alias.
"""
import functools
import inspect

_ALIASES = (("axis", "dim"), ("keepdims", "keepdim"))


def _aliases_for(fn):
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return ()
    return tuple((alias, name) for alias, name in _ALIASES if name in params and alias not in params)


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


def install(namespace, tensor_cls):
    """Rebinds the functions of ``namespace`` (a module dict) and the methods of ``tensor_cls``
    that take ``dim``/``keepdim`` to versions that also take the aliases; a function reachable
    under several names gets one wrapper."""
    done = {}

    def wrapped(fn):
        key = id(fn)
        if key not in done:
            aliases = _aliases_for(fn)
            done[key] = (fn, _with_aliases(fn, aliases) if aliases else fn)
        return done[key][1]

    for name, fn in list(namespace.items()):
        if not name.startswith("_") and inspect.isfunction(fn):
            namespace[name] = wrapped(fn)
    for name, fn in list(vars(tensor_cls).items()):
        if not name.startswith("_") and inspect.isfunction(fn):
            setattr(tensor_cls, name, wrapped(fn))
