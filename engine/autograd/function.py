"""Op: one op's forward on arrays and its backward rule, side by side.

Each op is a subclass. ``forward(self, *arrays, **params)`` computes on raw
NumPy/CuPy arrays and may stash what backward needs on ``self``;
``backward(self, F, grad, *saved)`` returns one gradient per input. ``saves``
declares which inputs (by index) and whether the output (-1) the rule reads,
and nothing else is retained (Chainer's retain_inputs/retain_outputs).

``grad_needs`` (optional) says, per input, which of those entries its gradient
reads; an entry no gradient asked for reads is not kept and reaches backward
as None (PyTorch saves ``other`` for mul only when ``self`` requires grad).

``F`` is the namespace the rule computes with: array_ops on raw arrays in an
ordinary backward, the engine's own differentiable functions under
create_graph=True, so higher-order gradients come from the same rule.
"""
import itertools
import re
import traceback

import numpy as np

from .state import state

_ndarray = np.ndarray
_np_generic = np.generic
_sequence = itertools.count()
Tensor = None  # set by engine.tensor, which imports this module first
_adopt_array = None    # Tensor._adopt_array, likewise
_new = object.__new__
_NO_EDGE = (None, 0)   # an input tensor that does not require grad

# an input that is not a tensor (a number, None): also (None, 0), but a distinct tuple, so that
# identity tells PyTorch's overloads apart in names (PowBackward0 is pow(Tensor, Scalar),
# PowBackward1 pow(Tensor, Tensor)); an exact tuple keeps the engine's edge unpacking fast
_ARGUMENT_EDGE = tuple([None, 0])

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved "
    "tensors after they have already been freed). Saved intermediate values of the graph "
    "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
    "you need to backward through the graph a second time or if you need to access saved "
    "tensors after calling backward.")


def _edge(x):
    """The edge an op's input gives its node: to its grad_fn, to its leaf's accumulator, or none."""
    if not isinstance(x, Tensor):
        return _ARGUMENT_EDGE
    if not x.requires_grad:
        return _NO_EDGE
    return (x.grad_fn if x.grad_fn is not None else x._grad_accumulator(), 0)


def _on_one_device(inputs):
    """PyTorch's rule for an op given tensors on two devices: a CPU tensor of no dimensions is a
    scalar and goes where the others are (differentiably); any other CPU tensor is an error."""
    target = next(x.device for x in inputs if isinstance(x, Tensor) and type(x._data) is not _ndarray)
    moved = []
    for x in inputs:
        if isinstance(x, Tensor) and type(x._data) is _ndarray:
            if x._data.ndim:
                raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two "
                                   f"devices, {target} and cpu!")
            x = x.to(target)
        moved.append(x)
    return tuple(moved)


class SavedOutput:
    """An op's own output kept for backward: its array and version counter, not
    the tensor itself, so the output does not keep its grad_fn alive in a cycle."""
    __slots__ = ("data", "version")

    def __init__(self, data, version):
        self.data = data
        self.version = version


class Node:
    """A vertex of the backward graph: what a tensor's ``grad_fn`` is."""
    __slots__ = ("next_functions", "seq", "shape", "dtype", "array_type", "line", "pre_hooks",
                 "saved", "versions", "extra", "trace", "_gid", "__weakref__")
    op = "node"
    # PyTorch's name for this node when the class name does not give it ("MmBackward0");
    # a node whose name depends on its forward (SumBackward0 / SumBackward1) overrides name()
    backward_name = None

    def name(self):
        """The node's PyTorch name: ``MulBackward0``, ``AccumulateGrad``, ..."""
        return self.backward_name or type(self).__name__ + "Backward0"

    def register_hook(self, fn):
        raise NotImplementedError("hooks on grad_fn objects are not supported; use Tensor.register_hook")

    def register_prehook(self, fn):
        """Runs ``fn(grad)`` on the gradient reaching this node; a returned tensor replaces it."""
        hooks = self.pre_hooks
        if hooks is None:
            hooks = self.pre_hooks = []
        # the retain_grad hook always runs last, after every other tensor hook (as PyTorch)
        if hooks and getattr(hooks[-1], "retains_grad", False):
            hooks.insert(len(hooks) - 1, fn)
        else:
            hooks.append(fn)
        return _RemovableHandle(hooks, fn)

    def __repr__(self):
        return f"<{self.name()} object>"


