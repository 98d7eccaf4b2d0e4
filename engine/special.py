"""``torch.special``: the special functions under PyTorch's ``torch.special`` names (gammaln for
lgamma, psi for digamma, expit for sigmoid, ...), and the few defined only here (ndtr, ndtri,
entr, xlog1py)."""
import math as _math

from .ops.elementwise import erf, erfc, exp2, expm1, log1p, round, sinc, xlogy  # noqa: A004
from .ops.elementwise import sigmoid as expit
from .ops.reduction import logsumexp
from .ops.special import Xlog1py as _Xlog1py
from .ops.special import digamma, erfinv, logit, ndtri, polygamma
from .ops.special import entr as _entr
from .ops.special import lgamma as gammaln
from .ops.special import mvlgamma as multigammaln
from .nn.functional import log_softmax, softmax

__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "log1p",
           "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
           "sinc", "softmax", "xlog1py", "xlogy"]

psi = digamma
_SQRT_HALF = _math.sqrt(0.5)


def _tensor_argument(fn, value):
    from .tensor import Tensor
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(value).__name__}")


def ndtr(input):
    """The standard normal distribution function: 0.5 * erfc(-input / sqrt(2))."""
    _tensor_argument("special_ndtr", input)
    return 0.5 * erfc(input * -_SQRT_HALF)


def entr(input):
    """-input * log(input) elementwise: 0 at 0, -inf below it, NaN at NaN (one op, PyTorch's derivative)."""
    _tensor_argument("special_entr", input)
    return _entr(input)


def xlog1py(input, other):
    """input * log1p(other), and 0 where input is 0 (unless other is NaN)."""
    from .tensor import Tensor   # PyTorch's overloads: tensors, or one of them a number
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"special_xlog1py() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__}), but expected one of:\n"
                        " * (Tensor input, Tensor other, *, Tensor out = None)\n"
                        " * (Number self, Tensor other, *, Tensor out = None)\n"
                        " * (Tensor input, Number other, *, Tensor out = None)\n")
    if not isinstance(input, Tensor):
        input = other.new_tensor(input)
    if not isinstance(other, Tensor):
        other = input.new_tensor(other)
    return _Xlog1py.apply(input, other)


