"""``torch.distributions``: what the engine has of it (Distribution, Categorical, Normal,
MultivariateNormal)."""
from . import categorical, distribution, multivariate_normal, normal
from .categorical import Categorical
from .distribution import Distribution
from .multivariate_normal import MultivariateNormal
from .normal import Normal

__all__ = ["Categorical", "Distribution", "MultivariateNormal", "Normal"]
