"""``torch.autograd.Function``: custom differentiable functions written by users.

PyTorch's contract: a subclass defines static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``
(or ``forward(*args)`` plus ``setup_context(ctx, inputs, output)``) and is called through
``.apply``. Forward runs without recording; the outputs get one graph node, ``<Name>Backward``,
whose backward calls the user's ``backward`` with one gradient per output and takes one
gradient per forward argument back (None for arguments that are not tensors).

Under ``create_graph`` the user's backward runs with grad mode on, so a backward written with
differentiable ops gives higher-order gradients. The user's functions are called as they are:
in a program they are the program's own functions, which run through the interpreter (its
limits apply and an error points to the program's line).

A function with several tensor outputs gets one small node per output (named like the function)
that parks its gradient on the shared node and passes a zero token on; the engine's dependency
count runs the shared node once every output's gradient has arrived.
"""
import functools

import numpy as np

from .function import Node, Op, FREED_MESSAGE, _ARGUMENT_EDGE, _NO_EDGE, _sequence, _new
from .state import state

__all__ = ["Function", "FunctionCtx", "once_differentiable", "InplaceFunction", "NestedIOFunction"]

Tensor = None   # engine.tensor.Tensor, bound on first use (this module loads before it)


def _tensor_cls():
    global Tensor
    if Tensor is None:
        from ..tensor import Tensor as T
        Tensor = T
    return Tensor


class FunctionCtx:
    """The ``ctx`` a custom Function's forward and backward share: saved tensors, which inputs
    need a gradient, and any attribute the function sets on it."""

    def __init__(self):
        self.needs_input_grad = ()
        self._materialize = True
        self._to_save = ()
        self._dirty = ()
        self._non_differentiable = ()
        self._node = None

    def save_for_backward(self, *tensors):
        """Saves the given tensors for a future call to backward."""
        T = _tensor_cls()
        for i, t in enumerate(tensors):   # (not tensors.index(t): that compares t with tensors, elementwise)
            if t is not None and not isinstance(t, T):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                f"{type(t).__name__}")
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        self._to_save_forward = tensors

    def mark_dirty(self, *args):
        """Marks the given tensors as modified in place by forward."""
        self._dirty = args

    def mark_non_differentiable(self, *args):
        """Marks outputs as not differentiable: they do not require grad, and their gradient in
        backward is zeros (or None without materialized gradients)."""
        self._non_differentiable = args

    def set_materialize_grads(self, value):
        """Whether gradients of outputs that got none reach backward as zeros (True) or None."""
        self._materialize = bool(value)

    @property
    def saved_tensors(self):
        """The tensors given to save_for_backward, checked against in-place changes since."""
        node = self._node
        if node is None:
            return tuple(self._to_save)
        saved = node.saved
        if saved is None:
            raise RuntimeError(FREED_MESSAGE)
        for t, version in zip(saved, node.versions):
            if t is not None and t._version[0] != version:
                raise RuntimeError(node._modified_message(t._data, t._version[0], version, t.grad_fn))
        return tuple(saved)

    saved_variables = saved_tensors


def once_differentiable(fn):
    """Marks a backward as computed without recording: it runs under no_grad, so its result is
    not differentiable again."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = state.grad_enabled
        state.grad_enabled = False
        try:
            return fn(ctx, *args)
        finally:
            state.grad_enabled = prev
    return wrapper


class Function:
    """Base class to create custom autograd Functions (``torch.autograd.Function``).

    Subclasses implement static ``forward`` and ``backward`` and are called with ``apply``."""

    def __init__(self, *args, **kwargs):
        import warnings
        warnings.warn(f"{type(self).__name__} should not be instantiated. Methods on autograd functions are all "
                      f"static, so you should invoke them on the class itself.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use new-style "
                           "autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        """Computes the outputs; define it in the subclass."""
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Saves what backward needs when forward does not take ctx; define it or forward(ctx, ...)."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Computes one gradient per forward argument from one per output; define it in the subclass."""
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Runs forward and, when an input requires grad under grad mode, records one node for it."""
        return _apply(cls, args, kwargs)


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


NestedIOFunction = Function


def _uses_setup_context(cls):
    """PyTorch 2's style: forward without ctx, and a setup_context that saves what backward needs."""
    return cls.setup_context is not Function.setup_context


