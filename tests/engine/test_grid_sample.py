"""F.affine_grid and F.grid_sample (engine/nn/grid_sample.py; pytorch/tutorials' spatial transformer):
gradcheck in float64 through both the image and the affine matrices, values and gradients against
PyTorch for every mode, padding and corner convention, PyTorch's errors and default-change warning."""
import warnings

import numpy as np
import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch


def _sampled(mode, padding_mode, align_corners, out_size=(2, 3, 4, 7)):
    def fn(T, x, theta):
        grid = T.nn.functional.affine_grid(theta, out_size, align_corners=align_corners)
        return T.nn.functional.grid_sample(x, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    return fn


CASES = {f"{mode}_{pad}_{'corners' if ac else 'centres'}": (_sampled(mode, pad, ac), [(2, 3, 5, 6), (2, 2, 3)])
         for mode in ("bilinear", "nearest") for pad in ("zeros", "border", "reflection") for ac in (False, True)}
CASES["grid_as_input"] = (lambda T, x, g: T.nn.functional.grid_sample(x, g.tanh() * 1.2, align_corners=False),
                          [(1, 2, 4, 4), (1, 3, 5, 2)])
CASES["affine_grid_alone"] = (lambda T, theta: T.nn.functional.affine_grid(theta, (3, 1, 5, 4), align_corners=True),
                              [(3, 2, 3)])


@pytest.mark.parametrize("name", list(CASES))
def test_gradcheck(name):
    fn, shapes = CASES[name]
    check_gradients(fn, shapes, second_order=False)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.skipif(torch is None, reason="compares with PyTorch")
def test_matches_torch(name):
    fn, shapes = CASES[name]
    compare_with_torch(fn, shapes, rtol=1e-10, atol=1e-12)


def test_nearest_gives_the_grid_a_zero_gradient_as_pytorch():
    theta = gs.randn(1, 2, 3, dtype=gs.float64, requires_grad=True)
    grid = gs.nn.functional.affine_grid(theta, (1, 1, 3, 3), align_corners=False)
    gs.nn.functional.grid_sample(gs.ones(1, 1, 3, 3, dtype=gs.float64), grid, mode="nearest",
                                 align_corners=False).sum().backward()
    assert theta.grad is not None and not theta.grad.numpy().any()


def test_default_align_corners_warns_as_pytorch():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grid = gs.nn.functional.affine_grid(gs.eye(2, 3).unsqueeze(0), (1, 1, 2, 2))
        gs.nn.functional.grid_sample(gs.ones(1, 1, 2, 2), grid)
    assert len(caught) == 2 and all("align_corners=False since 1.3.0" in str(w.message) for w in caught)


@pytest.mark.parametrize("call, error, fragment", [
    (lambda: gs.nn.functional.affine_grid(gs.ones(1, 3, 3), (1, 1, 2, 2), align_corners=False), ValueError,
     "Expected a batch of 2D affine matrices of shape Nx2x3"),
    (lambda: gs.nn.functional.affine_grid(gs.ones(1, 2, 3, dtype=gs.int64), (1, 1, 2, 2), align_corners=False),
     ValueError, "Expected theta to have floating point type"),
    (lambda: gs.nn.functional.grid_sample(gs.ones(1, 1, 2, 2), gs.zeros(1, 2, 2, 2), mode="linear",
                                          align_corners=False), ValueError, "expected mode to be 'bilinear'"),
    (lambda: gs.nn.functional.grid_sample(gs.ones(1, 1, 2, 2), gs.zeros(1, 2, 2, 3), align_corners=False),
     RuntimeError, "expected grid to have size 2 in last dimension"),
    (lambda: gs.nn.functional.grid_sample(gs.ones(2, 1, 2, 2), gs.zeros(1, 2, 2, 2), align_corners=False),
     RuntimeError, "expected grid and input to have same batch size"),
])
def test_errors_are_pytorchs(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call()


# hostile pass 10 (tests/hostile_attack10_log.md) -------------------------------------------------
@pytest.fixture
def element_limit():
    from gradserve.engine.autograd.state import state
    prev = state.element_limit
    state.element_limit = 1 << 20
    yield
    state.element_limit = prev


def test_a_grid_sample_whose_buffers_pass_the_element_limit_is_refused(element_limit):
    """F3: its buffers are about 20 grid-sized tensors at once (5.9 GB of them for a grid at the
    element limit): a grid point costs 16 elements against the limit."""
    from gradserve.engine.limits import LimitExceeded
    F = gs.nn.functional
    F.grid_sample(gs.ones(1, 1, 2, 2), gs.zeros(1, 256, 256, 2), align_corners=False)   # 2**20 / 16 points
    with pytest.raises(LimitExceeded, match="grid_sample sampling buffer of shape \\[1, 256, 257, 16\\]"):
        F.grid_sample(gs.ones(1, 1, 2, 2), gs.zeros(1, 256, 257, 2), align_corners=False)


@pytest.mark.skipif(torch is None, reason="compares with PyTorch")
@pytest.mark.parametrize("x_shape, grid_shape", [((0, 2, 4, 4), (0, 3, 2, 2)), ((1, 0, 4, 4), (1, 3, 2, 2)),
                                                 ((1, 2, 4, 4), (1, 0, 2, 2)), ((1, 2, 4, 4), (1, 3, 0, 2))])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_empty_batches_channels_and_grids_as_pytorch(x_shape, grid_shape, mode):
    """F5: a batch of none raised "shape '[0, 1, -1]' is invalid for input of size 0"."""
    ours = gs.nn.functional.grid_sample(gs.ones(*x_shape), gs.zeros(*grid_shape), mode=mode, align_corners=False)
    theirs = torch.nn.functional.grid_sample(torch.ones(*x_shape), torch.zeros(*grid_shape), mode=mode,
                                             align_corners=False)
    assert tuple(ours.shape) == tuple(theirs.shape)


@pytest.mark.parametrize("x_shape", [(1, 1, 0, 4), (1, 1, 4, 0), (2, 1, 0, 0)])
def test_an_empty_image_is_pytorchs_error(x_shape):
    with pytest.raises(RuntimeError, match="expected input to have non-empty spatial dimensions"):
        gs.nn.functional.grid_sample(gs.ones(*x_shape), gs.zeros(x_shape[0], 2, 2, 2), align_corners=False)
