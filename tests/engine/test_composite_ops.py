"""diff, nansum, nanmean, block_diag, cartesian_prod, triu/tril_indices, bincount, cummax/cummin and
F.gumbel_softmax:
compositions of the engine's ops (engine/ops/composite.py), checked by gradcheck and against PyTorch."""
import numpy as np
import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch")


def _with_nans(T, x):
    return T.where(x > 0.8, float("nan"), x)


CASES = {
    "diff": (lambda T, x: T.diff(x), [(3, 5)]),
    "diff_n2_dim0": (lambda T, x: T.diff(x, n=2, dim=0), [(4, 3)]),
    "diff_prepend_append": (lambda T, x, p, a: T.diff(x, dim=1, prepend=p, append=a), [(2, 4), (2, 1), (2, 2)]),
    "diff_method_n_past_size": (lambda T, x: x.diff(n=5), [(2, 3)]),
    "nansum": (lambda T, x: T.nansum(_with_nans(T, x)), [(3, 4)]),
    "nansum_dim_keepdim": (lambda T, x: T.nansum(_with_nans(T, x), 1, keepdim=True), [(3, 4)]),
    "nanmean": (lambda T, x: T.nanmean(_with_nans(T, x)), [(3, 4)]),
    "nanmean_dim": (lambda T, x: _with_nans(T, x).nanmean(dim=0), [(5, 3)]),
    "block_diag": (lambda T, a, b, c: T.block_diag(a, b, c), [(2, 3), (4,), ()]),
    "cartesian_prod": (lambda T, a, b: T.cartesian_prod(a, b), [(3,), (2,)]),
    "cartesian_prod_three": (lambda T, a, b, c: T.cartesian_prod(a, b, c) * 2, [(2,), (2,), (3,)]),
    "cummax": (lambda T, x: T.cummax(x, 1).values, [(3, 5)]),
    "cummin_dim0_method": (lambda T, x: x.cummin(0)[0], [(4, 3)]),
    "sinc": (lambda T, x: T.sinc(x * 3), [(3, 4)]),
    "logaddexp2": (lambda T, a, b: T.logaddexp2(a, b * 3), [(3, 4), (3, 4)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_composite_ops_pass_gradcheck_and_gradgradcheck(name):
    check_gradients(*CASES[name])


@needs_torch
@pytest.mark.parametrize("name", list(CASES))
def test_composite_ops_match_torch(name):
    compare_with_torch(*CASES[name])


@needs_torch
def test_index_and_counting_helpers_match_torch():
    for lib_call in (lambda T: T.triu_indices(3, 4, 1), lambda T: T.tril_indices(4, 3, -1), lambda T: T.triu_indices(0, 3),
                     lambda T: T.tril_indices(3, 3, 5), lambda T: T.bincount(T.tensor([0, 2, 2, 5])),
                     lambda T: T.bincount(T.tensor([1, 1]), minlength=4),
                     lambda T: T.bincount(T.tensor([0, 2, 2]), weights=T.tensor([0.5, 1.0, 2.0])),
                     lambda T: T.bincount(T.tensor([0, 2]), weights=T.tensor([1.0, 2.0], dtype=T.float64)),
                     lambda T: T.bincount(T.tensor([], dtype=T.int64)),
                     lambda T: T.diff(T.tensor([True, False, False])),
                     lambda T: T.block_diag(T.ones(2, 2, dtype=T.int64), T.tensor([1.5])),
                     lambda T: T.cartesian_prod(T.tensor([1, 2])),
                     lambda T: T.cummax(T.tensor([1.0, 3.0, 3.0, 2.0, 5.0, 5.0]), 0).indices,
                     lambda T: T.cummax(T.tensor([1.0, float("nan"), 3.0, float("nan"), 2.0]), 0).indices,
                     lambda T: T.cummin(T.tensor([[3, 1, 1], [0, 2, 0]]), 1).indices,
                     lambda T: T.cummin(T.tensor([[3, 1, 1], [0, 2, 0]]), 1).values,
                     lambda T: T.cummax(T.tensor([True, False, True]), 0).indices):
        want, got = lib_call(torch), lib_call(gs)
        assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@needs_torch
@pytest.mark.parametrize("call", [
    lambda T: T.bincount(T.tensor([-1, 2])), lambda T: T.bincount(T.tensor([[1]])),
    lambda T: T.diff(T.tensor(1.0)), lambda T: T.block_diag(T.ones(1, 1, 1)), lambda T: T.cartesian_prod(T.ones(2, 2)),
    lambda T: T.nanmean(T.tensor([1, 2]))])
def test_their_errors_are_pytorchs(call):
    with pytest.raises(RuntimeError) as want:
        call(torch)
    with pytest.raises(RuntimeError) as got:
        call(gs)
    assert str(got.value).split("\n")[0][:40] == str(want.value).split("\n")[0][:40]


@needs_torch
def test_bincount_of_floats_is_not_implemented_as_in_pytorch():
    with pytest.raises(NotImplementedError) as want:
        torch.bincount(torch.tensor([1.0]))
    with pytest.raises(NotImplementedError) as got:
        gs.bincount(gs.tensor([1.0]))
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_samples_and_passes_the_soft_gradient_straight_through(hard):
    gs.manual_seed(0)
    logits = gs.randn(6, 5, requires_grad=True)
    y = gs.nn.functional.gumbel_softmax(logits, tau=0.7, hard=hard)
    np.testing.assert_allclose(y.sum(-1).detach().numpy(), np.ones(6), rtol=1e-6)
    if hard:
        assert set(np.unique(y.detach().numpy())) <= {0.0, 1.0}
    weights = gs.arange(5.0)
    (y * weights).sum().backward()
    # hard: y_hard - y_soft.detach() + y_soft, so the gradient is the soft sample's
    assert logits.grad is not None and np.abs(logits.grad.numpy()).sum() > 0
    np.testing.assert_allclose(logits.grad.numpy().sum(-1), np.zeros(6), atol=1e-5)   # a softmax's gradient


def test_gumbel_softmax_draws_like_a_gumbel_distribution():
    """With tau -> 0 the sample is the argmax of logits + Gumbel noise: category k wins with probability
    softmax(logits)[k] (the Gumbel-max trick)."""
    gs.manual_seed(1)
    logits = gs.tensor([[1.0, 0.0, -1.0]]).expand(20_000, 3)
    wins = gs.nn.functional.gumbel_softmax(logits, tau=1e-3, hard=True).sum(0).numpy() / 20_000
    np.testing.assert_allclose(wins, np.exp([1.0, 0.0, -1.0]) / np.exp([1.0, 0.0, -1.0]).sum(), atol=0.015)


@needs_torch
def test_sinc_at_zero_and_the_integers_is_pytorchs_value_and_gradient():
    for T in (torch, gs):
        x = T.tensor([0.0, 1.0, -2.0, 0.5], dtype=T.float64, requires_grad=True)
        y = T.sinc(x)
        y.sum().backward()
        if T is torch:
            want = (y.detach().numpy(), x.grad.numpy())
        else:
            np.testing.assert_allclose(y.detach().numpy(), want[0], atol=1e-15)
            np.testing.assert_allclose(x.grad.numpy(), want[1], atol=1e-15)



INDEX_COPY = {
    "index_copy_rows": (lambda T, x, s: x.index_copy(0, T.tensor([2, 0]), s), [(3, 4), (2, 4)]),
    "index_copy_cols_function": (lambda T, x, s: T.index_copy(x, 1, T.tensor([1]), s), [(2, 3), (2, 1)]),
}


@pytest.mark.parametrize("name", list(INDEX_COPY))
def test_index_copy_passes_gradcheck_and_gradgradcheck(name):
    check_gradients(*INDEX_COPY[name])


@needs_torch
@pytest.mark.parametrize("name", list(INDEX_COPY))
def test_index_copy_matches_torch(name):
    compare_with_torch(*INDEX_COPY[name])


@needs_torch
def test_index_copy_errors_and_in_place_form_match_torch():
    def trace(T):
        x, s = T.zeros(3, 4), T.ones(2, 4)
        out = []
        for bad in (lambda: x.index_copy(0, T.tensor([[0]]), s), lambda: x.index_copy(0, T.tensor([0.0, 1.0]), s),
                    lambda: x.index_copy(0, T.tensor([0, 1]), T.ones(2, 3)), lambda: x.index_copy(0, T.tensor([0, 5]), s),
                    lambda: x.index_copy(0, T.tensor([0]), s)):
            try:
                bad()
                out.append(None)
            except (IndexError, RuntimeError) as e:
                out.append((type(e).__name__, str(e)))
        z = T.zeros(2, 3)
        same = z.index_copy_(1, T.tensor([1]), T.ones(2, 1)) is z
        return out, z.tolist(), same
    assert trace(gs) == trace(torch)


def test_bfloat16_can_be_named_but_holds_no_tensors():
    assert gs.bfloat16 in (gs.float16, gs.bfloat16) and gs.bfloat16.is_floating_point and repr(gs.bfloat16) == "torch.bfloat16"
    assert gs.cuda.is_bf16_supported() is False
    for make in (lambda: gs.zeros(2, dtype=gs.bfloat16), lambda: gs.ones(2).to(gs.bfloat16),
                 lambda: gs.tensor([1.0], dtype=gs.bfloat16),
                 # Muon's Newton-Schulz iteration starts with X = G.bfloat16(); models call .bfloat16() too
                 lambda: gs.ones(2).bfloat16(), lambda: gs.nn.Linear(2, 2).bfloat16()):
        with pytest.raises(TypeError, match="torch.bfloat16 is not supported by this engine"):
            make()


LOGCUMSUMEXP = {
    "logcumsumexp": (lambda T, x: T.logcumsumexp(x * 3, 1), [(3, 5)]),
    "logcumsumexp_dim0_method": (lambda T, x: (x * 10).logcumsumexp(dim=0), [(4, 2)]),
}


@pytest.mark.parametrize("name", list(LOGCUMSUMEXP))
def test_logcumsumexp_passes_gradcheck_and_gradgradcheck(name):
    check_gradients(*LOGCUMSUMEXP[name])


@needs_torch
@pytest.mark.parametrize("name", list(LOGCUMSUMEXP))
def test_logcumsumexp_matches_torch(name):
    compare_with_torch(*LOGCUMSUMEXP[name])


@needs_torch
def test_logcumsumexp_edges_match_torch():
    def trace(T):
        x = T.tensor([[0.0, 1.0, -2.0], [float("-inf"), 3.0, float("inf")]], dtype=T.float64, requires_grad=True)
        y = T.logcumsumexp(x, 1)
        y.sum().backward()
        try:
            T.logcumsumexp(T.tensor([1, 2]), 0)
            err = None
        except NotImplementedError as e:
            err = str(e)
        big = T.logcumsumexp(T.tensor([1000.0, 1000.0, -1000.0], dtype=T.float64), 0)
        return (y.tolist(), y.grad_fn.name(), x.grad.tolist(), err, T.logcumsumexp(T.tensor(2.0), 0).tolist(),
                big.tolist())
    ours, theirs = trace(gs), trace(torch)
    assert ours[1] == theirs[1] and ours[3] == theirs[3] and ours[4] == theirs[4]
    for a, b in ((ours[0], theirs[0]), (ours[2], theirs[2]), (ours[5], theirs[5])):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, equal_nan=True)


# torch._utils' flatten/unflatten (engine/_utils.py): improved-diffusion's fp16 master weights
def _flatten_round_trip(T, a, b):
    from gradserve.engine import _utils as ours
    if T is not gs:
        import torch._utils as ours
    flat = ours._flatten_dense_tensors([a, b])
    parts = ours._unflatten_dense_tensors(flat * 2, [a, b])
    return flat, parts[0].sin(), parts[1]


def test_flatten_dense_tensors_pass_gradcheck_and_gradgradcheck():
    check_gradients(_flatten_round_trip, [(2, 3), (4,)])


@needs_torch
def test_flatten_dense_tensors_match_torch():
    compare_with_torch(_flatten_round_trip, [(2, 3), (4,)])
