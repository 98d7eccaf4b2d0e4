"""The interpreter's cost: the same code as a program and directly on the engine,
measured in the same run (issue 3's benchmark).

(a) the engine benchmark's tiny-op chain: 2,000 elementwise ops on (16,)
    tensors, then backward (the interpreter's per-op overhead). target <= 1.5x
(b) an MLP training step, batch 256, 784-512-512-10, SGD.       target <= 1.05x
(lstm) nn.LSTM(32->64, batch_first) over 50 steps, batch 16, last state -> Linear -> CE,
    Adam (the engine benchmark's workload).                       target <= 1.05x
(gru) GRUCell(16->32) over 32 ragged sequences, a loop over the steps, one backward.
                                                                  target <= 1.05x
(cnn) conv16-pool-conv32-pool-linear, batch 32 x 1x28x28, SGD with momentum (the engine
    benchmark's workload).                                        target <= 1.05x
(transformer) a pre-norm transformer block (Embedding, causal nn.MultiheadAttention, LayerNorm,
    GELU MLP) on 8 x 64 tokens, AdamW (the engine benchmark's workload). target <= 1.05x

Each measurement of the program is one ``run()`` of ``step()`` in a session
where the model was set up by an earlier run, so it includes everything a run
costs (limits, state swap, the session-bytes checks). The two are interleaved
call by call; prints the fastest and the median times and their ratios.

With ``--clock cpu`` the times are the thread's CPU time (time.thread_time; one BLAS thread,
so all the work is on it), which a process waiting for a core on a loaded machine does not
accrue.

    python benchmarks/program.py [--repeat N] [--threads N] [--clock wall|cpu] [--block K]
                                 [--only tiny,mlp,lstm,gru,cnn,transformer]
"""
import argparse
import os
import statistics
import sys
import time

if __name__ == "__main__":
    # one BLAS thread unless asked otherwise: thread scheduling noise swamps the interpreter's cost,
    # and the two sides run in the same process under the same setting
    _threads = sys.argv[sys.argv.index("--threads") + 1] if "--threads" in sys.argv else "1"
    for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_name, _threads)

import gradserve.engine as torch  # noqa: E402
from gradserve.engine.program import Limits, Namespace, run  # noqa: E402

TINY_SETUP = """
import torch
torch.manual_seed(0)
x = torch.randn(16, requires_grad=True)
w = torch.randn(16, requires_grad=True)

def step():
    y = x
    for _ in range(500):
        y = (y * w + x).tanh() - 0.5
    y.sum().backward()
    x.grad = None
    w.grad = None
"""

MLP_SETUP = """
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
torch.manual_seed(0)
x = torch.randn(256, 784)
target = torch.randint(0, 10, (256,))
model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
opt = optim.SGD(model.parameters(), lr=0.01)

def step():
    opt.zero_grad()
    loss = F.cross_entropy(model(x), target)
    loss.backward()
    opt.step()
    return loss
"""


def tiny_direct():
    torch.manual_seed(0)
    x = torch.randn(16, requires_grad=True)
    w = torch.randn(16, requires_grad=True)

    def step():
        y = x
        for _ in range(500):
            y = (y * w + x).tanh() - 0.5
        y.sum().backward()
        x.grad = None
        w.grad = None
    return step


def mlp_direct():
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(0)
    x = torch.randn(256, 784)
    target = torch.randint(0, 10, (256,))
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), target)
        loss.backward()
        opt.step()
        return loss
    return step


# ------------------------------------------------------------------ recurrent nets (issue 11)
LSTM_SETUP = """
import torch
import torch.nn as nn
torch.manual_seed(0)
lstm = nn.LSTM(32, 64, batch_first=True)
head = nn.Linear(64, 10)
opt = torch.optim.Adam(list(lstm.parameters()) + list(head.parameters()), lr=1e-3)
x = torch.randn(16, 50, 32)
target = torch.randint(0, 10, (16,))

def step():
    opt.zero_grad()
    out, (h, c) = lstm(x)
    loss = nn.functional.cross_entropy(head(h[-1]), target)
    loss.backward()
    opt.step()
    return loss
"""

GRU_SETUP = """
import torch
torch.manual_seed(0)
cell = torch.nn.GRUCell(16, 32)
lengths = LENGTHS
x = torch.randn(lengths[0], 32, 16)
active = [sum(1 for n in lengths if n > t) for t in range(lengths[0])]

def step():
    h = torch.zeros(32, 32)
    for t in range(len(active)):
        n = active[t]
        h_t = cell(x[t, :n], h[:n])
        h = torch.cat([h_t, h[n:]], 0) if n < 32 else h_t
    h.pow(2).sum().backward()
    cell.zero_grad()
"""


