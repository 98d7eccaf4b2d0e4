"""``torch.cpu.amp``: the deprecated spellings of ``torch.amp.autocast('cpu')`` and
``torch.amp.GradScaler('cpu')``, with PyTorch's FutureWarning (see engine/amp.py)."""
from .amp import deprecated_spellings

__all__ = ["autocast", "GradScaler"]   # no custom_fwd/custom_bwd here, as in PyTorch

autocast, GradScaler = deprecated_spellings("cpu")
