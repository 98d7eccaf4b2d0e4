"""Tensor: an n-dimensional array on a device, with the autograd fields.

The ops live with their backward rules in engine/ops/ and attach themselves
here as methods and operators; this module holds what every op relies on:
construction, metadata, the autograd entry points and the in-place machinery.
"""
import copy
import weakref

import numpy as np

from . import dtypes as _dt
from .autograd import engine as _engine
from .autograd import function as _function
from .autograd.state import state
from . import printing as _printing
from .device import CPU, as_device, device_of, get_array_module

__all__ = ["Tensor"]

_ndarray = np.ndarray


OVERLAP_MESSAGE = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                   "memory location. Please clone() the tensor before performing the operation.")


def overlaps_itself(array):
    """Whether elements of ``array`` share memory (an expanded view), so that writing into it is refused
    as PyTorch refuses it. The strides decide: NumPy marks such views read-only, CuPy's are writable."""
    return any(s == 0 and n > 1 for s, n in zip(array.strides, array.shape))


# PyTorch's refusal to deep-copy a tensor that is not a graph leaf (Tensor.__deepcopy__, and programs' copy module)
NON_LEAF_DEEPCOPY = ("Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the "
                     "moment.  If you were attempting to deepcopy a module, this may be because of a "
                     "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")


class Tensor:
    """A multi-dimensional matrix of elements of a single dtype (``torch.Tensor``)."""
    __slots__ = ("_data", "requires_grad", "grad", "grad_fn", "_version", "_base", "_view",
                 "_hooks", "_accumulator", "_retains_grad", "_gid", "__weakref__", "__dict__")
    # NumPy defers to our reflected operators instead of building object arrays.
    __array_ufunc__ = None

    def __init__(self, *args, dtype=None, device=None, requires_grad=False):
        """``torch.Tensor(data)`` copies data in the default dtype; ``torch.Tensor(2, 3)``
        makes a (zeroed) tensor of that size."""
        from .ops import creation
        if args and all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            src = creation.zeros(*args, dtype=dtype, device=device)
        elif len(args) == 1 and isinstance(args[0], Size):
            src = creation.zeros(tuple(args[0]), dtype=dtype, device=device)
        elif len(args) == 1:
            src = creation.tensor(args[0], dtype=dtype or _dt.get_default_dtype(), device=device)
        elif not args:
            src = creation.zeros(0, dtype=dtype, device=device)
        else:
            raise TypeError(f"new(): invalid arguments {args!r}")
        self._init_from(src._data, False)
        if requires_grad:
            self.requires_grad_()

    def _init_from(self, data, requires_grad):
        self._data = data
        self.requires_grad = requires_grad
        self.grad = None
        self.grad_fn = None
        self._version = [0]
        self._base = None
        self._view = None
        self._hooks = None
        self._accumulator = None
        self._retains_grad = False

    @staticmethod
    def _adopt_array(data, requires_grad, grad_fn):
        t = _new(Tensor)
        t._data = data
        t.requires_grad = requires_grad
        t.grad = None
        t.grad_fn = grad_fn
        t._version = [0]
        t._base = None
        t._view = None
        t._hooks = None
        t._accumulator = None
        t._retains_grad = False
        return t

    # ----------------------------------------------------------------- metadata
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        """Returns the size of the tensor, or of one dimension."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    @property
    def dtype(self):
        return _dt.from_numpy_dtype(self._data.dtype)

    @property
    def device(self):
        return device_of(self._data)

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    # devices this engine never holds tensors on: the probes real scripts make (DCGAN's is_xpu)
    is_xpu = is_mps = is_meta = is_quantized = is_sparse = property(lambda self: False)

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        """Returns the number of dimensions of the tensor."""
        return self._data.ndim

    ndimension = dim

    def numel(self):
        """Returns the total number of elements in the tensor."""
        return int(self._data.size)

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_contiguous(self, memory_format=None):
        return bool(self._data.flags.c_contiguous)

    def stride(self, dim=None):
        strides = tuple(s // self._data.itemsize for s in self._data.strides)
        return strides if dim is None else strides[_wrap_dim(dim, self._data.ndim)]

    def data_ptr(self):
        return 0

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def data(self):
        """The tensor's values, detached from the graph (shares memory, not history)."""
        return Tensor._adopt_array(self._data, False, None)

    @data.setter
    def data(self, value):
        self._data = value._data if isinstance(value, Tensor) else value

    @property
    def retains_grad(self):
        return self._retains_grad

    @property
    def _version_number(self):
        return self._version[0]

    # ----------------------------------------------------------- conversions
    def item(self):
        """Returns the value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item() if type(self._data) is _ndarray else self._data.item()

    def tolist(self):
        """Returns the tensor as a (nested) Python list."""
        return _host(self._data).tolist()

    def numpy(self, force=False):
        """Returns the tensor's values as a NumPy array sharing its memory."""
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        if type(self._data) is not _ndarray:
            if not force:
                raise TypeError(f"can't convert {self.device} device type tensor to numpy. "
                                "Use Tensor.cpu() to copy the tensor to host memory first.")
            return _host(self._data)
        return self._data

    def __array__(self, dtype=None, copy=None):
        data = _host(self._data)
        return data if dtype is None else data.astype(dtype)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        n = self._data.shape[0]
        limit = state.element_limit
        if limit is not None and n > limit:   # an empty tensor may have a 2**30 first dim: as many objects
            from .limits import LimitExceeded
            raise LimitExceeded("tensor_elements", limit, f"limit exceeded: tensor_elements: iterating a tensor "
                                                          f"of shape {list(self._data.shape)} makes {n} tensors "
                                                          f"(at most {limit})")
        return (self[i] for i in range(n))

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()))

    def __float__(self):
        if self._data.size != 1:   # PyTorch: ValueError here, RuntimeError from item()
            raise ValueError("only one element tensors can be converted to Python scalars")
        return float(self.item())

    def __int__(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return int(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return complex(self.item())

    __hash__ = object.__hash__

    def __repr__(self):
        return _format(self)

    __str__ = __repr__

    def __format__(self, spec):
        if self._data.ndim == 0 and spec:
            return format(self.item(), spec)
        return repr(self)

    def __reduce_ex__(self, protocol):
        return (_rebuild, (_host(self._data), self.requires_grad))

    def __deepcopy__(self, memo):
        """A graph leaf's copy, with a copy of its gradient and of the attributes kept on it, as
        PyTorch's (Parameter has its own, which keeps no attributes)."""
        if self.grad_fn is not None:
            raise RuntimeError(NON_LEAF_DEEPCOPY)
        new = Tensor._adopt_array(self._data.copy(), self.requires_grad, None)
        memo[id(self)] = new
        if self.grad is not None:
            new.grad = copy.deepcopy(self.grad, memo)
        if self.__dict__:
            new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new

    # ----------------------------------------------------------- autograd
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Computes the gradient of current tensor w.r.t. graph leaves."""
        from .autograd import backward
        backward([self], None if gradient is None else [gradient], retain_graph, create_graph,
                 inputs=inputs)

    def detach(self):
        """Returns a new tensor, detached from the current graph, sharing storage."""
        t = Tensor._adopt_array(self._data, False, None)
        t._version = self._version
        return t

    def detach_(self):
        """Detaches the tensor from the graph that created it, making it a leaf."""
        self.grad_fn = None
        self.requires_grad = False
        return self

    def requires_grad_(self, requires_grad=True):
        """Change if autograd should record operations on this tensor (in place)."""
        if requires_grad and self._data.dtype.kind not in "fc":
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        if not requires_grad and self.grad_fn is not None:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to "
                               "use a computed variable in a subgraph that doesn't require differentiation "
                               "use var_no_grad = var.detach().")
        self.requires_grad = bool(requires_grad)
        return self

    def retain_grad(self):
        """Enables this non-leaf tensor to have its .grad populated during backward."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        self._retains_grad = True
        self.grad_fn.register_prehook(_RetainGrad(self))

    def register_hook(self, hook):
        """Registers a backward hook, called with the gradient of this tensor; a returned
        tensor replaces the gradient."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn.register_prehook(hook)
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(hook)
        return _function._RemovableHandle(self._hooks, hook)

    def _grad_accumulator(self):
        acc = self._accumulator() if self._accumulator is not None else None
        if acc is None:
            acc = _function.AccumulateGrad(self)
            self._accumulator = weakref.ref(acc)
        return acc

    def _accumulate(self, g, create_graph, owned=False):
        """AccumulateGrad: sums the gradient ``g`` (hooks already run) into ``.grad``.

        Unless ``owned`` (nothing else refers to g), the first gradient is copied: the
        engine may hand one array to several inputs, or the caller's own array."""
        if create_graph:
            self.grad = g if self.grad is None else self.grad + g
        elif self.grad is None:
            if not owned:
                g = g.copy() if type(g) is _ndarray else _engine.as_array(g).copy()
            self.grad = Tensor._adopt_array(g, False, None)
        else:
            # in place, history or not, as PyTorch's AccumulateGrad outside grad mode
            self.grad._data += g
            self.grad._version[0] += 1

    # ----------------------------------------------------------- in place
    def _check_inplace(self):
        if state.grad_enabled and self.requires_grad and self.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")

    def _inplace(self, fn, *args, **kwargs):
        """Runs the out-of-place ``fn(self, *args)`` and makes its result this tensor's value.

        Under autograd the op is recorded against this tensor's old history
        (and, for a view, its base's), as PyTorch rebases history in place.
        """
        tracked = state.grad_enabled and (self.requires_grad or any(
            isinstance(a, Tensor) and a.requires_grad for a in args))
        if not tracked:
            with _NoGrad():
                result = fn(self, *args, **kwargs)
            self._write(result._data)
            return self
        self._check_inplace()
        root = self
        while root._base is not None and root._view is not None:
            root = root._base
        if root is not self:
            return self._inplace_on_view(root, fn, args, kwargs)
        old = Tensor._adopt_array(self._data.copy(), self.requires_grad, self.grad_fn)
        result = fn(old, *args, **kwargs)
        self._write(result._data)
        self.grad_fn = result.grad_fn
        self.requires_grad = result.requires_grad
        return self

    def _inplace_on_view(self, root, fn, args, kwargs):
        # PyTorch's CopySlices: the op rewrites the region of the base this view covers.
        from .ops.shape import ViewScatter
        chain = []
        between = []    # the views from root down to self's base (a view of a view of root)
        t = self
        while t is not root:
            chain.append(t._view)
            t = t._base
            if t is not root:
                between.append(t)
        chain.reverse()
        between.reverse()
        root._check_inplace()
        old_root = Tensor._adopt_array(root._data.copy(), root.requires_grad, root.grad_fn)
        old_view = _apply_chain(old_root, chain)
        new_view = fn(old_view, *args, **kwargs)
        new_root = ViewScatter.apply(old_root, new_view, chain=tuple(chain))
        root._write(new_root._data)
        root.grad_fn = new_root.grad_fn
        root.requires_grad = new_root.requires_grad
        rebuilt = _apply_chain(root, chain)
        self.grad_fn = rebuilt.grad_fn
        self.requires_grad = rebuilt.requires_grad
        # the views between root and self see the new values too: their history is root's new one,
        # as PyTorch regenerates a view's grad_fn after its base changed (v[:, ::2].diagonal().fill_(0))
        for depth, view in enumerate(between, 1):
            again = _apply_chain(root, chain[:depth])
            view.grad_fn = again.grad_fn
            view.requires_grad = again.requires_grad
        return self

    def _write(self, values):
        """Writes ``values`` into this tensor's memory and bumps its version."""
        data = self._data
        if values is not data:
            if overlaps_itself(data):
                raise RuntimeError(OVERLAP_MESSAGE)
            if values.dtype != data.dtype and not _can_cast(values.dtype, data.dtype):
                raise RuntimeError(f"result type {_dt.from_numpy_dtype(values.dtype).name.capitalize()} "
                                   f"can't be cast to the desired output type "
                                   f"{_dt.from_numpy_dtype(data.dtype).name.capitalize()}")
            if values.shape != data.shape:
                try:
                    shape = np.broadcast_shapes(values.shape, data.shape)
                except ValueError:
                    shape = None
                if shape != data.shape:
                    raise RuntimeError(f"output with shape {list(data.shape)} doesn't match the "
                                       f"broadcast shape {list(values.shape)}")
            data[...] = values
        self._version[0] += 1

    def copy_(self, src, non_blocking=False):
        """Copies the elements from src into this tensor, broadcasting, casting and moving them
        as needed; the gradient flows to src."""
        if not isinstance(src, Tensor):
            raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
        if state.grad_enabled and (self.requires_grad or src.requires_grad):
            return self._inplace(_copy_of, src)
        values = src._data
        if device_of(values) != self.device:
            values = _host(values) if self.device.type == "cpu" else get_array_module(self._data).asarray(values)
        if overlaps_itself(self._data):
            raise RuntimeError(OVERLAP_MESSAGE)
        try:
            self._data[...] = values
        except ValueError:
            raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the broadcast "
                               f"shape {list(values.shape)}") from None
        self._version[0] += 1
        return self

    def _bump(self):
        self._version[0] += 1
        return self

    # ----------------------------------------------------------- devices, dtypes
    def to(self, *args, **kwargs):
        """Performs Tensor dtype and/or device conversion."""
        dtype = kwargs.get("dtype")
        dev = kwargs.get("device")
        for a in args:
            if isinstance(a, Tensor):
                dtype, dev = a.dtype, a.device
            elif isinstance(a, _dt.dtype) or a in (float, int, bool):
                dtype = a
            elif a is not None:
                dev = a
        dtype = _dt.as_dtype(dtype) if dtype is not None else None
        dev = as_device(dev) if dev is not None else None
        out = self
        if dev is not None and dev != self.device:
            from .ops.elementwise import ToDevice
            out = ToDevice.apply(out, device=dev)
        if dtype is not None and dtype.np != out._data.dtype:
            from .ops.elementwise import Cast
            out = Cast.apply(out, dtype=dtype.np)
        if kwargs.get("copy") and out is self:
            out = self.clone()
        return out

    def cpu(self):
        """Returns a copy of this tensor in CPU memory."""
        return self.to(CPU)

    def cuda(self, device=None, non_blocking=False):
        """Returns a copy of this tensor in CUDA memory."""
        return self.to("cuda" if device is None else device)

    def type(self, dtype=None):
        """Returns the type name if dtype is not given, else casts this tensor to dtype."""
        if dtype is None:
            return _function._LEGACY_TYPE_NAMES.get(self.dtype.name, "torch.Tensor")
        if isinstance(dtype, str):   # 'torch.FloatTensor', or 'torch.cuda.FloatTensor' (to the GPU)
            cuda = dtype.startswith("torch.cuda.")
            legacy = _LEGACY_DTYPES.get("torch." + dtype[len("torch.cuda."):] if cuda else dtype)
            if legacy is None:
                raise ValueError(f"invalid type: '{dtype}'")
            return self.to("cuda", legacy) if cuda else self.to(legacy)
        if isinstance(dtype, type):
            from .tensor_types import tensor_type_dtype
            dtype = tensor_type_dtype(dtype) or dtype
        return self.to(dtype)

    def double(self):
        return self.to(_dt.float64)

    def float(self):
        return self.to(_dt.float32)

    def half(self):
        return self.to(_dt.float16)

    def bfloat16(self):
        """PyTorch's cast to bfloat16: a TypeError saying the engine has none (NumPy has no bfloat16)."""
        return self.to(_dt.bfloat16)

    def long(self):
        return self.to(_dt.int64)

    def int(self):
        return self.to(_dt.int32)

    def bool(self):
        return self.to(_dt.bool)

    def type_as(self, other):
        """Returns this tensor cast to the type of the given tensor."""
        return self.to(other.dtype)

    def short(self):
        return self.to(_dt.int16)

    def char(self):
        return self.to(_dt.int8)

    def byte(self):
        return self.to(_dt.uint8)

    def get_device(self):
        """The CUDA device index of this tensor, -1 on the CPU."""
        dev = self.device
        return -1 if dev.type == "cpu" else (dev.index or 0)

    def is_complex(self):
        return False

    def is_signed(self):
        return self.dtype.is_signed

    def is_same_size(self, other):
        return self._data.shape == other._data.shape

    @property
    def itemsize(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return int(self._data.nbytes)


_new = object.__new__
_function.Tensor = Tensor
_function._adopt_array = Tensor._adopt_array
_engine.Tensor = Tensor
_LEGACY_DTYPES = {name: _dt.as_dtype(d) for d, name in _function._LEGACY_TYPE_NAMES.items()}


class _RetainGrad:
    """The retain_grad hook: stores the gradient reaching a non-leaf tensor in its .grad.
    It holds the tensor weakly, so the graph does not keep the tensor alive."""
    __slots__ = ("ref",)
    retains_grad = True

    def __init__(self, t):
        self.ref = weakref.ref(t)

    def __call__(self, grad):
        t = self.ref()
        if t is not None:
            t.grad = grad.detach().clone() if t.grad is None else t.grad + grad.detach()


class Size(tuple):
    """The shape of a tensor: a tuple (``torch.Size``)."""
    __slots__ = ()

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self):
        return f"torch.Size({list(self)})"


class _NoGrad:
    __slots__ = ("prev",)

    def __enter__(self):
        self.prev = state.grad_enabled
        state.grad_enabled = False

    def __exit__(self, *exc):
        state.grad_enabled = self.prev


def _copy_of(old, src):
    """copy_'s value under autograd: src cast and broadcast to old's dtype, device and shape."""
    from .ops.shape import clone, expand
    out = src.to(dtype=old.dtype, device=old.device)
    if out.shape != old.shape:
        out = expand(out, tuple(old.shape))
    return clone(out)


def _apply_chain(t, chain):
    for cls, params in chain:
        t = cls.apply(t, **params)
    return t


def _wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def _can_cast(src, dst):
    # in-place results may narrow within a category (float64 -> float32), never across it
    order = {"b": 0, "u": 1, "i": 1, "f": 2}
    return order[src.kind] <= order[dst.kind]


def _host(data):
    return data if type(data) is _ndarray else data.get()


def _rebuild(data, requires_grad):
    return Tensor._adopt_array(data, requires_grad, None)


def _format(t):
    return _printing.format_tensor(t, _host(t._data), t.dtype, t.device)
