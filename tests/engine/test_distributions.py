"""torch.distributions: Categorical and Normal (rasbt/machine-learning-book ch15 part 3 samples text
with Categorical(logits=...)): log_prob, entropy, probs/logits and reparameterised samples by
finite differences in float64 and against PyTorch where it is installed; sample shapes and dtypes;
PyTorch's argument errors."""
import numpy as np
import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch

CASES = {
    "categorical_logits_log_prob": (lambda T, lo: T.distributions.Categorical(logits=lo).log_prob(T.tensor([2, 0, 1])),
                                    [(3, 4)]),
    "categorical_logits_entropy": (lambda T, lo: T.distributions.Categorical(logits=lo).entropy(), [(2, 5)]),
    "categorical_logits_probs": (lambda T, lo: T.distributions.Categorical(logits=lo).probs, [(2, 3)]),
    "categorical_probs_log_prob": (lambda T, p: T.distributions.Categorical(probs=p.exp()).log_prob(T.tensor(1)),
                                   [(4,)]),
    "categorical_probs_logits_entropy": (lambda T, p: (T.distributions.Categorical(probs=p.sigmoid()).logits,
                                                       T.distributions.Categorical(probs=p.sigmoid()).entropy()),
                                         [(2, 3)]),
    "categorical_broadcast_value": (lambda T, lo: T.distributions.Categorical(logits=lo).log_prob(
        T.tensor([[0], [3]])), [(3, 4)]),
    "normal_log_prob": (lambda T, m, s, v: T.distributions.Normal(m, s.exp()).log_prob(v), [(3,), (3,), (3,)]),
    "normal_entropy_cdf": (lambda T, m, s: (T.distributions.Normal(m, s.exp()).entropy(),
                                            T.distributions.Normal(m, s.exp()).cdf(T.tensor(0.3, dtype=T.float64))),
                           [(2, 2), (2, 2)]),
    "normal_broadcast_number": (lambda T, m: T.distributions.Normal(m, 2.0).log_prob(T.tensor(0.5, dtype=T.float64)),
                                [(4,)]),
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


def test_categorical_sample_shapes_dtypes_and_frequencies():
    gs.manual_seed(0)
    c = gs.distributions.Categorical(logits=gs.tensor([[0.0, 0.0, 3.0], [5.0, 0.0, 0.0]]))
    assert c.batch_shape == (2,) and c.event_shape == () and c.param_shape == (2, 3)
    assert c.sample().shape == (2,) and c.sample().dtype == gs.int64
    draws = c.sample((4000,))
    assert draws.shape == (4000, 2)
    freq = (draws[:, 0] == 2).float().mean().item()
    assert abs(freq - np.exp(3) / (2 + np.exp(3))) < 0.03
    assert (draws[:, 1] == 0).float().mean().item() > 0.97
    assert gs.distributions.Categorical(probs=gs.tensor([0.2, 0.8])).sample((2, 3)).shape == (2, 3)
    assert c.mode.tolist() == [2, 0] and c.enumerate_support().shape == (3, 2)
    assert not c.sample((5,)).requires_grad


def test_normal_rsample_is_differentiable_and_sample_is_not():
    gs.manual_seed(0)
    loc = gs.tensor([0.0, 10.0], requires_grad=True)
    scale = gs.tensor([1.0, 0.1], requires_grad=True)
    n = gs.distributions.Normal(loc, scale)
    x = n.rsample((5000,))
    assert x.shape == (5000, 2) and x.requires_grad and not n.sample((3,)).requires_grad
    x.sum().backward()
    assert loc.grad.tolist() == [5000.0, 5000.0]
    assert abs(x[:, 1].mean().item() - 10.0) < 0.01 and abs(x[:, 0].std().item() - 1.0) < 0.05
    assert gs.distributions.Normal(0.0, 1.0).sample().shape == ()
    assert n.mean is n.loc and n.stddev is n.scale and n.variance.tolist() == pytest.approx([1.0, 0.01])


@pytest.mark.parametrize("make, fragment", [
    (lambda T: T.distributions.Categorical(probs=T.tensor([0.5]), logits=T.tensor([0.0])), "but not both"),
    (lambda T: T.distributions.Categorical(), "but not both"),
    (lambda T: T.distributions.Categorical(logits=T.tensor(1.0)), "at least one-dimensional"),
    (lambda T: T.distributions.Categorical(probs=T.tensor([-0.5, 1.0])), "Simplex"),
    (lambda T: T.distributions.Categorical(logits=T.tensor([0.0, 1.0])).log_prob(T.tensor(2)), "support"),
    (lambda T: T.distributions.Categorical(logits=T.tensor([[0.0, 1.0]] * 2)).log_prob(T.tensor([0, 1, 1])),
     "broadcastable"),
    (lambda T: T.distributions.Normal(T.tensor([0.0]), T.tensor([0.0])), "GreaterThan"),
])
def test_argument_errors_are_pytorchs(make, fragment):
    for T in (gs, torch) if torch is not None else (gs,):   # PyTorch raises the same class with the same words
        with pytest.raises(ValueError, match=fragment):
            make(T)


# ------------------------------------------------------------------ kl_divergence (Kaixhin/PlaNet's KL loss)
def _kl(T):
    return T.distributions.kl_divergence


def _mvn(T, loc, a):
    # a positive-definite covariance from a free matrix: A A^T + I
    return T.distributions.MultivariateNormal(loc, covariance_matrix=a @ a.transpose(-1, -2) + T.eye(3, dtype=T.float64))


KL_CASES = {
    "normal_normal": (lambda T, m1, s1, m2, s2: _kl(T)(T.distributions.Normal(m1, s1.exp()),
                                                       T.distributions.Normal(m2, s2.exp())),
                      [(2, 3), (2, 3), (2, 3), (2, 3)]),
    "normal_normal_broadcast_prior": (lambda T, m1, s1: T.distributions.kl.kl_divergence(
        T.distributions.Normal(m1, s1.exp()), T.distributions.Normal(T.zeros(4, 3, dtype=T.float64),
                                                                     T.ones(4, 3, dtype=T.float64))),
                                      [(4, 3), (4, 3)]),
    "categorical_categorical": (lambda T, a, b: _kl(T)(T.distributions.Categorical(logits=a),
                                                       T.distributions.Categorical(logits=b)), [(2, 5), (2, 5)]),
    "mvn_mvn": (lambda T, m1, a1, m2, a2: _kl(T)(_mvn(T, m1, a1), _mvn(T, m2, a2)), [(3,), (3, 3), (2, 3), (3, 3)]),
}


@pytest.mark.parametrize("name", list(KL_CASES))
def test_kl_divergence_gradcheck(name):
    fn, shapes = KL_CASES[name]
    check_gradients(fn, shapes, second_order=False)


@pytest.mark.parametrize("name", list(KL_CASES))
@pytest.mark.skipif(torch is None, reason="compares with PyTorch")
def test_kl_divergence_matches_torch(name):
    fn, shapes = KL_CASES[name]
    compare_with_torch(fn, shapes, rtol=1e-10, atol=1e-12)


def test_kl_divergence_of_a_zero_probability_and_of_unknown_pairs():
    p = gs.distributions.Categorical(probs=gs.tensor([0.5, 0.5, 0.0]))
    q = gs.distributions.Categorical(probs=gs.tensor([0.5, 0.0, 0.5]))
    assert _kl(gs)(q, p).item() == float("inf") and _kl(gs)(p, p).item() == 0.0
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Normal and "
                                                  "q type Categorical"):
        _kl(gs)(gs.distributions.Normal(0.0, 1.0), p)
