"""Special functions: lgamma, digamma, polygamma, erfinv, mvlgamma, logit, and the
``torch.special`` names built on them.

NumPy has none of these as ufuncs (and the engine has no SciPy), so each is computed here in
float64, vectorised, following the algorithms PyTorch's CPU kernels use where their choices show
in the values (digamma's and trigamma's recurrences and reflections, polygamma through the
Hurwitz zeta function, erfinv refined by Newton steps on erf), and cast to the input's dtype.
On a GPU, CuPy's ``cupyx.scipy.special`` computes them.

Derivatives chain into one another: lgamma' = digamma, digamma' = polygamma(1, .),
polygamma(n, .)' = polygamma(n + 1, .), so every order of gradient is an op of this module.
"""
import math

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..device import get_array_module
from ..tensor import Tensor
from .elementwise import _unary, _unary_fn, erf_numpy

__all__ = ["lgamma", "digamma", "polygamma", "erfinv", "mvlgamma", "logit"]


def _cupy_special(name):
    import cupyx.scipy.special
    return getattr(cupyx.scipy.special, name)


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)


def _float64(x):
    return np.asarray(x, dtype=np.float64)


# --------------------------------------------------------------- lgamma
# Lanczos' approximation (g = 7, nine terms): relative error below 1e-15 for x >= 0.5
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def _lgamma_lanczos(x):
    """log(Gamma(x)) for x >= 0.5."""
    z = x - 1.0
    a = np.full(x.shape, _LANCZOS[0])
    for i in range(1, 9):
        a += _LANCZOS[i] / (z + i)
    t = z + (_LANCZOS_G + 0.5)
    with np.errstate(over="ignore", invalid="ignore"):
        out = _HALF_LOG_2PI + (z + 0.5) * np.log(t) - t + np.log(a)
    out[np.isposinf(x)] = np.inf
    out[(x == 1.0) | (x == 2.0)] = 0.0   # exactly, as C's lgamma (the sum above leaves an ulp or two)
    return out


def lgamma_numpy(x):
    """log|Gamma(x)| in float64: inf at 0, at the negative integers and at -inf, as C's lgamma."""
    x = _float64(x)
    out = np.empty(x.shape)
    high = x >= 0.5
    out[high] = _lgamma_lanczos(x[high])
    low = ~high & ~np.isnan(x)
    if low.any():
        # reflection: log|Gamma(x)| = log(pi / |sin(pi x)|) - log Gamma(1 - x), with sin taken of x's
        # distance to the nearest integer (exact), so it is accurate next to the poles
        xl = x[low]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            s = np.abs(np.sin(math.pi * (xl - np.round(xl))))
            r = np.log(math.pi / s) - _lgamma_lanczos(1.0 - xl)
        r[(xl == np.floor(xl)) | np.isinf(xl)] = np.inf
        out[low] = r
    out[np.isnan(x)] = np.nan
    return out


# --------------------------------------------------------------- digamma
_PSI_10 = 2.25175258906672110764
_DIGAMMA_A = (8.33333333333333333333e-2, -2.10927960927960927961e-2, 7.57575757575757575758e-3,
              -4.16666666666666666667e-3, 3.96825396825396825397e-3, -8.33333333333333333333e-3,
              8.33333333333333333333e-2)


def _digamma_positive(x):
    """digamma(x) for x > 0: pushed to x >= 10 by psi(x) = psi(x + 1) - 1/x, then the asymptotic
    series (PyTorch's calc_digamma)."""
    x = x.copy()
    result = np.zeros(x.shape)
    small = x < 10
    while small.any():
        xs = x[small]
        result[small] -= 1.0 / xs
        x[small] = xs + 1.0
        small = x < 10
    with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
        z = 1.0 / (x * x)
        poly = np.zeros(x.shape)
        for c in _DIGAMMA_A:   # highest power first (Cephes' polevl)
            poly = poly * z + c
        y = np.where(x < 1.0e17, z * poly, 0.0)
        out = result + np.log(x) - 0.5 / x - y
    exact = x == 10
    out[exact] = result[exact] + _PSI_10
    return out


