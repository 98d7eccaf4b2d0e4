"""The margin, embedding and likelihood losses (engine/nn/extra_losses.py): gradcheck and
gradgradcheck in float64, values and gradients against PyTorch for every reduction and option,
the gradient at the kinks, the layers' reprs and arguments, and PyTorch's errors."""
import numpy as np
import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch


def _f(T):
    return T.nn.functional


def _signs(T, n=4):
    return T.tensor([1.0, -1.0, -1.0, 1.0, 1.0, -1.0][:n], dtype=T.float64)


def _signs2(T):
    return T.tensor([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0], [1.0, 1.0, -1.0], [-1.0, 1.0, 1.0]], dtype=T.float64)


def _labels01(T):
    return T.tensor([[1.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0, 1.0],
                     [0.0, 1.0, 0.0, 1.0, 1.0]], dtype=T.float64)


def _counts(T):
    return T.tensor([[0.0, 1.0, 3.0], [2.0, 5.0, 0.0], [1.0, 4.0, 7.0], [0.0, 2.0, 1.0]], dtype=T.float64)


def _classes(T):
    return T.tensor([0, 2, 4, 1])


def _weights5(T):
    return T.tensor([1.0, 0.5, 2.0, 1.5, 3.0], dtype=T.float64)


CASES = {
    "margin_ranking_loss": (lambda T, a, b: _f(T).margin_ranking_loss(a, b, _signs(T)), [(4,), (4,)]),
    "margin_ranking_loss_margin_sum": (lambda T, a, b: _f(T).margin_ranking_loss(a, b, _signs(T), margin=0.5,
                                                                                 reduction="sum"), [(4,), (4,)]),
    "margin_ranking_loss_none": (lambda T, a, b: _f(T).margin_ranking_loss(a, b, _signs(T), 0.3, reduction="none"),
                                 [(4,), (4,)]),
    "hinge_embedding_loss": (lambda T, x: _f(T).hinge_embedding_loss(x, _signs2(T)), [(4, 3)]),
    "hinge_embedding_loss_margin_none": (lambda T, x: _f(T).hinge_embedding_loss(x * 2, _signs2(T), margin=2.0,
                                                                                 reduction="none"), [(4, 3)]),
    "soft_margin_loss": (lambda T, x: _f(T).soft_margin_loss(x, _signs2(T)), [(4, 3)]),
    "soft_margin_loss_sum": (lambda T, x: _f(T).soft_margin_loss(x * 3, _signs2(T), reduction="sum"), [(4, 3)]),
    "multilabel_soft_margin_loss": (lambda T, x: _f(T).multilabel_soft_margin_loss(x, _labels01(T)), [(4, 5)]),
    "multilabel_soft_margin_loss_weight_none": (lambda T, x: _f(T).multilabel_soft_margin_loss(
        x, _labels01(T), weight=_weights5(T), reduction="none"), [(4, 5)]),
    "cosine_embedding_loss": (lambda T, a, b: _f(T).cosine_embedding_loss(a, b, _signs(T)), [(4, 5), (4, 5)]),
    "cosine_embedding_loss_margin_none": (lambda T, a, b: _f(T).cosine_embedding_loss(
        a, b, _signs(T), margin=-0.2, reduction="none"), [(4, 5), (4, 5)]),
    "cosine_embedding_loss_unbatched": (lambda T, a, b: _f(T).cosine_embedding_loss(
        a, b, T.tensor(-1.0, dtype=T.float64), margin=-0.9), [(5,), (5,)]),
    "multi_margin_loss": (lambda T, x: _f(T).multi_margin_loss(x, _classes(T)), [(4, 5)]),
    "multi_margin_loss_p2_margin_weight": (lambda T, x: _f(T).multi_margin_loss(
        x, _classes(T), p=2, margin=0.7, weight=_weights5(T)), [(4, 5)]),
    "multi_margin_loss_none": (lambda T, x: _f(T).multi_margin_loss(x, _classes(T), reduction="none"), [(4, 5)]),
    "multi_margin_loss_unbatched": (lambda T, x: _f(T).multi_margin_loss(x, T.tensor(2), reduction="none"), [(5,)]),
    "multi_margin_loss_vector_target_sum": (lambda T, x: _f(T).multi_margin_loss(x, T.tensor([3]), reduction="sum"),
                                            [(5,)]),
    "triplet_margin_loss": (lambda T, a, p, n: _f(T).triplet_margin_loss(a, p, n), [(4, 5), (4, 5), (4, 5)]),
    "triplet_margin_loss_p1_swap_none": (lambda T, a, p, n: _f(T).triplet_margin_loss(
        a, p, n, margin=2.0, p=1, swap=True, reduction="none"), [(4, 5), (4, 5), (4, 5)]),
    "triplet_margin_loss_unbatched_sum": (lambda T, a, p, n: _f(T).triplet_margin_loss(a, p, n, reduction="sum"),
                                          [(5,), (5,), (5,)]),
    "triplet_margin_with_distance_loss": (lambda T, a, p, n: _f(T).triplet_margin_with_distance_loss(
        a, p, n, distance_function=lambda x, y: 1.0 - _f(T).cosine_similarity(x, y), margin=0.5, swap=True),
        [(4, 5), (4, 5), (4, 5)]),
    "triplet_margin_with_distance_loss_default": (lambda T, a, p, n: T.nn.TripletMarginWithDistanceLoss(
        reduction="sum")(a, p, n), [(4, 5), (4, 5), (4, 5)]),
    "poisson_nll_loss": (lambda T, x: _f(T).poisson_nll_loss(x, _counts(T)), [(4, 3)]),
    "poisson_nll_loss_full_sum": (lambda T, x: _f(T).poisson_nll_loss(x, _counts(T), full=True, reduction="sum"),
                                  [(4, 3)]),
    "poisson_nll_loss_rates_none": (lambda T, x: _f(T).poisson_nll_loss(T.exp(x), _counts(T), log_input=False,
                                                                        reduction="none"), [(4, 3)]),
    "poisson_nll_loss_target_grad": (lambda T, x, y: _f(T).poisson_nll_loss(x, T.exp(y)), [(4, 3), (4, 3)]),
    "gaussian_nll_loss": (lambda T, x, y, v: _f(T).gaussian_nll_loss(x, y, T.exp(v)), [(4, 3), (4, 3), (4, 3)]),
    "gaussian_nll_loss_homoscedastic_full_sum": (lambda T, x, y, v: _f(T).gaussian_nll_loss(
        x, y, T.exp(v), full=True, reduction="sum"), [(4, 3), (4, 3), (4,)]),
    "gaussian_nll_loss_broadcast_var_none": (lambda T, x, y, v: _f(T).gaussian_nll_loss(
        x, y, T.exp(v), reduction="none"), [(2, 3, 4), (2, 3, 4), (2, 1, 4)]),
    "gaussian_nll_loss_var_clamped": (lambda T, x, y, v: _f(T).gaussian_nll_loss(x, y, v * v * 1e-3, eps=1e-3),
                                      [(4, 3), (4, 3), (4, 3)]),
}

