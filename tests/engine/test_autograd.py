"""Autograd semantics, one behaviour per test, each checked on gradserve and on PyTorch."""
import gc
import subprocess
import sys
import textwrap
import tracemalloc
import weakref

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.autograd.state import state
from gradserve.engine.autograd.function import Op



def values(t):
    """A tensor of either library as a NumPy array."""
    return np.asarray(t.detach().cpu().numpy())


def leaf(lib, data, **kw):
    return lib.tensor(data, requires_grad=True, **kw)


# ------------------------------------------------------------------ backward
def test_backward_of_scalar_fills_leaf_grad(lib):
    x = leaf(lib, [1.0, 2.0, 3.0])
    (x * x).sum().backward()
    np.testing.assert_allclose(values(x.grad), [2.0, 4.0, 6.0])


def test_gradients_accumulate_across_backward_calls(lib):
    x = leaf(lib, [1.0, 2.0])
    (x * 3).sum().backward()
    (x * x).sum().backward()
    np.testing.assert_allclose(values(x.grad), [5.0, 7.0])


def test_backward_with_gradient_argument(lib):
    x = leaf(lib, [1.0, 2.0])
    y = x * x
    y.backward(lib.tensor([1.0, 10.0]))
    np.testing.assert_allclose(values(x.grad), [2.0, 40.0])


def test_backward_of_non_scalar_without_gradient_raises(lib):
    x = leaf(lib, [1.0, 2.0])
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()


def test_backward_gradient_of_wrong_shape_raises(lib):
    x = leaf(lib, [1.0, 2.0])
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(lib.tensor([1.0, 2.0, 3.0]))


def test_backward_of_tensor_without_grad_raises(lib):
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        lib.tensor([1.0]).sum().backward()


