"""PReLU, Hardshrink, Softshrink, RReLU, Softmax2d, CosineSimilarity, PairwiseDistance,
LocalResponseNorm, Fold/Unfold, ChannelShuffle, AlphaDropout: the functions' gradients
(gradcheck and gradgradcheck in float64) and values against PyTorch, the layers against
PyTorch's (same weights), their reprs, and PyTorch's errors."""
import numpy as np
import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch


def _f(T):
    return T.nn.functional


CASES = {
    "prelu_scalar": (lambda T, x, w: _f(T).prelu(x, w), [(3, 4, 2), (1,)]),
    "prelu_per_channel": (lambda T, x, w: _f(T).prelu(x, w), [(3, 4, 2), (4,)]),
    "prelu_vector_input": (lambda T, x, w: _f(T).prelu(x, w), [(5,), (1,)]),
    "hardshrink": (lambda T, x: _f(T).hardshrink(x, 0.3), [(4, 5)]),
    "softshrink": (lambda T, x: _f(T).softshrink(x * 2), [(4, 5)]),
    "rrelu_eval": (lambda T, x: _f(T).rrelu(x, 0.1, 0.3), [(4, 5)]),
    "softmax2d": (lambda T, x: T.nn.Softmax2d()(x), [(2, 3, 2, 2)]),
    "softmax2d_unbatched": (lambda T, x: T.nn.Softmax2d()(x), [(3, 2, 4)]),
    "cosine_similarity_module": (lambda T, a, b: T.nn.CosineSimilarity(dim=0, eps=1e-6)(a, b), [(4, 3), (4, 3)]),
    "pairwise_distance_module": (lambda T, a, b: T.nn.PairwiseDistance(p=3.0, keepdim=True)(a, b),
                                 [(4, 3), (4, 3)]),
    "local_response_norm_4d": (lambda T, x: _f(T).local_response_norm(x, 3, alpha=0.1, beta=0.75, k=2.0),
                               [(2, 5, 3, 2)]),
    "local_response_norm_3d_even_size": (lambda T, x: _f(T).local_response_norm(x, 4, alpha=0.5), [(2, 6, 3)]),
    "local_response_norm_5d": (lambda T, x: _f(T).local_response_norm(x, 2, alpha=0.3), [(1, 3, 2, 2, 2)]),
    "local_response_norm_window_wider_than_channels": (lambda T, x: _f(T).local_response_norm(x, 9, alpha=0.4),
                                                       [(2, 3, 2)]),
    "channel_shuffle": (lambda T, x: _f(T).channel_shuffle(x, 3), [(2, 6, 2, 2)]),
    "fold_module": (lambda T, x: T.nn.Fold((4, 5), 2, padding=1, stride=2)(x), [(1, 8, 9)]),
    "unfold_module": (lambda T, x: T.nn.Unfold((2, 3), dilation=(1, 2), padding=1)(x), [(2, 2, 4, 5)]),
    "alpha_dropout_eval": (lambda T, x: _f(T).alpha_dropout(x, 0.3, training=False), [(3, 4)]),
    "feature_alpha_dropout_eval": (lambda T, x: T.nn.FeatureAlphaDropout(0.3).eval()(x), [(3, 4, 2)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_gradcheck_and_gradgradcheck(name):
    fn, shapes = CASES[name]
    check_gradients(fn, shapes)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name):
    fn, shapes = CASES[name]
    compare_with_torch(fn, shapes)


KINKS = {
    "hardshrink": (lambda F, x: F.hardshrink(x, 0.5), [-0.5, 0.5, 0.0]),
    "softshrink": (lambda F, x: F.softshrink(x, 0.5), [-0.5, 0.5, 0.0]),
    "prelu": (lambda F, x: F.prelu(x, x.new_tensor([0.2])), [0.0]),
    "rrelu_eval": (lambda F, x: F.rrelu(x), [0.0]),
}


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(KINKS))
def test_gradient_at_kinks_is_pytorchs_choice(name):
    fn, points = KINKS[name]
    grads = []
    for T in (gs, torch):
        x = T.tensor(points, dtype=T.float64, requires_grad=True)
        fn(T.nn.functional, x).sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]


