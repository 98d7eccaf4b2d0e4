"""``torch.nn.modules.module``: where PyTorch defines ``Module``."""
from ..module import Module

__all__ = ["Module"]
