"""One way to check a differentiable op, shared by the op-table tests.

An op is written once as ``fn(T, *inputs)`` with ``T`` either gradserve.engine or
torch, so the same line runs on both. ``check_gradients`` runs gradcheck and
gradgradcheck in float64; ``compare_with_torch`` checks values and gradients
against PyTorch itself.
"""
import numpy as np

import gradserve.engine as gs
from gradserve.engine.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:  # the suite passes without PyTorch
    torch = None


def arrays(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


def as_tuple(out):
    return tuple(out) if isinstance(out, (list, tuple)) else (out,)


def values(t):
    """A tensor of either library as a NumPy array."""
    return np.asarray(t.detach().cpu().numpy())


def check_gradients(fn, shapes, *, second_order=True, seed=0):
    """gradcheck (and gradgradcheck) of fn at random float64 inputs of the given shapes."""
    xs = [gs.tensor(a, dtype=gs.float64, requires_grad=True) for a in arrays(shapes, seed)]

    def f(*inputs):
        return fn(gs, *inputs)

    assert gradcheck(f, xs)
    if second_order:
        assert gradgradcheck(f, xs)


def compare_with_torch(fn, shapes, *, seed=0, rtol=1e-7, atol=1e-9):
    """fn's outputs and the gradients of a random weighting of them, ours against PyTorch's."""
    data = arrays(shapes, seed)
    ours = [gs.tensor(a, dtype=gs.float64, requires_grad=True) for a in data]
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in data]
    out_g, out_t = as_tuple(fn(gs, *ours)), as_tuple(fn(torch, *theirs))
    assert len(out_g) == len(out_t)
    rng = np.random.default_rng(seed + 1)
    loss_g = loss_t = 0
    for a, b in zip(out_g, out_t):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(values(a), values(b), rtol=rtol, atol=atol)
        assert str(a.dtype) == str(b.dtype)
        if b.requires_grad:
            w = rng.standard_normal(tuple(b.shape))
            loss_g = loss_g + (a * gs.tensor(w)).sum()
            loss_t = loss_t + (b * torch.tensor(w)).sum()
    if not isinstance(loss_t, int):
        grads_g = gs.autograd.grad(loss_g, ours, allow_unused=True)
        grads_t = torch.autograd.grad(loss_t, theirs, allow_unused=True)
        for a, b in zip(grads_g, grads_t):
            ga = None if a is None else values(a)
            gb = None if b is None else values(b)
            if ga is None or gb is None:  # an unused input: no gradient on one side, zeros on the other
                assert not np.any(ga if gb is None else gb)
                continue
            np.testing.assert_allclose(ga, gb, rtol=rtol, atol=atol)


def compare_devices(fn, shapes, *, seed=0, rtol=1e-7, atol=1e-9):
    """fn's outputs and gradients on CUDA against the same on the CPU (ours both times)."""
    data = arrays(shapes, seed)
    cpu = [gs.tensor(a, dtype=gs.float64, requires_grad=True) for a in data]
    gpu = [gs.tensor(a, dtype=gs.float64, device="cuda", requires_grad=True) for a in data]
    out_c, out_g = as_tuple(fn(gs, *cpu)), as_tuple(fn(gs, *gpu))
    rng = np.random.default_rng(seed + 1)
    loss_c = loss_g = 0
    for c, g in zip(out_c, out_g):
        assert g.device.type == "cuda"
        np.testing.assert_allclose(values(g), values(c), rtol=rtol, atol=atol)
        if c.requires_grad:
            w = rng.standard_normal(tuple(c.shape))
            loss_c = loss_c + (c * gs.tensor(w)).sum()
            loss_g = loss_g + (g * gs.tensor(w, device="cuda")).sum()
    if not isinstance(loss_c, int):
        for a, b in zip(gs.autograd.grad(loss_c, cpu, allow_unused=True),
                        gs.autograd.grad(loss_g, gpu, allow_unused=True)):
            assert (a is None) == (b is None)
            if a is not None:
                np.testing.assert_allclose(values(b), values(a), rtol=rtol, atol=atol)