# the clamp of var is not differentiated by PyTorch (an in-place clamp under no_grad), so
# only the comparison with PyTorch applies where it bites
NOT_THE_DERIVATIVE = {"gaussian_nll_loss_var_clamped"}


@pytest.mark.parametrize("name", [n for n in CASES if n not in NOT_THE_DERIVATIVE])
def test_gradcheck_and_gradgradcheck(name):
    fn, shapes = CASES[name]
    check_gradients(fn, shapes)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name):
    fn, shapes = CASES[name]
    compare_with_torch(fn, shapes)


def test_gaussian_nll_loss_takes_a_float_var():
    x, y = gs.zeros(3), gs.tensor([1.0, 2.0, 0.0])
    assert gs.nn.functional.gaussian_nll_loss(x, y, 2.0).item() == pytest.approx(0.5 * (np.log(2) + 5 / 3 / 2))


KINKS = {
    # each loss at exactly its hinge: PyTorch's clamp_min passes the gradient, multi_margin's z > 0 does not
    "margin_ranking_loss": (lambda F, T, x: F.margin_ranking_loss(x, x.detach() * 0 + 0.5, T.tensor([1.0, -1.0]),
                                                                  margin=0.5, reduction="sum"), [1.0, 0.0]),
    "hinge_embedding_loss": (lambda F, T, x: F.hinge_embedding_loss(x, T.tensor([-1.0, -1.0]), reduction="sum"),
                             [1.0, 0.5]),
    "multi_margin_loss": (lambda F, T, x: F.multi_margin_loss(x.reshape(1, 3), T.tensor([0])), [1.0, 0.0, -1.0]),
    "triplet_margin_loss": (lambda F, T, x: F.triplet_margin_loss(
        x.reshape(1, 2), T.tensor([[0.0, 0.0]], dtype=T.float64), T.tensor([[3.0, 4.0]], dtype=T.float64),
        margin=5.0), [0.0, 0.0]),
}


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(KINKS))
def test_gradient_at_kinks_is_pytorchs_choice(name):
    fn, points = KINKS[name]
    grads = []
    for T in (gs, torch):
        x = T.tensor(points, dtype=T.float64, requires_grad=True)
        fn(T.nn.functional, T, x).backward()
        grads.append(x.grad.tolist())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-9, atol=1e-12)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_layers_match_torch_with_their_options():
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal((4, 5)) for _ in range(3))
    for make, args in [
        (lambda T: T.nn.MarginRankingLoss(margin=0.2), lambda T: (T.tensor(a[:, 0]), T.tensor(b[:, 0]), _signs(T))),
        (lambda T: T.nn.HingeEmbeddingLoss(margin=0.5, reduction="sum"), lambda T: (T.tensor(a[:, :3]), _signs2(T))),
        (lambda T: T.nn.SoftMarginLoss(reduction="none"), lambda T: (T.tensor(a[:, :3]), _signs2(T))),
        (lambda T: T.nn.MultiLabelSoftMarginLoss(weight=_weights5(T)), lambda T: (T.tensor(a), _labels01(T))),
        (lambda T: T.nn.CosineEmbeddingLoss(margin=0.1), lambda T: (T.tensor(a), T.tensor(b), _signs(T))),
        (lambda T: T.nn.MultiMarginLoss(p=2, margin=0.5, weight=_weights5(T)), lambda T: (T.tensor(a), _classes(T))),
        (lambda T: T.nn.TripletMarginLoss(margin=0.5, p=3.0, swap=True), lambda T: (T.tensor(a), T.tensor(b),
                                                                                   T.tensor(c))),
        (lambda T: T.nn.TripletMarginWithDistanceLoss(margin=2.0), lambda T: (T.tensor(a), T.tensor(b), T.tensor(c))),
        (lambda T: T.nn.PoissonNLLLoss(log_input=False, full=True, eps=1e-3),
         lambda T: (T.tensor(np.abs(a[:, :3])), _counts(T))),
        (lambda T: T.nn.GaussianNLLLoss(full=True, eps=1e-2), lambda T: (T.tensor(a), T.tensor(b),
                                                                       T.tensor(np.abs(c)))),
    ]:
        ours, theirs = make(gs)(*args(gs)), make(torch)(*args(torch))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, err_msg=repr(make(torch)))


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_reprs_and_buffers_match_torch():
    def build(T):
        nn = T.nn
        return nn.Sequential(nn.MarginRankingLoss(), nn.HingeEmbeddingLoss(), nn.SoftMarginLoss(),
                             nn.MultiLabelSoftMarginLoss(weight=T.ones(3)), nn.CosineEmbeddingLoss(),
                             nn.MultiMarginLoss(weight=T.ones(3)), nn.TripletMarginLoss(),
                             nn.TripletMarginWithDistanceLoss(), nn.PoissonNLLLoss(), nn.GaussianNLLLoss())
    assert repr(build(gs)) == repr(build(torch))
    assert list(build(gs).state_dict()) == list(build(torch).state_dict())


