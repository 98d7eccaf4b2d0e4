"""``torch.distributions``: what the engine has of it (Distribution, Bernoulli, Beta, Categorical, Gamma,
Independent, MultivariateNormal, Normal, Uniform, and kl_divergence between them)."""
from . import (bernoulli, categorical, distribution, gamma, independent, kl, multivariate_normal, normal,  # noqa: F401
               uniform)
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .gamma import Beta, Gamma
from .independent import Independent
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .uniform import Uniform
from .kl import kl_divergence, register_kl

__all__ = ["Bernoulli", "Beta", "Categorical", "Distribution", "Gamma", "Independent", "MultivariateNormal", "Normal",
           "Uniform", "kl_divergence", "register_kl"]
