"""The engine's op tables once more on CUDA: values and gradients against the CPU.

Each table (elementwise, reductions, nn.functional, instance norm, pixel shuffle) is the one its own
test file checks against PyTorch; here every entry runs on "cuda" (the real CuPy, or the fake in
tests/fakecupy) and must give the CPU's values and gradients. Constants a table builds with
``T.tensor`` (and modules it builds with ``T.nn``) land on the inputs' device, as under
``torch.set_default_device("cuda")``.
"""
import functools

import numpy as np
import pytest

import gradserve.engine as gs
from op_check import arrays, as_tuple, values

import test_elementwise
import test_nn_functional
import test_nn_instancenorm
import test_nn_pixelshuffle
import test_reduction

pytestmark = pytest.mark.gpu

_CREATE = ("tensor", "as_tensor", "zeros", "ones", "full", "empty", "arange", "linspace", "eye", "rand",
           "randn", "randint", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like", "empty_like")


class _OnDevice:
    """gradserve.engine with a default device for creation functions and nn modules."""

    def __init__(self, module, device):
        self._module, self._device = module, device

    def __getattr__(self, name):
        value = getattr(self._module, name)
        if name in _CREATE:
            return functools.partial(_with_device, value, self._device)
        if name == "nn":
            return _OnDevice(value, self._device)
        if isinstance(value, type) and issubclass(value, gs.nn.Module):
            return lambda *a, **k: value(*a, **k).to(self._device)
        return value


def _with_device(fn, device, *args, **kwargs):
    if "device" not in kwargs and not (fn.__name__.endswith("_like") and args):
        kwargs["device"] = device
    return fn(*args, **kwargs)


def compare_devices(fn, shapes, *, seed=0, rtol=1e-9, atol=1e-12):
    """fn's outputs, and the gradients of a random weighting of them, on CUDA against the CPU."""
    data = arrays(shapes, seed)
    results = []
    for device in ("cpu", "cuda"):
        T = gs if device == "cpu" else _OnDevice(gs, "cuda")
        xs = [gs.tensor(a, dtype=gs.float64, device=device, requires_grad=True) for a in data]
        gs.manual_seed(seed)
        out = as_tuple(fn(T, *xs))
        rng = np.random.default_rng(seed + 1)
        loss = 0
        for o in out:
            assert o.device.type == device, f"an output on {o.device}, not {device}"
            if o.requires_grad:
                loss = loss + (o * gs.tensor(rng.standard_normal(tuple(o.shape)), device=device)).sum()
        grads = gs.autograd.grad(loss, xs, allow_unused=True) if not isinstance(loss, int) else ()
        results.append(([values(o) for o in out], [None if g is None else values(g) for g in grads]))
        for g in grads:
            assert g is None or g.device.type == device
    (out_c, grad_c), (out_g, grad_g) = results
    for c, g in zip(out_c, out_g):
        assert c.dtype == g.dtype and c.shape == g.shape
        np.testing.assert_allclose(g, c, rtol=rtol, atol=atol)
    for c, g in zip(grad_c, grad_g):
        assert (c is None) == (g is None)
        if c is not None:
            np.testing.assert_allclose(g, c, rtol=rtol, atol=atol)


def _table(module, name):
    table = getattr(module, name)
    if isinstance(table, dict):
        return [(f"{module.__name__[5:]}:{n}", case[0], case[1]) for n, case in table.items()]
    return [(f"{module.__name__[5:]}:{n}", f, s) for n, f, s in table]


CASES = (_table(test_elementwise, "OPS") + _table(test_reduction, "OPS") + _table(test_nn_functional, "CASES")
         + _table(test_nn_instancenorm, "CASES") + _table(test_nn_pixelshuffle, "CASES"))


@pytest.mark.parametrize("fn, shapes", [pytest.param(f, s, id=n) for n, f, s in CASES])
def test_cuda_matches_cpu(fn, shapes):
    compare_devices(fn, shapes)


# random ops draw on the host for every device: the same seed gives the same numbers on cuda
RANDOM = {
    "rand": lambda T, d: T.rand(3, 4, device=d),
    "randn float64": lambda T, d: T.randn(5, dtype=T.float64, device=d),
    "randint": lambda T, d: T.randint(0, 7, (6,), device=d),
    "randperm": lambda T, d: T.randperm(9, device=d),
    "normal": lambda T, d: T.normal(1.0, 2.0, size=(4,), device=d),
    "rand_like": lambda T, d: T.rand_like(T.zeros(2, 3, device=d)),
    "randn_like": lambda T, d: T.randn_like(T.zeros(2, 3, device=d)),
    "randint_like": lambda T, d: T.randint_like(T.zeros(2, 3, device=d), 0, 5),
    "bernoulli": lambda T, d: T.bernoulli(T.full((3, 3), 0.3, device=d)),
    "multinomial": lambda T, d: T.multinomial(T.tensor([[0.1, 0.5, 0.4], [0.7, 0.2, 0.1]], device=d), 2),
    "multinomial replacement": lambda T, d: T.multinomial(T.tensor([0.2, 0.8], device=d), 6, replacement=True),
    "uniform_": lambda T, d: T.empty(4, device=d).uniform_(-1, 1),
    "normal_": lambda T, d: T.empty(4, device=d).normal_(0.5, 3.0),
    "exponential_": lambda T, d: T.empty(4, device=d).exponential_(2.0),
    "bernoulli_": lambda T, d: T.empty(4, device=d).bernoulli_(0.5),
    "random_": lambda T, d: T.empty(4, device=d).random_(0, 10),
    "dropout": lambda T, d: T.nn.functional.dropout(T.ones(4, 5, device=d), 0.4),
    "dropout2d": lambda T, d: T.nn.functional.dropout2d(T.ones(2, 3, 4, 4, device=d), 0.5),
    "Dropout1d module": lambda T, d: T.nn.Dropout1d(0.5).to(d)(T.ones(2, 3, 4, device=d)),
}


@pytest.mark.parametrize("name", list(RANDOM))
def test_random_ops_on_cuda_match_cpu(name):
    draws = []
    for device in ("cpu", "cuda"):
        gs.manual_seed(7)
        t = RANDOM[name](gs, device)
        assert t.device.type == device
        draws.append(t.cpu().numpy())
    assert draws[0].dtype == draws[1].dtype
    np.testing.assert_array_equal(draws[1], draws[0])
