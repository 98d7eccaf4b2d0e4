"""Bernoulli, Uniform, Independent, Gamma, Beta, Exponential, Laplace, Poisson, Dirichlet and OneHotCategorical
(engine/distributions): log_prob, entropy, moments
and their gradients against PyTorch and by gradcheck, PyTorch's validation errors, sampling
statistics, and their reach from programs."""
import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.autograd import gradcheck, gradgradcheck
from gradserve.engine.program import Limits, Namespace, run
from op_check import torch

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch")


def _f64(T, values, grad=True):
    return T.tensor(values, dtype=T.float64, requires_grad=grad)


# each: (params, build(T, *params), value) -> the distribution and a value in its support
CASES = {
    "bernoulli_probs": ([[0.2, 0.7, 0.5]], lambda T, p: T.distributions.Bernoulli(probs=p), [1.0, 0.0, 1.0]),
    "bernoulli_logits": ([[0.3, -2.0, 4.0]], lambda T, lg: T.distributions.Bernoulli(logits=lg), [1.0, 1.0, 0.0]),
    "uniform": ([[0.0, 1.0], [2.0, 4.0]], lambda T, lo, hi: T.distributions.Uniform(lo, hi), [1.0, 3.5]),
    "gamma": ([[0.5, 2.0, 7.0], [1.0, 0.5, 3.0]], lambda T, a, r: T.distributions.Gamma(a, r), [0.3, 2.0, 1.5]),
    "beta": ([[0.5, 2.0, 7.0], [3.0, 0.5, 2.0]], lambda T, a, b: T.distributions.Beta(a, b), [0.3, 0.9, 0.5]),
    "independent_normal": ([[[0.1, -0.2], [0.3, 0.0]], [[1.0, 2.0], [0.5, 1.5]]],
                           lambda T, m, s: T.distributions.Independent(T.distributions.Normal(m, s), 1),
                           [[0.0, 1.0], [-1.0, 0.5]]),
    "exponential": ([[0.5, 2.0]], lambda T, r: T.distributions.Exponential(r), [0.3, 2.0]),
    "laplace": ([[0.0, 1.0], [1.0, 0.5]], lambda T, m, b: T.distributions.Laplace(m, b), [0.5, -1.0]),
    "poisson": ([[0.5, 3.0]], lambda T, r: T.distributions.Poisson(r), [0.0, 3.0]),
    "dirichlet": ([[[0.5, 1.0, 2.0], [3.0, 0.7, 1.2]]], lambda T, c: T.distributions.Dirichlet(c),
                  [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]),
    "one_hot_categorical": ([[0.2, -0.3, 1.0]], lambda T, lg: T.distributions.OneHotCategorical(logits=lg),
                            [0.0, 1.0, 0.0]),
}


def _entropy(d):
    try:
        return d.entropy()
    except NotImplementedError:   # Poisson's, as PyTorch's
        return d.mean.sum() * 0


def _terms(T, name):
    params, build, value = CASES[name]
    ps = [_f64(T, p) for p in params]
    d = build(T, *ps)
    v = T.tensor(value, dtype=T.float64)
    return ps, d, v


@pytest.mark.parametrize("name", list(CASES))
def test_log_prob_and_entropy_pass_gradcheck_and_gradgradcheck(name):
    params, build, value = CASES[name]

    def f(*ps):
        d = build(gs, *ps)
        v = gs.tensor(value, dtype=gs.float64)
        return d.log_prob(v).sum() + _entropy(d).sum() + (d.mean * d.variance).sum()
    inputs = [_f64(gs, p) for p in params]
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


@needs_torch
@pytest.mark.parametrize("name", list(CASES))
def test_values_moments_and_gradients_match_torch(name):
    got = []
    for T in (gs, torch):
        ps, d, v = _terms(T, name)
        total = d.log_prob(v).sum() + _entropy(d).sum()
        total.backward()
        got.append(([d.log_prob(v).tolist(), _entropy(d).tolist(), d.mean.tolist(), d.variance.tolist(),
                     d.mode.tolist()],
                    [p.grad.tolist() for p in ps], tuple(d.batch_shape), tuple(d.event_shape), repr(d)))
    ours, theirs = got
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    assert ours[2:4] == theirs[2:4]
    if not name.startswith("bernoulli"):   # PyTorch's also shows the lazily computed other parameter once asked for
        assert ours[4] == theirs[4]


