"""torch.nn.utils.weight_norm (engine/nn/utils/weight_norm.py): the g/v parameters, the weight
recomputed before each forward, values and gradients against PyTorch, gradcheck of the
reparameterisation in float64, remove_weight_norm and the errors."""
import warnings

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.autograd import gradcheck, gradgradcheck
from gradserve.engine.nn.utils.weight_norm import _weight_norm, norm_except_dim

try:
    import torch
except ImportError:  # the suite passes without PyTorch
    torch = None


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return fn(*args, **kwargs)


@pytest.mark.parametrize("dim, shape", [(0, (4, 3, 2)), (1, (4, 3, 2)), (2, (4, 3, 2)), (-1, (4, 3)), (0, (5,))])
def test_weight_norm_reparameterisation_passes_gradcheck(dim, shape):
    rng = np.random.default_rng(1)
    v = gs.tensor(rng.standard_normal(shape), requires_grad=True)
    g = gs.tensor(np.abs(norm_except_dim(v, 2, dim).detach().numpy()) + rng.random(), requires_grad=True)
    assert gradcheck(lambda v, g: _weight_norm(v, g, dim), (v, g))
    assert gradgradcheck(lambda v, g: _weight_norm(v, g, dim), (v, g))


@pytest.mark.parametrize("make, dim", [
    (lambda lib: lib.nn.Conv1d(2, 3, 3, padding=2, dilation=2), 0),
    (lambda lib: lib.nn.Linear(4, 3), 0),
    (lambda lib: lib.nn.Linear(4, 3), 1),
    (lambda lib: lib.nn.Linear(4, 3), None),
])
def test_weight_norm_matches_torch_values_and_gradients(make, dim):
    if torch is None:
        pytest.skip("compares with PyTorch")
    rng = np.random.default_rng(0)
    mods = []
    for lib in (gs, torch):
        m = make(lib)
        with lib.no_grad():
            for name, p in m.named_parameters():
                p.copy_(lib.tensor(np.random.default_rng(len(name)).standard_normal(tuple(p.shape)), dtype=p.dtype))
        mods.append(_quiet(lib.nn.utils.weight_norm, m, dim=dim))
    ours, theirs = mods
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for k, v in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[k].numpy(), v.numpy(), rtol=1e-6, atol=1e-7, err_msg=k)
    shape = (2, 2, 7) if isinstance(ours, gs.nn.Conv1d) else (5, 4)
    x = rng.standard_normal(shape).astype(np.float32)
    for step in range(2):   # the weight follows g and v after an optimiser step
        outs = []
        for lib, m in ((gs, ours), (torch, theirs)):
            y = m(lib.tensor(x))
            (y ** 2).sum().backward()
            outs.append(y)
        np.testing.assert_allclose(outs[0].detach().numpy(), outs[1].detach().numpy(), rtol=1e-5, atol=1e-6)
        for (n1, p1), (n2, p2) in zip(ours.named_parameters(), theirs.named_parameters()):
            assert n1 == n2
            np.testing.assert_allclose(p1.grad.numpy(), p2.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=n1)
        for lib, m in ((gs, ours), (torch, theirs)):
            with lib.no_grad():
                for p in m.parameters():
                    p -= 0.1 * p.grad
                    p.grad = None


def test_weight_norm_parameters_and_remove(lib):
    m = _quiet(lib.nn.utils.weight_norm, lib.nn.Linear(3, 2))
    names = [n for n, _ in m.named_parameters()]
    assert names == ["bias", "weight_g", "weight_v"]
    assert tuple(m.weight_g.shape) == (2, 1) and tuple(m.weight_v.shape) == (2, 3)
    assert not isinstance(m.weight, lib.nn.Parameter) and m.weight.requires_grad
    w = m.weight.detach().clone()
    lib.nn.utils.remove_weight_norm(m)
    assert isinstance(m.weight, lib.nn.Parameter) and sorted(n for n, _ in m.named_parameters()) == ["bias", "weight"]
    np.testing.assert_allclose(m.weight.detach().numpy(), w.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        lib.nn.utils.remove_weight_norm(m)
    m2 = _quiet(lib.nn.utils.weight_norm, lib.nn.Linear(3, 2))
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
        _quiet(lib.nn.utils.weight_norm, m2)


def test_weight_norm_warns_as_pytorch_deprecates_it(lib):
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        lib.nn.utils.weight_norm(lib.nn.Linear(2, 2))
