"""Tensor creation: from data, filled, ranges and random, with PyTorch's dtype rules."""
import numbers
import operator
from itertools import chain

import numpy as np

from .. import dtypes as _dt
from ..autograd.state import state
from ..device import CPU, array_module_for, as_device, cuda_available, device_of
from ..limits import check_elements
from ..tensor import Tensor

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "zeros_like",
           "ones_like", "full_like", "empty_like", "arange", "linspace", "logspace", "eye", "rand",
           "randn", "randint", "rand_like", "randn_like", "randint_like", "randperm", "normal",
           "bernoulli", "multinomial", "manual_seed", "seed", "initial_seed", "Generator",
           "get_rng_state", "set_rng_state", "scalar_tensor"]


class Generator:
    """A pseudo-random number generator (``torch.Generator``) over NumPy's PCG64."""

    def __init__(self, device="cpu"):
        d = as_device(device)
        if d.type == "cuda" and not cuda_available():
            raise RuntimeError("Cannot get CUDA generator: no CUDA device is available")
        self.device = d   # where it draws (hessian-eigenthings compares it with a tensor's device)
        self._seed = 0
        self.rng = np.random.default_rng(0)

    def manual_seed(self, seed):
        self._seed = int(seed)
        self.rng = np.random.default_rng(self._seed & 0xFFFFFFFFFFFFFFFF)
        return self

    def seed(self):
        s = int(np.random.SeedSequence().entropy) & 0xFFFFFFFFFFFFFFFF
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        return self.rng.bit_generator.state

    def set_state(self, value):
        self.rng.bit_generator.state = value


state.generator = Generator()


def _gen(generator=None):
    return generator if generator is not None else state.generator


def manual_seed(seed):
    """Sets the seed for generating random numbers."""
    return state.generator.manual_seed(seed)


def seed():
    return state.generator.seed()


def initial_seed():
    return state.generator.initial_seed()


def get_rng_state():
    return state.generator.get_state()


def set_rng_state(new_state):
    state.generator.set_state(new_state)


# ------------------------------------------------------------------ from data
# Array types other than NumPy's that torch.tensor takes as their values (the program interpreter's
# NumPy arrays register here): exact type -> a function giving its NumPy array
_ARRAY_TYPES = {}
_MAX_NESTING = 64


def register_array_type(cls, to_numpy):
    """Lets ``torch.tensor``, ``torch.Tensor`` and the typed constructors take ``cls`` objects as the
    NumPy arrays ``to_numpy`` gives for them (looked up by exact type, never by attribute)."""
    _ARRAY_TYPES[cls] = to_numpy


def registered_array(data):
    """The NumPy array a registered array type holds (a program's ``np.ndarray``), or None."""
    convert = _ARRAY_TYPES.get(type(data))
    return None if convert is None else convert(data)


def _host_arrays(data, depth=0):
    """``data`` with the registered array types replaced by their NumPy arrays."""
    convert = _ARRAY_TYPES.get(type(data))
    if convert is not None:
        return convert(data)
    if type(data) in (list, tuple) and depth < _MAX_NESTING:
        types = set(map(type, data))   # at C speed: a list of numbers is not walked in Python
        if types.isdisjoint(_ARRAY_TYPES) and not (types & _SEQUENCES and _holds_arrays(data, depth + 1)):
            return data
        return [_host_arrays(x, depth + 1) for x in data]
    return data


def _holds_arrays(rows, depth):
    """Whether nested sequences ``rows`` hold a registered array type at any depth."""
    while depth < _MAX_NESTING:
        rows = [x for x in rows if type(x) in _SEQUENCES]
        if not rows:
            return False
        types = set()
        for row in rows:
            types.update(map(type, row))
        if not types.isdisjoint(_ARRAY_TYPES):
            return True
        if not types & _SEQUENCES:
            return False
        rows = list(chain.from_iterable(rows))
        depth += 1
    return False


_SEQUENCES = {list, tuple}
_PLAIN_NUMBERS = {bool, int, float}


