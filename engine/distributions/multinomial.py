"""``torch.distributions.multinomial``: Multinomial, the counts of ``total_count`` draws from a Categorical
over the last dimension of probs or logits (d2l's coin tosses: ``Multinomial(100, fair_probs).sample()``)."""
import builtins

from ..tensor import Size
from .categorical import Categorical, OverCategorical
from .distribution import Distribution

__all__ = ["Multinomial"]


def _engine():
    from ... import engine
    return engine


class Multinomial(OverCategorical, Distribution):
    """PyTorch's ``Multinomial(total_count=1, probs=None, logits=None, validate_args=None)``: a homogeneous
    (Python int) total count; samples are counts in probs' dtype, of shape
    ``sample_shape + batch_shape + event_shape``; ``log_prob`` and ``entropy`` are differentiable."""

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, builtins.int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        super().__init__(self._categorical.batch_shape, Size(tuple(self._categorical.param_shape[-1:])), validate_args)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()):
        """The counts of ``total_count`` categorical draws per sample, as PyTorch's: the draws go to
        the last dimension and are added up with scatter_add_."""
        torch = _engine()
        sample_shape = Size(tuple(sample_shape))
        samples = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        shifted = list(range(samples.dim()))
        shifted.append(shifted.pop(0))
        samples = samples.permute(*shifted)
        counts = torch.zeros(self._extended_shape(sample_shape), dtype=samples.dtype)
        counts.scatter_add_(-1, samples, torch.ones_like(samples))
        return counts.type_as(self.probs)

    def log_prob(self, value):
        torch = _engine()
        value = self._value(value, self.probs)
        self._check_sample(value, lambda v: (v >= 0).all(-1) & (v.sum(-1) <= self.total_count), "Multinomial()")
        logits, value = torch.broadcast_tensors(self.logits, value)
        logits = logits.clone()
        log_factorial_n = torch.lgamma(value.sum(-1) + 1)
        log_factorial_xs = torch.lgamma(value + 1).sum(-1)
        logits = logits.masked_fill((value == 0) & (logits == -float("inf")), 0)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers

    def entropy(self):
        """PyTorch's: n H(categorical) - log n! plus the expected log k! of each category's Binomial count."""
        torch = _engine()
        probs = self.probs
        n = torch.tensor(self.total_count)   # an int64 tensor, as PyTorch's: lgamma(n + 1) in the default dtype
        term1 = n * self._categorical.entropy() - torch.lgamma(n + 1)
        n = n.to(probs.dtype)
        support = torch.arange(1, self.total_count + 1, dtype=probs.dtype).view(
            (-1,) + (1,) * (len(self.batch_shape) + 1))
        # each category's Binomial(n, p) log-probabilities, as PyTorch's: from the clamped probs' logits
        eps = torch.finfo(probs.dtype).eps
        p = probs.clamp(min=eps, max=1 - eps)
        logits = torch.log(p) - torch.log1p(-p)
        clamped = (logits.clamp(min=0) + logits - logits.clamp(max=0)) / 2   # max(x, 0) with gradient 1/2 at 0
        normalize = n * clamped + n * torch.log1p(torch.exp(-logits.abs())) - torch.lgamma(n + 1)
        binomial_log_probs = (support * logits - torch.lgamma(support + 1) - torch.lgamma(n - support + 1)
                              - normalize)
        weights = torch.lgamma(support + 1)
        return term1 + (torch.exp(binomial_log_probs) * weights).sum([0, -1])
