"""``torch.distributions.gamma`` and ``torch.distributions.beta``: Gamma(concentration, rate) and
Beta(concentration1, concentration0), with PyTorch's log-densities and entropies (lgamma and digamma)
and samples drawn from the session's generator. Reparameterised samples (``rsample``) are not
provided: PyTorch differentiates them implicitly through the gamma CDF, which this engine does not."""
from ..tensor import Size, Tensor
from .distribution import Distribution, as_params, check_parameter

__all__ = ["Gamma", "Beta"]


def _engine():
    from ... import engine
    return engine


def _standard_gamma(alpha):
    """Gamma(alpha, 1) draws of alpha's shape and dtype from the session's generator, at least the
    dtype's smallest normal number (PyTorch's clamp)."""
    import numpy as np
    from ..autograd.state import state
    from ..limits import check_elements
    torch = _engine()
    check_elements(tuple(alpha.shape), "gamma sample")
    a = alpha.detach().cpu().numpy().astype(np.float64)
    x = state.generator.rng.standard_gamma(a)
    tiny = torch.finfo(alpha.dtype).tiny
    return torch.tensor(np.maximum(x, tiny), dtype=alpha.dtype, device=alpha.device)


def _positive(dist, name, given, value):
    check_parameter(dist, name, given if isinstance(given, Tensor) else value, value, value > 0,
                    "GreaterThan(lower_bound=0.0)")


class Gamma(Distribution):
    """PyTorch's ``Gamma(concentration, rate, validate_args=None)``."""

    def __init__(self, concentration, rate, validate_args=None):
        torch = _engine()
        (self.concentration, self.rate), numbers_only = as_params(concentration, rate)
        super().__init__(Size() if numbers_only else self.concentration.size(), Size(), validate_args)
        if self._validate_args:
            with torch.no_grad():
                _positive(self, "concentration", concentration, self.concentration)
                _positive(self, "rate", rate, self.rate)

    def _param_names(self):
        return ("concentration", "rate")

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=Size()):
        raise NotImplementedError("Gamma.rsample: reparameterised gamma samples are not available in this engine "
                                  "(PyTorch differentiates them through the gamma CDF); use sample()")

    def sample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        with _engine().no_grad():
            return _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)

    def log_prob(self, value):
        torch = _engine()
        value = self._value(value, self.rate)
        self._check_sample(value, lambda v: v >= 0, "GreaterThanEq(lower_bound=0.0)")
        return (torch.xlogy(self.concentration, self.rate) + torch.xlogy(self.concentration - 1, value)
                - self.rate * value - torch.lgamma(self.concentration))

    def entropy(self):
        torch = _engine()
        a = self.concentration
        return a - torch.log(self.rate) + torch.lgamma(a) + (1.0 - a) * torch.digamma(a)

    def cdf(self, value):
        raise NotImplementedError("Gamma.cdf needs the regularised incomplete gamma function, which this engine "
                                  "does not have")


class Beta(Distribution):
    """PyTorch's ``Beta(concentration1, concentration0, validate_args=None)``."""

    def __init__(self, concentration1, concentration0, validate_args=None):
        torch = _engine()
        (self.concentration1, self.concentration0), numbers_only = as_params(concentration1, concentration0)
        super().__init__(Size() if numbers_only else self.concentration1.size(), Size(), validate_args)
        if self._validate_args:
            with torch.no_grad():
                both = torch.stack([self.concentration1, self.concentration0], -1)
                check_parameter(f"Dirichlet(concentration: {both.size()})", "concentration", both, both, both > 0,
                                "IndependentConstraint(GreaterThan(lower_bound=0.0), 1)")

    def __repr__(self):
        return "Beta()"   # PyTorch's: its parameters live in a Dirichlet it holds

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        # PyTorch's, through its Dirichlet's: the concentrations less one clamped at 0 and normalised
        # (NaN where both are then 0), and 1 where both concentrations are below 1
        a = (self.concentration1 - 1).clamp(min=0)
        b = (self.concentration0 - 1).clamp(min=0)
        both_below_one = (self.concentration1 < 1) & (self.concentration0 < 1)
        return _engine().where(both_below_one, 1.0, a / (a + b))

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=Size()):
        raise NotImplementedError("Beta.rsample: reparameterised beta samples are not available in this engine "
                                  "(PyTorch differentiates them through the gamma CDF); use sample()")

    def sample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        with _engine().no_grad():
            x = _standard_gamma(self.concentration1.expand(shape))
            y = _standard_gamma(self.concentration0.expand(shape))
            return x / (x + y)

    def log_prob(self, value):
        torch = _engine()
        value = self._value(value, self.concentration1)
        self._check_sample(value, lambda v: (v >= 0) & (v <= 1), "Interval(lower_bound=0.0, upper_bound=1.0)")
        a, b = self.concentration1, self.concentration0
        return (torch.xlogy(a - 1.0, value) + torch.xlogy(b - 1.0, 1 - value)
                + torch.lgamma(a + b) - torch.lgamma(a) - torch.lgamma(b))

    def entropy(self):
        torch = _engine()
        a, b = self.concentration1, self.concentration0
        total = a + b
        return (torch.lgamma(a) + torch.lgamma(b) - torch.lgamma(total) - (2.0 - total) * torch.digamma(total)
                - (a - 1.0) * torch.digamma(a) - (b - 1.0) * torch.digamma(b))
