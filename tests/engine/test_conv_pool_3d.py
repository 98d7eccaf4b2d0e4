"""conv3d, conv_transpose3d, max_pool3d, avg_pool3d and adaptive_avg_pool3d (and their modules): one node each under
PyTorch's name, gradients by finite differences (first and second order), values and gradients
against PyTorch's over strides, padding, dilation, groups and ties, their errors, and from a program."""
import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.autograd import gradcheck, gradgradcheck
from gradserve.engine.program import Limits, Namespace, run

try:
    import torch
except ImportError:  # the oracle tests are skipped without PyTorch
    torch = None

F = gs.nn.functional

CONV_CASES = [{}, {"stride": 2}, {"stride": (1, 2, 3), "padding": (1, 0, 2), "dilation": (2, 1, 1)},
              {"groups": 2, "padding": 1}, {"padding": "same"}, {"padding": "same", "dilation": 2}]
TRANSPOSED_CASES = [({}, 1), ({"stride": 2}, 1),
                    ({"stride": (2, 1, 3), "padding": (1, 0, 1), "output_padding": (1, 0, 2), "dilation": (1, 2, 1)}, 1),
                    ({"padding": 1}, 2), ({"stride": 3, "dilation": 2, "output_padding": 1}, 1)]
POOL_CASES = [("max_pool3d", {"kernel_size": 2}), ("max_pool3d", {"kernel_size": 3, "stride": 2, "padding": 1}),
              ("max_pool3d", {"kernel_size": (2, 3, 2), "stride": (1, 2, 3), "dilation": (2, 1, 1)}),
              ("max_pool3d", {"kernel_size": 3, "stride": 2, "ceil_mode": True}),
              ("avg_pool3d", {"kernel_size": 2}), ("avg_pool3d", {"kernel_size": 3, "stride": 2, "padding": 1}),
              ("avg_pool3d", {"kernel_size": 3, "stride": (1, 2, 2), "padding": (0, 1, 1), "count_include_pad": False}),
              ("avg_pool3d", {"kernel_size": 2, "divisor_override": 3}),
              ("adaptive_avg_pool3d", {"output_size": 1}), ("adaptive_avg_pool3d", {"output_size": (4, 3, 5)}),
              ("adaptive_avg_pool3d", {"output_size": (None, 2, 3)})]