def digamma_numpy(x):
    """digamma(x) in float64, as PyTorch: -inf at +0, +inf at -0, NaN at the negative integers and -inf."""
    x = _float64(x)
    out = np.full(x.shape, np.nan)
    pos = x > 0
    out[pos] = _digamma_positive(x[pos])
    neg = (x < 0) & (x != np.floor(x))     # -inf and the negative integers stay NaN
    if neg.any():
        xn = x[neg]
        r = xn - np.trunc(xn)              # tan(pi r) is more accurate than tan(pi x)
        out[neg] = _digamma_positive(1.0 - xn) - math.pi / np.tan(math.pi * r)
    zero = x == 0
    out[zero] = np.copysign(np.inf, -x[zero])
    return out


# --------------------------------------------------------------- polygamma
def trigamma_numpy(x):
    """polygamma(1, x) in float64 (PyTorch's calc_trigamma: reflection below 0.5, six steps of
    the recurrence, then the asymptotic series)."""
    x = _float64(x).copy()
    sign = np.ones(x.shape)
    result = np.zeros(x.shape)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore", under="ignore"):
        low = x < 0.5
        s = np.sin(math.pi * x[low])
        result[low] -= (math.pi * math.pi) / (s * s)
        sign[low] = -1.0
        x[low] = 1.0 - x[low]
        for _ in range(6):
            result += 1.0 / (x * x)
            x += 1.0
        ixx = 1.0 / (x * x)
        result += (1.0 + 1.0 / (2.0 * x) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / x
    return sign * result


# Euler-Maclaurin coefficients of the Hurwitz zeta function (Cephes' zeta, which PyTorch uses)
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)
_MACHEP = 1.11022302462515654042e-16


def zeta_numpy(s, q):
    """The Hurwitz zeta function sum_k (k + q)^-s for an integer s >= 2 and an array q, in float64:
    inf where q is a non-positive integer (Cephes' zeta, vectorised: its stopping tests become
    masks)."""
    q = _float64(q)
    s = float(s)
    out = np.empty(q.shape)
    pole = (q <= 0) & (q == np.floor(q))
    out[pole] = np.inf
    work = ~pole
    qs = q[work]
    with np.errstate(divide="ignore", over="ignore", invalid="ignore", under="ignore"):
        total = np.power(qs, -s)
        a = qs.copy()
        b = np.zeros(qs.shape)
        done = np.zeros(qs.shape, dtype=bool)
        i = 0
        while True:   # direct summation while a term still counts, at least nine terms and up to a > 9
            live = ~done & ((i < 9) | (a <= 9.0))
            if not live.any():
                break
            i += 1
            a[live] += 1.0
            b[live] = np.power(a[live], -s)
            total[live] += b[live]
            converged = live & (-_MACHEP * total < b) & (b < _MACHEP * total)
            done |= converged
        result = total.copy()
        rest = ~done
        w = a[rest]
        t_s = total[rest] + b[rest] * w / (s - 1.0) - 0.5 * b[rest]
        bb = b[rest]
        fac = np.ones(w.shape)
        k = 0.0
        finished = np.zeros(w.shape, dtype=bool)
        for coeff in _ZETA_A:
            fac = fac * (s + k)
            bb = bb / w
            t = fac * bb / coeff
            t_s = np.where(finished, t_s, t_s + t)
            finished |= np.abs(t / t_s) < _MACHEP
            k += 1.0
            fac = fac * (s + k)
            bb = bb / w
            k += 1.0
        result[rest] = t_s
    out[work] = result
    out[np.isnan(q)] = np.nan
    return out


def polygamma_numpy(n, x):
    """polygamma(n, x) in float64: digamma for n = 0, trigamma for 1, else
    (-1)^(n+1) n! zeta(n + 1, x), as PyTorch computes it."""
    if n == 0:
        return digamma_numpy(x)
    if n == 1:
        return trigamma_numpy(x)
    try:
        factor = (1.0 if n % 2 else -1.0) * math.exp(math.lgamma(n + 1.0))
    except OverflowError:   # n! past float64 (n > 170): the values are infinite or NaN, as PyTorch's
        factor = (1.0 if n % 2 else -1.0) * math.inf
    with np.errstate(over="ignore", invalid="ignore"):
        return factor * zeta_numpy(n + 1, x)


