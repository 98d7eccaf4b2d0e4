"""What corpus13's public scripts needed from the engine; each checked against PyTorch where it is installed."""
import warnings

import numpy as np
import pytest

import gradserve.engine as gs
from op_check import torch

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch")
LIBS = [gs] + ([torch] if torch is not None else [])


def _clipped(T, fn_name):
    w = T.tensor([[3.0, -4.0], [1.0, 2.0]], requires_grad=True)
    (w * T.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        total = getattr(T.nn.utils, fn_name)([w], 0.5)
    return total.item(), w.grad.numpy().copy(), [(c.category, str(c.message)) for c in caught]


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_clip_grad_norm_is_the_deprecated_spelling_of_clip_grad_norm_(T):
    # kaushalshetty/Structured-Self-Attention's train(): torch.nn.utils.clip_grad_norm(model.parameters(), 0.5)
    total, grad, caught = _clipped(T, "clip_grad_norm")
    want_total, want_grad, none = _clipped(T, "clip_grad_norm_")
    assert none == []
    assert total == pytest.approx(want_total) and total == pytest.approx(np.sqrt(30.0))
    np.testing.assert_allclose(grad, want_grad, rtol=1e-6)
    assert np.linalg.norm(grad) == pytest.approx(0.5, rel=1e-4)
    assert caught == [(FutureWarning, "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                                      "`torch.nn.utils.clip_grad_norm_`.")]


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
@pytest.mark.parametrize("name", ["memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved"])
def test_cuda_memory_statistics_are_zero_without_a_gpu(T, name):
    # pytorch/tutorials' custom_function_conv_bn_tutorial: torch.cuda.max_memory_allocated(device=None) / 1024**3
    if T is gs and gs.cuda.is_available():
        pytest.skip("a GPU is present")
    if T is not gs and T.cuda.is_available():
        pytest.skip("PyTorch sees a GPU")
    assert getattr(T.cuda, name)() == 0
    assert getattr(T.cuda, name)(device=None) == 0


def test_cuda_memory_statistics_refuse_to_guess_on_a_gpu(monkeypatch):
    import gradserve.engine.cuda as cuda
    monkeypatch.setattr(cuda, "_cuda_available", lambda: True)
    with pytest.raises(RuntimeError, match="max_memory_allocated: the engine does not account GPU memory"):
        cuda.max_memory_allocated()


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
@pytest.mark.parametrize("module, cls", [("adadelta", "Adadelta"), ("adagrad", "Adagrad"), ("adam", "Adam"),
                                         ("adamax", "Adamax"), ("adamw", "AdamW"), ("lbfgs", "LBFGS"),
                                         ("nadam", "NAdam"), ("radam", "RAdam"), ("rmsprop", "RMSprop"),
                                         ("sgd", "SGD")])
def test_each_optimizer_has_its_own_module(T, module, cls):
    # pytorch-gradual-warmup-lr's run.py: from torch.optim.sgd import SGD
    import importlib
    mod = importlib.import_module(f"{T.__name__}.optim.{module}")
    assert getattr(mod, cls) is getattr(T.optim, cls)


def _quiet(fn):
    def run(T, *xs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(T, *xs)
    return run


# PyTorch's deprecated scales-first overloads (pytorch-center-loss: distmat.addmm_(1, -2, x, centers.t()))
LEGACY_SCALES = {
    "addmm_beta_input_alpha": (lambda T, d, a, b: T.addmm(2, d, -3, a, b), [(3, 4), (3, 2), (2, 4)]),
    "addmm_beta_input": (lambda T, d, a, b: T.addmm(0.5, d, a, b), [(3, 4), (3, 2), (2, 4)]),
    "addmm_method_beta_alpha": (lambda T, d, a, b: d.addmm(2, -3, a, b), [(3, 4), (3, 2), (2, 4)]),
    "addmm_method_beta": (lambda T, d, a, b: d.addmm(2, a, b), [(1, 4), (3, 2), (2, 4)]),
    "addmm_inplace_beta_alpha": (lambda T, d, a, b: (d * 1).addmm_(1, -2, a, b), [(3, 4), (3, 2), (2, 4)]),
    "addmv_beta_input_alpha": (lambda T, d, a, b: T.addmv(2, d, 3, a, b), [(3,), (3, 2), (2,)]),
    "addr_method_beta_alpha": (lambda T, d, a, b: d.addr(2, 3, a, b), [(3, 2), (3,), (2,)]),
    "baddbmm_beta_input_alpha": (lambda T, d, a, b: T.baddbmm(1, d, -1, a, b), [(2, 3, 4), (2, 3, 2), (2, 2, 4)]),
    "addbmm_inplace_beta": (lambda T, d, a, b: (d * 1).addbmm_(0.5, a, b), [(3, 4), (2, 3, 2), (2, 2, 4)]),
}


@pytest.mark.parametrize("name", list(LEGACY_SCALES))
def test_legacy_scale_overloads_pass_gradcheck(name):
    from op_check import check_gradients
    fn, shapes = LEGACY_SCALES[name]
    check_gradients(_quiet(fn), shapes)


@needs_torch
@pytest.mark.parametrize("name", list(LEGACY_SCALES))
def test_legacy_scale_overloads_match_torch(name):
    from op_check import compare_with_torch
    fn, shapes = LEGACY_SCALES[name]
    compare_with_torch(_quiet(fn), shapes)


def test_legacy_scale_overload_warns_as_pytorch():
    d, x, c = gs.ones(3, 4), gs.ones(3, 2), gs.ones(4, 2)
    with pytest.warns(UserWarning, match=r"This overload of addmm_ is deprecated:\n\taddmm_\(Number beta, "
                                         r"Number alpha, Tensor mat1, Tensor mat2\)"):
        d.addmm_(1, -2, x, c.t())
    assert d.tolist() == [[-3.0] * 4] * 3
    with pytest.warns(UserWarning, match=r"addmm\(Number beta, Tensor input, Number alpha, Tensor mat1, Tensor mat2\)"):
        gs.addmm(1, d, x, c.t())


@pytest.mark.parametrize("call", [lambda d, x, c: d.addmm(x, c.t(), 3), lambda d, x, c: d.addmm(x, 2, 3, c.t()),
                                  lambda d, x, c: gs.addmm(2, d, 3, x, c.t(), c)])
def test_legacy_scale_overload_refuses_other_combinations(call):
    with pytest.raises(TypeError, match="addmm"):
        call(gs.ones(3, 4), gs.ones(3, 2), gs.ones(4, 2))


# torch.distributions.multinomial.Multinomial (d2l's probability chapter: Multinomial(100, fair_probs).sample())
MULTINOMIAL = [(10, [0.2, 0.3, 0.5], None, [2.0, 3.0, 5.0]),
               (1, [[0.2, 0.8], [0.5, 0.5]], None, [[1.0, 0.0], [0.0, 1.0]]),
               (5, None, [0.0, 1.0, 2.0], [1.0, 1.0, 3.0]),
               (4, [0.0, 0.25, 0.75], None, [0.0, 1.0, 3.0]),
               (3, None, [[0.5, -1.0, 0.0, 2.0]], [[0.0, 0.0, 1.0, 2.0], [3.0, 0.0, 0.0, 0.0]])]


def _multinomial(T, n, probs, logits, dtype):
    p = None if probs is None else T.tensor(probs, dtype=dtype, requires_grad=True)
    lg = None if logits is None else T.tensor(logits, dtype=dtype, requires_grad=True)
    return T.distributions.Multinomial(n, probs=p, logits=lg), (p if p is not None else lg)


@needs_torch
@pytest.mark.parametrize("case", range(len(MULTINOMIAL)))
def test_multinomial_matches_torch(case):
    n, probs, logits, value = MULTINOMIAL[case]
    got = {}
    for T in (gs, torch):
        m, param = _multinomial(T, n, probs, logits, T.float64)
        lp = m.log_prob(T.tensor(value, dtype=T.float64))
        ent = m.entropy()
        (lp.sum() + ent.sum()).backward()
        got[T.__name__] = [x.detach().numpy() for x in (lp, ent, m.mean, m.variance, m.probs, m.logits, param.grad)]
        got[T.__name__].append((tuple(m.batch_shape), tuple(m.event_shape), repr(m)))
    for a, b in zip(got["gradserve.engine"][:-1], got["torch"][:-1]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    assert got["gradserve.engine"][-1] == got["torch"][-1]


def test_multinomial_log_prob_and_entropy_pass_gradcheck():
    from gradserve.engine.autograd import gradcheck
    value = gs.tensor([1.0, 0.0, 2.0, 1.0], dtype=gs.float64)
    logits = gs.tensor([0.3, -1.0, 0.5, 0.1], dtype=gs.float64, requires_grad=True)
    assert gradcheck(lambda lg: gs.distributions.Multinomial(4, logits=lg).log_prob(value), (logits,))
    assert gradcheck(lambda lg: gs.distributions.Multinomial(4, logits=lg).entropy(), (logits,))


def test_multinomial_samples_are_counts():
    gs.manual_seed(0)
    m = gs.distributions.Multinomial(100, gs.tensor([[0.5, 0.5], [0.1, 0.9]]))
    s = m.sample((500,))
    assert tuple(s.shape) == (500, 2, 2) and s.dtype == gs.float32
    assert bool((s.sum(-1) == 100).all()) and bool((s >= 0).all())
    np.testing.assert_allclose(s.mean(0).numpy(), m.mean.numpy(), atol=1.5)
    assert tuple(gs.distributions.Multinomial(1, gs.tensor([0.5, 0.5])).sample((7,)).shape) == (7, 2)


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_multinomial_errors_as_pytorch(T):
    with pytest.raises(NotImplementedError, match="inhomogeneous total_count is not supported"):
        T.distributions.Multinomial(2.5, T.tensor([0.5, 0.5]))
    m = T.distributions.Multinomial(probs=T.tensor([[0.2, 0.8], [0.5, 0.5]]), validate_args=True)
    with pytest.raises(ValueError, match=r"within the support \(Multinomial\(\)\) of the distribution Multinomial\(\)"):
        m.log_prob(T.tensor([[2.0, 0.0], [0.0, 1.0]]))
