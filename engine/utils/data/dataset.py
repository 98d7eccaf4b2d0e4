"""torch.utils.data.dataset: the dataset classes and random_split, under the submodule name scripts import."""
from . import (ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset, random_split)

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "Subset", "random_split"]
