"""Programs reach diff, nansum, nanmean, block_diag, cartesian_prod, triu/tril_indices, bincount and
F.gumbel_softmax, and the ones whose result can outgrow their inputs are sized first (guards)."""
import pytest


def test_programs_use_them(run_ok):
    out, _ = run_ok("import torch.nn.functional as F\n"
                    "print(torch.tensor([1., 4., 9.]).diff(), torch.nanmean(torch.tensor([1., float('nan'), 3.])))\n"
                    "print(torch.bincount(torch.tensor([0, 2, 2]), minlength=4), torch.triu_indices(3, 3, 1).tolist())\n"
                    "print(torch.block_diag(torch.ones(1, 2), torch.tensor(3.)).tolist(), torch.cartesian_prod("
                    "torch.tensor([1, 2]), torch.tensor([3])).tolist())\n"
                    "print(F.gumbel_softmax(torch.randn(2, 3), hard=True).sum(-1).tolist())\n"
                    "v, i = torch.tensor([1., 3., 2.]).cummax(0)\nprint(v.tolist(), i.tolist(), torch.cummin("
                    "torch.tensor([2, 1, 3]), 0).indices.tolist())\n")
    assert out.stdout == ("tensor([3., 5.]) tensor(2.)\ntensor([1, 0, 2, 0]) [[0, 0, 1], [1, 2, 2]]\n"
                          "[[1.0, 1.0, 0.0], [0.0, 0.0, 3.0]] [[1, 3], [2, 3]]\n[1.0, 1.0]\n"
                          "[1.0, 3.0, 3.0] [0, 1, 1] [0, 1, 1]\n")


@pytest.mark.parametrize("source", [
    "y = torch.triu_indices(10**6, 10**6)", "y = torch.tril_indices(10**5, 10**5, 3)",
    "y = torch.bincount(torch.tensor([10**12]))", "y = torch.tensor([1, 2]).bincount(minlength=10**10)",
    "y = torch.block_diag(torch.ones(10**5, 1), torch.ones(1, 10**5))",
    "y = torch.cartesian_prod(torch.arange(10**5), torch.arange(10**5))"])
def test_results_past_the_element_limit_are_refused_before_they_are_built(run_err, source):
    e = run_err(source)
    assert e.type == "LimitExceeded" and "tensor_elements" in e.message
