"""``torch.cuda.amp``: the deprecated spellings of ``torch.amp.autocast('cuda')``,
``torch.amp.GradScaler('cuda')`` and the custom Function decorators, with PyTorch's FutureWarning
(see engine/amp.py)."""
import warnings

from . import amp as _amp

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]

autocast, GradScaler = _amp.deprecated_spellings("cuda")


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
