"""TransformedDistribution, LogNormal, MixtureSameFamily and the transforms (engine/distributions):
log_prob, moments and samples' shapes against PyTorch and by gradcheck, the transforms' inverses
and cache, PyTorch's errors, and their reach from programs."""
import math

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.autograd import gradcheck, gradgradcheck
from gradserve.engine.program import Namespace, run
from op_check import torch

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch")


def _f64(T, values, grad=True):
    return T.tensor(values, dtype=T.float64, requires_grad=grad)


# each: (params, build(T, *params), value in the support)
CASES = {
    "tanh_normal": ([[0.1, -0.4, 1.2], [0.5, 1.0, 2.0]],
                    lambda T, m, s: T.distributions.TransformedDistribution(
                        T.distributions.Normal(m, s), [T.distributions.transforms.TanhTransform()]),
                    [0.3, -0.9, 0.99]),
    "affine_sigmoid": ([[0.1, -0.4], [0.5, 1.0], [2.0, -3.0]],
                       lambda T, m, s, a: T.distributions.TransformedDistribution(
                           T.distributions.Normal(m, s),
                           [T.distributions.AffineTransform(0.5, a), T.distributions.SigmoidTransform()]),
                       [0.3, 0.8]),
    "exp_power_softplus": ([[0.2, 0.7], [0.6, 0.9]],
                           lambda T, m, s: T.distributions.TransformedDistribution(
                               T.distributions.Normal(m, s),
                               [T.distributions.SoftplusTransform(), T.distributions.PowerTransform(2.0),
                                T.distributions.ExpTransform()]),
                           [2.5, 1.3]),
    "affine_event_dim": ([[[0.1, -0.2], [0.3, 0.0]], [[1.0, 2.0], [0.5, 1.5]], [[2.0, -0.5], [1.5, 3.0]]],
                         lambda T, m, s, a: T.distributions.TransformedDistribution(
                             T.distributions.Normal(m, s), T.distributions.AffineTransform(1.0, a, event_dim=1)),
                         [[0.0, 1.0], [-1.0, 0.5]]),
    "compose": ([[0.1, -0.4], [0.5, 1.0]],
                lambda T, m, s: T.distributions.TransformedDistribution(
                    T.distributions.Normal(m, s), T.distributions.ComposeTransform(
                        [T.distributions.AffineTransform(0.0, 2.0), T.distributions.TanhTransform()])),
                [0.3, -0.5]),
    "log_normal": ([[0.1, -0.4, 1.2], [0.5, 1.0, 2.0]],
                   lambda T, m, s: T.distributions.LogNormal(m, s), [0.3, 2.0, 7.5]),
    "mixture_normal": ([[[0.2, -1.0, 0.5], [1.0, 0.0, -0.5]], [[0.0, 1.0, -1.0], [2.0, 0.5, 0.0]],
                        [[1.0, 0.5, 2.0], [0.7, 1.2, 0.4]]],
                       lambda T, lg, m, s: T.distributions.MixtureSameFamily(
                           T.distributions.Categorical(logits=lg), T.distributions.Normal(m, s)),
                       [0.4, -0.3]),
    "mixture_independent": ([[0.3, -0.2], [[0.0, 1.0], [-1.0, 0.5]], [[1.0, 0.5], [0.8, 1.5]]],
                            lambda T, lg, m, s: T.distributions.MixtureSameFamily(
                                T.distributions.Categorical(logits=lg),
                                T.distributions.Independent(T.distributions.Normal(m, s), 1)),
                            [0.2, 0.7]),
}


def _terms(T, name):
    params, build, value = CASES[name]
    ps = [_f64(T, p) for p in params]
    return ps, build(T, *ps), T.tensor(value, dtype=T.float64)


@pytest.mark.parametrize("name", list(CASES))
def test_log_prob_passes_gradcheck_and_gradgradcheck(name):
    params, build, value = CASES[name]

    def f(*ps):
        return build(gs, *ps).log_prob(gs.tensor(value, dtype=gs.float64))
    inputs = [_f64(gs, p) for p in params]
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


@needs_torch
@pytest.mark.parametrize("name", list(CASES))
def test_log_prob_shapes_and_gradients_match_pytorch(name):
    out = {}
    for T in (gs, torch):
        ps, d, v = _terms(T, name)
        lp = d.log_prob(v)
        lp.sum().backward()
        out[T] = (tuple(d.batch_shape), tuple(d.event_shape), lp.detach().numpy(), [p.grad.numpy() for p in ps])
    (gb, ge, gv, gg), (tb, te, tv, tg) = out[gs], out[torch]
    assert (gb, ge) == (tb, te)
    np.testing.assert_allclose(gv, tv, rtol=1e-10, atol=1e-12)
    for a, b in zip(gg, tg):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("name", ["log_normal", "mixture_normal", "mixture_independent"])
def test_moments_match_pytorch(name):
    got, want = (_terms(T, name)[1] for T in (gs, torch))
    for attr in ("mean", "variance") + (("mode",) if name == "log_normal" else ()):
        np.testing.assert_allclose(getattr(got, attr).detach().numpy(), getattr(want, attr).detach().numpy(),
                                   rtol=1e-10)
    if name == "log_normal":
        np.testing.assert_allclose(got.entropy().detach().numpy(), want.entropy().detach().numpy(), rtol=1e-10)


@pytest.mark.parametrize("name", list(CASES))
def test_samples_have_the_distributions_shape_and_lie_in_its_support(name):
    _, d, _ = _terms(gs, name)
    s = d.sample((4,))
    assert tuple(s.shape) == (4,) + tuple(d.batch_shape) + tuple(d.event_shape)
    assert not s.requires_grad
    assert np.isfinite(d.log_prob(s).detach().numpy()).all()