def test_rrelu_in_training_draws_a_slope_per_negative_element():
    gs.manual_seed(0)
    x = gs.tensor(-np.linspace(0.5, 2.0, 400).reshape(20, 20), requires_grad=True)
    y = gs.nn.RReLU(0.1, 0.3)(x)
    slopes = (y / x).detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes, rtol=1e-12)
    pos = gs.tensor([1.0, 2.0])
    assert gs.nn.functional.rrelu(pos, training=True).tolist() == [1.0, 2.0]


def test_rrelu_inplace_writes_the_input():
    x = gs.tensor([-1.0, 2.0])
    assert gs.nn.functional.rrelu_(x) is x
    assert x.tolist() == pytest.approx([-(1 / 8 + 1 / 3) / 2, 2.0])


def test_alpha_dropout_keeps_mean_and_variance_and_sets_dropped_to_one_value():
    gs.manual_seed(0)
    x = gs.randn(200, 500, dtype=gs.float64)
    y = gs.nn.AlphaDropout(0.2)(x).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1.0) < 0.02
    p, alpha = 0.2, 1.7580993408473766
    a = 1 / np.sqrt((alpha * alpha * p + 1) * (1 - p))
    dropped = np.isclose(y, -alpha * a + alpha * a * p)
    assert 0.18 < dropped.mean() < 0.22
    np.testing.assert_allclose(y[~dropped], x.numpy()[~dropped] * a + alpha * a * p)


def test_feature_alpha_dropout_drops_whole_channels():
    gs.manual_seed(1)
    y = gs.nn.functional.feature_alpha_dropout(gs.ones(8, 16, 3, 3), 0.5, training=True).numpy()
    assert (y.reshape(8, 16, 9).std(-1) == 0).all()
    assert len(np.unique(y.round(6))) == 2


def test_prelu_layer_learns_its_slope():
    layer = gs.nn.PReLU(3, init=0.1)
    assert layer.weight.tolist() == pytest.approx([0.1] * 3)
    x = gs.tensor([[-1.0, -2.0, 3.0]]).reshape(1, 3)
    layer(x).sum().backward()
    assert layer.weight.grad.tolist() == [-1.0, -2.0, 0.0]


