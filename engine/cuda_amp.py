"""``torch.cuda.amp``: the deprecated spellings of ``torch.amp.autocast('cuda')`` and
``torch.amp.GradScaler('cuda')``, with PyTorch's FutureWarning (see engine/amp.py)."""
from . import amp as _amp
from .amp import custom_bwd, custom_fwd  # noqa: F401

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
