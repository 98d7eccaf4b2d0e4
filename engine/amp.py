"""``torch.amp``: autocast and GradScaler, as mixed-precision training scripts use them.

``autocast`` is accepted with PyTorch's arguments, warnings and errors, but ops under it keep
computing in their inputs' dtypes: the engine has no bfloat16, and lowering chosen ops to float16 would only lose
precision on NumPy. A run warns once per line where an enabled autocast would have lowered them.
Without CUDA, a 'cuda' autocast disables itself with PyTorch's warning, as PyTorch's CPU build does.

``GradScaler`` is PyTorch's dynamic loss scaling, written out: ``scale`` multiplies, ``unscale_``
divides the gradients and records non-finite ones, ``step`` skips the optimizer's step after
them, ``update`` backs the scale off or grows it every ``growth_interval`` clean steps. A 'cuda'
scaler without CUDA is disabled with PyTorch's warning (every call passes through), as there.
"""
import warnings

import numpy as np

from .device import cuda_available

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]

_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                 "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
class autocast:
    """``torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``: a context
    manager (or decorator) that PyTorch runs chosen ops under in lower precision; here a region
    that computes as it would outside (see the module's docstring)."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type not in _DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device string: "
                               f"{device_type}")
        from . import dtypes
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else (dtypes.float16 if device_type == "cuda" else None)
        enabled = bool(enabled)
        if enabled and device_type == "cuda" and not cuda_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.")
            enabled = False
        if enabled and device_type == "cpu" and dtype is not None and dtype not in (dtypes.float16, dtypes.bfloat16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.")
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        if self._enabled:
            warnings.warn(f"autocast: this engine computes each op in its inputs' dtype; ops under autocast are "
                          f"not lowered to {self.fast_dtype or 'torch.bfloat16'}")
        return self

    def __exit__(self, exc_type, exc, tb):
        return False

    def __call__(self, func):
        def autocast_region(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return autocast_region


def _check_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """``torch.amp.custom_fwd``: a custom Function's forward, run as it is (autocast lowers nothing here);
    ``device_type`` is required, as PyTorch's."""
    _check_device_type(device_type)
    if fwd is None:
        return lambda f: custom_fwd(f, device_type=device_type, cast_inputs=cast_inputs)
    return fwd


def custom_bwd(bwd=None, *, device_type):
    """``torch.amp.custom_bwd``: a custom Function's backward, run as it is; ``device_type`` is required."""
    _check_device_type(device_type)
    if bwd is None:
        return lambda f: custom_bwd(f, device_type=device_type)
    return bwd


_READY, _UNSCALED, _STEPPED = 0, 1, 2


