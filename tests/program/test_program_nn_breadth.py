"""The layers and losses of engine/nn's breadth modules reached from a program: a siamese /
triplet-embedding training loop in the style of the tutorials (PReLU, LocalResponseNorm,
ChannelShuffle, AlphaDropout in eval, the margin and embedding losses) and the PyTorch text
classification tutorial's EmbeddingBag model run through the interpreter and give PyTorch's
numbers."""
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


# pytorch/tutorials beginner_source/text_sentiment_ngrams_tutorial.py: the model, collate_batch's
# offsets and the training step as written (a synthetic batch instead of AG_NEWS and its vocab)
TEXT_CLASSIFICATION = """
import torch
from torch import nn


class TextClassificationModel(nn.Module):

    def __init__(self, vocab_size, embed_dim, num_class):
        super(TextClassificationModel, self).__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        embedded = self.embedding(text, offsets)
        return self.fc(embedded)


def collate_batch(batch):
    label_list, text_list, offsets = [], [], [0]
    for (_label, _text) in batch:
        label_list.append(_label)
        processed_text = torch.tensor(_text, dtype=torch.int64)
        text_list.append(processed_text)
        offsets.append(processed_text.size(0))
    label_list = torch.tensor(label_list, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    text_list = torch.cat(text_list)
    return label_list, text_list, offsets


model = TextClassificationModel(20, 8, 4)
with torch.no_grad():
    for k, p in enumerate(model.parameters()):
        p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 1.3 + k).reshape(p.shape) * 0.5)

batch = [(0, [1, 4, 5, 9]), (3, [2, 2, 17]), (1, [8]), (2, [3, 11, 12, 13, 19]), (0, [1, 5])]
label, text, offsets = collate_batch(batch)
criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=5)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.1)
losses, accs = [], []
for epoch in range(3):
    model.train()
    optimizer.zero_grad()
    predicted_label = model(text, offsets)
    loss = criterion(predicted_label, label)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
    optimizer.step()
    scheduler.step()
    losses.append(loss.item())
    accs.append((predicted_label.argmax(1) == label).sum().item())
print(model)
"""


def test_text_classification_tutorial_gives_pytorchs_numbers(run_ok):
    out, ns = run_ok(TEXT_CLASSIFICATION)
    assert "EmbeddingBag(20, 8, mode='mean')" in out.stdout
    assert len(ns.get("losses")) == 3
    if real_torch is None:
        return
    theirs = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(TEXT_CLASSIFICATION, "<pytorch>", "exec"), theirs)  # noqa: S102  (the test's own source)
    np.testing.assert_allclose(ns.get("losses"), theirs["losses"], rtol=1e-5)
    assert ns.get("accs") == theirs["accs"]
    assert out.stdout == printed.getvalue()