def _conv(T, kw):
    rng = np.random.default_rng(0)
    x = T.tensor(rng.standard_normal((2, 4, 5, 6, 7)), requires_grad=True)
    w = T.tensor(rng.standard_normal((6, 4 // kw.get("groups", 1), 3, 2, 3)), requires_grad=True)
    b = T.tensor(rng.standard_normal(6), requires_grad=True)
    y = T.nn.functional.conv3d(x, w, b, **kw)
    (y * y).sum().backward()
    return y, [y.detach().numpy(), x.grad.numpy(), w.grad.numpy(), b.grad.numpy()]


def _transposed(T, kw, groups):
    rng = np.random.default_rng(0)
    x = T.tensor(rng.standard_normal((2, 4, 3, 4, 5)), requires_grad=True)
    w = T.tensor(rng.standard_normal((4, 6 // groups, 3, 2, 3)), requires_grad=True)
    b = T.tensor(rng.standard_normal(6), requires_grad=True)
    y = T.nn.functional.conv_transpose3d(x, w, b, groups=groups, **kw)
    (y * y).sum().backward()
    return y, [y.detach().numpy(), x.grad.numpy(), w.grad.numpy(), b.grad.numpy()]


def _pool(T, fn, kw, relu):
    rng = np.random.default_rng(1)
    x = T.tensor(rng.standard_normal((2, 3, 6, 7, 8)), requires_grad=True)
    y = getattr(T.nn.functional, fn)(T.relu(x) if relu else x, **kw)   # after a ReLU, windows of tied zeros
    (y * T.arange(y.numel(), dtype=T.float64).reshape(y.shape)).sum().backward()
    return y, [y.detach().numpy(), x.grad.numpy()]


@pytest.mark.parametrize("kw", CONV_CASES)
def test_conv3d_is_one_convolution_node_with_correct_gradients(kw):
    y, _ = _conv(gs, kw)
    assert y.grad_fn.name() == "ConvolutionBackward0"
    assert [n is not None for n, _ in y.grad_fn.next_functions] == [True, True, True]
    rng = np.random.default_rng(2)
    x = gs.tensor(rng.standard_normal((1, 2, 4, 3, 4)), requires_grad=True)
    w = gs.tensor(rng.standard_normal((2, 2 // kw.get("groups", 1), 2, 2, 3)), requires_grad=True)
    b = gs.tensor(rng.standard_normal(2), requires_grad=True)
    assert gradcheck(lambda x, w, b: F.conv3d(x, w, b, **kw), (x, w, b))
    assert gradgradcheck(lambda x, w, b: F.conv3d(x, w, b, **kw), (x, w, b))


@pytest.mark.parametrize(("kw", "groups"), TRANSPOSED_CASES)
def test_conv_transpose3d_is_one_node_with_correct_gradients(kw, groups):
    y, _ = _transposed(gs, kw, groups)
    assert y.grad_fn.name() == "ConvolutionBackward0"
    rng = np.random.default_rng(4)
    x = gs.tensor(rng.standard_normal((1, 2, 2, 2, 2)), requires_grad=True)
    w = gs.tensor(rng.standard_normal((2, 2 // groups, 2, 2, 2)), requires_grad=True)
    b = gs.tensor(rng.standard_normal(2), requires_grad=True)
    assert gradcheck(lambda x, w, b: F.conv_transpose3d(x, w, b, groups=groups, **kw), (x, w, b))
    assert gradgradcheck(lambda x, w, b: F.conv_transpose3d(x, w, b, groups=groups, **kw), (x, w, b))


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize(("kw", "groups"), TRANSPOSED_CASES)
def test_conv_transpose3d_matches_torch(kw, groups):
    (ours, a), (theirs, b) = _transposed(gs, kw, groups), _transposed(torch, kw, groups)
    for p, q in zip(a, b):
        assert p.shape == q.shape
        np.testing.assert_allclose(p, q, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize(("fn", "kw"), POOL_CASES)
def test_pool3d_gradients(fn, kw):
    rng = np.random.default_rng(3)
    x = gs.tensor(rng.standard_normal((1, 1, 5, 5, 6)), requires_grad=True)
    assert gradcheck(lambda x: getattr(F, fn)(x, **kw), (x,))
    assert gradgradcheck(lambda x: getattr(F, fn)(x, **kw), (x,))


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("kw", CONV_CASES)
@pytest.mark.filterwarnings("ignore:Using padding='same'")
def test_conv3d_matches_torch(kw):
    (ours, a), (theirs, b) = _conv(gs, kw), _conv(torch, kw)
    for p, q in zip(a, b):
        np.testing.assert_allclose(p, q, rtol=1e-10, atol=1e-10)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize(("fn", "kw"), POOL_CASES)
@pytest.mark.parametrize("relu", [False, True])
def test_pool3d_matches_torch(fn, kw, relu):
    (ours, a), (theirs, b) = _pool(gs, fn, kw, relu), _pool(torch, fn, kw, relu)
    for p, q in zip(a, b):
        np.testing.assert_allclose(p, q, rtol=1e-10, atol=1e-10)
    assert ours.grad_fn.name() == theirs.grad_fn.name()


def test_modules_and_unbatched_inputs():
    gs.manual_seed(0)
    net = gs.nn.Sequential(gs.nn.Conv3d(1, 4, 3, padding=1), gs.nn.ReLU(), gs.nn.MaxPool3d(2),
                           gs.nn.Conv3d(4, 2, (1, 3, 3), stride=(1, 2, 2)), gs.nn.AvgPool3d(1),
                           gs.nn.AdaptiveAvgPool3d((1, 2, 2)))
    assert net(gs.randn(3, 1, 4, 8, 8)).shape == (3, 2, 1, 2, 2)
    assert net(gs.randn(1, 4, 8, 8)).shape == (2, 1, 2, 2)   # unbatched
    assert "Conv3d(1, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=(1, 1, 1))" in repr(net)
    assert net[0].weight.shape == (4, 1, 3, 3, 3)
    up = gs.nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1)
    assert up.weight.shape == (2, 3, 3, 3, 3)
    assert up(gs.randn(1, 2, 3, 4, 5), output_size=(6, 8, 10)).shape == (1, 3, 6, 8, 10)
    assert up(gs.randn(2, 3, 4, 5)).shape == (3, 5, 7, 9)


def test_errors():
    x = gs.randn(1, 2, 4, 4, 4)
    with pytest.raises(RuntimeError, match="Expected 4D \\(unbatched\\) or 5D \\(batched\\) input to conv3d"):
        F.conv3d(gs.randn(2, 4, 4), gs.randn(1, 2, 1, 1, 1))
    with pytest.raises(RuntimeError, match="expected input\\[1, 2, 4, 4, 4\\] to have 3 channels"):
        F.conv3d(x, gs.randn(1, 3, 1, 1, 1))
    with pytest.raises(RuntimeError, match="Kernel size can't be greater than actual input size"):
        F.conv3d(x, gs.randn(1, 2, 5, 1, 1))
    with pytest.raises(NotImplementedError, match="return_indices=True"):
        F.max_pool3d(x, 2, return_indices=True)
    with pytest.raises(NotImplementedError, match="ceil_mode=True"):
        F.avg_pool3d(x, 3, 2, ceil_mode=True)
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride or dilation, but got "
                                           "output_padding_depth: 2 output_padding_height: 0"):
        F.conv_transpose3d(x, gs.randn(2, 1, 1, 1, 1), output_padding=(2, 0, 0))
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size"):
        F.max_pool3d(x, 2, padding=2)


def test_from_a_program_and_its_limits():
    ns = Namespace()
    outcome = run("""
import torch, torch.nn as nn, torch.nn.functional as F
net = nn.Sequential(nn.Conv3d(1, 3, 3, padding=1), nn.ReLU(), nn.MaxPool3d(2), nn.AdaptiveAvgPool3d(1), nn.Flatten())
y = net(torch.randn(2, 1, 4, 6, 6))
y.sum().backward()
print(tuple(y.shape), y.grad_fn.name(), net[0].weight.grad.shape, F.avg_pool3d(torch.ones(1, 1, 2, 2, 2), 2).item())
""", ns, Limits())
    assert outcome.ok, outcome.error
    assert outcome.stdout == "(2, 3) ViewBackward0 torch.Size([3, 1, 3, 3, 3]) 1.0\n"
    outcome = run("y = F.conv3d(torch.ones(1, 1, 2, 2, 2), torch.ones(1, 1, 1, 1, 1), padding=3000)", ns, Limits())
    assert not outcome.ok and outcome.error.type == "LimitExceeded" and "tensor_elements" in outcome.error.message
