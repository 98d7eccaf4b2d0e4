"""The fake device array: NumPy memory behind CuPy's rules at the host/device border.

What it keeps from CuPy (cupy/_core/core.pyx, _kernel.pyx, _routines_indexing.pyx):
- ``numpy.asarray(a)`` and every other implicit conversion raise TypeError (``__array__``);
  ``.get()``, ``cupy.asnumpy``, ``.item()``, ``.tolist()``, ``float()``, ``int()``, ``bool()`` convert.
- kernels (ufuncs, operators) take device arrays, Python scalars and NumPy scalars; a NumPy array
  among them raises ``TypeError: Unsupported type <class 'numpy.ndarray'>``.
- NumPy functions called on device arrays dispatch to the cupy function of the same name
  (``__array_function__`` / ``__array_ufunc__``), or raise TypeError when CuPy has none.
- reductions and scalar indexing return 0-d device arrays, never NumPy scalars.
- integer-array indices wrap around instead of raising IndexError; a basic-slice assignment
  takes a device array or a scalar, not a NumPy array or a list.
- no ``__index__``: a 0-d device array is not a Python integer.
- dtypes are NumPy's; object, string and datetime dtypes are refused.
"""
import functools
import os
import warnings

import numpy

_MESSAGE = ('Implicit conversion to a NumPy array is not allowed. '
            'Please use `.get()` to construct a NumPy array explicitly.')
_SCALARS = (int, float, bool, complex, numpy.generic)
_BAD_KINDS = frozenset("OUSMmV")


class CUDARuntimeError(RuntimeError):
    def __init__(self, status=100, msg="cudaErrorNoDevice: no CUDA-capable device is detected"):
        self.status = status
        super().__init__(msg)


def device_count():
    """The fake's devices: FAKECUPY_DEVICES (the test switch), otherwise none."""
    try:
        return max(0, int(os.environ.get("FAKECUPY_DEVICES", "0")))
    except ValueError:
        return 0


def require_device():
    if device_count() < 1:
        raise CUDARuntimeError()


def _check_dtype(dt):
    if dt.kind in _BAD_KINDS:
        raise ValueError(f"Unsupported dtype {dt}")
    return dt


def _unsupported(x):
    return TypeError(f"Unsupported type {type(x)}")


# ------------------------------------------------------------------ conversion at the border
def kernel_arg(x):
    """An input of an elementwise kernel: a device array or a scalar (CuPy's _preprocess_arg)."""
    if type(x) is ndarray:
        return x._a
    if isinstance(x, _SCALARS):
        return x
    raise _unsupported(x)


def dev(x):
    """An argument of a cupy routine: device arrays unwrapped, NumPy arrays refused, anywhere in
    a list or tuple; everything else (shapes, axes, dtypes, strings, scalars) as it is."""
    t = type(x)
    if t is ndarray:
        return x._a
    if t is numpy.ndarray or isinstance(x, numpy.ndarray):
        raise _unsupported(x)
    if t is list or t is tuple:
        if any(type(v) in (ndarray, numpy.ndarray, list, tuple) for v in x):
            return t(dev(v) for v in x)
    return x


def host_data(obj):
    """What cupy.array accepts: host data, with device arrays nested in lists taken as they are."""
    if type(obj) is ndarray:
        return obj._a
    if type(obj) in (list, tuple) and any(type(v) in (ndarray, list, tuple) for v in obj):
        return [host_data(v) for v in obj]
    return obj


def wrap(r, parents=()):
    """A NumPy result as a device result: arrays and NumPy scalars become device arrays (0-d for
    scalars), tuples and lists are wrapped item by item, anything else is returned as it is."""
    t = type(r)
    if t is numpy.ndarray:
        base = None
        if r.base is not None:
            for p in parents:
                if type(p) is ndarray and numpy.may_share_memory(r, p._a):
                    base = p._base if p._base is not None else p
                    break
        return _new(r, base)
    if isinstance(r, numpy.generic):
        return _new(numpy.asarray(r))
    if t is tuple or t is list:
        return t(wrap(v, parents) for v in r)
    return r


