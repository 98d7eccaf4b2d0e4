"""Programs behave as Python and PyTorch do: the conformance snippets print what
CPython prints with PyTorch, and a pasted training script gives the numbers it
gives when run directly on the engine (and, with PyTorch installed, PyTorch's)."""
import contextlib
import io
import math
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.program import Namespace, run

sys.path.insert(0, str(Path(__file__).parent))
from conformance_cases import CASES  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

needs_torch = [pytest.mark.torch, pytest.mark.skipif(torch is None, reason="PyTorch is not installed")]


@pytest.mark.parametrize("name", sorted(CASES))
def test_snippet_prints_what_cpython_prints(name):
    source, expected = CASES[name]
    out = run(textwrap.dedent(source), Namespace())
    assert out.ok, out.error.to_dict()
    assert out.stdout == expected


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_expected_output_is_cpythons_with_pytorch(name):
    # the oracle: the same trusted snippet text, run by CPython itself with real torch
    source, expected = CASES[name]
    env = {"torch": torch, "nn": torch.nn, "F": torch.nn.functional, "optim": torch.optim, "math": math,
           "log": lambda **metrics: None}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(textwrap.dedent(source), name, "exec"), env)  # noqa: S102 - trusted test text
    assert buf.getvalue() == expected


# ---------------------------------------------------------------------------- training scripts
TRAINING_PROGRAM = """
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))

model = MLP()
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.mul_(0).add_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.31 + i).reshape(p.shape) * 0.4)
x = torch.cos(torch.arange(60, dtype=torch.float32) * 0.17).reshape(10, 6)
y = torch.tensor([0, 1, 2, 1, 0, 2, 2, 1, 0, 1])
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
losses = []
for epoch in range(30):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
    log(epoch=epoch, loss=loss)
final = model(x).detach()
"""


def _training_reference(lib):
    """TRAINING_PROGRAM written as ordinary Python, for the engine or for PyTorch."""
    nn, F, optim = lib.nn, lib.nn.functional, lib.optim
    lib.manual_seed(0)

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(6, 16)
            self.fc2 = nn.Linear(16, 3)

        def forward(self, x):
            return self.fc2(lib.tanh(self.fc1(x)))

    model = MLP()
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.mul_(0).add_(lib.sin(lib.arange(p.numel(), dtype=lib.float32) * 0.31 + i).reshape(p.shape) * 0.4)
    x = lib.cos(lib.arange(60, dtype=lib.float32) * 0.17).reshape(10, 6)
    y = lib.tensor([0, 1, 2, 1, 0, 2, 2, 1, 0, 1])
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, model(x).detach(), model


def test_training_program_gives_the_engines_numbers():
    ns = Namespace()
    out = run(TRAINING_PROGRAM, ns)
    assert out.ok, out.error.to_dict()
    losses, final, model = _training_reference(gs)
    assert ns.get("losses") == losses           # bit for bit: the interpreter adds no arithmetic
    assert np.array_equal(ns.get("final").numpy(), final.numpy())
    assert [e["epoch"] for e in out.logs] == list(range(30))
    assert out.logs[-1]["loss"] == pytest.approx(losses[-1])
    assert losses[-1] < losses[0]


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_training_program_gives_pytorchs_numbers():
    ns = Namespace()
    out = run(TRAINING_PROGRAM, ns)
    assert out.ok, out.error.to_dict()
    losses, final, _ = _training_reference(torch)
    np.testing.assert_allclose(ns.get("losses"), losses, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ns.get("final").numpy(), final.numpy(), rtol=1e-4, atol=1e-5)


def test_model_state_persists_and_trains_across_runs(run_ok):
    _, ns = run_ok(TRAINING_PROGRAM)
    first = list(ns.get("losses"))
    run_ok("""
    for epoch in range(5):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    """, ns)
    losses = ns.get("losses")
    assert losses[:30] == first and len(losses) == 35 and losses[-1] < first[-1]
    assert "model.fc1.weight" in ns.tensors()


