"""Convolution and pooling beyond the op table (test_nn_functional.py): PyTorch's errors for
bad shapes, NaN and tie rules of max pooling, float32 training steps against PyTorch, and the
weight gradient with and without the forward's kept im2col columns."""
import re

import numpy as np
import pytest

import gradserve.engine as gs
import gradserve.engine.nn.functional as F
from op_check import check_gradients, compare_devices, compare_with_torch, torch

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is the oracle")


def _r(*shape):
    return np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)


# (id, fn(T, F), the start of PyTorch's message) each raising for a bad shape or option
BAD = [
    ("conv2d channels", lambda T, f: f.conv2d(T.tensor(_r(2, 3, 5, 5)), T.tensor(_r(4, 2, 3, 3))),
     "Given groups=1, weight of size [4, 2, 3, 3], expected input[2, 3, 5, 5] to have 2 channels"),
    ("conv2d 5d input", lambda T, f: f.conv2d(T.tensor(_r(2, 3, 5, 5, 5)), T.tensor(_r(4, 3, 3, 3))),
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [2, 3, 5, 5, 5]"),
    ("conv1d 4d weight", lambda T, f: f.conv1d(T.tensor(_r(1, 3, 5)), T.tensor(_r(4, 3, 3, 3))),
     "Expected 4-dimensional input for 4-dimensional weight [4, 3, 3, 3], but got 3-dimensional input of size "
     "[1, 3, 5] instead"),
    ("conv2d kernel larger than input", lambda T, f: f.conv2d(T.tensor(_r(1, 3, 2, 2)), T.tensor(_r(4, 3, 3, 3))),
     "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3)"),
    ("conv1d dilated kernel larger than input",
     lambda T, f: f.conv1d(T.tensor(_r(1, 3, 4)), T.tensor(_r(4, 3, 2)), dilation=4),
     "Calculated padded input size per channel: (4). Kernel size: (5)"),
    ("conv2d same strided", lambda T, f: f.conv2d(T.tensor(_r(1, 3, 5, 5)), T.tensor(_r(4, 3, 3, 3)), stride=2,
                                                  padding="same"),
     "padding='same' is not supported for strided convolutions"),
    ("conv2d padding string", lambda T, f: f.conv2d(T.tensor(_r(1, 3, 5, 5)), T.tensor(_r(4, 3, 3, 3)),
                                                    padding="full"),
     "Invalid padding string: 'full'"),
    ("conv2d double input, float weight", lambda T, f: f.conv2d(T.tensor(_r(1, 2, 5, 5)).double(), T.tensor(_r(3, 2, 3, 3))),
     "expected scalar type Double but found Float"),
    ("conv1d float input, double weight", lambda T, f: f.conv1d(T.tensor(_r(1, 2, 5)), T.tensor(_r(3, 2, 3)).double()),
     "expected scalar type Float but found Double"),
    ("conv2d double bias", lambda T, f: f.conv2d(T.tensor(_r(1, 2, 5, 5)), T.tensor(_r(3, 2, 3, 3)),
                                                 T.tensor(_r(3)).double()),
     "Input type (float) and bias type (double) should be the same"),
    ("conv2d half input", lambda T, f: f.conv2d(T.tensor(_r(1, 2, 5, 5)).half(), T.tensor(_r(3, 2, 3, 3))),
     "Input type (torch.HalfTensor) and weight type (torch.FloatTensor) should be the same"),
    ("unfold 5d", lambda T, f: f.unfold(T.tensor(_r(1, 2, 3, 4, 5)), 2),
     "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, "
     "but got: [1, 2, 3, 4, 5]"),
    ("unfold no blocks", lambda T, f: f.unfold(T.tensor(_r(1, 1, 2, 2)), 3),
     "calculated shape of the array of sliding blocks as (0, 0), but its components must be at least one"),
    ("fold 1d", lambda T, f: f.fold(T.tensor(_r(5)), (5, 5), 3),
     "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size"),
    ("fold channels", lambda T, f: f.fold(T.tensor(_r(1, 17, 9)), (5, 5), 3),
     "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)=17"),
    ("fold blocks", lambda T, f: f.fold(T.tensor(_r(1, 18, 8)), (5, 5), 3),
     "expected size of input's dimension 2 to match the calculated number of sliding blocks 3 * 3 = 9, but got "
     "input.size(2)=8."),
    ("conv2d groups", lambda T, f: f.conv2d(T.tensor(_r(2, 4, 5, 5)), T.tensor(_r(3, 2, 3, 3)), groups=2),
     "Given groups=2, expected weight to be divisible by 2 at dimension 0"),
    ("conv2d bias", lambda T, f: f.conv2d(T.tensor(_r(1, 3, 5, 5)), T.tensor(_r(4, 3, 3, 3)), T.tensor(_r(3))),
     "expected bias to be 1-dimensional with 4 elements, but got bias of size [3]"),
    ("max_pool2d pad", lambda T, f: f.max_pool2d(T.tensor(_r(1, 3, 5, 5)), 2, padding=2),
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and dilation=1"),
    ("avg_pool2d pad", lambda T, f: f.avg_pool2d(T.tensor(_r(1, 1, 5, 5)), 2, padding=2),
     "pad should be at most half of effective kernel size"),
    ("max_pool2d 2d input", lambda T, f: f.max_pool2d(T.tensor(_r(5, 5)), 2),
     "non-empty 3D or 4D (batch mode) tensor expected for input"),
    ("max_pool1d 1d input", lambda T, f: f.max_pool1d(T.tensor(_r(5)), 2),
     "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input"),
    ("avg_pool1d 1d input", lambda T, f: f.avg_pool1d(T.tensor(_r(5)), 2),
     "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self'"),
    ("max_pool2d window larger than input", lambda T, f: f.max_pool2d(T.tensor(_r(1, 1, 2, 2)), 3),
     "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is too small"),
    ("avg_pool1d window larger than input", lambda T, f: f.avg_pool1d(T.tensor(_r(1, 1, 2)), 3),
     "Given input size: (1x1x2). Calculated output size: (1x1x0). Output size is too small"),
    ("max_pool1d window larger than input", lambda T, f: f.max_pool1d(T.tensor(_r(1, 1, 2)), 3),
     "max_pool1d() Invalid computed output size: 0"),
]


# PyTorch's CPU build words some refusals by the kernel the processor gets: a half input with a float
# weight is refused by the dtype check ("Input type ...") on most processors, and by the oneDNN kernel
# ("expected scalar type ...") on others. The engine says the first; either is PyTorch's.
TORCH_ALSO = {"conv2d half input": ("expected scalar type Half but found Float",)}


@pytest.mark.parametrize("name, fn, message", BAD, ids=[b[0] for b in BAD])
def test_bad_shapes_raise_pytorchs_error(name, fn, message):
    with pytest.raises(RuntimeError, match=re.escape(message)):
        fn(gs, F)
    if torch is not None:
        with pytest.raises(RuntimeError) as raised:
            fn(torch, torch.nn.functional)
        assert any(m in str(raised.value) for m in (message,) + TORCH_ALSO.get(name, ())), str(raised.value)


@needs_torch
@pytest.mark.parametrize("kernel, stride, padding, dilation", [
    (2, None, 0, 1), (3, 1, 1, 1), (2, 1, 0, 2), (3, 2, 1, 1)])
def test_max_pool_nan_and_ties_match_torch(kernel, stride, padding, dilation):
    data = np.array([[[[1.0, np.nan, 2.0, 2.0, 0.0], [np.nan, 3.0, 2.0, 2.0, 5.0], [4.0, 4.0, 4.0, 1.0, 5.0],
                       [4.0, 4.0, np.nan, 7.0, 7.0], [0.0, 0.0, 1.0, 7.0, 7.0]]]], dtype=np.float32)
    results = []
    for T in (gs, torch):
        x = T.tensor(data, requires_grad=True)
        out, idx = T.nn.functional.max_pool2d(x, kernel, stride, padding, dilation, return_indices=True)
        (out.nan_to_num(0.0) * T.arange(out.numel(), dtype=T.float32).reshape(out.shape)).sum().backward()
        results.append((out.detach().numpy(), idx.numpy(), x.grad.numpy()))
    (out_g, idx_g, grad_g), (out_t, idx_t, grad_t) = results
    np.testing.assert_array_equal(out_g, out_t)
    np.testing.assert_array_equal(idx_g, idx_t)
    np.testing.assert_array_equal(grad_g, grad_t)


def test_max_pool_of_integers_and_large_windows():
    x = gs.arange(2 * 20 * 20).reshape(2, 1, 20, 20) % 7
    out, idx = F.max_pool2d(x, 17, stride=3, return_indices=True)   # 289 taps: wider indices
    assert out.dtype == gs.int64 and out.shape == (2, 1, 2, 2)
    assert idx.dtype == gs.int64
    flat = x.reshape(2, 1, -1)
    assert (flat.gather(2, idx.reshape(2, 1, -1)).reshape(out.shape) == out).all()
    if torch is not None:
        theirs, their_idx = torch.nn.functional.max_pool2d(torch.tensor(x.numpy()), 17, stride=3,
                                                           return_indices=True)
        np.testing.assert_array_equal(out.numpy(), theirs.numpy())
        np.testing.assert_array_equal(idx.numpy(), their_idx.numpy())


def _cnn(T):
    T.manual_seed(0)
    nn = T.nn
    return nn.Sequential(
        nn.Conv2d(2, 6, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 8, (3, 2), stride=(1, 2), padding="valid", dilation=(2, 1)), nn.ReLU(),
        nn.AvgPool2d(2, ceil_mode=True), nn.Conv2d(8, 4, 1, groups=4, padding_mode="circular"),
        nn.Flatten(), nn.Linear(4 * 1 * 2, 3))


@needs_torch
@pytest.mark.parametrize("keep_columns", [True, False])
def test_float32_training_steps_match_torch(monkeypatch, keep_columns):
    if not keep_columns:   # the weight gradient from columns gathered again in backward
        monkeypatch.setattr(F, "KEEP_COLUMNS_BYTES", 0)
    ours, theirs = _cnn(gs), _cnn(torch)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    x = _r(5, 2, 13, 12)
    target = np.array([0, 2, 1, 1, 0])
    losses = []
    for T, model in ((gs, ours), (torch, theirs)):
        opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        got = []
        for _ in range(3):
            opt.zero_grad()
            loss = T.nn.functional.cross_entropy(model(T.tensor(x)), T.tensor(target))
            loss.backward()
            opt.step()
            got.append(loss.item())
        losses.append(got)
        grads = [p.grad.numpy() for p in model.parameters()]
        if T is gs:
            ours_grads = grads
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-5)
    for a, b in zip(ours_grads, grads):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_conv_keeps_its_columns_only_for_backward():
    x = gs.randn(2, 3, 6, 6, requires_grad=True)
    w = gs.randn(4, 3, 3, 3, requires_grad=True)
    out = F.conv2d(x, w, padding=1)
    assert out.grad_fn.name() == "ConvolutionBackward0"
    assert out.grad_fn.extra[0].shape == (2, 1, 27, 36)
    out.sum().backward()
    assert out.grad_fn.saved is None      # freed with the saved tensors after backward
    with gs.no_grad():
        assert F.conv2d(x, w, padding=1).grad_fn is None


def test_conv_weight_gradient_under_create_graph_depends_on_the_input():
    x = gs.randn(1, 2, 5, 5, dtype=gs.float64, requires_grad=True)
    w = gs.randn(3, 2, 3, 3, dtype=gs.float64, requires_grad=True)
    (gw,) = gs.autograd.grad(F.conv2d(x, w).pow(2).sum(), w, create_graph=True)
    (gx,) = gs.autograd.grad(gw.sum(), x)
    assert float(gx.abs().sum()) > 0
    if torch is not None:
        xt = torch.tensor(x.detach().numpy(), requires_grad=True)
        wt = torch.tensor(w.detach().numpy(), requires_grad=True)
        (gwt,) = torch.autograd.grad(torch.nn.functional.conv2d(xt, wt).pow(2).sum(), wt, create_graph=True)
        (gxt,) = torch.autograd.grad(gwt.sum(), xt)
        np.testing.assert_allclose(gx.numpy(), gxt.numpy(), rtol=1e-10)


# ------------------------------------------------------------------ fast paths and padding modes
def _pad_conv1d(mode):
    # what nn.Conv1d(padding=(2,), padding_mode=mode) runs: F.pad, then an unpadded conv1d
    return lambda T, x, w, b: T.nn.functional.conv1d(T.nn.functional.pad(x, (2, 2), mode=mode), w, b, dilation=2)


def _pad_conv2d(mode):
    return lambda T, x, w: T.nn.functional.conv2d(T.nn.functional.pad(x, (1, 2, 2, 1), mode=mode), w, groups=2)


# stride 1 with output rows as wide as the input's: im2col and col2im run on the flattened plane
# (engine/nn/functional.py _same_width_taps); the strided cases beside them take the general path
FAST_PATH_CASES = {
    "conv2d_same_width": (lambda T, x, w, b: T.nn.functional.conv2d(x, w, b, padding=1),
                          [(2, 3, 4, 5), (4, 3, 3, 3), (4,)]),
    "conv2d_same_width_taller_output": (lambda T, x, w: T.nn.functional.conv2d(x, w, padding=(2, 1)),
                                        [(1, 2, 3, 4), (3, 2, 3, 3)]),
    "conv2d_same_width_rect_groups": (lambda T, x, w: T.nn.functional.conv2d(x, w, padding=(0, 2), groups=2),
                                      [(2, 4, 5, 6), (6, 2, 2, 5)]),
    "conv2d_same_even_kernel": (lambda T, x, w: T.nn.functional.conv2d(x, w, padding="same"),
                                [(2, 2, 5, 6), (3, 2, 2, 4)]),          # pads (1, 2) along the width
    "conv2d_same_dilation": (lambda T, x, w: T.nn.functional.conv2d(x, w, padding="same", dilation=(2, 3)),
                             [(1, 2, 6, 7), (2, 2, 3, 2)]),
    "conv2d_taps_past_the_whole_width": (lambda T, x, w: T.nn.functional.conv2d(x, w, padding=2),
                                         [(2, 2, 4, 2), (3, 2, 5, 5)]),
    "conv1d_same_dilation": (lambda T, x, w, b: T.nn.functional.conv1d(x, w, b, padding="same", dilation=2),
                             [(2, 3, 9), (4, 3, 4), (4,)]),
    "conv1d_same_groups_depthwise": (lambda T, x, w: T.nn.functional.conv1d(x, w, padding=1, groups=4),
                                     [(3, 4, 6), (8, 1, 3)]),
    "conv2d_same_size_5x5_bias": (lambda T, x, w, b: T.nn.functional.conv2d(x, w, b, padding=2),
                                  [(2, 3, 6, 5), (2, 3, 5, 5), (2,)]),
    "conv2d_1x1": (lambda T, x, w, b: T.nn.functional.conv2d(x, w, b), [(2, 3, 4, 3), (5, 3, 1, 1), (5,)]),
    "conv2d_same_size_one_row": (lambda T, x, w: T.nn.functional.conv2d(x, w, padding=1), [(2, 2, 1, 4), (3, 2, 3, 3)]),
    "conv2d_stride_2_general_path": (lambda T, x, w: T.nn.functional.conv2d(x, w, padding=1, stride=(1, 2)),
                                     [(2, 2, 5, 6), (3, 2, 3, 3)]),
    "unfold_same_width": (lambda T, x: T.nn.functional.unfold(x, (3, 2), padding=(1, 1), dilation=(1, 2)),
                          [(2, 3, 4, 5)]),
    "conv1d_reflect": (_pad_conv1d("reflect"), [(2, 3, 7), (4, 3, 3), (4,)]),
    "conv1d_replicate": (_pad_conv1d("replicate"), [(2, 3, 7), (4, 3, 3), (4,)]),
    "conv1d_circular": (_pad_conv1d("circular"), [(2, 3, 7), (4, 3, 3), (4,)]),
    "conv2d_replicate_groups": (_pad_conv2d("replicate"), [(2, 4, 4, 5), (4, 2, 3, 3)]),
    "conv2d_reflect_groups": (_pad_conv2d("reflect"), [(2, 4, 4, 5), (4, 2, 3, 3)]),
    "max_pool1d_dilation_stride": (lambda T, x: T.nn.functional.max_pool1d(x, 3, stride=2, dilation=2),
                                   [(2, 3, 11)]),
    "avg_pool1d_ceil_stride": (lambda T, x: T.nn.functional.avg_pool1d(x, 3, stride=2, padding=1, ceil_mode=True,
                                                                       count_include_pad=False), [(2, 3, 8)]),
    "max_pool2d_stride_below_kernel": (lambda T, x: T.nn.functional.max_pool2d(x, (3, 2), stride=(2, 1)),
                                       [(2, 2, 7, 5)]),
    "avg_pool2d_stride_above_kernel": (lambda T, x: T.nn.functional.avg_pool2d(x, 2, stride=3, padding=1),
                                       [(2, 2, 7, 8)]),
}


@pytest.mark.parametrize("name", list(FAST_PATH_CASES))
def test_conv_and_pool_cases_pass_gradcheck_and_gradgradcheck(name):
    fn, shapes = FAST_PATH_CASES[name]
    check_gradients(fn, shapes)


@needs_torch
@pytest.mark.parametrize("name", list(FAST_PATH_CASES))
def test_conv_and_pool_cases_match_torch(name):
    fn, shapes = FAST_PATH_CASES[name]
    compare_with_torch(fn, shapes)


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(FAST_PATH_CASES))
def test_conv_and_pool_cases_on_cuda_match_cpu(name):
    fn, shapes = FAST_PATH_CASES[name]
    compare_devices(fn, shapes)


