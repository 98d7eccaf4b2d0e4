"""torch.nn.utils.rnn (engine/nn/utils/rnn.py): packing and padding against PyTorch, values,
gradients and the PackedSequence fields; gradcheck of the pack and pad ops."""
import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.autograd import gradcheck, gradgradcheck
from gradserve.engine.nn.utils import rnn as R

try:
    import torch
except ImportError:  # the suite passes without PyTorch
    torch = None


def _both(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return gs.tensor(a, requires_grad=True), (torch.tensor(a, requires_grad=True) if torch else None)


def _np(t):
    return None if t is None else t.detach().numpy()


def _same_packed(ours, theirs):
    for a, b in zip(ours, theirs):
        if b is None:
            assert a is None
        else:
            np.testing.assert_array_equal(_np(a), _np(b))
            assert str(a.dtype) == str(b.dtype)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths,enforce_sorted", [([4, 3, 1], True), ([1, 4, 3], False), ([2, 2, 4], False)])
def test_pack_then_pad_matches_torch(lengths, enforce_sorted, batch_first):
    if torch is None:
        pytest.skip("compares with PyTorch")
    shape = (3, 4, 2) if batch_first else (4, 3, 2)
    x_g, x_t = _both(shape)
    p_g = R.pack_padded_sequence(x_g, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    p_t = torch.nn.utils.rnn.pack_padded_sequence(x_t, lengths, batch_first=batch_first,
                                                  enforce_sorted=enforce_sorted)
    _same_packed(p_g, p_t)
    assert p_g.data.grad_fn.name() == p_t.data.grad_fn.name() == "PackPaddedSequenceBackward0"
    for kw in ({}, {"padding_value": -2.5}, {"total_length": 6}):
        o_g, l_g = R.pad_packed_sequence(p_g, batch_first=batch_first, **kw)
        o_t, l_t = torch.nn.utils.rnn.pad_packed_sequence(p_t, batch_first=batch_first, **kw)
        np.testing.assert_array_equal(_np(o_g), _np(o_t))
        np.testing.assert_array_equal(_np(l_g), _np(l_t))
    w = np.random.default_rng(1).standard_normal(tuple(o_t.shape))
    (o_g * gs.tensor(w)).sum().backward()
    (o_t * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(_np(x_g.grad), _np(x_t.grad))


def test_pack_sequence_and_pad_sequence_match_torch():
    if torch is None:
        pytest.skip("compares with PyTorch")
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal((n, 3)) for n in (2, 5, 3)]
    seq_g = [gs.tensor(a, requires_grad=True) for a in arrays]
    seq_t = [torch.tensor(a, requires_grad=True) for a in arrays]
    for kw in ({}, {"batch_first": True}, {"batch_first": True, "padding_value": 7.0, "padding_side": "left"}):
        np.testing.assert_array_equal(_np(R.pad_sequence(seq_g, **kw)), _np(torch.nn.utils.rnn.pad_sequence(seq_t, **kw)))
    _same_packed(R.pack_sequence(seq_g, enforce_sorted=False),
                 torch.nn.utils.rnn.pack_sequence(seq_t, enforce_sorted=False))
    packed = R.pack_sequence(seq_g, enforce_sorted=False)
    for a, b in zip(R.unpack_sequence(packed), torch.nn.utils.rnn.unpack_sequence(
            torch.nn.utils.rnn.pack_sequence(seq_t, enforce_sorted=False))):
        np.testing.assert_array_equal(_np(a), _np(b))
    R.pad_sequence(seq_g).pow(2).sum().backward()
    torch.nn.utils.rnn.pad_sequence(seq_t).pow(2).sum().backward()
    for a, b in zip(seq_g, seq_t):
        np.testing.assert_array_equal(_np(a.grad), _np(b.grad))


def test_pack_and_pad_pass_gradcheck_and_gradgradcheck():
    x = gs.tensor(np.random.default_rng(3).standard_normal((4, 3, 2)), requires_grad=True)

    def f(x):
        packed = R.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False)
        return packed.data * packed.data, R.pad_packed_sequence(packed, total_length=5)[0]
    assert gradcheck(f, [x])
    assert gradgradcheck(f, [x])


def test_packed_sequence_is_a_tuple_with_torch_fields_and_methods():
    packed = R.pack_sequence([gs.ones(3, 2), gs.ones(1, 2)])
    data, batch_sizes, sorted_indices, unsorted_indices = packed
    assert batch_sizes.tolist() == [2, 1, 1] and sorted_indices is None and unsorted_indices is None
    assert packed.double().data.dtype == gs.float64 and not packed.is_cuda
    assert packed.to("cpu") is packed
    assert "PackedSequence(data=" in repr(packed)
    unsorted = R.pack_sequence([gs.ones(1, 2), gs.ones(3, 2)], enforce_sorted=False)
    assert unsorted.sorted_indices.tolist() == [1, 0] and unsorted.unsorted_indices.tolist() == [1, 0]


def test_lengths_may_be_a_tensor():
    x = gs.randn(3, 2, 1)
    packed = R.pack_padded_sequence(x, gs.tensor([3, 1]))
    assert packed.batch_sizes.tolist() == [2, 1, 1]