class GradScaler:
    """``torch.amp.GradScaler(device='cuda', init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True)``."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = str(device)
        if enabled and self._device == "cuda" and not cuda_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
            enabled = False
        self._enabled = bool(enabled)
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = float(init_scale)
        self._scale = None
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._init_growth_tracker = 0
        self._growth_tracker = None
        self._per_optimizer = {}   # id(optimizer) -> [stage, found_inf or None]

    def is_enabled(self):
        return self._enabled

    def _lazy_scale(self):
        if self._scale is None:
            from .ops.creation import tensor
            from . import dtypes
            self._scale = tensor(self._init_scale, dtype=dtypes.float32)
            self._growth_tracker = self._init_growth_tracker
        return self._scale

    def scale(self, outputs):
        """``outputs`` (a tensor, or lists/tuples of them) multiplied by the scale."""
        if not self._enabled:
            return outputs
        scale = self._lazy_scale()

        from .tensor import Tensor

        def apply(value):
            if isinstance(value, Tensor):   # PyTorch's test: a program object's attributes decide nothing here
                return value * scale.to(value.device)
            if isinstance(value, (list, tuple)):
                return type(value)(apply(v) for v in value)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return apply(outputs)

    def _check_scale(self, what):
        if self._scale is None:
            raise AssertionError(f"Attempted {what} but _scale is None.  This may indicate your script did not use "
                                 f"scaler.scale(loss or outputs) earlier in the iteration.")

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), [_READY, None])

    def unscale_(self, optimizer):
        """Divides ``optimizer``'s gradients by the scale, recording whether any is inf or NaN."""
        if not self._enabled:
            return
        record = self._state(optimizer)
        if record[0] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if record[0] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        from .autograd.grad_mode import no_grad
        self._check_scale("unscale_")
        # PyTorch's inverse scale: the float32 rounding of the double reciprocal, which float64
        # gradients are multiplied by too (1 / 3.0 is 0.3333333432674408 there)
        inv = float(np.float32(1.0 / float(self._scale)))
        found = False
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.grad.mul_(inv)
                    if not bool(p.grad.isfinite().all()):
                        found = True
        record[0], record[1] = _UNSCALED, found

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step(*args, **kwargs)`` on unscaled gradients, skipped when one is inf or NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale("step")
        record = self._state(optimizer)
        if record[0] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if record[0] == _READY:
            self.unscale_(optimizer)
        result = None if record[1] else optimizer.step(*args, **kwargs)
        record[0] = _STEPPED
        return result

    def update(self, new_scale=None):
        """Sets the next scale: ``new_scale``, or the scale backed off after a step with inf/NaN
        gradients, grown after ``growth_interval`` clean steps in a row."""
        if not self._enabled:
            return
        self._check_scale("update")
        scale = self._scale
        if new_scale is not None:   # PyTorch's checks: a float, or a 1-element tensor not requiring grad
            if isinstance(new_scale, float):
                value = new_scale
            else:
                from .tensor import Tensor
                if not isinstance(new_scale, Tensor):
                    raise AttributeError(f"'{type(new_scale).__name__}' object has no attribute 'device'")
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or torch.FloatTensor "
                          "with requires_grad=False.")
                if new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                if new_scale.ndim:   # copied into the 0-d scale
                    raise RuntimeError(f"output with shape [] doesn't match the broadcast shape "
                                       f"{list(new_scale.shape)}")
                value = float(new_scale)
        else:
            found = [record[1] for record in self._per_optimizer.values() if record[1] is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            value = float(scale)
            if any(found):
                value *= self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    grown = np.float32(value * self._growth_factor)
                    if np.isfinite(grown):   # PyTorch keeps the scale where growing it would overflow float32
                        value = float(grown)
                    self._growth_tracker = 0
        from .ops.creation import tensor
        self._scale = tensor(value, dtype=scale.dtype)
        self._per_optimizer = {}

    def get_scale(self):
        return float(self._lazy_scale()) if self._enabled else 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = int(new_interval)

    def state_dict(self):
        if not self._enabled:
            return {}
        self._lazy_scale()
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        from .ops.creation import tensor
        from . import dtypes
        self._init_scale = float(state_dict["scale"])
        self._scale = tensor(self._init_scale, dtype=dtypes.float32)
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = self._growth_tracker = int(state_dict["_growth_tracker"])


def deprecated(kind, device):
    """PyTorch's FutureWarning for ``torch.cuda.amp.X(...)`` / ``torch.cpu.amp.X(...)``."""
    warnings.warn(f"`torch.{device}.amp.{kind}(args...)` is deprecated. Please use "
                  f"`torch.amp.{kind}('{device}', args...)` instead.", FutureWarning)


def deprecated_spellings(device):
    """``torch.{device}.amp``'s autocast and GradScaler: ``torch.amp``'s for ``device``, made with
    PyTorch's FutureWarning (their signatures lack the device argument)."""
    default_dtype = "torch.float16" if device == "cuda" else "torch.bfloat16"

    class autocast(globals()["autocast"]):
        __doc__ = (f"``torch.{device}.amp.autocast(enabled=True, dtype={default_dtype}, cache_enabled=True)`` "
                   f"(deprecated).")

        def __init__(self, enabled=True, dtype=None, cache_enabled=True):
            deprecated("autocast", device)
            super().__init__(device, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    class GradScaler(globals()["GradScaler"]):
        __doc__ = (f"``torch.{device}.amp.GradScaler(init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, "
                   f"growth_interval=2000, enabled=True)`` (deprecated).")

        def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                     enabled=True):
            deprecated("GradScaler", device)
            super().__init__(device, init_scale, growth_factor, backoff_factor, growth_interval, enabled)

    module = f"{__name__.rsplit('.', 1)[0]}.{device}_amp"
    autocast.__module__ = GradScaler.__module__ = module
    autocast.__qualname__, GradScaler.__qualname__ = "autocast", "GradScaler"
    return autocast, GradScaler
