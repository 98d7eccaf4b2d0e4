"""torch.utils.data.dataloader: DataLoader and its collation, under the submodule name scripts import."""
from . import DataLoader, default_collate, default_convert, get_worker_info

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]