def test_legacy_size_average_and_reduce_arguments_pick_the_reduction():
    x, y = gs.tensor([0.5, -1.0, 2.0]), gs.tensor([1.0, -1.0, 1.0])
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        total = gs.nn.SoftMarginLoss(size_average=False)(x, y)
    assert total.item() == pytest.approx(gs.nn.functional.soft_margin_loss(x, y, reduction="sum").item())


ERRORS = [
    (lambda F: F.margin_ranking_loss(gs.zeros(3), gs.zeros(3, 1), gs.zeros(3)), RuntimeError,
     r"margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: torch.Size\(\[3\]\), "
     r"input2: torch.Size\(\[3, 1\]\), target: torch.Size\(\[3\]\) "),
    (lambda F: F.cosine_embedding_loss(gs.zeros(3), gs.zeros(3), gs.zeros(3)), RuntimeError,
     r"1D target tensor expects 2D input tensors, but found inputs with sizes \[3\] and \[3\]."),
    (lambda F: F.cosine_embedding_loss(gs.zeros(2, 3), gs.zeros(2, 3), gs.zeros(2, 3)), RuntimeError,
     "0D or 1D target tensor expected, multi-target not supported"),
    (lambda F: F.multi_margin_loss(gs.zeros(2, 3), gs.tensor([0, 1]), p=3), ValueError,
     "only p == 1 and p == 2 supported"),
    (lambda F: F.multi_margin_loss(gs.zeros(2, 3), gs.tensor([0, 3])), RuntimeError, "target out of range"),
    (lambda F: F.multi_margin_loss(gs.zeros(2, 3), gs.tensor([0, 1, 2])), RuntimeError,
     r"inconsistent target size, expected 2 but got \[3\]"),
    (lambda F: F.multi_margin_loss(gs.zeros(2, 3), gs.tensor([0, 1]), weight=gs.ones(1, 3)), ValueError,
     "weight must be one-dimensional"),
    (lambda F: gs.nn.MultiMarginLoss(weight=gs.ones(1, 3)), ValueError,
     "MultiMarginLoss: expected weight to be None or 1D tensor, got 2D instead"),
    (lambda F: F.triplet_margin_loss(gs.zeros(2, 3), gs.zeros(2, 3), gs.zeros(3)), RuntimeError,
     "expected to have the same number of dimensions, but got: anchor 2D, positive 2D, and negative 1D inputs"),
    (lambda F: F.triplet_margin_loss(gs.zeros(2, 3), gs.zeros(2, 3), gs.zeros(2, 3), margin=0), ValueError,
     "margin must be greater than 0, got 0"),
    (lambda F: gs.nn.TripletMarginLoss(margin=-1.0), ValueError,
     "TripletMarginLoss: expected margin to be greater than 0, got -1.0 instead"),
    (lambda F: F.gaussian_nll_loss(gs.zeros(2, 3), gs.zeros(2, 3), gs.ones(3, 2)), ValueError,
     "var is of incorrect size"),
    (lambda F: F.gaussian_nll_loss(gs.zeros(2, 3), gs.zeros(2, 3), -gs.ones(2, 3)), ValueError,
     r"var has negative entry/entries"),
    (lambda F: F.gaussian_nll_loss(gs.zeros(2, 3), gs.zeros(2, 3), gs.ones(2, 3), reduction="avg"), ValueError,
     "avg is not valid"),
    (lambda F: F.poisson_nll_loss(gs.zeros(3), gs.zeros(3), reduction="avg"), ValueError,
     "avg is not a valid value for reduction"),
    (lambda F: F.multilabel_soft_margin_loss(gs.zeros(2, 3), gs.zeros(2, 3), reduction="avg"), ValueError,
     "avg is not valid"),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_bad_arguments_raise_pytorchs_errors(k):
    call, error, message = ERRORS[k]
    with pytest.raises(error, match=message):
        call(gs.nn.functional)
