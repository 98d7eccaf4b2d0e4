"""torch.backends and torch.nn.parallel as real scripts use them: `cudnn.benchmark = True`, an
`mps` probe, a model wrapped in DataParallel. The flags are the session's own; the probes answer as
a machine without those backends; DataParallel runs its module on the session's one device."""
import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.program import Limits, Namespace, run

try:
    import torch
except ImportError:
    torch = None


def ok(source, ns=None):
    out = run(source, ns if ns is not None else Namespace(), Limits())
    assert out.ok, out.error
    return out.stdout


def test_cudnn_flags_read_pytorchs_defaults_and_are_set_per_session():
    mine, other = Namespace(), Namespace()
    assert ok("import torch.backends.cudnn as cudnn\nprint(cudnn.benchmark, cudnn.deterministic, cudnn.enabled)",
              mine) == "False False True\n"
    ok("import torch\nimport torch.backends.cudnn as cudnn\ncudnn.benchmark = True\n"
       "torch.backends.cudnn.deterministic = True", mine)
    assert ok("print(cudnn.benchmark, torch.backends.cudnn.deterministic)", mine) == "True True\n"
    # another session, and the engine itself, never see it
    assert ok("import torch\nprint(torch.backends.cudnn.benchmark)", other) == "False\n"
    assert gs.backends.cudnn.benchmark is False


def test_backend_probes_answer_as_a_machine_without_them():
    assert ok("import torch\nprint(torch.backends.cudnn.is_available(), torch.backends.mps.is_available(), "
              "torch.backends.mps.is_built())") == "False False False\n"


@pytest.mark.parametrize("source, error, message", [
    ("import torch.backends.cudnn as cudnn\ncudnn.benchmark = 'yes'", "TypeError", "True or False"),
    ("import torch\ntorch.backends.cudnn.is_available = None", "AttributeError", "read-only"),
    ("import torch\ntorch.backends.mps.is_built = True", "AttributeError", "read-only"),
    ("import torch.backends.cuda", "ImportError", "No module named 'torch.backends.cuda'"),
])
def test_only_the_flags_are_settable_and_only_to_booleans(source, error, message):
    out = run(source, Namespace(), Limits())
    assert not out.ok and out.error.type == error and message in out.error.message, out.error


def test_data_parallel_runs_the_module_as_it_is():
    out = ok("import torch\nimport torch.nn as nn\nimport torch.nn.parallel\ntorch.manual_seed(0)\n"
             "net = nn.Linear(3, 2)\nm = nn.DataParallel(net, list(range(1)))\nx = torch.ones(4, 3)\n"
             "print(torch.equal(m(x), net(x)), m.module is net, list(m.state_dict()))\n"
             "print(torch.equal(torch.nn.parallel.data_parallel(net, x), net(x)))")
    assert out == "True True ['module.weight', 'module.bias']\nTrue\n"


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_data_parallel_state_dict_and_gradients_match_torch():
    w, b = np.random.default_rng(0).standard_normal((2, 3)), np.zeros(2)
    results = []
    for T in (gs, torch):
        net = T.nn.Linear(3, 2).double()
        net.load_state_dict({"weight": T.tensor(w), "bias": T.tensor(b)})
        m = T.nn.DataParallel(net)
        m(T.ones(4, 3, dtype=T.float64)).pow(2).sum().backward()
        results.append((sorted(m.state_dict()), net.weight.grad.numpy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1])
