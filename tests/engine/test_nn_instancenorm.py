"""nn.InstanceNorm1d/2d/3d and F.instance_norm: gradients in float64, values, gradients and running
statistics against PyTorch, unbatched inputs, the errors and warnings."""
import warnings

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine import nn
from gradserve.engine.nn import functional as F

from op_check import check_gradients, compare_with_torch, torch

CASES = {
    "plain_2d": (lambda T, x: T.nn.functional.instance_norm(x), [(2, 3, 4, 3)]),
    "affine_1d": (lambda T, x, w, b: T.nn.functional.instance_norm(x, weight=w, bias=b, eps=1e-3),
                  [(2, 3, 5), (3,), (3,)]),
    "affine_3d": (lambda T, x, w, b: T.nn.functional.instance_norm(x, weight=w, bias=b), [(1, 2, 2, 3, 2), (2,), (2,)]),
    "running_stats_eval": (lambda T, x, w: T.nn.functional.instance_norm(
        x, T.tensor([0.5, -1.0], dtype=T.float64), T.tensor([2.0, 0.5], dtype=T.float64), weight=w,
        use_input_stats=False), [(2, 2, 3), (2,)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_instance_norm_gradcheck_and_gradgradcheck(name):
    fn, shapes = CASES[name]
    check_gradients(fn, shapes)


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(CASES))
def test_instance_norm_matches_torch(name):
    fn, shapes = CASES[name]
    compare_with_torch(fn, shapes)


def test_instance_norm_normalises_each_sample_and_channel_alone():
    x = gs.randn(3, 2, 5, 4) * 3 + 2
    y = F.instance_norm(x).numpy().reshape(6, 20)
    np.testing.assert_allclose(y.mean(1), 0, atol=1e-5)
    np.testing.assert_allclose(y.var(1), 1, rtol=1e-3)


def test_instance_norm_running_stats_average_over_the_batch_with_unbiased_variance():
    rm, rv = gs.zeros(2), gs.ones(2)
    x = gs.randn(4, 2, 6, dtype=gs.float64)
    F.instance_norm(x, rm, rv, momentum=0.5)
    data = x.numpy()
    np.testing.assert_allclose(rm.numpy(), 0.5 * data.mean(2).mean(0), rtol=1e-6)
    np.testing.assert_allclose(rv.numpy(), 0.5 + 0.5 * data.var(2, ddof=1).mean(0), rtol=1e-6)


LAYERS = {
    "1d_default": (lambda T: T.nn.InstanceNorm1d(3), (2, 3, 5)),
    "1d_unbatched_affine": (lambda T: T.nn.InstanceNorm1d(3, affine=True), (3, 5)),
    "2d_affine_tracked": (lambda T: T.nn.InstanceNorm2d(3, affine=True, track_running_stats=True, momentum=0.3),
                          (2, 3, 4, 4)),
    "2d_unbatched_tracked": (lambda T: T.nn.InstanceNorm2d(2, track_running_stats=True), (2, 3, 4)),
    "3d_momentum_none": (lambda T: T.nn.InstanceNorm3d(2, track_running_stats=True, momentum=None),
                         (2, 2, 2, 3, 2)),
    "3d_affine_no_bias": (lambda T: T.nn.InstanceNorm3d(2, affine=True, bias=False), (1, 2, 2, 2, 3)),
}


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(LAYERS))
def test_instance_norm_layers_match_torch_in_training_then_eval(name):
    make, shape = LAYERS[name]
    torch.manual_seed(0)
    theirs, ours = make(torch).double(), make(gs).double()
    ours.load_state_dict({k: gs.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    assert list(ours.state_dict()) == list(theirs.state_dict())
    rng = np.random.default_rng(0)
    for train in (True, True, False):
        theirs.train(train), ours.train(train)
        a = rng.standard_normal(shape) * 2 + 1
        xt, xg = torch.tensor(a, requires_grad=True), gs.tensor(a, requires_grad=True)
        yt, yg = theirs(xt), ours(xg)
        np.testing.assert_allclose(yg.detach().numpy(), yt.detach().numpy(), rtol=1e-7, atol=1e-9)
        w = rng.standard_normal(shape)
        (yt * torch.tensor(w)).sum().backward()
        (yg * gs.tensor(w)).sum().backward()
        np.testing.assert_allclose(xg.grad.numpy(), xt.grad.numpy(), rtol=1e-7, atol=1e-9)
        for name_, b in ours.named_buffers():
            np.testing.assert_allclose(b.numpy(), dict(theirs.named_buffers())[name_].numpy(), rtol=1e-7)
    for name_, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), dict(theirs.named_parameters())[name_].grad.numpy(), rtol=1e-7)
    assert repr(ours) == repr(theirs)


def test_instance_norm_rejects_wrong_ranks_and_channel_counts():
    with pytest.raises(ValueError, match=r"expected 3D or 4D input \(got 2D input\)"):
        nn.InstanceNorm2d(3)(gs.ones(3, 4))
    with pytest.raises(ValueError, match=r"expected input's size at dim=1 to match num_features \(3\), but got: 2"):
        nn.InstanceNorm1d(3, affine=True)(gs.ones(4, 2, 5))
    with pytest.warns(UserWarning, match="input's size at dim=1 does not match num_features"):
        nn.InstanceNorm1d(3)(gs.ones(4, 2, 5))
    with pytest.raises(ValueError, match="Expected more than 1 spatial element when training"):
        F.instance_norm(gs.ones(2, 3, 1))
    with pytest.raises(RuntimeError, match="Expected running_mean and running_var to be defined"):
        F.instance_norm(gs.ones(2, 3, 4), use_input_stats=False)


def test_instance_norm_in_eval_without_tracked_stats_still_uses_the_input_statistics():
    norm = nn.InstanceNorm2d(2).eval()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = norm(gs.randn(1, 2, 3, 3) * 5).numpy()
    np.testing.assert_allclose(y.reshape(2, 9).mean(1), 0, atol=1e-5)
