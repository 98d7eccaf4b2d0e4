"""no_grad, enable_grad, set_grad_enabled and anomaly mode, as in torch.autograd."""
import functools

from .state import state

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "set_detect_anomaly", "detect_anomaly", "is_anomaly_enabled"]


class _GradModeContext:
    """Base of the grad-mode context managers; each also works as a decorator."""
    _enabled = None

    def __enter__(self):
        self._prev = state.grad_enabled
        state.grad_enabled = self._enabled

    def __exit__(self, *exc):
        state.grad_enabled = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class _NoParamGradMode(_GradModeContext):
    """A grad mode that is also a bare decorator: ``@torch.no_grad`` as well as ``@torch.no_grad()``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        if not callable(orig_func):
            raise TypeError(f"{cls.__name__}() takes no arguments")
        return cls()(orig_func)


class no_grad(_NoParamGradMode):
    """Context manager that disables gradient calculation."""
    _enabled = False


class enable_grad(_NoParamGradMode):
    """Context manager that enables gradient calculation."""
    _enabled = True


class set_grad_enabled(_GradModeContext):
    """Sets gradient calculation on or off: at once, as a context manager or as a decorator."""

    def __init__(self, mode):
        self._prev = state.grad_enabled
        self._enabled = bool(mode)
        state.grad_enabled = self._enabled

    def __enter__(self):
        pass

    def __call__(self, fn):
        # as a decorator the mode applies to the calls only, not from here on
        state.grad_enabled = self._prev
        mode = self._enabled

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper


class inference_mode(_GradModeContext):
    """Context manager that disables gradient calculation (here the same as no_grad)."""

    def __new__(cls, mode=True):
        if callable(mode):   # bare @torch.inference_mode
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self._mode = bool(mode)
        self._enabled = not self._mode

    def __enter__(self):
        self._prev = state.grad_enabled
        if self._mode:
            state.grad_enabled = False

    def __call__(self, fn):
        mode = self._mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return fn(*args, **kwargs)
        return wrapper


def is_grad_enabled():
    """Returns True if grad mode is currently enabled."""
    return state.grad_enabled


class set_detect_anomaly:
    """Turns anomaly detection on or off, now and as a context manager."""

    def __init__(self, mode, check_nan=True):
        self._prev = state.anomaly
        state.anomaly = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        state.anomaly = self._prev
        return False


class detect_anomaly(set_detect_anomaly):
    """Context manager that enables anomaly detection for the autograd engine."""

    def __init__(self, check_nan=True):
        self._prev = state.anomaly

    def __enter__(self):
        state.anomaly = True
        return self


def is_anomaly_enabled():
    return state.anomaly
