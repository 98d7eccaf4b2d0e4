"""``torch.distributions``: what the engine has of it (Distribution, Bernoulli, Beta, Categorical, Dirichlet,
Exponential, Gamma, Independent, Laplace, LogNormal, MixtureSameFamily, Multinomial, MultivariateNormal, Normal,
OneHotCategorical, Poisson, TransformedDistribution, Uniform, the transforms, and kl_divergence between them)."""
from . import (bernoulli, categorical, dirichlet, distribution, exponential, gamma, independent, kl,  # noqa: F401
               mixture_same_family, multinomial, multivariate_normal, normal, one_hot_categorical, poisson,
               transformed_distribution, transforms, uniform)
from .bernoulli import Bernoulli
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential, Laplace
from .gamma import Beta, Gamma
from .independent import Independent
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .uniform import Uniform
from .mixture_same_family import MixtureSameFamily
from .transformed_distribution import LogNormal, TransformedDistribution
from .transforms import (AffineTransform, ComposeTransform, ExpTransform, PowerTransform, SigmoidTransform,
                         SoftplusTransform, TanhTransform, Transform)
from .kl import kl_divergence, register_kl

__all__ = ["AffineTransform", "Bernoulli", "Beta", "Categorical", "ComposeTransform", "Dirichlet", "Distribution",
           "ExpTransform", "Exponential", "Gamma", "Independent", "Laplace", "LogNormal", "MixtureSameFamily",
           "Multinomial", "MultivariateNormal", "Normal", "OneHotCategorical", "Poisson", "PowerTransform",
           "SigmoidTransform", "SoftplusTransform", "TanhTransform", "Transform", "TransformedDistribution", "Uniform",
           "kl_divergence", "register_kl"]
