"""Reductions: values, first and second derivatives over dims and keepdim, ties,
zeros, (values, indices) results, integer dtypes, each against PyTorch where it
is installed."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch, values

needs_torch = [pytest.mark.torch, pytest.mark.skipif(torch is None, reason="PyTorch is not installed")]
INF = float("inf")

# one line per op: (name, fn(T, *inputs), input shapes)
OPS = [
    ("sum", lambda T, x: x.sum(), [(2, 3)]),
    ("sum dim", lambda T, x: T.sum(x, 1), [(2, 3)]),
    ("sum dim keepdim", lambda T, x: x.sum(-1, keepdim=True), [(2, 3)]),
    ("sum dims", lambda T, x: T.sum(x, (0, 2)), [(2, 3, 2)]),
    ("sum dims keepdim", lambda T, x: x.sum((0, 2), keepdim=True), [(2, 3, 2)]),
    ("sum 0-d", lambda T, x: x.sum(), [()]),
    ("sum 0-d dim", lambda T, x: x.sum(0), [()]),
    ("mean", lambda T, x: x.mean(), [(2, 3)]),
    ("mean dim", lambda T, x: T.mean(x, 0), [(2, 3)]),
    ("mean dims keepdim", lambda T, x: x.mean((-1, 0), keepdim=True), [(2, 3, 2)]),
    ("prod", lambda T, x: x.prod(), [(2, 3)]),
    ("prod dim", lambda T, x: T.prod(x, 1), [(2, 3)]),
    ("prod dim keepdim", lambda T, x: x.prod(0, keepdim=True), [(3, 2)]),
    ("max", lambda T, x: x.max(), [(2, 3)]),
    ("max dim", lambda T, x: x.max(1), [(2, 3)]),
    ("max dim keepdim", lambda T, x: T.max(x, 0, keepdim=True), [(2, 3)]),
    ("max dim keyword", lambda T, x: T.max(x, dim=-1).values, [(2, 3, 2)]),
    ("max of two tensors", lambda T, x, y: T.max(x, y), [(2, 3), (3,)]),
    ("min", lambda T, x: T.min(x), [(2, 3)]),
    ("min dim", lambda T, x: x.min(0), [(2, 3)]),
    ("min of two tensors", lambda T, x, y: x.min(y), [(2, 3), (2, 3)]),
    ("amax", lambda T, x: T.amax(x, 1), [(2, 3)]),
    ("amax dims keepdim", lambda T, x: x.amax((0, 2), keepdim=True), [(2, 3, 2)]),
    ("amax all", lambda T, x: T.amax(x), [(2, 3)]),
    ("amin", lambda T, x: x.amin(-1), [(2, 3)]),
    ("amin dims", lambda T, x: T.amin(x, (0, 1)), [(2, 3, 2)]),
    ("var", lambda T, x: x.var(), [(2, 3)]),
    ("var dim", lambda T, x: T.var(x, 1), [(2, 3)]),
    ("var unbiased False", lambda T, x: x.var(1, unbiased=False), [(2, 3)]),
    ("var correction dims keepdim", lambda T, x: T.var(x, (0, 1), correction=0, keepdim=True), [(2, 3, 2)]),
    ("var positional unbiased keepdim", lambda T, x: T.var(x, 1, True, True), [(2, 3)]),
    ("std", lambda T, x: x.std(), [(2, 3)]),
    ("std dim", lambda T, x: T.std(x, 0), [(3, 2)]),
    ("std correction keepdim", lambda T, x: x.std(1, correction=2, keepdim=True), [(2, 4)]),
    ("var_mean", lambda T, x: T.var_mean(x, 1), [(2, 3)]),
    ("std_mean", lambda T, x: T.std_mean(x, 0, keepdim=True), [(2, 3)]),
    ("logsumexp", lambda T, x: T.logsumexp(x, 1), [(2, 3)]),
    ("logsumexp dims keepdim", lambda T, x: x.logsumexp((0, 1), keepdim=True), [(2, 3)]),
    ("norm", lambda T, x: x.norm(), [(2, 3)]),
    ("norm fro", lambda T, x: T.norm(x, "fro"), [(2, 3)]),
    ("norm p=1", lambda T, x: x.norm(1), [(2, 3)]),
    ("norm p=inf", lambda T, x: x.norm(INF), [(2, 3)]),
    ("norm p=-inf", lambda T, x: T.norm(x, -INF), [(2, 3)]),
    ("norm p=0", lambda T, x: T.norm(x, 0) + x.sum(), [(2, 3)]),
    ("norm p=3 dim", lambda T, x: T.norm(x, 3, dim=1), [(2, 3)]),
    ("norm p=2 dim keepdim", lambda T, x: x.norm(2, dim=0, keepdim=True), [(2, 3)]),
    ("norm p=1.5 dims", lambda T, x: x.norm(1.5, dim=(0, 1)), [(2, 3, 2)]),
    ("cumsum", lambda T, x: T.cumsum(x, 1), [(2, 3)]),
    ("cumsum dim 0", lambda T, x: x.cumsum(0), [(3, 2)]),
    ("cumsum 0-d", lambda T, x: x.cumsum(0), [()]),
    ("cumprod", lambda T, x: T.cumprod(x, 1), [(2, 3)]),
    ("cumprod dim 0", lambda T, x: x.cumprod(dim=0), [(3, 2)]),
    ("sort", lambda T, x: T.sort(x, 1), [(2, 3)]),
    ("sort descending", lambda T, x: x.sort(0, descending=True), [(3, 2)]),
    ("sort 0-d", lambda T, x: x.sort(), [()]),
    ("topk", lambda T, x: T.topk(x, 2), [(2, 3)]),
    ("topk smallest", lambda T, x: x.topk(2, dim=0, largest=False), [(3, 2)]),
    ("median", lambda T, x: x.median(), [(2, 3)]),
    ("median dim", lambda T, x: T.median(x, 1), [(2, 3)]),
    ("median dim keepdim", lambda T, x: x.median(0, keepdim=True), [(4, 2)]),
    ("max 0-d dim", lambda T, x: x.max(0), [()]),
    ("chain", lambda T, x: (x.exp() / x.exp().sum(1, keepdim=True)).max(1).values.sum(), [(2, 3)]),
]


@pytest.mark.parametrize("fn, shapes", [pytest.param(f, s, id=n) for n, f, s in OPS])
def test_gradients_match_finite_differences(fn, shapes):
    check_gradients(fn, shapes)


@pytest.mark.parametrize("fn, shapes", [pytest.param(f, s, id=n, marks=needs_torch) for n, f, s in OPS])
def test_values_and_gradients_match_torch(fn, shapes):
    compare_with_torch(fn, shapes)


# ------------------------------------------------------------------ values against NumPy
REDUCTIONS = [
    # name, engine call, NumPy reference
    ("sum", lambda x, d, k: x.sum(d, keepdim=k), lambda a, d, k: a.sum(d, keepdims=k)),
    ("mean", lambda x, d, k: x.mean(d, keepdim=k), lambda a, d, k: a.mean(d, keepdims=k)),
    ("amax", lambda x, d, k: gs.amax(x, d, k), lambda a, d, k: a.max(d, keepdims=k)),
    ("amin", lambda x, d, k: gs.amin(x, d, k), lambda a, d, k: a.min(d, keepdims=k)),
    ("var", lambda x, d, k: x.var(d, keepdim=k), lambda a, d, k: a.var(d, ddof=1, keepdims=k)),
    ("std", lambda x, d, k: x.std(d, keepdim=k, correction=0), lambda a, d, k: a.std(d, keepdims=k)),
    ("logsumexp", lambda x, d, k: gs.logsumexp(x, d, k),
     lambda a, d, k: np.log(np.exp(a).sum(d, keepdims=k))),
    ("norm", lambda x, d, k: x.norm(dim=d, keepdim=k), lambda a, d, k: np.sqrt((a * a).sum(d, keepdims=k))),
]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), name=st.sampled_from([r[0] for r in REDUCTIONS]),
       shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=2, max_side=4), keepdim=st.booleans())
def test_reductions_over_random_dims_match_numpy(data, name, shape, keepdim):
    _, ours, ref = next(r for r in REDUCTIONS if r[0] == name)
    dims = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=len(shape),
                              unique_by=lambda d: d % len(shape)))
    a = np.random.default_rng(len(dims)).standard_normal(shape)
    x = gs.tensor(a, requires_grad=True)
    out = ours(x, tuple(dims), keepdim)
    want = ref(a, tuple(d % len(shape) for d in dims), keepdim)
    assert tuple(out.shape) == want.shape
    np.testing.assert_allclose(values(out), want, rtol=1e-12, atol=1e-12)
    out.sum().backward()
    assert x.grad.shape == x.shape


@settings(max_examples=40, deadline=None)
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5), data=st.data())
def test_sum_and_mean_gradients_spread_back(shape, data):
    dim = data.draw(st.integers(0, len(shape) - 1))
    a = np.random.default_rng(0).standard_normal(shape)
    for name, scale in (("sum", 1.0), ("mean", 1.0 / shape[dim])):
        x = gs.tensor(a, requires_grad=True)
        out = getattr(x, name)(dim)
        w = np.random.default_rng(1).standard_normal(out.shape)
        (out * gs.tensor(w)).sum().backward()
        np.testing.assert_allclose(values(x.grad), np.broadcast_to(np.expand_dims(w, dim), shape) * scale)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float32_reductions_stay_float32(dtype):
    x = gs.randn(3, 4, dtype=getattr(gs, dtype))
    for out in (x.sum(), x.mean(1), x.prod(0), x.amax(1), x.var(), x.std(0), x.logsumexp(1), x.norm(),
                x.cumsum(1), x.cumprod(0), x.max(1).values, x.sort().values, x.median()):
        assert out.dtype is getattr(gs, dtype)


# ------------------------------------------------------------------ ties
def grads(lib, fn, *data):
    xs = [lib.tensor(d, dtype=lib.float64, requires_grad=True) for d in data]
    fn(*xs).sum().backward()
    return [x.grad.tolist() for x in xs]


def test_first_index_wins_ties(lib):
    x = lib.tensor([1.0, 3.0, 3.0, 2.0, 1.0])
    assert x.max(0).indices.item() == 1 and x.argmax().item() == 1
    assert x.min(0).indices.item() == 0 and lib.argmin(x).item() == 0
    m = lib.tensor([[1.0, 1.0], [2.0, 0.0]])
    assert lib.max(m, 1).indices.tolist() == [0, 0]
    assert lib.argmax(m, dim=0).tolist() == [1, 0]


def test_max_over_a_dim_gives_the_gradient_to_the_returned_index(lib):
    assert grads(lib, lambda x: x.max(0).values, [1.0, 3.0, 3.0, 2.0]) == [[0.0, 1.0, 0.0, 0.0]]
    assert grads(lib, lambda x: x.min(1, keepdim=True).values, [[2.0, 1.0, 1.0]]) == [[[0.0, 1.0, 0.0]]]


@pytest.mark.parametrize("fn", [
    pytest.param(lambda L: lambda x: x.max(), id="max"),
    pytest.param(lambda L: lambda x: L.amax(x, 0), id="amax"),
    pytest.param(lambda L: lambda x: L.amax(x), id="amax all"),
])
def test_full_max_and_amax_share_the_gradient_among_ties(lib, fn):
    assert grads(lib, fn(lib), [1.0, 3.0, 3.0, 2.0]) == [[0.0, 0.5, 0.5, 0.0]]


def test_amin_shares_ties_over_dims(lib):
    g = grads(lib, lambda x: lib.amin(x, (0, 1)), [[1.0, 5.0], [1.0, 1.0]])
    assert g == [[[1 / 3, 0.0], [1 / 3, 1 / 3]]]


def test_full_median_shares_the_gradient_among_ties(lib):
    assert grads(lib, lambda x: x.median(), [1.0, 2.0, 2.0, 3.0]) == [[0.0, 0.5, 0.5, 0.0]]


def test_norm_inf_shares_the_gradient_among_ties_with_their_signs(lib):
    assert grads(lib, lambda x: x.norm(INF), [3.0, -3.0, 1.0]) == [[0.5, -0.5, 0.0]]


def test_full_max_with_nan_gives_the_gradient_to_the_nans(lib):
    assert grads(lib, lambda x: x.max(), [1.0, math.nan, 2.0, math.nan]) == [[0.0, 0.5, 0.0, 0.5]]


# ------------------------------------------------------------------ zeros
@pytest.mark.parametrize("data, expected", [
    ([2.0, 3.0, 4.0], [12.0, 8.0, 6.0]),
    ([2.0, 0.0, 3.0], [0.0, 6.0, 0.0]),
    ([0.0, 2.0, 0.0], [0.0, 0.0, 0.0]),
    ([0.0], [1.0]),
])
def test_prod_gradient_is_right_at_zeros(lib, data, expected):
    assert grads(lib, lambda x: x.prod(), data) == [expected]


def test_prod_over_a_dim_gradient_at_zeros(lib):
    g = grads(lib, lambda x: x.prod(1), [[2.0, 0.0, 3.0], [0.0, 0.0, 1.0], [1.0, 2.0, 3.0]])
    assert g == [[[0.0, 6.0, 0.0], [0.0, 0.0, 0.0], [6.0, 3.0, 2.0]]]
    g = grads(lib, lambda x: x.prod(), [[2.0, 0.0], [1.0, 3.0]])
    assert g == [[[0.0, 6.0], [0.0, 0.0]]]


@pytest.mark.parametrize("data, expected", [
    ([1.0, 2.0, 2.0, 3.0], [19.0, 9.0, 8.0, 4.0]),
    ([2.0, 0.0, 5.0], [1.0, 12.0, 0.0]),
    ([0.0, 2.0, 3.0], [9.0, 0.0, 0.0]),
    ([2.0, 0.0, 0.0, 3.0], [1.0, 2.0, 0.0, 0.0]),
    ([0.0, 0.0], [1.0, 0.0]),
])
def test_cumprod_gradient_is_right_at_zeros(lib, data, expected):
    assert grads(lib, lambda x: x.cumprod(0), data) == [expected]


def test_cumprod_gradient_at_zeros_along_an_inner_dim(lib):
    g = grads(lib, lambda x: x.cumprod(1) * lib.tensor([[1.0, 2.0, 3.0]], dtype=lib.float64),
              [[2.0, 0.0, 5.0], [1.0, 2.0, 3.0]])
    assert g == [[[1.0, 34.0, 0.0], [23.0, 11.0, 6.0]]]


def test_prod_and_cumprod_second_derivatives_at_a_zero():
    for fn in (lambda x: x.prod(), lambda x: x.cumprod(0)):
        x = gs.tensor([2.0, 0.0, 3.0, 1.5], dtype=gs.float64, requires_grad=True)
        assert gs.autograd.gradgradcheck(fn, (x,))


@pytest.mark.parametrize("p", [2, 1, 3, INF, "fro"])
def test_norm_gradient_at_zero_is_zero(lib, p):
    assert grads(lib, lambda x: x.norm(p), [0.0, 0.0, 0.0]) == [[0.0, 0.0, 0.0]]


def test_norm_gradient_at_a_zero_row_is_zero(lib):
    assert grads(lib, lambda x: x.norm(dim=1), [[0.0, 0.0], [3.0, 4.0]]) == [[[0.0, 0.0], [0.6, 0.8]]]


# ------------------------------------------------------------------ (values, indices) results
@pytest.mark.parametrize("fn, name", [
    (lambda L, x: L.max(x, 1), "max"), (lambda L, x: x.min(0), "min"), (lambda L, x: L.sort(x), "sort"),
    (lambda L, x: x.topk(1), "topk"), (lambda L, x: L.median(x, 1), "median"),
])
def test_value_index_results_are_named_tuples(lib, fn, name):
    x = lib.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    out = fn(lib, x)
    values_, indices = out
    assert isinstance(out, tuple) and len(out) == 2
    assert out.values is values_ and out.indices is indices and out[0] is values_
    assert indices.dtype == lib.int64
    assert repr(out).startswith(f"torch.return_types.{name}(")


def test_max_with_a_tensor_second_argument_is_maximum(lib):
    a, b = lib.tensor([1.0, 5.0]), lib.tensor([3.0, 2.0])
    assert lib.max(a, b).tolist() == [3.0, 5.0]
    assert a.min(b).tolist() == [1.0, 2.0]


def test_sort_is_stable_both_ways(lib):
    x = lib.tensor([2, 1, 2, 1])
    assert lib.sort(x).indices.tolist() == [1, 3, 0, 2]
    assert x.sort(descending=True, stable=True).indices.tolist() == [0, 2, 1, 3]
    assert lib.argsort(x, descending=True).tolist() == [0, 2, 1, 3]


def test_sort_puts_nan_last_ascending_and_first_descending(lib):
    x = lib.tensor([1.0, 3.0, math.nan, 2.0])
    assert lib.sort(x).indices.tolist() == [0, 3, 1, 2]
    assert x.sort(descending=True).indices.tolist() == [2, 1, 3, 0]


def test_topk(lib):
    x = lib.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    top = x.topk(2)
    assert top.values.tolist() == [[5.0, 3.0], [6.0, 4.0]] and top.indices.tolist() == [[1, 2], [2, 0]]
    low = lib.topk(x, 1, dim=0, largest=False)
    assert low.values.tolist() == [[1.0, 2.0, 3.0]] and low.indices.tolist() == [[0, 1, 0]]
    with pytest.raises(RuntimeError, match="k out of range"):
        x.topk(4)


def test_median_is_the_lower_middle_and_propagates_nan(lib):
    assert lib.tensor([4.0, 1.0, 3.0, 2.0]).median().item() == 2.0
    m = lib.tensor([[4.0, 1.0, 3.0, 2.0], [1.0, math.nan, 2.0, math.nan]]).median(1)
    assert m.values[0].item() == 2.0 and m.indices[0].item() == 3
    assert math.isnan(m.values[1].item()) and m.indices[1].item() == 1
    assert math.isnan(lib.tensor([1.0, math.nan]).median().item())


# ------------------------------------------------------------------ dtypes
@pytest.mark.parametrize("dtype", ["int32", "int64", "bool"])
def test_integer_sums_products_and_running_sums_give_int64(lib, dtype):
    x = lib.tensor([1, 0, 1]).to(getattr(lib, dtype))
    for out in (x.sum(), lib.sum(x, 0), x.cumsum(0)):
        assert out.dtype == lib.int64
    if dtype != "bool":
        assert x.prod().dtype == lib.int64 and x.cumprod(0).dtype == lib.int64
        assert x.max().dtype == getattr(lib, dtype)
    assert lib.sum(x, dtype=lib.float64).dtype == lib.float64


def test_integer_max_min_keep_their_dtype(lib):
    x = lib.tensor([[3, 1], [2, 5]], dtype=lib.int32)
    assert x.max().item() == 5 and x.max().dtype == lib.int32
    assert x.amin(1).tolist() == [1, 2]
    assert x.max(1).values.tolist() == [3, 5] and x.max(1).indices.tolist() == [0, 1]
    assert x.sort(1).values.tolist() == [[1, 3], [2, 5]]


@pytest.mark.parametrize("fn, exc, message", [
    (lambda L: L.tensor([1, 2]).mean(), RuntimeError, "mean\\(\\): could not infer output dtype"),
    (lambda L: L.tensor([1, 2]).var(), RuntimeError, ""),
    (lambda L: L.tensor([1, 2]).std(), RuntimeError, ""),
    (lambda L: L.tensor([1, 2]).norm(), RuntimeError, ""),
    (lambda L: L.tensor([]).max(), RuntimeError, "Expected reduction dim to be specified"),
    (lambda L: L.zeros(2, 0).max(1), IndexError, "Expected reduction dim 1 to have non-zero size"),
    (lambda L: L.zeros(2, 3).sum(2), IndexError, "Dimension out of range"),
    (lambda L: L.zeros(2, 3).max(-3), IndexError, "Dimension out of range"),
])
def test_errors_match_torch(lib, fn, exc, message):
    with pytest.raises(exc, match=message):
        fn(lib)


# ------------------------------------------------------------------ misc values
def test_var_and_std_overloads(lib):
    x = lib.tensor([1.0, 2.0, 4.0])
    assert x.var().item() == pytest.approx(7 / 3)
    assert lib.var(x, False).item() == pytest.approx(14 / 9)
    assert lib.var(x, 0, False).item() == pytest.approx(14 / 9)
    assert x.var(correction=0).item() == pytest.approx(14 / 9)
    assert lib.std(x, unbiased=True).item() == pytest.approx(math.sqrt(7 / 3))
    v, m = lib.var_mean(x)
    assert v.item() == pytest.approx(7 / 3) and m.item() == pytest.approx(7 / 3)


def test_logsumexp_is_stable(lib):
    assert lib.logsumexp(lib.tensor([1000.0, 1000.0]), 0).item() == pytest.approx(1000 + math.log(2))
    assert lib.logsumexp(lib.tensor([-INF, -INF]), 0).item() == -INF
    assert lib.logsumexp(lib.tensor([-1000.0, 0.0]), 0).item() == pytest.approx(0.0)


def test_norm_variants(lib):
    x = lib.tensor([[3.0, -4.0], [0.0, 0.0]])
    assert x.norm().item() == 5.0
    assert x.norm(1).item() == 7.0
    assert x.norm(INF).item() == 4.0
    assert x.norm(0).item() == 2.0
    assert lib.norm(x, dim=1).tolist() == [5.0, 0.0]
    assert x.norm(p=3, dim=1, keepdim=True).tolist() == [[pytest.approx(91 ** (1 / 3))], [0.0]]


def test_all_any_count_nonzero(lib):
    x = lib.tensor([[1, 0, 2], [3, 4, 5]])
    assert x.all().item() is False and x.any().item() is True
    assert lib.all(x, 1).tolist() == [False, True]
    assert x.any(0, keepdim=True).tolist() == [[True, True, True]]
    assert lib.all(x, dim=(0, 1)).item() is False
    assert lib.any(lib.tensor([0.0, 0.0])).item() is False
    assert lib.count_nonzero(x).item() == 5 and lib.count_nonzero(x, dim=0).tolist() == [2, 1, 2]


def test_argmax_argmin_keepdim_and_flattening(lib):
    x = lib.tensor([[1.0, 7.0, 3.0], [9.0, 0.0, 2.0]])
    assert lib.argmax(x).item() == 3 and lib.argmin(x).item() == 4
    assert lib.argmax(x, keepdim=True).shape == (1, 1)
    assert x.argmax(1).tolist() == [1, 0] and x.argmin(0, keepdim=True).tolist() == [[0, 1, 1]]


def test_0d_reductions(lib):
    x = lib.tensor(3.0)
    assert x.sum(0).item() == 3.0 and x.max(0).values.item() == 3.0 and x.max(0).indices.item() == 0
    assert x.sort().values.item() == 3.0 and x.cumsum(0).shape == () and x.argmax(0).item() == 0
    assert x.mean(-1).item() == 3.0 and x.amax(0).item() == 3.0


def test_cumsum_values(lib):
    x = lib.tensor([[1, 2, 3], [4, 5, 6]])
    assert x.cumsum(1).tolist() == [[1, 3, 6], [4, 9, 15]]
    assert lib.cumsum(x, dim=0).tolist() == [[1, 2, 3], [5, 7, 9]]
    assert lib.cumprod(x, 1).tolist() == [[1, 2, 6], [4, 20, 120]]
    assert x.cumsum(0, dtype=lib.float64).dtype == lib.float64


def test_grad_fn_names(lib):
    x = lib.tensor([[1.0, 2.0]], requires_grad=True)
    assert x.sum().grad_fn.name() == "SumBackward0"
    assert x.mean().grad_fn.name() == "MeanBackward0"
    assert x.prod().grad_fn.name() == "ProdBackward0"
    assert x.max(1).values.grad_fn.name().startswith("Max")
    assert x.cumsum(1).grad_fn.name() == "CumsumBackward0"


TORCH_NAMES = ["sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "var", "std", "var_mean",
               "std_mean", "logsumexp", "norm", "cumsum", "cumprod", "all", "any", "count_nonzero", "sort",
               "argsort", "topk", "median"]


@pytest.mark.parametrize("name", TORCH_NAMES)
def test_function_and_method_exist(name):
    assert callable(getattr(gs, name))
    if torch is not None and hasattr(torch.Tensor, name):
        assert callable(getattr(gs.Tensor, name))


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_rows_match_pytorch_on_both_sides(lib, right):
    # nerf-pytorch's sample_pdf: a batch of CDFs (rows) searched by a batch of uniform draws, ties included
    rng = np.random.default_rng(0)
    cdf = np.sort(rng.random((3, 5)), -1).astype("float32")
    u = rng.random((3, 4)).astype("float32")
    u[0, 0], u[1, 1] = cdf[0, 2], cdf[1, 0]
    got = lib.searchsorted(lib.tensor(cdf), lib.tensor(u), right=right)
    assert got.dtype == lib.int64 and not got.requires_grad
    assert got.tolist() == [[int(np.searchsorted(c, v, side="right" if right else "left")) for v in q]
                            for c, q in zip(cdf, u)]
    assert lib.searchsorted(lib.tensor(cdf[0]), lib.tensor(u), side="right" if right else "left").shape == (3, 4)


def test_searchsorted_scalars_int32_sorter_and_bucketize(lib):
    seq = lib.tensor([3.0, 1.0, 2.0])
    assert lib.searchsorted(lib.tensor([1.0, 2.0, 3.0]), 2.5).item() == 2
    assert lib.searchsorted(seq, lib.tensor([2.0]), sorter=lib.tensor([1, 2, 0])).tolist() == [1]
    assert lib.searchsorted(lib.tensor([1.0, 2.0]), lib.tensor([1.5]), out_int32=True).dtype == lib.int32
    assert lib.bucketize(lib.tensor([[0.5, 2.0]]), lib.tensor([1.0, 2.0, 3.0]), right=True).tolist() == [[0, 2]]
    with pytest.raises(RuntimeError):
        lib.searchsorted(lib.ones(2, 3), lib.ones(3, 3))


def test_mode_picks_the_smallest_most_frequent_value_and_its_last_index(lib):
    x = lib.tensor([[1, 2, 2, 1, 3], [3, 3, 1, 1, 0], [5, 4, 3, 2, 1]])
    values, indices = lib.mode(x)
    assert values.tolist() == [1, 1, 1] and indices.tolist() == [3, 3, 4]
    v, i = lib.mode(x.float(), 0, keepdim=True)
    assert v.tolist() == [[1.0, 2.0, 1.0, 1.0, 0.0]] and i.tolist() == [[0, 0, 1, 1, 1]]
    v, i = lib.tensor([2.0, float("nan"), float("nan"), 1.0]).mode()   # NaNs never equal each other
    assert v.item() == 1.0 and i.item() == 3


def test_mode_over_an_empty_dim_raises_index_error(lib):
    with pytest.raises(IndexError, match="non-zero size"):
        lib.mode(lib.zeros(0, 4), 0)
    assert tuple(lib.mode(lib.zeros(0, 4), 1).values.shape) == (0,)


def test_mode_gradient_goes_to_the_picked_element():
    # random data has no repeats: the mode of each row is its smallest element
    check_gradients(lambda T, a: T.mode(a, 1).values, [(2, 4)])


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_mode_matches_torch():
    compare_with_torch(lambda T, a: T.mode(T.cat([a, a[:, :2]], 1), 1, keepdim=True).values, [(3, 4)])


def test_logsumexp_requires_dim(lib):
    with pytest.raises(TypeError):
        lib.logsumexp(lib.ones(2))
    with pytest.raises(TypeError):
        lib.ones(2).logsumexp()


def test_all_and_any_keep_uint8(lib):
    x = lib.tensor([[1, 0, 2]], dtype=lib.uint8)
    assert lib.all(x).dtype == lib.uint8 and x.any(1).dtype == lib.uint8 and x.any(1).tolist() == [1]
    assert lib.all(x > 0).dtype == lib.bool


@pytest.mark.parametrize("call", [
    lambda T, b: T.argmax(b), lambda T, b: T.argmin(b, 0), lambda T, b: T.topk(b, 1), lambda T, b: T.median(b),
    lambda T, b: T.median(b, 0), lambda T, b: T.kthvalue(b, 1),
])
def test_selections_refuse_bool_as_pytorch(lib, call):
    with pytest.raises(RuntimeError):
        call(lib, lib.tensor([True, False]))


def test_median_of_nothing_is_nan(lib):
    assert math.isnan(lib.median(lib.zeros(0)).item()) and math.isnan(lib.nanmedian(lib.zeros(0)).item())


def test_argmax_of_nothing_raises_index_error(lib):
    with pytest.raises(IndexError, match="numel"):
        lib.argmax(lib.zeros(0, 3))


def test_mean_refuses_an_integer_dtype(lib):
    with pytest.raises(RuntimeError, match="could not infer output dtype"):
        lib.mean(lib.ones(2, dtype=lib.int32), dtype=lib.int64)


def test_diff_refuses_a_negative_order(lib):
    with pytest.raises(RuntimeError, match="non-negative"):
        lib.diff(lib.ones(3), -1)