def _apply(cls, args, kwargs):
    T = _tensor_cls()
    ctx = FunctionCtx()
    needs = tuple(state.grad_enabled and isinstance(a, T) and a.requires_grad for a in args)
    ctx.needs_input_grad = needs
    prev = state.grad_enabled
    state.grad_enabled = False
    try:
        if _uses_setup_context(cls):
            output = cls.forward(*args, **kwargs)
            cls.setup_context(ctx, args, output)
        else:
            output = cls.forward(ctx, *args, **kwargs)
    finally:
        state.grad_enabled = prev
    is_tuple = isinstance(output, tuple)
    outputs = output if is_tuple else (output,)
    record = prev and any(needs)
    dirty = {id(t) for t in ctx._dirty}
    non_diff = {id(t) for t in ctx._non_differentiable}
    input_ids = {id(a) for a in args if isinstance(a, T)}
    results = []
    for out in outputs:
        if isinstance(out, T) and id(out) in input_ids and id(out) not in dirty:
            out = T._adopt_array(out._data, False, None)   # an input returned as is: a new tensor for the output
        results.append(out)
    if not record:
        return output if not is_tuple else tuple(results)

    edges = []
    for a in args:
        if isinstance(a, T):
            if a.requires_grad:
                fn = a.grad_fn
                edges.append((fn, 0) if fn is not None else (a._grad_accumulator(), 0))
            else:
                edges.append(_NO_EDGE)
        else:
            edges.append(_ARGUMENT_EDGE)
    for t in ctx._dirty:
        if isinstance(t, T) and t.grad_fn is None and t.requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")

    tensor_outs = [(k, o) for k, o in enumerate(results) if isinstance(o, T)]
    differentiable = [(k, o) for k, o in tensor_outs
                      if id(o) not in non_diff and o._data.dtype.kind in "fc"]
    node = _new(CustomFunctionBackward)
    node.fn_cls = cls
    node.ctx = ctx
    node.n_args = len(args)
    node.pending = None
    node.next_functions = tuple(edges)
    node.seq = next(_sequence)
    node.line = state.line
    node.pre_hooks = None
    node.extra = _RELEASED_BY_BACKWARD
    node.trace = None
    node.out_meta = tuple((o._data.shape, o._data.dtype, type(o._data)) for _, o in tensor_outs)
    node.out_slots = tuple(k for k, _ in tensor_outs)
    node.diff_slots = frozenset(k for k, _ in differentiable)
    if len(tensor_outs) == 1 and differentiable:
        first = tensor_outs[0][1]._data
        node.shape, node.dtype, node.array_type = first.shape, first.dtype, type(first)
    else:
        node.shape, node.dtype, node.array_type = (), np.dtype(np.float64), np.ndarray
    ctx._node = node

    single = len(tensor_outs) == 1 and bool(differentiable)
    for position, (k, o) in enumerate(tensor_outs):
        if (k, o) not in differentiable:
            o.requires_grad = False
            o.grad_fn = None
            continue
        if single:
            grad_fn = node
        else:
            grad_fn = _new(CustomOutputBackward)
            grad_fn.owner = node
            grad_fn.position = position
            grad_fn.next_functions = ((node, 0),)
            grad_fn.seq = next(_sequence)
            grad_fn.shape, grad_fn.dtype, grad_fn.array_type = o._data.shape, o._data.dtype, type(o._data)
            grad_fn.line = node.line
            grad_fn.pre_hooks = None
            grad_fn.saved = grad_fn.versions = ()
            grad_fn.extra = ()
            grad_fn.trace = None
        if id(o) in dirty:
            o._version[0] += 1
            o._accumulator = None
        o.requires_grad = True
        o.grad_fn = grad_fn
        o.grad = None
    saved = tuple(ctx._to_save)
    node.saved = list(saved) if saved else ()
    node.versions = [t._version[0] if t is not None else 0 for t in saved]
    ctx._to_save = ()
    st = state
    st.node_count += 1
    if st.node_limit is not None and st.node_count > st.node_limit:
        from ..limits import LimitExceeded
        raise LimitExceeded("graph_nodes", st.node_limit)
    if st.observer is not None and single:
        st.observer.on_node(node, tensor_outs[0][1], args)
    return tuple(results) if is_tuple else results[0]