@needs_torch
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_conv1d_module_padding_modes_match_torch(mode):
    torch.manual_seed(0)
    theirs = torch.nn.Conv1d(3, 4, 3, padding=2, dilation=2, padding_mode=mode).double()
    ours = gs.nn.Conv1d(3, 4, 3, padding=2, dilation=2, padding_mode=mode).double()
    ours.load_state_dict({k: gs.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((2, 3, 7))
    xt, xg = torch.tensor(x, requires_grad=True), gs.tensor(x, requires_grad=True)
    yt, yg = theirs(xt), ours(xg)
    np.testing.assert_allclose(yg.detach().numpy(), yt.detach().numpy(), rtol=1e-10)
    yt.pow(2).sum().backward()
    yg.pow(2).sum().backward()
    np.testing.assert_allclose(xg.grad.numpy(), xt.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-10)


def test_same_width_im2col_equals_the_strided_gather():
    """The flat-plane im2col against the padded strided gather it replaces, zeros at the borders
    and the wrapped columns included."""
    x = _r(2, 3, 5, 4)
    for kernel, dilation, padding in [((3, 3), (1, 1), ((1, 1), (1, 1))), ((2, 4), (2, 1), ((0, 3), (1, 2))),
                                      ((3, 5), (1, 1), ((2, 2), (2, 2))), ((1, 3), (1, 3), ((0, 0), (3, 3)))]:
        fast = F.Im2Col.__new__(F.Im2Col).forward(x, kernel, dilation, padding, (1, 1))
        padded = np.pad(x, ((0, 0), (0, 0)) + padding)
        (kh, kw), (dh, dw) = kernel, dilation
        oh, ow = padded.shape[2] - dh * (kh - 1), padded.shape[3] - dw * (kw - 1)
        slow = np.stack([np.stack([padded[:, :, i * dh:i * dh + oh, j * dw:j * dw + ow] for j in range(kw)], 2)
                         for i in range(kh)], 2)
        assert ow == x.shape[3]
        np.testing.assert_array_equal(fast, slow)


TAP_MAJOR_GEOMETRIES = [((3, 3), (1, 1), ((1, 1), (1, 1))), ((2, 4), (2, 1), ((1, 1), (1, 2))),
                        ((5, 5), (1, 1), ((2, 2), (2, 2))), ((1, 3), (1, 3), ((0, 0), (3, 3))),
                        ((3, 1), (2, 1), ((2, 2), (0, 0))), ((1, 1), (1, 1), ((0, 0), (0, 0)))]


@pytest.mark.parametrize("kernel, dilation, padding", TAP_MAJOR_GEOMETRIES)
def test_tap_major_im2col_equals_the_strided_gather(kernel, dilation, padding):
    """The tap-major columns (shifted copies of whole samples across channel boundaries, then zeros
    where a tap reads padding) against the padded strided gather, reordered tap-major."""
    x = _r(2, 3, 4, 5)
    assert F._is_same_size_conv(kernel, dilation, padding, (1, 1), 1)
    fast = F._im2col_tap_major(x, kernel, dilation, padding)
    padded = np.pad(x, ((0, 0), (0, 0)) + padding)
    (kh, kw), (dh, dw) = kernel, dilation
    slow = np.stack([padded[:, :, i * dh:i * dh + 4, j * dw:j * dw + 5].reshape(2, 3, 20)
                     for i in range(kh) for j in range(kw)], 1)
    np.testing.assert_array_equal(fast, slow)


@pytest.mark.parametrize("kernel, dilation, padding", TAP_MAJOR_GEOMETRIES)
def test_tap_major_col2im_is_the_adjoint_of_im2col(kernel, dilation, padding):
    """<im2col(x), c> = <x, col2im(c)> for random x and c: col2im sums each column back where im2col
    took it from, and drops what im2col read from padding."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 4, 5))
    c = rng.standard_normal((2, kernel[0] * kernel[1], 3, 20))
    lhs = np.vdot(F._im2col_tap_major(x, kernel, dilation, padding), c)
    rhs = np.vdot(x, F._col2im_tap_major(c.copy(), x.shape, kernel, dilation, padding))
    assert lhs == pytest.approx(rhs, rel=1e-12)


@pytest.mark.parametrize("groups", [1, 2])
def test_empty_batch_convolves_to_an_empty_batch(groups):
    """N = 0 (a filtered-out batch): PyTorch gives an empty output and zero weight gradients."""
    for nd, shape in ((2, (0, 4, 5, 5)), (1, (0, 4, 7))):
        x = gs.zeros(*shape, requires_grad=True)
        w = gs.ones(*((6, 4 // groups) + (3,) * nd), requires_grad=True)
        b = gs.ones(6, requires_grad=True)
        conv = F.conv2d if nd == 2 else F.conv1d
        y = conv(x, w, b, padding=1, groups=groups)
        assert tuple(y.shape) == (0, 6) + tuple(shape[2:])
        y.sum().backward()
        assert tuple(x.grad.shape) == shape
        assert not w.grad.numpy().any() and not b.grad.numpy().any()


def test_unfold_and_fold_take_an_unbatched_input():
    check_gradients(lambda T, x: T.nn.functional.unfold(x, 2, padding=1, stride=(1, 2)), [(2, 4, 5)])
    check_gradients(lambda T, c: T.nn.functional.fold(c, (4, 5), 2, padding=1, stride=(1, 2)), [(8, 15)])
    if torch is not None:
        compare_with_torch(lambda T, x: T.nn.functional.unfold(x, (2, 3), dilation=(2, 1)), [(3, 6, 5)])
        compare_with_torch(lambda T, c: T.nn.functional.fold(c, (6, 5), (2, 3), dilation=(2, 1)), [(18, 12)])


def test_batch_norm_sums_float32_in_float64_as_pytorch():
    """PyTorch's CPU norm kernels accumulate float32 in double (acc_type); so do ours: on values far
    from zero the statistics keep float64's accuracy (a float32 sum was 3x and 9x further off)."""
    rng = np.random.default_rng(1)
    a = (3000 + rng.standard_normal((256, 4, 24, 24)) * 0.05).astype(np.float32)
    x = gs.tensor(a, requires_grad=True)
    rm, rv = gs.zeros(4), gs.ones(4)
    F.batch_norm(x, rm, rv, training=True, momentum=1.0).sum().backward()
    a64 = a.astype(np.float64)
    n = a[:, 0].size
    assert np.abs(rm.numpy() - a64.mean((0, 2, 3))).max() < 1.5e-4
    assert (np.abs(rv.numpy() - a64.var((0, 2, 3)) * n / (n - 1)) / a64.var((0, 2, 3))).max() < 1e-5
    if torch is not None:
        trm, trv = torch.zeros(4), torch.ones(4)
        torch.nn.functional.batch_norm(torch.tensor(a), trm, trv, training=True, momentum=1.0)
        np.testing.assert_allclose(rm.numpy(), trm.numpy(), rtol=1e-7)
        np.testing.assert_allclose(rv.numpy(), trv.numpy(), rtol=1e-6)


@pytest.mark.parametrize("out_channels, in_channels, groups", [(4, 1, 1), (32, 4, 1), (40, 4, 1), (64, 8, 2)])
def test_weight_and_bias_gradients_on_each_product_layout(out_channels, in_channels, groups):
    """Conv.backward picks the weight gradient's product by the operands' sizes (a thin product over
    the transposed view, or one operand copied transposed, the smaller) and sums the bias gradient
    by a matrix-vector product: each layout against the float64 sums written out."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, in_channels, 6, 5))
    w = rng.standard_normal((out_channels, in_channels // groups, 3, 3))
    g = rng.standard_normal((3, out_channels, 6, 5))
    xg = gs.tensor(x.astype(np.float32), requires_grad=True)
    wg = gs.tensor(w.astype(np.float32), requires_grad=True)
    bg = gs.zeros(out_channels, requires_grad=True)
    F.conv2d(xg, wg, bg, padding=1, groups=groups).backward(gs.tensor(g.astype(np.float32)))
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    per_group = out_channels // groups
    want = np.zeros_like(w)
    for o in range(out_channels):
        first = (o // per_group) * (in_channels // groups)
        for i in range(3):
            for j in range(3):
                window = padded[:, first:first + in_channels // groups, i:i + 6, j:j + 5]
                want[o, :, i, j] = np.einsum("ncyx,nyx->c", window, g[:, o])
    np.testing.assert_allclose(wg.grad.numpy(), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(bg.grad.numpy(), g.sum((0, 2, 3)), rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------ chunked same-size convolutions
# a convolution whose columns pass KEEP_COLUMNS_BYTES runs over chunks of CHUNK_COLUMNS_BYTES of samples;
# these cases set the budget to one sample's columns and a bit more, so chunks of 1 and of 2 samples
# (with a shorter last chunk) run on small inputs
CHUNKED_CASES = {
    "conv2d_bias": (lambda T, x, w, b: T.nn.functional.conv2d(x, w, b, padding=1), [(5, 3, 4, 5), (4, 3, 3, 3), (4,)]),
    "conv2d_5x5_dilated": (lambda T, x, w: T.nn.functional.conv2d(x, w, padding=(2, 4), dilation=(1, 2)),
                           [(3, 2, 5, 6), (3, 2, 5, 5)]),
    "conv1d": (lambda T, x, w, b: T.nn.functional.conv1d(x, w, b, padding="same"), [(4, 3, 7), (2, 3, 4), (2,)]),
    # the general layout: strided, grouped, depthwise, and stride 1 with narrower output rows
    "conv2d_stride_2": (lambda T, x, w, b: T.nn.functional.conv2d(x, w, b, stride=2, padding=1),
                        [(5, 3, 6, 5), (4, 3, 3, 3), (4,)]),
    "conv2d_groups_dilated": (lambda T, x, w: T.nn.functional.conv2d(x, w, groups=2, dilation=(2, 1), stride=(1, 2)),
                              [(3, 4, 7, 6), (6, 2, 2, 3)]),
    "conv2d_depthwise": (lambda T, x, w: T.nn.functional.conv2d(x, w, padding=1, groups=3), [(4, 3, 5, 5), (6, 1, 3, 3)]),
    "conv2d_valid": (lambda T, x, w: T.nn.functional.conv2d(x, w), [(3, 2, 5, 6), (3, 2, 3, 2)]),
}


def _chunk_budget(monkeypatch, samples, fn, shapes, itemsize):
    """A budget for chunks of ``samples``: one sample's columns are its kernel's taps times its
    channels times the output's positions (CHUNK_COLUMNS_BYTES's unit, Conv._chunk)."""
    out = fn(gs, *[gs.zeros(*shape) for shape in shapes])
    taps = int(np.prod(shapes[1][2:]))
    per_sample = taps * shapes[0][1] * int(np.prod(out.shape[2:])) * itemsize
    _chunk_beyond(monkeypatch, samples * per_sample + per_sample // 2)


def _chunk_beyond(monkeypatch, budget):
    """Chunks of ``budget`` bytes of columns for any batch whose columns pass it (the whole batch's are
    kept, unchunked, up to KEEP_COLUMNS_BYTES)."""
    monkeypatch.setattr(F, "KEEP_COLUMNS_BYTES", budget)
    monkeypatch.setattr(F, "CHUNK_COLUMNS_BYTES", budget)


def _count_chunked(monkeypatch):
    calls = []
    for name in ("_chunked_forward", "_chunked_backward"):
        def counted(*args, _method=getattr(F.Conv, name), _name=name):
            calls.append(_name)
            return _method(*args)
        monkeypatch.setattr(F.Conv, name, counted)
    return calls


def _check_chunked(monkeypatch, name, samples, itemsize, check):
    """Runs ``check`` (gradcheck, or the PyTorch comparison) on case ``name`` in chunks of ``samples``,
    asserting that the chunked forward and backward ran."""
    fn, shapes = CHUNKED_CASES[name]
    _chunk_budget(monkeypatch, samples, fn, shapes, itemsize)
    calls = _count_chunked(monkeypatch)
    check(fn, shapes)
    assert "_chunked_forward" in calls and "_chunked_backward" in calls


@pytest.mark.parametrize("samples", [1, 2])
@pytest.mark.parametrize("name", list(CHUNKED_CASES))
def test_chunked_convolution_passes_gradcheck_and_gradgradcheck(monkeypatch, name, samples):
    _check_chunked(monkeypatch, name, samples, 8, check_gradients)


@needs_torch
@pytest.mark.parametrize("samples", [1, 2])
@pytest.mark.parametrize("name", list(CHUNKED_CASES))
def test_chunked_convolution_matches_torch(monkeypatch, name, samples):
    _check_chunked(monkeypatch, name, samples, 4, compare_with_torch)


def test_chunked_convolution_keeps_no_columns_and_equals_the_whole_batch(monkeypatch):
    """Chunked, the forward keeps only x and w (backward gathers each chunk's columns again), and its
    output and both gradients are the unchunked convolution's."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((7, 3, 6, 5)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    g = rng.standard_normal((7, 4, 6, 5)).astype(np.float32)
    results = []
    for budget in (F.KEEP_COLUMNS_BYTES, 2 * 27 * 30 * 4):   # the whole batch, then chunks of 2
        _chunk_beyond(monkeypatch, budget)
        xg, wg = gs.tensor(x, requires_grad=True), gs.tensor(w, requires_grad=True)
        out = F.conv2d(xg, wg, padding=1)
        results.append((out.grad_fn.extra, out.detach().numpy()))
        out.backward(gs.tensor(g))
        results[-1] += (xg.grad.numpy(), wg.grad.numpy())
    (kept_whole, *whole), (kept_chunked, *chunked) = results
    assert len(kept_whole) == 1 and kept_chunked == ()
    for a, b in zip(whole, chunked):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("needs", ["input", "weight", "bias"])
def test_chunked_convolution_computes_only_the_gradients_needed(monkeypatch, needs):
    """Backward gets w only when the input needs its gradient (grad_needs): chunked, a first layer
    (its input a constant) and a frozen weight take the same care as the whole batch."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((5, 2, 6, 6)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    b = np.zeros(3, dtype=np.float32)
    grads = []
    for budget in (F.KEEP_COLUMNS_BYTES, 18 * 36 * 4 * 2):   # the whole batch, then chunks of 2
        _chunk_beyond(monkeypatch, budget)
        xg, wg, bg = (gs.tensor(a, requires_grad=name == needs) for a, name in
                      ((x, "input"), (w, "weight"), (b, "bias")))
        F.conv2d(xg, wg, bg, padding=1).pow(2).sum().backward()
        got = {name: t.grad for name, t in (("input", xg), ("weight", wg), ("bias", bg))}
        assert [name for name, grad in got.items() if grad is not None] == [needs]
        grads.append(got[needs].numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-5)


# depthwise convolutions BANDED_MIN_WIDTH wide or wider, at stride 1: banded products (_banded_forward)
BANDED_CASES = {
    "depthwise_5x5": (lambda T, x, w: T.nn.functional.conv2d(x, w, padding=2, groups=3), [(2, 3, 7, 9), (3, 1, 5, 5)]),
    "depthwise_7x7_bias": (lambda T, x, w, b: T.nn.functional.conv2d(x, w, b, padding=3, groups=2),
                           [(2, 2, 8, 11), (2, 1, 7, 7), (2,)]),
    "depthwise_dilated_unpadded": (lambda T, x, w: T.nn.functional.conv2d(x, w, dilation=(1, 2), groups=2),
                                   [(1, 2, 6, 19), (2, 1, 3, 5)]),
    "depthwise_same_even": (lambda T, x, w: T.nn.functional.conv2d(x, w, padding="same", groups=3),
                            [(2, 3, 5, 6), (3, 1, 4, 4)]),
    "depthwise_wide_rows": (lambda T, x, w: T.nn.functional.conv2d(x, w, padding=(0, 4), groups=2),
                            [(1, 2, 3, 41), (2, 1, 2, 9)]),
    # Mamba's causal conv1d: a filter of 4 per channel, padded by 3, then cut back
    "depthwise_conv1d_causal": (lambda T, x, w, b: T.nn.functional.conv1d(x, w, b, padding=3, groups=4)[..., :-3],
                                [(2, 4, 10), (4, 1, 4), (4,)]),
}


def _count_banded(monkeypatch):
    calls = []
    for name in ("_banded_forward", "_banded_backward"):
        def counted(*args, _fn=getattr(F, name), _name=name):
            calls.append(_name)
            return _fn(*args)
        monkeypatch.setattr(F, name, counted)
    return calls


@pytest.mark.parametrize("name", list(BANDED_CASES))
def test_banded_depthwise_convolution_passes_gradcheck_and_gradgradcheck(monkeypatch, name):
    calls = _count_banded(monkeypatch)
    check_gradients(*BANDED_CASES[name])
    assert "_banded_forward" in calls and "_banded_backward" in calls   # (gradgradcheck: the composite form)


@needs_torch
@pytest.mark.parametrize("name", list(BANDED_CASES))
def test_banded_depthwise_convolution_matches_torch(monkeypatch, name):
    calls = _count_banded(monkeypatch)
    compare_with_torch(*BANDED_CASES[name])
    assert "_banded_forward" in calls and "_banded_backward" in calls


@pytest.mark.parametrize("needs", ["input", "weight", "bias"])
@pytest.mark.parametrize("keep", [True, False])
def test_banded_convolution_equals_im2col_for_each_gradient_alone(monkeypatch, needs, keep):
    """The banded path against the im2col one (BANDED_MIN_WIDTH raised past the kernel), each gradient
    alone (backward gets x only for the weight's, w only for the input's), with the laid-out input kept
    for backward and gathered again."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 4, 9, 13)).astype(np.float32)
    w = rng.standard_normal((4, 1, 5, 5)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    g = rng.standard_normal((3, 4, 9, 13)).astype(np.float32)
    if not keep:
        monkeypatch.setattr(F, "KEEP_COLUMNS_BYTES", 0)
    results = []
    for min_width in (F.BANDED_MIN_WIDTH, 6):
        monkeypatch.setattr(F, "BANDED_MIN_WIDTH", min_width)
        xg, wg, bg = (gs.tensor(a, requires_grad=name == needs) for a, name in
                      ((x, "input"), (w, "weight"), (b, "bias")))
        out = F.conv2d(xg, wg, bg, padding=2, groups=4)
        assert out.grad_fn.banded == (min_width <= 5)
        out.backward(gs.tensor(g))
        got = {name: t.grad for name, t in (("input", xg), ("weight", wg), ("bias", bg))}
        assert [name for name, grad in got.items() if grad is not None] == [needs]
        results.append((out.detach().numpy(), got[needs].numpy()))
    for a, b_ in zip(*results):
        np.testing.assert_allclose(a, b_, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kernel, dilation, banded", [((5, 5), 1, True), ((3, 17), 1, True), ((3, 5), 4, True),
                                                      ((3, 5), 5, False), ((5, 3), 1, False)])
def test_banded_convolution_only_where_its_blocks_stay_small(kernel, dilation, banded):
    """Banded where the kernel is wide enough and its dilated width keeps blocks small (a block is as
    wide as the dilated kernel, and the work grows with its square)."""
    x = gs.zeros(1, 2, 12, 40, requires_grad=True)
    out = F.conv2d(x, gs.zeros(2, 1, *kernel), dilation=dilation, groups=2)
    assert out.grad_fn.banded == banded

