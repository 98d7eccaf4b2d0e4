"""torch.func (engine/func.py): grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap,
functional_call and stack_module_state against PyTorch's torch.func, nesting, the transforms'
errors, and PyTorch tutorials' uses (per-sample gradients, model ensembles) run as programs."""
import warnings

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.program import Namespace, run
from op_check import torch

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch")


def _np(x):
    return x.detach().numpy()


def _x(T):
    return T.tensor([0.3, -1.2, 2.0], dtype=T.float64)


def _f(T):
    return lambda x, y: (x.sin() * y).sum() + (x * x).sum() * y.sum()


@needs_torch
@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_grad_matches_pytorch(argnums):
    got, want = (T.func.grad(_f(T), argnums=argnums)(_x(T), _x(T) + 1) for T in (gs, torch))
    for a, b in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12)
    assert not (got[0] if isinstance(got, tuple) else got).requires_grad


@needs_torch
def test_grad_and_value_with_aux_and_a_dict_of_parameters():
    def make(T):
        def loss(params, x):
            out = x @ params["w"] + params["b"]
            return out.pow(2).mean(), out
        return loss, {"w": T.ones(3, 2, dtype=T.float64), "b": T.zeros(2, dtype=T.float64)}
    res = {}
    for T in (gs, torch):
        loss, params = make(T)
        res[T] = T.func.grad_and_value(loss, has_aux=True)(params, _x(T).reshape(1, 3))
    (gg, (gv, ga)), (tg, (tv, ta)) = res[gs], res[torch]
    for k in ("w", "b"):
        np.testing.assert_allclose(_np(gg[k]), _np(tg[k]), rtol=1e-12)
    np.testing.assert_allclose(_np(gv), _np(tv))
    np.testing.assert_allclose(_np(ga), _np(ta))


@needs_torch
def test_transforms_nest_as_pytorchs():
    def f(T):
        return lambda x: (x ** 3).sin()
    for T in (gs, torch):
        x = T.tensor(0.7, dtype=T.float64)
        second = T.func.grad(T.func.grad(f(T)))(x)
        if T is gs:
            got = float(second)
        else:
            assert abs(float(second) - got) < 1e-12
    got_h, want_h = (T.func.hessian(lambda x: (x.sin() * x.sum()).sum())(_x(T)) for T in (gs, torch))
    np.testing.assert_allclose(_np(got_h), _np(want_h), rtol=1e-12)
    got_j, want_j = (T.func.jacrev(T.func.grad(lambda x: (x.exp() * x).sum()))(_x(T)) for T in (gs, torch))
    np.testing.assert_allclose(_np(got_j), _np(want_j), rtol=1e-12)


@needs_torch
def test_an_outer_loss_differentiates_through_grad_as_maml_does():
    res = {}
    for T in (gs, torch):
        w = T.tensor([0.5, -0.3], dtype=T.float64, requires_grad=True)
        x, y = T.tensor([[1.0, 2.0], [0.5, -1.0]], dtype=T.float64), T.tensor([1.0, 0.0], dtype=T.float64)
        inner = T.func.grad(lambda p: ((x @ p - y) ** 2).mean())(w)
        adapted = w - 0.1 * inner
        ((x @ adapted - y) ** 2).mean().backward()
        res[T] = _np(w.grad)
    np.testing.assert_allclose(res[gs], res[torch], rtol=1e-12)


@needs_torch
@pytest.mark.parametrize("which", ["jacrev", "jacfwd"])
def test_jacobians_match_pytorch(which):
    def f(x, y):
        return x.sin() * y, (x * y).sum()
    got, want = (getattr(T.func, which)(f, argnums=(0, 1))(_x(T), _x(T) + 2) for T in (gs, torch))
    for ga, ta in zip(got, want):
        for a, b in zip(ga, ta):
            np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12)
    got1, want1 = (getattr(T.func, which)(lambda x: x.exp() * x.sum())(_x(T)) for T in (gs, torch))
    np.testing.assert_allclose(_np(got1), _np(want1), rtol=1e-12)