# A custom Function's node is released by a backward without retain_graph even when it saved nothing
# (the engine frees a node that has saved tensors or ``extra``): its ctx.saved_tensors then raises, as
# PyTorch's does, where it answered () (hostile pass 16). It holds no array: nothing for memory to count.
_RELEASED_BY_BACKWARD = (None,)


class CustomFunctionBackward(Op):
    """The graph node of one call of a custom Function: runs the user's backward."""
    __slots__ = ("fn_cls", "ctx", "n_args", "pending", "out_meta", "out_slots", "diff_slots")
    op = "custom_function"

    def name(self):
        return self.fn_cls.__name__ + "Backward"

    def unpack(self, create_graph):
        # the user's backward reads its saved tensors through ctx.saved_tensors
        return ()

    def backward(self, F, grad):
        T = _tensor_cls()
        create_graph = F is not _array_ops()
        ctx = self.ctx
        n = len(self.out_meta)
        if self.pending is None:          # one tensor output: the gradient is its own
            given = [grad]
        else:
            given, self.pending = self.pending, None
        grads = []
        for position in range(n):
            g = given[position] if position < len(given) else None
            if g is None:
                if ctx._materialize:
                    shape, dtype, array_type = self.out_meta[position]
                    xp = np if array_type is np.ndarray else _cupy()
                    g = T._adopt_array(xp.zeros(shape, dtype), False, None)
            elif not isinstance(g, T):
                g = T._adopt_array(np.asarray(g) if isinstance(g, np.generic) else g, False, None)
            grads.append(g)
        result = self.fn_cls.backward(ctx, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        name = self.name()
        if len(result) < self.n_args:
            raise RuntimeError(f"function {name} returned an incorrect number of gradients (expected "
                               f"{self.n_args}, got {len(result)})")
        out = []
        for i, (g, (fn, _)) in enumerate(zip(result, self.next_functions)):
            if g is None:
                out.append(None)
                continue
            if not isinstance(g, T):
                raise TypeError(f"function {name} returned a gradient of type {type(g).__name__} at index {i}; "
                                f"expected a Tensor or None")
            if fn is None:
                out.append(None)   # an input that needs no gradient: its gradient is dropped
                continue
            if g.shape != fn.shape and not _sums_to(g.shape, fn.shape):
                raise RuntimeError(f"Function {name} returned an invalid gradient at index {i} - got "
                                   f"{list(g.shape)} but expected shape compatible with {list(fn.shape)}")
            out.append(g if create_graph else g._data)
        for i in range(self.n_args, len(result)):
            if result[i] is not None:
                raise RuntimeError(f"function {name} returned a gradient different than None at position "
                                   f"{i + 1}, but the corresponding forward input was not a Variable")
        return tuple(out)


def _sums_to(shape, target):
    """Whether a gradient of ``shape`` reduces to ``target`` by summing broadcast dimensions (PyTorch's
    is_expandable_to(target, shape))."""
    if len(target) > len(shape):
        return False
    return all(t == s or t == 1 for s, t in zip(reversed(shape), reversed(target)))


class CustomOutputBackward(Op):
    """One output of a custom Function with several: parks its gradient on the shared node."""
    __slots__ = ("owner", "position")
    op = "custom_function_output"

    def name(self):
        return self.owner.name()

    def unpack(self, create_graph):
        return ()

    def backward(self, F, grad):
        owner = self.owner
        if owner.pending is None:
            owner.pending = [None] * len(owner.out_meta)
        if not isinstance(grad, _tensor_cls()) and F is not _array_ops():
            grad = _tensor_cls()._adopt_array(grad, False, None)
        prev = owner.pending[self.position]
        owner.pending[self.position] = grad if prev is None else prev + grad
        token = np.zeros((), np.float64)
        return (token if F is _array_ops() else _tensor_cls()._adopt_array(token, False, None),)


def _array_ops():
    from . import array_ops
    return array_ops


def _cupy():
    from ..device import _load_cupy
    return _load_cupy()
