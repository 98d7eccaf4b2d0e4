"""torch.autograd.functional (jacobian, hessian, vjp, jvp, hvp, vhp) and torch.utils.checkpoint against
PyTorch: results, tuple structures, create_graph, strict mode and errors; a program uses both."""
import warnings

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.program import Limits, Namespace, run
from op_check import torch

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch")


def _calls(T):
    F = T.autograd.functional
    x = T.tensor([1.0, 2.0, -0.5], dtype=T.float64, requires_grad=True)
    y = T.tensor([[0.3, -1.0], [2.0, 0.5]], dtype=T.float64)
    f = lambda a: a ** 2 * a.sum()   # noqa: E731
    scalar = lambda a: (a.sin() * a ** 3).sum()   # noqa: E731
    pair = lambda a, b: (a[:2] * b.sum(0), (a.exp() * b[0, 0]).sum())   # noqa: E731
    return [
        F.jacobian(f, x), F.jacobian(pair, (x, y)), F.jacobian(lambda a: a.sum(), x),
        F.jacobian(lambda a: T.zeros(2), x), F.jacobian(lambda a, b: a * 2, (x, y)),
        F.hessian(scalar, x), F.hessian(lambda a, b: (a[:2] * b[0] ** 2).sum(), (x, y)),
        F.vjp(f, x, T.ones(3, dtype=T.float64)), F.vjp(scalar, x), F.vjp(pair, (x, y), (T.ones(2, dtype=T.float64), T.tensor(2.0, dtype=T.float64))),
        F.jvp(f, x, T.tensor([1.0, 0.0, 2.0], dtype=T.float64)), F.jvp(pair, (x, y), (x.detach(), y)),
        F.hvp(scalar, x, T.tensor([1.0, -1.0, 0.5], dtype=T.float64)), F.vhp(scalar, x, T.tensor([1.0, -1.0, 0.5], dtype=T.float64)),
        F.jacobian(f, x, vectorize=True),
    ]


@needs_torch
def test_results_and_structures_match_torch():
    ours, theirs = _calls(gs), _calls(torch)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(_flat(a), _flat(b), rtol=1e-12, atol=1e-14)
        assert _structure(a) == _structure(b)


def _flat(value):
    if isinstance(value, (tuple, list)):
        return np.concatenate([_flat(v) for v in value]) if value else np.zeros(0)
    return np.asarray(value.detach().numpy(), dtype=np.float64).reshape(-1)


def _structure(value):
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, [_structure(v) for v in value])
    return tuple(value.shape), value.requires_grad


def test_create_graph_keeps_the_result_differentiable():
    x = gs.tensor([1.0, 2.0], dtype=gs.float64, requires_grad=True)
    j = gs.autograd.functional.jacobian(lambda a: a ** 3, x, create_graph=True)
    assert j.requires_grad and not gs.autograd.functional.jacobian(lambda a: a ** 3, x).requires_grad
    j.sum().backward()          # d/dx of sum(diag(3 x^2)) = 6 x
    assert x.grad.tolist() == [6.0, 12.0]


@needs_torch
def test_errors_match_torch():
    def errors(T):
        F = T.autograd.functional
        x = T.tensor([1.0, 2.0], requires_grad=True)
        out = []
        for bad in (lambda: F.vjp(lambda a: a * 2, x), lambda: F.jacobian(lambda a: T.zeros(2), x, strict=True),
                    lambda: F.jacobian(lambda a: a, 3), lambda: F.jacobian(lambda a, b: a, (x, 3)),
                    lambda: F.hessian(lambda a: a, x), lambda: F.hessian(lambda a: (a, a), x),
                    lambda: F.jacobian(lambda a: a, x, strategy="x"),
                    lambda: F.vjp(lambda a: a * 2, x, T.ones(3)), lambda: F.jvp(lambda a: a * 2, x, (T.ones(2), T.ones(2))),
                    lambda: F.jacobian(lambda a: a, x, strategy="forward-mode"),
                    lambda: F.vjp(lambda a, b: (a, b), (x, x), (T.ones(2),))):
            try:
                bad()
                out.append(None)
            except Exception as e:
                out.append((type(e).__name__, str(e)))
        return out
    assert errors(gs) == errors(torch)


@needs_torch
def test_checkpoint_gives_the_same_values_gradients_warnings_and_errors_as_pytorch():
    def trace(T):
        from importlib import import_module
        cp = import_module(T.__name__ + ".utils.checkpoint")
        net = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 2))
        with T.no_grad():   # the same weights in both (their random initialisations differ)
            for k, p in enumerate(net.parameters()):
                p.copy_(T.linspace(-1.0, 1.0, p.numel()).reshape(p.shape) * (k + 1) / 3)
        x = T.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = cp.checkpoint(net, x)
        z = cp.checkpoint(lambda a, scale=1.0: net(a) * scale, x, scale=3.0, use_reentrant=False)
        s = cp.checkpoint_sequential(net, 2, x, use_reentrant=False)
        (y.sum() + z.sum() + s.sum()).backward()
        try:
            cp.checkpoint(lambda a: a, x, use_reentrant=True, scale=2)
            err = None
        except ValueError as e:
            err = str(e)
        return ([str(w.message) for w in caught], y.tolist(), z.tolist(), s.tolist(), x.grad.tolist(),
                [p.grad.tolist() for p in net.parameters()], err)
    ours, theirs = trace(gs), trace(torch)
    assert ours[0] == theirs[0] and ours[6] == theirs[6]
    for a, b in zip(ours[1:6], theirs[1:6]):
        np.testing.assert_allclose(np.asarray(_flat_list(a)), np.asarray(_flat_list(b)), rtol=1e-6, atol=1e-7)


