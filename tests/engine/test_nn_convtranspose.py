"""Transposed convolution (engine/nn/convtranspose.py): F.conv_transpose1d/2d's gradients
(gradcheck and gradgradcheck in float64) and values against PyTorch, the layers against
PyTorch's with the same weights, output_size, repr, initialisation and errors."""
import numpy as np
import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch


def _f(T):
    return T.nn.functional


CASES = {
    "conv_transpose2d": (lambda T, x, w, b: _f(T).conv_transpose2d(x, w, b), [(2, 3, 4, 5), (3, 2, 3, 3), (2,)]),
    "conv_transpose2d_dcgan_block": (lambda T, x, w: _f(T).conv_transpose2d(x, w, stride=2, padding=1),
                                     [(2, 3, 3, 3), (3, 2, 4, 4)]),
    "conv_transpose2d_from_1x1": (lambda T, x, w: _f(T).conv_transpose2d(x, w, stride=1, padding=0),
                                  [(2, 4, 1, 1), (4, 3, 4, 4)]),
    "conv_transpose2d_output_padding": (
        lambda T, x, w, b: _f(T).conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
        [(1, 2, 3, 4), (2, 3, 3, 3), (3,)]),
    "conv_transpose2d_groups_dilation_rect": (
        lambda T, x, w, b: _f(T).conv_transpose2d(x, w, b, stride=(2, 3), padding=(1, 0), output_padding=(1, 2),
                                                  groups=2, dilation=(1, 2)),
        [(2, 4, 3, 3), (4, 2, 3, 2), (4,)]),
    "conv_transpose2d_output_padding_below_dilation": (
        lambda T, x, w: _f(T).conv_transpose2d(x, w, padding=2, output_padding=1, dilation=2),
        [(1, 2, 3, 3), (2, 2, 3, 3)]),
    "conv_transpose2d_unbatched": (lambda T, x, w: _f(T).conv_transpose2d(x, w, stride=2), [(2, 3, 3), (2, 3, 2, 2)]),
    "conv_transpose1d": (lambda T, x, w, b: _f(T).conv_transpose1d(x, w, b, stride=2, padding=1),
                         [(2, 3, 5), (3, 4, 4), (4,)]),
    "conv_transpose1d_groups_dilation_output_padding": (
        lambda T, x, w: _f(T).conv_transpose1d(x, w, stride=3, padding=2, output_padding=2, groups=3, dilation=2),
        [(2, 6, 4), (6, 1, 3)]),
    "conv_transpose1d_unbatched": (lambda T, x, w, b: _f(T).conv_transpose1d(x, w, b), [(3, 4), (3, 2, 2), (2,)]),
    # the adjoint of conv2d: <conv2d(y, w), x> == <y, conv_transpose2d(x, w)> (checked below too)
    "conv_transpose2d_of_conv2d": (
        lambda T, x, w: _f(T).conv_transpose2d(_f(T).conv2d(x, w, stride=2, padding=1), w, stride=2, padding=1,
                                               output_padding=1),
        [(1, 2, 6, 6), (3, 2, 3, 3)]),
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


def test_conv_transpose_is_the_adjoint_of_conv():
    rng = np.random.default_rng(3)
    x = gs.tensor(rng.standard_normal((2, 3, 7, 6)))
    y = gs.tensor(rng.standard_normal((2, 4, 4, 3)))
    w = gs.tensor(rng.standard_normal((4, 3, 3, 2)))
    kw = dict(stride=2, padding=1, dilation=(1, 2))
    lhs = (gs.nn.functional.conv2d(x, w, **kw) * y).sum()
    rhs = (x * gs.nn.functional.conv_transpose2d(y, w, output_padding=(0, 1), **kw)).sum()
    assert lhs.item() == pytest.approx(rhs.item(), rel=1e-12)


def test_float32_stays_float32_and_matches_float64():
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 5, 4, 4)), rng.standard_normal((5, 3, 4, 4))
    out32 = gs.nn.functional.conv_transpose2d(gs.tensor(x, dtype=gs.float32), gs.tensor(w, dtype=gs.float32),
                                              stride=2, padding=1)
    out64 = gs.nn.functional.conv_transpose2d(gs.tensor(x), gs.tensor(w), stride=2, padding=1)
    assert out32.dtype == gs.float32 and tuple(out32.shape) == (2, 3, 8, 8)
    np.testing.assert_allclose(out32.numpy(), out64.numpy(), rtol=1e-4, atol=1e-5)


