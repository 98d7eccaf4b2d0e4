"""quantile, nanquantile, cov, corrcoef, aminmax, trapezoid/trapz/cumulative_trapezoid, heaviside and histc
(engine/ops/statistics.py): gradcheck/gradgradcheck and PyTorch for the differentiable ones, and
PyTorch's values, NaN rules, shapes, dtypes and errors for all."""
import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.program import Limits, Namespace, run
from op_check import check_gradients, compare_with_torch, torch

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch")

CASES = {
    "quantile": (lambda T, x: T.quantile(x, 0.3), [(7,)]),
    "quantile_dim_q_tensor": (lambda T, x: T.quantile(x, T.tensor([0.1, 0.5, 0.95], dtype=x.dtype), dim=1), [(3, 6)]),
    "quantile_keepdim_method": (lambda T, x: x.quantile(0.7, dim=0, keepdim=True), [(5, 2)]),
    "quantile_midpoint": (lambda T, x: T.quantile(x, 0.4, interpolation="midpoint"), [(6,)]),
    "quantile_lower": (lambda T, x: T.quantile(x, 0.4, dim=-1, interpolation="lower"), [(2, 5)]),
    "nanquantile": (lambda T, x: T.nanquantile(T.where(x > 1.0, float("nan"), x), 0.5, dim=1), [(4, 6)]),
    "cov": (lambda T, x: T.cov(x), [(3, 5)]),
    "cov_weights": (lambda T, x, w: T.cov(x, correction=0, aweights=w.abs() + 0.1), [(2, 4), (4,)]),
    "corrcoef": (lambda T, x: T.corrcoef(x), [(3, 6)]),
    "aminmax": (lambda T, x: T.aminmax(x, dim=1)[0] * 2 + T.aminmax(x, dim=1).max, [(3, 4)]),
    "trapezoid": (lambda T, y: T.trapezoid(y, dx=0.5), [(3, 5)]),
    "trapezoid_x": (lambda T, y, x: T.trapezoid(y, x.cumsum(0), dim=0), [(4, 3), (4,)]),
    "cumulative_trapezoid": (lambda T, y: T.cumulative_trapezoid(y, dim=0), [(5, 2)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_statistics_pass_gradcheck_and_gradgradcheck(name):
    check_gradients(*CASES[name])


@needs_torch
@pytest.mark.parametrize("name", list(CASES))
def test_statistics_match_torch(name):
    compare_with_torch(*CASES[name])


def _values(T):
    x = T.tensor([[1.0, 5.0, 2.0, 8.0], [3.0, float("nan"), 4.0, 0.0]], dtype=T.float64)
    r = T.tensor(np.random.default_rng(0).normal(size=(3, 7)))
    q = T.tensor([0.1, 0.5, 0.9], dtype=T.float64)
    out = [T.quantile(x, 0.5), T.quantile(x, 0.5, keepdim=True), T.nanquantile(x, 0.5, dim=1),
           T.nanquantile(x, T.tensor([0.0, 1.0], dtype=T.float64), dim=0, keepdim=True),
           T.nanquantile(T.full((2, 2), float("nan")), 0.5, dim=0)]
    out += [T.quantile(x[0], q, interpolation=i) for i in ("linear", "lower", "higher", "nearest", "midpoint")]
    out += list(T.aminmax(x[0])) + list(T.aminmax(x, dim=1, keepdim=True))
    m = T.tensor([[1.0, 2, 4], [3, 1, 0]], dtype=T.float64)
    out += [T.cov(T.tensor([1.0, 2, 4], dtype=T.float64), correction=0), T.cov(m, fweights=T.tensor([1, 2, 1])),
            T.cov(T.tensor([[1, 2, 4], [3, 1, 0]])), T.corrcoef(r), T.trapz(r, dim=0), T.trapezoid(r, dx=2.0),
            T.heaviside(T.tensor([-1.0, 0.0, 2.0]), T.tensor([0.5])), T.histc(T.tensor([1., 2, 1]), bins=4, min=0, max=3),
            T.histc(T.tensor([1., 2, 1, 7]), bins=3), r.histc(bins=5, min=-1, max=1)]
    return [(o.tolist(), str(o.dtype), tuple(o.shape)) for o in out]


@needs_torch
def test_values_nan_rules_shapes_and_dtypes_match_torch():
    for (a, da, sa), (b, db, sb) in zip(_values(gs), _values(torch)):
        np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                                   rtol=1e-12 if da == "torch.float64" else 1e-6, equal_nan=True)
        assert (da, sa) == (db, sb)


@needs_torch
def test_errors_match_torch():
    def errors(T):
        out = []
        for bad in (lambda: T.quantile(T.tensor([1, 2]), 0.5), lambda: T.quantile(T.tensor([1.0]), 1.5),
                    lambda: T.quantile(T.tensor([1.0]), T.tensor([0.5, -0.1])),
                    lambda: T.quantile(T.tensor([1.0]), T.tensor([[0.5]])),
                    lambda: T.quantile(T.tensor([1.0]), T.tensor([0.5], dtype=T.float64)),
                    lambda: T.quantile(T.tensor([1.0]), 0.5, interpolation="cubic"),
                    lambda: T.cov(T.ones(2, 2, 2)), lambda: T.heaviside(T.tensor([1.0]), T.tensor([1.0], dtype=T.float64)),
                    lambda: T.heaviside(T.tensor([1.0], requires_grad=True), T.tensor([0.5])).sum().backward(),
                    lambda: T.aminmax(T.tensor([]))):
            try:
                bad()
                out.append(None)
            except Exception as e:
                out.append((type(e).__name__, str(e).split("\n")[0]))
        return out
    assert errors(gs) == errors(torch)


def test_a_program_summarises_a_sample():
    ns = Namespace()
    out = run("import torch\n"
              "x = torch.arange(10, dtype=torch.float64)\n"
              "lo, hi = torch.aminmax(x)\n"
              "med = torch.quantile(x, 0.5).item()\n"
              "area = torch.trapezoid(x).item()\n"
              "c = torch.corrcoef(torch.stack([x, 2 * x + 1]))[0, 1].item()\n", ns, Limits())
    assert out.ok, out.error.to_dict()
    assert (ns.globals["med"], ns.globals["area"]) == (4.5, 40.5)
    assert ns.globals["c"] == pytest.approx(1.0) and ns.globals["hi"].item() == 9.0


def test_histc_bins_count_against_the_element_limit_before_allocating():
    out = run("import torch\ny = torch.histc(torch.tensor([1.0, 2.0]), bins=10**9)", Namespace(),
              Limits(tensor_elements=10**6))
    assert not out.ok and out.error.limit == "tensor_elements" and "histogram of shape [1000000000]" in out.error.message


def test_quantile_sizes_its_gathers_against_the_element_limit():
    """Hostile pass 12: the ranks, gathers and weights of every q in every slice were broadcasts the
    element limit never saw: quantile(rand(20000, 2), linspace(0, 1, 200000), dim=1) built 4e9-element
    arrays (15 GB) and ran 66 s under a 20 s wall time."""
    out = run("import torch\ny = torch.quantile(torch.rand(2000, 2), torch.linspace(0, 1, 1000), dim=1)",
              Namespace(), Limits(tensor_elements=10**6))
    assert not out.ok and out.error.limit == "tensor_elements", out.error.to_dict()
    assert "quantile of shape [2000, 1000]" in out.error.message


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_cov_checks_its_weights_zeroes_its_normaliser_and_squeezes_as_pytorch():
    """Hostile pass 12: cov took float, negative, mis-sized and zero-sum weights (NaN results or a
    broadcast error for PyTorch's RuntimeErrors), divided by a negative normaliser where the
    weighted degrees of freedom were <= 0 (PyTorch zeroes it and warns), and kept a one-variable
    2-d input's (1, 1) shape where PyTorch squeezes to 0-d (corrcoef too)."""
    import warnings
    x = [[1.0, 2.0, 4.0], [3.0, 1.0, 0.0]]
    cases = [
        dict(fweights=lambda T: T.tensor([1.0, 2.0, 1.0])), dict(fweights=lambda T: T.tensor([1, -2, 1])),
        dict(aweights=lambda T: T.tensor([1.0, -2.0, 1.0])), dict(aweights=lambda T: T.tensor([1.0, 2.0])),
        dict(aweights=lambda T: T.tensor([0.0, 0.0, 0.0])), dict(fweights=lambda T: T.tensor([[1, 1, 1]])),
        dict(aweights=lambda T: T.tensor([1, 1, 1])), dict(fweights=lambda T: T.tensor([1, 1])),
    ]
    for kw in cases:
        msgs = []
        for T in (gs, torch):
            with pytest.raises(RuntimeError) as e:
                T.cov(T.tensor(x), **{k: v(T) for k, v in kw.items()})
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]
    for T in (gs, torch):
        with pytest.raises(RuntimeError, match="bool dtype is not supported"):
            T.cov(T.tensor([True, False]))
    for kw in (dict(correction=4), dict(fweights="f", correction=5), dict(aweights="a", correction=4)):
        got = []
        for T in (gs, torch):
            args = {k: v for k, v in kw.items() if k == "correction"}
            if "fweights" in kw:
                args["fweights"] = T.tensor([1, 1, 1])
            if "aweights" in kw:
                args["aweights"] = T.tensor([1.0, 1.0, 1.0])
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                got.append(T.cov(T.tensor(x, dtype=T.float64), **args).numpy())
            assert any("degrees of freedom is <= 0" in str(m.message) for m in w)
        np.testing.assert_array_equal(got[0], got[1])
    for fn in ("cov", "corrcoef"):
        ours, theirs = getattr(gs, fn)(gs.tensor([[1.0, 2.0, 4.0]])), getattr(torch, fn)(torch.tensor([[1.0, 2.0, 4.0]]))
        assert tuple(ours.shape) == tuple(theirs.shape) == () and ours.item() == pytest.approx(theirs.item())
    np.testing.assert_allclose(gs.cov(gs.tensor(x), fweights=gs.tensor([1, 2, 1])).numpy(),
                               torch.cov(torch.tensor(x), fweights=torch.tensor([1, 2, 1])).numpy(), rtol=1e-6)


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_quantile_shapes_and_trapezoid_over_no_samples_are_pytorchs():
    """Hostile pass 12: a 0-d q tensor added a dimension (PyTorch's result is 0-d, as for a number); a
    0-d input with dim and keepdim gave (1,); an empty input reduced along another dimension gave an
    empty result for PyTorch's 'must be non-empty'; trapezoid and cumulative_trapezoid over an empty
    dimension raised IndexError where PyTorch gives 0 and an empty result; the integrals follow
    PyTorch's formulas ((sum - (first + last) / 2) dx; sum(widths (left + right)) / 2)."""
    calls = [
        lambda T: T.quantile(T.tensor([1.0, 2.0, 3.0, 4.0]), T.tensor(0.3)),
        lambda T: T.nanquantile(T.tensor([[1.0, 2.0], [3.0, float("nan")]]), T.tensor(0.5), dim=1, keepdim=True),
        lambda T: T.quantile(T.tensor(3.0), 0.3, dim=0, keepdim=True),
        lambda T: T.quantile(T.tensor(3.0), T.tensor([0.3, 0.6]), dim=0, keepdim=True),
        lambda T: T.trapezoid(T.tensor([])),
        lambda T: T.trapezoid(T.zeros(2, 0, 3), T.tensor([]), dim=1),
        lambda T: T.cumulative_trapezoid(T.tensor([])),
        lambda T: T.cumulative_trapezoid(T.zeros(0, 3), dim=0),
        lambda T: T.trapezoid(T.tensor(np.random.default_rng(3).normal(size=(4, 50)).astype("float32")), dx=0.37),
        lambda T: T.cumulative_trapezoid(T.tensor(np.random.default_rng(4).normal(size=(3, 40)).astype("float32")),
                                         dx=0.37, dim=1),
        lambda T: T.trapezoid(T.tensor(np.random.default_rng(5).normal(size=(30,)).astype("float32")),
                              T.tensor(np.sort(np.random.default_rng(6).normal(size=(30,))).astype("float32"))),
    ]
    for call in calls:
        ours, theirs = call(gs), call(torch)
        assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=2e-5, atol=1e-6)   # float32 sums' order
    for T in (gs, torch):
        with pytest.raises(RuntimeError, match=r"^quantile\(\) input tensor must be non-empty$"):
            T.quantile(T.zeros(2, 0), 0.5, dim=0)
        with pytest.raises(IndexError, match="Dimension specified as -1 but tensor has no dimensions"):
            T.trapezoid(T.tensor(5.0))


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_heaviside_with_number_values_is_pytorchs_type_error():
    """Hostile pass 12: heaviside(x, 0.5) raised AttributeError ('float' object has no attribute 'dtype')."""
    errors = []
    for T in (gs, torch):
        with pytest.raises(TypeError) as e:
            T.heaviside(T.tensor([-1.0, 0.0]), 0.5)
        errors.append(str(e.value))
    assert errors[0] == errors[1]


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_histc_argument_errors_are_pytorchs():
    """Hostile pass 12: histc took a float bins count (PyTorch's TypeError), named int64 'Int64' for
    PyTorch's 'Long', said 'torch.histc' where PyTorch says 'torch.histogram()' for bins <= 0, and
    printed a range's numbers as Python floats ([1.0, inf]) where PyTorch prints [1, inf]."""
    calls = [
        (TypeError, lambda T: T.histc(T.tensor([1.0, 2.0], dtype=T.float64), bins=2.5)),
        (NotImplementedError, lambda T: T.histc(T.tensor([1, 2, 1]), bins=4)),
        (NotImplementedError, lambda T: T.histc(T.tensor([1, 2, 1], dtype=T.int32), bins=4)),
        (RuntimeError, lambda T: T.histc(T.tensor([1.0, 2.0]), bins=0)),
        (RuntimeError, lambda T: T.histc(T.tensor([1.0, float("inf")]), bins=4)),
        (RuntimeError, lambda T: T.histc(T.tensor([1.0, 2.0]), bins=4, min=float("nan"), max=3)),
    ]
    for kind, call in calls:
        messages = []
        for T in (gs, torch):
            with pytest.raises(kind) as e:
                call(T)
            messages.append(str(e.value))
        assert messages[0] == messages[1]


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_quantile_gradients_reach_q_and_the_nan_as_pytorchs():
    """Hostile pass 12: a q tensor that required grad was detached (PyTorch differentiates linear
    interpolation in q: (above - below) (n - 1)), and a slice with a NaN (quantile) or only NaNs
    (nanquantile) gave NaN through a where, so its gradient went nowhere (PyTorch points the rank at
    the NaN, which takes it) and q's gradient there was NaN (PyTorch's: 0)."""
    results = []
    for T in (gs, torch):
        rows = []
        for dtype in ("float64", "float32"):
            x = T.tensor([[1.0, 2.0, 4.0, 8.0, float("nan")], [3.0, 1.0, 2.0, 0.0, 5.0], [float("nan")] * 5],
                         dtype=getattr(T, dtype), requires_grad=True)
            for interpolation in ("linear", "lower", "higher", "nearest", "midpoint"):
                for fn in (T.quantile, T.nanquantile):
                    q = T.tensor([0.3, 0.5, 1.0, 0.0, 0.77], dtype=getattr(T, dtype), requires_grad=True)
                    y = fn(x, q, dim=1, interpolation=interpolation)
                    grads = T.autograd.grad(y.sum(), [x, q], allow_unused=True)
                    rows.append((str(y.detach().numpy().tolist()), [None if g is None else str(g.tolist()) for g in grads]))
        results.append(rows)
    assert results[0] == results[1]


def test_nanmedian_of_all_shares_the_gradient_among_ties(lib):
    x = lib.tensor([1.0, 2.0, 2.0, float("nan"), 5.0, 2.0, 0.0], requires_grad=True)
    y = lib.nanmedian(x)
    y.backward()
    assert y.item() == 2.0 and y.grad_fn.name() == "NanmedianBackward0"
    assert [round(g, 4) for g in x.grad.tolist()] == [0.0, 0.3333, 0.3333, 0.0, 0.0, 0.3333, 0.0]