@needs_torch
def test_vjp_and_jvp_match_pytorch():
    res = {}
    for T in (gs, torch):
        out, fn = T.func.vjp(lambda x: x.sin() * x, _x(T))
        (ct,) = fn(T.ones(3, dtype=T.float64) * 2)
        o2, tangent = T.func.jvp(lambda x: x.exp() * x, (_x(T),), (T.ones(3, dtype=T.float64),))
        res[T] = [_np(out), _np(ct), _np(o2), _np(tangent)]
    for a, b in zip(res[gs], res[torch]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@needs_torch
def test_vmap_matches_pytorch():
    def cases(T):
        a = T.arange(12.0, dtype=T.float64).reshape(3, 4)
        b = T.arange(4.0, dtype=T.float64)
        return [
            T.vmap(lambda r: r.sum() * r)(a),
            T.vmap(lambda r, v: r.dot(v), in_dims=(0, None))(a, b),
            T.func.vmap(lambda c: c * 2, in_dims=1, out_dims=1)(a),
            *T.vmap(lambda r: (r.max(), r.min()))(a),
            T.vmap(T.vmap(lambda s: s * s))(a),
            T.vmap(lambda r: r * 2)(T.ones(0, 3)),
            T.vmap(lambda r: r.sum(), in_dims=1, out_dims=0)(T.ones(2, 0)),
        ]
    for g, t in zip(cases(gs), cases(torch)):
        assert tuple(g.shape) == tuple(t.shape)
        np.testing.assert_allclose(_np(g), _np(t))


@needs_torch
def test_per_sample_gradients_as_the_tutorial_computes_them():
    """PyTorch's per-sample-gradients tutorial: vmap(grad(loss of functional_call)) over the batch."""
    res = {}
    for T in (gs, torch):
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Linear(4, 3), T.nn.Tanh(), T.nn.Linear(3, 2))
        with T.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(T.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1) / 4)
        params = {k: v.detach() for k, v in model.named_parameters()}
        data = T.linspace(-2, 2, 20).reshape(5, 4)
        targets = T.tensor([0, 1, 1, 0, 1])

        def loss(params, x, t):
            out = T.func.functional_call(model, params, (x.unsqueeze(0),))
            return T.nn.functional.cross_entropy(out, t.unsqueeze(0))
        per_sample = T.func.vmap(T.func.grad(loss), in_dims=(None, 0, 0))(params, data, targets)
        res[T] = {k: _np(v) for k, v in per_sample.items()}
        assert all(v.grad is None for v in model.parameters())   # the module's own were not touched
    for k in res[torch]:
        assert res[gs][k].shape == res[torch][k].shape == (5,) + res[torch][k].shape[1:]
        np.testing.assert_allclose(res[gs][k], res[torch][k], rtol=1e-5, atol=1e-7)


