"""``torch.distributions.transforms``: invertible maps with the log-determinants of their Jacobians,
as PyTorch defines them (the forms PyTorch computes, so values and gradients match at the edges),
for ``TransformedDistribution``: exp, affine, sigmoid, tanh, softplus, power and their compositions.

Each transform keeps its last input and output when made with ``cache_size=1`` (PyTorch's cache):
the inverse of the last output is then the very input (a tanh-squashed policy's ``log_prob`` of its
own ``rsample`` is finite where ``atanh`` of the rounded output would be infinite)."""
import math
import numbers

from ..tensor import Tensor

__all__ = ["AffineTransform", "ComposeTransform", "ExpTransform", "PowerTransform", "SigmoidTransform",
           "SoftplusTransform", "TanhTransform", "Transform"]


def _engine():
    from ... import engine
    return engine


def _sum_rightmost(value, dims):
    """``value`` summed over its ``dims`` rightmost dimensions (PyTorch's distributions.utils helper)."""
    if dims <= 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dims]) + (-1,)).sum(-1)


class Transform:
    """The base: ``t(x)``, ``t.inv(y)`` (through ``t.inv``), ``log_abs_det_jacobian(x, y)``; ``event_dim``
    is the number of rightmost dimensions the map mixes (0: elementwise)."""

    bijective = True
    sign = 1
    event_dim = 0

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached = None   # (x, y) of the last call, with cache_size=1
        self._inv = None

    @property
    def inv(self):
        """The inverse transform (``t.inv(y)`` is ``x``)."""
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return self._remade(cache_size)

    def _remade(self, cache_size):
        raise NotImplementedError(f"{type(self).__name__}.with_cache is not implemented")

    def __call__(self, x):
        if self._cache_size == 0:
            return self._call(x)
        cached = self._cached
        if cached is not None and cached[0] is x:
            return cached[1]
        y = self._call(x)
        self._cached = (x, y)
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        cached = self._cached
        if cached is not None and cached[1] is y:
            return cached[0]
        x = self._inverse(y)
        self._cached = (x, y)
        return x

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """``t.inv``: calls the transform's inverse; its Jacobian term is the negated forward one."""

    def __init__(self, transform):
        super().__init__(transform._cache_size)
        self._forward = transform
        self.event_dim = transform.event_dim

    @property
    def inv(self):
        return self._forward

    @property
    def sign(self):
        return self._forward.sign

    def __call__(self, x):
        return self._forward._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._forward.log_abs_det_jacobian(y, x)

    def __repr__(self):
        return f"_InverseTransform({self._forward!r})"


class ExpTransform(Transform):
    """y = exp(x)."""

    def _remade(self, cache_size):
        return ExpTransform(cache_size)

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class SigmoidTransform(Transform):
    """y = sigmoid(x), kept inside (0, 1) by the dtype's tiny and eps, as PyTorch clips it."""

    def _remade(self, cache_size):
        return SigmoidTransform(cache_size)

    def _call(self, x):
        torch = _engine()
        finfo = torch.finfo(x.dtype)
        return torch.clamp(torch.sigmoid(x), min=finfo.tiny, max=1.0 - finfo.eps)

    def _inverse(self, y):
        torch = _engine()
        finfo = torch.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        F = _engine().nn.functional
        return -F.softplus(-x) - F.softplus(x)


class TanhTransform(Transform):
    """y = tanh(x); the log-Jacobian in PyTorch's stable form 2 (log 2 - x - softplus(-2x))."""

    def _remade(self, cache_size):
        return TanhTransform(cache_size)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return 0.5 * (y.log1p() - (-y).log1p())   # atanh, as PyTorch computes it

    def log_abs_det_jacobian(self, x, y):
        F = _engine().nn.functional
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class SoftplusTransform(Transform):
    """y = log(1 + exp(x))."""

    def _remade(self, cache_size):
        return SoftplusTransform(cache_size)

    def _call(self, x):
        return _engine().nn.functional.softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -_engine().nn.functional.softplus(-x)


class PowerTransform(Transform):
    """y = x ** exponent (positive x)."""

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size)
        self.exponent = exponent

    def _remade(self, cache_size):
        return PowerTransform(self.exponent, cache_size)

    @property
    def sign(self):
        e = self.exponent
        return e.sign() if isinstance(e, Tensor) else (1 if e > 0 else -1 if e < 0 else 0)

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()


class AffineTransform(Transform):
    """y = loc + scale * x; with ``event_dim`` the log-Jacobian is summed over that many rightmost
    dimensions."""

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size)
        self.loc = loc
        self.scale = scale
        self.event_dim = int(event_dim)

    def _remade(self, cache_size):
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size)

    @property
    def sign(self):
        s = self.scale
        return s.sign() if isinstance(s, Tensor) else (1 if s > 0 else -1 if s < 0 else 0)

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        torch = _engine()
        shape = tuple(x.shape)
        scale = self.scale
        if isinstance(scale, numbers.Real):
            result = torch.full_like(x, math.log(abs(scale)))
        else:
            result = torch.abs(scale).log()
        if self.event_dim:
            result = result.reshape(tuple(result.shape[:result.dim() - self.event_dim]) + (-1,)).sum(-1)
            shape = shape[:len(shape) - self.event_dim]
        return result.expand(shape)

    def __repr__(self):
        return f"AffineTransform(loc={self.loc!r}, scale={self.scale!r}, event_dim={self.event_dim})"


class ComposeTransform(Transform):
    """The transforms applied in order; the log-Jacobian is the sum of theirs, each summed over the
    event dimensions it does not mix itself."""

    def __init__(self, parts, cache_size=0):
        parts = list(parts)
        for part in parts:
            if not isinstance(part, Transform):
                raise TypeError(f"ComposeTransform expects transforms, got {type(part).__name__}")
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size)
        self.parts = parts
        self.event_dim = max((part.event_dim for part in parts), default=0)

    def _remade(self, cache_size):
        return ComposeTransform(self.parts, cache_size)

    @property
    def sign(self):
        s = 1
        for part in self.parts:
            s = s * part.sign
        return s

    def _call(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def _inverse(self, y):
        for part in reversed(self.parts):
            y = part.inv(y)
        return y

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return _engine().zeros_like(x)
        terms = []
        for part in self.parts[:-1]:
            y_part = part(x)
            terms.append(_sum_rightmost(part.log_abs_det_jacobian(x, y_part), self.event_dim - part.event_dim))
            x = y_part
        last = self.parts[-1]
        terms.append(_sum_rightmost(last.log_abs_det_jacobian(x, y), self.event_dim - last.event_dim))
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        return total

    def __repr__(self):
        return "ComposeTransform(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"
