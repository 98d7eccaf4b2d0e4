"""``torch.distributions``: what the engine has of it (Distribution, Categorical, Normal,
MultivariateNormal, and kl_divergence between them)."""
from . import categorical, distribution, kl, multivariate_normal, normal
from .categorical import Categorical
from .distribution import Distribution
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .kl import kl_divergence, register_kl

__all__ = ["Categorical", "Distribution", "MultivariateNormal", "Normal", "kl_divergence", "register_kl"]
