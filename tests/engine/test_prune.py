"""torch.nn.utils.prune: unstructured, structured, global and custom-mask pruning, pruning again among
what is left, gradients through the mask, remove; errors; against PyTorch's; and a program's own
pruning method (the pruning tutorial's)."""
import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.nn.utils import prune
from gradserve.engine.program import Limits, Namespace, run

try:
    import torch
    import torch.nn.utils.prune  # noqa: F401  (PyTorch's is a submodule to import)
except ImportError:  # the oracle test is skipped without PyTorch
    torch = None


def test_l1_unstructured_masks_the_smallest_and_gradients_reach_only_the_kept():
    lin = gs.nn.Linear(3, 2, bias=False)
    with gs.no_grad():
        lin.weight.copy_(gs.tensor([[0.1, -3.0, 0.5], [2.0, -0.2, 1.0]]))
    prune.l1_unstructured(lin, "weight", amount=0.5)
    assert lin.weight_mask.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]
    assert [n for n, _ in lin.named_parameters()] == ["weight_orig"]
    assert [n for n, _ in lin.named_buffers()] == ["weight_mask"]
    lin(gs.ones(1, 3)).sum().backward()
    assert lin.weight_orig.grad.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]
    prune.l1_unstructured(lin, "weight", amount=1)   # again: among the three kept
    assert lin.weight_mask.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    assert prune.is_pruned(lin) and len(lin._forward_pre_hooks) == 1
    with gs.no_grad():
        lin.weight_orig.fill_(7.0)
    lin(gs.ones(1, 3))   # the pre-hook recomputes the weight before forward
    assert lin.weight.tolist() == [[0.0, 7.0, 0.0], [7.0, 0.0, 0.0]]
    prune.remove(lin, "weight")
    assert isinstance(lin.weight, gs.nn.Parameter) and lin.weight.tolist() == [[0.0, 7.0, 0.0], [7.0, 0.0, 0.0]]
    assert not prune.is_pruned(lin) and [n for n, _ in lin.named_buffers()] == []


def test_structured_random_and_custom_pruning():
    gs.manual_seed(0)
    conv = gs.nn.Conv2d(2, 4, 3)
    prune.ln_structured(conv, "weight", amount=2, n=1, dim=0)
    kept = conv.weight_mask.sum(dim=(1, 2, 3))
    assert sorted(kept.tolist()) == [0.0, 0.0, 18.0, 18.0]
    prune.random_structured(conv, "weight", amount=1, dim=0)   # one more of the two left
    assert sorted(conv.weight_mask.sum(dim=(1, 2, 3)).tolist()) == [0.0, 0.0, 0.0, 18.0]
    prune.random_unstructured(conv, "bias", amount=0.5)
    assert int((conv.bias_mask == 0).sum()) == 2
    lin = gs.nn.Linear(2, 2)
    prune.custom_from_mask(lin, "weight", mask=gs.tensor([[1.0, 0.0], [0.0, 1.0]]))
    assert lin.weight_mask.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    prune.identity(lin, "bias")
    assert lin.bias_mask.tolist() == [1.0, 1.0]


def test_global_pruning_chooses_over_all_tensors():
    a, b = gs.nn.Linear(2, 1, bias=False), gs.nn.Linear(2, 1, bias=False)
    with gs.no_grad():
        a.weight.copy_(gs.tensor([[1.0, 5.0]]))
        b.weight.copy_(gs.tensor([[2.0, 0.5]]))
    prune.global_unstructured([(a, "weight"), (b, "weight")], pruning_method=prune.L1Unstructured, amount=2)
    assert a.weight_mask.tolist() == [[0.0, 1.0]] and b.weight_mask.tolist() == [[1.0, 0.0]]


def test_errors():
    lin = gs.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="amount=1.5 should either be a float in the range \\[0, 1\\] or a non-negative"):
        prune.l1_unstructured(lin, "weight", amount=1.5)
    with pytest.raises(ValueError, match="amount=5 should be smaller than the number of parameters to prune=4"):
        prune.l1_unstructured(lin, "weight", amount=5)
    with pytest.raises(TypeError, match="Invalid type for amount"):
        prune.l1_unstructured(lin, "weight", amount="half")
    with pytest.raises(ValueError, match="has to be pruned before pruning can be removed"):
        prune.remove(gs.nn.Linear(1, 1), "weight")
    with pytest.raises(IndexError, match="Invalid index 3 for tensor of size"):
        prune.ln_structured(gs.nn.Linear(2, 2), "weight", amount=1, n=2, dim=3)


def _oracle(T):
    P = T.nn.utils.prune
    rng = np.random.default_rng(0)
    conv, lin = T.nn.Conv2d(2, 4, 3).double(), T.nn.Linear(6, 5).double()
    with T.no_grad():
        for m in (conv, lin):
            for p in m.parameters():
                p.copy_(T.tensor(rng.standard_normal(tuple(p.shape))))
    P.l1_unstructured(conv, "weight", amount=0.3)
    P.ln_structured(conv, "weight", amount=1, n=2, dim=0)
    P.l1_unstructured(conv, "bias", amount=2)
    conv(T.tensor(rng.standard_normal((1, 2, 5, 5)))).sum().backward()
    out = [conv.weight_mask, conv.bias_mask, conv.weight_orig.grad]
    P.remove(conv, "weight")
    out.append(conv.weight)
    P.global_unstructured([(lin, "weight"), (lin, "bias")], pruning_method=P.L1Unstructured, amount=10)
    out += [lin.weight_mask, lin.bias_mask]
    P.custom_from_mask(lin, "weight", mask=T.tensor(np.tril(np.ones((5, 6)))))
    out.append(lin.weight_mask)
    return [t.detach().numpy().copy() for t in out], sorted(lin.state_dict()), sorted(conv.state_dict())


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_matches_torch():
    (ours, *keys), (theirs, *their_keys) = _oracle(gs), _oracle(torch)
    for a, b in zip(ours, theirs):   # masks exactly; the gradient to a float64's last bits
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    assert keys == their_keys


def test_a_programs_own_pruning_method():
    outcome = run("""
import torch, torch.nn as nn
import torch.nn.utils.prune as prune
class FooBarPruningMethod(prune.BasePruningMethod):
    PRUNING_TYPE = "unstructured"
    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask
lin = nn.Linear(3, 2)
FooBarPruningMethod.apply(lin, "bias")
lin(torch.ones(1, 3)).sum().backward()
print(lin.bias_mask.tolist(), lin.bias_orig.grad.tolist(), prune.is_pruned(lin))
prune.remove(lin, "bias")
prune.global_unstructured(((lin, "weight"),), pruning_method=prune.L1Unstructured, amount=0.5)
print([n for n, _ in lin.named_parameters()], int((lin.weight == 0).sum()))
""", Namespace(), Limits())
    assert outcome.ok, outcome.error
    assert outcome.stdout == "[0.0, 1.0] [0.0, 1.0] True\n['bias', 'weight_orig'] 3\n"
