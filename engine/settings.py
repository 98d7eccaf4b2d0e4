"""Process settings PyTorch programs make at their top (``torch.set_num_threads(1)``,
``torch.set_float32_matmul_precision("high")``, ``torch.use_deterministic_algorithms(True)``): accepted
and answered back, each session its own (autograd.state.settings is swapped in with the session).

None changes how this engine computes: NumPy's float32 matrix products are IEEE float32 whatever the
precision asked, every op here is deterministic, and the worker's BLAS threads are the server's
configuration, not a program's."""
from .autograd.state import state

__all__ = ["set_num_threads", "get_num_threads", "set_num_interop_threads", "get_num_interop_threads",
           "set_float32_matmul_precision", "get_float32_matmul_precision", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
           "set_deterministic_debug_mode", "get_deterministic_debug_mode", "set_warn_always",
           "is_warn_always_enabled", "set_flush_denormal", "get_default_device"]

_PRECISIONS = ("highest", "high", "medium")
_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def _positive_int(n, name):
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{name}(): argument 'int' must be int, not {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"Expected {'number of threads' if name == 'set_num_threads' else 'number of interop threads'}"
                           f" to be positive, but got {n}" if name == "set_num_threads" else
                           f"Number of inter-op threads must be positive, but got {n}")
    return n


def set_num_threads(int):  # noqa: A002 - PyTorch's parameter name
    """Sets the intra-op thread count this session reads back (the worker's BLAS threads are the server's)."""
    state.settings["num_threads"] = _positive_int(int, "set_num_threads")


def get_num_threads():
    return state.settings.get("num_threads", 1)


def set_num_interop_threads(int):  # noqa: A002
    state.settings["num_interop_threads"] = _positive_int(int, "set_num_interop_threads")


def get_num_interop_threads():
    return state.settings.get("num_interop_threads", 1)


def set_float32_matmul_precision(precision):
    """'highest', 'high' or 'medium'; anything else is ignored with PyTorch's warning."""
    if precision not in _PRECISIONS:
        import warnings
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      f"setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    state.settings["matmul_precision"] = precision


def get_float32_matmul_precision():
    return state.settings.get("matmul_precision", "highest")


def use_deterministic_algorithms(mode, *, warn_only=False):
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' must be bool, not {type(mode).__name__}")
    state.settings["deterministic"] = mode
    state.settings["deterministic_warn_only"] = bool(warn_only) and mode


def are_deterministic_algorithms_enabled():
    return state.settings.get("deterministic", False)


def is_deterministic_algorithms_warn_only_enabled():
    return state.settings.get("deterministic_warn_only", False)


def set_deterministic_debug_mode(debug_mode):
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    elif isinstance(debug_mode, bool) or not isinstance(debug_mode, int) or debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not are_deterministic_algorithms_enabled():
        return 0
    return 1 if is_deterministic_algorithms_warn_only_enabled() else 2


def set_warn_always(b):
    state.settings["warn_always"] = bool(b)


def is_warn_always_enabled():
    return state.settings.get("warn_always", False)


def set_flush_denormal(mode):
    """False: flushing denormals is a processor-wide mode, which a session may not change for others."""
    return False


def get_default_device():
    from .device import device
    return device("cpu")
