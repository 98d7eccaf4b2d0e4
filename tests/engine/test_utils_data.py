"""torch.utils.data: datasets, samplers, DataLoader batching and collation, random_split. The
deterministic behaviour runs on gradserve and, where installed, on PyTorch (``lib``); shuffling is
checked for being a permutation drawn from the engine's seeded generator."""
import collections

import numpy as np
import pytest

import gradserve.engine as gs


def _data(lib):
    return lib.utils.data


def _tensor_ds(lib, n=5):
    return _data(lib).TensorDataset(lib.arange(2.0 * n).reshape(n, 2), lib.arange(n))


def _as_lists(batches):
    return [[t.tolist() for t in b] for b in batches]


def test_tensor_dataset_indexes_every_tensor(lib):
    ds = _tensor_ds(lib)
    assert len(ds) == 5
    x, y = ds[3]
    assert x.tolist() == [6.0, 7.0] and y.item() == 3
    with pytest.raises(AssertionError):
        _data(lib).TensorDataset(lib.ones(3), lib.ones(4))


@pytest.mark.parametrize("batch_size, drop_last", [(2, False), (2, True), (5, False), (1, False)])
def test_loader_batches_in_order(lib, batch_size, drop_last):
    loader = _data(lib).DataLoader(_tensor_ds(lib), batch_size=batch_size, drop_last=drop_last)
    batches = _as_lists(loader)
    n_full = 5 // batch_size
    assert len(loader) == len(batches) == n_full + (0 if drop_last or 5 % batch_size == 0 else 1)
    flat = [row for b in batches for row in b[1]]
    assert flat == list(range(len(flat)))
    assert batches[0][0][0] == [0.0, 1.0]


def test_default_collate_of_numbers_dicts_tuples_and_strings(lib):
    samples = [{"a": 1.5, "b": (1, True), "s": "x", "t": lib.ones(2)},
               {"a": 2.5, "b": (2, False), "s": "y", "t": lib.zeros(2)}]
    out = _data(lib).default_collate(samples)
    assert out["a"].dtype == lib.float64 and out["a"].tolist() == [1.5, 2.5]
    assert isinstance(out["b"], list) and out["b"][0].tolist() == [1, 2] and out["b"][0].dtype == lib.int64
    assert out["b"][1].dtype == lib.bool
    assert out["s"] == ["x", "y"] and out["t"].shape == (2, 2)


def test_default_collate_keeps_namedtuples_and_converts_numpy(lib):
    Pair = collections.namedtuple("Pair", "x y")
    out = _data(lib).default_collate([Pair(np.ones(2), 1), Pair(np.zeros(2), 2)])
    assert type(out) is Pair and out.x.dtype == lib.float64 and out.x.shape == (2, 2)
    with pytest.raises(TypeError):
        _data(lib).default_collate([object(), object()])


def test_collate_fn_and_batch_size_none(lib):
    ds = _tensor_ds(lib)
    assert list(_data(lib).DataLoader(ds, batch_size=2, collate_fn=len)) == [2, 2, 1]
    first = next(iter(_data(lib).DataLoader(ds, batch_size=None)))
    assert isinstance(first, (list, tuple)) and first[0].tolist() == [0.0, 1.0]


def test_a_custom_dataset_and_its_len(lib):
    class Squares(_data(lib).Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return lib.tensor([float(i)]), i * i
    xb, yb = next(iter(_data(lib).DataLoader(Squares(), batch_size=4)))
    assert xb.shape == (4, 1) and yb.tolist() == [0, 1, 4, 9]
    both = Squares() + Squares()
    assert len(both) == 8 and both[5][1] == 1


def test_subset_and_random_split(lib):
    ds = _tensor_ds(lib, 10)
    sub = _data(lib).Subset(ds, [4, 1])
    assert len(sub) == 2 and sub[0][1].item() == 4
    lib.manual_seed(0)
    parts = _data(lib).random_split(ds, [7, 3])
    assert [len(p) for p in parts] == [7, 3]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    fractions = _data(lib).random_split(ds, [0.5, 0.3, 0.2])
    assert [len(p) for p in fractions] == [5, 3, 2]
    with pytest.raises(ValueError):
        _data(lib).random_split(ds, [4, 4])


def test_bad_options_raise_value_errors(lib):
    ds = _tensor_ds(lib)
    D = _data(lib)
    with pytest.raises(ValueError):
        D.DataLoader(ds, sampler=D.SequentialSampler(ds), shuffle=True)
    with pytest.raises(ValueError):
        D.DataLoader(ds, batch_sampler=D.BatchSampler(D.SequentialSampler(ds), 2, False), batch_size=3)
    with pytest.raises(ValueError):
        D.BatchSampler(D.SequentialSampler(ds), 0, False)


def test_batch_sampler_and_iterable_dataset(lib):
    D = _data(lib)
    ds = _tensor_ds(lib)
    loader = D.DataLoader(ds, batch_sampler=D.BatchSampler(D.SequentialSampler(ds), 3, True))
    assert [b[1].tolist() for b in loader] == [[0, 1, 2]]

    class Count(D.IterableDataset):
        def __iter__(self):
            return iter(range(5))
    assert [b.tolist() for b in D.DataLoader(Count(), batch_size=2)] == [[0, 1], [2, 3], [4]]


def test_shuffle_is_a_permutation_decided_by_manual_seed():
    ds = _tensor_ds(gs, 9)

    def order(seed):
        gs.manual_seed(seed)
        return [i for _, y in gs.utils.data.DataLoader(ds, batch_size=4, shuffle=True) for i in y.tolist()]
    a, b, c = order(1), order(1), order(2)
    assert sorted(a) == list(range(9)) and a == b and a != c


def test_an_explicit_generator_decides_the_shuffle_and_leaves_the_global_one_alone():
    ds = _tensor_ds(gs, 9)
    gs.manual_seed(5)
    before = gs.rand(1).item()
    gs.manual_seed(5)
    g = gs.Generator().manual_seed(3)
    order = [i for _, y in gs.utils.data.DataLoader(ds, batch_size=9, shuffle=True, generator=g) for i in y.tolist()]
    assert gs.rand(1).item() == before and sorted(order) == list(range(9))


def test_random_sampler_with_replacement_and_weighted_sampler():
    ds = _tensor_ds(gs, 6)
    gs.manual_seed(0)
    picks = list(gs.utils.data.RandomSampler(ds, replacement=True, num_samples=20))
    assert len(picks) == 20 and all(0 <= p < 6 for p in picks)
    weighted = list(gs.utils.data.WeightedRandomSampler([0.0, 1.0, 0.0], 10))
    assert weighted == [1] * 10
