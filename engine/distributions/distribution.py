"""``torch.distributions.distribution``: the base class of the engine's distributions."""
from ..tensor import Size

__all__ = ["Distribution"]


class Distribution:
    """A parameterised probability distribution: its batch and event shapes, sampling and
    log-densities, with PyTorch's argument validation (on by default, as under ``python``
    without ``-O``)."""

    has_rsample = False
    _validate_default = True

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None):
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        self._validate_args = self._validate_default if validate_args is None else bool(validate_args)

    @staticmethod
    def set_default_validate_args(value):
        Distribution._validate_default = bool(value)

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended_shape(self, sample_shape=Size()):
        if not isinstance(sample_shape, tuple):
            sample_shape = tuple(sample_shape)
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def sample(self, sample_shape=Size()):
        from ..autograd.grad_mode import no_grad
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()):
        raise NotImplementedError(f"{type(self).__name__} does not implement rsample")

    def sample_n(self, n):
        return self.sample(Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        from ..ops.elementwise import exp
        return exp(self.entropy())

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{type(self).__name__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def __repr__(self):
        params = ", ".join(f"{k}: {getattr(self, k).size() if hasattr(getattr(self, k), 'size') else getattr(self, k)}"
                           for k in self._param_names())
        return f"{type(self).__name__}({params})"

    def _param_names(self):
        return ()
