"""``torch.distributions.normal``: the Normal (Gaussian) distribution, with reparameterised samples."""
import math
import numbers

from ..tensor import Size, Tensor
from .distribution import Distribution

__all__ = ["Normal"]


def _engine():
    from ... import engine
    return engine


class Normal(Distribution):
    """PyTorch's ``Normal(loc, scale, validate_args=None)``: loc and scale broadcast to the batch
    shape; ``rsample`` is ``loc + eps * scale`` (differentiable in both), ``sample`` the same without
    a graph; ``log_prob``, ``entropy`` and ``cdf`` as PyTorch computes them."""

    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        torch = _engine()
        numbers_only = isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number)
        if not isinstance(loc, Tensor) and not isinstance(scale, Tensor):
            dt = torch.get_default_dtype()
            loc, scale = torch.tensor(float(loc), dtype=dt), torch.tensor(float(scale), dtype=dt)
        elif not isinstance(loc, Tensor):
            loc = torch.tensor(float(loc), dtype=scale.dtype, device=scale.device)
        elif not isinstance(scale, Tensor):
            scale = torch.tensor(float(scale), dtype=loc.dtype, device=loc.device)
        self.loc, self.scale = torch.broadcast_tensors(loc, scale)
        super().__init__(Size() if numbers_only else self.loc.size(), Size(), validate_args)
        if self._validate_args:
            with torch.no_grad():
                bad_loc = bool(torch.isnan(self.loc).any())
                bad_scale = not bool((self.scale > 0).all())
            if bad_loc:
                raise ValueError(f"Expected parameter loc ({type(loc).__name__} of shape {tuple(loc.shape)}) of "
                                 f"distribution {self!r} to satisfy the constraint Real(), but found invalid "
                                 f"values:\n{loc}")
            if bad_scale:
                raise ValueError(f"Expected parameter scale ({type(scale).__name__} of shape {tuple(scale.shape)}) "
                                 f"of distribution {self!r} to satisfy the constraint GreaterThan(lower_bound=0.0), "
                                 f"but found invalid values:\n{scale}")

    def _param_names(self):
        return ("loc", "scale")

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def sample(self, sample_shape=Size()):
        torch = _engine()
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=Size()):
        torch = _engine()
        shape = self._extended_shape(sample_shape)
        eps = torch.randn(tuple(shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def _check(self, value):
        torch = _engine()
        if self._validate_args:
            with torch.no_grad():
                ok = not bool(torch.isnan(value).any()) if isinstance(value, Tensor) else value == value
            if not ok:
                raise ValueError(f"Expected value argument to be within the support (Real()) of the distribution "
                                 f"{self!r}, but found invalid values:\n{value}")

    def log_prob(self, value):
        self._check(value)
        var = self.scale ** 2
        log_scale = self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        self._check(value)
        torch = _engine()
        return 0.5 * (1 + torch.erf((value - self.loc) / self.scale / math.sqrt(2)))

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()
