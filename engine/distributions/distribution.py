"""``torch.distributions.distribution``: the base class of the engine's distributions."""
from ..tensor import Size, Tensor

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
        # PyTorch's: a one-element parameter shows its value, a larger one its size
        params = ", ".join(f"{k}: {_shown(getattr(self, k))}" for k in self._param_names())
        return f"{type(self).__name__}({params})"

    def _param_names(self):
        return ()


def _shown(v):
    if not hasattr(v, "numel"):
        return v
    if v.numel() != 1:
        return v.size()
    return v.item() if v.dim() == 0 else v   # a 0-d tensor formats as its number in PyTorch


def check_parameter(dist, name, given, value, ok, constraint):
    """PyTorch's error for a parameter outside its constraint (``ok``: the check, as a bool tensor);
    ``dist`` is the distribution, or the text PyTorch shows for it."""
    if not bool(ok.all()):
        shown = dist if isinstance(dist, str) else repr(dist)
        raise ValueError(f"Expected parameter {name} ({type(given).__name__} of shape {tuple(given.shape)}) of "
                         f"distribution {shown} to satisfy the constraint {constraint}, but found invalid values:\n"
                         f"{_invalid(value)}")


def check_sample(dist, value, ok, support):
    """PyTorch's error for a ``log_prob`` value outside the support (``ok``: the check, as a bool tensor)."""
    if not bool(ok.all()):
        raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                         f"within the support ({support}) of the distribution {dist!r}, but found invalid values:\n"
                         f"{_invalid(value)}")


def _invalid(value):
    """The values an error shows: a 0-d tensor as its number, as PyTorch 2.13's messages."""
    return value.item() if isinstance(value, Tensor) and value.dim() == 0 else value


def as_params(*values):
    """Tensors broadcast together from tensors and Python numbers (numbers take the tensors' dtype, or the
    default dtype when all are numbers), and whether all were numbers (a batch shape of ())."""
    from ... import engine as torch
    numbers_only = not any(isinstance(v, Tensor) for v in values)
    like = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = like.dtype if like is not None else torch.get_default_dtype()
    device = like.device if like is not None else None
    tensors = [v if isinstance(v, Tensor) else torch.tensor(float(v), dtype=dtype, device=device) for v in values]
    return torch.broadcast_tensors(*tensors), numbers_only
