"""torch.autograd: backward, grad, grad modes, anomaly detection, gradcheck."""
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode,
                        set_detect_anomaly, detect_anomaly, is_anomaly_enabled)
from . import grad_mode
from .function import Node
from .custom_function import Function, FunctionCtx, once_differentiable, InplaceFunction, NestedIOFunction
from . import engine as _engine
from .finite_differences import gradcheck, gradgradcheck, GradcheckError
from . import functional  # noqa: E402

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "set_detect_anomaly", "detect_anomaly", "is_anomaly_enabled", "gradcheck", "gradgradcheck",
           "Function", "FunctionCtx", "once_differentiable", "Node", "Variable"]


def _as_tuple(x):
    """A tensor or an iterable of them (a list, or a generator such as ``model.parameters()``, which
    MAML's and TRPO's ``autograd.grad(loss, net.parameters())`` pass) as a tuple, as PyTorch takes them."""
    if x is None:
        return None
    from ..tensor import Tensor
    if isinstance(x, Tensor) or not hasattr(x, "__iter__"):
        return (x,)
    return tuple(x)


def _root_grads(outputs, grad_outputs, create_graph):
    from ..tensor import Tensor
    grads = []
    for i, out in enumerate(outputs):
        g = grad_outputs[i] if grad_outputs is not None else None
        if g is None:
            if out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if out._data.dtype.kind != "f":
                raise RuntimeError("grad can be implicitly created only for real scalar outputs")
            from ..device import get_array_module
            g = get_array_module(out._data).ones_like(out._data)
            grads.append(Tensor._adopt_array(g, False, None) if create_graph else g)
            continue
        if not isinstance(g, Tensor):
            from ..ops.creation import tensor
            g = tensor(g, dtype=out.dtype)
        if tuple(g.shape) != tuple(out.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {tuple(g.shape)} "
                               f"and output[{i}] has a shape of {tuple(out.shape)}.")
        grads.append(g if create_graph else g._data)
    return grads


def _check_outputs(outputs):
    for out in outputs:
        if not out.requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Computes the sum of gradients of given tensors with respect to graph leaves."""
    tensors = _as_tuple(tensors)
    grad_tensors = _as_tuple(grad_tensors)
    _check_outputs(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    grads = _root_grads(tensors, grad_tensors, create_graph)
    if inputs is not None:
        inputs = _as_tuple(inputs)
        captured = _engine.run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs,
                                        allow_unused=True)
        for t, g in zip(inputs, captured):
            if g is not None:
                t._accumulate(g, create_graph)
        return
    _engine.run_backward(tensors, grads, retain_graph, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Computes and returns the sum of gradients of outputs with respect to the inputs."""
    from ..tensor import Tensor
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    grad_outputs = _as_tuple(grad_outputs)
    _check_outputs(outputs)
    from ..tensor import Tensor
    for t in inputs:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    grads = _root_grads(outputs, grad_outputs, create_graph)
    captured = _engine.run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs,
                                    allow_unused=allow_unused)
    result = []
    for t, g in zip(inputs, captured):
        if g is None:
            result.append(Tensor._adopt_array(t._data * 0, False, None) if materialize_grads else None)
        elif create_graph:
            result.append(g)
        else:
            result.append(Tensor._adopt_array(_engine.as_array(g), False, None))
    return tuple(result)


def Variable(data, requires_grad=False, volatile=False):
    """The old torch.autograd.Variable: today simply the tensor, with requires_grad set."""
    if requires_grad:
        data.requires_grad_()
    return data
