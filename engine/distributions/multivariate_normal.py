"""``torch.distributions.multivariate_normal``: the multivariate Normal, parameterised by its mean
and one of covariance, precision or the lower-triangular Cholesky factor of the covariance."""
import math

from ..tensor import Size, Tensor
from .distribution import Distribution

__all__ = ["MultivariateNormal"]


def _engine():
    from ... import engine
    return engine


def _batch_mahalanobis(scale_tril, diff):
    """|L^-1 diff|^2 over the event dim, L broadcast against diff's batch."""
    torch = _engine()
    y = torch.linalg.solve_triangular(scale_tril, diff.unsqueeze(-1), upper=False).squeeze(-1)
    return y.pow(2).sum(-1)


class MultivariateNormal(Distribution):
    """PyTorch's ``MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None,
    scale_tril=None, validate_args=None)``: exactly one of the three matrices; ``rsample`` is
    ``loc + L eps`` with L the covariance's Cholesky factor; ``log_prob`` and ``entropy`` as
    PyTorch computes them."""

    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        torch = _engine()
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        given = scale_tril if scale_tril is not None else (
            covariance_matrix if covariance_matrix is not None else precision_matrix)
        name = ("scale_tril" if scale_tril is not None else
                "covariance_matrix" if covariance_matrix is not None else "precision_matrix")
        if given.dim() < 2:
            raise ValueError(f"{name} matrix must be at least two-dimensional, with optional leading batch "
                             f"dimensions")
        batch_shape = torch.broadcast_shapes(tuple(given.shape[:-2]), tuple(loc.shape[:-1]))
        event = (loc.shape[-1],)
        matrix = given.expand(tuple(batch_shape) + (-1, -1))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        self._param = name
        super().__init__(Size(batch_shape), Size(event), validate_args)
        self.__dict__[name] = matrix
        if self._validate_args:
            self._validate_matrix(name, given)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def _validate_matrix(self, name, value):
        torch = _engine()
        with torch.no_grad():
            if name == "scale_tril":
                ok = bool((value == value.tril()).all()) and bool((value.diagonal(0, -2, -1) > 0).all())
                constraint = "LowerCholesky()"
            else:
                symmetric = bool(torch.isclose(value, value.mT, atol=1e-6).all())
                try:
                    torch.linalg.cholesky(value)
                    definite = True
                except RuntimeError:
                    definite = False
                ok = symmetric and definite
                constraint = "PositiveDefinite()"
        if not ok:
            raise ValueError(f"Expected parameter {name} ({type(value).__name__} of shape {tuple(value.shape)}) of "
                             f"distribution {self!r} to satisfy the constraint {constraint}, but found invalid "
                             f"values:\n{value}")

    def _param_names(self):
        return ("loc", self._param)

    def __repr__(self):
        return (f"MultivariateNormal(loc: {self.loc.size()}, {self._param}: "
                f"{getattr(self, self._param).size()})")

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def scale_tril(self):
        found = self.__dict__.get("scale_tril")
        if found is not None:
            return found
        return self._unbroadcasted_scale_tril.expand(tuple(self._batch_shape) + tuple(self._event_shape) * 2)

    @scale_tril.setter
    def scale_tril(self, value):
        self.__dict__["scale_tril"] = value

    @property
    def covariance_matrix(self):
        found = self.__dict__.get("covariance_matrix")
        if found is not None:
            return found
        low = self._unbroadcasted_scale_tril
        return (low @ low.mT).expand(tuple(self._batch_shape) + tuple(self._event_shape) * 2)

    @covariance_matrix.setter
    def covariance_matrix(self, value):
        self.__dict__["covariance_matrix"] = value

    @property
    def precision_matrix(self):
        found = self.__dict__.get("precision_matrix")
        if found is not None:
            return found
        torch = _engine()
        return torch.cholesky_inverse(self._unbroadcasted_scale_tril).expand(
            tuple(self._batch_shape) + tuple(self._event_shape) * 2)

    @precision_matrix.setter
    def precision_matrix(self, value):
        self.__dict__["precision_matrix"] = value

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape)
                                                                    + tuple(self._event_shape))

    def rsample(self, sample_shape=Size()):
        torch = _engine()
        shape = self._extended_shape(sample_shape)
        eps = torch.randn(tuple(shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        if self._validate_args and isinstance(value, Tensor) and tuple(value.shape[-1:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: {tuple(value.shape)} vs "
                             f"{tuple(self._event_shape)}.")
        diff = value - self.loc
        m = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return h
        return h.expand(tuple(self._batch_shape))


def _precision_to_scale_tril(p):
    """The Cholesky factor of P^-1, from P: flip, factor, flip (PyTorch's way, without inverting P)."""
    torch = _engine()
    lf = torch.linalg.cholesky(torch.flip(p, (-2, -1)))
    l_inv = torch.transpose(torch.flip(lf, (-2, -1)), -2, -1)
    eye = torch.eye(p.shape[-1], dtype=p.dtype, device=p.device)
    return torch.linalg.solve_triangular(l_inv, eye, upper=False)
