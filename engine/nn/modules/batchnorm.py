"""``torch.nn.modules.batchnorm``: where PyTorch defines the batch norms, with their base ``_BatchNorm``
(davda54/sam's bypass_bn.py checks ``isinstance(module, _BatchNorm)``). Programs reach the public
layers here, and the base by name (the allowlist lists it)."""
from ..lazy import LazyBatchNorm1d, LazyBatchNorm2d
from ..normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm, _BatchNorm  # noqa: F401

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "SyncBatchNorm"]
