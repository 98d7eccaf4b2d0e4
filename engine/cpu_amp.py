"""``torch.cpu.amp``: the deprecated spellings of ``torch.amp.autocast('cpu')`` and
``torch.amp.GradScaler('cpu')``, with PyTorch's FutureWarning (see engine/amp.py)."""
from .amp import custom_bwd, custom_fwd, deprecated_spellings  # noqa: F401

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]

autocast, GradScaler = deprecated_spellings("cpu")