class _RemovableHandle:
    __slots__ = ("hooks", "fn")

    def __init__(self, hooks, fn):
        self.hooks, self.fn = hooks, fn

    def remove(self):
        if self.fn in self.hooks:
            self.hooks.remove(self.fn)


class AccumulateGrad(Node):
    """Sink of a leaf tensor: sums the gradients that reach it into ``.grad``."""
    __slots__ = ("variable",)
    op = "accumulate_grad"

    def name(self):
        return "AccumulateGrad"

    def __init__(self, variable):
        self.variable = variable
        self.next_functions = ()
        # ready before any op node, as PyTorch schedules them
        self.seq = (1 << 62) + next(_sequence)
        self.shape = variable._data.shape
        self.dtype = variable._data.dtype
        self.array_type = type(variable._data)
        self.line = None
        self.pre_hooks = None
        self.saved = ()
        self.extra = ()
        self.trace = None


class Op(Node):
    """Base of every differentiable op of the engine: a forward on arrays and its backward rule.
    (PyTorch's public ``torch.autograd.Function`` for users is ``custom_function.Function``.)"""
    __slots__ = ()
    saves = ()          # input indices, and -1 for the output, that backward reads
    # per input, the entries of ``saves`` its gradient reads (Mul: ((1,), (0,))); None: all of them
    grad_needs = None
    # PyTorch names some nodes by the overload called, a letter per input: T a tensor, S anything
    # else ({"TT": "PowBackward1", "ST": "PowBackward2"}); other signatures take the plain name
    overload_names = None
    differentiable = True
    _save_plans = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        needs = cls.grad_needs
        if needs is not None:
            stray = {i for reads in needs for i in reads} - set(cls.saves)
            if stray:
                raise TypeError(f"{cls.__name__}.grad_needs reads {sorted(stray)}, which it does not save")
        cls._save_plans = {} if needs is not None else None

    @classmethod
    def _save_needed(cls, inputs, edges, data, out):
        """The saved values and versions when some input gets no gradient: what ``saves`` names,
        None for each entry only gradients not asked for would read (so it is not checked either)."""
        missing = 0
        for k, (fn, _) in enumerate(edges):
            if fn is None:
                missing |= 1 << k
        kept = cls._save_plans.get(missing)
        if kept is None:
            needed = set()
            for k, reads in enumerate(cls.grad_needs):
                if not missing >> k & 1:
                    needed.update(reads)
            kept = cls._save_plans[missing] = tuple(i in needed for i in cls.saves)
        saved = []
        versions = []
        for i, keep in zip(cls.saves, kept):
            if not keep:
                saved.append(None)
                versions.append(0)
            elif i == -1:
                saved.append(SavedOutput(data, out._version))
                versions.append(0)
            else:
                x = inputs[i]
                saved.append(x)
                versions.append(x._version[0] if isinstance(x, Tensor) else 0)
        return saved, versions

    def name(self):
        names = self.overload_names
        if names is not None:
            signature = "".join("S" if e is _ARGUMENT_EDGE else "T" for e in self.next_functions)
            name = names.get(signature)
            if name is not None:
                return name
        return self.backward_name or type(self).__name__ + "Backward0"

    def forward(self, *arrays, **params):
        raise NotImplementedError

    def backward(self, F, grad, *saved):
        raise NotImplementedError

    def keep(self, *values):
        """Keeps extra values (masks, indices) for backward; freed with the saved tensors."""
        self.extra = values

    @classmethod
    def apply(cls, *inputs, **params):
        """Runs ``forward`` on the inputs' arrays and, when any input requires grad under
        grad mode, records the node: its edges, what it saves, and their versions."""
        st = state
        record = st.grad_enabled and cls.differentiable
        node = _new(cls)
        node.extra = ()
        tracked = partial = False   # some input requires grad / some input gets no gradient
        elsewhere = False           # some input's array is not NumPy's (a GPU array)
        arrays = []
        edges = []       # built in the same scan, used when the node is recorded
        for x in inputs:
            if isinstance(x, Tensor):
                a = x._data
                arrays.append(a)
                if type(a) is not _ndarray:
                    elsewhere = True
                if x.requires_grad:
                    tracked = True
                    if record:
                        fn = x.grad_fn
                        if fn is None:   # a leaf: its accumulator, alive while a graph refers to it
                            fn = x._accumulator
                            fn = fn() if fn is not None else None
                            if fn is None:
                                fn = x._grad_accumulator()
                        edges.append((fn, 0))
                    continue
                edges.append(_NO_EDGE)
            else:
                arrays.append(x)
                edges.append(_ARGUMENT_EDGE)
            partial = True
        if elsewhere and any(isinstance(x, Tensor) and type(x._data) is _ndarray for x in inputs):
            inputs = _on_one_device(inputs)
            arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
            edges = [_edge(x) for x in inputs]
        try:
            data = node.forward(*arrays, **params) if params else node.forward(*arrays)
        except ValueError as e:
            raise _broadcast_error(e) from None
        if type(data) is not _ndarray and isinstance(data, _np_generic):
            data = np.asarray(data)
        if not (tracked and record):
            if st.value_check is None:
                return _adopt_array(data, False, None)
            out = _adopt_array(data, False, None)
            st.value_check(node, out, inputs)
            return out
        node.next_functions = tuple(edges)
        node.seq = next(_sequence)
        node.shape = data.shape
        node.dtype = data.dtype
        node.array_type = type(data)   # NumPy's or CuPy's ndarray: the device gradients must reach
        node.line = st.line
        node.pre_hooks = None
        out = _adopt_array(data, True, node)
        saves = cls.saves
        if saves:
            if partial and cls._save_plans is not None:
                saved, versions = cls._save_needed(inputs, edges, data, out)
            else:
                saved = []
                versions = []
                for i in saves:
                    if i == -1:
                        saved.append(SavedOutput(data, out._version))
                        versions.append(0)
                    else:
                        x = inputs[i]
                        saved.append(x)
                        versions.append(x._version[0] if isinstance(x, Tensor) else 0)
            node.saved = saved
            node.versions = versions
        else:
            node.saved = node.versions = ()
        node.trace = traceback.format_stack()[:-1] if st.anomaly else None
        st.node_count += 1
        if st.node_limit is not None and st.node_count > st.node_limit:
            from ..limits import LimitExceeded
            raise LimitExceeded("graph_nodes", st.node_limit)
        if st.observer is not None:
            st.observer.on_node(node, out, inputs)
        return out

    def unpack(self, create_graph):
        """The saved values for backward, checked against in-place changes."""
        saved = self.saved
        if saved is None:
            raise RuntimeError(FREED_MESSAGE)
        values = []
        for item, version in zip(saved, self.versions):
            if isinstance(item, Tensor):
                if item._version[0] != version:
                    raise RuntimeError(self._modified_message(item._data, item._version[0], version,
                                                              item.grad_fn))
                values.append(item if create_graph else item._data)
            elif type(item) is SavedOutput:
                if item.version[0] != version:
                    raise RuntimeError(self._modified_message(item.data, item.version[0], version, self))
                if create_graph:
                    out = Tensor._adopt_array(item.data, True, self)
                    out._version = item.version
                    values.append(out)
                else:
                    values.append(item.data)
            else:
                values.append(item)
        extra = self.extra
        if extra:
            if create_graph:
                extra = [Tensor._adopt_array(v, False, None) if hasattr(v, "__array__") and not isinstance(v, Tensor)
                         else v for v in extra]
            values.extend(extra)
        return values

    def _modified_message(self, data, now, expected, producer):
        from ..dtypes import from_numpy_dtype
        kind = _LEGACY_TYPE_NAMES.get(from_numpy_dtype(data.dtype).name, "torch.Tensor")
        made_by = ""
        if producer is not None:
            made_by = f", which is output 0 of {_BACKWARD_SUFFIX.sub('', producer.name())}"
        return (f"one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{kind} {list(data.shape)}]{made_by}, is at version {now}; "
                f"expected version {expected} instead. It was saved for {self.name()}. Hint: enable "
                f"anomaly detection to find the operation that failed to compute its gradient, with "
                f"torch.autograd.set_detect_anomaly(True).")


