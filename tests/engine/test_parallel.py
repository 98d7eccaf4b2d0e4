"""Intra-op parallelism (engine/parallel.py): the batch of a convolution or a max pooling cut
into one part per thread gives what one part gives, gradients of every order included, and
PyTorch's values. The suite runs with one thread per worker, so each test here turns two (or
three) threads on and lowers the size a part needs, so that small inputs are cut."""
import threading

import numpy as np
import pytest

import gradserve.engine as gs
import gradserve.engine.nn.functional as F
from gradserve.engine import parallel
from op_check import check_gradients, compare_with_torch, torch

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is the oracle")


@pytest.fixture
def threads(monkeypatch):
    """Sets the engine's intra-op threads for one test (and cuts any batch of two or more)."""
    before = parallel.get_num_threads()
    monkeypatch.setattr(parallel, "MIN_PART_ELEMENTS", 1)
    yield parallel.use_threads
    parallel.use_threads(before)


# ------------------------------------------------------------------ the pool itself
def test_run_gives_each_part_in_order_on_more_than_one_thread(threads):
    threads(3)
    seen = set()

    def part(lo, hi):
        seen.add(threading.get_ident())
        return list(range(lo, hi))

    cuts = parallel.bounds(10)
    assert cuts == (0, 3, 6, 10)
    assert sum(parallel.run(cuts, part), []) == list(range(10))
    assert len(seen) >= 2 and threading.get_ident() in seen   # the caller runs the last part


def test_bounds_never_cut_finer_than_the_work_or_the_items(threads):
    threads(4)
    assert parallel.bounds(2) == (0, 1, 2)
    assert parallel.bounds(0) == (0, 0)
    assert parallel.bounds(9, most=1) == (0, 9)
    parallel.MIN_PART_ELEMENTS = 100
    assert parallel.batch_cuts(8, 10) == (0, 8)           # 80 elements: one part
    assert parallel.batch_cuts(8, 50) == (0, 2, 4, 6, 8)  # 400: four


def test_a_failing_part_raises_after_every_part_has_finished(threads):
    threads(2)
    finished = []

    def part(lo, hi):
        if lo == 0:
            raise ValueError("part 0")
        finished.append(lo)

    with pytest.raises(ValueError, match="part 0"):
        parallel.run((0, 1, 2), part)
    assert finished == [1]


def test_a_process_that_cannot_start_threads_runs_the_parts_inline(threads, monkeypatch):
    def refuse(*args, **kwargs):
        raise RuntimeError("can't start new thread")

    parallel.use_threads(1)                       # drops any running pool
    monkeypatch.setattr(parallel, "_Worker", refuse)
    monkeypatch.setattr(parallel, "_pool_failed", False)
    threads(2)
    callers = set()
    parallel.run((0, 1, 2), lambda lo, hi: callers.add(threading.get_ident()))
    assert callers == {threading.get_ident()}


def test_set_num_threads_rejects_less_than_one():
    with pytest.raises(RuntimeError, match="positive"):
        parallel.set_num_threads(0)


# ------------------------------------------------------------------ convolution
CONVS = [
    ("same width", lambda T, x, w, b: T.nn.functional.conv2d(x, w, b, padding=1), (4, 3, 6, 5), (4, 3, 3, 3)),
    ("strided", lambda T, x, w, b: T.nn.functional.conv2d(x, w, b, stride=2, padding=(1, 0)), (5, 2, 7, 6),
     (3, 2, 3, 2)),
    ("dilated groups", lambda T, x, w, b: T.nn.functional.conv2d(x, w, b, dilation=2, groups=2, padding=2),
     (3, 4, 6, 6), (4, 2, 3, 3)),
    ("conv1d", lambda T, x, w, b: T.nn.functional.conv1d(x, w, b, padding=1), (4, 3, 9), (2, 3, 3)),
]


def _conv_run(fn, xs, n_threads, threads):
    threads(n_threads)
    x, w, b = (gs.tensor(a, requires_grad=True) for a in xs)
    out = fn(gs, x, w, b)
    parts = len(out.grad_fn.extra)
    (out * gs.tensor(np.linspace(-1, 1, out.numel()).reshape(out.shape))).sum().backward()
    return parts, out.detach().numpy(), [t.grad.numpy() for t in (x, w, b)]


@pytest.mark.parametrize("name,fn,x_shape,w_shape", CONVS, ids=[c[0] for c in CONVS])
def test_conv_cut_over_threads_equals_one_part(threads, name, fn, x_shape, w_shape):
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal(s) for s in (x_shape, w_shape, (w_shape[0],))]
    one = _conv_run(fn, xs, 1, threads)
    cut = _conv_run(fn, xs, 3, threads)
    assert one[0] == 1 and cut[0] == 3            # the forward kept one block of columns per part
    np.testing.assert_array_equal(one[1], cut[1])   # each sample's product is the same either way
    for a, b in zip(one[2], cut[2]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)  # the weight gradient sums parts


@pytest.mark.parametrize("name,fn,x_shape,w_shape", CONVS, ids=[c[0] for c in CONVS])
def test_conv_cut_over_threads_gradcheck(threads, name, fn, x_shape, w_shape):
    threads(2)
    check_gradients(fn, [(2,) + x_shape[1:], w_shape, (w_shape[0],)])


