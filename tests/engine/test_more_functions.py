"""Functions real scripts call that the engine lacked: inverse hyperbolics, degree conversions, gcd/lcm,
infinity tests, isin, unique_consecutive, combinations, unravel_index, diagflat, vander, h/v/dsplit,
row_stack, msort, nanmedian, select/slice_scatter, renorm, pdist, window functions, and the process
settings (set_num_threads, float32 matmul precision, deterministic algorithms), which are each
session's own. Values, dtypes and gradients against PyTorch; gradcheck and gradgradcheck for the
differentiable ones; PyTorch's errors; their reach from programs."""
import math

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.autograd import gradcheck, gradgradcheck
from gradserve.engine.program import Namespace, run
from op_check import torch

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch")

X = [[0.3, -1.2, 2.0, 0.7], [1.5, 0.2, -0.4, 0.9], [0.1, 0.6, -2.2, 1.1]]
# name -> (inputs as lists, fn(T, *tensors)); inputs are float64 leaves
DIFFERENTIABLE = {
    "asinh": ([X], lambda T, x: T.asinh(x)),
    "acosh": ([[[1.5, 2.0, 3.5], [1.2, 4.0, 1.1]]], lambda T, x: x.acosh()),
    "atanh": ([[[0.3, -0.8, 0.5], [0.1, 0.9, -0.2]]], lambda T, x: T.arctanh(x)),
    "deg2rad": ([X], lambda T, x: T.deg2rad(x)),
    "rad2deg": ([X], lambda T, x: x.rad2deg()),
    "combinations": ([[0.3, -1.2, 2.0, 0.7]], lambda T, x: T.combinations(x, r=3)),
    "combinations_repl": ([[0.3, -1.2, 2.0]], lambda T, x: T.combinations(x, with_replacement=True)),
    "diagflat": ([[[0.3, -1.2], [2.0, 0.7]]], lambda T, x: T.diagflat(x, 1)),
    "vander": ([[0.3, -1.2, 2.0]], lambda T, x: T.vander(x, N=4, increasing=True)),
    "nanmedian": ([[0.3, float("nan"), 2.0, 0.7, -1.0]], lambda T, x: T.nanmedian(x)),
    "nanmedian_dim": ([[[0.3, float("nan"), 2.0, 0.7], [1.0, 3.0, -2.0, 0.5]]], lambda T, x: T.nanmedian(x, 1)[0]),
    "msort": ([X], lambda T, x: T.msort(x)),
    "select_scatter": ([X, [5.0, 6.0, 7.0]], lambda T, x, s: T.select_scatter(x, s, 1, -2)),
    "slice_scatter": ([X, [[5.0, 6.0], [7.0, 8.0], [9.0, 1.0]]],
                      lambda T, x, s: T.slice_scatter(x, s, dim=1, start=0, end=4, step=2)),
    "renorm": ([X], lambda T, x: T.renorm(x, 2, 0, 1.5)),
    "renorm_p1": ([X], lambda T, x: x.renorm(1, 1, 1.7)),
    "pdist": ([X], lambda T, x: T.pdist(x)),
    "pdist_p1": ([X], lambda T, x: T.pdist(x, p=1)),
    "hsplit": ([X], lambda T, x: T.hsplit(x, 2)[1]),
    "vsplit": ([X], lambda T, x: T.vsplit(x, [1])[1]),
    "row_stack": ([X, X], lambda T, x, y: T.row_stack((x, y * 2))),
}
NO_GRADCHECK = {"nanmedian", "nanmedian_dim"}   # NaN inputs: finite differences would be NaN
# PyTorch 2.13's own vander backward fails ("modified by an inplace operation"): values only
VALUES_ONLY = {"vander"}


def _leaves(T, values):
    return [T.tensor(v, dtype=T.float64, requires_grad=True) for v in values]


@pytest.mark.parametrize("name", sorted(set(DIFFERENTIABLE) - NO_GRADCHECK))
def test_gradcheck_and_gradgradcheck(name):
    values, fn = DIFFERENTIABLE[name]
    inputs = _leaves(gs, values)
    assert gradcheck(lambda *xs: fn(gs, *xs), inputs)
    assert gradgradcheck(lambda *xs: fn(gs, *xs), inputs)