def _plain_dtype(data, shape):
    """The dtype of ``data`` when it is regular nesting (lists and tuples of ``shape``) of Python
    bools, ints and floats, read a depth at a time at C speed (``map`` over each depth's rows)
    instead of an element at a time in Python: a list of ten million floats takes a fraction of a
    second, not tens of seconds of host code no deadline interrupts. None for anything else (empty,
    ragged, NumPy values, tensors, other types): the general walk answers, with its errors."""
    if not shape or 0 in shape:
        return None
    rows = [data]   # the sequences at one depth, all of that depth's length
    for n in shape[1:]:
        rows = list(chain.from_iterable(rows))
        if not set(map(type, rows)) <= _SEQUENCES or set(map(len, rows)) != {n}:
            return None
    types = set(map(type, chain.from_iterable(rows)))
    if not types <= _PLAIN_NUMBERS:
        return None
    if float in types:
        return _dt.get_default_dtype()
    return _dt.int64 if int in types else _dt.bool


def _scalar_dtype(x):
    """The dtype torch.tensor gives one element: Python bool, int and float as bool,
    int64 and the default float; NumPy scalars and one-element tensors keep theirs."""
    if isinstance(x, (np.generic, np.ndarray, Tensor)):
        if isinstance(x, Tensor) and x._data.size != 1 or isinstance(x, np.ndarray) and x.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return _dt.from_numpy_dtype(x.dtype if not isinstance(x, Tensor) else x._data.dtype)
    if isinstance(x, bool):
        return _dt.bool
    if isinstance(x, numbers.Integral):
        return _dt.int64
    if isinstance(x, numbers.Real):
        return _dt.get_default_dtype()
    raise TypeError(f"Could not infer dtype of {type(x).__name__}")


# NumPy's NPY_MAXDIMS: no array, so no tensor of this engine, has more dimensions
MAX_NESTED_DIMS = 64


def nested_shape(data):
    """The shape nested sequences would give a tensor, following first elements (so a
    list of shared rows costs its depth, not its logical size), and the innermost first
    element. A list that holds itself (``a.append(a)``) nests without end: past NumPy's
    64 dimensions it is PyTorch's ValueError, before the walk grows any further."""
    shape = []
    while isinstance(data, (list, tuple)):
        if len(shape) == MAX_NESTED_DIMS:
            raise ValueError(f"too many dimensions '{type(data).__name__}'")
        shape.append(len(data))
        if not data:
            break
        data = data[0]
    return shape, data


def _inspect(data):
    """Shape and inferred dtype of nested sequences; ragged nesting raises ValueError.

    Returns (shape, dtype or None for no elements, whether any element is a tensor)."""
    shape, d = nested_shape(data)
    if isinstance(d, np.ndarray) and d.ndim and shape:
        shape.extend(d.shape)   # NumPy arrays in a sequence are sequences too, as PyTorch reads them
    plain = _plain_dtype(data, shape)
    if plain is not None:
        return tuple(shape), plain, False
    ndim = len(shape)
    found = None
    has_tensor = False
    stack = [(data, 0)]
    while stack:
        x, dim = stack.pop()
        if isinstance(x, (list, tuple)):
            if dim >= ndim:
                # PyTorch's words: its conversion of the element to a number fails
                raise TypeError(f"must be real number, not {type(x).__name__}")
            if len(x) != shape[dim]:
                raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {len(x)})")
            stack.extend((item, dim + 1) for item in x)
            continue
        if isinstance(x, np.ndarray) and x.ndim:
            if x.shape != tuple(shape[dim:]):
                bad = next((i for i in range(x.ndim) if dim + i >= ndim or x.shape[i] != shape[dim + i]), x.ndim)
                if dim + bad >= ndim:
                    raise ValueError(f"expected a number at dim {dim + bad} (got a sequence of length "
                                     f"{x.shape[bad]})")
                got = f"got {x.shape[bad]}" if bad < x.ndim else "got a scalar"
                raise ValueError(f"expected sequence of length {shape[dim + bad]} at dim {dim + bad} ({got})")
            dtype = _dt.from_numpy_dtype(x.dtype)   # its elements' dtype, even with none (as PyTorch)
            found = dtype if found is None else _dt._promote_pair(found, dtype)
            continue
        if dim != ndim:
            raise TypeError("not a sequence")   # PyTorch's words
        dtype = _scalar_dtype(x)
        has_tensor = has_tensor or isinstance(x, Tensor)
        found = dtype if found is None else _dt._promote_pair(found, dtype)
    return tuple(shape), found, has_tensor


