"""``torch.distributions.exponential`` and ``torch.distributions.laplace``: Exponential(rate) and
Laplace(loc, scale), with reparameterised samples (inverse CDFs of uniform draws), PyTorch's
log-densities, CDFs, entropies, moments and validation."""
import math

from ..tensor import Size, Tensor
from .distribution import Distribution, as_params, check_parameter

__all__ = ["Exponential", "Laplace"]


def _engine():
    from ... import engine
    return engine


class Exponential(Distribution):
    """PyTorch's ``Exponential(rate, validate_args=None)``."""

    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,), numbers_only = as_params(rate)
        super().__init__(Size() if numbers_only else self.rate.size(), Size(), validate_args)
        if self._validate_args:
            with _engine().no_grad():
                check_parameter(self, "rate", rate if isinstance(rate, Tensor) else self.rate, self.rate,
                                self.rate > 0, "GreaterThan(lower_bound=0.0)")

    def _param_names(self):
        return ("rate",)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return _engine().zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=Size()):
        torch = _engine()
        u = torch.rand(tuple(self._extended_shape(sample_shape)), dtype=self.rate.dtype, device=self.rate.device)
        return -torch.log1p(-u) / self.rate

    def _check(self, value):
        self._check_sample(value, lambda v: v >= 0, "GreaterThanEq(lower_bound=0.0)")

    def log_prob(self, value):
        value = self._value(value, self.rate)
        self._check(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        value = self._value(value, self.rate)
        self._check(value)
        return 1 - _engine().exp(-self.rate * value)

    def icdf(self, value):
        return -_engine().log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()


class Laplace(Distribution):
    """PyTorch's ``Laplace(loc, scale, validate_args=None)``."""

    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        (self.loc, self.scale), numbers_only = as_params(loc, scale)
        super().__init__(Size() if numbers_only else self.loc.size(), Size(), validate_args)
        if self._validate_args:
            torch = _engine()
            with torch.no_grad():
                check_parameter(self, "loc", loc if isinstance(loc, Tensor) else self.loc, self.loc,
                                ~torch.isnan(self.loc), "Real()")
                check_parameter(self, "scale", scale if isinstance(scale, Tensor) else self.scale, self.scale,
                                self.scale > 0, "GreaterThan(lower_bound=0.0)")

    def _param_names(self):
        return ("loc", "scale")

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape=Size()):
        torch = _engine()
        shape = tuple(self._extended_shape(sample_shape))
        eps = torch.finfo(self.loc.dtype).eps
        u = torch.rand(shape, dtype=self.loc.dtype, device=self.loc.device) * (2 - eps) - (1 - eps)   # (-1, 1)
        return self.loc - self.scale * u.sign() * torch.log1p(-u.abs())

    def _check(self, value):
        self._check_sample(value, lambda v: ~_engine().isnan(v), "Real()")

    def log_prob(self, value):
        value = self._value(value, self.loc)
        self._check(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        value = self._value(value, self.loc)
        self._check(value)
        torch = _engine()
        z = value - self.loc
        return 0.5 - 0.5 * z.sign() * torch.expm1(-z.abs() / self.scale)

    def icdf(self, value):
        torch = _engine()
        term = value - 0.5
        return self.loc - self.scale * term.sign() * torch.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + (2 * self.scale).log()
