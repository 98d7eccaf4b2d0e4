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