@needs_torch
def test_modes_cdf_and_outside_the_support_match_torch():
    for T in (gs, torch):
        D = T.distributions
        u = D.Uniform(_f64(T, [0.0, 1.0], False), _f64(T, [2.0, 4.0], False), validate_args=False)
        outside = u.log_prob(T.tensor([1.0, 5.0], dtype=T.float64)).tolist()
        rows = [outside, u.cdf(T.tensor([1.0, 2.0], dtype=T.float64)).tolist(),
                D.Bernoulli(probs=T.tensor([0.2, 0.5, 0.9])).mode.tolist(),
                D.Gamma(T.tensor([0.5, 3.0]), T.tensor([1.0, 2.0])).mode.tolist(),
                D.Beta(T.tensor([2.0, 3.0]), T.tensor([4.0, 3.0])).mode.tolist(),
                repr(D.Uniform(0.0, 1.0)), repr(D.Gamma(2.0, 1.0)), tuple(D.Beta(2.0, 3.0).batch_shape)]
        if T is gs:
            ours = rows
    assert str(ours) == str(rows)


BAD = [
    lambda D, T: D.Gamma(T.tensor([-1.0]), T.tensor([1.0])),
    lambda D, T: D.Gamma(T.tensor([2.0]), T.tensor([0.0])),
    lambda D, T: D.Bernoulli(probs=T.tensor([1.5])),
    lambda D, T: D.Bernoulli(logits=T.tensor([float("nan")])),
    lambda D, T: D.Bernoulli(probs=T.tensor([0.5]), logits=T.tensor([0.0])),
    lambda D, T: D.Uniform(T.tensor([1.0]), T.tensor([0.0])),
    lambda D, T: D.Bernoulli(logits=T.tensor([0.5])).log_prob(T.tensor([0.5])),
    lambda D, T: D.Gamma(T.tensor([2.0]), T.tensor([1.0])).log_prob(T.tensor([-1.0])),
    lambda D, T: D.Beta(T.tensor([2.0]), T.tensor([-1.0])),
    lambda D, T: D.Beta(T.tensor([2.0]), T.tensor([1.0])).log_prob(T.tensor([1.5])),
    lambda D, T: D.Independent(D.Normal(T.zeros(3), T.ones(3)), 2),
    lambda D, T: D.Uniform(T.tensor([0.0]), T.tensor([1.0])).log_prob(T.tensor([1.5])),
    lambda D, T: D.Exponential(T.tensor([-1.0])),
    lambda D, T: D.Laplace(0., -1.),
    lambda D, T: D.Poisson(T.tensor([-1.0])),
    lambda D, T: D.Dirichlet(T.tensor(1.0)),
    lambda D, T: D.Dirichlet(T.tensor([1.0, -1.0])),
    lambda D, T: D.Exponential(1.0).log_prob(T.tensor(-1.0)),
    lambda D, T: D.Poisson(1.0).log_prob(T.tensor(1.5)),
    lambda D, T: D.Dirichlet(T.tensor([1.0, 1.0])).log_prob(T.tensor([0.3, 0.3])),
    lambda D, T: D.OneHotCategorical(probs=T.tensor([0.2, 0.8])).log_prob(T.tensor([1.0, 1.0])),
]


@needs_torch
@pytest.mark.parametrize("case", range(len(BAD)))
def test_invalid_parameters_and_values_raise_pytorchs_errors(case):
    messages = []
    for T in (torch, gs):
        with pytest.raises(ValueError) as e:
            BAD[case](T.distributions, T)
        messages.append(str(e.value))
    assert messages[0] == messages[1]


