"""torch.utils: the data loading utilities (``torch.utils.data``)."""
from . import data

__all__ = ["data"]
