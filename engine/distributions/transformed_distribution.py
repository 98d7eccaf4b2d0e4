"""``torch.distributions.transformed_distribution``: a base distribution pushed through transforms
(``TransformedDistribution``), and ``LogNormal``, the exponential of a Normal."""
from ..tensor import Size
from .distribution import Distribution
from .independent import Independent
from .normal import Normal
from .transforms import ComposeTransform, ExpTransform, Transform, _sum_rightmost

__all__ = ["LogNormal", "TransformedDistribution"]


class TransformedDistribution(Distribution):
    """PyTorch's ``TransformedDistribution(base_distribution, transforms, validate_args=None)``:
    samples are the base's pushed through the transforms in order; ``log_prob`` pulls a value back
    through their inverses, subtracting each log-Jacobian. Transforms that mix event dimensions make
    the base's rightmost batch dimensions event dimensions (as ``Independent``)."""

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            transforms = [transforms]
        elif isinstance(transforms, (list, tuple)):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            transforms = list(transforms)
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        self.transforms = transforms
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        base_event_dim = len(base_distribution.event_shape)
        event_dim = ComposeTransform(transforms).event_dim
        if len(base_shape) < event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least {event_dim}, but got "
                             f"{Size(base_shape)}.")
        if event_dim > base_event_dim:
            base_distribution = Independent(base_distribution, event_dim - base_event_dim)
        self.base_dist = base_distribution
        event_dim = max(event_dim, base_event_dim)
        cut = len(base_shape) - event_dim
        super().__init__(Size(base_shape[:cut]), Size(base_shape[cut:]), validate_args)

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    def sample(self, sample_shape=Size()):
        from ..autograd.grad_mode import no_grad
        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for transform in self.transforms:
                x = transform(x)
            return x

    def rsample(self, sample_shape=Size()):
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value):
        event_dim = len(self.event_shape)
        log_prob = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            log_prob = log_prob - _sum_rightmost(transform.log_abs_det_jacobian(x, y),
                                                 event_dim - transform.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape))

    def __repr__(self):
        return f"{type(self).__name__}()"


class LogNormal(TransformedDistribution):
    """PyTorch's ``LogNormal(loc, scale, validate_args=None)``: exp of Normal(loc, scale)."""

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(),
                         validate_args=validate_args)

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc

    def __repr__(self):
        return Distribution.__repr__(self)

    def _param_names(self):
        return ("loc", "scale")