def _items(data):
    """Nested sequences with every tensor element replaced by its Python value."""
    if isinstance(data, Tensor):
        return data.item()
    if isinstance(data, (list, tuple)):
        return [_items(x) for x in data]
    return data


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """Constructs a tensor with no autograd history by copying data."""
    if type(data) is range:   # a sequence to PyTorch (torch.LongTensor(range(140)) in pygcn/pyGAT's loaders)
        data = list(data)
    if _ARRAY_TYPES:
        data = _host_arrays(data)
    dtype = _dt.as_dtype(dtype) if dtype is not None else None
    dev = as_device(device) or (data.device if isinstance(data, Tensor) else device_of(data))
    xp = array_module_for(dev)
    if isinstance(data, Tensor):
        arr = data._data.astype(dtype.np if dtype is not None else data._data.dtype, copy=True)
        arr = xp.asarray(arr) if xp is not np else _host(arr)
    elif isinstance(data, np.ndarray) or hasattr(data, "__cuda_array_interface__"):
        if xp is np and not isinstance(data, np.ndarray):
            data = _host(data)
        arr = xp.array(data, dtype=dtype.np if dtype is not None else None, copy=True)
        _dt.from_numpy_dtype(arr.dtype)  # unsupported dtypes (object, complex) raise here
    else:
        shape, inferred, has_tensor = _inspect(data)
        check_elements(shape, "tensor")
        dtype = dtype or inferred or _dt.get_default_dtype()
        try:
            arr = np.array(_items(data) if has_tensor else data, dtype=dtype.np)
        except OverflowError:
            arr = _checked_integers(_items(data) if has_tensor else data, dtype.np)
        if xp is not np:
            arr = xp.asarray(arr)
    return _finish(arr, requires_grad)


def _checked_integers(data, np_dtype):
    """Nested Python ints past a dtype's range, as PyTorch's tensor() takes them: past int64 a
    ValueError, past the dtype a RuntimeError, and negatives into an unsigned dtype wrapped."""
    try:
        wide = np.array(data, dtype=np.int64)
    except OverflowError:
        raise ValueError("Overflow when unpacking long long") from None
    info = np.iinfo(np_dtype) if np_dtype.kind in "iu" else None
    if info is not None:
        low = -info.max if np_dtype.kind == "u" else info.min
        if wide.size and (wide.min() < low or wide.max() > info.max):
            raise RuntimeError(f"value cannot be converted to type {np_dtype.name} without overflow")
    return wide.astype(np_dtype)


def _finish(arr, requires_grad):
    if requires_grad and arr.dtype.kind != "f":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return Tensor._adopt_array(arr, bool(requires_grad), None)


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor) and (dtype is None or _dt.as_dtype(dtype) == data.dtype) and (
            device is None or as_device(device) == data.device):
        return data
    return tensor(data, dtype=dtype, device=device)


def from_numpy(ndarray):
    return Tensor._adopt_array(ndarray, False, None)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    return full((), s, dtype=dtype or _dt.get_default_dtype(), device=device, requires_grad=requires_grad)


# ------------------------------------------------------------------ filled
def _shape(size, keyword=None):
    """The shape from a factory's sizes: ``zeros(2, 3)``, ``zeros((2, 3))`` or ``zeros(size=(2, 3))``."""
    if keyword is not None:
        if size:
            raise TypeError("got multiple values for argument 'size'")
        size = (keyword,)
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    elif len(size) == 1 and (isinstance(size[0], bool) or type(size[0]) is not int and not _is_index(size[0])):
        raise TypeError(f"argument 'size' must be tuple of ints, not {type(size[0]).__name__}")
    shape = tuple(s if type(s) is int else _size_item(s, i) for i, s in enumerate(size))
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(shape)}")
    check_elements(shape)
    return shape


