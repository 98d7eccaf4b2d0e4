"""``torch.distributions``: what the engine has of it (Distribution, Categorical, Normal)."""
from . import categorical, distribution, normal
from .categorical import Categorical
from .distribution import Distribution
from .normal import Normal

__all__ = ["Categorical", "Distribution", "Normal"]