def test_pasted_script_with_sequential_and_adam(run_ok):
    out, ns = run_ok("""
    import torch
    from torch import nn, optim
    torch.manual_seed(1)
    net = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
    opt = optim.Adam(net.parameters(), lr=0.05)
    xs = torch.tensor([[0., 0.], [0., 1.], [1., 0.], [1., 1.]])
    ys = torch.tensor([[0.], [1.], [1.], [0.]])
    for step in range(200):
        opt.zero_grad()
        loss = ((net(xs) - ys) ** 2).mean()
        loss.backward()
        opt.step()
    print(f"final loss {loss.item():.4f}")
    """)
    assert ns.get("loss").item() < 0.2
    assert out.stdout.startswith("final loss ")


def test_same_numbers_as_engine_for_autograd_snippet(run_ok):
    _, ns = run_ok("""
    x = torch.linspace(-2, 2, 7, requires_grad=True)
    y = (x.sigmoid() * x.exp()).log1p().sum()
    y.backward()
    g = x.grad
    """)
    x = gs.linspace(-2, 2, 7, requires_grad=True)
    (x.sigmoid() * x.exp()).log1p().sum().backward()
    assert np.array_equal(ns.get("g").numpy(), x.grad.numpy())


def test_graph_nodes_carry_program_lines(run_ok):
    _, ns = run_ok("""
    x = torch.ones(3, requires_grad=True)
    y = x * 2

    z = (y +
         1)
    """)
    assert ns.get("y").grad_fn.line == 3
    assert ns.get("z").grad_fn.line in (5, 6)


def test_observer_sees_the_runs_nodes(run_ok):
    seen = []

    class Observer:
        def on_node(self, node, out, inputs=None):
            seen.append((type(node).__name__, node.line))

        def on_backward(self, node, grad):
            seen.append(("backward", node.line))

    run_ok("""
    a = torch.ones(2, requires_grad=True)
    b = (a * 3).sum()
    b.backward()
    """, observer=Observer())
    lines = [line for _, line in seen]
    assert 3 in lines and ("backward", 3) in seen
    from gradserve.engine.autograd.state import state
    assert state.observer is None


def test_pasted_cnn_script_with_scheduler_state_dict_and_decorators(run_ok):
    out, ns = run_ok("""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import torch.optim as optim

    class CNN(nn.Module):
        def __init__(self):
            super(CNN, self).__init__()
            self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
            self.pool = nn.MaxPool2d(2)
            self.fc = nn.Linear(4 * 4 * 4, 10)
            self.dropout = nn.Dropout(0.1)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = x.view(x.size(0), -1)
            x = self.dropout(x)
            return F.log_softmax(self.fc(x), dim=1)

    torch.manual_seed(0)
    model = CNN()
    print(model)
    optimizer = optim.Adam(model.parameters(), lr=1e-2)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
    data = torch.randn(32, 1, 8, 8)
    target = torch.randint(0, 10, (32,))
    losses = []
    model.train()
    for epoch in range(10):
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    model.eval()
    keys = sorted(model.state_dict().keys())
    clone = CNN()
    clone.load_state_dict(model.state_dict())
    clone.eval()
    same = torch.allclose(clone(data), model(data))
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)

    @torch.no_grad()
    def evaluate(m):
        return m(data).sum()
    no_grad_result = evaluate(model).requires_grad
    lr = scheduler.get_last_lr()[0]
    """)
    assert out.stdout.startswith("CNN(\n  (conv1): Conv2d(1, 4, kernel_size=(3, 3)")
    assert ns.get("losses")[-1] < ns.get("losses")[0]
    assert ns.get("keys") == ["conv1.bias", "conv1.weight", "fc.bias", "fc.weight"]
    assert ns.get("same") is True and ns.get("n_params") == 690 and ns.get("no_grad_result") is False
    assert ns.get("lr") == pytest.approx(0.0025)


def test_gradcheck_of_a_program_function(run_ok):
    _, ns = run_ok("""
    def f(x, y):
        return (x * y.sin()).sum()
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    y = torch.randn(3, dtype=torch.float64, requires_grad=True)
    ok = torch.autograd.gradcheck(f, (x, y))
    """)
    assert ns.get("ok") is True
