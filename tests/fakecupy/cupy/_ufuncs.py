"""CuPy's elementwise kernels (``cupy.ufunc``) over NumPy's ufuncs, with CuPy's argument rules."""
import os
import tempfile

import numpy

from ._core import _check_dtype, _new, _out, kernel_arg, ndarray, require_device

# CuPy implements ufunc.at only where it has a scatter kernel, reduce/accumulate only for add and
# multiply, reduceat only for add (cupy/_core/_kernel.pyx).
_SCATTER = {"add": "add", "subtract": "sub", "maximum": "max", "minimum": "min",
            "bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor"}


_compiled = set()


def _compile(name, ins):
    """CuPy compiles a kernel the first time a process runs it for given dtypes, and saves it to its
    disk cache through a temporary file unless ``CUPY_CACHE_IN_MEMORY=1``: in a process that may
    write no file (RLIMIT_FSIZE 0, a gradserve worker) that save fails, as it does on a GPU."""
    key = (name,) + tuple(str(getattr(a, "dtype", type(a).__name__)) for a in ins)
    if key in _compiled:
        return
    if os.environ.get("CUPY_CACHE_IN_MEMORY") != "1":
        with tempfile.TemporaryFile() as f:
            f.write(b"kernel")
    _compiled.add(key)


class ufunc:
    """A universal function of the fake device: device arrays, Python and NumPy scalars in."""

    def __init__(self, npu, name=None):
        self._npu = npu
        self.name = "cupy_" + (name or npu.__name__)
        self.__name__ = name or npu.__name__
        self.nin, self.nout, self.nargs = npu.nin, npu.nout, npu.nargs
        self.types = npu.types
        self.ntypes = npu.ntypes

    def __repr__(self):
        return f"<ufunc '{self.name}'>"

    def __call__(self, *args, out=None, dtype=None, casting="same_kind", **kwargs):
        if kwargs:
            raise TypeError(f"Wrong arguments {kwargs}")
        if not self.nin <= len(args) <= self.nargs:
            raise TypeError(f"Wrong number of arguments for {self.name!r}. It must be either {self.nin} or "
                            f"{self.nargs} (with outputs), but given {len(args)}.")
        require_device()
        ins = [kernel_arg(a) for a in args[:self.nin]]
        _compile(self.__name__, ins)
        outs = args[self.nin:]
        if out is not None:
            if outs:
                raise ValueError("Cannot specify 'out' as both a positional and keyword argument")
            outs = out if isinstance(out, tuple) else (out,)
        np_outs = tuple(_out(o) for o in outs)
        kw = {"casting": casting}
        if dtype is not None:
            kw["dtype"] = _check_dtype(numpy.dtype(dtype))
        if np_outs:
            kw["out"] = np_outs if len(np_outs) > 1 else np_outs[0]
        r = self._npu(*ins, **kw)
        if outs:
            return outs if self.nout > 1 else outs[0]
        if self.nout > 1:
            return tuple(_new(numpy.asarray(x)) for x in r)
        return _new(numpy.asarray(r))

    def outer(self, A, B, **kwargs):
        return self(A.reshape(A.shape + (1,) * B.ndim), B, **kwargs)

    def at(self, a, indices, b=None):
        op = _SCATTER.get(self.__name__)
        if op is None:
            raise NotImplementedError(f"`{self.name}.at` is not supported yet")
        if type(a) is not ndarray:
            raise TypeError(f"Argument 'a' has incorrect type: {type(a)}")
        a._scatter_op(indices, b, op)

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False):
        if self.__name__ == "add":
            return array.sum(axis, dtype, out, keepdims)
        if self.__name__ == "multiply":
            return array.prod(axis, dtype, out, keepdims)
        raise NotImplementedError(f"`{self.name}.reduce` is not supported yet")

    def accumulate(self, array, axis=0, dtype=None, out=None):
        if self.__name__ == "add":
            return array.cumsum(axis, dtype, out)
        if self.__name__ == "multiply":
            return array.cumprod(axis, dtype, out)
        raise NotImplementedError(f"`{self.name}.accumulate` is not supported yet")

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        if self.__name__ != "add":
            raise NotImplementedError(f"`{self.name}.reduceat` is not supported yet")
        r = numpy.add.reduceat(array._a, indices._a if type(indices) is ndarray else indices, axis, dtype,
                               _out(out))
        return out if out is not None else _new(r)


# The ufunc names of CuPy's top-level namespace (cupy/__init__.py) that NumPy also has.
NAMES = (
    "abs absolute acos acosh add arccos arccosh arcsin arcsinh arctan arctan2 arctanh asin asinh atan "
    "atan2 atanh bitwise_and bitwise_count bitwise_invert bitwise_left_shift bitwise_not bitwise_or "
    "bitwise_right_shift bitwise_xor cbrt ceil conj conjugate copysign cos cosh deg2rad degrees divide "
    "divmod equal exp exp2 expm1 fabs float_power floor floor_divide fmax fmin fmod frexp gcd greater "
    "greater_equal heaviside hypot invert isfinite isinf isnan lcm ldexp left_shift less less_equal log "
    "log10 log1p log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor matmul maximum "
    "minimum mod modf multiply negative nextafter not_equal positive pow power rad2deg radians reciprocal "
    "remainder right_shift rint sign signbit sin sinh sqrt square subtract tan tanh true_divide trunc"
).split()

UFUNCS = {n: ufunc(getattr(numpy, n), n) for n in NAMES if hasattr(numpy, n)}
_BY_NUMPY_NAME = {u._npu.__name__: u for u in UFUNCS.values()}


def lookup(name):
    """The cupy ufunc (or cupyx.scipy.special one) for a NumPy ufunc's name, as __array_ufunc__ finds it."""
    u = UFUNCS.get(name) or _BY_NUMPY_NAME.get(name)
    if u is not None:
        return u
    try:
        import cupyx.scipy.special as special
    except ImportError:
        return None
    return getattr(special, name, None)
