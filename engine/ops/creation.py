"""Tensor creation: from data, filled, ranges and random, with PyTorch's dtype rules."""
import numbers

import numpy as np

from .. import dtypes as _dt
from ..autograd.state import state
from ..device import CPU, array_module_for, as_device
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
def _infer_dtype(data):
    """torch.tensor's inference: any float makes float32, all ints int64, all bools bool."""
    kind = _scan(data, 0)
    return (_dt.bool, _dt.int64, _dt.get_default_dtype())[kind]


def _scan(data, kind):
    if isinstance(data, bool):
        return max(kind, 0)
    if isinstance(data, numbers.Integral):
        return max(kind, 1)
    if isinstance(data, numbers.Real):
        return 2
    if isinstance(data, Tensor):
        c = data.dtype.category
        return max(kind, c)
    if isinstance(data, np.ndarray):
        return max(kind, _dt.from_numpy_dtype(data.dtype).category)
    if isinstance(data, (list, tuple)):
        for item in data:
            kind = _scan(item, kind)
            if kind == 2:
                return 2
        return kind
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def _to_array(data, np_dtype, xp):
    if isinstance(data, Tensor):
        return xp.asarray(data._data, dtype=np_dtype)
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in _flat_first(data)):
        data = _tensors_to_lists(data)
    try:
        arr = np.array(data, dtype=np_dtype)
    except ValueError as e:
        raise ValueError(f"expected sequence of equal-length lists (ragged nested sequence): {e}") from None
    if arr.dtype == object:
        raise ValueError("expected a nested sequence of numbers")
    return arr if xp is np else xp.asarray(arr)


def _flat_first(data):
    while isinstance(data, (list, tuple)) and data:
        yield data[0]
        data = data[0]


def _tensors_to_lists(data):
    if isinstance(data, Tensor):
        return data.tolist()
    if isinstance(data, (list, tuple)):
        return [_tensors_to_lists(x) for x in data]
    return data


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """Constructs a tensor with no autograd history by copying data."""
    dtype = _dt.as_dtype(dtype) if dtype is not None else _infer_dtype(data)
    dev = as_device(device) or (data.device if isinstance(data, Tensor) else CPU)
    xp = array_module_for(dev)
    if isinstance(data, (list, tuple)):
        check_elements(_nested_shape(data), "tensor")
    arr = _to_array(data, dtype.np, xp)
    if isinstance(data, (Tensor, np.ndarray)) and arr is getattr(data, "_data", data):
        arr = arr.copy()
    return _finish(arr, requires_grad)


def _nested_shape(data):
    shape = []
    while isinstance(data, (list, tuple)):
        shape.append(len(data))
        if not data:
            break
        data = data[0]
    return shape


def _finish(arr, requires_grad):
    if requires_grad and arr.dtype.kind != "f":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return Tensor._make(arr, bool(requires_grad), None)


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor) and (dtype is None or _dt.as_dtype(dtype) == data.dtype) and (
            device is None or as_device(device) == data.device):
        return data
    return tensor(data, dtype=dtype, device=device)


def from_numpy(ndarray):
    return Tensor._make(ndarray, False, None)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    return full((), s, dtype=dtype or _dt.get_default_dtype(), device=device, requires_grad=requires_grad)


# ------------------------------------------------------------------ filled
def _shape(size):
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    shape = tuple(int(s) for s in size)
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(shape)}")
    check_elements(shape)
    return shape


def _xp_dtype(dtype, device, default=None):
    dtype = _dt.as_dtype(dtype) if dtype is not None else (default or _dt.get_default_dtype())
    return array_module_for(as_device(device) or CPU), dtype


def zeros(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    """Returns a tensor filled with the scalar value 0."""
    xp, dtype = _xp_dtype(dtype, device)
    return _finish(xp.zeros(_shape(size), dtype=dtype.np), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    """Returns a tensor filled with the scalar value 1."""
    xp, dtype = _xp_dtype(dtype, device)
    return _finish(xp.ones(_shape(size), dtype=dtype.np), requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None, memory_format=None):
    """Returns a tensor of the given size; its memory is zeroed (programs must not see old data)."""
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    """Creates a tensor of size filled with fill_value; the dtype is inferred from it."""
    if dtype is None:
        dtype = _infer_dtype(fill_value.item() if isinstance(fill_value, Tensor) else fill_value)
    xp, dtype = _xp_dtype(dtype, device)
    size = size if isinstance(size, (list, tuple)) else (size,)
    value = fill_value.item() if isinstance(fill_value, Tensor) else fill_value
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
def _random(sample, shape, dtype, device, requires_grad):
    xp, dtype = _xp_dtype(dtype, device)
    arr = sample(shape).astype(dtype.np, copy=False)
    return _finish(arr if xp is np else xp.asarray(arr), requires_grad)


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    """Returns a tensor of random numbers from a uniform distribution on [0, 1)."""
    shape = _shape(size)
    return _random(lambda s: _gen(generator).rng.random(s, dtype=np.float64), shape, dtype, device, requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    """Returns a tensor of random numbers from the standard normal distribution."""
    shape = _shape(size)
    return _random(lambda s: _gen(generator).rng.standard_normal(s), shape, dtype, device, requires_grad)


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Returns a tensor of random integers drawn uniformly from [low, high)."""
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing 1 required positional argument: 'size'")
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
    probs = input._data if p is None else np.full(input.shape, p)
    draw = _gen(generator).rng.random(probs.shape) < _host(probs)
    return Tensor._make(array_module_for(input.device).asarray(draw.astype(input._data.dtype)), False, None)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Draws indices from the categorical distributions in the rows of input."""
    p = _host(input._data).astype(np.float64)
    rows = p.reshape(-1, p.shape[-1])
    rng = _gen(generator).rng
    out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
    for i, row in enumerate(rows):
        if (row < 0).any() or not np.isfinite(row).all() or row.sum() <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not replacement and num_samples > (row > 0).sum():
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        out[i] = rng.choice(row.size, size=num_samples, replace=replacement, p=row / row.sum())
    out = out.reshape(p.shape[:-1] + (num_samples,))
    return Tensor._make(array_module_for(input.device).asarray(out) if input.device.type != "cpu" else out,
                        False, None)


def _host(a):
    return a if type(a) is np.ndarray else a.get()
