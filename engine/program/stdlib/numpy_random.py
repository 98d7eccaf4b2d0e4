"""Program-side ``numpy.random``: NumPy's legacy functions drawing from the session's own
``RandomState`` (so ``np.random.seed(0); np.random.rand(3)`` gives NumPy's numbers), its
``RandomState`` and ``default_rng`` for generators of the program's own. Sizes are checked
before anything is drawn."""
import numpy as _np

from . import session_state, step
from .numpy import _check_count, _host, _out, _shape_count, ndarray

__all__ = ["seed", "rand", "randn", "randint", "random", "random_sample", "ranf", "sample", "normal", "uniform",
           "choice", "permutation", "shuffle", "standard_normal", "binomial", "poisson", "exponential", "beta",
           "gamma", "multinomial", "laplace", "lognormal", "geometric", "logistic", "gumbel",
           "chisquare", "standard_t", "dirichlet", "multivariate_normal", "triangular", "get_state", "set_state",
           "RandomState", "default_rng", "Generator"]

_SIZED = ("random", "random_sample", "ranf", "sample", "normal", "uniform", "standard_normal", "binomial",
          "poisson", "exponential", "beta", "gamma", "laplace", "lognormal", "geometric", "logistic", "gumbel",
          "chisquare", "standard_t", "triangular", "integers")


def _check_size(size):
    if size is not None:
        _check_count(_shape_count(size))


def _draw(gen, name, args, kwargs):
    args = [_host(a) for a in args]
    kwargs = {k: _host(v) for k, v in kwargs.items()}
    if "size" in kwargs:
        _check_size(kwargs["size"])
    return _out(getattr(gen, name)(*args, **kwargs))


