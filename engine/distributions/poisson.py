"""``torch.distributions.poisson``: Poisson(rate), with PyTorch's log-mass and moments; samples from
the session's generator (not differentiable, as PyTorch's)."""
from ..tensor import Size, Tensor
from .distribution import Distribution, as_params, check_parameter

__all__ = ["Poisson"]


def _engine():
    from ... import engine
    return engine


class Poisson(Distribution):
    """PyTorch's ``Poisson(rate, validate_args=None)``."""

    def __init__(self, rate, validate_args=None):
        (self.rate,), numbers_only = as_params(rate)
        super().__init__(Size() if numbers_only else self.rate.size(), Size(), validate_args)
        if self._validate_args:
            with _engine().no_grad():
                check_parameter(self, "rate", rate if isinstance(rate, Tensor) else self.rate, self.rate,
                                self.rate >= 0, "GreaterThanEq(lower_bound=0.0)")

    def _param_names(self):
        return ("rate",)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=Size()):
        import numpy as np
        from ..autograd.state import state
        from ..limits import check_elements
        torch = _engine()
        shape = tuple(self._extended_shape(sample_shape))
        check_elements(shape, "poisson sample")
        rate = self.rate.detach().expand(shape).cpu().numpy().astype(np.float64)
        return torch.tensor(state.generator.rng.poisson(rate).astype(np.float64), dtype=self.rate.dtype,
                            device=self.rate.device)

    def log_prob(self, value):
        torch = _engine()
        value = self._value(value, self.rate)
        self._check_sample(value, lambda v: (v >= 0) & (v == v.floor()), "IntegerGreaterThan(lower_bound=0)")
        rate, value = torch.broadcast_tensors(self.rate, value)
        return torch.xlogy(value, rate) - rate - torch.lgamma(value + 1)
