"""Program-side NumPy subset (``import numpy as np``): NumPy's own semantics (float64 by
default, its broadcasting, dtype and view rules, its printing), computed by the host's
NumPy on arrays the program never holds. A program holds ``ndarray`` objects of this
module; each keeps its array inside an engine Tensor shell (so the session's memory
accounting counts it) where the program cannot reach it: no buffers, ``ctypes``,
``tofile``, pickling or stride tricks, no object arrays.

Every function converts its arguments first (program lists, tuples and numbers only,
checked and counted; tensors as their values), checks the size of what it would build
before building it (creation shapes, broadcasting, products, concatenation, linear
algebra work), and hands back ``ndarray`` objects, Python numbers and this module's
``dtype`` objects. ``np.random`` draws from the session's own NumPy generator, so a
seeded program draws NumPy's numbers.

String arrays (``np.array(sorted(set(text)))``, ``a.astype(str)``, NumPy's ``'<U'`` dtypes) hold
at most 64 characters an element, and each element counts as itemsize / 16 elements against the
element limit. They go only where their size cannot grow: building, indexing, iterating, casting,
comparing, sorting, ``unique`` and the shape functions; everything else (NumPy 2's string
arithmetic: ``np.add`` concatenates, ``cumsum`` would build ever longer strings) refuses them.
"""
import math as _math
import operator as _op

import numpy as _np

from ...ops.creation import register_array_type
from ...tensor import Size as _TorchSize, Tensor
from .. import guards
from . import builtins, check_sequence, step

_max, _min, _sum, _abs, _round, _any, _all = max, min, sum, abs, round, any, all
_ALLOWED = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
            "float32", "float64", "complex64", "complex128")
_NP_DTYPES = {n: _np.dtype(n) for n in _ALLOWED}
_PY_TYPES = {float: _np.dtype("float64"), int: _np.dtype("int64"), bool: _np.dtype("bool"),
             complex: _np.dtype("complex128")}
_MAX_DEPTH = 32
_MAX_STR_CHARS = 64    # characters an element of a string array may hold ('<U64', 256 bytes)


# --------------------------------------------------------------------------- dtypes
class dtype:
    """A NumPy dtype as programs see it (``np.float32``, ``x.dtype``); calling it makes a
    value of that type (``np.float32(0.5)``, ``np.int64(x)``)."""
    __slots__ = ("_np",)

    def __new__(cls, spec=None):
        d = _as_np_dtype(spec)
        found = _DTYPE_OBJECTS.get(d.name)
        if found is not None and cls is dtype:
            return found
        self = object.__new__(cls)
        self._np = d
        return self

    @property
    def name(self):
        return self._np.name

    @property
    def itemsize(self):
        return self._np.itemsize

    @property
    def kind(self):
        return self._np.kind

    @property
    def char(self):
        return self._np.char

    @property
    def str(self):
        return self._np.str

    @property
    def type(self):
        if self._np.kind == "U":
            return str
        return _SCALAR_TYPES[self._np.name]

    @property
    def __name__(self):
        return self._np.name

    def __call__(self, value=0):
        return _out(self._np.type(_host(value)))

    def __eq__(self, other):
        try:
            return self._np == _as_np_dtype(other)
        except Exception:
            return False

    def __hash__(self):
        return hash(self._np)

    def __repr__(self):
        return f"dtype('{self._np.str if self._np.kind == 'U' else self._np.name}')"

    def __str__(self):
        return self._np.str if self._np.kind == "U" else self._np.name


def _as_np_dtype(spec):
    """A host NumPy dtype from what programs write for one (allowed dtypes only)."""
    if isinstance(spec, dtype):
        return spec._np
    if spec is None:
        return _NP_DTYPES["float64"]
    if isinstance(spec, type) and spec in _PY_TYPES:
        return _PY_TYPES[spec]
    if spec is str:
        return _np.dtype("U")
    from ...dtypes import dtype as _EngineDType
    if type(spec) is _EngineDType:
        spec = spec.np
    if type(spec) is str or isinstance(spec, _np.dtype):
        try:
            d = _np.dtype(spec)
        except TypeError:
            raise TypeError(f"data type {spec!r} not understood") from None
        if d.name in _NP_DTYPES:
            return _NP_DTYPES[d.name]
        if d.kind == "U":
            _check_str_itemsize(d.itemsize)
            return d
        raise TypeError(f"NumPy dtype '{d}' is not available in programs (they have: {', '.join(_ALLOWED)}, "
                        f"and strings, str or '<U{_MAX_STR_CHARS}' at most)")
    raise TypeError(f"data type {spec!r} not understood")


class _ScalarType(dtype):
    """``np.float32`` and the other scalar types: a dtype that prints as NumPy's class."""
    __slots__ = ()

    def __repr__(self):
        return f"<class 'numpy.{self._np.type.__name__}'>"

    __str__ = __repr__


_DTYPE_OBJECTS = {}
_SCALAR_TYPES = {}
for _n in _ALLOWED:
    _d = object.__new__(dtype)
    _d._np = _NP_DTYPES[_n]
    _DTYPE_OBJECTS[_n] = _d
    _d = object.__new__(_ScalarType)
    _d._np = _NP_DTYPES[_n]
    _SCALAR_TYPES[_n] = _d