class _Draws:
    """The drawing methods shared by RandomState and Generator."""
    __slots__ = ("_g",)

    def _call(self, name, args, kwargs, size_at=None):
        if size_at is not None and len(args) > size_at:
            _check_size(_host(args[size_at]))
        return _draw(self._g, name, args, kwargs)

    def random(self, size=None):
        return self._call("random", (size,), {}, 0)

    def normal(self, loc=0.0, scale=1.0, size=None):
        return self._call("normal", (loc, scale, size), {}, 2)

    def uniform(self, low=0.0, high=1.0, size=None):
        return self._call("uniform", (low, high, size), {}, 2)

    def standard_normal(self, size=None):
        return self._call("standard_normal", (size,), {}, 0)

    def exponential(self, scale=1.0, size=None):
        return self._call("exponential", (scale, size), {}, 1)

    def poisson(self, lam=1.0, size=None):
        return self._call("poisson", (lam, size), {}, 1)

    def binomial(self, n, p, size=None):
        return self._call("binomial", (n, p, size), {}, 2)

    def beta(self, a, b, size=None):
        return self._call("beta", (a, b, size), {}, 2)

    def gamma(self, shape, scale=1.0, size=None):
        return self._call("gamma", (shape, scale, size), {}, 2)

    def laplace(self, loc=0.0, scale=1.0, size=None):
        return self._call("laplace", (loc, scale, size), {}, 2)

    def lognormal(self, mean=0.0, sigma=1.0, size=None):
        return self._call("lognormal", (mean, sigma, size), {}, 2)

    def geometric(self, p, size=None):
        return self._call("geometric", (p, size), {}, 1)

    def logistic(self, loc=0.0, scale=1.0, size=None):
        return self._call("logistic", (loc, scale, size), {}, 2)

    def gumbel(self, loc=0.0, scale=1.0, size=None):
        return self._call("gumbel", (loc, scale, size), {}, 2)

    def chisquare(self, df, size=None):
        return self._call("chisquare", (df, size), {}, 1)

    def standard_t(self, df, size=None):
        return self._call("standard_t", (df, size), {}, 1)

    def triangular(self, left, mode, right, size=None):
        return self._call("triangular", (left, mode, right, size), {}, 3)

    def dirichlet(self, alpha, size=None):
        _check_size(_host(size))
        return self._call("dirichlet", (alpha, size), {})

    def multinomial(self, n, pvals, size=None):
        _check_size(_host(size))
        return self._call("multinomial", (n, pvals, size), {})

    def multivariate_normal(self, mean, cov, size=None, **kwargs):
        _check_size(_host(size))
        return self._call("multivariate_normal", (mean, cov, size), kwargs)

    def choice(self, a, size=None, replace=True, p=None):
        _check_size(_host(size))
        return self._call("choice", (a, size, replace, p), {})

    def permutation(self, x):
        if isinstance(x, int):
            _check_count(x)
        return self._call("permutation", (x,), {})

    def shuffle(self, x):
        if type(x) is ndarray:
            step(x._a.size // 8)
            self._g.shuffle(x._a)
        elif type(x) is list:
            step(len(x))
            self._g.shuffle(x)
        else:
            raise TypeError("shuffle takes an array or a list in programs")


class RandomState(_Draws):
    """NumPy's legacy generator (Mersenne Twister), of the program's own."""
    __slots__ = ()

    def __init__(self, seed=None):
        self._g = _np.random.RandomState(_seed(seed))

    def seed(self, seed=None):
        self._g.seed(_seed(seed))

    def rand(self, *shape):
        _check_count(_shape_count(shape))
        return _out(self._g.rand(*[int(s) for s in shape]))

    def randn(self, *shape):
        _check_count(_shape_count(shape))
        return _out(self._g.randn(*[int(s) for s in shape]))

    def randint(self, low, high=None, size=None, dtype=int):
        from .numpy import _as_np_dtype
        _check_size(_host(size))
        return _out(self._g.randint(_host(low), _host(high), _host(size), dtype=_as_np_dtype(dtype)))

    def random_sample(self, size=None):
        return self.random(size)

    ranf = sample = random_sample

    def get_state(self):
        return _out(self._g.get_state())

    def set_state(self, state):
        if not (type(state) is tuple and len(state) == 5 and state[0] == "MT19937"):
            raise ValueError("set_state takes the tuple get_state() gave")
        self._g.set_state(tuple(_host(v) for v in state))

    def __repr__(self):
        return "RandomState(MT19937)"


class Generator(_Draws):
    """NumPy's new-style generator (PCG64) from ``default_rng(seed)``."""
    __slots__ = ()

    def __init__(self, seed=None):
        self._g = _np.random.default_rng(_seed(seed))

    def integers(self, low, high=None, size=None, dtype=_np.int64, endpoint=False):
        from .numpy import _as_np_dtype
        _check_size(_host(size))
        return _out(self._g.integers(_host(low), _host(high), _host(size),
                                     dtype=_as_np_dtype(dtype) if dtype is not _np.int64 else dtype,
                                     endpoint=endpoint))

    def __repr__(self):
        return "Generator(PCG64)"


def _seed(seed):
    if seed is None or type(seed) is int:
        return seed
    if type(seed) in (list, tuple) or type(seed) is ndarray:
        return _host(seed)
    raise TypeError("seed must be an integer, a list of integers or None")


def default_rng(seed=None):
    return Generator(seed)


def _state():
    return session_state("numpy.random", RandomState)


def _legacy(name):
    def f(*args, **kwargs):
        return getattr(_state(), name)(*args, **kwargs)
    f.__name__ = f.__qualname__ = name
    return f


for _name in ("seed", "rand", "randn", "randint", "random", "random_sample", "ranf", "sample", "normal",
              "uniform", "choice", "permutation", "shuffle", "standard_normal", "binomial", "poisson",
              "exponential", "beta", "gamma", "multinomial", "laplace", "lognormal", "geometric", "logistic",
              "gumbel", "chisquare", "standard_t", "dirichlet", "multivariate_normal", "triangular", "get_state",
              "set_state"):
    globals()[_name] = _legacy(_name)
del _name

