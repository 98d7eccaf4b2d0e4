"""Channel dropout (F.dropout1d/2d/3d, nn.Dropout1d/2d/3d): which dims share a mask for every input
rank, unbatched inputs, and PyTorch's warnings and errors for the ranks it deprecates."""
import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine import nn
from gradserve.engine.nn import functional as F

from op_check import check_gradients


def _mask_groups(out, shape):
    """How many distinct values each (dims 0, 1) slice of a dropout of ones holds."""
    flat = out.reshape(shape[0] * shape[1], -1) if len(shape) > 2 else out.reshape(-1, 1)
    return {len(set(row.tolist())) for row in flat}


@pytest.mark.parametrize("fn, shape, unbatched", [
    (F.dropout1d, (4, 6, 5), False), (F.dropout1d, (6, 5), True),
    (F.dropout2d, (4, 6, 3, 3), False), (F.dropout2d, (4, 6, 5), False),
    (F.dropout3d, (2, 6, 2, 2, 2), False), (F.dropout3d, (6, 2, 2, 3), True),
])
def test_channel_dropout_zeroes_whole_channels(fn, shape, unbatched, recwarn):
    gs.manual_seed(0)
    out = fn(gs.ones(*shape), 0.5).numpy()
    assert out.shape == shape
    lead = (1,) + shape if unbatched else shape
    assert _mask_groups(out.reshape(lead), lead) == {1}
    assert set(np.unique(out).tolist()) == {0.0, 2.0}


def test_dropout2d_on_a_2d_input_keeps_its_shape_and_drops_elementwise_with_a_warning():
    gs.manual_seed(0)
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d, which is deprecated"):
        out = nn.Dropout2d(0.25)(gs.ones(64, 32))
    assert tuple(out.shape) == (64, 32)
    kept = out.numpy() != 0
    assert abs(kept.mean() - 0.75) < 0.03
    assert 0 < kept.sum(1).min() < 32   # rows are not all-or-nothing: each element has its own coin


def test_dropout2d_on_a_3d_input_warns_that_it_is_read_as_n_c_l():
    with pytest.warns(UserWarning, match=r"interpreted as shape \(N, C, L\)"):
        F.dropout2d(gs.ones(2, 3, 4), 0.5)


def test_dropout3d_on_other_ranks_warns_and_keeps_the_shape():
    with pytest.warns(UserWarning, match="Received a 3-D input to dropout3d"):
        assert tuple(F.dropout3d(gs.ones(2, 3, 4), 0.5, training=False).shape) == (2, 3, 4)
    with pytest.warns(UserWarning, match="Received a 1-D input to dropout3d"):
        assert tuple(nn.Dropout3d()(gs.ones(3)).shape) == (3,)


def test_channel_dropout_errors_as_torch():
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
        F.dropout1d(gs.ones(2, 3, 4, 5))
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"), \
            pytest.warns(UserWarning):
        F.dropout2d(gs.ones(3), 0.5)
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.dropout3d(gs.ones(1, 2, 2, 2, 2), 1.5)


def test_channel_dropout_in_place_and_unbatched_in_place():
    gs.manual_seed(3)
    x = gs.ones(6, 5)
    y = F.dropout1d(x, 0.5, inplace=True)
    assert y is x and tuple(x.shape) == (6, 5)
    assert _mask_groups(x.numpy().reshape(1, 6, 5), (1, 6, 5)) == {1}


def test_channel_dropout_gradient_uses_the_same_mask():
    gs.manual_seed(1)
    x = gs.ones(3, 4, 5, requires_grad=True)
    out = F.dropout1d(x, 0.5)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), out.detach().numpy())


@pytest.mark.parametrize("fn, shape", [(F.dropout1d, (2, 3, 4)), (F.dropout2d, (2, 3, 2, 2)),
                                       (F.dropout3d, (3, 2, 2, 2))])
def test_channel_dropout_gradcheck_and_gradgradcheck_under_a_fixed_seed(fn, shape):
    def f(T, x):
        T.manual_seed(7)   # the same mask at every evaluation
        return fn(x, 0.4)
    check_gradients(f, [shape])


def test_dropout_modules_are_the_identity_in_eval():
    for layer, x in ((nn.Dropout1d(), gs.ones(2, 3)), (nn.Dropout2d(), gs.ones(2, 3, 4, 4)),
                     (nn.Dropout3d(), gs.ones(2, 3, 4, 4))):
        assert layer.eval()(x) is x
    assert repr(nn.Dropout3d(0.2)) == "Dropout3d(p=0.2, inplace=False)"


def test_dropout2d_of_a_1d_input_only_fails_when_it_would_drop(recwarn):
    assert tuple(F.dropout2d(gs.ones(3), 0.5, training=False).shape) == (3,)
    assert tuple(F.dropout2d(gs.ones(3), 0.0).shape) == (3,)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        F.dropout2d(gs.ones(3), 0.5)
