"""Programs using the fused recurrent layers and torch.nn.utils.rnn: they train, they see the
graph PyTorch shows, and bad shapes fail with PyTorch's error at the program's line."""
import numpy as np

import gradserve.engine as gs

TRAIN = """
import torch
import torch.nn as nn
torch.manual_seed(0)

class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(3, 8, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(16, 2)

    def forward(self, x, lengths):
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, (h, c) = self.rnn(packed)
        padded, _ = torch.nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        return self.head(padded[:, 0]) + self.head(torch.cat([h[-2], h[-1]], 1))

model = Tagger()
opt = torch.optim.Adam(model.parameters(), lr=0.05)
x = torch.randn(4, 6, 3)
lengths = [3, 6, 1, 4]
y = torch.tensor([0, 1, 1, 0])
losses = []
for step in range(15):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x, lengths), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
name = model.rnn(x)[0].grad_fn.name()
sizes = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False).batch_sizes.tolist()
"""


def test_program_trains_an_lstm_on_packed_sequences(run_ok):
    _, ns = run_ok(TRAIN)
    losses = ns.get("losses")
    assert losses[-1] < losses[0] * 0.5
    assert ns.get("name") == "TransposeBackward0"       # batch_first: the transpose of the layers' output
    assert ns.get("sizes") == [4, 3, 3, 2, 1, 1]


def test_program_gives_the_same_numbers_as_the_engine(run_ok):
    _, ns = run_ok(TRAIN)
    gs.manual_seed(0)
    nn = gs.nn
    rnn = nn.LSTM(3, 8, num_layers=2, batch_first=True, bidirectional=True)
    head = nn.Linear(16, 2)
    params = list(rnn.parameters()) + list(head.parameters())
    opt = gs.optim.Adam(params, lr=0.05)
    x = gs.randn(4, 6, 3)
    y = gs.tensor([0, 1, 1, 0])
    losses = []
    for _ in range(15):
        opt.zero_grad()
        out, (h, _) = rnn(nn.utils.rnn.pack_padded_sequence(x, [3, 6, 1, 4], batch_first=True, enforce_sorted=False))
        padded, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        loss = nn.functional.cross_entropy(head(padded[:, 0]) + head(gs.cat([h[-2], h[-1]], 1)), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    np.testing.assert_allclose(ns.get("losses"), losses, rtol=1e-6)


def test_program_ragged_cell_loop(run_ok):
    _, ns = run_ok("""
import torch
cell = torch.nn.GRUCell(2, 3)
x = torch.randn(5, 3, 2)
lengths = [5, 3, 2]
h = torch.zeros(3, 3)
for t in range(5):
    n = sum(1 for L in lengths if L > t)
    h = torch.cat([cell(x[t, :n], h[:n]), h[n:]], 0)
h.sum().backward()
name = h.grad_fn.next_functions[0][0].name()
ok = cell.weight_hh.grad is not None
""")
    assert ns.get("ok") and ns.get("name") == "ThnnFusedGruCellBackward0"


def test_wrong_hidden_state_fails_at_the_program_line(run_err):
    e = run_err("""
import torch
lstm = torch.nn.LSTM(2, 3)
x = torch.randn(4, 5, 2)
out, (h, c) = lstm(x, (torch.zeros(1, 4, 3), torch.zeros(1, 5, 3)))
""")
    assert (e.type, e.line) == ("RuntimeError", 5)
    assert e.message == "Expected hidden[0] size (1, 5, 3), got [1, 4, 3]"
    assert "gradserve" not in str(e.to_dict())


def test_mismatched_packed_batch_fails_at_the_program_line(run_err):
    e = run_err("""
import torch
gru = torch.nn.GRU(2, 3)
packed = torch.nn.utils.rnn.pack_padded_sequence(torch.randn(4, 3, 2), [4, 2, 1])
out, h = gru(packed, torch.zeros(1, 2, 3))
""")
    assert (e.type, e.line) == ("RuntimeError", 5)
    assert e.message == "Expected hidden size (1, 3, 3), got [1, 2, 3]"


def test_unsorted_lengths_fail_with_torch_message(run_err):
    e = run_err("import torch\np = torch.nn.utils.rnn.pack_padded_sequence(torch.randn(4, 3, 2), [1, 4, 2])\n")
    assert (e.type, e.line) == ("RuntimeError", 2)
    assert e.message.startswith("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True")
