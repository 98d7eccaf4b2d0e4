"""``torch.cuda.amp``: the deprecated spellings of ``torch.amp.autocast('cuda')`` and
``torch.amp.GradScaler('cuda')``, with PyTorch's FutureWarning (see engine/amp.py)."""
import warnings

from . import amp as _amp

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast(_amp.autocast):
    """``torch.cuda.amp.autocast(enabled=True, dtype=torch.float16, cache_enabled=True)`` (deprecated)."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        _amp.deprecated("autocast", "cuda")
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """``torch.cuda.amp.GradScaler(init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True)`` (deprecated)."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        _amp.deprecated("GradScaler", "cuda")
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """``torch.cuda.amp.custom_fwd`` (deprecated): ``torch.amp.custom_fwd(..., device_type='cuda')``."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning)
    return _amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """``torch.cuda.amp.custom_bwd`` (deprecated): ``torch.amp.custom_bwd(..., device_type='cuda')``."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning)
    return _amp.custom_bwd(bwd, device_type="cuda")
