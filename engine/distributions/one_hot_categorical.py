"""``torch.distributions.one_hot_categorical``: OneHotCategorical, a Categorical whose samples and values
are one-hot vectors over the last dimension."""
from ..tensor import Size
from .categorical import Categorical, OverCategorical
from .distribution import Distribution

__all__ = ["OneHotCategorical"]


def _engine():
    from ... import engine
    return engine


class OneHotCategorical(OverCategorical, Distribution):
    """PyTorch's ``OneHotCategorical(probs=None, logits=None, validate_args=None)``."""

    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits, validate_args)
        super().__init__(self._categorical.batch_shape, Size((self._categorical._num_events,)), validate_args)

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        probs = self._categorical.probs
        return _engine().nn.functional.one_hot(probs.argmax(-1), probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self):
        probs = self._categorical.probs
        return probs * (1 - probs)

    def sample(self, sample_shape=Size()):
        torch = _engine()
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return torch.nn.functional.one_hot(indices, probs.shape[-1]).to(probs.dtype)

    def log_prob(self, value):
        value = self._value(value, self.probs)
        self._check_sample(value, lambda v: ((v == 0) | (v == 1)).all(-1) & (v.sum(-1) == 1), "OneHot()")
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        torch = _engine()
        n = self.event_shape[0]
        values = torch.eye(n, dtype=self.probs.dtype).view((n,) + (1,) * len(self.batch_shape) + (n,))
        return values.expand((n,) + tuple(self.batch_shape) + (n,)) if expand else values
