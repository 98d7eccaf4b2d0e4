"""nn.PixelShuffle / nn.PixelUnshuffle and F.pixel_shuffle / F.pixel_unshuffle: gradients in float64,
values and gradients against PyTorch, the layout, the errors."""
import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine import nn
from gradserve.engine.nn import functional as F

from op_check import check_gradients, compare_with_torch, torch

CASES = {
    "shuffle_4d": (lambda T, x: T.nn.functional.pixel_shuffle(x, 2), [(2, 8, 3, 2)]),
    "shuffle_3d_unbatched_r3": (lambda T, x: T.nn.functional.pixel_shuffle(x, 3), [(9, 2, 2)]),
    "shuffle_5d_lead_dims": (lambda T, x: T.nn.functional.pixel_shuffle(x, 2), [(2, 1, 4, 2, 3)]),
    "shuffle_r1_is_a_copy": (lambda T, x: T.nn.functional.pixel_shuffle(x, 1), [(1, 3, 2, 2)]),
    "unshuffle_4d": (lambda T, x: T.nn.functional.pixel_unshuffle(x, 2), [(2, 3, 4, 6)]),
    "unshuffle_3d_r3": (lambda T, x: T.nn.functional.pixel_unshuffle(x, 3), [(2, 3, 6)]),
    "shuffle_then_op": (lambda T, x: T.nn.functional.pixel_shuffle(x * x, 2).sin(), [(1, 4, 2, 2)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_pixel_shuffle_gradcheck_and_gradgradcheck(name):
    fn, shapes = CASES[name]
    check_gradients(fn, shapes)


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(CASES))
def test_pixel_shuffle_matches_torch(name):
    fn, shapes = CASES[name]
    compare_with_torch(fn, shapes)


def test_pixel_shuffle_layout_and_inverse():
    x = gs.arange(2 * 8 * 3 * 2, dtype=gs.float32).reshape(2, 8, 3, 2)
    y = F.pixel_shuffle(x, 2)
    assert tuple(y.shape) == (2, 2, 6, 4)
    # output pixel (h*r + i, w*r + j) of channel c comes from channel c*r*r + i*r + j at (h, w)
    assert float(y[1, 1, 5, 2]) == float(x[1, 1 * 4 + 1 * 2 + 0, 2, 1])
    np.testing.assert_array_equal(F.pixel_unshuffle(y, 2).numpy(), x.numpy())
    assert y.is_contiguous()


def test_pixel_shuffle_output_never_shares_the_input_memory():
    x = gs.ones(1, 2, 2, 2)
    y = F.pixel_shuffle(x, 1)
    y.add_(1)
    assert float(x.sum()) == 8.0


def test_pixel_shuffle_grad_fn_names():
    x = gs.ones(1, 4, 2, 2, requires_grad=True)
    assert F.pixel_shuffle(x, 2).grad_fn.name() == "PixelShuffleBackward0"
    assert F.pixel_unshuffle(x, 2).grad_fn.name() == "PixelUnshuffleBackward0"


@pytest.mark.parametrize("call, message", [
    (lambda: F.pixel_shuffle(gs.ones(3, 3), 2), "at least 3 dimensions, but got input with 2 dimension"),
    (lambda: F.pixel_shuffle(gs.ones(5, 3, 3), 2), r"input.size\(-3\)=5 is not divisible by 4"),
    (lambda: F.pixel_shuffle(gs.ones(4, 3, 3), 0), "expects a positive upscale_factor, but got 0"),
    (lambda: F.pixel_unshuffle(gs.ones(2, 3, 4), 2), r"height to be divisible by downscale_factor, but "
                                                     r"input.size\(-2\)=3"),
    (lambda: F.pixel_unshuffle(gs.ones(2, 4, 3), 2), r"width to be divisible by downscale_factor, but "
                                                     r"input.size\(-1\)=3"),
])
def test_pixel_shuffle_errors_name_the_problem_as_torch(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


def test_pixel_shuffle_modules_and_repr():
    x = gs.randn(1, 4, 2, 3)
    assert tuple(nn.PixelShuffle(2)(x).shape) == (1, 1, 4, 6)
    assert tuple(nn.PixelUnshuffle(2)(nn.PixelShuffle(2)(x)).shape) == (1, 4, 2, 3)
    assert repr(nn.PixelShuffle(3)) == "PixelShuffle(upscale_factor=3)"
    assert repr(nn.PixelUnshuffle(2)) == "PixelUnshuffle(downscale_factor=2)"