def test_grad_fn_is_named_as_pytorchs():
    x = gs.randn(1, 2, 3, 3, requires_grad=True)
    assert gs.nn.functional.conv_transpose2d(x, gs.randn(2, 2, 2, 2)).grad_fn.name() == "ConvolutionBackward0"


# ------------------------------------------------------------------ layers
def _copy(theirs, ours):
    ours.load_state_dict({k: gs.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})


LAYERS = {
    "ConvTranspose2d_dcgan": (lambda T: T.nn.ConvTranspose2d(4, 3, 4, 2, 1, bias=False), (2, 4, 3, 3), None),
    "ConvTranspose2d_all_options": (lambda T: T.nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0),
                                                                   output_padding=(1, 0), groups=2, dilation=(1, 2)),
                                    (2, 4, 3, 4), None),
    "ConvTranspose2d_output_size": (lambda T: T.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1), (1, 3, 4, 4),
                                    [8, 8]),
    "ConvTranspose2d_output_size_with_batch_dims": (lambda T: T.nn.ConvTranspose2d(3, 2, 3, stride=3),
                                                    (2, 3, 2, 3), [2, 2, 7, 9]),
    "ConvTranspose1d": (lambda T: T.nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1), (2, 3, 5), None),
    "ConvTranspose1d_output_size_unbatched": (lambda T: T.nn.ConvTranspose1d(3, 4, 3, stride=2), (3, 5), [12]),
}


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_matches_torch(name):
    make, shape, output_size = LAYERS[name]
    torch.manual_seed(0)
    theirs, ours = make(torch).double(), make(gs).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _copy(theirs, ours)
    x = np.random.default_rng(0).standard_normal(shape)
    xt, xg = torch.tensor(x, requires_grad=True), gs.tensor(x, requires_grad=True)
    kwargs = {} if output_size is None else {"output_size": output_size}
    yt, yg = theirs(xt, **kwargs), ours(xg, **kwargs)
    np.testing.assert_allclose(yg.detach().numpy(), yt.detach().numpy(), rtol=1e-9, atol=1e-10)
    w = np.random.default_rng(1).standard_normal(tuple(yt.shape))
    (yt * torch.tensor(w)).sum().backward()
    (yg * gs.tensor(w)).sum().backward()
    np.testing.assert_allclose(xg.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-10)
    for (name_g, pg), (name_t, pt) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert name_g == name_t
        np.testing.assert_allclose(pg.grad.numpy(), pt.grad.numpy(), rtol=1e-9, atol=1e-10, err_msg=name_g)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_repr_and_attributes_match_torch():
    def build(T):
        nn = T.nn
        return nn.Sequential(nn.ConvTranspose2d(100, 512, 4, 1, 0, bias=False),
                             nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1, groups=2, dilation=2),
                             nn.ConvTranspose1d(4, 2, (3,)), nn.ConvTranspose2d(3, 3, (2, 3), stride=(1, 2)))
    ours, theirs = build(gs), build(torch)
    assert repr(ours) == repr(theirs)
    for a, b in zip(ours, theirs):
        for attr in ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation",
                     "output_padding", "groups", "transposed", "padding_mode"):
            assert getattr(a, attr) == getattr(b, attr), attr


@pytest.mark.parametrize("make, shapes, fan_in", [
    (lambda T: T.nn.ConvTranspose2d(8, 6, (3, 5)), [(8, 6, 3, 5), (6,)], 90),
    (lambda T: T.nn.ConvTranspose2d(4, 6, 2, groups=2), [(4, 3, 2, 2), (6,)], 12),
    (lambda T: T.nn.ConvTranspose1d(5, 7, 3), [(5, 7, 3), (7,)], 21),
])
def test_default_init_is_uniform_within_one_over_sqrt_fan_in(make, shapes, fan_in):
    # PyTorch: kaiming_uniform_(a=sqrt(5)) on the weight, whose fan_in is out_channels / groups * k
    gs.manual_seed(0)
    layer = make(gs)
    assert [tuple(p.shape) for p in layer.parameters()] == shapes
    bound = 1 / np.sqrt(fan_in)
    for p in layer.parameters():
        assert np.abs(p.detach().numpy()).max() <= bound
        assert np.abs(p.detach().numpy()).max() > 0.5 * bound