def _new(a, base=None):
    o = object.__new__(ndarray)
    o._a = a
    o._base = base
    return o


def _out(out):
    if out is None:
        return None
    if type(out) is not ndarray:
        raise TypeError("Output arguments must be cupy.ndarray")
    return out._a


def _result(r, out, parents):
    return out if out is not None else wrap(r, parents)


# ------------------------------------------------------------------ indexing
def _index_parts(idx):
    return idx if type(idx) is tuple else (idx,)


def _prepare_index(shape, idx):
    """(numpy index, advanced?) with device arrays unwrapped, host arrays and lists taken as
    indices (CuPy copies them to the device), and integer arrays wrapped around each axis."""
    parts = list(_index_parts(idx))
    advanced = False
    for i, s in enumerate(parts):
        if type(s) is ndarray:
            parts[i] = s._a
            advanced = True
        elif isinstance(s, numpy.ndarray):
            advanced = True
        elif type(s) in (list, tuple):
            arr = numpy.asarray(host_data(s))
            if arr.size == 0:
                arr = arr.astype(numpy.intp)
            parts[i] = arr
            advanced = True
        elif isinstance(s, (bool, numpy.bool_)):
            advanced = True
        elif not (s is None or s is Ellipsis or isinstance(s, (slice, int, numpy.integer))):
            if hasattr(s, "__index__"):
                continue
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
                             "and integer or boolean arrays are valid indices")
    if not advanced:
        return tuple(parts), False
    # which axis each part indexes, to wrap integer arrays around it
    consumed = sum(1 if not isinstance(s, numpy.ndarray) or s.dtype.kind != "b" else max(s.ndim, 1)
                   for s in parts if s is not None and s is not Ellipsis)
    axis = 0
    for i, s in enumerate(parts):
        if s is None:
            continue
        if s is Ellipsis:
            axis += len(shape) - consumed
            continue
        if isinstance(s, numpy.ndarray):
            if s.dtype.kind == "b":
                axis += max(s.ndim, 1)
                continue
            if s.dtype.kind not in "iu":
                raise IndexError("arrays used as indices must be of integer or boolean type "
                                 f"(actual: {s.dtype.type})")
            if axis < len(shape) and shape[axis] > 0:
                parts[i] = numpy.mod(s, shape[axis])
        axis += 1
    return tuple(parts), True


