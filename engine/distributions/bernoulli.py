"""``torch.distributions.bernoulli``: the Bernoulli distribution, by probs or by logits."""
from ..tensor import Size, Tensor
from .distribution import Distribution, as_params, check_parameter

__all__ = ["Bernoulli"]


def _engine():
    from ... import engine
    return engine


class Bernoulli(Distribution):
    """PyTorch's ``Bernoulli(probs=None, logits=None, validate_args=None)``: ``log_prob`` and ``entropy``
    are binary cross-entropies with logits, as PyTorch computes them; ``sample`` draws 0./1. floats."""

    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        torch = _engine()
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        (param,), numbers_only = as_params(given)
        self._given = "probs" if probs is not None else "logits"
        self._probs, self._logits = (param, None) if probs is not None else (None, param)
        super().__init__(Size() if numbers_only else param.size(), Size(), validate_args)
        if self._validate_args:
            with torch.no_grad():
                if probs is not None:
                    check_parameter(self, "probs", given if isinstance(given, Tensor) else param, param,
                                    (param >= 0) & (param <= 1), "Interval(lower_bound=0.0, upper_bound=1.0)")
                else:
                    check_parameter(self, "logits", given if isinstance(given, Tensor) else param, param,
                                    ~torch.isnan(param), "Real()")

    def _param_names(self):
        return (self._given,)

    @property
    def probs(self):
        if self._probs is None:
            self._probs = self._logits.sigmoid()
        return self._probs

    @property
    def logits(self):
        if self._logits is None:   # PyTorch's probs_to_logits: clamped to (eps, 1 - eps)
            eps = _engine().finfo(self._probs.dtype).eps
            p = self._probs.clamp(min=eps, max=1 - eps)
            self._logits = p.log() - (-p).log1p()
        return self._logits

    @property
    def param_shape(self):
        return (self._probs if self._probs is not None else self._logits).size()

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        torch = _engine()
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return torch.where(self.probs == 0.5, float("nan"), mode)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()):
        torch = _engine()
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.bernoulli(self.probs.expand(tuple(shape)))

    def log_prob(self, value):
        torch = _engine()
        value = self._value(value, self.probs)
        self._check_sample(value, lambda v: (v == 0) | (v == 1), "Boolean()")
        logits, value = torch.broadcast_tensors(self.logits, value)
        return -torch.nn.functional.binary_cross_entropy_with_logits(logits, value.to(logits.dtype), reduction="none")

    def entropy(self):
        torch = _engine()
        return torch.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        torch = _engine()
        values = torch.arange(2, dtype=self.probs.dtype).view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