def _is_index(value):
    """Whether value stands for an integer as PyTorch reads sizes (an int, a NumPy integer, an
    integer tensor of one element), never a float or a float tensor."""
    if isinstance(value, Tensor):
        return value.numel() == 1 and not value.dtype.is_floating_point
    return isinstance(value, numbers.Integral)


def _size_item(value, pos):
    if not _is_index(value):
        raise TypeError(f"argument 'size' must be tuple of ints, but found element of type "
                        f"{type(value).__name__} at pos {pos}")
    return int(value)


def _xp_dtype(dtype, device, default=None):
    dtype = _dt.as_dtype(dtype) if dtype is not None else (default or _dt.get_default_dtype())
    return array_module_for(as_device(device) or CPU), dtype


def zeros(*shape, size=None, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    """Returns a tensor filled with the scalar value 0."""
    xp, dtype = _xp_dtype(dtype, device)
    return _finish(xp.zeros(_shape(shape, size), dtype=dtype.np), requires_grad)


def ones(*shape, size=None, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    """Returns a tensor filled with the scalar value 1."""
    xp, dtype = _xp_dtype(dtype, device)
    return _finish(xp.ones(_shape(shape, size), dtype=dtype.np), requires_grad)


def empty(*shape, size=None, dtype=None, device=None, requires_grad=False, out=None, layout=None, memory_format=None):
    """Returns a tensor of the given size; its memory is zeroed (programs must not see old data)."""
    return zeros(*shape, size=size, dtype=dtype, device=device, requires_grad=requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    """Creates a tensor of size filled with fill_value; the dtype is inferred from it."""
    if dtype is None:
        dtype = _scalar_dtype(fill_value)
    xp, dtype = _xp_dtype(dtype, device)
    size = size if isinstance(size, (list, tuple)) else (size,)
    value = fill_value.item() if isinstance(fill_value, Tensor) else _dt.checked_scalar(fill_value, dtype.np)
    return _finish(xp.full(_shape(size), value, dtype=dtype.np), requires_grad)


def _like(input, dtype, device):
    return (dtype if dtype is not None else input.dtype), (device if device is not None else input.device)


def zeros_like(input, *, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None):
    dtype, device = _like(input, dtype, device)
    return zeros(tuple(input.shape), dtype=dtype, device=device, requires_grad=requires_grad)


def ones_like(input, *, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None):
    dtype, device = _like(input, dtype, device)
    return ones(tuple(input.shape), dtype=dtype, device=device, requires_grad=requires_grad)


def empty_like(input, *, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None):
    return zeros_like(input, dtype=dtype, device=device, requires_grad=requires_grad)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
              memory_format=None):
    dtype, device = _like(input, dtype, device)
    return full(tuple(input.shape), fill_value, dtype=dtype, device=device, requires_grad=requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    """Returns a 2-D tensor with ones on the diagonal and zeros elsewhere."""
    xp, dtype = _xp_dtype(dtype, device)
    m = n if m is None else m
    _shape((n, m))
    return _finish(xp.eye(n, m, dtype=dtype.np), requires_grad)


# ------------------------------------------------------------------ ranges
def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    """Returns a 1-D tensor of values from start to end (exclusive) by step."""
    if end is None:
        start, end = 0, start
    start, end, step = (x.item() if isinstance(x, Tensor) else x for x in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0 and end != start:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = _dt.int64 if all(isinstance(x, numbers.Integral) for x in (start, end, step)) \
            else _dt.get_default_dtype()
    xp, dtype = _xp_dtype(dtype, device)
    n = max(0, int(np.ceil((end - start) / step)))
    _shape((n,))
    return _finish(xp.arange(start, end, step, dtype=np.float64 if dtype.is_floating_point else None)
                   .astype(dtype.np)[:n], requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    """Creates a 1-D tensor of steps values evenly spaced from start to end, inclusive."""
    xp, dtype = _xp_dtype(dtype, device)
    _shape((steps,))
    return _finish(xp.linspace(start, end, int(steps), dtype=np.float64).astype(dtype.np), requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    xp, dtype = _xp_dtype(dtype, device)
    _shape((steps,))
    return _finish((base ** xp.linspace(start, end, int(steps), dtype=np.float64)).astype(dtype.np),
                   requires_grad)


# ------------------------------------------------------------------ random
_LEGACY_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                 "bool": "Bool"}


def _random(sample, shape, dtype, device, requires_grad, kernel=None):
    xp, dtype = _xp_dtype(dtype, device)
    if kernel is not None and not dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_LEGACY_NAMES[dtype.name]}\'')
    arr = sample(shape).astype(dtype.np, copy=False)
    return _finish(arr if xp is np else xp.asarray(arr), requires_grad)


def rand(*shape, size=None, generator=None, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    """Returns a tensor of random numbers from a uniform distribution on [0, 1)."""
    shape = _shape(shape, size)
    return _random(lambda s: _gen(generator).rng.random(s, dtype=np.float64), shape, dtype, device, requires_grad,
                   "check_uniform_bounds")


def randn(*shape, size=None, generator=None, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    """Returns a tensor of random numbers from the standard normal distribution."""
    shape = _shape(shape, size)
    return _random(lambda s: _gen(generator).rng.standard_normal(s), shape, dtype, device, requires_grad,
                   "normal_kernel_cpu")


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Returns a tensor of random integers drawn uniformly from [low, high)."""
    if size is None and isinstance(high, (list, tuple)):
        low, high, size = 0, low, high   # randint(high, size)
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing 1 required positional argument: 'size'")
    low, high = int(low), int(high)
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    shape = _shape(tuple(size))
    return _random(lambda s: _gen(generator).rng.integers(low, high, s), shape, dtype or _dt.int64, device,
                   requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    shape = _shape((n,))
    return _random(lambda s: _gen(generator).rng.permutation(n), shape, dtype or _dt.int64, device, requires_grad)


def rand_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    dtype, device = _like(input, dtype, device)
    return rand(tuple(input.shape), dtype=dtype, device=device, requires_grad=requires_grad)


def randn_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    dtype, device = _like(input, dtype, device)
    return randn(tuple(input.shape), dtype=dtype, device=device, requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False):
    dtype, device = _like(input, dtype, device)
    return randint(low, high, tuple(input.shape), dtype=dtype, device=device, requires_grad=requires_grad)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Draws from normal distributions with the given means and standard deviations."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        like = mean if isinstance(mean, Tensor) else std
        noise = randn(tuple(like.shape), dtype=like.dtype, device=like.device, generator=generator)
        return (noise * std + mean).detach()
    shape = _shape(tuple(size) if size is not None else ())
    return _random(lambda s: _gen(generator).rng.normal(mean, std, s), shape, dtype, device, requires_grad)


def bernoulli(input, p=None, *, generator=None):
    check_elements(input.shape, "bernoulli result")   # input may be a broadcast view of far fewer elements
    probs = _probabilities(input._data if p is None else p)
    draw = _gen(generator).rng.random(input.shape) < probs
    return Tensor._adopt_array(array_module_for(input.device).asarray(draw.astype(input._data.dtype)), False, None)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Draws indices from the categorical distributions in the rows of input."""
    p = _host(input._data).astype(np.float64)
    rows = p.reshape(-1, p.shape[-1])
    rng = _gen(generator).rng
    try:
        num_samples = operator.index(num_samples)
    except TypeError:
        raise TypeError(f"multinomial(): argument 'num_samples' must be int, not {type(num_samples).__name__}") from None
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    check_elements(p.shape[:-1] + (num_samples,), "multinomial result")   # before the buffer (hostile pass 11)
    out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
    for i, row in enumerate(rows):
        if (row < 0).any() or not np.isfinite(row).all() or row.sum() <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not replacement and num_samples > (row > 0).sum():
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        out[i] = rng.choice(row.size, size=num_samples, replace=replacement, p=row / row.sum())
    out = out.reshape(p.shape[:-1] + (num_samples,))
    return Tensor._adopt_array(array_module_for(input.device).asarray(out) if input.device.type != "cpu" else out,
                        False, None)


def _host(a):
    return a if type(a) is np.ndarray else a.get()


# ------------------------------------------------------------------ Tensor methods
def _fill_random(self, draw):
    """Writes host random values ``draw(shape)`` into the tensor in place (no autograd history)."""
    self._check_inplace()
    values = draw(tuple(self._data.shape))
    if self.device.type != "cpu":
        values = array_module_for(self.device).asarray(values)
    self._data[...] = values
    self._version[0] += 1
    return self


def _uniform_(self, from_=0.0, to=1.0, *, generator=None):
    """Fills the tensor with numbers drawn from the uniform distribution on [from, to)."""
    return _fill_random(self, lambda s: _gen(generator).rng.uniform(from_, to, s))


def _normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fills the tensor with numbers drawn from the normal distribution N(mean, std^2)."""
    return _fill_random(self, lambda s: _gen(generator).rng.normal(mean, std, s))


def _exponential_(self, lambd=1.0, *, generator=None):
    """Fills the tensor with numbers drawn from the exponential distribution."""
    return _fill_random(self, lambda s: _gen(generator).rng.exponential(1.0 / lambd, s))


def _bernoulli_(self, p=0.5, *, generator=None):
    """Fills the tensor with 0s and 1s drawn from Bernoulli(p)."""
    probs = _probabilities(p._data if isinstance(p, Tensor) else p)
    return _fill_random(self, lambda s: _gen(generator).rng.random(s) < probs)


def _probabilities(p):
    """``p`` (a number or an array of them) on the host, refused as PyTorch refuses it when a value is
    outside [0, 1] or NaN: it drew 1s for p=2 and 0s for p=-0.5 or NaN."""
    if type(p) is np.ndarray or hasattr(p, "get"):   # an array, on the host or a device
        p = _host(p)
        if not ((p >= 0) & (p <= 1)).all():
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    elif not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={float(p):g}")
    return p


def _random_(self, from_=0, to=None, *, generator=None):
    """Fills the tensor with integers drawn uniformly from [from, to)."""
    if to is None:
        if from_:
            from_, to = 0, from_        # random_(to)
        else:                           # every integer the dtype holds exactly
            kind = self._data.dtype
            to = 2 if kind.kind == "b" else 2 ** (np.finfo(kind).nmant + 1) + 1 if kind.kind == "f" \
                else int(np.iinfo(kind).max)
    return _fill_random(self, lambda s: _gen(generator).rng.integers(from_, to, s))


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """A new tensor from data, by default of this tensor's dtype and device."""
    return tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)


def _new_filled(make):
    def method(self, *size, dtype=None, device=None, requires_grad=False):
        return make(*size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)
    method.__name__ = "new_" + make.__name__
    method.__doc__ = f"A new tensor of the given size filled as {make.__name__}, of this tensor's dtype and device."
    return method


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """A new tensor of size filled with fill_value, of this tensor's dtype and device."""
    return full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                requires_grad=requires_grad)


Tensor.uniform_ = _uniform_
Tensor.normal_ = _normal_
Tensor.exponential_ = _exponential_
Tensor.bernoulli_ = _bernoulli_
Tensor.random_ = _random_
Tensor.new_tensor = _new_tensor
Tensor.new = lambda self, *args, device=None: Tensor(*args, dtype=self.dtype, device=device or self.device)
Tensor.new.__doc__ = "The legacy x.new(sizes) / x.new(data): a tensor of this tensor's dtype and device."
Tensor.new_zeros = _new_filled(zeros)
Tensor.new_ones = _new_filled(ones)
Tensor.new_empty = _new_filled(empty)
Tensor.new_full = _new_full
