"""``torch.distributions.kl``: ``kl_divergence(p, q)`` through a registry of closed forms keyed by the two
distributions' types (``register_kl``), as PyTorch's; the pairs the engine's distributions make."""
import math

from .bernoulli import Bernoulli
from .categorical import Categorical
from .dirichlet import Dirichlet
from .exponential import Exponential, Laplace
from .gamma import Beta, Gamma
from .independent import Independent, _sum_rightmost
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .uniform import Uniform

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY = {}


def register_kl(type_p, type_q):
    """Decorator registering ``fn(p, q)`` as the KL divergence of instances of ``type_p`` and ``type_q``."""
    if not (isinstance(type_p, type) and isinstance(type_q, type)):
        raise TypeError(f"Expected type_p and type_q to be subclasses of Distribution but got {type_p} and {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        return fun
    return decorator


def _dispatch(type_p, type_q):
    """The registered function of the most specific pair of bases (PyTorch's order: by the MROs)."""
    matches = [(p, q) for p, q in _KL_REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return None
    best = min(matches, key=lambda pq: (type_p.__mro__.index(pq[0]), type_q.__mro__.index(pq[1])))
    return _KL_REGISTRY[best]


def kl_divergence(p, q):
    """KL(p || q), batched over the distributions' batch shape."""
    fun = _dispatch(type(p), type(q))
    if fun is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and "
                                  f"q type {q.__class__.__name__}")
    return fun(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = t.masked_fill((q.probs == 0).expand_as(t), math.inf)
    t = t.masked_fill((p.probs == 0).expand_as(t), 0.0)
    return t.sum(-1)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be "
                         "computed")
    import gradserve.engine as torch
    p_tril, q_tril = p.scale_tril, q.scale_tril
    half_term1 = (q_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                  - p_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    n = p.event_shape[0]
    combined = torch.broadcast_shapes(q_tril.shape[:-2], p_tril.shape[:-2])
    q_b = q_tril.expand(combined + (n, n))
    p_b = p_tril.expand(combined + (n, n))
    term2 = torch.linalg.solve_triangular(q_b, p_b, upper=False).pow(2).sum((-2, -1))
    diff = (q.loc - p.loc).unsqueeze(-1)
    q_d = q_tril.expand(diff.shape[:-2] + (n, n))
    term3 = torch.linalg.solve_triangular(q_d, diff, upper=False).pow(2).sum((-2, -1))
    return half_term1 + 0.5 * (term2 + term3 - n)


def _engine():
    from ... import engine
    return engine


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    """p log(p / q) + (1 - p) log((1 - p) / (1 - q)), through softplus of the logits (no log of 0);
    inf where q gives no mass to an outcome p has, 0 for outcomes p does not have."""
    torch = _engine()
    softplus = torch.nn.functional.softplus
    ones = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    ones = torch.where(p.probs == 0, 0.0, torch.where(q.probs == 0, math.inf, ones))
    zeros = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    zeros = torch.where(p.probs == 1, 0.0, torch.where(q.probs == 1, math.inf, zeros))
    return ones + zeros


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    """log B(a_q, b_q) - log B(a_p, b_p) + (a_p - a_q) psi(a_p) + (b_p - b_q) psi(b_p)
    + (a_q - a_p + b_q - b_p) psi(a_p + b_p)."""
    torch = _engine()
    a_p, b_p, a_q, b_q = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    log_beta_q = a_q.lgamma() + b_q.lgamma() - (a_q + b_q).lgamma()
    log_beta_p = a_p.lgamma() + b_p.lgamma() - (a_p + b_p).lgamma()
    return (log_beta_q - log_beta_p + (a_p - a_q) * torch.digamma(a_p) + (b_p - b_q) * torch.digamma(b_p)
            + (a_q - a_p + b_q - b_p) * torch.digamma(a_p + b_p))


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    """(a_p - a_q) psi(a_p) - lgamma(a_p) + lgamma(a_q) + a_q log(b_p / b_q) + a_p (b_q - b_p) / b_p."""
    torch = _engine()
    a_p, b_p, a_q, b_q = p.concentration, p.rate, q.concentration, q.rate
    return ((a_p - a_q) * torch.digamma(a_p) - torch.lgamma(a_p) + torch.lgamma(a_q)
            + a_q * (b_p / b_q).log() + a_p * (b_q - b_p) / b_p)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    """log of the width ratio, inf where q's interval does not cover p's."""
    torch = _engine()
    ratio = ((q.high - q.low) / (p.high - p.low)).log()
    return torch.where((q.low > p.low) | (q.high < p.high), math.inf, ratio)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - ratio.log() - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    """log(b_q / b_p) + |mu_p - mu_q| / b_q + (b_p / b_q) exp(-|mu_p - mu_q| / b_p) - 1."""
    ratio = p.scale / q.scale
    gap = (p.loc - q.loc).abs()
    return -ratio.log() + gap / q.scale + ratio * (-gap / p.scale).exp() - 1


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    """log Gamma(sum a_p) - log Gamma(sum a_q) - sum(log Gamma(a_p) - log Gamma(a_q))
    + sum((a_p - a_q)(psi(a_p) - psi(sum a_p)))."""
    torch = _engine()
    a_p, a_q = p.concentration, q.concentration
    total_p = a_p.sum(-1)
    return (torch.lgamma(total_p) - torch.lgamma(a_q.sum(-1)) - (torch.lgamma(a_p) - torch.lgamma(a_q)).sum(-1)
            + ((a_p - a_q) * (torch.digamma(a_p) - torch.digamma(total_p).unsqueeze(-1))).sum(-1))


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)