def _gru_lengths():
    import numpy as np
    return sorted((int(n) for n in np.random.default_rng(0).integers(5, 41, 32)), reverse=True)


def lstm_direct():
    nn = torch.nn
    torch.manual_seed(0)
    lstm = nn.LSTM(32, 64, batch_first=True)
    head = nn.Linear(64, 10)
    opt = torch.optim.Adam(list(lstm.parameters()) + list(head.parameters()), lr=1e-3)
    x = torch.randn(16, 50, 32)
    target = torch.randint(0, 10, (16,))

    def step():
        opt.zero_grad()
        out, (h, c) = lstm(x)
        loss = nn.functional.cross_entropy(head(h[-1]), target)
        loss.backward()
        opt.step()
        return loss
    return step


def gru_direct():
    torch.manual_seed(0)
    cell = torch.nn.GRUCell(16, 32)
    lengths = _gru_lengths()
    x = torch.randn(lengths[0], 32, 16)
    active = [sum(1 for n in lengths if n > t) for t in range(lengths[0])]

    def step():
        h = torch.zeros(32, 32)
        for t in range(len(active)):
            n = active[t]
            h_t = cell(x[t, :n], h[:n])
            h = torch.cat([h_t, h[n:]], 0) if n < 32 else h_t
        h.pow(2).sum().backward()
        cell.zero_grad()
    return step


# ------------------------------------------------------------------ CNN (issue 11)
CNN_SETUP = """
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(32 * 7 * 7, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.randn(32, 1, 28, 28)
target = torch.randint(0, 10, (32,))

def step():
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), target)
    loss.backward()
    opt.step()
    return loss
"""


def cnn_direct():
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 7 * 7, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(32, 1, 28, 28)
    target = torch.randint(0, 10, (32,))

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), target)
        loss.backward()
        opt.step()
        return loss
    return step


# ------------------------------------------------------------------ transformer block (issue 11)
TRANSFORMER_SETUP = """
import torch
import torch.nn as nn
torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(128, 64)
        self.pos = nn.Embedding(64, 64)
        self.ln1 = nn.LayerNorm(64)
        self.attn = nn.MultiheadAttention(64, 4, batch_first=True)
        self.ln2 = nn.LayerNorm(64)
        self.mlp = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64))
        self.ln_f = nn.LayerNorm(64)
        self.head = nn.Linear(64, 128)

    def forward(self, tokens, mask):
        x = self.tok(tokens) + self.pos(torch.arange(tokens.shape[1]))
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False, is_causal=True)[0]
        x = x + self.mlp(self.ln2(x))
        return self.head(self.ln_f(x))


model = Block()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = torch.randint(0, 128, (8, 65))
tokens, target = data[:, :-1], data[:, 1:]
mask = nn.Transformer.generate_square_subsequent_mask(64)

def step():
    opt.zero_grad()
    logits = model(tokens, mask)
    loss = nn.functional.cross_entropy(logits.reshape(-1, 128), target.reshape(-1))
    loss.backward()
    opt.step()
    return loss
"""


def transformer_direct():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from engine import transformer_step     # the engine benchmark's workload, the same code
    return transformer_step(torch)


# each workload: the in-process step's factory and the program's source (program_counts.py's too)
WORKLOADS = {
    "tiny": (tiny_direct, TINY_SETUP),
    "mlp": (mlp_direct, MLP_SETUP),
    "lstm": (lstm_direct, LSTM_SETUP),
    "gru": (gru_direct, GRU_SETUP.replace("LENGTHS", repr(_gru_lengths()))),
    "cnn": (cnn_direct, CNN_SETUP),
    "transformer": (transformer_direct, TRANSFORMER_SETUP),
}


def compare_transformer(repeat, ratios):
    ratios["transformer"] = compare("(transformer) pre-norm block", transformer_direct(),
                                    as_program(TRANSFORMER_SETUP), repeat)
    print(f"target: transformer <= 1.05x ({'ok' if ratios['transformer'] <= 1.05 else 'MISSED'})")


def compare_cnn(repeat, ratios):
    ratios["cnn"] = compare("(cnn) conv-pool-conv-pool-linear", cnn_direct(), as_program(CNN_SETUP), repeat)
    print(f"target: CNN <= 1.05x ({'ok' if ratios['cnn'] <= 1.05 else 'MISSED'})")


