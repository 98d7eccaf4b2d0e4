"""AdaptiveMaxPool1d/2d, MaxUnpool1d/2d and EmbeddingBag: gradcheck and gradgradcheck in
float64, values, indices and gradients against PyTorch, the layers' reprs, state_dict and
initialisation, and PyTorch's errors."""
import numpy as np
import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch


def _f(T):
    return T.nn.functional


def _bag_input(T):
    return T.tensor([1, 2, 3, 4, 0, 5, 2, 2])


def _offsets(T):
    return T.tensor([0, 2, 2, 5])


CASES = {
    "adaptive_max_pool2d": (lambda T, x: _f(T).adaptive_max_pool2d(x, (3, 2)), [(2, 3, 7, 5)]),
    "adaptive_max_pool2d_none_and_growing": (lambda T, x: _f(T).adaptive_max_pool2d(x, (None, 7)), [(1, 2, 3, 4)]),
    "adaptive_max_pool2d_global_unbatched": (lambda T, x: _f(T).adaptive_max_pool2d(x, 1), [(3, 4, 4)]),
    "adaptive_max_pool2d_indices": (lambda T, x: _f(T).adaptive_max_pool2d(x, (2, 3), return_indices=True)[0],
                                    [(2, 2, 5, 6)]),
    "adaptive_max_pool1d": (lambda T, x: _f(T).adaptive_max_pool1d(x, 4), [(2, 3, 10)]),
    "adaptive_max_pool1d_unbatched": (lambda T, x: _f(T).adaptive_max_pool1d(x, 3), [(2, 7)]),
    "max_unpool2d": (lambda T, x: _f(T).max_unpool2d(*_f(T).max_pool2d(x, 2, return_indices=True), 2),
                     [(2, 2, 4, 6)]),
    "max_unpool2d_stride_padding_output_size": (lambda T, x: _f(T).max_unpool2d(
        *_f(T).max_pool2d(x, 2, stride=2, padding=1, return_indices=True), 2, stride=2, padding=1,
        output_size=(5, 6)), [(1, 2, 5, 6)]),
    # overlapping windows: a maximum picked twice is written once but gets both gradients (PyTorch's
    # gather), so only the comparison with PyTorch applies
    "max_unpool2d_overlapping_windows": (lambda T, x: _f(T).max_unpool2d(
        *_f(T).max_pool2d(x, 3, stride=2, padding=1, return_indices=True), 3, stride=2, padding=1,
        output_size=(5, 6)), [(1, 2, 5, 6)]),
    "max_unpool1d": (lambda T, x: _f(T).max_unpool1d(*_f(T).max_pool1d(x, 2, return_indices=True), 2),
                     [(2, 3, 8)]),
    "embedding_bag_mean": (lambda T, w: _f(T).embedding_bag(_bag_input(T), w, _offsets(T)), [(6, 3)]),
    "embedding_bag_sum_per_sample_weights": (lambda T, w, s: _f(T).embedding_bag(
        _bag_input(T), w, _offsets(T), mode="sum", per_sample_weights=s), [(6, 3), (8,)]),
    "embedding_bag_max": (lambda T, w: _f(T).embedding_bag(_bag_input(T), w, _offsets(T), mode="max"), [(6, 3)]),
    "embedding_bag_2d_input_sum": (lambda T, w: _f(T).embedding_bag(T.tensor([[0, 1, 1], [4, 2, 3]]), w,
                                                                    mode="sum"), [(5, 4)]),
    "embedding_bag_include_last_offset": (lambda T, w: _f(T).embedding_bag(
        _bag_input(T), w, _offsets(T), include_last_offset=True), [(6, 3)]),
    "embedding_bag_padding_idx_mean": (lambda T, w: _f(T).embedding_bag(_bag_input(T), w, _offsets(T),
                                                                        padding_idx=2), [(6, 3)]),
    "embedding_bag_padding_idx_max": (lambda T, w: _f(T).embedding_bag(_bag_input(T), w, _offsets(T), mode="max",
                                                                       padding_idx=2), [(6, 3)]),
}

NOT_THE_DERIVATIVE = {"max_unpool2d_overlapping_windows"}