def _flat_list(v):
    return [x for item in v for x in _flat_list(item)] if isinstance(v, list) else [v]


def test_a_program_uses_the_jacobian_the_hessian_and_checkpointing():
    ns = Namespace()
    out = run("import torch\n"
              "from torch.autograd.functional import jacobian, hessian\n"
              "from torch.utils.checkpoint import checkpoint\n"
              "def energy(q):\n"
              "    return (q ** 2).sum() + q.prod()\n"
              "q = torch.tensor([1.0, 2.0], dtype=torch.float64)\n"
              "H = hessian(energy, q).tolist()\n"
              "J = jacobian(lambda a: a.sin(), q).tolist()\n"
              "w = torch.tensor([0.5, -0.5], requires_grad=True)\n"
              "loss = checkpoint(lambda a: (a * w).sum() ** 2, torch.ones(2), use_reentrant=False)\n"
              "loss.backward()\n"
              "g = w.grad.tolist()\n", ns, Limits())
    assert out.ok, out.error.to_dict()
    assert ns.globals["H"] == [[2.0, 1.0], [1.0, 2.0]]
    np.testing.assert_allclose(ns.globals["J"], np.diag(np.cos([1.0, 2.0])), rtol=1e-15)
    assert ns.globals["g"] == [0.0, 0.0]


def test_jacobian_is_sized_against_the_element_limit_before_its_rows_are_gathered():
    """Hostile pass 12: jacobian held one gradient per output element until it stacked them; a
    (60000,) -> (60000,) function gathered 4 GB of rows (session_bytes 256 MB) until the wall time
    stopped it. The Jacobian's size is now checked before the first backward."""
    out = run("import torch\nx = torch.zeros(1100, requires_grad=True)\n"
              "J = torch.autograd.functional.jacobian(lambda t: t * 2, x)", Namespace(), Limits(tensor_elements=10**6))
    assert not out.ok and out.error.limit == "tensor_elements", out.error.to_dict()
    assert "jacobian of shape [1100, 1100]" in out.error.message
    out = run("import torch\nH = torch.autograd.functional.hessian(lambda t: (t ** 3).sum(), torch.zeros(1100))",
              Namespace(), Limits(tensor_elements=10**6))
    assert not out.ok and "jacobian of shape [1100, 1100]" in out.error.message, out.error.to_dict()
    out = run("import torch\nJ = torch.autograd.functional.jacobian(lambda t: t * 2, torch.zeros(900))",
              Namespace(), Limits(tensor_elements=10**6))
    assert out.ok, out.error.to_dict()


@needs_torch
def test_strict_hessian_messages_and_checkpoint_argument_errors_are_pytorchs():
    """Hostile pass 12: strict hessian/hvp/vhp of a linear function gave the outputs' (or an
    invented) message for PyTorch's 'While computing the hessian, found that the jacobian ...';
    checkpoint(use_reentrant=True, debug=True) ran where PyTorch refuses; checkpoint_sequential
    took 0 segments, more segments than functions and unknown keywords where PyTorch raises, and
    read a program object's ``children`` attribute to decide whether it was a Sequential."""
    def error(T, call):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                call(T)
            except Exception as e:   # noqa: BLE001 - the type and message are compared
                return type(e).__name__, str(e)
        return None

    x = lambda T: T.tensor([1.0, 2.0, -0.5], dtype=T.float64)   # noqa: E731
    F = lambda T: T.autograd.functional   # noqa: E731
    calls = [
        lambda T: F(T).hessian(lambda a: (a * 2).sum(), x(T), strict=True),
        lambda T: F(T).hessian(lambda a: a.detach().sum(), x(T), strict=True),
        lambda T: F(T).hvp(lambda a: (a * 2).sum(), x(T), x(T), strict=True),
        lambda T: F(T).vhp(lambda a: (a * 2).sum(), x(T), x(T), strict=True),
        lambda T: T.utils.checkpoint.checkpoint(lambda a: a * 2, x(T), use_reentrant=True, debug=True),
        lambda T: T.utils.checkpoint.checkpoint_sequential([lambda a: a * 2], 0, x(T), use_reentrant=False),
        lambda T: T.utils.checkpoint.checkpoint_sequential([lambda a: a * 2], 3, x(T), use_reentrant=False),
        lambda T: T.utils.checkpoint.checkpoint_sequential([lambda a: a * 2], 1, x(T), use_reentrant=False, foo=1),
    ]
    for call in calls:
        ours, theirs = error(gs, call), error(torch, call)
        assert ours is not None and ours == theirs
    ns = Namespace()
    out = run("import torch\nfrom torch.utils.checkpoint import checkpoint_sequential\n"
              "class Steps:\n    def __init__(self, fs):\n        self.fs = fs\n    def __len__(self):\n        return len(self.fs)\n"
              "    def __iter__(self):\n        return iter(self.fs)\n"
              "    @property\n    def children(self):\n        raise ValueError('read')\n"
              "y = checkpoint_sequential(Steps([lambda a: a * 2, lambda a: a + 1]), 1, torch.ones(2), use_reentrant=False)\n"
              "z = checkpoint_sequential(torch.nn.Sequential(torch.nn.ReLU()), 1, -torch.ones(2), use_reentrant=False)",
              ns, Limits())
    assert out.ok, out.error.to_dict()
    assert ns.globals["y"].tolist() == [3.0, 3.0] and ns.globals["z"].tolist() == [0.0, 0.0]