def composite_grads(node, composite, inputs, grad, create_graph=True):
    """A fused op's gradients under create_graph: ``composite(*inputs)``, the op written with the
    engine's differentiable ops, re-run from the saved inputs and differentiated with a graph, so
    higher orders come from rules already tested (``create_graph=False``: an op with no backward of
    its own, differentiated through its composite). One gradient per input, None where the node
    has no edge or the input is not a tensor that requires grad."""
    from . import grad as _grad
    from .grad_mode import enable_grad
    wanted = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad
              and node.next_functions[i][0] is not None]
    grads = [None] * len(inputs)
    if not wanted:
        return tuple(grads)
    with enable_grad():
        out = composite(*inputs)
    got = _grad([out], [inputs[i] for i in wanted], [grad], create_graph=create_graph, allow_unused=True)
    for i, gi in zip(wanted, got):
        grads[i] = gi
    return tuple(grads)


# the name the op modules of nn/ import the base by; engine.autograd.Function is the public class
Function = Op

_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")
_LEGACY_TYPE_NAMES = {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor",
                      "float16": "torch.HalfTensor", "int64": "torch.LongTensor",
                      "int32": "torch.IntTensor", "int16": "torch.ShortTensor",
                      "int8": "torch.CharTensor", "uint8": "torch.ByteTensor",
                      "bool": "torch.BoolTensor"}