@needs_torch
def test_model_ensemble_with_stack_module_state():
    res = {}
    for T in (gs, torch):
        T.manual_seed(0)
        models = [T.nn.Linear(3, 2) for _ in range(4)]
        with T.no_grad():
            for k, m in enumerate(models):
                m.weight.copy_(T.arange(6.0).reshape(2, 3) / (k + 1))
                m.bias.fill_(k)
        params, buffers = T.func.stack_module_state(models)
        assert params["weight"].shape == (4, 2, 3) and params["weight"].requires_grad and params["weight"].is_leaf

        def one(p, b, x):
            return T.func.functional_call(models[0], (p, b), (x,))
        out = T.vmap(one, in_dims=(0, 0, None))(params, buffers, T.ones(5, 3))
        out.sum().backward()
        res[T] = (_np(out), _np(params["weight"].grad))
    for a, b in zip(res[gs], res[torch]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_functional_call_restores_the_module_and_reaches_the_given_tensors():
    m = gs.nn.Linear(2, 1)
    own = m.weight
    w = gs.ones(1, 2, requires_grad=True)
    y = gs.func.functional_call(m, {"weight": w}, gs.tensor([[1.0, 2.0]]))
    y.sum().backward()
    assert m.weight is own and own.grad is None
    assert w.grad.tolist() == [[1.0, 2.0]]
    with pytest.raises(RuntimeError, match="Missing key"):
        gs.func.functional_call(m, {"weight": w}, gs.ones(1, 2), strict=True)
    with pytest.raises(AttributeError):
        gs.func.functional_call(m, {"nope": w}, gs.ones(1, 2))
    with pytest.raises(AttributeError, match="has no attribute 'named_parameters'"):   # PyTorch's, for a non-module
        gs.func.functional_call(object(), {"weight": w}, ())
    assert m.weight is own


def test_stateless_functional_call_warns_as_pytorch():
    m = gs.nn.Linear(2, 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gs.nn.utils.stateless.functional_call(m, {"bias": gs.zeros(1)}, (gs.ones(1, 2),))
    assert any(issubclass(w.category, FutureWarning) and "torch.func.functional_call" in str(w.message)
               for w in caught)


@needs_torch
def test_errors_are_pytorchs():
    for T in (gs, torch):
        with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
            T.func.grad(lambda x: x * 2)(T.ones(3))
        with pytest.raises(RuntimeError, match="only 1 positional inputs"):
            T.func.grad(lambda x: x.sum(), argnums=1)(T.ones(3))
        with pytest.raises(ValueError, match="same size in the mapped dimension"):
            T.vmap(lambda a, b: a + b)(T.ones(3), T.ones(4))
        with pytest.raises(ValueError, match="expected in_dim to satisfy"):
            T.vmap(lambda a: a, in_dims=2)(T.ones(3, 2))


def test_a_program_computes_per_sample_gradients():
    ns = Namespace()
    out = run("""
import torch
import torch.nn as nn
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
model = nn.Linear(3, 1)
params = {k: v.detach() for k, v in model.named_parameters()}
x = torch.randn(6, 3)
y = torch.randn(6, 1)

def loss_fn(p, xi, yi):
    pred = functional_call(model, p, (xi.unsqueeze(0),))
    return ((pred - yi.unsqueeze(0)) ** 2).mean()

grads = vmap(grad(loss_fn), in_dims=(None, 0, 0))(params, x, y)
mean_w = grads['weight'].mean(0)
model.zero_grad()
nn.functional.mse_loss(model(x), y).backward()
""", ns)
    assert out.ok, out.error.to_dict()
    assert tuple(ns.get("grads")["weight"].shape) == (6, 1, 3)
    np.testing.assert_allclose(_np(ns.get("mean_w")), _np(ns.resolve("model.weight").grad), rtol=1e-5)


def test_vmap_passes_count_as_steps_and_its_result_is_sized_first():
    """A host function vmapped over a huge dimension is the program's own loop: its passes count
    against the step limit (and make the run's checks), and a stacked result past the element limit
    is refused after the first pass, before the others run."""
    from gradserve.engine.program import Limits
    ns = Namespace()
    out = run("import torch\ny = torch.vmap(torch.sin)(torch.zeros(100000))", ns, Limits(steps=1000))
    assert not out.ok and out.error.limit == "steps", out.error.to_dict()
    out = run("import torch\ny = torch.vmap(lambda r: r.repeat(1000))(torch.zeros(2000, 2))", ns,
              Limits(tensor_elements=10 ** 6))
    assert not out.ok and out.error.limit == "tensor_elements", out.error.to_dict()
    assert "vmap result" in out.error.message
    assert run("import torch\ny = torch.vmap(torch.sin)(torch.zeros(50))", ns, Limits(steps=1000)).ok


# ---------------------------------------------------------------------------- functorch
def _two_nets(T, seed=0):
    g = np.random.default_rng(seed)

    def net():
        m = T.nn.Sequential(T.nn.Linear(2, 4), T.nn.BatchNorm1d(4), T.nn.Tanh(), T.nn.Linear(4, 1))
        with T.no_grad():
            for p in m.parameters():
                p.copy_(T.tensor(g.standard_normal(tuple(p.shape))))
        return m.double()
    return [net(), net()]


@needs_torch
@pytest.mark.filterwarnings("ignore:We've integrated functorch:FutureWarning")
def test_functorch_module_transforms_match_pytorchs_functorch():
    """functorch's make_functional(_with_buffers) and combine_state_for_ensemble (its MAML and
    ensembling examples): the same parameters, outputs and gradients as PyTorch's functorch."""
    import functorch as tf
    from gradserve.engine import functorch as gf
    x = np.random.default_rng(1).standard_normal((5, 2))
    got, want = [], []
    for T, F, out in ((gs, gf, got), (torch, tf, want)):
        xt = T.tensor(x)
        plain = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.Tanh(), T.nn.Linear(3, 1)).double()
        with T.no_grad():
            for i, p in enumerate(plain.parameters()):
                p.copy_(T.arange(p.numel(), dtype=T.float64).reshape(p.shape) * 0.1 - i * 0.05)
        fmodel, params = F.make_functional(plain)
        loss = lambda params, x: (fmodel(params, x) ** 2).mean()
        grads = F.grad(loss)(params, xt)
        out += [len(params), params[0].requires_grad, isinstance(params[0], T.nn.Parameter)]
        out += [_np(fmodel(params, xt))] + [_np(g) for g in grads]
        out += [_np(v) for v in F.vmap(loss, in_dims=(None, 0))(params, xt.unsqueeze(1))]
        fb, ps, bs = F.make_functional_with_buffers(_two_nets(T)[0].eval())
        out += [len(ps), len(bs), _np(fb(ps, bs, xt))]
        fe, ps, bs = F.combine_state_for_ensemble([m.eval() for m in _two_nets(T)])
        out += [tuple(ps[0].shape), ps[0].requires_grad, _np(F.vmap(fe, in_dims=(0, 0, None))(ps, bs, xt))]
    for a, b in zip(got, want):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
        else:
            assert a == b
    with pytest.warns(FutureWarning, match="functorch.make_functional` is deprecated"):
        gf.make_functional(gs.nn.Linear(2, 2))


@pytest.mark.filterwarnings("ignore:We've integrated functorch:FutureWarning")
def test_functorch_refuses_what_functorch_refuses():
    from gradserve.engine import functorch as gf
    with pytest.raises(RuntimeError, match="has buffers"):
        gf.make_functional(gs.nn.BatchNorm1d(3))
    with pytest.raises(RuntimeError, match="same class"):
        gf.combine_state_for_ensemble([gs.nn.Linear(2, 2), gs.nn.Tanh()])
    with pytest.raises(RuntimeError, match="at least one model"):
        gf.combine_state_for_ensemble([])


def test_a_program_imports_functorch_as_pytorchs_maml_example_does():
    ns = Namespace()
    out = run("""
from functorch import grad, vmap, make_functional
import torch.nn as nn
net, params = make_functional(nn.Sequential(nn.Linear(1, 8), nn.ReLU(), nn.Linear(8, 1)))
def inner_loss(params, x1, y1):
    return torch.mean((net(params, x1) - y1) ** 2)
def task_loss(x1, y1):
    grads = grad(inner_loss)(params, x1, y1)
    new_params = [(params[i] - 0.1 * grads[i]) for i in range(len(params))]
    return inner_loss(new_params, x1, y1)
xs = torch.linspace(-1, 1, 12).reshape(3, 4, 1)
losses = vmap(task_loss)(xs, xs.sin())
loss = sum(losses) / len(losses)
loss.backward()
has_grad = all(p.grad is not None for p in params)
""", ns)
    assert out.ok, out.error.to_dict()
    assert tuple(ns.get("losses").shape) == (3,) and ns.get("has_grad") is True