def test_samples_have_the_shapes_dtypes_and_moments_of_the_distribution():
    gs.manual_seed(0)
    D = gs.distributions
    for d, mean, var in ((D.Gamma(gs.tensor(3.0), gs.tensor(2.0)), 1.5, 0.75),
                         (D.Beta(gs.tensor(2.0), gs.tensor(5.0)), 2 / 7, 10 / (49 * 8)),
                         (D.Uniform(gs.tensor(-1.0), gs.tensor(3.0)), 1.0, 16 / 12),
                         (D.Bernoulli(probs=gs.tensor(0.3)), 0.3, 0.21)):
        x = d.sample((20000,))
        assert tuple(x.shape) == (20000,) and x.dtype == gs.float32
        assert float(x.mean()) == pytest.approx(mean, abs=0.03)
        assert float(x.var()) == pytest.approx(var, rel=0.08)
    ind = D.Independent(D.Normal(gs.zeros(4, 3), gs.ones(4, 3)), 1)
    assert tuple(ind.sample((2,)).shape) == (2, 4, 3) and ind.has_rsample
    assert tuple(D.Beta(gs.ones(2, 3), gs.ones(2, 3)).sample((5,)).shape) == (5, 2, 3)


def test_uniform_rsample_is_differentiable_and_gamma_rsample_says_why_not():
    lo, hi = gs.tensor([0.0], requires_grad=True), gs.tensor([2.0], requires_grad=True)
    x = gs.distributions.Uniform(lo, hi).rsample((3,))
    x.sum().backward()
    assert float(lo.grad + hi.grad) == pytest.approx(3.0)
    with pytest.raises(NotImplementedError, match="use sample"):
        gs.distributions.Gamma(gs.tensor(2.0), gs.tensor(1.0)).rsample()


def test_a_program_trains_a_beta_policy_and_a_bernoulli_decoder():
    ns = Namespace()
    out = run("import torch\n"
              "from torch.distributions import Beta, Bernoulli, Independent, Normal\n"
              "from torch.distributions.gamma import Gamma\n"
              "torch.manual_seed(0)\n"
              "a = torch.tensor([1.5, 2.0], requires_grad=True)\n"
              "b = torch.tensor([2.0, 1.0], requires_grad=True)\n"
              "pi = Beta(a, b)\n"
              "act = pi.sample()\n"
              "logits = torch.tensor([0.2, -0.4], requires_grad=True)\n"
              "loss = -(pi.log_prob(act).sum() + Bernoulli(logits=logits).log_prob(torch.tensor([1., 0.])).sum())\n"
              "loss = loss - 0.01 * pi.entropy().sum() + Independent(Normal(a, b), 1).log_prob(act).sum()\n"
              "loss = loss + Gamma(a, b).log_prob(torch.tensor([1.0, 2.0])).sum()\n"
              "loss.backward()\n"
              "ok = a.grad is not None and logits.grad is not None and bool(torch.isfinite(a.grad).all())\n", ns, Limits())
    assert out.ok, out.error.to_dict()
    assert ns.globals["ok"] is True


def _kl_pairs(T):
    D = T.distributions
    kl = D.kl_divergence

    def f(v):
        return T.tensor(v, dtype=T.float64, requires_grad=True)
    a, b = f([0.2, 0.7, 0.0, 1.0, 0.5]), f([0.5, 0.1, 0.3, 1.0, 0.0])
    c = [f([0.5, 2.0, 7.0]), f([3.0, 0.5, 2.0]), f([1.5, 1.0, 3.0]), f([2.0, 2.5, 0.7])]
    m, s = f([[0.1, 0.2], [0.3, -0.4]]), f([[1.0, 2.0], [0.5, 1.5]])
    out = [kl(D.Bernoulli(probs=a), D.Bernoulli(probs=b)), kl(D.Beta(c[0], c[1]), D.Beta(c[2], c[3])),
           kl(D.Gamma(c[0], c[1]), D.Gamma(c[2], c[3])),
           kl(D.Uniform(f([0.0, 1.0]), f([1.0, 2.0])), D.Uniform(f([-1.0, 1.5]), f([2.0, 3.0]))),
           kl(D.Independent(D.Normal(m, s), 1), D.Independent(D.Normal(m * 0.5, s * 2), 1)),
           kl(D.Exponential(c[0]), D.Exponential(c[1])), kl(D.Laplace(m, s), D.Laplace(m + 1, s * 3)),
           kl(D.Poisson(c[0]), D.Poisson(c[1] + 1)), kl(D.Dirichlet(s), D.Dirichlet(s * 2 + c[0][:2])),
           kl(D.OneHotCategorical(logits=m), D.OneHotCategorical(logits=m * 2))]
    total = sum(o[T.isfinite(o)].sum() for o in out)
    total.backward()
    return [o.tolist() for o in out], [x.grad.tolist() for x in (a, b, *c, m, s)]


