"""torch.utils: the data loading utilities (``torch.utils.data``) and ``torch.utils.checkpoint``."""
from . import checkpoint, data

__all__ = ["checkpoint", "data"]
