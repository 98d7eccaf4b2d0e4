"""``torch.jit`` as model code uses it to annotate itself (Kaixhin/PlaNet's ``TransitionModel(jit.ScriptModule)``
with ``@jit.script_method`` forwards): TorchScript compiles nothing here, and the values are those of the
eager code TorchScript would have compiled. ``ScriptModule`` is an ``nn.Module``; ``script``, ``trace``,
``script_method`` and the other decorators return what they are given."""
import typing as _typing

from .nn.module import Module

__all__ = ["ScriptModule", "ScriptFunction", "script", "script_method", "trace", "ignore", "unused", "export",
           "is_scripting", "is_tracing", "annotate", "Final", "Attribute"]

Final = _typing.Final


class ScriptModule(Module):
    """A module TorchScript would compile: here, the module itself."""


class ScriptFunction:
    """The type ``torch.jit.script`` gives a function in PyTorch: here, script returns the function."""


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """The module or function itself (TorchScript's compiled version computes the same values)."""
    return obj


def script_method(fn):
    return fn


def trace(func, example_inputs=None, *args, **kwargs):
    """The function or module itself, run eagerly (a trace records the ops the example takes)."""
    return func


def ignore(drop=False, **kwargs):
    """``@torch.jit.ignore`` and ``@torch.jit.ignore(drop=...)``: the function unchanged."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def is_scripting():
    return False


def is_tracing():
    return False


def annotate(the_type, the_value):
    return the_value


def Attribute(value, type):  # noqa: A002 - PyTorch's parameter name
    return value