@needs_torch
def test_kl_divergences_of_the_new_pairs_match_torch_with_their_infinities_and_gradients():
    ours, theirs = _kl_pairs(gs), _kl_pairs(torch)
    for a, b in zip(ours[0] + ours[1], theirs[0] + theirs[1]):
        np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-12, atol=1e-14)
    with pytest.raises(NotImplementedError):
        D = gs.distributions
        D.kl_divergence(D.Independent(D.Normal(gs.zeros(2, 2), gs.ones(2, 2)), 1),
                        D.Independent(D.Normal(gs.zeros(2, 2), gs.ones(2, 2)), 2))


@pytest.mark.parametrize("dist", ["Gamma(torch.tensor(2.0), torch.tensor(1.0))", "Beta(torch.tensor(2.0), torch.tensor(1.0))",
                                  "Bernoulli(torch.tensor(0.2))", "Uniform(0.0, 1.0)", "Poisson(torch.tensor(2.0))",
                                  "Dirichlet(torch.ones(3))", "Exponential(1.0)", "Laplace(0.0, 1.0)"])
def test_samples_past_the_element_limit_fail_with_it_before_allocating(dist):
    out = run(f"import torch\nfrom torch.distributions import Gamma, Beta, Bernoulli, Uniform, Poisson, Dirichlet, "
              f"Exponential, Laplace\n"
              f"y = {dist}.sample((10**5, 10**5))", Namespace(), Limits(tensor_elements=10**6))
    assert not out.ok and out.error.limit == "tensor_elements", out.error.to_dict()


def test_new_samples_have_their_shapes_dtypes_and_moments():
    gs.manual_seed(1)
    D = gs.distributions
    for d, mean, var in ((D.Exponential(gs.tensor(2.0)), 0.5, 0.25), (D.Laplace(gs.tensor(1.0), gs.tensor(0.5)), 1.0, 0.5),
                         (D.Poisson(gs.tensor(3.0)), 3.0, 3.0)):
        x = d.sample((20000,))
        assert tuple(x.shape) == (20000,) and x.dtype == gs.float32
        assert float(x.mean()) == pytest.approx(mean, abs=0.05)
        assert float(x.var()) == pytest.approx(var, rel=0.08)
    x = D.Dirichlet(gs.tensor([1.0, 2.0, 3.0])).sample((5000,))
    assert tuple(x.shape) == (5000, 3) and np.allclose(x.sum(-1).numpy(), 1.0, atol=1e-5)
    np.testing.assert_allclose(x.mean(0).numpy(), [1 / 6, 2 / 6, 3 / 6], atol=0.02)
    y = D.OneHotCategorical(probs=gs.tensor([0.2, 0.8])).sample((4000,))
    assert tuple(y.shape) == (4000, 2) and (y.sum(-1) == 1).all() and float(y[:, 1].mean()) == pytest.approx(0.8, abs=0.03)
    lo = gs.tensor(0.5, requires_grad=True)
    D.Exponential(lo).rsample((3,)).sum().backward()
    assert lo.grad is not None and float(lo.grad) < 0