# ------------------------------------------------------------------ the array
class ndarray:
    """A CUDA array of the fake device (NumPy memory, CuPy's conversion rules)."""
    __slots__ = ("_a", "_base", "__weakref__")
    __array_priority__ = 100
    __hash__ = None

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        require_device()
        dt = _check_dtype(numpy.dtype(dtype))
        self._a = numpy.empty(shape, dt, order=order)
        if dt.kind in "fc":
            self._a.fill(numpy.nan)      # uninitialised device memory is not zero
        self._base = None

    # ---------------------------------------------------------- NumPy protocols
    def __array__(self, dtype=None, copy=None):
        raise TypeError(_MESSAGE)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from . import _ufuncs
        func = _ufuncs.lookup(ufunc.__name__)
        if func is None:
            return NotImplemented
        inout = inputs
        if "out" in kwargs:
            out = kwargs["out"]
            if len(out) != 1:
                raise ValueError("The 'out' parameter must have exactly one array value")
            inout += out
            kwargs["out"] = out[0]
        for x in inout:
            if not (isinstance(x, _SCALARS) or isinstance(x, (ndarray, numpy.ndarray))):
                return NotImplemented
        if method == "__call__":
            if ufunc.__name__ in ("greater", "greater_equal", "less", "less_equal", "equal", "not_equal"):
                inputs = tuple(x.item() if isinstance(x, numpy.ndarray) and x.ndim == 0 else x for x in inputs)
            return func(*inputs, **kwargs)
        if method in ("outer", "at", "reduce", "accumulate", "reduceat"):
            return getattr(func, method)(*inputs, **kwargs)
        return NotImplemented

    def __array_function__(self, func, types, args, kwargs):
        import cupy
        try:
            module = functools.reduce(getattr, func.__module__.split(".")[1:], cupy)
            cupy_func = getattr(module, func.__name__)
        except AttributeError:
            return NotImplemented
        if cupy_func is func:
            return NotImplemented
        for t in types:
            if not issubclass(t, (ndarray, numpy.ndarray)):
                return NotImplemented
        return cupy_func(*args, **kwargs)

    # ---------------------------------------------------------- attributes
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)

    @shape.setter
    def shape(self, value):
        self._a.shape = value

    @property
    def base(self):
        return self._base

    @property
    def T(self):
        return self._view(self._a.T)

    @property
    def mT(self):
        if self.ndim < 2:
            raise ValueError("matrix transpose with ndim < 2 is undefined")
        return self._view(numpy.swapaxes(self._a, -1, -2))

    @property
    def real(self):
        return self._view(self._a.real)

    @real.setter
    def real(self, value):
        self.real[...] = value

    @property
    def imag(self):
        return self._view(self._a.imag)

    @imag.setter
    def imag(self, value):
        self.imag[...] = value

    @property
    def flags(self):
        return _Flags(self._a, self._base is None)

    @property
    def device(self):
        from .cuda import Device
        return Device(0)

    @property
    def __cuda_array_interface__(self):
        a = self._a
        return {"shape": a.shape, "typestr": a.dtype.str, "descr": a.dtype.descr,
                "data": (a.ctypes.data if a.size else 0, False), "version": 3,
                "strides": None if a.flags.c_contiguous else a.strides}

    @property
    def data(self):
        from .cuda import MemoryPointer
        return MemoryPointer(self._a)

    def _view(self, a):
        return _new(a, self._base if self._base is not None else self)

    def _wrap(self, r):
        return wrap(r, (self,))

    # ---------------------------------------------------------- conversion (explicit)
    def get(self, stream=None, order="C", out=None, blocking=True):
        if out is not None:
            if not isinstance(out, numpy.ndarray):
                raise TypeError("Only numpy.ndarray can be obtained from cupy.ndarray")
            if out.shape != self.shape or out.dtype != self.dtype:
                raise ValueError("Shape or dtype mismatch")
            out[...] = self._a
            return out
        return numpy.array(self._a, order=order if order in "CFA" else "C", copy=True)

    def set(self, arr, stream=None):
        if not isinstance(arr, numpy.ndarray):
            raise TypeError(f"Only numpy.ndarray can be set to cupy.ndarray: {type(arr)}")
        if arr.shape != self.shape or arr.dtype != self.dtype:
            raise ValueError("Shape or dtype mismatch")
        self._a[...] = arr

    def item(self):
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self._a.item()

    def tolist(self):
        return self._a.tolist()

    def tobytes(self, order="C"):
        return self._a.tobytes(order)

    def __int__(self):
        return int(self.get())

    def __float__(self):
        return float(self.get())

    def __complex__(self):
        return complex(self.get())

    def __bool__(self):
        if self.size == 0:
            warnings.warn("The truth value of an empty array is ambiguous. Returning False, but in future "
                          "this will result in an error. Use `array.size > 0` to check that an array is "
                          "not empty.", DeprecationWarning)
            return False
        if self.size == 1:
            return bool(self._a.reshape(()))
        raise ValueError("The truth value of an array with more than one element is ambiguous. "
                         "Use a.any() or a.all()")

    def __repr__(self):
        return repr(self.get())

    def __str__(self):
        return str(self.get())

    def __format__(self, spec):
        return format(self.get(), spec)

    def __reduce__(self):
        from . import array
        return array, (self.get(),)

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    # ---------------------------------------------------------- container
    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of unsized object")
        return self._a.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self._a.shape[0]))

    def __getitem__(self, idx):
        parts, advanced = _prepare_index(self._a.shape, idx)
        r = self._a[parts]
        if isinstance(r, numpy.generic):
            if not advanced and Ellipsis not in parts:
                return self._view(self._a[parts + (Ellipsis,)])   # a 0-d view, as CuPy's
            return _new(numpy.asarray(r))
        return _new(r) if advanced else self._view(r)

    def __setitem__(self, idx, value):
        parts, advanced = _prepare_index(self._a.shape, idx)
        if type(value) is ndarray:
            value = value._a
        elif advanced:
            value = numpy.asarray(host_data(value))
            _check_dtype(value.dtype)
        else:
            # CuPy fills a basic slice from a non-device value: only a scalar will do
            value = numpy.asarray(value, dtype=self.dtype)
            if value.shape != ():
                raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        self._a[parts] = value

    def _scatter_op(self, idx, value, op):
        parts, advanced = _prepare_index(self._a.shape, idx)
        if type(value) is ndarray:
            value = value._a
        elif value is not None and not isinstance(value, _SCALARS):
            value = numpy.asarray(host_data(value))
        ufunc = {"add": numpy.add, "sub": numpy.subtract, "max": numpy.maximum, "min": numpy.minimum,
                 "and": numpy.bitwise_and, "or": numpy.bitwise_or, "xor": numpy.bitwise_xor}[op]
        ufunc.at(self._a, parts, value)

    def scatter_add(self, slices, value):
        self._scatter_op(slices, value, "add")

    # ---------------------------------------------------------- methods (CuPy's signatures)
    def astype(self, dtype, order="K", casting=None, subok=None, copy=True):
        dt = _check_dtype(numpy.dtype(dtype))
        if not copy and dt == self.dtype:
            return self
        return _new(self._a.astype(dt, order=order, casting=casting or "unsafe", copy=True))

    def copy(self, order="C"):
        return _new(numpy.array(self._a, order=order, copy=True))

    def view(self, dtype=None, array_class=None):
        return self._view(self._a.view() if dtype is None else self._a.view(dtype))

    def fill(self, value):
        if type(value) is ndarray:
            if value.shape != ():
                raise ValueError("non-scalar cupy.ndarray cannot be used for fill")
            value = value._a
        else:
            value = numpy.asarray(value, dtype=self.dtype)
            if value.shape != ():
                raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        self._a.fill(value)

    def reshape(self, *shape, order="C", copy=None):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        r = self._a.reshape(shape, order=order)
        return self._wrap(r)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return self._view(self._a.transpose(axes) if axes else self._a.transpose())

    def swapaxes(self, axis1, axis2):
        return self._view(self._a.swapaxes(axis1, axis2))

    def flatten(self, order="C"):
        return _new(self._a.flatten(order))

    def ravel(self, order="C"):
        return self._wrap(self._a.ravel(order))

    def squeeze(self, axis=None):
        return self._view(self._a.squeeze(axis))

    def diagonal(self, offset=0, axis1=0, axis2=1):
        r = self._a.diagonal(offset, axis1, axis2)       # read-only in NumPy, a writable view in CuPy
        if self._a.flags.writeable:
            r.flags.writeable = True
        return self._view(r)

    def take(self, indices, axis=None, out=None):
        from . import take
        return take(self, indices, axis, out)

    def put(self, indices, values, mode="wrap"):
        if mode not in ("wrap", "clip", "raise"):
            raise ValueError(f"clipmode not understood: {mode}")
        self._a.put(dev(indices) if type(indices) is ndarray else numpy.asarray(indices),
                    kernel_arg(values) if not isinstance(values, (list, tuple)) else numpy.asarray(values),
                    mode="wrap" if mode == "raise" else mode)

    def repeat(self, repeats, axis=None):
        return _new(self._a.repeat(dev(repeats), axis))

    def choose(self, choices, out=None, mode="raise"):
        o = _out(out)
        return _result(self._a.choose(dev(choices), out=o, mode=mode), out, ())

    def sort(self, axis=-1, kind=None):
        self._a.sort(axis=axis, kind="stable")

    def argsort(self, axis=-1, kind=None):
        return _new(self._a.argsort(axis=axis, kind="stable"))

    def partition(self, kth, axis=-1):
        self._a.partition(kth, axis=axis)

    def argpartition(self, kth, axis=-1):
        return _new(self._a.argpartition(kth, axis=axis))

    def searchsorted(self, v, side="left", sorter=None):
        from . import searchsorted
        return searchsorted(self, v, side, sorter)

    def nonzero(self):
        return tuple(_new(i) for i in self._a.nonzero())

    def compress(self, condition, axis=None, out=None):
        o = _out(out)
        return _result(self._a.compress(dev(condition), axis=axis, out=o), out, ())

    def clip(self, min=None, max=None, out=None):
        o = _out(out)
        return _result(numpy.clip(self._a, kernel_arg(min) if min is not None else None,
                                  kernel_arg(max) if max is not None else None, out=o), out, ())

    def round(self, decimals=0, out=None):
        o = _out(out)
        return _result(self._a.round(decimals, out=o), out, ())

    def conj(self):
        return self._wrap(self._a.conj())

    conjugate = conj

    def dot(self, b, out=None):
        if type(b) is not ndarray:
            raise TypeError(f"Argument 'b' has incorrect type (expected cupy._core.core._ndarray_base, "
                            f"got {type(b).__name__})")
        o = _out(out)
        return _result(self._a.dot(b._a, out=o), out, ())

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        o = _out(out)
        return _result(self._a.trace(offset, axis1, axis2, dtype=dtype, out=o), out, ())

    # reductions: no initial=, no where= (CuPy has neither)
    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return _result(self._a.sum(axis=axis, dtype=dtype, out=_out(out), keepdims=keepdims), out, ())

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return _result(self._a.prod(axis=axis, dtype=dtype, out=_out(out), keepdims=keepdims), out, ())

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return _result(self._a.mean(axis=axis, dtype=dtype, out=_out(out), keepdims=keepdims), out, ())

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return _result(self._a.var(axis=axis, dtype=dtype, out=_out(out), ddof=ddof, keepdims=keepdims), out, ())

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return _result(self._a.std(axis=axis, dtype=dtype, out=_out(out), ddof=ddof, keepdims=keepdims), out, ())

    def max(self, axis=None, out=None, keepdims=False):
        return _result(self._a.max(axis=axis, out=_out(out), keepdims=keepdims), out, ())

    def min(self, axis=None, out=None, keepdims=False):
        return _result(self._a.min(axis=axis, out=_out(out), keepdims=keepdims), out, ())

    def ptp(self, axis=None, out=None, keepdims=False):
        return _result(numpy.ptp(self._a, axis=axis, out=_out(out), keepdims=keepdims), out, ())

    def argmax(self, axis=None, out=None, dtype=None, keepdims=False):
        r = self._a.argmax(axis=axis, out=_out(out), keepdims=keepdims)
        return _result(r if dtype is None else numpy.asarray(r).astype(dtype), out, ())

    def argmin(self, axis=None, out=None, dtype=None, keepdims=False):
        r = self._a.argmin(axis=axis, out=_out(out), keepdims=keepdims)
        return _result(r if dtype is None else numpy.asarray(r).astype(dtype), out, ())

    def all(self, axis=None, out=None, keepdims=False):
        return _result(self._a.all(axis=axis, out=_out(out), keepdims=keepdims), out, ())

    def any(self, axis=None, out=None, keepdims=False):
        return _result(self._a.any(axis=axis, out=_out(out), keepdims=keepdims), out, ())

    def cumsum(self, axis=None, dtype=None, out=None):
        return _result(self._a.cumsum(axis=axis, dtype=dtype, out=_out(out)), out, ())

    def cumprod(self, axis=None, dtype=None, out=None):
        return _result(self._a.cumprod(axis=axis, dtype=dtype, out=_out(out)), out, ())

    # ---------------------------------------------------------- operators (through the ufuncs)
    def _binary(name, reflected=False, inplace=False):
        npu = getattr(numpy, name)

        def op(self, other):
            if type(other) is not ndarray and _should_use_rop(self, other):
                return NotImplemented
            if inplace:
                return npu(self, other, out=(self,))
            return npu(other, self) if reflected else npu(self, other)
        return op

    __add__, __radd__, __iadd__ = _binary("add"), _binary("add", True), _binary("add", inplace=True)
    __sub__, __rsub__, __isub__ = _binary("subtract"), _binary("subtract", True), _binary("subtract", inplace=True)
    __mul__, __rmul__, __imul__ = _binary("multiply"), _binary("multiply", True), _binary("multiply", inplace=True)
    __truediv__, __rtruediv__, __itruediv__ = (_binary("true_divide"), _binary("true_divide", True),
                                               _binary("true_divide", inplace=True))
    __floordiv__, __rfloordiv__, __ifloordiv__ = (_binary("floor_divide"), _binary("floor_divide", True),
                                                  _binary("floor_divide", inplace=True))
    __mod__, __rmod__, __imod__ = _binary("remainder"), _binary("remainder", True), _binary("remainder", inplace=True)
    __pow__, __rpow__, __ipow__ = _binary("power"), _binary("power", True), _binary("power", inplace=True)
    __matmul__, __rmatmul__ = _binary("matmul"), _binary("matmul", True)
    __and__, __rand__, __iand__ = _binary("bitwise_and"), _binary("bitwise_and", True), _binary("bitwise_and", inplace=True)
    __or__, __ror__, __ior__ = _binary("bitwise_or"), _binary("bitwise_or", True), _binary("bitwise_or", inplace=True)
    __xor__, __rxor__, __ixor__ = _binary("bitwise_xor"), _binary("bitwise_xor", True), _binary("bitwise_xor", inplace=True)
    __lshift__, __rlshift__, __ilshift__ = (_binary("left_shift"), _binary("left_shift", True),
                                            _binary("left_shift", inplace=True))
    __rshift__, __rrshift__, __irshift__ = (_binary("right_shift"), _binary("right_shift", True),
                                            _binary("right_shift", inplace=True))
    __eq__, __ne__ = _binary("equal"), _binary("not_equal")
    __lt__, __le__ = _binary("less"), _binary("less_equal")
    __gt__, __ge__ = _binary("greater"), _binary("greater_equal")
    del _binary

    def __divmod__(self, other):
        return numpy.divmod(self, other)

    def __neg__(self):
        return numpy.negative(self)

    def __pos__(self):
        return numpy.positive(self)

    def __abs__(self):
        return numpy.absolute(self)

    def __invert__(self):
        return numpy.invert(self)


def _should_use_rop(x, y):
    sentinel = object()
    y_ufunc = getattr(y, "__array_ufunc__", sentinel)
    if y_ufunc is not sentinel:
        return y_ufunc is None
    return getattr(x, "__array_priority__", 0) < getattr(y, "__array_priority__", 0)


class _Flags:
    __slots__ = ("c_contiguous", "f_contiguous", "owndata")

    def __init__(self, a, owndata):
        self.c_contiguous = a.flags.c_contiguous
        self.f_contiguous = a.flags.f_contiguous
        self.owndata = owndata

    def __getitem__(self, name):
        return {"C_CONTIGUOUS": self.c_contiguous, "F_CONTIGUOUS": self.f_contiguous,
                "OWNDATA": self.owndata}[name]