# ------------------------------------------------------------------ layers against PyTorch's
LAYERS = {
    "PReLU": (lambda T: T.nn.PReLU(), (3, 4, 2)),
    "PReLU_channels": (lambda T: T.nn.PReLU(4, init=0.1), (3, 4, 2)),
    "Hardshrink": (lambda T: T.nn.Hardshrink(0.2), (3, 4)),
    "Softshrink": (lambda T: T.nn.Softshrink(0.2), (3, 4)),
    "RReLU_eval": (lambda T: T.nn.RReLU().eval(), (3, 4)),
    "Softmax2d": (lambda T: T.nn.Softmax2d(), (2, 3, 2, 2)),
    "LocalResponseNorm": (lambda T: T.nn.LocalResponseNorm(5, alpha=1e-2), (2, 7, 3, 3)),
    "ChannelShuffle": (lambda T: T.nn.ChannelShuffle(2), (2, 4, 3)),
    "Unfold": (lambda T: T.nn.Unfold(2, stride=2), (2, 3, 4, 4)),
    "AlphaDropout_eval": (lambda T: T.nn.AlphaDropout(0.5).eval(), (3, 4)),
}


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_matches_torch(name):
    make, shape = LAYERS[name]
    torch.manual_seed(0)
    theirs, ours = make(torch).double(), make(gs).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: gs.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(0).standard_normal(shape)
    xt, xg = torch.tensor(x, requires_grad=True), gs.tensor(x, requires_grad=True)
    yt, yg = theirs(xt), ours(xg)
    np.testing.assert_allclose(yg.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    w = np.random.default_rng(1).standard_normal(tuple(yt.shape))
    (yt * torch.tensor(w)).sum().backward()
    (yg * gs.tensor(w)).sum().backward()
    np.testing.assert_allclose(xg.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    for (_, pg), (_, pt) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(pg.grad.numpy(), pt.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_reprs_match_torch():
    def build(T):
        nn = T.nn
        return nn.Sequential(nn.PReLU(), nn.PReLU(3, init=0.1), nn.Hardshrink(), nn.Softshrink(0.3), nn.RReLU(),
                             nn.RReLU(0.1, 0.2, inplace=True), nn.Softmax2d(), nn.CosineSimilarity(),
                             nn.PairwiseDistance(p=1.0), nn.LocalResponseNorm(5), nn.Fold((4, 5), 2),
                             nn.Unfold(2, padding=1), nn.ChannelShuffle(2), nn.AlphaDropout(0.2),
                             nn.FeatureAlphaDropout())
    assert repr(build(gs)) == repr(build(torch))


ERRORS = [
    (lambda: gs.nn.functional.prelu(gs.zeros(2, 4), gs.zeros(3)), RuntimeError,
     "Mismatch of parameter numbers and input channel size. Found parameter numbers = 3 and channel size = 4."),
    (lambda: gs.nn.functional.prelu(gs.zeros(4), gs.zeros(4)), RuntimeError,
     "Found parameter numbers = 4 and channel size = 1"),
    (lambda: gs.nn.functional.prelu(gs.zeros(2, 3), gs.zeros(1, 3)), RuntimeError,
     "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2"),
    (lambda: gs.nn.functional.softshrink(gs.zeros(3, dtype=gs.float64), -1.0), RuntimeError,
     r"lambda must be in range \[0, 1.79769e\+308\] for input dtype Double, but found -1"),
    (lambda: gs.nn.Softmax2d()(gs.zeros(3, 4)), ValueError, "Softmax2d: expected input to be 3D or 4D, got 2D instead"),
    (lambda: gs.nn.functional.local_response_norm(gs.zeros(3, 4), 2), ValueError,
     r"Expected 3D or higher dimensionality {26}input \(got 2 dimensions\)"),
    (lambda: gs.nn.functional.channel_shuffle(gs.zeros(2, 6, 3), 4), RuntimeError,
     "Number of channels must be divisible by groups. Got 6 channels and 4 groups."),
    (lambda: gs.nn.functional.channel_shuffle(gs.zeros(6), 2), RuntimeError,
     r"channel_shuffle expects input with > 2 dims, but got input with sizes \[6\]"),
    (lambda: gs.nn.functional.alpha_dropout(gs.zeros(3), 1.5), ValueError,
     "dropout probability has to be between 0 and 1, but got 1.5"),
    (lambda: gs.nn.functional.rrelu(gs.zeros(3), 0.5, 0.1, training=True), RuntimeError,
     "Lower bound should be less than or equal to the upper bound"),
    (lambda: gs.nn.functional.feature_alpha_dropout(gs.zeros(3), 0.5, training=True), RuntimeError,
     "Feature dropout requires at least 2 dimensions in the input"),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_bad_arguments_raise_pytorchs_errors(k):
    call, error, message = ERRORS[k]
    with pytest.raises(error, match=message):
        call()


def test_tensor_methods_hardshrink_and_prelu():
    x = gs.tensor([[-1.0, 0.25, 0.75]])
    assert x.hardshrink().tolist() == [[-1.0, 0.0, 0.75]]
    assert x.hardshrink(0.1).tolist() == [[-1.0, 0.25, 0.75]]
    assert x.prelu(gs.tensor([0.5])).tolist() == [[-0.5, 0.25, 0.75]]
