"""``torch.distributions``: what the engine has of it (Distribution, Bernoulli, Beta, Categorical, Dirichlet,
Exponential, Gamma, Independent, Laplace, MultivariateNormal, Normal, OneHotCategorical, Poisson, Uniform, and
kl_divergence between them)."""
from . import (bernoulli, categorical, dirichlet, distribution, exponential, gamma, independent, kl,  # noqa: F401
               multivariate_normal, normal, one_hot_categorical, poisson, uniform)
from .bernoulli import Bernoulli
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential, Laplace
from .gamma import Beta, Gamma
from .independent import Independent
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .uniform import Uniform
from .kl import kl_divergence, register_kl

__all__ = ["Bernoulli", "Beta", "Categorical", "Dirichlet", "Distribution", "Exponential", "Gamma", "Independent",
           "Laplace", "MultivariateNormal", "Normal", "OneHotCategorical", "Poisson", "Uniform", "kl_divergence",
           "register_kl"]
