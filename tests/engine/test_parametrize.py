"""torch.nn.utils.parametrize and .parametrizations (weight_norm, spectral_norm): a parametrized
tensor read, trained, assigned, cached and removed; their errors; gradients by finite differences;
everything against PyTorch's; and the same from a program."""
import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.nn.utils import parametrize as P
from gradserve.engine.nn.utils.parametrizations import spectral_norm, weight_norm
from gradserve.engine.program import Limits, Namespace, run

try:
    import torch
except ImportError:  # the oracle test is skipped without PyTorch
    torch = None


def _symmetric(T):
    class Symmetric(T.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()
    return Symmetric()


def test_a_parametrized_weight_is_computed_from_its_original_and_trained_through_it():
    lin = gs.nn.Linear(3, 3).double()
    before = lin.weight.detach().clone()
    P.register_parametrization(lin, "weight", _symmetric(gs))
    original = lin.parametrizations.weight.original
    np.testing.assert_array_equal(original.detach().numpy(), np.triu(before.numpy()))   # right_inverse
    w = lin.weight
    np.testing.assert_array_equal(w.detach().numpy(), w.detach().numpy().T)
    assert P.is_parametrized(lin) and P.is_parametrized(lin, "weight") and not P.is_parametrized(lin, "bias")
    assert sorted(n for n, _ in lin.named_parameters()) == ["bias", "parametrizations.weight.original"]
    assert list(lin.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert repr(lin).startswith("ParametrizedLinear(")
    opt = gs.optim.SGD(lin.parameters(), lr=0.5)
    lin(gs.ones(2, 3, dtype=gs.float64)).sum().backward()
    assert original.grad is not None and lin.weight.grad_fn is not None
    opt.step()
    w = lin.weight.detach().numpy()
    np.testing.assert_array_equal(w, w.T)   # still symmetric after the update of its original
    assert not np.allclose(w, before.numpy())


def test_assignment_cache_and_removal():
    lin = gs.nn.Linear(2, 2).double()
    P.register_parametrization(lin, "weight", _symmetric(gs))
    original = lin.parametrizations.weight.original
    with gs.no_grad():
        lin.weight = gs.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=gs.float64)
    assert lin.parametrizations.weight.original is original   # the same parameter, its value replaced
    assert original.tolist() == [[1.0, 2.0], [0.0, 4.0]]
    assert lin.weight.tolist() == [[1.0, 2.0], [2.0, 4.0]]
    assert lin.weight is not lin.weight
    with P.cached():
        assert lin.weight is lin.weight
    P.register_parametrization(lin, "weight", gs.nn.Identity())   # a second parametrization on the same tensor
    assert len(lin.parametrizations.weight) == 2
    P.remove_parametrizations(lin, "weight")
    assert isinstance(lin.weight, gs.nn.Parameter) and lin.weight.tolist() == [[1.0, 2.0], [2.0, 4.0]]
    assert not P.is_parametrized(lin) and "parametrizations" not in lin._modules
    assert repr(lin).startswith("Linear(")


def test_errors():
    lin = gs.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element with name 'w'"):
        P.register_parametrization(lin, "w", gs.nn.Identity())

    class Shrink(gs.nn.Module):
        def forward(self, X):
            return X[0]
    with pytest.raises(ValueError, match="may not change the shape of the tensor"):
        P.register_parametrization(lin, "weight", Shrink())
    assert "weight" in lin._parameters   # nothing changed

    class Twice(gs.nn.Module):
        def forward(self, X):
            return 2 * X
    P.register_parametrization(lin, "weight", Twice())
    with pytest.raises(RuntimeError, match="parametrization Twice does not implement right_inverse"):
        lin.weight = gs.nn.Parameter(gs.zeros(2, 2))
    with pytest.raises(ValueError, match="does not have a parametrization on bias"):
        P.remove_parametrizations(lin, "bias")
    wn = weight_norm(gs.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        P.remove_parametrizations(wn, "weight", leave_parametrized=False)
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'kernel'"):
        spectral_norm(gs.nn.Linear(2, 2), name="kernel")


def test_weight_norm_gradients_by_finite_differences():
    wn = weight_norm(gs.nn.Linear(3, 2).double(), dim=0)
    plist = wn.parametrizations.weight
    g0, v0 = plist.original0.detach().clone(), plist.original1.detach().clone()
    x = gs.randn(4, 3, dtype=gs.float64)
    g = g0.clone().requires_grad_()
    v = v0.clone().requires_grad_()

    def rebuilt(g, v):
        return wn.parametrizations.weight[0](g, v) @ x.T
    assert gs.autograd.gradcheck(rebuilt, (g, v))
    assert gs.autograd.gradgradcheck(rebuilt, (g, v))
    np.testing.assert_allclose(wn.weight.detach().numpy(),
                               v0.numpy() * g0.numpy() / np.linalg.norm(v0.numpy(), axis=1, keepdims=True))
    assert tuple(weight_norm(gs.nn.Conv1d(2, 3, 3), dim=2).parametrizations.weight.original0.shape) == (1, 1, 3)


def test_spectral_norm_divides_by_the_largest_singular_value():
    gs.manual_seed(0)
    sn = spectral_norm(gs.nn.Linear(6, 4).double())
    sn.eval()
    assert abs(np.linalg.svd(sn.weight.detach().numpy(), compute_uv=False)[0] - 1) < 1e-3
    layer = sn.parametrizations.weight[0]
    w = sn.parametrizations.weight.original.detach().numpy()
    sigma = layer._u.numpy() @ w @ layer._v.numpy()   # the estimate the weight is divided by
    np.testing.assert_allclose(sn.weight.detach().numpy(), w / sigma)
    u = sn.parametrizations.weight[0]._u.clone()
    sn.train()
    sn(gs.ones(1, 6, dtype=gs.float64))   # a power iteration in training
    assert sorted(sn.state_dict()) == ["bias", "parametrizations.weight.0._u", "parametrizations.weight.0._v",
                                       "parametrizations.weight.original"]
    assert sn.parametrizations.weight[0]._u.shape == u.shape
    one_d = spectral_norm(gs.nn.BatchNorm1d(3).double())   # a vector: normalised
    assert abs(float(one_d.weight.norm()) - 1) < 1e-9

    def normalised(w):
        return sn.parametrizations.weight[0](w)
    sn.eval()
    assert gs.autograd.gradcheck(normalised, (sn.parametrizations.weight.original.detach().clone().requires_grad_(),))


def _oracle(T):
    rng = np.random.default_rng(0)

    def t(*shape):
        return T.tensor(rng.standard_normal(shape))
    out = {}
    lin = T.nn.Linear(3, 3).double()
    with T.no_grad():
        lin.weight.copy_(t(3, 3))
        lin.bias.copy_(t(3))
    T.nn.utils.parametrize.register_parametrization(lin, "weight", _symmetric(T))
    x = t(4, 3)
    lin(x).pow(2).sum().backward()
    out["symmetric"] = lin.weight.detach().numpy().copy()
    out["original"] = lin.parametrizations.weight.original.detach().numpy().copy()
    out["original_grad"] = lin.parametrizations.weight.original.grad.numpy().copy()
    wn = T.nn.utils.parametrizations.weight_norm(T.nn.Linear(3, 2).double(), dim=0)
    with T.no_grad():
        wn.parametrizations.weight.original0.copy_(t(2, 1))
        wn.parametrizations.weight.original1.copy_(t(2, 3))
    wn(x).sum().backward()
    out["wn_weight"] = wn.weight.detach().numpy().copy()
    out["wn_g_grad"] = wn.parametrizations.weight.original0.grad.numpy().copy()
    out["wn_v_grad"] = wn.parametrizations.weight.original1.grad.numpy().copy()
    # spectral_norm's vectors start random (each library's own generator): only its layout is compared
    sn = T.nn.utils.parametrizations.spectral_norm(T.nn.Conv2d(2, 3, 3).double())
    with T.no_grad():
        lin.weight = t(3, 3)
    P_ = T.nn.utils.parametrize
    P_.remove_parametrizations(lin, "weight")
    out["removed"] = lin.weight.detach().numpy().copy()
    out["keys"] = sorted(wn.state_dict()) + sorted(sn.state_dict()) + sorted(lin.state_dict())
    return out


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_matches_torch():
    ours, theirs = _oracle(gs), _oracle(torch)
    for key, value in ours.items():
        if key == "keys":
            assert value == theirs[key]
        else:
            np.testing.assert_allclose(value, theirs[key], rtol=1e-10, err_msg=key)


def test_from_a_program():
    outcome = run("""
import torch, torch.nn as nn
import torch.nn.utils.parametrize as P
from torch.nn.utils.parametrizations import weight_norm, spectral_norm
class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)
    def right_inverse(self, A):
        return A.triu()
layer = nn.Linear(3, 3)
P.register_parametrization(layer, "weight", Symmetric())
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
layer(torch.randn(2, 3)).sum().backward()
opt.step()
print(torch.allclose(layer.weight, layer.weight.T), list(layer.state_dict()))
conv = weight_norm(nn.Conv1d(2, 4, 3))
print(tuple(conv.parametrizations.weight.original0.shape), tuple(conv(torch.randn(1, 2, 5)).shape))
d = nn.utils.parametrizations.spectral_norm(nn.Linear(5, 4))
print(round(float(torch.linalg.svdvals(d.weight)[0]), 2))
with P.cached():
    print(layer.weight is layer.weight)
P.remove_parametrizations(layer, "weight")
print(type(layer.weight).__name__, P.is_parametrized(layer))
""", Namespace(), Limits())
    assert outcome.ok, outcome.error
    assert outcome.stdout == ("True ['bias', 'parametrizations.weight.original']\n(4, 1, 1) (1, 4, 3)\n1.0\nTrue\n"
                              "Parameter False\n")


def test_transfer_gives_another_module_the_parametrization_and_its_original():
    a, b = gs.nn.Linear(2, 2).double(), gs.nn.Linear(2, 2).double()
    with gs.no_grad():
        a.weight.copy_(gs.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=gs.float64))

    class Twice(gs.nn.Module):
        def forward(self, X):
            return 2 * X

        def right_inverse(self, X):
            return X / 2
    P.register_parametrization(a, "weight", Twice())
    P.transfer_parametrizations_and_params(a, b)
    assert b.weight.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert b.parametrizations.weight.original.tolist() == [[0.5, 1.0], [1.5, 2.0]]
    assert b.parametrizations.weight.original is not a.parametrizations.weight.original
    assert sorted(b.state_dict()) == ["bias", "parametrizations.weight.original"]
