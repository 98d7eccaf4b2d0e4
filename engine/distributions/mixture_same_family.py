"""``torch.distributions.mixture_same_family``: a mixture of components of one family, weighted by a
Categorical (the mixture density networks' output distribution)."""
from ..tensor import Size
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


def _engine():
    from ... import engine
    return engine


class MixtureSameFamily(Distribution):
    """PyTorch's ``MixtureSameFamily(mixture_distribution, component_distribution, validate_args=None)``:
    the components' rightmost batch dimension (of size k) is mixed by the Categorical's k weights;
    ``log_prob`` is the logsumexp of the weighted component log-densities, ``sample`` picks each draw's
    component, ``mean`` and ``variance`` are the mixture's (the law of total variance)."""

    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution need to be an instance of torch.distributions.Distribution")
        mdbs = tuple(mixture_distribution.batch_shape)
        cdbs = tuple(component_distribution.batch_shape)[:-1]
        if len(mdbs) > len(cdbs):
            cdbs = (1,) * (len(mdbs) - len(cdbs)) + cdbs
        for m, c in zip(reversed(mdbs), reversed(cdbs)):
            if m != 1 and c != 1 and m != c:
                raise ValueError(f"`mixture_distribution.batch_shape` ({Size(mdbs)}) is not compatible with "
                                 f"`component_distribution.batch_shape`({Size(cdbs)})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1] if len(component_distribution.batch_shape) else None
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(Size(cdbs), component_distribution.event_shape, validate_args)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        dist_batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self._mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        shape = tuple(x.shape)
        return x.reshape(shape[:-1] + (1,) * pad_ndims + shape[-1:] + (1,) * self._event_ndims)

    @property
    def mean(self):
        torch = _engine()
        probs = self._pad_mixture_dimensions(self._mixture_distribution.probs)
        return torch.sum(probs * self._component_distribution.mean, dim=-1 - self._event_ndims)

    @property
    def variance(self):
        torch = _engine()
        probs = self._pad_mixture_dimensions(self._mixture_distribution.probs)
        dim = -1 - self._event_ndims
        mean_cond_var = torch.sum(probs * self._component_distribution.variance, dim=dim)
        var_cond_mean = torch.sum(probs * (self._component_distribution.mean - self._pad(self.mean)).pow(2.0),
                                  dim=dim)
        return mean_cond_var + var_cond_mean

    def log_prob(self, x):
        torch = _engine()
        x = self._pad(x)
        log_prob_x = self._component_distribution.log_prob(x)   # [S, B, k]
        log_mix_prob = torch.log_softmax(self._mixture_distribution.logits, dim=-1)   # [B, k]
        return torch.logsumexp(log_prob_x + log_mix_prob, dim=-1)   # [S, B]

    def sample(self, sample_shape=Size()):
        torch = _engine()
        with torch.no_grad():
            sample_len = len(tuple(sample_shape))
            batch_len = len(self.batch_shape)
            gather_dim = sample_len + batch_len
            es = tuple(self.event_shape)
            mix_sample = self._mixture_distribution.sample(sample_shape)
            mix_shape = tuple(mix_sample.shape)
            comp_samples = self._component_distribution.sample(sample_shape)
            index = mix_sample.reshape(mix_shape + (1,) * (len(es) + 1))
            index = index.repeat(*((1,) * len(mix_shape) + (1,) + es))
            return torch.gather(comp_samples, gather_dim, index).squeeze(gather_dim)

    def __repr__(self):
        return (f"MixtureSameFamily(\n  {self._mixture_distribution!r},\n  {self._component_distribution!r})")