# --------------------------------------------------------------- erfinv
def erfinv_numpy(y):
    """The inverse of erf in float64: +-inf at +-1, NaN outside [-1, 1]. Giles' single-precision
    approximation refined by Newton steps."""
    y = _float64(y)
    out = np.full(y.shape, np.nan)
    ay = np.abs(y)
    inside = ay < 1
    yi, ai = y[inside], ay[inside]
    with np.errstate(divide="ignore"):
        w = -np.log((1.0 - ai) * (1.0 + ai))
    central = w < 5.0
    p = np.empty(w.shape)
    wc = w[central] - 2.5
    pc = np.full(wc.shape, 2.81022636e-08)
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        pc = c + pc * wc
    p[central] = pc
    wt = np.sqrt(w[~central]) - 3.0
    pt = np.full(wt.shape, -0.000200214257)
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        pt = c + pt * wt
    p[~central] = pt
    x = p * ai                                  # erfinv(|y|) >= 0
    # Newton steps: on erf where |y| <= 0.5; in the tails on log(erfc(x)) = log(1 - |y|), nearly
    # quadratic in x and computed without erf's rounding (1 - |y| is exact there, by Sterbenz), so
    # the guess's error (up to 1e-3 as 1 - |y| nears 1e-16, past Giles' single-precision range) is
    # gone in four steps
    tail = ai > 0.5
    xc, ac = x[~tail], ai[~tail]
    for _ in range(2):
        xc = xc - (erf_numpy(xc) - ac) / (_TWO_OVER_SQRT_PI * np.exp(-xc * xc))
    xt, log_c = x[tail], np.log(1.0 - ai[tail])
    for _ in range(4):
        c = erf_numpy(xt, complement=True)
        xt = xt + (np.log(c) - log_c) * c / (_TWO_OVER_SQRT_PI * np.exp(-xt * xt))
    x[~tail], x[tail] = xc, xt
    out[inside] = np.copysign(x, yi)
    edge = ay == 1
    out[edge] = np.copysign(np.inf, y[edge])
    return out


# --------------------------------------------------------------- ndtri
def _log_erfc_positive(x):
    """log(erfc(x)) for x >= 0 in float64, without erfc's underflow: past 4, -x^2 + log R(x) with
    erf_numpy's own rational R (erfc(x) = exp(-x^2) R(x) there)."""
    from .elementwise import _ERF_P, _ERF_Q, _INV_SQRT_PI
    out = np.empty(x.shape)
    near = x <= 4.0
    out[near] = np.log(erf_numpy(x[near], complement=True))
    t = x[~near]
    z = 1.0 / (t * t)
    num, den = _ERF_P[5] * z, z
    for i in range(4):
        num, den = (num + _ERF_P[i]) * z, (den + _ERF_Q[i]) * z
    out[~near] = np.log((_INV_SQRT_PI - z * (num + _ERF_P[4]) / (den + _ERF_Q[4])) / t) - t * t
    return out


def _erfcinv_small(c):
    """The x >= 0 with erfc(x) = c, for 0 < c <= 1/2, to the last bits down to the subnormals:
    Newton steps on log(erfc(x)) = log(c) (nearly quadratic in x) from the asymptotic
    x^2 = -log(c) - log(pi (-log c)) / 2."""
    log_c = np.log(c)
    t = -log_c
    x = np.sqrt(np.maximum(t - 0.5 * np.log(math.pi * t), 0.25))
    for _ in range(8):
        le = _log_erfc_positive(x)
        x = x + (le - log_c) / (_TWO_OVER_SQRT_PI * np.exp(-x * x - le))
    return x


