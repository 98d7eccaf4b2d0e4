"""The layers and losses of engine/nn's breadth modules reached from a program: a siamese /
triplet-embedding training loop in the style of the tutorials (PReLU, LocalResponseNorm,
ChannelShuffle, AlphaDropout in eval, the margin and embedding losses) runs through the
interpreter and gives PyTorch's numbers."""
import contextlib
import io

import numpy as np
import pytest

try:
    import torch as real_torch
except ImportError:  # the suite passes without PyTorch
    real_torch = None

SIAMESE = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class EmbeddingNet(nn.Module):
    def __init__(self):
        super(EmbeddingNet, self).__init__()
        self.convnet = nn.Sequential(nn.Conv2d(1, 4, 3), nn.PReLU(), nn.LocalResponseNorm(3),
                                     nn.ChannelShuffle(2), nn.MaxPool2d(2, stride=2))
        self.fc = nn.Sequential(nn.Linear(4 * 3 * 3, 8), nn.PReLU(8), nn.AlphaDropout(0.1), nn.Linear(8, 2),
                                nn.Softshrink(0.01))

    def forward(self, x):
        output = self.convnet(x)
        output = output.view(output.size()[0], -1)
        return self.fc(output)


net = EmbeddingNet()
net.fc[2].eval()
with torch.no_grad():
    for k, p in enumerate(net.parameters()):
        p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.7 + k).reshape(p.shape) * 0.3)
        if p.dim() == 1 and p.numel() in (1, 8) and k in (2, 6):
            p.fill_(0.25)

anchor = torch.cos(torch.arange(4 * 64, dtype=torch.float32) * 0.05).reshape(4, 1, 8, 8)
positive = anchor + 0.1 * torch.sin(torch.arange(4 * 64, dtype=torch.float32)).reshape(4, 1, 8, 8)
negative = torch.flip(anchor, [0])
signs = torch.tensor([1.0, -1.0, 1.0, -1.0])

triplet = nn.TripletMarginLoss(margin=1.0, p=2)
cosine = nn.CosineEmbeddingLoss(margin=0.1)
ranking = nn.MarginRankingLoss(margin=0.2)
optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
losses = []
for step in range(4):
    optimizer.zero_grad()
    a, p, n = net(anchor), net(positive), net(negative)
    loss = triplet(a, p, n) + cosine(a, n, signs) + ranking(a[:, 0], n[:, 0], signs)
    loss = loss + F.soft_margin_loss(a[:, 1], signs) + F.hinge_embedding_loss(a[:, 0], signs)
    loss = loss + F.multi_margin_loss(a, torch.tensor([0, 1, 1, 0])) + F.poisson_nll_loss(a, torch.ones(4, 2))
    loss = loss + F.gaussian_nll_loss(a, p, torch.ones(4, 2) * 0.5) + F.multilabel_soft_margin_loss(a, torch.ones(4, 2))
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
slope = net.convnet[1].weight.item()
print(net.convnet)
"""


def test_siamese_training_runs_as_a_program(run_ok):
    out, ns = run_ok(SIAMESE)
    assert len(ns.get("losses")) == 4 and all(np.isfinite(ns.get("losses")))
    assert "PReLU(num_parameters=1)" in out.stdout and "ChannelShuffle(groups=2)" in out.stdout


@pytest.mark.torch
@pytest.mark.skipif(real_torch is None, reason="PyTorch is not installed")
def test_siamese_training_gives_pytorchs_numbers(run_ok):
    out, ns = run_ok(SIAMESE)
    theirs = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(SIAMESE, "<pytorch>", "exec"), theirs)  # noqa: S102  (the test's own source, real torch)
    np.testing.assert_allclose(ns.get("losses"), theirs["losses"], rtol=1e-4)
    assert ns.get("slope") == pytest.approx(theirs["slope"], rel=1e-4)
    assert out.stdout == printed.getvalue()