bool_ = _SCALAR_TYPES["bool"]
int8, int16, int32, int64 = (_SCALAR_TYPES[n] for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (_SCALAR_TYPES[n] for n in ("uint8", "uint16", "uint32", "uint64"))
float16, float32, float64 = (_SCALAR_TYPES[n] for n in ("float16", "float32", "float64"))
complex64, complex128 = _SCALAR_TYPES["complex64"], _SCALAR_TYPES["complex128"]
half, single, double = float16, float32, float64
int_, intc, intp, uint, longlong = int64, int32, int64, uint64, int64
long, ulong, uintc, uintp = int64, uint64, uint32, uint64   # NumPy 2's C-type names
float_, cdouble, csingle, complex_ = float64, complex128, complex64, complex128
byte, ubyte, short, ushort = int8, uint8, int16, uint16
del _n, _d


# --------------------------------------------------------------------------- arrays
class ndarray:
    """A NumPy array held by a program."""

    def __init__(self, *args, **kwargs):
        raise TypeError("create arrays with np.array, np.zeros, np.empty, ... in programs")

    @staticmethod
    def _of(a):
        """The program-side array for host array ``a`` (its size and dtype checked)."""
        if a.dtype.name not in _NP_DTYPES:
            if a.dtype == object:
                raise TypeError("arrays of Python objects are not available in programs")
            if a.dtype.kind != "U":
                raise TypeError(f"NumPy dtype '{a.dtype}' is not available in programs")
            _check_str_itemsize(a.itemsize)
            _check_count(a.size * _str_cost(a.itemsize), "a string array")
        guards.check_shape(a.shape, "a NumPy array")
        self = object.__new__(ndarray)
        self.__dict__["_t"] = Tensor._adopt_array(a, False, None)   # the shell the memory accounting counts
        return self

    @property
    def _a(self):
        return self.__dict__["_t"]._data

    # ---- attributes
    @property
    def shape(self):
        return self._a.shape

    @property
    def ndim(self):
        return self._a.ndim

    @property
    def size(self):
        return self._a.size

    @property
    def dtype(self):
        d = self._a.dtype
        return _DTYPE_OBJECTS.get(d.name) or dtype(d)

    @property
    def itemsize(self):
        return self._a.itemsize

    @property
    def nbytes(self):
        return self._a.nbytes

    @property
    def T(self):
        return ndarray._of(self._a.T)

    @property
    def real(self):
        return ndarray._of(self._a.real)

    @property
    def imag(self):
        return ndarray._of(self._a.imag)

    @property
    def flat(self):
        return _iterate(self._a.ravel())

    # ---- conversions
    def numpy(self, force=False):
        """The host array (for the host's output encoding; not in the allowlist)."""
        return self._a

    def __array__(self, dtype=None, copy=None):
        a = self._a
        return _np.array(a, dtype=dtype, copy=True)

    def tolist(self):
        check_sequence(self._a.size)
        step(self._a.size // 8)
        return self._a.tolist()

    def item(self, *args):
        return self._a.item(*[_host(a) for a in args])

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        d = _as_np_dtype(dtype)
        if d.kind == "U":   # numbers become strings of up to 64 characters: sized before they are built
            _check_count(self._a.size * _str_cost(d.itemsize or 4 * _MAX_STR_CHARS), "a string array")
        return ndarray._of(self._a.astype(d, casting=casting, copy=bool(copy)))

    def copy(self, order="C"):
        return ndarray._of(self._a.copy())

    def fill(self, value):
        self._a.fill(_host(value))

    def sort(self, axis=-1, kind=None):
        step(self._a.size // 8)
        self._a.sort(axis=axis, kind=kind)

    def resize(self, *new_shape, refcheck=True):
        """In place, as NumPy's (``a.resize((4, 1))``): the elements in C order kept as far as they
        go, zeros past them."""
        if self._a.dtype.kind == "U":
            raise TypeError(_STR_REFUSED.format("ndarray.resize"))
        shape = new_shape[0] if len(new_shape) == 1 else new_shape
        shape = tuple(_op.index(n) for n in ((shape,) if isinstance(shape, int) else tuple(shape)))
        if _any(n < 0 for n in shape):
            raise ValueError("negative dimensions not allowed")
        guards.check_shape(shape, "a NumPy array")
        a = self._a.copy()   # a program's arrays may be viewed elsewhere: the resized one is new
        a.resize(shape, refcheck=False)
        self.__dict__["_t"] = Tensor._adopt_array(a, False, None)

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return _iterate(self._a)

    def __bool__(self):
        return bool(self._a)

    def __float__(self):
        return float(self._a)

    def __int__(self):
        return int(self._a)

    def __index__(self):
        return _op.index(self._a)

    def __complex__(self):
        return complex(self._a)

    def __repr__(self):
        a = self._a
        with _PrintOptions(a):
            return _np.array_repr(a)

    def __str__(self):
        a = self._a
        with _PrintOptions(a):
            return _np.array_str(a)

    def __format__(self, spec):
        if spec and self._a.size == 1:
            return format(self._a.item(), spec)
        return format(str(self), spec)

    def __contains__(self, value):
        return bool((self._a == _host(value)).any())

    __hash__ = None

    # ---- indexing
    def __getitem__(self, index):
        index = _host_index(index)
        a = self._a
        _check_index(a, index, _str_cost(a.itemsize) if a.dtype.kind == "U" else 1)
        return _out(a[index])

    def __setitem__(self, index, value):
        index = _host_index(index)
        self._a[index] = _host(value, strings=True)   # into the array's own itemsize: nothing grows

    # ---- methods answered by NumPy's own
    def reshape(self, *shape, order="C"):
        shape = shape[0] if len(shape) == 1 else shape
        return ndarray._of(self._a.reshape(_host(shape), order=order))

    def __matmul__(self, other):
        return _binary(_op.matmul, self, other)

    def __rmatmul__(self, other):
        return _binary(_op.matmul, other, self)

    def __imatmul__(self, other):
        return _inplace(_op.imatmul, self, other)


def _iterate(a):
    from ..values import ProgramIterator
    b = builtins()
    return ProgramIterator((_out(x) for x in a), b.rt)


def _method(name, check=None):
    def method(self, *args, **kwargs):
        if self._a.dtype.kind == "U" and name not in _STR_METHODS:
            raise TypeError(_STR_REFUSED.format(f"ndarray.{name}"))
        args = [_host(a) for a in args]
        kwargs = {k: _host(v) for k, v in kwargs.items()}
        if "out" in kwargs:
            raise TypeError(f"ndarray.{name}(out=...) is not available in programs")
        if check is not None:
            check(self._a, *args, **kwargs)
        return _out(getattr(self._a, name)(*args, **kwargs))
    method.__name__ = method.__qualname__ = name
    return method


def _check_repeat_method(a, repeats, axis=None):
    _check_repeat(a, repeats, axis)


def _check_dot_method(a, b):
    _check_dot(a, b)


for _name in ("sum", "mean", "std", "var", "min", "max", "argmin", "argmax", "prod", "cumsum", "cumprod", "all",
              "any", "clip", "round", "argsort", "transpose", "swapaxes", "squeeze", "flatten", "ravel", "nonzero",
              "diagonal", "trace", "conj", "conjugate", "ptp", "take", "searchsorted", "view"):
    if _name == "view":
        continue
    setattr(ndarray, _name, _method(_name))
ndarray.repeat = _method("repeat", _check_repeat_method)
ndarray.dot = _method("dot", _check_dot_method)
del _name


def _binary(op, a, b):
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return NotImplemented    # the tensor's own operator answers (a Tensor, as in PyTorch)
    strings = op in _COMPARISONS   # strings compare (to booleans); they do not add or multiply
    ha, hb = _host(a, strings=strings), _host(b, strings=strings)
    _check_broadcast_args(ha, hb)
    if op is _op.matmul:
        _check_dot(ha, hb)
    return _out(op(ha, hb))


def _inplace(op, a, b):
    if a._a.dtype.kind == "U":
        raise TypeError(_STR_REFUSED.format("in-place arithmetic"))
    hb = _host(b)
    _check_broadcast_args(a._a, hb)
    op(a._a, hb)
    return a


def _dunder(op, reflected=False):
    if reflected:
        def method(self, other):
            if isinstance(other, Tensor):
                return NotImplemented
            return _binary(op, other, self)
    else:
        def method(self, other):
            if isinstance(other, Tensor):
                return NotImplemented
            return _binary(op, self, other)
    return method


def _unary(op):
    def method(self):
        return _out(op(self._a))
    return method


for _n, _f in (("add", _op.add), ("sub", _op.sub), ("mul", _op.mul), ("truediv", _op.truediv),
               ("floordiv", _op.floordiv), ("mod", _op.mod), ("pow", _op.pow), ("and", _op.and_),
               ("or", _op.or_), ("xor", _op.xor), ("lshift", _op.lshift), ("rshift", _op.rshift)):
    setattr(ndarray, f"__{_n}__", _dunder(_f))
    setattr(ndarray, f"__r{_n}__", _dunder(_f, True))
for _n, _f in (("iadd", _op.iadd), ("isub", _op.isub), ("imul", _op.imul), ("itruediv", _op.itruediv),
               ("ifloordiv", _op.ifloordiv), ("imod", _op.imod), ("ipow", _op.ipow), ("iand", _op.iand),
               ("ior", _op.ior), ("ixor", _op.ixor)):
    setattr(ndarray, f"__{_n}__", (lambda f: lambda self, other: _inplace(f, self, other))(_f))
for _n, _f in (("eq", _op.eq), ("ne", _op.ne), ("lt", _op.lt), ("le", _op.le), ("gt", _op.gt), ("ge", _op.ge)):
    setattr(ndarray, f"__{_n}__", _dunder(_f))
for _n, _f in (("neg", _op.neg), ("pos", _op.pos), ("abs", abs), ("invert", _op.invert)):
    setattr(ndarray, f"__{_n}__", _unary(_f))
del _n, _f


# --------------------------------------------------------------------------- conversion
def _host(x, depth=0, strings=False):
    """A program value as host data NumPy may take: numbers, strings, None, slices, host
    arrays (from this module's arrays and tensors), and lists/tuples of those. String arrays
    only where the caller says their size cannot grow (``strings``)."""
    t = type(x)
    if t is int or t is float or t is bool or t is complex or x is None or t is str:
        return x
    if isinstance(x, _Scalar):
        return x._v()
    if t is ndarray:
        a = x._a
        if a.dtype.kind == "U" and not strings:
            raise TypeError(_STR_REFUSED.format("this operation"))
        return a
    if t is _TorchSize:   # torch.Size is a tuple of ints, to NumPy as to PyTorch (np.prod(p.size()))
        return tuple(x)
    if t is list or t is tuple:
        if depth == 0:
            guards.check_nested(x)
        if depth > _MAX_DEPTH:
            raise ValueError("a list nested too deeply for an array")
        step(len(x) // 8 + 1)
        return t(_host(v, depth + 1, strings) for v in x)
    if isinstance(x, Tensor):
        if x.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        from ...tensor import _host as _to_host
        return _to_host(x._data)
    if t is dtype or t is _ScalarType:
        return x._np
    if t is slice:
        return slice(_host(x.start, depth + 1), _host(x.stop, depth + 1), _host(x.step, depth + 1))
    if x is Ellipsis:
        return x
    if t is range:
        guards.check_shape((len(x),), "an array from a range")
        return x
    if isinstance(x, type) and x in _PY_TYPES:
        return x
    from ...dtypes import dtype as _EngineDType
    if t is _EngineDType:
        return x.np
    raise TypeError(f"a '{t.__name__}' object cannot be used as a NumPy array in programs")


def _host_index(index):
    if type(index) is tuple:
        return tuple(_host(i, 1) for i in index)
    return _host(index)


class _Scalar:
    """What NumPy's scalars (``np.float64(2.5)``, ``np.int64(3)``) are to programs: Python
    numbers that keep their NumPy type through arithmetic, printing and ``.item()``."""
    __slots__ = ()

    def _v(self):
        return self._type(self._plain())

    @property
    def dtype(self):
        return _DTYPE_OBJECTS[self.__class__._name]

    @property
    def shape(self):
        return ()

    @property
    def ndim(self):
        return 0

    @property
    def size(self):
        return 1

    def item(self):
        return self._plain()

    def tolist(self):
        return self._plain()

    def astype(self, dtype):
        return _out(self._v().astype(_as_np_dtype(dtype)))

    def round(self, decimals=0):
        return _out(_np.round(self._v(), decimals))

    def __repr__(self):
        return repr(self._v())

    def __str__(self):
        return str(self._v())

    def __format__(self, spec):
        return format(self._plain(), spec)


def _scalar_op(op, reflected=False):
    def method(self, other):
        if isinstance(other, (Tensor, ndarray)):
            return NotImplemented
        try:
            o = _host(other)
        except TypeError:
            return NotImplemented
        return _out(op(o, self._v()) if reflected else op(self._v(), o))
    return method


def _make_scalar_class(base, name):
    ns = {"__slots__": (), "_name": name, "_type": _NP_DTYPES[name].type, "__module__": __name__,
          "__qualname__": "np_" + name,
          "_plain": (lambda self, b=base: b(self))}
    for n, f in (("add", _op.add), ("sub", _op.sub), ("mul", _op.mul), ("truediv", _op.truediv),
                 ("floordiv", _op.floordiv), ("mod", _op.mod), ("pow", _op.pow)):
        ns[f"__{n}__"] = _scalar_op(f)
        ns[f"__r{n}__"] = _scalar_op(f, True)
    ns["__neg__"] = lambda self: _out(-self._v())
    ns["__abs__"] = lambda self: _out(_abs(self._v()))  # the builtin: this module defines np.abs
    ns["__hash__"] = base.__hash__
    return type("np_" + name, (_Scalar, base), ns)


_SCALAR_CLASSES = {}
for _n in _ALLOWED:
    if _n.startswith(("float", "int", "uint")):
        _SCALAR_CLASSES[_n] = _make_scalar_class(float if _n.startswith("float") else int, _n)
del _n
# NumPy's scalar type -> its program class, for _out: by the result's type, as reading its dtype's name
# (a Python property of NumPy's) cost more than the arithmetic in scalar loops (np.power(10000, x) for
# each position and dimension of a sinusoid table)
_SCALAR_OUT = {_NP_DTYPES[_n].type: _c for _n, _c in _SCALAR_CLASSES.items()}


def _check_index(a, index, per=1):
    """Integer-array indexing builds (index size) x (the rest of the axes): bounded first (``per``:
    what an element counts for, a string array's more)."""
    items = index if type(index) is tuple else (index,)
    for k, i in enumerate(items):
        if isinstance(i, _np.ndarray) and i.dtype != bool or isinstance(i, list):
            n = _size(i)
            if a.ndim == 0:
                return
            axis = k if Ellipsis not in items[:k] and k < a.ndim else int(_np.argmin(a.shape))
            _check_count(n * (a.size // _max(a.shape[axis], 1)) * per)


def _out(r):
    """What a NumPy result becomes for the program."""
    cls = _SCALAR_OUT.get(type(r))
    if cls is not None:
        return cls(r.item())
    if isinstance(r, _np.ndarray):
        return ndarray._of(r)
    if isinstance(r, _np.generic):
        if isinstance(r, _np.str_):
            return str(r)   # at most _MAX_STR_CHARS characters: an element of a program's string array
        if isinstance(r, (_np.bytes_, _np.void)) or r.dtype == object:
            raise TypeError(f"a NumPy '{type(r).__name__}' is not available in programs")
        cls = _SCALAR_CLASSES.get(r.dtype.name)
        return cls(r.item()) if cls is not None else r.item()
    t = type(r)
    if t in (int, float, bool, complex, str) or r is None:
        return r
    if t is tuple or t is list:
        return t(_out(v) for v in r)
    if isinstance(r, tuple):   # NumPy's named results (eigh, svd, slogdet, unique_all, ...)
        return tuple(_out(v) for v in r)
    if isinstance(r, _np.dtype):
        return _DTYPE_OBJECTS.get(r.name) or dtype(r)
    raise TypeError(f"a '{t.__name__}' value is not available in programs")


# --------------------------------------------------------------------------- string arrays
_STR_REFUSED = ("{} is not available in programs for NumPy string arrays (they are built, indexed, iterated, "
                "cast, compared, sorted and made unique)")
_STR_METHODS = frozenset(("argsort", "transpose", "swapaxes", "squeeze", "flatten", "ravel", "nonzero", "argmin",
                          "argmax", "min", "max", "searchsorted", "all", "any"))
_STR_FUNCTIONS = frozenset(("unique", "sort", "argsort", "shape", "ndim", "size", "copy", "ravel", "reshape",
                            "transpose", "squeeze", "flip", "fliplr", "flipud", "array_equal", "isin", "equal",
                            "not_equal", "less", "less_equal", "greater", "greater_equal", "atleast_1d",
                            "atleast_2d", "expand_dims", "swapaxes", "moveaxis", "searchsorted", "nonzero",
                            "argwhere", "flatnonzero", "count_nonzero", "argmax", "argmin", "result_type",
                            "ascontiguousarray"))
_COMPARISONS = (_op.eq, _op.ne, _op.lt, _op.le, _op.gt, _op.ge)


def _str_cost(itemsize):
    """What an element of this itemsize counts for against the element limit (16 bytes each)."""
    return _max(1, -(-itemsize // 16))


def _check_str_itemsize(itemsize):
    if itemsize > 4 * _MAX_STR_CHARS:
        raise TypeError(f"NumPy strings of more than {_MAX_STR_CHARS} characters are not available in programs "
                        f"(an array of them would be '<U{itemsize // 4}')")


def _check_strings_of(data, d):
    """Before NumPy builds an array from nested lists: its strings' length, and the bytes of a
    string array (one long string repeated a million times in a list is a million copies)."""
    longest, count, numbers = 0, 0, False
    stack = [data]
    while stack:
        x = stack.pop()
        t = type(x)
        if t is list or t is tuple:
            stack.extend(x)
            continue
        count += 1
        if t is str:
            longest = _max(longest, len(x))
        elif isinstance(x, _np.ndarray) and x.dtype.kind == "U":
            longest = _max(longest, x.itemsize // 4)
            count += x.size
        else:
            numbers = True
    if count % 4096 == 0:
        step(count // 4096)
    if d is not None and d.kind == "U":
        longest = _max(longest, 32 if numbers else 0, d.itemsize // 4)
    elif d is not None or not longest:
        return   # numbers, or strings NumPy parses into numbers
    elif numbers:
        longest = _max(longest, 32)
    if longest > _MAX_STR_CHARS:
        _check_str_itemsize(4 * longest)
    _check_count(count * _str_cost(4 * longest), "a string array")


# --------------------------------------------------------------------------- size checks
_MAX_FLOPS = guards.MAX_MATMUL_FLOPS


def _limit():
    from ...autograd.state import state
    return state.element_limit


def _check_count(n, what="the result"):
    limit = _limit()
    if limit is not None and n > limit:
        raise guards._abort_elements(int(n), (int(n),), what)


def _size(x):
    if isinstance(x, _np.ndarray):
        return x.size
    if isinstance(x, (list, tuple)):
        n = 1
        for s in guards.nested_shape(x):
            n *= s
        return n
    return 1


def _shape(x):
    if isinstance(x, _np.ndarray):
        return x.shape
    if isinstance(x, (list, tuple)):
        return tuple(guards.nested_shape(x))
    return ()


def _check_broadcast_args(*args):
    shapes = [_shape(a) for a in args if isinstance(a, (_np.ndarray, list, tuple))]
    if len(shapes) < 2:
        return
    try:
        shape = _np.broadcast_shapes(*shapes)
    except ValueError:
        return   # NumPy raises its own error
    _check_count(_math.prod(shape))


def _shape_count(shape):
    if isinstance(shape, (int, _np.integer)):
        return int(shape)
    if isinstance(shape, (list, tuple)):
        n = 1
        for s in shape:
            n *= _max(int(s), 0)
        return n
    return 1


def _check_shape_arg(shape, *args, **kwargs):
    _check_count(_shape_count(shape))


def _check_arange(*args, **kwargs):
    vals = [a for a in args if isinstance(a, (int, float))]
    start, stop, stp = 0, None, 1
    if len(vals) == 1:
        stop = vals[0]
    elif len(vals) >= 2:
        start, stop = vals[0], vals[1]
        if len(vals) >= 3:
            stp = vals[2]
    start = kwargs.get("start", start)
    stop = kwargs.get("stop", stop)
    stp = kwargs.get("step", stp)
    if isinstance(stop, (int, float)) and isinstance(start, (int, float)) and isinstance(stp, (int, float)) \
            and stp != 0:
        n = _math.ceil((stop - start) / stp)
        if _math.isfinite(n):
            _check_count(_max(n, 0))


def _check_num(start, stop, num=50, *args, **kwargs):
    if isinstance(num, int):
        _check_count(num * _max(_size(start), _size(stop)))


def _check_eye(N, M=None, *args, **kwargs):
    _check_count(_shape_count(N) * _shape_count(N if M is None else M))


def _check_identity(n, *args, **kwargs):
    _check_count(_shape_count(n) ** 2)


def _check_diag(v, k=0):
    shape = _shape(v)
    if len(shape) == 1:
        n = shape[0] + _abs(int(k))
        _check_count(n * n)


def _check_meshgrid(*xs, **kwargs):
    n = 1
    for x in xs:
        n *= _size(x)
    _check_count(n * _max(len(xs), 1))


def _check_tile(a, reps):
    _check_count(_size(a) * _shape_count(reps))


def _check_repeat(a, repeats, axis=None):
    if isinstance(repeats, int):
        _check_count(_size(a) * _max(repeats, 0))
    elif isinstance(repeats, (list, tuple, _np.ndarray)):
        total = int(_np.sum(_np.asarray(repeats))) if _size(repeats) else 0
        _check_count(_max(total, 0) * _max(_size(a) // _max(len(_np.asarray(repeats)), 1), 1))


def _check_outer(a, b, *args, **kwargs):
    _check_count(_size(a) * _size(b))


def _check_concat(arrays, *args, **kwargs):
    if isinstance(arrays, (list, tuple)):
        _check_count(_sum(_size(a) for a in arrays))


def _check_split(ary, indices_or_sections, *args, **kwargs):
    """split and its kin return n arrays, or one more than the indices they are given."""
    n = indices_or_sections
    guards.check_pieces(int(n) if _np.ndim(n) == 0 else _np.size(n) + 1)


def _check_dot(a, b, *args, **kwargs):
    sa, sb = _shape(a), _shape(b)
    na, nb = _size(a), _size(b)
    if not sa or not sb:
        _check_count(_max(na, nb))
        return
    k = sb[-2] if len(sb) >= 2 else sb[-1]
    cols = nb // _max(k, 1)
    out = (na // _max(sa[-1], 1)) * cols
    _check_count(out)
    if na * cols > _MAX_FLOPS:
        raise guards._abort_elements(na * cols, (na * cols,), "a matrix product")


def _check_tensordot(a, b, *args, **kwargs):
    n = _size(a) * _size(b)
    if n > _MAX_FLOPS:
        raise guards._abort_elements(n, (n,), "a tensor product")
    _check_count(_min(n, _size(a) * _size(b)))


def _check_pad(array, pad_width, *args, **kwargs):
    shape = _shape(array)
    try:
        pads = _np.broadcast_to(_np.asarray(pad_width, dtype=_np.int64), (len(shape), 2))
    except Exception:
        return
    n = 1
    for s, (lo, hi) in zip(shape, pads):
        n *= _max(int(s) + int(lo) + int(hi), 0)
    _check_count(n)


def _check_bincount(x, weights=None, minlength=0):
    a = _np.asarray(x)
    top = int(a.max()) + 1 if a.size else 0
    _check_count(_max(top, int(minlength or 0)))


def _check_histogram(a, bins=10, *args, **kwargs):
    if isinstance(bins, int):
        _check_count(bins)


def _check_convolve(a, v, *args, **kwargs):
    na, nv = _size(a), _size(v)
    _check_count(na + nv)
    if na * nv > _MAX_FLOPS:
        raise guards._abort_elements(na * nv, (na * nv,), "a convolution")


def _check_square_work(a, *args, **kwargs):
    """Linear algebra on (..., n, n): about n**3 work per matrix."""
    shape = _shape(a)
    if len(shape) >= 2:
        n = _max(shape[-1], shape[-2])
        work = (_size(a) // _max(shape[-1] * shape[-2], 1)) * n ** 3
        if work > _MAX_FLOPS:
            raise guards._abort_elements(work, shape, "linear algebra this large")


def _check_kron(a, b):
    _check_count(_size(a) * _size(b))


# --------------------------------------------------------------------------- functions
_NUMBERS = frozenset((int, float, bool, complex))   # what _host passes through unchanged (of the common)


def _function(npf, check=None, name=None):
    name = name or npf.__name__

    strings = name in _STR_FUNCTIONS

    def f(*args, **kwargs):
        if not kwargs and not strings:   # np.power(10000, x) in a loop: numbers as they are
            args = [a if type(a) in _NUMBERS else _host(a) for a in args]
            if check is not None:
                check(*args)
            return _out(npf(*args))
        out = kwargs.pop("out", None)
        args = [_host(a, strings=strings) for a in args]
        kwargs = {k: _host(v, strings=strings) for k, v in kwargs.items()}
        if "dtype" in kwargs and kwargs["dtype"] is not None:
            kwargs["dtype"] = _as_np_dtype(kwargs["dtype"])
        if check is not None:
            check(*args, **kwargs)
        if out is not None:
            return _into(npf, name, out, args, kwargs)
        return _out(npf(*args, **kwargs))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"numpy.{name}, as NumPy computes it."
    return f


def _into(npf, name, out, args, kwargs):
    """``np.add(n, 1, out=n)``: a ufunc writes into one of the program's arrays, which it returns
    (a tensor made by torch.from_numpy(n) sees the change, as in PyTorch's tutorial)."""
    target = out[0] if type(out) is tuple and len(out) == 1 else out
    if not isinstance(npf, _np.ufunc) or npf.nout != 1:
        raise TypeError(f"np.{name}(out=...) is not available in programs")
    if type(target) is not ndarray:
        raise TypeError(f"np.{name}: out must be a NumPy array (got {type(target).__name__})")
    npf(*args, out=target._a, **kwargs)
    return target


_ELEMENTWISE = (
    "abs", "absolute", "fabs", "sign", "sqrt", "cbrt", "square", "exp", "exp2", "expm1", "log", "log2", "log10",
    "log1p", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
    "arctanh", "floor", "ceil", "trunc", "rint", "round", "around", "negative", "positive", "reciprocal",
    "deg2rad", "rad2deg", "degrees", "radians", "isnan", "isinf", "isfinite", "nan_to_num", "logical_not",
    "signbit", "conj", "conjugate", "angle", "sinc", "fix", "isreal", "iscomplex", "real", "imag",
)
_BROADCAST = (
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "mod", "remainder", "fmod", "power",
    "float_power", "maximum", "minimum", "fmax", "fmin", "arctan2", "hypot", "logaddexp", "logaddexp2",
    "copysign", "heaviside", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "isclose", "clip",
    "where", "divmod", "left_shift", "right_shift",
)
_REDUCE = (
    "sum", "mean", "std", "var", "min", "max", "amin", "amax", "argmin", "argmax", "prod", "cumsum", "cumprod",
    "median", "percentile", "quantile", "average", "all", "any", "count_nonzero", "ptp", "nansum", "nanmean",
    "nanmax", "nanmin", "nanstd", "nanvar", "nanargmax", "nanargmin", "nanprod", "nancumsum", "nanmedian",
    "allclose", "array_equal", "array_equiv", "sort", "argsort", "unique", "searchsorted", "digitize", "diff",
    "gradient", "cross", "interp", "cov", "corrcoef", "trapezoid", "trace", "diagonal", "argwhere", "nonzero",
    "flatnonzero", "isin", "setdiff1d", "union1d", "intersect1d", "setxor1d", "lexsort", "partition",
    "argpartition", "shape", "ndim", "size", "result_type", "can_cast", "promote_types", "iscomplexobj",
    "isrealobj", "isscalar", "ediff1d", "tril", "triu", "flip", "fliplr", "flipud", "roll", "rot90",
    "transpose", "swapaxes", "moveaxis", "expand_dims", "squeeze", "ravel", "reshape", "atleast_1d",
    "atleast_2d", "atleast_3d", "take", "take_along_axis",
    "delete", "copy", "ascontiguousarray", "zeros_like", "ones_like", "full_like", "empty_like", "select",
    "piecewise", "extract", "compress", "tril_indices_from", "triu_indices_from", "unravel_index",
    "ravel_multi_index", "put", "place", "vdot",
)
_CHECKED = {
    "zeros": _check_shape_arg, "ones": _check_shape_arg, "full": _check_shape_arg, "empty": _check_shape_arg,
    "arange": _check_arange, "linspace": _check_num, "logspace": _check_num, "geomspace": _check_num,
    "eye": _check_eye, "identity": _check_identity, "tri": _check_eye, "diag": _check_diag,
    "diagflat": _check_diag, "meshgrid": _check_meshgrid, "tile": _check_tile, "repeat": _check_repeat,
    "outer": _check_outer, "kron": _check_kron, "concatenate": _check_concat, "concat": _check_concat,
    "stack": _check_concat, "vstack": _check_concat, "hstack": _check_concat, "dstack": _check_concat,
    "column_stack": _check_concat, "row_stack": _check_concat, "append": lambda a, b, *r, **k: _check_count(
        _size(a) + _size(b)), "insert": lambda a, obj, values, *r, **k: _check_count(_size(a) + _size(values) +
                                                                                        _size(obj)),
    "pad": _check_pad, "dot": _check_dot, "matmul": _check_dot, "inner": _check_dot,
    "tensordot": _check_tensordot, "bincount": _check_bincount, "histogram": _check_histogram,
    "convolve": _check_convolve, "correlate": _check_convolve, "broadcast_to": lambda a, shape, **k:
        _check_count(_shape_count(shape)), "indices": lambda dims, *a, **k: _check_count(
            _shape_count(dims) * len(dims)), "tril_indices": lambda n, k=0, m=None: _check_count(
                2 * _shape_count(n) * _shape_count(n if m is None else m)),
    "triu_indices": lambda n, k=0, m=None: _check_count(2 * _shape_count(n) * _shape_count(n if m is None else m)),
    "polyfit": None, "polyval": None, "histogram_bin_edges": _check_histogram, "split": _check_split,
    "array_split": _check_split, "hsplit": _check_split, "vsplit": _check_split, "dsplit": _check_split,
}
_MAKERS = {"empty": "zeros", "empty_like": "zeros_like"}   # programs never see uninitialised memory


def _make_table():
    table = {}
    for name in _ELEMENTWISE + _REDUCE:
        if hasattr(_np, name):
            target = _MAKERS.get(name, name)
            table[name] = _function(getattr(_np, target), None, name)
    for name in _BROADCAST:
        if hasattr(_np, name):
            table[name] = _function(getattr(_np, name), _check_broadcast_args, name)
    for name, check in _CHECKED.items():
        if hasattr(_np, name):
            target = _MAKERS.get(name, name)
            table[name] = _function(getattr(_np, target), check, name)
    return table


_TABLE = _make_table()
globals().update(_TABLE)


def array(object, dtype=None, *, copy=True, order="K", ndmin=0, **kwargs):
    """A new array from nested lists, numbers, an array or a tensor (always a copy)."""
    data = _host(object, strings=True)
    d = _as_np_dtype(dtype) if dtype is not None else None
    _check_strings_of(data, d)
    a = _np.array(data, dtype=d, ndmin=ndmin)
    if a is data or (isinstance(data, _np.ndarray) and _np.shares_memory(a, data)):
        a = a.copy()
    return ndarray._of(a)


def asarray(a, dtype=None, order=None, **kwargs):
    """The array itself when it already is one of the right dtype, else a new one."""
    if type(a) is ndarray and (dtype is None or _as_np_dtype(dtype) == a._a.dtype):
        return a
    return array(a, dtype=dtype)


asanyarray = asarray


def empty(shape, dtype=float, order="C", **kwargs):
    """Like NumPy's, but zeroed: programs never see uninitialised memory."""
    _check_shape_arg(_host(shape))
    return ndarray._of(_np.zeros(_host(shape), dtype=_as_np_dtype(dtype)))


def einsum(subscripts, *operands, **kwargs):
    """einsum over at most a few operands; the result and the work are bounded by the
    product of the operands' sizes."""
    if type(subscripts) is not str:
        raise TypeError("np.einsum takes its subscripts as a string in programs")
    ops = [_host(o) for o in operands]
    n = 1
    for o in ops:
        n *= _max(_size(o), 1)
    if n > _MAX_FLOPS:
        raise guards._abort_elements(n, (n,), "an einsum")
    kwargs.pop("out", None)
    kwargs = {k: _host(v) for k, v in kwargs.items()}
    return _out(_np.einsum(subscripts, *ops, **kwargs))


def iinfo(t):
    return _Info(_np.iinfo(_as_np_dtype(t)))


def finfo(t=float64):
    return _Info(_np.finfo(_as_np_dtype(t)))


class _Info:
    """``np.finfo``/``np.iinfo``: plain numbers."""
    __slots__ = ("bits", "min", "max", "eps", "tiny", "resolution", "dtype")

    def __init__(self, info):
        self.bits = int(info.bits)
        self.min = _out(info.min) if not isinstance(info.min, int) else info.min
        self.max = _out(info.max) if not isinstance(info.max, int) else info.max
        self.eps = _out(info.eps) if hasattr(info, "eps") else None
        self.tiny = _out(info.tiny) if hasattr(info, "tiny") else None
        self.resolution = _out(info.resolution) if hasattr(info, "resolution") else None
        self.dtype = _DTYPE_OBJECTS[info.dtype.name]

    def __repr__(self):
        return f"info(dtype={self.dtype}, min={self.min}, max={self.max})"


def isscalar(x):
    return type(x) in (int, float, bool, complex, str)


# Print options are the session's own (rasbt/machine-learning-book's np.set_printoptions(precision=3)):
# kept in its state and applied around each of its arrays' str/repr with np.printoptions, which NumPy 2
# holds in a context variable, so no other session (thread) sees them. formatter (host NumPy would call
# program functions) and override_repr are refused; arrays above _FULL_PRINT_MAX elements print summarised
# whatever threshold and edgeitems say, and precision is at most _MAX_PRECISION digits (what the host builds is bounded).
_PRINT_KEYS = ("precision", "threshold", "edgeitems", "linewidth", "suppress", "nanstr", "infstr", "sign",
               "floatmode", "legacy")
_FULL_PRINT_MAX = 100_000
_MAX_PRECISION = 64


def _session_printoptions():
    from . import session_state
    try:
        return session_state("numpy.printoptions", dict)
    except Exception:  # noqa: BLE001 - outside a run (the host formatting a value): NumPy's defaults
        return {}


class _PrintOptions:
    """The session's print options around one array's formatting."""
    __slots__ = ("opts", "cm")

    def __init__(self, a):
        opts = _session_printoptions()
        if opts and a.size > _FULL_PRINT_MAX:
            if opts.get("threshold", 1000) >= a.size:
                opts = {**opts, "threshold": 1000}
            # a summary prints 2 * edgeitems of each dimension: a large edgeitems printed the whole array
            # (hostile pass 11: 3 s for 2**20 zeros, past wall_time for 2**22, whatever threshold said)
            edge = int((_FULL_PRINT_MAX ** (1.0 / (a.ndim or 1))) // 2) or 1   # (this module's max is NumPy's)
            if opts.get("edgeitems", 3) > edge:
                opts = {**opts, "edgeitems": edge}
        self.opts = opts

    def __enter__(self):
        self.cm = _np.printoptions(**self.opts) if self.opts else None
        if self.cm is not None:
            self.cm.__enter__()

    def __exit__(self, *exc):
        if self.cm is not None:
            self.cm.__exit__(*exc)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, suppress=None, nanstr=None,
                     infstr=None, formatter=None, sign=None, floatmode=None, *, legacy=None, override_repr=None):
    if formatter is not None or override_repr is not None:
        raise TypeError("np.set_printoptions: formatter and override_repr are not available in programs")
    given = dict(precision=precision, threshold=threshold, edgeitems=edgeitems, linewidth=linewidth,
                 suppress=suppress, nanstr=nanstr, infstr=infstr, sign=sign, floatmode=floatmode, legacy=legacy)
    given = {k: _host(v) for k, v in given.items() if v is not None}
    for k, v in given.items():
        if k in ("nanstr", "infstr", "sign", "floatmode", "legacy") and not isinstance(v, (str, bool)):
            raise TypeError(f"np.set_printoptions: {k} must be a string")
        if isinstance(v, str) and len(v) > 32:
            raise ValueError(f"np.set_printoptions: {k} is longer than 32 characters")
    if "precision" in given and isinstance(given["precision"], int) and given["precision"] > _MAX_PRECISION:
        raise ValueError(f"np.set_printoptions: precision above {_MAX_PRECISION} is not available in programs")
    opts = _session_printoptions()
    merged = {**opts, **given}
    with _np.printoptions(**merged):   # NumPy's own checks of the values (its errors), on this context only
        pass
    opts.clear()
    opts.update(merged)


def get_printoptions():
    with _np.printoptions(**_session_printoptions()):
        got = _np.get_printoptions()
    return {k: got[k] for k in _PRINT_KEYS + ("formatter",) if k in got}


def seterr(*args, **kwargs):
    return {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"}


# constants
pi, e, inf, nan, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, _np.euler_gamma
newaxis = None
PINF, NINF, NAN = _np.inf, -_np.inf, _np.nan

# what the allowlist names for programs
__all__ = sorted(set(_TABLE) | {
    "array", "asarray", "asanyarray", "empty", "einsum", "iinfo", "finfo", "isscalar", "set_printoptions",
    "get_printoptions",
    "seterr", "ndarray", "dtype", "pi", "e", "inf", "nan", "euler_gamma", "newaxis", "bool_", "int8", "int16",
    "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64",
    "complex128", "half", "single", "double", "int_", "intc", "intp", "uint", "longlong", "float_", "cdouble",
    "csingle", "complex_", "byte", "ubyte", "short", "ushort", "long", "ulong", "uintc", "uintp"})


# --------------------------------------------------------------------------- torch side
def torch_from_numpy(ndarray_):
    """``torch.from_numpy(a)``: a tensor sharing the array's memory, as PyTorch's."""
    if type(ndarray_) is not ndarray:
        raise TypeError(f"expected np.ndarray (got {type(ndarray_).__name__})")
    from ...dtypes import from_numpy_dtype
    from ...ops.creation import from_numpy
    a = ndarray_._a
    try:
        from_numpy_dtype(a.dtype)
    except TypeError:
        raise TypeError(f"can't convert np.ndarray of type numpy.{a.dtype.name}. The only supported types are: "
                        f"float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, "
                        f"and bool.") from None
    return from_numpy(a)


def torch_tensor(data, *args, **kwargs):
    """``torch.tensor(data)``: nested lists are sized before the engine walks them; NumPy arrays
    (registered below) are copied, as PyTorch's."""
    guards.check_nested(data)
    from ... import tensor as _tensor
    return _tensor(data, *args, **kwargs)


def torch_as_tensor(data, *args, **kwargs):
    """``torch.as_tensor(data)``, taking NumPy arrays too."""
    guards.check_nested(data)
    from ... import as_tensor as _as_tensor
    return _as_tensor(data, *args, **kwargs)


# torch.tensor, torch.Tensor and the typed constructors (torch.FloatTensor(...)) take a program's
# arrays, alone or inside lists, as the host arrays they hold
register_array_type(ndarray, lambda a: a._a)
# and its NumPy scalars as NumPy's (torch.tensor(np.float64(2.0)) is float64, a batch of np.float32 is float32)
for _cls in _SCALAR_CLASSES.values():
    register_array_type(_cls, lambda s: _np.asarray(s._v()))
del _cls


def tensor_numpy(t, force=False):
    """``Tensor.numpy()`` in programs: an array sharing the tensor's memory, as PyTorch's."""
    return ndarray._of(t.numpy(force=force))
