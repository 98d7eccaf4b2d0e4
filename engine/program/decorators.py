"""Decorators the engine provides, applied to program functions by the interpreter:
``@torch.no_grad()``, ``@torch.enable_grad()``, ``@torch.inference_mode()``,
``@torch.set_grad_enabled(mode)`` (and ``@torch.no_grad`` without the call). The result is
a program function again (a copy whose body runs under the grad mode), so it binds as a
method, counts steps and reports errors at the program's lines like any other."""
from ..autograd.state import state
from .values import BoundMethod, Function

__all__ = ["grad_mode_function"]


def _mode_of(ctx):
    """The grad-enabled value ``ctx`` sets while a call runs (None: leaves it as it is)."""
    from ..autograd import grad_mode
    if isinstance(ctx, grad_mode.inference_mode):
        return False if ctx._mode else None
    if isinstance(ctx, grad_mode.set_grad_enabled):
        state.grad_enabled = ctx._prev     # as a decorator it applies to calls only, not from here on
        return ctx._enabled
    return ctx._enabled


def _wrap_body(body, mode):
    if getattr(body, "makes_generator", False):
        from .generators import under_grad_mode
        return under_grad_mode(body, mode) if mode is not None else body
    if type(body) is tuple:
        def run(frame):
            saved = state.grad_enabled
            if mode is not None:
                state.grad_enabled = mode
            try:
                for stmt in body:
                    signal = stmt(frame)
                    if signal is not None:
                        return signal
                return None
            finally:
                state.grad_enabled = saved
        return (run,)

    def run_expr(frame):
        saved = state.grad_enabled
        if mode is not None:
            state.grad_enabled = mode
        try:
            return body(frame)
        finally:
            state.grad_enabled = saved
    return run_expr


def grad_mode_function(ctx, fn):
    """``ctx(fn)`` for a grad-mode context ``ctx`` and a program function or bound method."""
    mode = _mode_of(ctx)
    if type(fn) is BoundMethod:
        return BoundMethod(grad_mode_function(ctx, fn.fn), fn.obj)
    spec = (fn.pos, fn.vararg, fn.kwonly, fn.kwarg)
    return Function(fn.rt, fn.name, spec, fn.defaults, fn.kwdefaults, _wrap_body(fn.body, mode), fn.cells, fn.cls,
                    fn.line)