def ndtri_numpy(p):
    """The inverse of the standard normal distribution function in float64: -inf at 0, inf at 1,
    NaN outside [0, 1]. sqrt(2) erfinv(2p - 1) in the middle (2p - 1 is exact there); in the tails
    -+sqrt(2) erfcinv(2 min(p, 1 - p)), so 1e-300 gives -37.047 where 2p - 1 would round to -1."""
    p = _float64(p)
    out = np.full(p.shape, np.nan)
    middle = (p >= 0.25) & (p <= 0.75)
    out[middle] = math.sqrt(2.0) * erfinv_numpy(2.0 * p[middle] - 1.0)
    low = (p > 0) & (p < 0.25)
    out[low] = -math.sqrt(2.0) * _erfcinv_small(2.0 * p[low])
    high = (p > 0.75) & (p < 1)
    out[high] = math.sqrt(2.0) * _erfcinv_small(2.0 * (1.0 - p[high]))   # 1 - p is exact above 1/2
    out[p == 0] = -np.inf
    out[p == 1] = np.inf
    return out


# --------------------------------------------------------------- the ops
def _floating(name, numpy_fn):
    """forward(xp, x) for a one-input special function: NumPy's in float64, cast back; CuPy's own."""
    def forward(xp, x):
        if xp is not np:
            return _cupy_special(name)(x)
        return numpy_fn(x).astype(x.dtype, copy=False)
    return forward



Lgamma = _unary("lgamma", _floating("gammaln", lgamma_numpy), lambda F, g, x: g * F.digamma(x))
Digamma = _unary("digamma", _floating("digamma", digamma_numpy), lambda F, g, x: g * F.polygamma(1, x))
# d ndtri(p) / dp = 1 / pdf(ndtri(p)) = sqrt(2 pi) exp(y^2 / 2)
Ndtri = _unary("ndtri", _floating("ndtri", ndtri_numpy), lambda F, g, y: g * math.sqrt(2 * math.pi) * F.exp(y * y / 2),
               "y")
Ndtri.backward_name = "SpecialNdtriBackward0"
Erfinv = _unary("erfinv", _floating("erfinv", erfinv_numpy), lambda F, g, y: g * _HALF_SQRT_PI * F.exp(y * y), "y")


class Polygamma(Op):
    """polygamma(n, x), the n-th derivative of digamma; its gradient is polygamma(n + 1, x)."""
    __slots__ = ()
    op = "polygamma"
    saves = (0, 1)

    def forward(self, x, n):
        if x.dtype.kind != "f":
            x = x.astype(_dt.get_default_dtype().np)
        xp = get_array_module(x)
        if xp is not np:
            return _cupy_special("polygamma")(n, x).astype(x.dtype, copy=False)
        return polygamma_numpy(n, x).astype(x.dtype, copy=False)

    def backward(self, F, g, x, n):
        return g * F.polygamma(n + 1, x), None


class Logit(Op):
    """log(x / (1 - x)), x clamped to [eps, 1 - eps] (in x's dtype) when eps is given. The gradient
    is 1 / (x (1 - x)): NaN outside [0, 1] without eps, 0 outside [eps, 1 - eps] with it (PyTorch's
    logit_backward). A negative eps is no eps, as PyTorch's."""
    __slots__ = ()
    op = "logit"
    saves = (0, 1)

    @staticmethod
    def _bounds(dtype, eps):
        lo = np.dtype(dtype).type(eps)
        return lo, np.dtype(dtype).type(1) - lo

    def forward(self, x, eps):
        if x.dtype.kind != "f":
            x = x.astype(_dt.get_default_dtype().np)
        xp = get_array_module(x)
        if eps is not None:   # PyTorch's x < lo ? lo : (x > hi ? hi : x), NaN kept
            lo, hi = self._bounds(x.dtype, eps)
            x = xp.where(x < lo, lo, xp.where(x > hi, hi, x))
        with np.errstate(divide="ignore", invalid="ignore"):
            return xp.log(x / (1 - x))

    def backward(self, F, g, x, eps):
        if eps is None:
            return F.where((x < 0) | (x > 1), math.nan, g / (x * (1 - x))), None
        lo, hi = self._bounds(x.dtype if isinstance(x.dtype, np.dtype) else x.dtype.np, eps)
        return F.where((x < float(lo)) | (x > float(hi)), 0.0, g / (x * (1 - x))), None