@needs_torch
def test_xlogy_and_xlog1py_gradients_at_zero_are_pytorchs():
    # d/dx x log(y) is log(y) also where x is 0 (the where-based composite gave 0 there, so Dirichlet's
    # log_prob gradient at a concentration of 1 was off by log(value))
    got = []
    for T in (gs, torch):
        x = T.tensor([0.0, 1.0, 0.0, 1.0, 0.0, 2.0, -0.0, 0.5], dtype=T.float64, requires_grad=True)
        y = T.tensor([0.3, 0.0, 0.0, -1.0, float("nan"), float("nan"), 2.0, 4.0], dtype=T.float64, requires_grad=True)
        z = T.xlogy(x, y) + T.special.xlog1py(x, y)
        z.sum().backward()
        got.append((z.tolist(), x.grad.tolist(), y.grad.tolist(), T.xlogy(x, 3.0).grad_fn.name(),
                    T.xlogy(2.0, y).grad_fn.name(), T.special.xlog1py(x, y).grad_fn.name()))
    for a, b in zip(*got):
        if isinstance(a, str):
            assert a == b
        else:
            np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-14,
                                       equal_nan=True)


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_bernoulli_with_a_number_or_0d_probability_gives_log_prob_and_entropy():
    """Hostile pass 12: Bernoulli(probs=0.3).log_prob(tensor(1.)) raised NumPy's 'return arrays must be
    of ArrayType' (softplus wrote in place into the NumPy scalar a 0-d input gives)."""
    for probs in (0.3, "t"):
        ours = gs.distributions.Bernoulli(probs=gs.tensor(0.3) if probs == "t" else probs)
        theirs = torch.distributions.Bernoulli(probs=torch.tensor(0.3) if probs == "t" else probs)
        for v in (0.0, 1.0):
            assert ours.log_prob(gs.tensor(v)).item() == pytest.approx(theirs.log_prob(torch.tensor(v)).item(), rel=1e-6)
        assert ours.entropy().item() == pytest.approx(theirs.entropy().item(), rel=1e-6)
    x = gs.tensor(0.3, requires_grad=True)
    gs.nn.functional.binary_cross_entropy_with_logits(x, gs.tensor(1.0)).backward()
    assert x.grad.item() == pytest.approx(torch.sigmoid(torch.tensor(0.3)).item() - 1, rel=1e-6)
    assert gs.nn.functional.softplus(gs.tensor(0.5)).item() == pytest.approx(0.9740769841801067, rel=1e-6)


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_beta_mode_where_a_concentration_is_at_most_one_is_pytorchs():
    """Hostile pass 12: Beta.mode was (a - 1) / (a + b - 2) everywhere: Beta(0.5, 3).mode gave -1/3 (outside
    the support) where PyTorch's gives 0, and Beta(0.5, 0.5) gave 0.5 where PyTorch's gives 1."""
    a = [0.5, 0.5, 1.0, 1.0, 2.0, 0.5, 3.0, 1.0, 2.5, 0.2]
    b = [0.5, 3.0, 1.0, 3.0, 0.5, 1.0, 1.0, 0.5, 4.0, 0.9]
    for dtype in ("float32", "float64"):
        ours = gs.distributions.Beta(gs.tensor(a, dtype=getattr(gs, dtype)), gs.tensor(b, dtype=getattr(gs, dtype))).mode
        theirs = torch.distributions.Beta(torch.tensor(a, dtype=getattr(torch, dtype)),
                                          torch.tensor(b, dtype=getattr(torch, dtype))).mode
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, equal_nan=True)
        assert str(ours.dtype) == str(theirs.dtype)
    assert gs.distributions.Beta(0.5, 3.0).mode.item() == 0.0


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_validation_messages_show_0d_values_and_bounds_as_numbers_as_pytorch():
    """Hostile pass 12: a 0-d parameter or value outside its constraint showed as tensor(2.) in the
    message (and Uniform's bounds as LessThan(upper_bound=tensor(1.))) where PyTorch 2.13 shows 2.0."""
    calls = [
        lambda T: T.distributions.Uniform(2.0, 1.0), lambda T: T.distributions.Uniform(T.tensor(2.0), T.tensor(1.0)),
        lambda T: T.distributions.Uniform(T.tensor(0.0), T.tensor(1.0)).log_prob(T.tensor(3.0)),
        lambda T: T.distributions.Uniform(T.tensor([2.0]), T.tensor([1.0])),
        lambda T: T.distributions.Gamma(T.tensor(-1.0), 1.0),
        lambda T: T.distributions.Beta(T.tensor(0.5), 1.0).log_prob(T.tensor(2.0)),
        lambda T: T.distributions.Bernoulli(T.tensor(0.3)).log_prob(T.tensor(0.5)),
    ]
    for call in calls:
        messages = []
        for T in (gs, torch):
            with pytest.raises(ValueError) as e:
                call(T)
            messages.append(str(e.value))
        assert messages[0] == messages[1]
