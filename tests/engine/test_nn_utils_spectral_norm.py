"""torch.nn.utils.spectral_norm (engine/nn/utils/spectral_norm.py): the weight_orig parameter and the u/v
buffers, one power-iteration step per training forward (none in eval), values, gradients and buffers
against PyTorch over several steps, gradcheck of the normalised weight in float64,
remove_spectral_norm and the errors; and F.normalize's out=."""
import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.autograd import gradcheck
from gradserve.engine.nn.utils.spectral_norm import SpectralNorm

try:
    import torch
except ImportError:  # the suite passes without PyTorch
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


@pytest.mark.parametrize("dim, shape", [(0, (3, 2, 2)), (1, (3, 4, 2)), (0, (4, 5))])
def test_normalised_weight_passes_gradcheck(dim, shape):
    rng = np.random.default_rng(2)
    fn = SpectralNorm("weight", 1, dim, 1e-12)
    m = gs.nn.Module()
    w = gs.tensor(rng.standard_normal(shape), requires_grad=True)
    h = shape[dim]
    m.register_buffer("weight_u", gs.nn.functional.normalize(gs.tensor(rng.standard_normal(h)), dim=0))
    m.register_buffer("weight_v", gs.nn.functional.normalize(
        gs.tensor(rng.standard_normal(int(np.prod(shape)) // h)), dim=0))

    def f(weight):
        m.__dict__["weight_orig"] = weight
        return fn.compute_weight(m, do_power_iteration=False)
    assert gradcheck(f, (w,))


@needs_torch
@pytest.mark.parametrize("make, kwargs", [
    (lambda lib: lib.nn.Conv2d(2, 3, 3), {}),
    (lambda lib: lib.nn.Linear(6, 4), {"n_power_iterations": 3, "eps": 1e-6}),
    (lambda lib: lib.nn.ConvTranspose2d(3, 2, 3), {}),          # dim 1 by default
    (lambda lib: lib.nn.Embedding(5, 3), {"dim": 1}),
])
def test_spectral_norm_matches_torch_over_training_steps(make, kwargs):
    rng = np.random.default_rng(3)
    mt = torch.nn.utils.spectral_norm(make(torch).double(), **kwargs)
    mg = gs.nn.utils.spectral_norm(make(gs).double(), **kwargs)
    assert list(mg.state_dict()) == list(mt.state_dict())
    mg.load_state_dict({k: gs.tensor(v.numpy()) for k, v in mt.state_dict().items()})
    if isinstance(mt, torch.nn.Embedding):
        x = rng.integers(0, 5, (4, 2))
    elif isinstance(mt, torch.nn.Linear):
        x = rng.standard_normal((4, 6))
    else:
        x = rng.standard_normal((2, mt.weight_orig.shape[1] if isinstance(mt, torch.nn.Conv2d) else 3, 5, 5))
    opt_t = torch.optim.SGD(mt.parameters(), lr=0.1)
    opt_g = gs.optim.SGD(mg.parameters(), lr=0.1)
    for _ in range(3):
        yt, yg = mt(torch.tensor(x)), mg(gs.tensor(x))
        np.testing.assert_allclose(yg.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
        (yt ** 2).sum().backward()
        (yg ** 2).sum().backward()
        for k, pt in mt.named_parameters():
            np.testing.assert_allclose(dict(mg.named_parameters())[k].grad.numpy(), pt.grad.numpy(),
                                       rtol=1e-9, atol=1e-12)
        opt_t.step(), opt_g.step(), opt_t.zero_grad(), opt_g.zero_grad()
    for k, b in mt.named_buffers():
        np.testing.assert_allclose(dict(mg.named_buffers())[k].numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
    mt.eval(), mg.eval()
    u = mg.weight_u.clone()
    np.testing.assert_allclose(mg(gs.tensor(x)).detach().numpy(), mt(torch.tensor(x)).detach().numpy(),
                               rtol=1e-10, atol=1e-12)
    assert gs.equal(mg.weight_u, u)   # no power iteration in eval


def test_remove_spectral_norm_restores_a_plain_parameter(lib):
    lin = lib.nn.utils.spectral_norm(lib.nn.Linear(4, 3))
    assert [n for n, _ in lin.named_parameters()] == ["bias", "weight_orig"]
    lin(lib.ones(2, 4))
    with lib.no_grad():   # removal keeps the last estimate: no further power step
        expected = lin.weight_orig / lib.dot(lin.weight_u, lin.weight_orig @ lin.weight_v)
    lib.nn.utils.remove_spectral_norm(lin)
    assert list(lin.state_dict()) == ["bias", "weight"] and isinstance(lin.weight, lib.nn.Parameter)
    assert float((lin.weight.detach() - expected).abs().max()) < 1e-6
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in"):
        lib.nn.utils.remove_spectral_norm(lin)


def test_spectral_norm_errors_as_pytorch(lib):
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
        lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)
    lin = lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks on the same parameter weight"):
        lib.nn.utils.spectral_norm(lin)


def test_normalize_writes_into_out(lib):
    x = lib.tensor([3.0, 4.0])
    out = lib.empty(2)
    assert lib.nn.functional.normalize(x, dim=0, out=out) is out and out.tolist() == pytest.approx([0.6, 0.8])
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        lib.nn.functional.normalize(lib.ones(2, requires_grad=True), dim=0, out=lib.empty(2))
