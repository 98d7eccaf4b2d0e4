"""scatter_reduce (sum, prod, mean, amax, amin; include_self both ways): values against PyTorch,
gradients by gradcheck and gradgradcheck and against PyTorch (ties in amax/amin, zero factors in
prod), dtypes, PyTorch's errors, the in-place form and its reach from programs."""
import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.autograd import gradcheck, gradgradcheck
from gradserve.engine.program import Namespace, run
from op_check import torch

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch")
REDUCTIONS = ["sum", "prod", "mean", "amax", "amin"]

# (self, dim, index, src): 1-D with repeats and an untouched position, and 2-D along each dim
CASES = {
    "1d": ([1.5, -2.0, 3.0, 0.7], 0, [0, 1, 0, 1, 2], [0.5, 1.2, -0.8, 2.5, 0.9]),
    "2d_dim0": ([[1.0, 2.0, 3.0], [0.4, -1.1, 0.6]], 0, [[1, 0, 1], [1, 1, 0]], [[0.3, 0.8, -1.6], [2.2, 1.3, 0.45]]),
    "2d_dim1": ([[1.0, 2.0, 3.0], [0.4, -1.1, 0.6]], 1, [[2, 2, 0], [1, 1, 1]], [[0.3, 0.8, -1.6], [2.2, 1.3, 0.45]]),
}


def _inputs(T, case, dtype=None):
    x, dim, idx, src = CASES[case]
    dtype = dtype or T.float64
    return (T.tensor(x, dtype=dtype, requires_grad=True), dim, T.tensor(idx),
            T.tensor(src, dtype=dtype, requires_grad=True))


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("case", list(CASES))
def test_gradcheck_and_gradgradcheck(case, reduce, include_self):
    x, dim, idx, src = _inputs(gs, case)

    def f(a, b):
        return a.scatter_reduce(dim, idx, b, reduce, include_self=include_self)
    assert gradcheck(f, (x, src))
    assert gradgradcheck(f, (x, src))


def _run_both(make, reduce, include_self, dtype_name="float64"):
    out = {}
    for T in (gs, torch):
        x, dim, idx, src = make(T)
        y = x.scatter_reduce(dim, idx, src, reduce, include_self=include_self)
        grads = None
        if y.requires_grad:
            (y * T.arange(1, y.numel() + 1, dtype=y.dtype).reshape(y.shape)).sum().backward()
            grads = (x.grad.numpy(), src.grad.numpy())
        out[T] = (y.detach().numpy(), grads)
    return out[gs], out[torch]


@needs_torch
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("case", list(CASES))
def test_values_and_gradients_match_pytorch(case, reduce, include_self):
    (gv, gg), (tv, tg) = _run_both(lambda T: _inputs(T, case), reduce, include_self)
    np.testing.assert_allclose(gv, tv, rtol=1e-12)
    for a, b in zip(gg, tg):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


@needs_torch
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["amax", "amin", "prod"])
def test_ties_and_zero_factors_share_the_gradient_as_pytorch(reduce, include_self):
    def make(T):
        x = T.tensor([2.0, 0.0, 5.0, 1.0], dtype=T.float64, requires_grad=True)
        src = T.tensor([2.0, 2.0, 0.0, 0.0, 3.0, 5.0, 0.0], dtype=T.float64, requires_grad=True)
        return x, 0, T.tensor([0, 0, 1, 1, 2, 2, 3]), src
    (gv, gg), (tv, tg) = _run_both(make, reduce, include_self)
    np.testing.assert_allclose(gv, tv)
    for a, b in zip(gg, tg):
        np.testing.assert_allclose(a, b)


@needs_torch
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("dtype", ["int64", "float32"])
def test_dtypes_match_pytorch(reduce, include_self, dtype):
    def make(T):
        dt = getattr(T, dtype)
        return (T.tensor([7, -3, 4, 9], dtype=dt), 0, T.tensor([0, 1, 0, 1, 2]), T.tensor([5, 2, 3, -8, 6], dtype=dt))
    (gv, _), (tv, _) = _run_both(make, reduce, include_self)
    assert gv.dtype == tv.dtype
    np.testing.assert_allclose(gv, tv, rtol=1e-6)


@needs_torch
def test_errors_are_pytorchs():
    for T in (gs, torch):
        x, idx = T.zeros(3), T.tensor([0, 1])
        with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin"):
            x.scatter_reduce(0, idx, T.ones(2), "add")
        with pytest.raises(RuntimeError, match="Expected self.dtype to be equal to src.dtype"):
            x.scatter_reduce(0, idx, T.ones(2, dtype=T.float64), "sum")
        with pytest.raises(RuntimeError, match="out of bounds"):
            x.scatter_reduce(0, T.tensor([0, 3]), T.ones(2), "sum")


@needs_torch
def test_max_and_min_are_taken_for_amax_and_amin_as_pytorch_takes_them():
    for name, alias in (("amax", "max"), ("amin", "min")):
        want = torch.zeros(3).scatter_reduce(0, torch.tensor([0, 0]), torch.tensor([2.0, -5.0]), alias).tolist()
        got = gs.zeros(3).scatter_reduce(0, gs.tensor([0, 0]), gs.tensor([2.0, -5.0]), alias).tolist()
        assert got == want


def test_in_place_form_and_graph_name():
    x = gs.zeros(3, requires_grad=True)
    y = x * 1
    y.scatter_reduce_(0, gs.tensor([0, 0, 2]), gs.tensor([1.0, 4.0, 2.0]), "amax", include_self=False)
    assert y.tolist() == [4.0, 0.0, 2.0]
    assert y.grad_fn.name() == "ScatterReduceBackward0"


def test_a_program_uses_it_as_graph_code_does():
    """Segment softmax over a graph's edges (GAT-style): max per target node for stability."""
    ns = Namespace()
    out = run("""
import torch
scores = torch.tensor([0.5, 2.0, -1.0, 0.3, 1.1], requires_grad=True)
dst = torch.tensor([0, 0, 1, 1, 1])
m = torch.zeros(2).scatter_reduce(0, dst, scores, 'amax', include_self=False)
e = (scores - m[dst]).exp()
denom = torch.zeros(2).scatter_add(0, dst, e)
alpha = e / denom[dst]
(alpha * torch.arange(5.0)).sum().backward()
""", ns)
    assert out.ok, out.error.to_dict()
    alpha = ns.get("alpha").detach().numpy()
    np.testing.assert_allclose([alpha[:2].sum(), alpha[2:].sum()], [1.0, 1.0], rtol=1e-6)
    assert ns.get("scores").grad is not None
