"""``torch.distributions.uniform``: the continuous uniform distribution on [low, high)."""
from ..tensor import Size, Tensor
from .distribution import Distribution, _shown, as_params, check_parameter

__all__ = ["Uniform"]


def _engine():
    from ... import engine
    return engine


class Uniform(Distribution):
    """PyTorch's ``Uniform(low, high, validate_args=None)``: ``rsample`` is ``low + u * (high - low)``,
    differentiable in both; ``log_prob`` is ``-log(high - low)`` inside, ``-inf`` outside."""

    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        torch = _engine()
        (self.low, self.high), numbers_only = as_params(low, high)
        super().__init__(Size() if numbers_only else self.low.size(), Size(), validate_args)
        if self._validate_args:
            with torch.no_grad():
                check_parameter(self, "low", low if isinstance(low, Tensor) else self.low, self.low,
                                self.low < self.high, f"LessThan(upper_bound={_shown(self.high)})")

    def _param_names(self):
        return ("low", "high")

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return self.low * float("nan")

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=Size()):
        torch = _engine()
        shape = tuple(self._extended_shape(sample_shape))
        u = torch.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def _check(self, value):
        self._check_sample(value, lambda v: (v >= self.low) & (v <= self.high),
                           f"Interval(lower_bound={_shown(self.low)}, upper_bound={_shown(self.high)})")

    def log_prob(self, value):
        torch = _engine()
        value = self._value(value, self.low)
        self._check(value)
        lb = self.low.le(value).to(self.low.dtype)
        ub = self.high.gt(value).to(self.low.dtype)
        return torch.log(lb * ub) - torch.log(self.high - self.low)

    def cdf(self, value):
        self._check(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return _engine().log(self.high - self.low)
