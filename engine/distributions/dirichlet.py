"""``torch.distributions.dirichlet``: Dirichlet(concentration) over the last dimension, with PyTorch's
log-density, entropy, moments, mode and validation; samples are normalised gamma draws from the
session's generator (``rsample`` is not provided, as for Gamma: see engine/distributions/gamma.py)."""
from ..tensor import Size, Tensor
from .distribution import Distribution, check_parameter
from .gamma import _standard_gamma

__all__ = ["Dirichlet"]


def _engine():
    from ... import engine
    return engine


class Dirichlet(Distribution):
    """PyTorch's ``Dirichlet(concentration, validate_args=None)``."""

    def __init__(self, concentration, validate_args=None):
        torch = _engine()
        if not isinstance(concentration, Tensor):
            concentration = torch.tensor(concentration, dtype=torch.get_default_dtype())
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(Size(tuple(concentration.shape[:-1])), Size(tuple(concentration.shape[-1:])), validate_args)
        if self._validate_args:
            with torch.no_grad():
                check_parameter(self, "concentration", concentration, concentration, concentration > 0,
                                "IndependentConstraint(GreaterThan(lower_bound=0.0), 1)")

    def _param_names(self):
        return ("concentration",)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        torch = _engine()
        c = (self.concentration - 1).clamp(min=0.0)
        mode = c / c.sum(-1, True)
        # where every concentration is below 1 the density peaks at a vertex: PyTorch's one-hot of the argmax
        below = (self.concentration < 1).all(-1, keepdim=True)
        vertex = torch.nn.functional.one_hot(mode.argmax(-1), c.shape[-1]).to(mode.dtype)
        return torch.where(below, vertex, mode)

    @property
    def variance(self):
        total = self.concentration.sum(-1, True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=Size()):
        raise NotImplementedError("Dirichlet.rsample: reparameterised Dirichlet samples are not available in this "
                                  "engine (PyTorch differentiates them through the gamma CDF); use sample()")

    def sample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        with _engine().no_grad():
            draws = _standard_gamma(self.concentration.expand(shape))
            return draws / draws.sum(-1, True)

    def log_prob(self, value):
        torch = _engine()
        value = self._value(value, self.concentration)
        self._check_sample(value, lambda v: (v >= 0).all(-1) & ((v.sum(-1) - 1).abs() < 1e-6), "Simplex()")
        c = self.concentration
        return torch.xlogy(c - 1.0, value).sum(-1) + torch.lgamma(c.sum(-1)) - torch.lgamma(c).sum(-1)

    def entropy(self):
        torch = _engine()
        c = self.concentration
        k = c.size(-1)
        total = c.sum(-1)
        return (torch.lgamma(c).sum(-1) - torch.lgamma(total) - (k - total) * torch.digamma(total)
                - ((c - 1.0) * torch.digamma(c)).sum(-1))
