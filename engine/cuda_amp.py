"""``torch.cuda.amp``: the deprecated spellings of ``torch.amp.autocast('cuda')`` and
``torch.amp.GradScaler('cuda')``, with PyTorch's FutureWarning (see engine/amp.py)."""
from .amp import custom_bwd, custom_fwd, deprecated_spellings  # noqa: F401

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]

autocast, GradScaler = deprecated_spellings("cuda")
