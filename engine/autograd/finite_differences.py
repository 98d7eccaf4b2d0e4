"""gradcheck / gradgradcheck: analytical gradients against central finite differences.

Slow mode compares the full Jacobian column by column; fast mode (PyTorch's
``fast_mode``) compares one random directional derivative per output, which
costs two forward passes instead of two per input element.
"""
import numpy as np

from ..device import get_array_module
from .state import state

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised when analytical and numerical gradients disagree."""


def _tensor_cls():
    from ..tensor import Tensor
    return Tensor


def _as_tuple(x):
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def _outputs(func, inputs):
    Tensor = _tensor_cls()
    out = _as_tuple(func(*inputs))
    return [o for o in out if isinstance(o, Tensor) and o._data.dtype.kind == "f"]


def _numerical_vjp(func, inputs, diff_idx, out_index, v_out, eps):
    """d<v_out, f_out(x)>/dx for each differentiable input, by central differences."""
    grads = []
    for i in diff_idx:
        data = inputs[i]._data
        flat = data.reshape(-1)
        g = np.zeros(data.size, dtype=np.float64)
        for k in range(data.size):
            orig = flat[k].item()
            flat[k] = orig + eps
            plus = _dot(_outputs(func, inputs)[out_index], v_out)
            flat[k] = orig - eps
            minus = _dot(_outputs(func, inputs)[out_index], v_out)
            flat[k] = orig
            g[k] = (plus - minus) / (2 * eps)
        grads.append(g.reshape(data.shape))
    return grads


def _dot(out, v):
    return float((_host(out._data).astype(np.float64) * v).sum())


def _host(a):
    """A NumPy copy-or-view of a NumPy or CuPy array: the check itself runs on the host."""
    return a if type(a) is np.ndarray else a.get()


def _like(values, like):
    """NumPy ``values`` on the device and in the dtype of the array ``like``."""
    return get_array_module(like).asarray(values.astype(like.dtype))


def _analytical_vjp(func, inputs, diff_idx, out_index, v_out):
    from . import grad as autograd_grad
    Tensor = _tensor_cls()
    outs = _outputs(func, inputs)
    out = outs[out_index]
    if not out.requires_grad:
        return [np.zeros(inputs[i]._data.shape) for i in diff_idx]
    v = Tensor._adopt_array(_like(v_out, out._data), False, None)
    gs = autograd_grad([out], [inputs[i] for i in diff_idx], [v], allow_unused=True)
    return [np.zeros(inputs[i]._data.shape) if g is None else _host(g._data).astype(np.float64)
            for g, i in zip(gs, diff_idx)]


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              fast_mode=False, nondet_tol=0.0, check_undefined_grad=True, seed=0):
    """Checks gradients computed via small finite differences against analytical ones.

    Inputs that require grad must be float64. In fast mode, each output is
    contracted with a random vector and each input perturbed along a random
    direction, so the check costs O(1) forward passes per output.
    """
    Tensor = _tensor_cls()
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    for i in diff_idx:
        if inputs[i]._data.dtype != np.float64:
            import warnings
            warnings.warn("Input #%d requires gradient and is not a double precision floating point. "
                          "The check will likely fail if all the inputs are not of double precision "
                          "floating point." % i)
    rng = np.random.default_rng(seed)
    prev = state.grad_enabled
    state.grad_enabled = True
    try:
        outs = _outputs(func, inputs)
        for o_idx, out in enumerate(outs):
            v_out = rng.standard_normal(out._data.shape)
            analytical = _analytical_vjp(func, inputs, diff_idx, o_idx, v_out)
            if fast_mode:
                for k, i in enumerate(diff_idx):
                    data = inputs[i]._data
                    u = rng.standard_normal(data.shape)
                    orig = data.copy()
                    step = _like(eps * u, data)
                    data[...] = orig + step
                    plus = _dot(_outputs(func, inputs)[o_idx], v_out)
                    data[...] = orig - step
                    minus = _dot(_outputs(func, inputs)[o_idx], v_out)
                    data[...] = orig
                    num = (plus - minus) / (2 * eps)
                    ana = float((analytical[k] * u).sum())
                    if not abs(num - ana) <= atol + rtol * abs(num):
                        return _fail(raise_exception, f"Jacobian mismatch for output {o_idx} with respect to "
                                                      f"input {i} (fast mode),\nnumerical:{num}\nanalytical:{ana}\n")
            else:
                numerical = _numerical_vjp(func, inputs, diff_idx, o_idx, v_out, eps)
                for k, i in enumerate(diff_idx):
                    if not np.allclose(analytical[k], numerical[k], atol=atol, rtol=rtol):
                        return _fail(raise_exception,
                                     f"Jacobian mismatch for output {o_idx} with respect to input {i},\n"
                                     f"numerical:{numerical[k]}\nanalytical:{analytical[k]}\n")
    finally:
        state.grad_enabled = prev
    return True


def _fail(raise_exception, message):
    if raise_exception:
        raise GradcheckError(message)
    return False


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, fast_mode=False, seed=0):
    """Checks second-order gradients: gradcheck of the first-order gradient function."""
    from . import grad as autograd_grad
    Tensor = _tensor_cls()
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    rng = np.random.default_rng(seed + 1)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = [Tensor._adopt_array(_like(rng.standard_normal(o._data.shape), o._data), True, None)
                        for o in outs]
    grad_outputs = list(_as_tuple(grad_outputs))
    n = len(inputs)

    def first_order(*args):
        ins, gos = args[:n], args[n:]
        outs = [o for o in _outputs(func, ins) if o.requires_grad]
        if not outs:
            return ()
        gs = autograd_grad(outs, [ins[i] for i in diff_idx], list(gos[:len(outs)]), create_graph=True,
                           allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_order, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, fast_mode=fast_mode, seed=seed)