def test_backward_twice_without_retain_graph_raises(lib):
    x = leaf(lib, [1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_backward_twice_with_retain_graph_accumulates(lib):
    x = leaf(lib, [1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(values(x.grad), [4.0, 8.0])


def test_second_backward_through_ops_that_saved_nothing_works(lib):
    x = leaf(lib, [1.0, 2.0])
    y = (x + 1).sum()
    y.backward()
    y.backward()
    np.testing.assert_allclose(values(x.grad), [2.0, 2.0])


def test_backward_inputs_accumulates_only_into_those(lib):
    a, b = leaf(lib, [1.0, 2.0]), leaf(lib, [3.0, 4.0])
    (a * b).sum().backward(inputs=[a])
    np.testing.assert_allclose(values(a.grad), [3.0, 4.0])
    assert b.grad is None


def test_backward_inputs_may_name_a_non_leaf(lib):
    x = leaf(lib, [1.0, 2.0])
    y = x * 2
    (y * y).sum().backward(inputs=[y])
    np.testing.assert_allclose(values(y.grad), [4.0, 8.0])
    assert x.grad is None


def test_broadcast_input_gets_gradient_of_its_own_shape(lib):
    a = leaf(lib, [[1.0], [2.0]])
    b = leaf(lib, [10.0, 20.0, 30.0])
    (a * b).sum().backward()
    assert tuple(a.grad.shape) == (2, 1) and tuple(b.grad.shape) == (3,)
    np.testing.assert_allclose(values(a.grad), [[60.0], [60.0]])
    np.testing.assert_allclose(values(b.grad), [3.0, 3.0, 3.0])


def test_input_used_twice_gets_the_sum_of_both_gradients(lib):
    x = leaf(lib, [2.0])
    (x * x + x).sum().backward()
    np.testing.assert_allclose(values(x.grad), [5.0])


def test_non_leaf_grad_is_none_unless_retain_grad(lib):
    x = leaf(lib, [1.0, 2.0])
    y = x * 2
    z = y * 3
    z.retain_grad()
    (y * z).sum().backward()
    assert y.grad is None
    np.testing.assert_allclose(values(z.grad), values(y))


def test_retain_grad_accumulates_across_backward_calls(lib):
    x = leaf(lib, [1.0])
    y = x * 2
    y.retain_grad()
    s = (y * 5).sum()
    s.backward(retain_graph=True)
    s.backward()
    np.testing.assert_allclose(values(y.grad), [10.0])
    assert y.retains_grad and not x.retains_grad


def test_backward_create_graph_gives_grad_with_history(lib):
    x = leaf(lib, [2.0])
    (x ** 3).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    np.testing.assert_allclose(values(x.grad), [12.0])
    g = x.grad
    x.grad = None
    g.sum().backward()
    np.testing.assert_allclose(values(x.grad), [12.0])  # d(3x^2)/dx = 6x


def test_plain_backward_accumulates_in_place_into_a_grad_with_history(lib):
    c = leaf(lib, [3.0])
    (c ** 2).sum().backward(create_graph=True)
    g = c.grad
    (c ** 2).sum().backward()
    assert c.grad is g and c.grad.requires_grad   # PyTorch adds in place outside grad mode
    np.testing.assert_allclose(values(c.grad), [12.0])


def test_leaf_backward_with_gradient(lib):
    x = leaf(lib, [1.0, 2.0])
    x.backward(lib.tensor([3.0, 4.0]))
    np.testing.assert_allclose(values(x.grad), [3.0, 4.0])


def test_autograd_backward_of_several_roots(lib):
    m = leaf(lib, [1.0])
    lib.autograd.backward([m * 2, m * 3], [lib.tensor([1.0]), lib.tensor([1.0])])
    np.testing.assert_allclose(values(m.grad), [5.0])


def test_backward_is_not_recorded_without_create_graph(lib):
    x = leaf(lib, [2.0])
    (x * x).sum().backward()
    assert not x.grad.requires_grad and x.grad.grad_fn is None


# ------------------------------------------------------------------ autograd.grad
def test_grad_returns_gradients_and_leaves_grad_alone(lib):
    x = leaf(lib, [1.0, 2.0])
    (gx,) = lib.autograd.grad((x * x).sum(), x)
    np.testing.assert_allclose(values(gx), [2.0, 4.0])
    assert x.grad is None


def test_grad_with_grad_outputs(lib):
    x = leaf(lib, [1.0, 2.0])
    (gx,) = lib.autograd.grad(x * x, [x], grad_outputs=[lib.tensor([3.0, 0.5])])
    np.testing.assert_allclose(values(gx), [6.0, 2.0])


def test_grad_of_several_inputs(lib):
    a, b = leaf(lib, [2.0]), leaf(lib, [5.0])
    ga, gb = lib.autograd.grad((a * b).sum(), [a, b])
    assert values(ga)[0] == 5.0 and values(gb)[0] == 2.0


def test_grad_unused_input_raises_unless_allow_unused(lib):
    a, b = leaf(lib, [1.0]), leaf(lib, [2.0])
    y = (a * 3).sum()
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        lib.autograd.grad(y, [a, b], retain_graph=True)
    ga, gb = lib.autograd.grad(y, [a, b], allow_unused=True)
    assert values(ga)[0] == 3.0 and gb is None


def test_grad_materialize_grads_gives_zeros_for_unused(lib):
    a, b = leaf(lib, [1.0]), leaf(lib, [2.0])
    _, gb = lib.autograd.grad((a * 3).sum(), [a, b], materialize_grads=True)
    np.testing.assert_allclose(values(gb), [0.0])


def test_grad_with_respect_to_a_non_leaf(lib):
    x = leaf(lib, [1.0, 2.0])
    y = x * 3
    (gy,) = lib.autograd.grad((y * y).sum(), y)
    np.testing.assert_allclose(values(gy), [6.0, 12.0])


def test_grad_of_input_not_requiring_grad_raises(lib):
    x = leaf(lib, [1.0])
    with pytest.raises(RuntimeError, match="does not require grad"):
        lib.autograd.grad((x * 2).sum(), lib.tensor([1.0]))


def test_grad_create_graph_gives_second_derivative(lib):
    x = leaf(lib, [2.0, 3.0])
    (g,) = lib.autograd.grad((x ** 3).sum(), x, create_graph=True)
    assert g.requires_grad and g.grad_fn is not None
    (h,) = lib.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(values(h), [12.0, 18.0])  # 6x


def test_third_order_gradient(lib):
    x = leaf(lib, [2.0])
    y = x.sin() * x
    (g1,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    (g2,) = lib.autograd.grad(g1.sum(), x, create_graph=True)
    (g3,) = lib.autograd.grad(g2.sum(), x)
    v = 2.0  # (x sin x)''' = -3 sin x - x cos x
    np.testing.assert_allclose(values(g3), [-3 * np.sin(v) - v * np.cos(v)], rtol=1e-5)


def test_hessian_vector_product_through_broadcast(lib):
    w = leaf(lib, [[1.0, 2.0], [3.0, 4.0]])
    b = leaf(lib, [0.5, -0.5])
    y = ((w * b).tanh() ** 2).sum()
    gw, gb = lib.autograd.grad(y, [w, b], create_graph=True)
    (hb,) = lib.autograd.grad((gw * lib.ones(2, 2)).sum() + gb.sum(), [b])
    assert tuple(hb.shape) == (2,)

    # the same derivative by central differences of the first-order gradients, in float64
    def first_order_sum(b_values):
        w64 = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64, requires_grad=True)
        b64 = lib.tensor(b_values, dtype=lib.float64, requires_grad=True)
        gw64, gb64 = lib.autograd.grad(((w64 * b64).tanh() ** 2).sum(), [w64, b64])
        return float(gw64.sum() + gb64.sum())
    eps = 1e-6
    numerical = [(first_order_sum([0.5 + eps * (i == 0), -0.5 + eps * (i == 1)])
                  - first_order_sum([0.5 - eps * (i == 0), -0.5 - eps * (i == 1)])) / (2 * eps)
                 for i in range(2)]
    np.testing.assert_allclose(values(hb), numerical, rtol=1e-4)


# ------------------------------------------------------------------ hooks
def test_leaf_hook_sees_gradient_and_its_result_replaces_it(lib):
    x = leaf(lib, [1.0, 2.0])
    seen = []
    x.register_hook(lambda g: seen.append(values(g)) or g * 10)
    (x * x).sum().backward()
    np.testing.assert_allclose(seen[0], [2.0, 4.0])
    np.testing.assert_allclose(values(x.grad), [20.0, 40.0])


def test_leaf_hook_applies_to_autograd_grad(lib):
    x = leaf(lib, [1.0, 2.0])
    x.register_hook(lambda g: g * 10)
    (gx,) = lib.autograd.grad((x * x).sum(), x)
    np.testing.assert_allclose(values(gx), [20.0, 40.0])


def test_non_leaf_hook_replaces_gradient_flowing_further(lib):
    x = leaf(lib, [1.0, 2.0])
    y = x * 2
    y.register_hook(lambda g: g + 1)
    y.sum().backward()
    np.testing.assert_allclose(values(x.grad), [4.0, 4.0])


def test_hook_returning_none_keeps_gradient(lib):
    x = leaf(lib, [1.0])
    calls = []
    x.register_hook(lambda g: calls.append(1))
    (x * 3).sum().backward()
    assert calls == [1] and values(x.grad)[0] == 3.0


def test_hooks_run_in_registration_order(lib):
    x = leaf(lib, [1.0])
    y = x * 1
    y.register_hook(lambda g: g + 1)
    y.register_hook(lambda g: g * 10)
    y.sum().backward()
    assert values(x.grad)[0] == 20.0


def test_removed_hook_does_not_run(lib):
    x = leaf(lib, [1.0])
    handle = x.register_hook(lambda g: g * 100)
    handle.remove()
    y = x * 2
    h2 = y.register_hook(lambda g: g * 100)
    h2.remove()
    y.sum().backward()
    assert values(x.grad)[0] == 2.0


def test_retain_grad_sees_gradient_after_hooks_registered_later(lib):
    x = leaf(lib, [1.0, 2.0])
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g * 3)
    y.sum().backward()
    np.testing.assert_allclose(values(y.grad), [3.0, 3.0])
    np.testing.assert_allclose(values(x.grad), [6.0, 6.0])


def test_hook_on_tensor_without_grad_raises(lib):
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        lib.tensor([1.0]).register_hook(lambda g: g)


# ------------------------------------------------------------------ grad modes
def test_no_grad_context_records_nothing(lib):
    x = leaf(lib, [1.0])
    with lib.no_grad():
        y = x * 2
        assert not lib.is_grad_enabled()
    assert lib.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf


def test_no_grad_as_decorator(lib):
    x = leaf(lib, [1.0])

    @lib.no_grad()
    def double(t):
        return t * 2

    assert not double(x).requires_grad
    assert lib.is_grad_enabled()


def test_enable_grad_inside_no_grad(lib):
    x = leaf(lib, [1.0])
    with lib.no_grad():
        with lib.enable_grad():
            y = x * 2
        z = x * 2
    assert y.requires_grad and not z.requires_grad


def test_enable_grad_as_decorator(lib):
    x = leaf(lib, [1.0])

    @lib.enable_grad()
    def double(t):
        return t * 2

    with lib.no_grad():
        assert double(x).requires_grad


def test_set_grad_enabled_as_function_and_context(lib):
    x = leaf(lib, [1.0])
    with lib.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad
    lib.set_grad_enabled(False)
    try:
        assert not lib.is_grad_enabled() and not (x * 2).requires_grad
    finally:
        lib.set_grad_enabled(True)
    assert lib.is_grad_enabled()


def test_set_grad_enabled_as_decorator(lib):
    x = leaf(lib, [1.0])

    @lib.set_grad_enabled(False)
    def double(t):
        return t * 2

    assert not double(x).requires_grad
    assert lib.is_grad_enabled()


def test_grad_mode_restored_after_exception(lib):
    with pytest.raises(ValueError):
        with lib.no_grad():
            raise ValueError
    assert lib.is_grad_enabled()


def test_autograd_namespace_has_grad_modes(lib):
    assert lib.autograd.no_grad is lib.no_grad
    assert lib.autograd.grad_mode.no_grad is lib.no_grad if lib is not gs else True


# ------------------------------------------------------------------ leaves, detach, requires_grad
def test_leaf_and_grad_fn_basics(lib):
    x = leaf(lib, [1.0])
    c = lib.tensor([1.0])
    y = x * 2
    assert x.is_leaf and c.is_leaf and not y.is_leaf
    assert x.grad_fn is None and c.grad_fn is None
    assert y.grad_fn.name() == "MulBackward0"
    (acc, n), (none, m) = y.grad_fn.next_functions
    # torch 2.13 names it "torch::autograd::AccumulateGrad"
    assert type(acc).__name__ == "AccumulateGrad" and acc.name().endswith("AccumulateGrad")
    assert n == 0 and none is None and m == 0
    assert acc.variable is x


def test_grad_fn_names_follow_pytorch(lib):
    x = leaf(lib, [1.0, 2.0])
    names = {
        "AddBackward0": x + 1, "SubBackward0": x - 1, "MulBackward0": x * x, "DivBackward0": x / 2,
        "NegBackward0": -x, "ExpBackward0": x.exp(), "SumBackward0": x.sum(), "TanhBackward0": x.tanh(),
        "PowBackward0": x ** 2, "MeanBackward0": x.mean(),
    }
    for name, t in names.items():
        assert t.grad_fn.name() == name


def test_next_functions_chain_to_accumulate_grad(lib):
    x = leaf(lib, [1.0])
    y = (x * 2 + 1).exp()
    fn = y.grad_fn
    chain = []
    while fn is not None:
        chain.append(fn.name().rpartition("::")[2])
        fn = fn.next_functions[0][0] if fn.next_functions else None
    assert chain == ["ExpBackward0", "AddBackward0", "MulBackward0", "AccumulateGrad"]


def test_ops_on_constants_do_not_require_grad(lib):
    y = lib.tensor([1.0]) * 2
    assert not y.requires_grad and y.grad_fn is None


def test_detach_shares_memory_without_history(lib):
    x = leaf(lib, [1.0, 2.0])
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    with lib.no_grad():
        d[0] = 100.0
    assert values(y)[0] == 100.0


def test_in_place_change_through_detach_is_caught_at_backward(lib):
    x = leaf(lib, [1.0, 2.0])
    w = x * x
    x.detach().add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        w.sum().backward()


def test_detach_in_place_makes_a_leaf(lib):
    x = leaf(lib, [1.0])
    y = x * 2
    y.detach_()
    assert y.is_leaf and not y.requires_grad and y.grad_fn is None


def test_requires_grad_in_place(lib):
    x = lib.tensor([1.0, 2.0])
    assert x.requires_grad_() is x and x.requires_grad
    x.requires_grad_(False)
    assert not x.requires_grad


def test_integer_tensors_cannot_require_grad(lib):
    with pytest.raises(RuntimeError, match="floating point"):
        lib.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="floating point"):
        lib.tensor([1, 2], requires_grad=True)


def test_requires_grad_false_on_non_leaf_raises(lib):
    y = leaf(lib, [1.0]) * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
        y.requires_grad_(False)


def test_integer_results_do_not_require_grad(lib):
    x = leaf(lib, [1.5, 2.5])
    assert not (x > 2).requires_grad
    assert not x.long().requires_grad


# ------------------------------------------------------------------ in place and versions
def test_in_place_on_leaf_requiring_grad_raises(lib):
    x = leaf(lib, [1.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x.add_(1)


def test_in_place_on_leaf_under_no_grad_is_allowed(lib):
    x = leaf(lib, [1.0])
    with lib.no_grad():
        x.add_(1)
    assert values(x)[0] == 2.0 and x.requires_grad and x.is_leaf


def test_in_place_change_of_saved_input_raises_at_backward(lib):
    x = leaf(lib, [1.0, 2.0])
    y = x * 1
    w = y * x
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation.*is at version 1; expected "
                                           "version 0 instead"):
        w.sum().backward()


def test_in_place_change_of_saved_output_raises_at_backward(lib):
    x = leaf(lib, [1.0, 2.0])
    w = x.exp()
    w.add_(1)
    with pytest.raises(RuntimeError, match="which is output 0 of Exp"):
        w.sum().backward()


def test_in_place_change_error_names_the_backward_op():
    x = leaf(gs, [1.0, 2.0])
    y = x * 1
    w = y.sin()
    y.mul_(2)
    with pytest.raises(RuntimeError, match=r"\[torch.FloatTensor \[2\]\], which is output 0 of Mul.*"
                                           r"saved for SinBackward0"):
        w.sum().backward()


def test_in_place_on_unsaved_tensor_backpropagates(lib):
    x = leaf(lib, [1.0, 2.0])
    y = x * 2
    y.add_(1)
    y.mul_(3)
    y.sum().backward()
    np.testing.assert_allclose(values(x.grad), [6.0, 6.0])
    assert y.grad_fn.name() == "MulBackward0"


def test_version_counter_counts_in_place_ops(lib):
    def version(t):
        return t._version if lib is not gs else t._version[0]
    x = lib.tensor([1.0])
    v = version(x)
    x.add_(1)
    x.mul_(2)
    assert version(x) - v == 2
    assert version(x.detach()) == version(x)


# ------------------------------------------------------------------ anomaly mode
def _nan_in_backward(lib):
    x = leaf(lib, [0.0, 1.0])
    return (x.sqrt() * 0).sum()  # SqrtBackward0 computes 0 / (2 * 0)


def test_anomaly_mode_names_the_backward_op_that_made_nan(lib):
    y = _nan_in_backward(lib)
    with lib.autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan values in its 0th output"):
            _nan_in_backward(lib).backward()
    assert not lib.is_anomaly_enabled()
    y.backward()  # without anomaly mode the NaN passes through


def test_set_detect_anomaly_as_function_and_context(lib):
    lib.autograd.set_detect_anomaly(True)
    try:
        assert lib.is_anomaly_enabled()
        with pytest.raises(RuntimeError, match="SqrtBackward0"):
            _nan_in_backward(lib).backward()
    finally:
        lib.autograd.set_detect_anomaly(False)
    assert not lib.is_anomaly_enabled()
    with lib.autograd.set_detect_anomaly(True):
        assert lib.is_anomaly_enabled()
    assert not lib.is_anomaly_enabled()


def test_anomaly_error_names_the_program_line_of_the_forward_op():
    x = leaf(gs, [0.0])
    state.line = 7
    try:
        s = x.sqrt()
    finally:
        state.line = None
    with gs.autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match="SqrtBackward0.*line 7"):
            (s * 0).sum().backward()


def test_anomaly_mode_turned_on_after_forward_still_checks():
    y = _nan_in_backward(gs)
    with gs.autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match="SqrtBackward0"):
            y.backward()


# ------------------------------------------------------------------ depth and memory
@pytest.mark.slow
def test_long_chain_backpropagates_without_recursion():
    x = leaf(gs, [1.0, 2.0])
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    np.testing.assert_allclose(values(x.grad), [1.0, 1.0])


@pytest.mark.slow
def test_deleting_long_chains_does_not_crash():
    script = textwrap.dedent("""
        import gradserve.engine as torch
        x = torch.ones(4, requires_grad=True)
        for backward in (True, False):
            y = x
            for i in range(100_000):
                y = y.sin() if i % 2 else y * 1.0
            if backward:
                y.sum().backward()
            del y
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"


def _chain(n, size):
    x = gs.randn(size, requires_grad=True)
    y = x
    saved = []
    for _ in range(n):
        y = (y * 1.001).tanh()  # MulBackward0 keeps its input, TanhBackward0 its output
        saved.append(weakref.ref(y._data))
    return x, y.sum(), saved


def test_backward_frees_saved_buffers_node_by_node():
    gc.disable()  # freed by reference counting alone: the graph holds no cycles
    try:
        x, loss, saved = _chain(20, 1000)
        loss.backward()
        assert all(ref() is None for ref in saved)
    finally:
        gc.enable()


def test_retain_graph_keeps_saved_buffers():
    x, loss, saved = _chain(20, 1000)
    loss.backward(retain_graph=True)
    assert all(ref() is not None for ref in saved)
    loss.backward()
    assert all(ref() is None for ref in saved)


def test_memory_falls_back_after_backward():
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        x, loss, _ = _chain(50, 100_000)  # about 20 MB of saved intermediates
        held = tracemalloc.get_traced_memory()[0] - base
        loss.backward()
        after = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert held > 15e6
    assert after < 0.1 * held


def test_dropping_the_output_frees_the_graph():
    gc.disable()
    try:
        x, loss, saved = _chain(10, 100)
        node = weakref.ref(loss.grad_fn)
        del loss
        assert node() is None and all(ref() is None for ref in saved)
    finally:
        gc.enable()


def test_zero_dim_gradients_are_tensors_of_arrays():
    x = leaf(gs, 2.0)
    (x * x * 3).backward()
    (x * x * 3).backward()   # accumulates in place
    assert isinstance(x.grad._data, np.ndarray) and x.grad.item() == 24.0 and repr(x.grad) == "tensor(24.)"
    (g,) = gs.autograd.grad(x * x, x)
    assert isinstance(g._data, np.ndarray) and g.item() == 4.0


# ------------------------------------------------------------------ gradcheck
class _WrongSquare(Op):
    __slots__ = ()
    op = "wrong_square"
    saves = (0,)

    def forward(self, x):
        return x * x

    def backward(self, F, g, x):
        return (g * x,)   # the derivative is 2x


class _Square(_WrongSquare):
    __slots__ = ()

    def backward(self, F, g, x):
        return (g * x * 2,)


class _DetachedSquare(_WrongSquare):
    """Right first derivative; its backward hides x from the graph, so the second is wrong."""
    __slots__ = ()

    def backward(self, F, g, x):
        return (g * (x.detach() if isinstance(x, gs.Tensor) else x) * 2,)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_accepts_a_right_gradient_and_catches_a_wrong_one(fast_mode):
    x = gs.tensor([0.5, -1.5, 2.0], dtype=gs.float64, requires_grad=True)
    assert gs.autograd.gradcheck(_Square.apply, (x,), fast_mode=fast_mode)
    with pytest.raises(gs.autograd.GradcheckError, match="Jacobian mismatch"):
        gs.autograd.gradcheck(_WrongSquare.apply, (x,), fast_mode=fast_mode)
    assert gs.autograd.gradcheck(_WrongSquare.apply, (x,), fast_mode=fast_mode, raise_exception=False) is False


def test_gradgradcheck_checks_the_gradient_of_the_gradient():
    x = gs.tensor([0.5, -1.5], dtype=gs.float64, requires_grad=True)
    assert gs.autograd.gradgradcheck(lambda a: (a * a).sin(), (x,))
    assert gs.autograd.gradgradcheck(lambda a: (a * a).sin(), (x,), fast_mode=True)
    assert gs.autograd.gradgradcheck(_Square.apply, (x,))
    with pytest.raises(gs.autograd.GradcheckError):
        gs.autograd.gradgradcheck(_DetachedSquare.apply, (x,))


# ------------------------------------------------------------------ .grad owns its memory
def test_inputs_of_one_add_get_grads_that_do_not_alias():
    x, w = leaf(gs, [1.0, 2.0]), leaf(gs, [3.0, 4.0])
    (x + w).sum().backward()
    assert not np.shares_memory(x.grad.numpy(), w.grad.numpy())
    x.grad.add_(10)
    assert w.grad.tolist() == [1.0, 1.0]


def test_grad_does_not_alias_the_callers_gradient_or_a_hook_result():
    x = leaf(gs, [1.0, 2.0])
    g = gs.tensor([1.0, 1.0])
    x.backward(g)
    assert not np.shares_memory(x.grad.numpy(), g.numpy())
    kept = gs.tensor([5.0, 5.0])
    y = leaf(gs, [1.0, 2.0])
    y.register_hook(lambda grad: kept)
    (y * 2).sum().backward()
    assert not np.shares_memory(y.grad.numpy(), kept.numpy())
    y.grad.add_(1)
    assert kept.tolist() == [5.0, 5.0]


def test_grad_of_a_broadcast_is_writable():
    x = leaf(gs, [[1.0, 2.0]])
    x.sum().backward()
    x.grad.mul_(3)
    assert x.grad.tolist() == [[3.0, 3.0]]


class _Fresh(Op):
    __slots__ = ()
    op = "fresh"
    made = []

    def forward(self, x):
        return x * 1

    def backward(self, F, g):
        out = g * 2
        _Fresh.made.append(weakref.ref(out))   # a weak reference leaves out unshared
        return (out,)


def test_a_gradient_nothing_else_holds_becomes_grad_without_a_copy():
    x = leaf(gs, [1.0, 2.0])
    _Fresh.made.clear()
    _Fresh.apply(x).sum().backward()
    made = _Fresh.made.pop()
    assert x.grad._data is made()
    _Fresh.apply(x).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]