def test_mixture_samples_follow_the_mixture():
    gs.manual_seed(0)
    d = gs.distributions.MixtureSameFamily(gs.distributions.Categorical(probs=gs.tensor([0.25, 0.75])),
                                           gs.distributions.Normal(gs.tensor([-10.0, 10.0]), gs.tensor([0.1, 0.1])))
    s = d.sample((4000,)).numpy()
    assert abs((s > 0).mean() - 0.75) < 0.03
    assert abs(s.mean() - float(d.mean)) < 0.5


def test_tanh_cache_gives_the_sample_back_where_atanh_would_be_infinite():
    """A squashed policy (SAC): log_prob of its own rsample uses the cached pre-tanh value."""
    base = gs.distributions.Normal(gs.tensor([30.0]), gs.tensor([1.0]))
    cached = gs.distributions.TransformedDistribution(base, [gs.distributions.TanhTransform(cache_size=1)])
    a = cached.rsample()
    assert float(a) == 1.0   # tanh(30) rounds to 1 in float32
    assert np.isfinite(float(cached.log_prob(a)))
    plain = gs.distributions.TransformedDistribution(base, [gs.distributions.TanhTransform()])
    with np.errstate(all="ignore"):   # as in a run: PyTorch computes the inf without a warning
        assert not np.isfinite(float(plain.log_prob(plain.rsample())))


@pytest.mark.parametrize("make", ["ExpTransform()", "SigmoidTransform()", "TanhTransform()", "SoftplusTransform()",
                                  "PowerTransform(3.0)", "AffineTransform(1.0, -2.0)"])
def test_each_transform_inverts_and_its_jacobian_matches_autograd(make):
    T = gs.distributions.transforms
    t = {"ExpTransform()": T.ExpTransform(), "SigmoidTransform()": T.SigmoidTransform(),
         "TanhTransform()": T.TanhTransform(), "SoftplusTransform()": T.SoftplusTransform(),
         "PowerTransform(3.0)": T.PowerTransform(3.0), "AffineTransform(1.0, -2.0)": T.AffineTransform(1.0, -2.0)}[make]
    x = gs.tensor([0.3, 0.9, 1.7], dtype=gs.float64, requires_grad=True)
    y = t(x)
    np.testing.assert_allclose(t.inv(y).detach().numpy(), x.detach().numpy(), rtol=1e-10)
    dy, = gs.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(t.log_abs_det_jacobian(x, y).detach().numpy(), np.log(np.abs(dy.numpy())),
                               rtol=1e-9)
    np.testing.assert_allclose(t.inv.log_abs_det_jacobian(y, x).detach().numpy(), -np.log(np.abs(dy.numpy())),
                               rtol=1e-9)


@needs_torch
def test_errors_are_pytorchs():
    for T in (gs, torch):
        with pytest.raises(ValueError, match="transforms must be a Transform or"):
            T.distributions.TransformedDistribution(T.distributions.Normal(0.0, 1.0), [1])
        with pytest.raises(ValueError, match="does not equal"):
            T.distributions.MixtureSameFamily(T.distributions.Categorical(logits=T.zeros(3)),
                                              T.distributions.Normal(T.zeros(2), T.ones(2)))
        with pytest.raises(ValueError, match="Mixture distribution needs to be"):
            T.distributions.MixtureSameFamily(T.distributions.Normal(0.0, 1.0),
                                              T.distributions.Normal(T.zeros(2), T.ones(2)))


def test_programs_reach_them_as_pytorch_code_writes_them():
    ns = Namespace()
    out = run("""
import torch
import torch.nn as nn
from torch.distributions import Normal, TransformedDistribution, MixtureSameFamily, Categorical, LogNormal
from torch.distributions.transforms import TanhTransform, AffineTransform

class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.mu = nn.Linear(3, 2)
        self.log_std = nn.Parameter(torch.zeros(2))

    def forward(self, obs):
        dist = TransformedDistribution(Normal(self.mu(obs), self.log_std.exp()),
                                       [TanhTransform(cache_size=1), AffineTransform(0.0, 2.0)])
        action = dist.rsample()
        return action, dist.log_prob(action).sum(-1)

torch.manual_seed(0)
policy = Policy()
action, logp = policy(torch.randn(5, 3))
loss = (logp + action.pow(2).sum(-1)).mean()
loss.backward()
mix = MixtureSameFamily(Categorical(logits=torch.zeros(3)), Normal(torch.tensor([-1.0, 0.0, 1.0]), torch.ones(3)))
nll = -mix.log_prob(torch.tensor([0.5, 2.0])).sum()
ln = LogNormal(torch.tensor(0.0), torch.tensor(1.0)).log_prob(torch.tensor(2.0))
inv = TanhTransform().inv(torch.tensor(0.5))
""", ns)
    assert out.ok, out.error.to_dict()
    assert tuple(ns.get("action").shape) == (5, 2)
    assert ns.resolve("policy.log_std").grad is not None
    want_nll = -sum(math.log(sum(math.exp(-(v - m) ** 2 / 2) / math.sqrt(2 * math.pi) / 3 for m in (-1, 0, 1)))
                    for v in (0.5, 2.0))
    assert abs(float(ns.get("nll")) - want_nll) < 1e-5
    assert abs(float(ns.get("ln")) - (-math.log(2.0) - 0.5 * math.log(2 * math.pi) - math.log(2.0) ** 2 / 2)) < 1e-6
    assert abs(float(ns.get("inv")) - math.atanh(0.5)) < 1e-6
