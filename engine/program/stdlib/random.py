"""Program-side ``random``: the session's own Mersenne Twister (CPython's algorithm, so a
seeded program draws CPython's numbers), never the host's shared generator. The
module-level functions draw from the session's generator; ``Random()`` makes another.
Sizes (``k``, ``getrandbits``) are checked and each drawn item costs a step."""
import random as _host

from .. import guards
from . import materialize, session_state, step, check_sequence

__all__ = ["Random", "seed", "random", "uniform", "randint", "randrange", "gauss", "normalvariate", "choice",
           "choices", "shuffle", "sample", "getstate", "setstate", "getrandbits", "triangular", "betavariate",
           "expovariate", "gammavariate", "lognormvariate", "vonmisesvariate", "paretovariate",
           "weibullvariate", "binomialvariate"]

_SEQ = (list, tuple, str, range)


def _seed_ok(a):
    if a is None or type(a) in (int, float, str, bytes, bool):
        return a
    raise TypeError("The only supported seed types are: None, int, float, str and bytes")


def _population(seq):
    return seq if type(seq) in _SEQ else materialize(seq)


class Random:
    """A random generator of the program's own (``random.Random(seed)``)."""
    __slots__ = ("_r",)

    def __init__(self, x=None):
        self._r = _host.Random()
        self._r.seed(_seed_ok(x))

    def seed(self, a=None, version=2):
        self._r.seed(_seed_ok(a), version if version in (1, 2) else 2)

    def random(self):
        return self._r.random()

    def uniform(self, a, b):
        return self._r.uniform(a, b)

    def triangular(self, low=0.0, high=1.0, mode=None):
        return self._r.triangular(low, high, mode)

    def randint(self, a, b):
        return self._r.randint(a, b)

    def randrange(self, start, stop=None, step=1):
        return self._r.randrange(start, stop, step)

    def getrandbits(self, k):
        if type(k) is int and k > guards.MAX_INT_BITS:
            raise guards.abort_int(k)
        return self._r.getrandbits(k)

    def gauss(self, mu=0.0, sigma=1.0):
        return self._r.gauss(mu, sigma)

    def normalvariate(self, mu=0.0, sigma=1.0):
        return self._r.normalvariate(mu, sigma)

    def lognormvariate(self, mu, sigma):
        return self._r.lognormvariate(mu, sigma)

    def expovariate(self, lambd=1.0):
        return self._r.expovariate(lambd)

    def vonmisesvariate(self, mu, kappa):
        return self._r.vonmisesvariate(mu, kappa)

    def gammavariate(self, alpha, beta):
        return self._r.gammavariate(alpha, beta)

    def betavariate(self, alpha, beta):
        return self._r.betavariate(alpha, beta)

    def paretovariate(self, alpha):
        return self._r.paretovariate(alpha)

    def weibullvariate(self, alpha, beta):
        return self._r.weibullvariate(alpha, beta)

    def binomialvariate(self, n=1, p=0.5):
        if type(n) is int and n > 1 << 40:
            raise ValueError("binomialvariate: n is too large for programs")
        return self._r.binomialvariate(n, p)

    def choice(self, seq):
        return self._r.choice(_population(seq))

    def choices(self, population, weights=None, *, cum_weights=None, k=1):
        if type(k) is int:
            check_sequence(k)
            step(k)
        pop = _population(population)
        if weights is not None:
            weights = materialize(weights)
        if cum_weights is not None:
            cum_weights = materialize(cum_weights)
        return self._r.choices(pop, weights, cum_weights=cum_weights, k=k)

    def shuffle(self, x):
        if type(x) is not list:
            raise TypeError("random.shuffle() in programs shuffles a list")
        step(len(x))
        self._r.shuffle(x)

    def sample(self, population, k, *, counts=None):
        if type(k) is int:
            check_sequence(k)
            step(k)
        pop = _population(population)
        if counts is not None:
            counts = materialize(counts)
            total = 0
            for c in counts:
                if type(c) is int:
                    total += c
            check_sequence(total)
            step(total)
        return self._r.sample(pop, k, counts=counts)

    def getstate(self):
        return self._r.getstate()

    def setstate(self, state):
        if not (type(state) is tuple and len(state) == 3 and type(state[1]) is tuple and len(state[1]) == 625
                and all(type(v) is int for v in state[1])):
            raise ValueError("state vector is the wrong size or type")
        self._r.setstate(state)

    def __repr__(self):
        return "<random.Random object>"


def _gen():
    return session_state("random", Random)


def _module_function(name):
    method = getattr(Random, name)

    def f(*args, **kwargs):
        return method(_gen(), *args, **kwargs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = method.__doc__
    return f


for _name in __all__[1:]:
    globals()[_name] = _module_function(_name)
del _name
