"""What corpus10's public scripts needed from the engine: masked_scatter(_), where with a uint8 condition,
contiguous einsum contractions, nn.init's deprecated spellings, set_default_tensor_type, the memory formats,
autograd.grad over a generator of tensors, Conv's _conv_forward(input, weight, bias), torch.distributed for
one process, and module backward hooks; each checked against PyTorch where it is installed."""
import warnings

import numpy as np
import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch")
LIBS = [gs] + ([torch] if torch is not None else [])

_MASK = np.array([[True, False, True, False], [False, True, True, False], [True, False, False, True]])

CASES = {
    "masked_scatter": (lambda T, x, s: x.masked_scatter(T.tensor(_MASK), s), [(3, 4), (12,)]),
    "masked_scatter_broadcast_mask": (lambda T, x, s: T.masked_scatter(x, T.tensor(_MASK[:1]), s), [(3, 4), (2, 5)]),
    "masked_scatter_broadcast_input": (lambda T, x, s: x.masked_scatter(T.tensor(_MASK), s), [(4,), (3, 4)]),
    "masked_scatter_inplace": (lambda T, x, s: (x * 1).masked_scatter_(T.tensor(_MASK), s * 2), [(3, 4), (6, 2)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_masked_scatter_passes_gradcheck_and_gradgradcheck(name):
    check_gradients(*CASES[name])


@needs_torch
@pytest.mark.parametrize("name", list(CASES))
def test_masked_scatter_matches_torch(name):
    compare_with_torch(*CASES[name])


def _error(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            return type(e).__name__, str(e)
    return None


@needs_torch
def test_masked_scatter_errors_match_torch():
    for call in (lambda T: T.zeros(2, 3).masked_scatter(T.tensor(_MASK[:2, :3]), T.ones(2)),
                 lambda T: T.zeros(2, 3).masked_scatter(T.ones(2, 3), T.ones(6)),
                 lambda T: T.zeros(2, 3).masked_scatter(T.ones(2, 3, dtype=T.uint8), T.ones(6)),
                 lambda T: T.zeros(2, 3).masked_scatter(T.tensor(_MASK[:2, :3]), T.ones(6, dtype=T.int64))):
        assert _error(lambda: call(gs)) == _error(lambda: call(torch))


@pytest.mark.parametrize("T", LIBS)
def test_where_takes_a_uint8_condition_with_pytorchs_warning(T):
    with pytest.warns(UserWarning, match="where received a uint8 condition tensor"):
        out = T.where(T.tensor([1, 0, 2], dtype=T.uint8), T.ones(3), T.zeros(3))
    assert out.tolist() == [1.0, 0.0, 1.0]
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor"):
        T.where(T.ones(3), T.ones(3), T.zeros(3))


@pytest.mark.parametrize("T", LIBS)
def test_einsum_contractions_come_back_contiguous(T):
    out = T.einsum("bis, bjs -> bij", T.randn(4, 8, 2), T.randn(4, 15, 2))
    assert out.is_contiguous() and out.stride() == (120, 15, 1)
    assert out.view(4, -1).shape == (4, 120)   # former's slice_diag views it


@pytest.mark.parametrize("T", LIBS)
def test_nn_init_deprecated_spellings_warn_and_fill(T):
    w = T.empty(3, 4)
    with pytest.warns(FutureWarning, match="`nn.init.xavier_uniform` is now deprecated in favor of "
                                           "`nn.init.xavier_uniform_`"):
        assert T.nn.init.xavier_uniform(w, 1.0) is w
    assert float(w.abs().max()) <= (6 / 7) ** 0.5
    for name, args in (("constant", (0.5,)), ("uniform", ()), ("normal", ()), ("eye", ()), ("orthogonal", ()),
                       ("kaiming_uniform", ()), ("kaiming_normal", ()), ("xavier_normal", ())):
        with pytest.warns(FutureWarning, match=f"`nn.init.{name}` is now deprecated"):
            getattr(T.nn.init, name)(T.empty(3, 3), *args)
    assert T.nn.init.constant.__name__ == "constant"


@pytest.mark.parametrize("T", LIBS)
def test_set_default_tensor_type(T):
    try:
        with pytest.warns(UserWarning, match=r"set_default_tensor_type\(\) is deprecated as of PyTorch 2.1"):
            T.set_default_tensor_type("torch.DoubleTensor")
        assert T.get_default_dtype() == T.float64 and T.ones(1).dtype == T.float64
        with warnings.catch_warnings():   # PyTorch warns once a process
            warnings.simplefilter("ignore")
            T.set_default_tensor_type(T.FloatTensor)
        assert T.get_default_dtype() == T.float32
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(TypeError, match="^only floating-point types are supported as the default type$"):
                T.set_default_tensor_type(T.LongTensor)
            with pytest.raises(TypeError, match="^invalid type object: only floating-point types"):
                T.set_default_tensor_type(3)
            with pytest.raises(ModuleNotFoundError, match="No module named 'foo'"):
                T.set_default_tensor_type("foo")
    finally:
        T.set_default_dtype(T.float32)


@pytest.mark.parametrize("T", LIBS)
def test_memory_formats_are_named_and_accepted(T):
    assert repr(T.preserve_format) == "torch.preserve_format"
    assert repr(T.contiguous_format) == "torch.contiguous_format" and repr(T.channels_last) == "torch.channels_last"
    assert isinstance(T.preserve_format, T.memory_format)
    assert T.zeros_like(T.ones(2), memory_format=T.preserve_format).tolist() == [0.0, 0.0]
    assert T.ones(2).clone(memory_format=T.preserve_format).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("T", LIBS)
def test_autograd_grad_takes_a_generator_or_parameter_list(T):
    lin = T.nn.Linear(2, 1)
    loss = lin(T.ones(2)).sum()
    gw, gb = T.autograd.grad(loss, lin.parameters(), retain_graph=True)
    assert gw.tolist() == [[1.0, 1.0]] and gb.tolist() == [1.0]
    (gw2,) = T.autograd.grad(loss, T.nn.ParameterList([lin.weight]), retain_graph=True)
    assert gw2.tolist() == [[1.0, 1.0]]
    with pytest.raises(RuntimeError, match="all inputs have to be Tensors or GradientEdges, but got int"):
        T.autograd.grad(loss, [lin.weight, 3])


@pytest.mark.parametrize("T", LIBS)
def test_conv_forward_takes_pytorchs_arguments(T):
    conv = T.nn.Conv2d(2, 3, 3, padding=1)
    x = T.ones(1, 2, 4, 4)
    out = conv._conv_forward(x, conv.weight * 2, conv.bias)   # LoRA's ConvLoRA
    assert T.allclose(out, T.nn.functional.conv2d(x, conv.weight * 2, conv.bias, padding=1))
    conv1 = T.nn.Conv1d(2, 3, 3, padding=1, padding_mode="circular")
    x1 = T.arange(8.0).reshape(1, 2, 4)
    assert T.allclose(conv1._conv_forward(x1, conv1.weight, None) + conv1.bias[:, None], conv1(x1))


@pytest.mark.parametrize("T", LIBS)
def test_distributed_as_one_process_sees_it(T):
    dist = T.distributed
    assert dist.is_available() is True and dist.is_initialized() is False
    assert repr(dist.ReduceOp.SUM) == "<RedOpType.SUM: 0>" and dist.ReduceOp.MAX.name == "MAX"
    for call in (dist.get_rank, dist.get_world_size, lambda: dist.all_reduce(T.ones(1)), dist.barrier):
        with pytest.raises(ValueError, match=r"^Default process group has not been initialized, please make sure to "
                                             r"call init_process_group\.$"):
            call()


def _hooked_run(T, x_requires_grad, method="register_full_backward_hook"):
    m = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 2))
    with T.no_grad():
        for p in m.parameters():
            p.copy_(T.arange(p.numel(), dtype=T.float32).reshape(p.shape).sin())
    log = []

    def hook(mod, grad_input, grad_output):
        log.append((type(mod).__name__, [None if g is None else g.tolist() for g in grad_input],
                    [g.tolist() for g in grad_output]))
        if isinstance(mod, T.nn.ReLU):
            return (T.nn.functional.relu(grad_input[0]) * 2,)

    handles = [getattr(mm, method)(hook) for mm in m.modules()]
    x = T.tensor([[1.0, -2.0, 3.0], [0.5, 0.1, -1.0]], requires_grad=x_requires_grad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m(x).sum().backward()
    grads = [p.grad.tolist() for p in m.parameters()]
    for h in handles:
        h.remove()
    m.zero_grad()
    m(x).sum().backward()
    return log, grads, (x.grad.tolist() if x_requires_grad else None), [p.grad.tolist() for p in m.parameters()]


@needs_torch
@pytest.mark.parametrize("x_requires_grad", [True, False])
def test_module_full_backward_hooks_match_torch(x_requires_grad):
    got, want = _hooked_run(gs, x_requires_grad), _hooked_run(torch, x_requires_grad)
    assert [e[0] for e in got[0]] == [e[0] for e in want[0]]   # the order the hooks run in
    for (_, gi, go), (_, wi, wo) in zip(got[0], want[0]):
        assert [g is None for g in gi] == [w is None for w in wi]
        np.testing.assert_allclose(np.array(go[0]), np.array(wo[0]), rtol=1e-6)
        if gi[0] is not None:
            np.testing.assert_allclose(np.array(gi[0]), np.array(wi[0]), rtol=1e-6)
    for g, w in zip(got[1] + got[3], want[1] + want[3]):   # the ReLU hook's doubled gradient, then none
        np.testing.assert_allclose(np.array(g), np.array(w), rtol=1e-6)


@needs_torch
def test_module_backward_hook_on_single_operation_modules_matches_torch():
    got, want = _hooked_run(gs, True, "register_backward_hook"), _hooked_run(torch, True, "register_backward_hook")
    relu_got = [e for e in got[0] if e[0] == "ReLU"]
    relu_want = [e for e in want[0] if e[0] == "ReLU"]
    np.testing.assert_allclose(np.array(relu_got[0][1][0]), np.array(relu_want[0][1][0]), rtol=1e-6)
    for g, w in zip(got[1], want[1]):
        np.testing.assert_allclose(np.array(g), np.array(w), rtol=1e-6)


def test_full_backward_hook_warns_when_no_input_requires_grad():
    lin = gs.nn.Linear(2, 1)
    seen = []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go[0].shape)))
    with pytest.warns(UserWarning, match="Full backward hook is firing when gradients are computed with respect to "
                                         "module outputs since no inputs require gradients"):
        lin(gs.ones(3, 2)).sum().backward()
    assert seen == [((None,), (3, 1))]