@needs_torch
@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_values_and_gradients_match_pytorch(name):
    values, fn = DIFFERENTIABLE[name]
    res = {}
    for T in (gs, torch):
        xs = _leaves(T, values)
        y = fn(T, *xs)
        if name in VALUES_ONLY:
            res[T] = (y.detach().numpy(), [])
            continue
        (y * T.arange(1, y.numel() + 1, dtype=y.dtype).reshape(y.shape)).sum().backward()
        res[T] = (y.detach().numpy(), [x.grad.numpy() for x in xs])
    np.testing.assert_allclose(res[gs][0], res[torch][0], rtol=1e-12, atol=1e-12)
    for a, b in zip(res[gs][1], res[torch][1]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@needs_torch
def test_non_differentiable_ones_match_pytorch():
    def cases(T):
        a = T.tensor([1, 1, 2, 2, 3, 1, 1, 2])
        m = T.tensor([[1, 2], [1, 2], [3, 4], [1, 2]])
        return [
            T.gcd(T.tensor([12, -8, 0]), T.tensor([18, 6, 5])), T.lcm(T.tensor([4, 0, -3]), T.tensor([6, 5, 4])),
            T.isneginf(T.tensor([-math.inf, math.inf, 1.0, math.nan])),
            T.isposinf(T.tensor([-math.inf, math.inf, 1.0])), T.isreal(T.tensor([1.0, 2.0])),
            T.isin(T.tensor([1, 2, 3, 4]), T.tensor([2, 4, 9])), T.isin(T.tensor([1, 2]), 2),
            T.isin(T.tensor([1, 2, 3]), T.tensor([2]), invert=True),
            *T.unique_consecutive(a, return_inverse=True, return_counts=True),
            *T.unique_consecutive(m, return_counts=True, dim=0),
            *T.unravel_index(T.tensor([4, 1, 5]), (2, 3)),
            T.vander(T.tensor([1, 2, 3])), T.deg2rad(T.tensor([180, 90])),
            T.hann_window(5), T.hann_window(5, periodic=False), T.hamming_window(6), T.blackman_window(7),
            T.bartlett_window(5, periodic=False), T.kaiser_window(6, True, 5.0), T.hann_window(1),
            T.hann_window(0), T.hamming_window(4, dtype=T.float64), T.nanmedian(T.tensor([[1.0, 5.0, 3.0]]), 1)[1],
        ]
    for g, t in zip(cases(gs), cases(torch)):
        assert g.dtype == getattr(gs, str(t.dtype).split(".")[1]), (g, t)
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-6, atol=1e-7)


@needs_torch
def test_errors_are_pytorchs():
    for T in (gs, torch):
        with pytest.raises(RuntimeError, match="not divisible by the split_size"):
            T.hsplit(T.ones(2, 5), 2)
        with pytest.raises(RuntimeError, match="Expect a 1D vector"):
            T.combinations(T.ones(2, 2))
        with pytest.raises(RuntimeError, match="pdist only supports 2D tensors"):
            T.pdist(T.ones(3))
        with pytest.raises(RuntimeError, match="not implemented for 'Float'"):
            T.gcd(T.ones(2), T.ones(2))
        with pytest.raises(RuntimeError, match="on a bool tensor is not supported"):
            T.positive(T.tensor([True]))
        with pytest.raises(RuntimeError, match="expected src to have a size equal to the slice of self"):
            T.select_scatter(T.zeros(2, 3), T.ones(2), 0, 0)


def test_settings_are_answered_back_and_each_session_keeps_its_own():
    a, b = Namespace(), Namespace()
    out = run("""
import torch
torch.set_num_threads(3)
torch.set_float32_matmul_precision('high')
torch.use_deterministic_algorithms(True)
answers = [torch.get_num_threads(), torch.get_float32_matmul_precision(), torch.are_deterministic_algorithms_enabled(),
           torch.get_deterministic_debug_mode(), torch.set_flush_denormal(True), str(torch.get_default_device())]
""", a)
    assert out.ok, out.error.to_dict()
    assert a.get("answers") == [3, "high", True, 2, False, "cpu"]
    out = run("import torch\nanswers = [torch.get_num_threads(), torch.get_float32_matmul_precision(), "
              "torch.are_deterministic_algorithms_enabled()]", b)
    assert out.ok and b.get("answers") == [1, "highest", False]   # a's settings are a's
    assert run("answers2 = torch.get_num_threads()", a).ok and a.get("answers2") == 3   # kept across runs
    out = run("import torch\ntorch.set_num_threads(0)", b)
    assert not out.ok and out.error.type == "RuntimeError"
    out = run("import torch\ntorch.set_float32_matmul_precision('low')\np = torch.get_float32_matmul_precision()", b)
    assert out.ok and b.get("p") == "highest" and "has no effect" in out.stdout


def test_a_program_reaches_them_as_scripts_write_them():
    ns = Namespace()
    out = run("""
import torch
torch.set_num_threads(1)
x = torch.linspace(-0.9, 0.9, 5, requires_grad=True)
y = (x.atanh() + torch.asinh(x) + x.deg2rad()).sum()
y.backward()
w = torch.hann_window(8)
pairs = torch.combinations(torch.arange(4))
keep = torch.isin(torch.arange(6), torch.tensor([1, 3]))
""", ns)
    assert out.ok, out.error.to_dict()
    xs = np.linspace(-0.9, 0.9, 5)
    np.testing.assert_allclose(ns.get("x").grad.numpy(), 1 / (1 - xs ** 2) + 1 / np.sqrt(xs ** 2 + 1) + math.pi / 180,
                               rtol=1e-5)
    assert tuple(ns.get("pairs").shape) == (6, 2) and ns.get("keep").tolist() == [False, True, False, True, False, False]
