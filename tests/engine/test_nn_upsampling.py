"""F.interpolate and nn.Upsample: every mode's index arithmetic and weights against PyTorch (values and
gradients, sizes and scale factors, align_corners, recompute_scale_factor), gradients in float64, errors."""
import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine import nn
from gradserve.engine.nn import functional as F

from op_check import check_gradients, compare_with_torch, torch


def _interp(**kw):
    return lambda T, x: T.nn.functional.interpolate(x, **kw)


CASES = {
    # 1-d (N, C, L)
    "nearest_1d_x2": (_interp(scale_factor=2), [(2, 3, 5)]),
    "nearest_1d_size": (_interp(size=8), [(1, 2, 5)]),
    "nearest_exact_1d": (_interp(scale_factor=1.7, mode="nearest-exact"), [(1, 2, 5)]),
    "linear_1d": (_interp(scale_factor=1.5, mode="linear"), [(2, 2, 4)]),
    "linear_1d_corners": (_interp(size=7, mode="linear", align_corners=True), [(1, 2, 4)]),
    "linear_1d_down": (_interp(scale_factor=0.5, mode="linear"), [(1, 2, 9)]),
    "area_1d": (_interp(size=3, mode="area"), [(1, 2, 7)]),
    # 2-d (N, C, H, W)
    "nearest_2d_x2": (_interp(scale_factor=2), [(2, 3, 3, 4)]),
    "nearest_2d_uneven": (_interp(scale_factor=(1.7, 2.5)), [(1, 2, 3, 4)]),
    "nearest_2d_down": (_interp(size=(2, 3)), [(1, 2, 5, 7)]),
    "bilinear_2d": (_interp(scale_factor=2, mode="bilinear"), [(2, 2, 3, 4)]),
    "bilinear_2d_corners": (_interp(size=(5, 6), mode="bilinear", align_corners=True), [(1, 2, 3, 4)]),
    "bilinear_2d_recompute": (_interp(scale_factor=2.3, mode="bilinear", recompute_scale_factor=True),
                              [(1, 1, 3, 4)]),
    "bicubic_2d": (_interp(scale_factor=2, mode="bicubic"), [(1, 2, 4, 3)]),
    "bicubic_2d_corners": (_interp(size=(6, 5), mode="bicubic", align_corners=True), [(1, 1, 4, 3)]),
    "area_2d": (_interp(size=(2, 3), mode="area"), [(1, 2, 5, 7)]),
    # 3-d (N, C, D, H, W)
    "nearest_3d": (_interp(scale_factor=2), [(1, 2, 2, 3, 2)]),
    "trilinear_3d": (_interp(size=(3, 4, 5), mode="trilinear"), [(1, 1, 2, 3, 2)]),
    "trilinear_3d_corners": (_interp(scale_factor=1.5, mode="trilinear", align_corners=True), [(1, 1, 2, 3, 2)]),
    # composed with other ops, and the modules
    "upsample_module_then_op": (lambda T, x: T.nn.Upsample(scale_factor=2, mode="bilinear")(x * x).sin(),
                                [(1, 2, 3, 3)]),
    "upsampling_bilinear2d": (lambda T, x: T.nn.UpsamplingBilinear2d(scale_factor=2)(x), [(1, 1, 3, 2)]),
    "upsampling_nearest2d": (lambda T, x: T.nn.UpsamplingNearest2d(size=(4, 5))(x), [(1, 1, 3, 2)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_interpolate_gradcheck_and_gradgradcheck(name):
    fn, shapes = CASES[name]
    check_gradients(fn, shapes)


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(CASES))
def test_interpolate_matches_torch(name):
    fn, shapes = CASES[name]
    compare_with_torch(fn, shapes)


def test_nearest_x2_repeats_each_pixel():
    x = gs.arange(6, dtype=gs.float32).reshape(1, 1, 2, 3)
    y = F.interpolate(x, scale_factor=2)
    assert y.dtype == gs.float32 and tuple(y.shape) == (1, 1, 4, 6)
    expected = np.repeat(np.repeat(x.numpy(), 2, axis=2), 2, axis=3)
    np.testing.assert_array_equal(y.numpy(), expected)


def test_bilinear_corners_keep_the_corner_values():
    x = gs.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    y = F.interpolate(x, size=(3, 3), mode="bilinear", align_corners=True)
    np.testing.assert_allclose(y.numpy()[0, 0], [[1, 1.5, 2], [2, 2.5, 3], [3, 3.5, 4]])


def test_same_size_is_a_copy_not_an_alias():
    x = gs.ones(1, 1, 2, 2)
    y = F.interpolate(x, size=(2, 2))
    y.add_(1)
    assert float(x.sum()) == 4.0


def test_upsample_repr():
    assert repr(nn.Upsample(scale_factor=2, mode="nearest")) == "Upsample(scale_factor=2.0, mode='nearest')"


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.interpolate(gs.ones(1, 1, 4)), ValueError, "either size or scale_factor should be defined"),
    (lambda: F.interpolate(gs.ones(1, 1, 4), size=2, scale_factor=2), ValueError, "only one of size or scale_factor"),
    (lambda: F.interpolate(gs.ones(1, 1, 4), size=2, mode="nearest", align_corners=True), ValueError,
     "align_corners option can only be set"),
    (lambda: F.interpolate(gs.ones(1, 1, 4), size=2, mode="bilinear"), NotImplementedError, "bilinear"),
    (lambda: F.interpolate(gs.ones(1, 1, 4, 4), size=(2, 2, 2)), ValueError, "same number of spatial dimensions"),
    (lambda: F.interpolate(gs.ones(1, 1, 4), scale_factor=0.1), RuntimeError, "should be greater than 0"),
])
def test_interpolate_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.interpolate(T.ones(1, 1, 4)),
    lambda T: T.nn.functional.interpolate(T.ones(1, 1, 4), size=2, mode="bilinear"),
    lambda T: T.nn.functional.interpolate(T.ones(1, 1, 4), scale_factor=0.1),
])
def test_interpolate_errors_have_torchs_types(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as ours:
        call(gs)
    assert type(ours.value).__name__ == type(theirs.value).__name__


def test_sizes_past_the_element_limit_are_refused_before_allocating():
    from gradserve.engine.autograd.state import state
    from gradserve.engine.limits import LimitExceeded
    before = state.element_limit
    state.element_limit = 1 << 20
    try:
        with pytest.raises(LimitExceeded, match="tensor_elements"):
            F.interpolate(gs.ones(1, 1, 4, 4), size=(1 << 12, 1 << 12))
        with pytest.raises(LimitExceeded, match="interpolation matrix"):
            F.interpolate(gs.ones(1, 1, 1 << 11), size=1 << 10)
        # a wide-to-tall reshape never builds the (N, N) intermediate
        assert tuple(F.interpolate(gs.ones(1, 1, 1, 512), size=(512, 1)).shape) == (1, 1, 512, 1)
    finally:
        state.element_limit = before
