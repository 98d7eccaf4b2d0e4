"""``torch.distributions.categorical``: Categorical over the last dimension of probs or logits."""
import math

from ..tensor import Size, Tensor
from .distribution import Distribution

__all__ = ["Categorical", "OverCategorical"]


def _engine():
    from ... import engine   # the package (imported once its modules are all there)
    return engine


class Categorical(Distribution):
    """PyTorch's ``Categorical(probs=None, logits=None, validate_args=None)``: probs are normalised
    over the last dimension (logits by subtracting their logsumexp); ``sample`` draws int64 indices
    of shape ``sample_shape + batch_shape``; ``log_prob`` and ``entropy`` are differentiable."""

    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        torch = _engine()
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            probs = probs if isinstance(probs, Tensor) else torch.tensor(probs, dtype=torch.get_default_dtype())
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self._given = "probs"
            self._probs = probs / probs.sum(-1, keepdim=True)
            self._logits = None
            param = probs
        else:
            logits = logits if isinstance(logits, Tensor) else torch.tensor(logits, dtype=torch.get_default_dtype())
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self._given = "logits"
            self._logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            self._probs = None
            param = logits
        self._param = self._probs if probs is not None else self._logits
        self._num_events = param.size(-1)
        super().__init__(Size(tuple(param.shape[:-1])), Size(), validate_args)
        if self._validate_args:
            self._check_parameter(param)

    def _check_parameter(self, param):
        torch = _engine()
        with torch.no_grad():
            value = self._param
            if self._given == "probs":
                ok = bool(((value >= 0) & (value <= 1)).all()) and bool(
                    ((value.sum(-1) - 1).abs() < 1e-6).all())
                constraint = "Simplex()"
            else:
                ok = not bool(torch.isnan(value).any())
                constraint = "IndependentConstraint(Real(), 1)"
        if not ok:
            raise ValueError(f"Expected parameter {self._given} ({type(param).__name__} of shape {tuple(param.shape)}) "
                             f"of distribution {self!r} to satisfy the constraint {constraint}, but found invalid "
                             f"values:\n{param}")

    def _param_names(self):
        return (self._given,)

    @property
    def probs(self):
        if self._probs is None:
            self._probs = self._logits.softmax(-1)
        return self._probs

    @property
    def logits(self):
        if self._logits is None:
            eps = _engine().finfo(self._probs.dtype).eps
            self._logits = self._probs.clamp(min=eps, max=1 - eps).log()
        return self._logits

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return _engine().full(self._extended_shape(), math.nan, dtype=self._param.dtype)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return _engine().full(self._extended_shape(), math.nan, dtype=self._param.dtype)

    def sample(self, sample_shape=Size()):
        torch = _engine()
        if not isinstance(sample_shape, tuple):
            sample_shape = tuple(sample_shape)
        sample_shape = Size(sample_shape)
        n = 1
        for s in sample_shape:
            n *= s
        with torch.no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            samples_2d = torch.multinomial(probs_2d, n, True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        torch = _engine()
        if not isinstance(value, Tensor):
            value = torch.tensor(value)
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = torch.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def _validate_sample(self, value):
        torch = _engine()
        with torch.no_grad():
            ok = bool((value == value.floor()).all()) and bool(((value >= 0) & (value <= self._num_events - 1)).all())
        if not ok:
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support (IntegerInterval(lower_bound=0, upper_bound="
                             f"{self._num_events - 1})) of the distribution {self!r}, but found invalid values:\n"
                             f"{value}")
        try:
            torch.broadcast_shapes(tuple(value.shape), tuple(self._batch_shape))
        except RuntimeError:
            raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {tuple(value.shape)} vs "
                             f"{tuple(self._batch_shape)}.") from None

    def entropy(self):
        torch = _engine()
        min_real = torch.finfo(self.logits.dtype).min
        logits = self.logits.clamp(min=min_real)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand=True):
        torch = _engine()
        values = torch.arange(self._num_events, dtype=torch.long, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values


class OverCategorical:
    """What a distribution built over a Categorical it holds (``self._categorical``: OneHotCategorical,
    Multinomial) shows of it: probs, logits and param_shape, and PyTorch's bare repr (its parameters
    live in the Categorical)."""

    def __repr__(self):
        return f"{type(self).__name__}()"

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape
