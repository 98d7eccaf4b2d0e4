"""torch.utils.data: datasets, samplers, DataLoader, default_collate and random_split.

Shuffling draws from the engine's generator (``torch.manual_seed`` decides it, and in a session it
is the session's own), or from the ``generator`` passed in. A program's own dataset, sampler or
collate function is called as Python calls it (``dataset[i]``, ``len(dataset)``,
``collate_fn(batch)``): program code runs through the interpreter, under the run's limits.
Loading is always in the calling process: ``num_workers`` and ``pin_memory`` change nothing.
"""
import bisect
import collections.abc
import itertools
import math
import numbers
import warnings

import numpy as np

from ... import dtypes as _dt
from ...ops.creation import randperm, registered_array, tensor as _tensor
from ...ops.shape import stack as _stack
from ...tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "Subset", "StackDataset",
           "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "BatchSampler",
           "WeightedRandomSampler", "DataLoader", "default_collate", "default_convert", "random_split",
           "get_worker_info"]


# --------------------------------------------------------------------------- datasets
class Dataset:
    """An abstract map-style dataset: subclasses define ``__getitem__`` (and usually ``__len__``)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """An abstract iterable-style dataset: subclasses define ``__iter__``."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        raise TypeError("IterableDataset does not support concatenation with +")


class TensorDataset(Dataset):
    """Dataset wrapping tensors: sample ``i`` is each tensor's ``i``-th row."""

    def __init__(self, *tensors):
        if not tensors or any(t.size(0) != tensors[0].size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Samples of several datasets side by side, as a tuple or (keywords) a dict."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        self.datasets = args or kwargs
        lengths = [len(d) for d in (args or kwargs.values())]
        if not lengths or any(n != lengths[0] for n in lengths):
            raise ValueError("Size mismatch between datasets")
        self._length = lengths[0]

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """The concatenation of several datasets."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Randomly splits a dataset into non-overlapping Subsets of the given lengths (or fractions)."""
    n = len(dataset)
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        for i, c in enumerate(counts):
            if c == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.")
        lengths = counts
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = randperm(sum(lengths), generator=generator).tolist()
    out = []
    offset = 0
    for length in lengths:
        out.append(Subset(dataset, order[offset:offset + length]))
        offset += length
    return out


# --------------------------------------------------------------------------- samplers
class Sampler:
    """Base class of samplers: iterables over dataset indices (or lists of them)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """Samples elements in order."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Samples elements in a random order (a permutation, or with replacement)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.num_samples, int) or isinstance(self.num_samples, bool) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        from ...ops.creation import randint
        if self.replacement:
            return iter(randint(0, n, (self.num_samples,), generator=self.generator).tolist())
        order = []
        for _ in range(self.num_samples // n):
            order.extend(randperm(n, generator=self.generator).tolist())
        order.extend(randperm(n, generator=self.generator).tolist()[:self.num_samples % n])
        return iter(order)

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """Samples the given indices in a random order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        return iter([self.indices[i] for i in randperm(len(self.indices), generator=self.generator).tolist()])

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """Samples indices with the given probabilities (weights)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        self.weights = weights if isinstance(weights, Tensor) else _tensor(weights, dtype=_dt.float64)
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        from ...ops.creation import multinomial
        return iter(multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator).tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of another sampler into lists of ``batch_size``."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size


# --------------------------------------------------------------------------- collation
_COLLATE_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                  "found {}")


def default_collate(batch):
    """Stacks a batch of samples: tensors (and NumPy arrays) stacked on a new first dim, Python
    floats, ints and bools made tensors, strings kept as a list, and dicts, tuples and lists
    collated field by field."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _stack(list(batch), 0)
    if isinstance(elem, np.ndarray) or registered_array(elem) is not None:   # a program's NumPy arrays too
        arrays = [_host_array(b) for b in batch]
        if arrays[0].dtype.kind in "OSUV":
            raise TypeError(_COLLATE_ERROR.format(arrays[0].dtype))
        return _stack([_tensor(a) for a in arrays], 0)
    if isinstance(elem, np.generic):
        return _tensor(np.asarray(batch))
    if isinstance(elem, bool):
        return _tensor(list(batch))
    if isinstance(elem, float):
        return _tensor(list(batch), dtype=_dt.float64)
    if isinstance(elem, numbers.Integral):
        return _tensor(list(batch))
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(type(elem), "_fields"):   # a namedtuple
        return type(elem)(*(default_collate(list(samples)) for samples in zip(*batch)))
    if isinstance(elem, (list, tuple)):
        size = len(elem)
        if any(len(b) != size for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(samples)) for samples in zip(*batch)]
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


def _host_array(b):
    """``b`` as a host NumPy array (a program's ``np.ndarray`` unwrapped)."""
    host = registered_array(b)
    return np.asarray(b) if host is None else host


def default_convert(data):
    """What a DataLoader without batching returns: NumPy arrays made tensors, containers converted."""
    host = registered_array(data)
    if host is not None:
        data = host
    if isinstance(data, np.ndarray) and data.dtype.kind not in "OSUV":
        return _tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(type(data), "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (list, tuple)):
        return [default_convert(d) for d in data]
    return data


def get_worker_info():
    """None: loading runs in the calling process."""
    return None


# --------------------------------------------------------------------------- the loader
class DataLoader:
    """Combines a dataset and a sampler and iterates over batches of the dataset."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        self.dataset = dataset
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            if shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None or batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None and not iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            batching = batch_sampler is not None or batch_size is not None
            collate_fn = default_collate if batching else default_convert
        self.collate_fn = collate_fn

    def __iter__(self):
        dataset = self.dataset
        collate = self.collate_fn
        if isinstance(dataset, IterableDataset):
            if self.batch_size is None:
                for item in dataset:
                    yield collate(item)
                return
            batch = []
            for item in dataset:
                batch.append(item)
                if len(batch) == self.batch_size:
                    yield collate(batch)
                    batch = []
            if batch and not self.drop_last:
                yield collate(batch)
            return
        if self.batch_sampler is None:
            for idx in self.sampler:
                yield collate(dataset[idx])
            return
        for indices in self.batch_sampler:
            yield collate([dataset[i] for i in indices])

    def __len__(self):
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)


from . import dataloader, dataset, sampler  # noqa: E402 - the submodules re-export the names above
