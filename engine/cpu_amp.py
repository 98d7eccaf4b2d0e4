"""``torch.cpu.amp``: the deprecated spellings of ``torch.amp.autocast('cpu')`` and
``torch.amp.GradScaler('cpu')``, with PyTorch's FutureWarning (see engine/amp.py)."""
from . import amp as _amp

__all__ = ["autocast", "GradScaler"]   # no custom_fwd/custom_bwd here, as in PyTorch


class autocast(_amp.autocast):
    """``torch.cpu.amp.autocast(enabled=True, dtype=torch.bfloat16, cache_enabled=True)`` (deprecated)."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        _amp.deprecated("autocast", "cpu")
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """``torch.cpu.amp.GradScaler(init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True)`` (deprecated)."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        _amp.deprecated("GradScaler", "cpu")
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