def __getattr__(name):
    # torch.autograd.function's public names (once_differentiable, FunctionCtx) live with the
    # user-facing Function, which loads after this module
    if name in ("once_differentiable", "FunctionCtx", "InplaceFunction", "NestedIOFunction"):
        from . import custom_function
        return getattr(custom_function, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_NUMPY_BROADCAST = "operands could not be broadcast together"
_SHAPE_TEXT = re.compile(r"\(([0-9, ]*)\)")


def _broadcast_error(e):
    """An op's forward failing in NumPy's broadcasting (``F.mse_loss``, ``torch.where``, ``torch.lerp``,
    ``torch.maximum`` of shapes (2,) and (3,)) is PyTorch's RuntimeError with PyTorch's message, not
    NumPy's ValueError (hostile pass 6, F4); any other ValueError is raised as it was."""
    text = str(e)
    if not text.startswith(_NUMPY_BROADCAST):
        return e
    shapes = []
    for group in _SHAPE_TEXT.findall(text.split("remapped", 1)[0].split(" and requested shape", 1)[0]):
        shapes.append(tuple(int(d) for d in group.replace(" ", "").split(",") if d))
    out = shapes[0] if shapes else ()
    for shape in shapes[1:]:
        n = max(len(out), len(shape))
        a = (1,) * (n - len(out)) + tuple(out)
        b = (1,) * (n - len(shape)) + tuple(shape)
        merged = []
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y and x != 1 and y != 1:
                return RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) "
                                    f"at non-singleton dimension {i}")
            merged.append(y if x == 1 else x)
        out = tuple(merged)
    return RuntimeError(f"shapes cannot be broadcast together: {text}")
