"""torch.optim.adamw: AdamW's module, as PyTorch names it (the class itself is in adam.py)."""
from .adam import AdamW

__all__ = ["AdamW"]