def test_is_a_conv_for_code_that_checks_the_class():
    from gradserve.engine.nn.conv import _ConvNd
    layer = gs.nn.ConvTranspose2d(3, 2, 4)
    assert isinstance(layer, _ConvNd) and type(layer).__name__.find("Conv") != -1
    gs.nn.init.normal_(layer.weight.data, 0.0, 0.02)   # DCGAN's weights_init
    assert abs(float(layer.weight.std())) < 0.05


ERRORS = [
    (lambda F: F.conv_transpose2d(gs.zeros(2, 3, 4, 4), gs.zeros(4, 2, 3, 3)), RuntimeError,
     r"Given transposed=1, weight of size \[4, 2, 3, 3\], expected input\[2, 3, 4, 4\] to have 4 channels, "
     r"but got 3 channels instead"),
    (lambda F: F.conv_transpose2d(gs.zeros(2, 4, 4, 4), gs.zeros(4, 2, 3, 3), gs.zeros(3)), RuntimeError,
     "expected bias to be 1-dimensional with 2 elements, but got bias of size \\[3\\] instead"),
    (lambda F: F.conv_transpose2d(gs.zeros(2, 4, 4, 4), gs.zeros(4, 2, 3, 3), output_padding=1), RuntimeError,
     "output padding must be smaller than either stride or dilation, but got output_padding_height: 1 "
     "output_padding_width: 1 stride_height: 1 stride_width: 1 dilation_height: 1 dilation_width: 1"),
    (lambda F: F.conv_transpose1d(gs.zeros(2, 4, 4), gs.zeros(4, 2, 3), stride=2, output_padding=2), RuntimeError,
     "output_padding_height: 0 output_padding_width: 2 stride_height: 1 stride_width: 2"),
    (lambda F: F.conv_transpose2d(gs.zeros(4, 4), gs.zeros(4, 2, 3, 3)), RuntimeError,
     r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv_transpose2d, but got input of size: \[4, 4\]"),
    (lambda F: F.conv_transpose2d(gs.zeros(2, 4, 4, 4), gs.zeros(4, 2, 3, 3), groups=3), RuntimeError,
     "expected weight to be divisible by 3 at dimension 0"),
    (lambda F: F.conv_transpose2d(gs.zeros(2, 4, 1, 1), gs.zeros(4, 2, 3, 3), padding=2), RuntimeError,
     "Output size is too small"),
    (lambda F: gs.nn.ConvTranspose2d(4, 2, 3, stride=2)(gs.zeros(1, 4, 5, 5), output_size=(13, 11)), ValueError,
     r"requested an output size of \[13, 11\], but valid sizes range from \[11, 11\] to \[12, 12\] "
     r"\(for an input of \[5, 5\]\)"),
    (lambda F: gs.nn.ConvTranspose2d(4, 2, 3)(gs.zeros(1, 4, 5, 5), output_size=[12]), ValueError,
     "ConvTranspose2D: for 4D input, output_size must have 2 or 4 elements \\(got 1\\)"),
    (lambda F: F.conv_transpose2d(gs.zeros(1, 2, 3, 3), gs.zeros(2, 2, 2, 2, dtype=gs.float64)), RuntimeError,
     "expected scalar type Float but found Double"),
    (lambda F: gs.nn.ConvTranspose2d(4, 2, 3, padding_mode="reflect"), ValueError,
     'Only "zeros" padding mode is supported for ConvTranspose2d'),
    (lambda F: gs.nn.ConvTranspose2d(3, 4, 3, groups=2), ValueError, "in_channels must be divisible by groups"),
    (lambda F: gs.nn.ConvTranspose2d(4, 3, 3, groups=2), ValueError, "out_channels must be divisible by groups"),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_bad_arguments_raise_pytorchs_errors(k):
    call, error, message = ERRORS[k]
    with pytest.raises(error, match=message):
        call(gs.nn.functional)


def test_output_size_in_range_is_reached():
    layer = gs.nn.ConvTranspose2d(4, 2, 3, stride=2)
    x = gs.zeros(1, 4, 5, 5)
    assert tuple(layer(x).shape) == (1, 2, 11, 11)
    assert tuple(layer(x, output_size=(12, 11)).shape) == (1, 2, 12, 11)
    assert tuple(layer(x, output_size=gs.Size([1, 2, 12, 12])).shape) == (1, 2, 12, 12)