def compare_recurrent(repeat, ratios):
    ratios["lstm"] = compare("(lstm) LSTM 32->64 x 50, Adam", lstm_direct(), as_program(LSTM_SETUP), repeat)
    ratios["gru"] = compare("(gru) ragged GRUCell loop", gru_direct(),
                            as_program(GRU_SETUP.replace("LENGTHS", repr(_gru_lengths()))), repeat)
    print(f"targets: LSTM <= 1.05x ({'ok' if ratios['lstm'] <= 1.05 else 'MISSED'}), "
          f"ragged GRUCell <= 1.05x ({'ok' if ratios['gru'] <= 1.05 else 'MISSED'})")


def as_program(setup):
    ns = Namespace()
    limits = Limits()
    out = run(setup, ns, limits)
    if not out.ok:
        raise SystemExit(f"setup failed: {out.error.to_dict()}")

    def step():
        o = run("step()", ns, limits)
        if not o.ok:
            raise SystemExit(f"step failed: {o.error.to_dict()}")
    return step


clock = time.perf_counter


block = 1   # --block


def compare(name, direct, program, repeat, warmup=3):
    """Interleaves the two so load on the machine hits both alike: one call each in turn, or
    with ``--block K`` K calls of one then K of the other, the first of each block untimed.

    One call each in turn times every step just after the other side's step, its model's arrays
    and, for the program, the interpreter's own objects evicted from the caches by the other model
    (the engine side's code stays warm: the program runs it too). A block times steps as a
    training loop runs them, one after another in the same session, and still alternates often
    enough for drift to hit both alike. The ratio reported is the median of the ratios of
    back-to-back pairs (of the blocks' median steps with --block), robust to drift and outliers;
    fastest and median times beside."""
    for _ in range(warmup):
        direct()
        program()
    d_times, p_times, pairs = [], [], []
    for _ in range(repeat):
        pair = []
        for fn, times in ((direct, d_times), (program, p_times)):
            if block > 1:
                fn()   # the switch from the other side: its cold caches are what a block leaves out
            steps = []
            for _ in range(block):
                start = clock()
                fn()
                steps.append(clock() - start)
            times.extend(steps)
            pair.append(statistics.median(steps))
        pairs.append(pair[1] / pair[0])
    d, p = min(d_times), min(p_times)
    dm, pm = statistics.median(d_times), statistics.median(p_times)
    ratio = statistics.median(pairs)
    print(f"{name:<30} engine {d * 1e3:8.3f} ms (median {dm * 1e3:8.3f})   program {p * 1e3:8.3f} ms "
          f"(median {pm * 1e3:8.3f})   ratio {ratio:5.3f} (of fastest {p / d:5.3f})")
    return ratio


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--threads", default="1", help="BLAS threads for both sides (default 1)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall time, or the thread's CPU time (needs --threads 1)")
    parser.add_argument("--block", type=int, default=1,
                        help="steps of each side in turn, after one untimed step (default 1: one call each in turn)")
    parser.add_argument("--only", default="tiny,mlp,lstm,gru,cnn,transformer",
                        help="which of tiny, mlp, lstm, gru, cnn, transformer to run")
    args = parser.parse_args()
    only = set(args.only.split(","))
    global block
    block = args.block
    if args.clock == "cpu":
        if args.threads != "1":
            parser.error("--clock cpu measures one thread: give --threads 1")
        global clock
        clock = time.thread_time
    print(f"{'CPU' if args.clock == 'cpu' else 'wall'} time, {args.threads} BLAS thread(s), "
          f"{'one call each in turn' if block == 1 else f'blocks of {block} steps'}, "
          f"load average {os.getloadavg()[0]:.1f} at the start")
    ratios = {}
    if "tiny" in only or "mlp" in only:
        ratios["tiny"] = compare("(a) tiny-op chain (2000 ops)", tiny_direct(), as_program(TINY_SETUP), args.repeat)
        ratios["mlp"] = compare("(b) MLP step 784-512-512-10", mlp_direct(), as_program(MLP_SETUP), args.repeat)
        print(f"targets: tiny <= 1.5x ({'ok' if ratios['tiny'] <= 1.5 else 'MISSED'}), "
              f"MLP <= 1.05x ({'ok' if ratios['mlp'] <= 1.05 else 'MISSED'})")
    if "lstm" in only or "gru" in only:
        compare_recurrent(args.repeat, ratios)
    if "cnn" in only:
        compare_cnn(args.repeat, ratios)
    if "transformer" in only:
        compare_transformer(args.repeat, ratios)


if __name__ == "__main__":
    main()