@pytest.mark.parametrize("name", [n for n in CASES if n not in NOT_THE_DERIVATIVE])
def test_gradcheck_and_gradgradcheck(name):
    fn, shapes = CASES[name]
    check_gradients(fn, shapes)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name):
    fn, shapes = CASES[name]
    compare_with_torch(fn, shapes)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("call", [
    lambda T, x: _f(T).adaptive_max_pool2d(x, (3, 2), return_indices=True),
    lambda T, x: _f(T).adaptive_max_pool2d(x[0], (4, None), return_indices=True),
    lambda T, x: _f(T).adaptive_max_pool1d(x[:, :, 0], 3, return_indices=True),
    lambda T, x: T.nn.AdaptiveMaxPool2d((2, 2), return_indices=True)(x.round()),   # ties: the first maximum
])
def test_adaptive_max_pool_indices_match_torch(call):
    x = np.random.default_rng(0).standard_normal((2, 3, 7, 5))
    (a, ai), (b, bi) = call(gs, gs.tensor(x)), call(torch, torch.tensor(x))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(ai.numpy(), bi.numpy())
    assert ai.dtype == gs.int64


def test_max_unpool_inverts_max_pool_at_the_maxima():
    x = gs.tensor(np.random.default_rng(1).standard_normal((1, 2, 4, 4)))
    pooled, idx = gs.nn.MaxPool2d(2, return_indices=True)(x)
    restored = gs.nn.MaxUnpool2d(2)(pooled, idx)
    kept = restored.numpy() != 0
    assert kept.sum() == 8
    np.testing.assert_array_equal(restored.numpy()[kept], x.numpy()[kept])
    assert tuple(gs.nn.MaxUnpool2d(2)(pooled, idx, output_size=[1, 2, 5, 5]).shape) == (1, 2, 5, 5)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_embedding_bag_layer_matches_torch():
    for make, args in [
        (lambda T: T.nn.EmbeddingBag(10, 4, mode="sum"), lambda T: (T.tensor([1, 2, 4, 5, 4, 3, 2, 9]),
                                                                   T.tensor([0, 4]))),
        (lambda T: T.nn.EmbeddingBag(10, 4, padding_idx=2), lambda T: (T.tensor([[1, 2, 4], [2, 2, 2]]),)),
        (lambda T: T.nn.EmbeddingBag(10, 4, mode="max", include_last_offset=True),
         lambda T: (T.tensor([1, 2, 4, 5, 4, 3, 2, 9]), T.tensor([0, 3, 8]))),
        (lambda T: T.nn.EmbeddingBag(10, 4, max_norm=1.0), lambda T: (T.tensor([[1, 2], [3, 3]]),)),
    ]:
        torch.manual_seed(0)
        theirs, ours = make(torch).double(), make(gs).double()
        ours.load_state_dict({k: gs.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
        yt, yg = theirs(*args(torch)), ours(*args(gs))
        np.testing.assert_allclose(yg.detach().numpy(), yt.detach().numpy(), rtol=1e-12)
        yt.pow(2).sum().backward()
        yg.pow(2).sum().backward()
        np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(), rtol=1e-12)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_reprs_and_state_dicts_match_torch():
    def build(T):
        nn = T.nn
        return nn.Sequential(nn.AdaptiveMaxPool2d((3, None)), nn.AdaptiveMaxPool1d(3, return_indices=True),
                             nn.MaxUnpool2d(2), nn.MaxUnpool1d(3, 2), nn.MaxUnpool2d((2, 3), stride=1, padding=1),
                             nn.EmbeddingBag(10, 3), nn.EmbeddingBag(10, 3, mode="max", padding_idx=0, max_norm=1.0),
                             nn.EmbeddingBag(5, 2, norm_type=1.0, scale_grad_by_freq=True, mode="sum"))
    assert repr(build(gs)) == repr(build(torch))
    assert list(build(gs).state_dict()) == list(build(torch).state_dict())


def test_embedding_bag_scale_grad_by_freq_divides_by_each_index_count_in_the_batch():
    # as the documentation (and F.embedding) say; PyTorch's CPU kernel disagrees (input [3, 2, 2] in one
    # bag gives row 3 the gradient 0.5), which is not copied
    w = gs.ones(6, 1, requires_grad=True)
    gs.nn.functional.embedding_bag(_bag_input(gs), w, _offsets(gs), mode="sum", scale_grad_by_freq=True).sum().backward()
    assert w.grad.flatten().tolist() == [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    w.grad = None
    gs.nn.functional.embedding_bag(gs.tensor([3, 2, 2]), w, gs.tensor([0]), mode="sum").sum().backward()
    assert w.grad.flatten().tolist() == [0.0, 0.0, 2.0, 1.0, 0.0, 0.0]


def test_embedding_bag_init_is_standard_normal_with_a_zero_padding_row():
    gs.manual_seed(0)
    bag = gs.nn.EmbeddingBag(400, 50, padding_idx=-1)
    assert bag.padding_idx == 399
    w = bag.weight.detach().numpy()
    assert (w[399] == 0).all() and abs(w[:399].std() - 1) < 0.02 and abs(w[:399].mean()) < 0.02
    frozen = gs.nn.EmbeddingBag.from_pretrained(gs.ones(3, 2), mode="sum")
    assert not frozen.weight.requires_grad and frozen.mode == "sum"
    assert frozen(gs.tensor([[0, 1, 2]])).tolist() == [[3.0, 3.0]]


ERRORS = [
    (lambda F: F.adaptive_max_pool2d(gs.zeros(3), 2), RuntimeError,
     r"adaptive_max_pool2d\(\): Expected 3D or 4D tensor, but got: \[3\]"),
    (lambda F: F.adaptive_max_pool1d(gs.zeros(1, 2, 3, 3), 2), RuntimeError,
     "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 'self' "
     r"\(while checking arguments for adaptive_max_pool1d\)"),
    (lambda F: F.max_unpool2d(gs.zeros(1, 2, 2, 2), gs.zeros(1, 2, 2, 2, dtype=gs.int64), 2, output_size=(7, 7)),
     ValueError, r'invalid output_size "\[7, 7\]" \(dim 0 must be between 2 and 6\)'),
    (lambda F: F.max_unpool2d(gs.zeros(1, 2, 2, 2), gs.zeros(1, 2, 2, 2, dtype=gs.int64) + 16, 2), RuntimeError,
     "Found an invalid max index: 16"),
    (lambda F: F.embedding_bag(gs.tensor([1, 2]), gs.zeros(5, 2), gs.tensor([1])), RuntimeError,
     "offsets\\[0\\] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
     "However, got 1"),
    (lambda F: F.embedding_bag(gs.tensor([1, 2]), gs.zeros(5, 2), gs.tensor([0, 3])), RuntimeError,
     "offsets\\[-1\\] can not be greater than input's length 2 but got offsets\\[-1\\] of 3"),
    (lambda F: F.embedding_bag(gs.tensor([1, 2]), gs.zeros(5, 2)), ValueError,
     "offsets has to be a 1D Tensor but got None"),
    (lambda F: F.embedding_bag(gs.tensor([[1, 2]]), gs.zeros(5, 2), gs.tensor([0])), ValueError,
     "if input is 2D, then offsets has to be None"),
    (lambda F: F.embedding_bag(gs.tensor([1, 2]), gs.zeros(5, 2), gs.tensor([0]), mode="min"), ValueError,
     "mode has to be one of sum, mean or max"),
    (lambda F: F.embedding_bag(gs.tensor([1, 2]), gs.zeros(5, 2), gs.tensor([0]), per_sample_weights=gs.ones(2)),
     NotImplementedError, "per_sample_weights is only supported for mode='sum' \\(got mode='mean'\\)"),
    (lambda F: F.embedding_bag(gs.tensor([1, 2]), gs.zeros(5, 2), gs.tensor([0]), mode="sum",
                               per_sample_weights=gs.ones(3)), ValueError,
     "If per_sample_weights \\(torch.Size\\(\\[3\\]\\)\\) is not None, then it must have the same shape as the "
     "input \\(torch.Size\\(\\[2\\]\\)\\)"),
    (lambda F: F.embedding_bag(gs.tensor([1, 7]), gs.zeros(5, 2), gs.tensor([0])), IndexError,
     "index out of range in self"),
    (lambda F: gs.nn.EmbeddingBag(5, 2, padding_idx=5), AssertionError, "padding_idx must be within num_embeddings"),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_bad_arguments_raise_pytorchs_errors(k):
    call, error, message = ERRORS[k]
    with pytest.raises(error, match=message):
        call(gs.nn.functional)


def test_sizes_past_the_element_limit_fail_before_allocating():
    from gradserve.engine.autograd.state import state
    from gradserve.engine.limits import LimitExceeded
    old, state.element_limit = state.element_limit, 10_000
    try:
        with pytest.raises(LimitExceeded):
            gs.nn.functional.adaptive_max_pool2d(gs.zeros(1, 1, 4, 4), (1000, 1000))
        with pytest.raises(LimitExceeded):
            gs.nn.functional.max_unpool2d(gs.zeros(1, 1, 2, 2), gs.zeros(1, 1, 2, 2, dtype=gs.int64), 500)
        with pytest.raises(LimitExceeded):
            # 200 lookups of 8 fit; 100 bags padded to the longest (101) do not
            gs.nn.functional.embedding_bag(gs.zeros(200, dtype=gs.int64), gs.zeros(2, 8), gs.tensor(list(range(100))),
                                           mode="max")
    finally:
        state.element_limit = old