@needs_torch
@pytest.mark.parametrize("name,fn,x_shape,w_shape", CONVS, ids=[c[0] for c in CONVS])
def test_conv_cut_over_threads_against_torch(threads, name, fn, x_shape, w_shape):
    threads(2)
    compare_with_torch(fn, [x_shape, w_shape, (w_shape[0],)])


def test_conv_without_kept_columns_gathers_each_part_again(threads, monkeypatch):
    rng = np.random.default_rng(5)
    xs = [rng.standard_normal(s) for s in ((4, 3, 6, 5), (4, 3, 3, 3), (4,))]
    fn = CONVS[0][1]
    kept = _conv_run(fn, xs, 2, threads)
    monkeypatch.setattr(F, "KEEP_COLUMNS_BYTES", 0)
    threads(2)
    x, w, b = (gs.tensor(a, requires_grad=True) for a in xs)
    out = fn(gs, x, w, b)
    assert out.grad_fn.extra == ()
    (out * gs.tensor(np.linspace(-1, 1, out.numel()).reshape(out.shape))).sum().backward()
    for a, t in zip(kept[2], (x, w, b)):
        np.testing.assert_allclose(a, t.grad.numpy(), rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ max pooling
POOLS = [
    ("stride = kernel", dict(kernel_size=2)),
    ("overlapping", dict(kernel_size=3, stride=2, padding=1)),
    ("ceil mode", dict(kernel_size=2, stride=2, ceil_mode=True)),
]


@pytest.mark.parametrize("name,kw", POOLS, ids=[p[0] for p in POOLS])
def test_max_pool_cut_over_threads_equals_one_part(threads, name, kw):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((5, 3, 7, 7)).astype(np.float32)
    a[1, 0, :2, :2] = 0.5                   # a tie: the first maximum wins in every part
    a[3, 2, 0, 0] = np.nan                  # a NaN wins its window
    results = []
    for n in (1, 2):
        threads(n)
        x = gs.tensor(a, requires_grad=True)
        out, idx = F.max_pool2d(x, return_indices=True, **kw)
        out.backward(gs.ones_like(out))
        results.append((out.detach().numpy(), idx.numpy(), x.grad.numpy()))
    for one, cut in zip(*results):
        np.testing.assert_array_equal(one, cut)


@pytest.mark.parametrize("name,kw", POOLS, ids=[p[0] for p in POOLS])
def test_max_pool_cut_over_threads_gradcheck(threads, name, kw):
    threads(2)
    check_gradients(lambda T, x: T.nn.functional.max_pool2d(x, **kw), [(2, 2, 5, 5)])


@needs_torch
@pytest.mark.parametrize("name,kw", POOLS, ids=[p[0] for p in POOLS])
def test_max_pool_cut_over_threads_against_torch(threads, name, kw):
    threads(2)
    compare_with_torch(lambda T, x: T.nn.functional.max_pool2d(x, **kw), [(4, 3, 7, 7)])


# ------------------------------------------------------------------ elementwise kernels
def test_elementwise_cuts_contiguous_arrays_and_leaves_others_whole(threads):
    threads(2)
    calls = []

    def kernel(out, a):
        calls.append(out.size)
        np.negative(a, out=out)

    a = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(parallel.elementwise(kernel, np.empty_like(a), a), -a)
    assert sorted(calls) == [6, 6]
    calls.clear()
    b = a.T                                       # not C-contiguous: one call over the whole
    np.testing.assert_array_equal(parallel.elementwise(kernel, np.empty_like(b), b), -b)
    assert calls == [12]


def test_relu_cut_over_threads_equals_one_part_and_gradchecks(threads):
    a = np.random.default_rng(11).standard_normal((6, 7)).astype(np.float32)
    a[0, :3] = 0.0                                 # relu'(0) = 0 in every part
    results = []
    for n in (1, 2):
        threads(n)
        x = gs.tensor(a, requires_grad=True)
        y = gs.relu(x)
        y.backward(gs.tensor(np.linspace(-1, 1, 42, dtype=np.float32).reshape(6, 7)))
        results.append((y.detach().numpy(), x.grad.numpy()))
    for one, cut in zip(*results):
        np.testing.assert_array_equal(one, cut)
    check_gradients(lambda T, x: T.relu(x) * 2, [(5, 4)])


def test_sgd_step_cut_over_threads_equals_one_part(threads):
    rng = np.random.default_rng(12)
    w0, g0 = rng.standard_normal((9, 5)).astype(np.float32), rng.standard_normal((9, 5)).astype(np.float32)
    results = []
    for n in (1, 2):
        threads(n)
        w = gs.nn.Parameter(gs.tensor(w0.copy()))
        opt = gs.optim.SGD([w], lr=0.1, foreach=False)
        for _ in range(3):
            w.grad = gs.tensor(g0)
            opt.step()
        results.append(w.detach().numpy())
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], w0 - np.float32(0.1) * g0 - np.float32(0.1) * g0 - np.float32(0.1) * g0)
