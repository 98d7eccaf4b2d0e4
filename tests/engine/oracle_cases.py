"""The generated cases of the PyTorch differential sweep (``test_oracle_sweep.py``).

Every case is built from one seeded generator, so the sweep is the same on every run. Families
share argument patterns: unary and binary elementwise ops, reductions, scans, sorting, shape
functions, creation, indexing; ``probe_cases`` calls every other name both libraries expose with a
few plain argument lists, so a name no family covers still gets compared.
"""
import numpy as np

from oracle_harness import DTYPES, FLOAT_DTYPES, INT_DTYPES, Arg, Case, Dtype

SPECIAL = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, 3.0,
                    0.25, 1e-30, -7.0, 100.0, 0.9, -0.9, 2.0, 1.5])
_RNG = np.random.default_rng(20261207)


def data(dtype, shape, kind="normal"):
    """Seeded data of a NumPy dtype: "normal", "special" (NaN, inf, -0.0, halves), "ties" (few
    distinct values), "pos" (positive), "big" (near the integer limits, to overflow)."""
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == "bool":
        flat = _RNG.random(n) < 0.5
    elif dtype in FLOAT_DTYPES:
        if kind == "special":
            flat = np.resize(SPECIAL, n) if n <= len(SPECIAL) else np.concatenate([SPECIAL, _RNG.standard_normal(n - len(SPECIAL)) * 3])
            flat = flat[_RNG.permutation(n)]
        elif kind == "ties":
            flat = _RNG.integers(-2, 3, n).astype(float)
        elif kind == "pos":
            flat = _RNG.random(n) * 2 + 0.1
        elif kind == "unit":
            flat = _RNG.random(n) * 1.8 - 0.9
        else:
            flat = _RNG.standard_normal(n) * 2
    else:
        info = np.iinfo(dtype)
        if kind == "big":
            flat = _RNG.integers(info.max // 2, info.max, n, endpoint=True)
        elif kind == "ties":
            flat = _RNG.integers(max(info.min, -2), 3, n)
        elif kind == "pos":
            flat = _RNG.integers(1, 9, n)
        elif dtype == "uint8":
            flat = _RNG.integers(0, 256, n)
        else:
            flat = _RNG.integers(-9, 10, n)
    return np.asarray(flat, dtype=np.bool_ if dtype == "bool" else dtype).reshape(shape)


def arg(dtype, shape, kind="normal", view="", grad=None, clone=False):
    """A tensor argument; float arguments require grad unless told otherwise."""
    if grad is None:
        grad = dtype in FLOAT_DTYPES
    return Arg(data(dtype, shape, kind), view=view, grad=grad and dtype in FLOAT_DTYPES, clone=clone)


# ----------------------------------------------------------------------------- elementwise, unary
UNARY_FLOAT = ("abs absolute acos arccos acosh arccosh asin arcsin asinh arcsinh atan arctan atanh arctanh "
               "ceil cos cosh deg2rad rad2deg digamma erf erfc erfinv exp exp2 expm1 fix floor frac lgamma "
               "log log10 log1p log2 logit neg negative reciprocal round rsqrt sigmoid sign sgn sin sinc "
               "sinh sqrt square tan tanh trunc relu positive nan_to_num").split()
UNARY_PREDICATE = "isnan isinf isfinite isneginf isposinf isreal signbit logical_not".split()
UNARY_INT = ("bitwise_not",)


def unary_cases(inplace_names):
    for name in UNARY_FLOAT + UNARY_PREDICATE + list(UNARY_INT):
        for dtype in DTYPES:
            yield Case(f"torch.{name}", arg(dtype, (4, 5), "special"))
            yield Case(f"torch.{name}", arg(dtype, ()))
            yield Case(f"torch.{name}", arg(dtype, (0, 3)))
        yield Case(f"Tensor.{name}", arg("float32", (3, 4), "special", view="T"))
        yield Case(f"Tensor.{name}", arg("float64", (4, 3), "unit", view="step"))
        yield Case(f"Tensor.{name}", arg("int64", (3, 4), view="expand"))
        if name + "_" in inplace_names:
            for dtype in DTYPES:
                yield Case(f"Tensor.{name}_", arg(dtype, (3, 4), "special", clone=True))
            yield Case(f"Tensor.{name}_", arg("float64", (3, 4), "unit", view="T", clone=True))


# ----------------------------------------------------------------------------- elementwise, binary
BINARY_ARITH = ("add sub subtract mul multiply div divide true_divide floor_divide remainder fmod pow "
                "atan2 arctan2 maximum minimum fmax fmin hypot copysign heaviside logaddexp logaddexp2 "
                "xlogy float_power nextafter ldexp rsub").split()
BINARY_COMPARE = "eq ne lt le gt ge greater greater_equal less less_equal not_equal".split()
BINARY_LOGICAL = "logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor gcd lcm".split()
DTYPE_PAIRS = [(d, d) for d in DTYPES] + [
    ("int64", "float32"), ("int32", "int64"), ("uint8", "int64"), ("bool", "int64"), ("uint8", "bool"),
    ("int32", "float64"), ("float32", "float64"), ("uint8", "int32"), ("bool", "float32")]
SCALARS = [2, -3, 2.5, True, 0, -0.0, 1e40, 300]
OPERATORS = "add sub mul truediv floordiv mod pow and_ or_ xor lshift rshift lt le eq ne gt ge".split()


def binary_cases(inplace_names):
    for name in BINARY_ARITH + BINARY_COMPARE + BINARY_LOGICAL:
        for a, b in DTYPE_PAIRS:
            yield Case(f"torch.{name}", arg(a, (3, 4)), arg(b, (3, 4)))
        yield Case(f"torch.{name}", arg("float32", (3, 4), "special"), arg("float32", (3, 4), "special", view="T"))
        yield Case(f"torch.{name}", arg("int64", (4, 5), "ties"), arg("int64", (4, 5), "ties"))
        yield Case(f"torch.{name}", arg("int32", (2, 3), "big"), arg("int32", (2, 3), "big"))
        yield Case(f"torch.{name}", arg("float64", (3, 1)), arg("float64", (1, 4), view="expand"))
        yield Case(f"torch.{name}", arg("float32", ()), arg("int64", (2, 3)))
        yield Case(f"torch.{name}", arg("int64", ()), arg("float32", ()))
        yield Case(f"torch.{name}", arg("float32", (0, 3)), arg("float32", (1, 3)))
        yield Case(f"torch.{name}", arg("float32", (2, 3)), arg("float32", (4,)))
        yield Case(f"torch.{name}", arg("float64", (3, 4), view="step"), arg("float64", (4,)))
        for s in SCALARS:
            yield Case(f"torch.{name}", arg("int64", (2, 3)), s)
            yield Case(f"Tensor.{name}", arg("uint8", (2, 3)), s)
        yield Case(f"torch.{name}", arg("float32", (2, 3)), 2.5)
        yield Case(f"torch.{name}", 3, arg("float32", (2, 3)))
        yield Case(f"torch.{name}", arg("float32", (2, 3)), [1.0, 2.0, 3.0])
        if name + "_" in inplace_names:
            for a, b in DTYPE_PAIRS:
                yield Case(f"Tensor.{name}_", arg(a, (3, 4), clone=True), arg(b, (3, 4)))
            yield Case(f"Tensor.{name}_", arg("float32", (3, 1), clone=True), arg("float32", (3, 4)))
            yield Case(f"Tensor.{name}_", arg("float64", (3, 4), clone=True), arg("float64", (4,)))
            yield Case(f"Tensor.{name}_", arg("int64", (3, 4), clone=True), 2.5)
            yield Case(f"Tensor.{name}_", arg("float32", (3, 4), clone=True), 2)
    for name in OPERATORS:
        for a, b in DTYPE_PAIRS:
            yield Case(f"op.{name}", arg(a, (2, 3), "ties"), arg(b, (2, 3), "ties"))
        for s in SCALARS[:5]:
            yield Case(f"op.{name}", arg("int64", (2, 3), "ties"), s)
            yield Case(f"op.{name}", s, arg("float32", (2, 3), "ties"))
            yield Case(f"op.{name}", arg("bool", (2, 3)), s)
        yield Case(f"op.{name}", arg("float32", (2,)), [1, 2])
        yield Case(f"op.{name}", arg("float32", (2,)), (1, 2))
        yield Case(f"op.{name}", arg("float32", (2,)), "a")
        yield Case(f"op.{name}", arg("float32", (2,)), None)
    for name in ("iadd", "isub", "imul", "itruediv", "ifloordiv", "imod"):
        for a, b in DTYPE_PAIRS:
            yield Case(f"op.{name}", arg(a, (2, 3), "pos", grad=False), arg(b, (2, 3), "pos", grad=False))
    # division and remainder by zero, overflow, signed zeros
    for name in ("floor_divide", "remainder", "fmod", "div"):
        for dtype in ("int64", "int32", "uint8", "float32"):
            zero = Arg(np.zeros((3,), dtype=np.bool_ if dtype == "bool" else dtype))
            yield Case(f"torch.{name}", arg(dtype, (3,), "pos"), zero)
            yield Case(f"torch.{name}", arg(dtype, (3,), "pos"), 0)
        yield Case(f"torch.{name}", Arg(np.array([-7, 7, -7, 7, 0])), Arg(np.array([2, -2, -2, 2, 3])))
        yield Case(f"torch.{name}", Arg(np.array([-7.5, 7.5, -0.0, 7.0, np.inf])), Arg(np.array([2.0, -2.0, 3.0, np.inf, 2.0])))
        yield Case(f"torch.{name}", Arg(np.array([-7, 7, -7, 7])), -2.5)
        yield Case(f"torch.{name}", Arg(np.array([np.iinfo(np.int64).min, 5])), -1)
        yield Case(f"torch.{name}", Arg(np.array([-7, 7], dtype=np.int64)), 2, rounding_mode="floor") if name == "div" else \
            Case(f"torch.{name}", 7, Arg(np.array([-2, 2])))
    for mode in ("floor", "trunc", None, "bad"):
        yield Case("torch.div", arg("int64", (2, 3)), arg("int64", (2, 3), "pos"), rounding_mode=mode)
        yield Case("torch.div", arg("float32", (2, 3), "special"), arg("float32", (2, 3)), rounding_mode=mode)
        yield Case("Tensor.div_", arg("int64", (2, 3)), arg("int64", (2, 3), "pos"), rounding_mode=mode)
    yield Case("torch.add", arg("float32", (2, 3)), arg("float32", (2, 3)), alpha=2)
    yield Case("torch.add", arg("int64", (2, 3)), arg("int64", (2, 3)), alpha=2.5)
    yield Case("torch.sub", arg("bool", (2, 3)), arg("bool", (2, 3)))
    yield Case("torch.pow", arg("int64", (2, 3)), -1)
    yield Case("torch.pow", arg("int64", (2, 3), "pos"), arg("int64", (2, 3)))
    yield Case("torch.pow", 2, arg("int64", (2, 3), "pos"))
    yield Case("torch.pow", 2.0, arg("float64", (2, 3)))
    yield Case("torch.pow", arg("float32", (2, 3), "special"), 0.5)
    yield Case("torch.pow", arg("float64", (2, 3), "special", grad=True), 0)
    yield Case("torch.clamp", arg("float32", (3, 4), "special"), -1, 1)
    yield Case("torch.clamp", arg("int64", (3, 4)), -1.5, 1)
    yield Case("torch.clamp", arg("int64", (3, 4)), arg("int64", (3, 4)), arg("int64", (4,)))
    yield Case("torch.clamp", arg("float32", (3, 4)))
    yield Case("torch.clamp", arg("float32", (3, 4)), min=2, max=1)
    yield Case("torch.clamp", arg("uint8", (3, 4)), min=-1)
    yield Case("Tensor.clamp_", arg("int64", (3, 4), clone=True), 0.5)
    yield Case("torch.where", arg("bool", (3, 4)), arg("float32", (3, 4)), arg("int64", (4,)))
    yield Case("torch.where", arg("bool", (3, 4)), arg("float32", (3, 4)), 0.0)
    yield Case("torch.where", arg("bool", (3, 4)), 1, 0)
    yield Case("torch.where", arg("bool", (3, 4)), 1.5, 0)
    yield Case("torch.where", arg("int64", (3, 4)), 1.5, 0)
    yield Case("torch.where", arg("bool", (3, 4)))
    yield Case("torch.lerp", arg("float32", (3, 4)), arg("float32", (3, 4)), 0.3)
    yield Case("torch.lerp", arg("float64", (3, 4)), arg("float64", (4,)), arg("float64", (3, 1)))
    yield Case("torch.addcmul", arg("float32", (3, 4)), arg("float32", (3, 4)), arg("float32", (4,)), value=0.5)
    yield Case("torch.addcdiv", arg("float64", (3, 4)), arg("float64", (3, 4)), arg("float64", (4,), "pos"), value=2)
    yield Case("torch.addcdiv", arg("int64", (3, 4)), arg("int64", (3, 4)), arg("int64", (4,), "pos"))
    yield Case("torch.isclose", arg("float32", (3, 4), "special"), arg("float32", (3, 4), "special"), equal_nan=True)
    yield Case("torch.allclose", arg("float64", (3, 4)), arg("float64", (3, 4)))
    yield Case("torch.equal", arg("float64", (3, 4)), arg("int64", (3, 4)))
    yield Case("torch.polygamma", 1, arg("float64", (3, 4), "pos"))
    yield Case("torch.mvlgamma", arg("float64", (3, 4), "pos"), 1)
    yield Case("torch.round", arg("float64", (3, 4), "special"), decimals=1)
    yield Case("torch.nan_to_num", arg("float32", (3, 4), "special"), nan=1.0, posinf=2.0)
    yield Case("torch.logit", arg("float64", (3, 4), "unit"), eps=0.1)


# ----------------------------------------------------------------------------- reductions
REDUCTIONS = ("sum mean prod amax amin max min argmax argmin all any std var logsumexp nansum nanmean "
              "count_nonzero median nanmedian mode norm std_mean var_mean aminmax").split()
_DIM_ONLY = {"argmax", "argmin", "median", "nanmedian", "mode", "max", "min"}


def reduction_cases():
    for name in REDUCTIONS:
        single_dim = name in _DIM_ONLY
        for dtype in DTYPES:
            yield Case(f"torch.{name}", arg(dtype, (3, 4), "ties"))
            yield Case(f"torch.{name}", arg(dtype, (3, 4), "special"), 1)
            yield Case(f"torch.{name}", arg(dtype, (0, 4)))
            yield Case(f"torch.{name}", arg(dtype, (0, 4)), 0)
            yield Case(f"torch.{name}", arg(dtype, (0, 4)), 1)
        for dim in (0, -1, -2, 2, -3):
            for keepdim in (False, True):
                yield Case(f"torch.{name}", arg("float32", (3, 4), "ties"), dim, keepdim=keepdim)
        yield Case(f"torch.{name}", arg("float64", (2, 3, 4)), dim=(0, 2))
        yield Case(f"torch.{name}", arg("float64", (2, 3, 4)), dim=(0, -3))
        yield Case(f"torch.{name}", arg("float64", (2, 3, 4)), dim=[-1], keepdim=True)
        yield Case(f"torch.{name}", arg("float64", (2, 3, 4)), dim=())
        yield Case(f"torch.{name}", arg("float32", ()), 0)
        yield Case(f"torch.{name}", arg("float32", ()), -1)
        yield Case(f"torch.{name}", arg("float32", ()), 1)
        yield Case(f"Tensor.{name}", arg("float32", (4, 3), view="T"), 0)
        yield Case(f"Tensor.{name}", arg("float64", (4, 3), "ties", view="step"), -1)
        yield Case(f"Tensor.{name}", arg("int64", (3, 4), view="expand"), 1)
        yield Case(f"Tensor.{name}", arg("int32", (3, 4), "big"))
        yield Case(f"Tensor.{name}", arg("float32", (3, 4)), 1.5)
        if not single_dim:
            yield Case(f"torch.{name}", arg("int32", (3, 4)), dtype=Dtype("float64"))
    for name in ("sum", "prod", "mean", "cumsum", "nansum"):
        for dtype in ("bool", "uint8", "int32"):
            yield Case(f"torch.{name}", arg(dtype, (3, 4)), 0, dtype=Dtype("int64"))
    yield Case("torch.var", arg("float64", (3, 4)), 1, correction=0)
    yield Case("torch.std", arg("float64", (3, 4)), unbiased=False)
    yield Case("torch.std", arg("float64", (1, 4)), 0)
    yield Case("torch.var", arg("float64", (3, 4)), 1, correction=5)
    yield Case("torch.norm", arg("float64", (3, 4)), p=1, dim=1)
    yield Case("torch.norm", arg("float64", (3, 4)), p="fro")
    yield Case("torch.norm", arg("float64", (3, 4), "special"), p=float("inf"))
    yield Case("torch.norm", arg("float64", (3, 4)), p=0)
    yield Case("torch.logsumexp", arg("float64", (3, 4), "special"), 1)
    yield Case("torch.quantile", arg("float64", (3, 4)), 0.3, dim=1)
    yield Case("torch.quantile", arg("float64", (3, 4)), Arg(np.array([0.1, 0.9])))
    yield Case("torch.quantile", arg("float64", (3, 4)), 1.5)
    yield Case("torch.quantile", arg("int64", (3, 4)), 0.5)
    yield Case("torch.max", arg("float32", (3, 4)), arg("float32", (4,)))
    yield Case("torch.max", arg("float32", (3, 4)), arg("float64", (3, 4)))
    yield Case("torch.min", arg("int64", (3, 4)), dim=1, keepdim=True)


# ----------------------------------------------------------------------------- scans and sorting
SCANS = "cumsum cumprod cummax cummin logcumsumexp".split()


def scan_cases():
    for name in SCANS:
        for dtype in DTYPES:
            yield Case(f"torch.{name}", arg(dtype, (3, 4), "ties"), 1)
            yield Case(f"torch.{name}", arg(dtype, (0, 4)), 0)
        for dim in (-1, -2, 2):
            yield Case(f"torch.{name}", arg("float64", (3, 4), "special"), dim)
        yield Case(f"torch.{name}", arg("float32", ()), 0)
        yield Case(f"torch.{name}", arg("float32", ()), 1)
        yield Case(f"torch.{name}", arg("float32", (3, 4)))
        yield Case(f"Tensor.{name}", arg("float64", (4, 3), "ties", view="T"), dim=0)
        yield Case(f"Tensor.{name}", arg("int32", (3, 4), "big"), 1)


def sort_cases():
    for dtype in DTYPES:
        for kind in ("ties", "special"):
            x = arg(dtype, (3, 6), kind)
            yield Case("torch.sort", x, 1)
            yield Case("torch.sort", x, 0, descending=True)
            yield Case("torch.sort", x, stable=True, descending=True)
            yield Case("torch.argsort", x, 1, stable=True)
            yield Case("torch.msort", x)
            yield Case("torch.topk", x, 2)
            yield Case("torch.topk", x, 2, dim=0, largest=False)
            yield Case("torch.kthvalue", x, 2)
            yield Case("torch.unique", x)
            yield Case("torch.unique", x, return_inverse=True, return_counts=True)
            yield Case("torch.unique", x, sorted=True, dim=0)
            yield Case("torch.unique_consecutive", x, return_counts=True)
            yield Case("torch.median", x, 1)
            yield Case("torch.mode", x, 1)
            yield Case("torch.argmax", x)
            yield Case("torch.argmin", x, 1, keepdim=True)
    for name, extra in (("topk", (7,)), ("topk", (0,)), ("topk", (-1,)), ("kthvalue", (0,)), ("kthvalue", (7,))):
        yield Case(f"torch.{name}", arg("float32", (3, 6)), *extra)
    yield Case("torch.topk", arg("float32", (0, 3)), 0)
    yield Case("torch.sort", arg("float32", ()))
    yield Case("torch.sort", arg("float32", (3, 4)), 2)
    yield Case("torch.topk", arg("float64", (3, 6), "ties", view="T"), 2, dim=0, sorted=True)
    yield Case("torch.searchsorted", Arg(np.array([1.0, 2.0, 2.0, 5.0])), Arg(np.array([2.0, 0.0, 9.0])))
    yield Case("torch.searchsorted", Arg(np.array([1.0, 2.0, 2.0, 5.0])), Arg(np.array([2.0, 0.0, 9.0])), right=True)
    yield Case("torch.searchsorted", Arg(np.array([1, 2, 2, 5])), 2)
    yield Case("torch.bucketize", Arg(np.array([2.0, 0.0, 9.0])), Arg(np.array([1.0, 2.0, 2.0, 5.0])))
    yield Case("torch.histc", Arg(np.array([1.0, 2.0, 2.0, 5.0])), bins=4, min=0, max=4)
    yield Case("torch.bincount", Arg(np.array([1, 2, 2, 5])))
    yield Case("torch.bincount", Arg(np.array([1, -2])))
    yield Case("torch.bincount", Arg(np.array([1, 2, 2, 5])), minlength=8)


# ----------------------------------------------------------------------------- shapes
def shape_cases():
    x = lambda: arg("float64", (2, 3, 4))  # noqa: E731 - a fresh argument per case
    for dims in ((0, 1), (-1, 0), (0, 3), (-4, 0)):
        yield Case("torch.transpose", x(), *dims)
        yield Case("torch.swapaxes", x(), *dims)
        yield Case("torch.movedim", x(), *dims)
    for perm in ((2, 0, 1), (-1, 0, 1), (0, 0, 1), (0, 1), (0, 1, 3)):
        yield Case("torch.permute", x(), perm)
        yield Case("Tensor.permute", x(), *perm)
    for dim in (None, 0, 1, -1, 3, (0, 1), (1, 3)):
        yield Case("torch.squeeze", arg("float64", (1, 3, 1)), *(() if dim is None else (dim,)))
    for dim in (0, 3, -1, -4, 4, -5):
        yield Case("torch.unsqueeze", x(), dim)
    for start, end in ((0, -1), (1, 2), (2, 1), (0, 3), (-3, -2)):
        yield Case("torch.flatten", x(), start, end)
    yield Case("torch.flatten", arg("float32", ()))
    for dims in ((0,), (-1, 0), (3,), (0, 0)):
        yield Case("torch.flip", x(), dims)
    for shifts, dims in ((1, 0), (-5, -1), ((1, 2), (0, 1)), (1, None), (1, 3), ((1,), (0, 1))):
        yield Case("torch.roll", x(), shifts, dims)
    for args in ((0, 1, 2), (-1, -2, 2), (1, 2, 5), (0, 3, 1), (1, -1, 1)):
        yield Case("torch.narrow", x(), *args)
    for args in ((0, 1), (-1, -4), (2, 4), (3, 0), (1, -3)):
        yield Case("torch.select", x(), *args)
    for args in ((2,), (2, -1), (5, 1), (0,), (-1,)):
        yield Case("torch.chunk", x(), *args)
    for args in ((2,), ([1, 1], 0), ([1, 2], 0), (2, -1), (0,), ([3, 0, 1], 2)):
        yield Case("torch.split", x(), *args)
    for args in ((2,), ([1, 2], 2), (5, 1), (0,)):
        yield Case("torch.tensor_split", x(), *args)
    for dim in (0, -1, 3):
        yield Case("torch.unbind", x(), dim)
    for shape in ((6, 4), (-1, 4), (-1, -1), (5, -1), (0, -1), (24,), ()):
        yield Case("torch.reshape", x(), shape)
        yield Case("Tensor.view", x(), *shape)
    yield Case("Tensor.view", arg("float64", (3, 4), view="T"), -1)
    yield Case("Tensor.view", arg("float64", (3, 4), view="T"), Dtype("int64"))
    yield Case("Tensor.view", arg("float32", (3, 4)), Dtype("int32"))
    for shape in ((3, 4), (2, 3, 4), (-1, 4), (2, -1, 4), (3, 2), (0, 4), (4,)):
        yield Case("Tensor.expand", arg("float64", (3, 1)), *shape)
    for reps in ((2,), (2, 1), (1, 2, 1), (0, 2), (-1, 1)):
        yield Case("Tensor.repeat", arg("float64", (3, 2)), *reps)
        yield Case("torch.tile", arg("float64", (3, 2)), reps)
    for diag in (0, 1, -2, 10):
        yield Case("torch.tril", arg("float64", (3, 4)), diag)
        yield Case("torch.triu", arg("int64", (2, 3, 4)), diag)
        yield Case("torch.diagonal", arg("float64", (3, 4)), diag)
        yield Case("torch.diag", arg("float64", (3,)), diag)
        yield Case("torch.diag", arg("float64", (3, 4)), diag)
    yield Case("torch.tril", arg("float64", (3,)))
    yield Case("torch.diagonal", arg("float64", (2, 3, 4)), 0, 0, 2)
    yield Case("torch.diagonal", arg("float64", (2, 3, 4)), 0, 1, 1)
    yield Case("torch.t", arg("float64", (2, 3, 4)))
    yield Case("torch.t", arg("float64", (3,)))
    for dim in (0, 1, -1, 2, -3):
        yield Case("torch.cat", [arg("float32", (2, 3)), arg("float64", (2, 3))], dim)
        yield Case("torch.stack", [arg("float32", (2, 3)), arg("float32", (2, 3))], dim)
    yield Case("torch.cat", [arg("int64", (2, 3)), arg("float32", (0,))])
    yield Case("torch.cat", [arg("int64", (2, 3)), arg("bool", (2, 3))])
    yield Case("torch.cat", [arg("float32", (2, 3)), arg("float32", (2, 4))])
    yield Case("torch.cat", [])
    yield Case("torch.cat", [arg("float32", ()), arg("float32", ())])
    yield Case("torch.stack", [arg("float32", (2, 3)), arg("float32", (3, 2))])
    yield Case("torch.stack", [arg("int32", (2,)), arg("float64", (2,))])
    for name in ("hstack", "vstack", "dstack", "column_stack", "row_stack"):
        yield Case(f"torch.{name}", [arg("float32", (3,)), arg("int64", (3,))])
        yield Case(f"torch.{name}", [arg("float32", (2, 3)), arg("float32", (2, 3))])
        yield Case(f"torch.{name}", [arg("float32", ()), arg("float32", ())])
    for name in ("atleast_1d", "atleast_2d", "atleast_3d", "ravel", "fliplr", "flipud", "rot90"):
        for shape in ((), (3,), (2, 3)):
            yield Case(f"torch.{name}", arg("float64", shape))
    yield Case("torch.broadcast_to", arg("float64", (3, 1)), (2, 3, 4))
    yield Case("torch.broadcast_to", arg("float64", (3, 2)), (3, 4))
    yield Case("torch.broadcast_tensors", arg("float64", (3, 1)), arg("float32", (4,)))
    yield Case("torch.broadcast_shapes", (3, 1), (4,), (2, 1, 1))
    yield Case("torch.broadcast_shapes", (3, 2), (4,))
    yield Case("torch.unflatten", x(), 2, (2, 2))
    yield Case("torch.unflatten", x(), -1, (-1, 2))
    yield Case("torch.unflatten", x(), 2, (3, 2))
    yield Case("torch.repeat_interleave", x(), 2, dim=1)
    yield Case("torch.repeat_interleave", arg("float64", (3,)), Arg(np.array([1, 0, 2])))
    yield Case("torch.repeat_interleave", Arg(np.array([1, 0, 2])))
    yield Case("torch.repeat_interleave", x(), -1)


# ----------------------------------------------------------------------------- creation
def creation_cases():
    for name in ("zeros", "ones", "empty", "rand", "randn"):
        where = "" if name in ("zeros", "ones") else "shape:"   # random or uninitialised values
        for size in ((2, 3), [2, 3], (), (0,), 2.5, (2.5, 1), (-1,), True):
            yield Case(f"{where}torch.{name}", size)
        yield Case(f"{where}torch.{name}", 2, 3, dtype=Dtype("float64"))
        yield Case(f"{where}torch.{name}", size=(2, 3))
    for fill in (1, 1.5, True, -0.0):
        yield Case("torch.full", (2, 3), fill)
        yield Case("torch.full", (2, 3), fill, dtype=Dtype("int64"))
        yield Case("torch.full_like", arg("int32", (2, 3)), fill)
    yield Case("torch.full", (2, 3), 300, dtype=Dtype("uint8"))
    yield Case("torch.full", 3, 1.0)
    for args in ((5,), (0, 5), (0, 1, 0.25), (5, 0, -1), (0, 5, -1), (0, 5, 0), (1.5,), (0, 2.5, 0.5), (-3,), (3, 3),
                 (0, 10, 3)):
        yield Case("torch.arange", *args)
    yield Case("torch.arange", 5, dtype=Dtype("float32"))
    yield Case("torch.arange", 0, 1, 0.3, dtype=Dtype("int64"))
    yield Case("torch.arange", 0.0, 1.0, 0.1)
    for args in ((0, 1, 5), (0, 1, 1), (0, 1, 0), (1, 0, 4), (0, 1, -1), (0, 10, 4)):
        yield Case("torch.linspace", *args)
    yield Case("torch.linspace", 0, 10, 4, dtype=Dtype("int64"))
    yield Case("torch.logspace", 0, 2, 3)
    for args in ((3,), (2, 3), (0,), (-1,), (2.5,)):
        yield Case("torch.eye", *args)
    yield Case("torch.eye", 3, dtype=Dtype("bool"))
    for value in ([], [1, 2.5], [1, 2], [True, False], [[1], [2, 3]], 3, 2.5, True, [[]], [1, True], "a",
                  [[1, 2], [3, 4]], [1.0, float("nan")], 10 ** 20, [1, None]):
        yield Case("torch.tensor", value)
    yield Case("torch.tensor", [1, 2], dtype=Dtype("float64"), requires_grad=True)
    yield Case("torch.tensor", [1, 2], requires_grad=True)
    yield Case("torch.tensor", [-1, 300], dtype=Dtype("uint8"))
    yield Case("torch.tensor", arg("float32", (2,)))
    for target in ("torch.zeros_like", "torch.ones_like", "shape:torch.empty_like"):
        yield Case(target, arg("int32", (2, 3)))
        yield Case(target, arg("float32", (3, 2), view="T"), dtype=Dtype("float64"))
    yield Case("torch.scalar_tensor", 3)
    yield Case("torch.scalar_tensor", True)
    for target in ("Tensor.new_zeros", "Tensor.new_ones", "shape:Tensor.new_empty"):
        yield Case(target, arg("int32", (2, 3)), (2,))
        yield Case(target, arg("float64", (2, 3)), 2, 2)
    yield Case("Tensor.new_full", arg("int32", (2, 3)), (2,), 1.5)
    yield Case("Tensor.new_tensor", arg("int32", (2, 3)), [1.5, 2])
    yield Case("torch.tril_indices", 3, 3)
    yield Case("torch.triu_indices", 3, 4, 1)
    yield Case("torch.tril_indices", -1, 3)


# ----------------------------------------------------------------------------- indexing
def indexing_cases():
    x = lambda: arg("float64", (4, 5))  # noqa: E731
    for key in (0, -1, 4, -5, slice(None, None, 2), slice(1, 1), slice(-100, 100),
                slice(None, None, -1), slice(None, None, 0), (Ellipsis, 0), (None, 0), (0, 1, 2), (slice(None), 6),
                [0, 2], [[0, 1], [1, 2]], [True, False, True, False], (Ellipsis, None, Ellipsis), 1.5, True, False,
                Arg(np.array([0, 3, -1])), Arg(np.array([4])), Arg(np.array([[True] * 5] * 4)),
                Arg(np.array([True, False])), Arg(np.array(2)), Arg(np.array([0.5])), (Arg(np.array([0, 1])), Arg(np.array([2, 3]))),
                (Arg(np.array([0, 1])), slice(None), Arg(np.array([2, 3]))), 10 ** 20, (slice(None), None, slice(1, 3))):
        yield Case("op.getitem", x(), key)
    yield Case("op.getitem", arg("float32", ()), ())
    yield Case("op.getitem", arg("float32", ()), None)
    yield Case("op.getitem", arg("float32", ()), 0)
    yield Case("op.getitem", arg("float32", ()), Ellipsis)
    yield Case("op.getitem", arg("float32", (0, 3)), 0)
    idx = Arg(np.array([[0, 1], [2, 0]]))
    for dim in (0, 1, -1, 2):
        yield Case("torch.gather", arg("float64", (3, 4)), dim, idx)
        yield Case("torch.index_select", arg("float64", (3, 4)), dim, Arg(np.array([0, 2, 2])))
    yield Case("torch.gather", arg("float64", (3, 4)), 1, Arg(np.array([[0, 5]])))
    yield Case("torch.gather", arg("float64", (3, 4)), 1, Arg(np.array([[0, 1]], dtype=np.int32)))
    yield Case("torch.index_select", arg("float64", (3, 4)), 0, Arg(np.array([0, 3])))
    yield Case("torch.index_select", arg("float64", (3, 4)), 0, Arg(np.array([[0, 1]])))
    yield Case("torch.take", arg("float64", (3, 4)), Arg(np.array([0, -1, 11])))
    yield Case("torch.take", arg("float64", (3, 4)), Arg(np.array([12])))
    yield Case("torch.take_along_dim", arg("float64", (3, 4)), Arg(np.array([[0], [3], [1]])), 1)
    yield Case("torch.masked_fill", arg("float64", (3, 4)), arg("bool", (4,)), 2.5)
    yield Case("torch.masked_fill", arg("int64", (3, 4)), arg("bool", (3, 4)), 2.5)
    yield Case("torch.masked_fill", arg("float64", (3, 4)), arg("int64", (3, 4)), 1)
    yield Case("torch.masked_fill", arg("float64", (3, 4)), arg("bool", (3, 4)), arg("float64", (1,)))
    yield Case("torch.masked_fill", arg("float64", (3, 4)), arg("bool", (3, 4)), arg("float64", ()))
    yield Case("torch.masked_select", arg("float64", (3, 4)), arg("bool", (4,)))
    yield Case("torch.nonzero", arg("int64", (3, 4), "ties"))
    yield Case("torch.nonzero", arg("int64", (3, 4), "ties"), as_tuple=True)
    yield Case("torch.argwhere", arg("float32", (3, 4), "ties"))
    yield Case("torch.nonzero", arg("float32", ()))
    yield Case("torch.scatter", arg("float64", (3, 4)), 1, idx, arg("float64", (2, 2)))
    yield Case("torch.scatter", arg("float64", (3, 4)), 1, idx, 1.5)
    yield Case("torch.scatter_add", arg("float64", (3, 4)), 1, idx, arg("float64", (2, 2)))
    yield Case("torch.scatter_add", arg("float64", (3, 4)), 1, Arg(np.array([[0, 9]])), arg("float64", (1, 2)))
    yield Case("torch.index_add", arg("float64", (3, 4)), 0, Arg(np.array([0, 0])), arg("float64", (2, 4)))
    yield Case("torch.index_add", arg("float64", (3, 4)), 0, Arg(np.array([0, 0])), arg("float64", (2, 4)), alpha=2)
    yield Case("torch.index_fill", arg("float64", (3, 4)), 1, Arg(np.array([0, 2])), -1.0)
    yield Case("torch.index_copy", arg("float64", (3, 4)), 0, Arg(np.array([2, 0])), arg("float64", (2, 4)))


def setitem_cases():
    for key, value in ((0, 1.5), (slice(None, None, 2), arg("float64", (5,), grad=False)), ((Ellipsis, 1), 2),
                       (Arg(np.array([[True] * 5] * 4)), 0.0), (Arg(np.array([0, 0])), arg("float64", (2, 5), grad=False)),
                       (5, 1.0), (slice(None), arg("float64", (3,), grad=False)), (0, arg("int64", (5,))),
                       (slice(None), float("nan")), ([0, 2], arg("float32", (1, 5), grad=False))):
        yield Case("op.setitem", arg("float64", (4, 5), grad=False), key, value)
    yield Case("op.setitem", arg("int64", (4, 5)), 0, 2.7)
    yield Case("op.setitem", arg("uint8", (4, 5)), 0, 300)
    yield Case("op.setitem", arg("bool", (4, 5)), 0, 2)


# ----------------------------------------------------------------------------- every other name
RANDOM = set(("bernoulli multinomial normal poisson rand rand_like randint randint_like randn randn_like randperm "
              "dropout alpha_dropout feature_alpha_dropout rrelu rrelu_ empty empty_like seed initial_seed "
              "manual_seed get_rng_state set_rng_state bernoulli_ exponential_ normal_ random_ uniform_ "
              "cauchy_ geometric_ log_normal_ new_empty new").split())   # random or uninitialised values
STATEFUL = set(("set_default_dtype set_default_tensor_type set_num_threads set_num_interop_threads set_printoptions "
                "set_flush_denormal set_warn_always set_grad_enabled use_deterministic_algorithms "
                "set_deterministic_debug_mode set_float32_matmul_precision set_detect_anomaly backward "
                "register_hook retain_grad requires_grad_ resize_ resize_as_ share_memory_ numpy tolist cuda "
                "data_ptr storage untyped_storage pin_memory record_stream apply_ map_ detach_ "
                "set_ to_sparse vmap").split())


def probe_arguments():
    """A few plain argument lists tried on every name no family covers."""
    x = lambda: arg("float64", (3, 3), "pos")  # noqa: E731
    return [(x(),), (x(), x()), (x(), 1), (x(), -1), (x(), 5), (arg("int64", (3, 3)),), (arg("float32", ()),),
            (arg("float64", (0, 3)),), (x(), x(), x())]


def probe_cases(names, methods, covered):
    for name in names:
        if name in covered or name in RANDOM or name in STATEFUL:
            continue
        for args in probe_arguments():
            yield Case(f"torch.{name}", *args)
    for name in methods:
        if name in covered or name in RANDOM or name in STATEFUL:
            continue
        for args in probe_arguments():
            yield Case(f"Tensor.{name}", *args)


FAMILIES = (unary_cases, binary_cases)
PLAIN_FAMILIES = (reduction_cases, scan_cases, sort_cases, shape_cases, creation_cases, indexing_cases, setitem_cases)