def _entr(xp, x):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = -x * xp.log(x)               # NaN stays NaN, inf gives -inf
    out = xp.where(x == 0, 0.0, out)
    return xp.where(x < 0, -math.inf, out).astype(x.dtype, copy=False)


# PyTorch's derivative -(1 + log x): inf at 0, NaN below it (its second, -1/x, follows)
Entr = _unary("special_entr", _entr, lambda F, g, x: g * -(1 + F.log(x)))
Entr.backward_name = "SpecialEntrBackward0"
entr = _unary_fn(Entr, "-input * log(input) elementwise: 0 at 0, -inf below it.")


class Xlog1py(Op):
    """x * log1p(y), 0 where x is 0 and y is not NaN. PyTorch's derivatives: log1p(y) (as
    xlog1py(grad, y): 0 where the incoming gradient is 0) for x, 0 where x is 0 and y <= -1;
    x / (1 + y) for y."""
    __slots__ = ()
    op = "special_xlog1py"
    saves = (0, 1)
    backward_name = "SpecialXlog1PyBackward0"

    def forward(self, x, y):
        from .elementwise import _coerce_float
        x, y = _coerce_float(x, y)
        xp = get_array_module(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = xp.asarray(x * xp.log1p(y))
        return xp.where((x == 0) & ~xp.isnan(y), xp.zeros((), out.dtype), out)

    def backward(self, F, g, x, y):
        gx = F.where(((g == 0) & (y == y)) | ((x == 0) & (y <= -1)), 0.0, g * F.log1p(y))   # y == y: not NaN
        return gx, g * x / (y + 1)


lgamma = _unary_fn(Lgamma, "Computes the natural logarithm of the absolute value of the gamma function on input.")
digamma = _unary_fn(Digamma, "Computes the logarithmic derivative of the gamma function on input.")
erfinv = _unary_fn(Erfinv, "Computes the inverse error function of input, defined in the range (-1, 1).")
ndtri = _unary_fn(Ndtri, "The argument x for which the standard normal distribution function is input.")


def polygamma(n, input, *, out=None):
    """Computes the n-th derivative of the digamma function on input (n >= 0; 0 is digamma)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return Polygamma.apply(input, int(n))


def mvlgamma(input, p):
    """The multivariate log-gamma function of dimension p:
    p (p - 1) / 4 log(pi) + sum over j < p of lgamma(input - j / 2)."""
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    from ..limits import check_elements
    from .creation import arange
    check_elements(tuple(input.shape) + (p,), "mvlgamma")   # the p terms an element below, before they are built
    x = input if input.dtype.is_floating_point else input.to(_dt.get_default_dtype())
    halves = arange(p, dtype=x.dtype, device=x.device) / 2   # p lgammas an element, as one op (sized by the limit)
    return lgamma(x.unsqueeze(-1) - halves).sum(-1) + p * (p - 1) / 4 * math.log(math.pi)


def logit(input, eps=None):
    """log(input / (1 - input)); with eps, input is clamped to [eps, 1 - eps] first."""
    return Logit.apply(input, None if eps is None or eps < 0 else float(eps))


def _inplace(fn):
    def method(self, *args, **kwargs):
        return self._inplace(fn, *args, **kwargs)
    method.__name__ = fn.__name__ + "_"
    return method


def _polygamma_method(self, n):
    return polygamma(n, self)


def _mvlgamma_method(self, p):
    return mvlgamma(self, p)


def _logit_method(self, eps=None):
    return logit(self, eps)


def _register():
    for name, fn in (("lgamma", lgamma), ("digamma", digamma), ("erfinv", erfinv),
                     ("polygamma", _polygamma_method), ("mvlgamma", _mvlgamma_method), ("logit", _logit_method)):
        setattr(Tensor, name, fn)
        setattr(Tensor, name + "_", _inplace(fn))


_register()
