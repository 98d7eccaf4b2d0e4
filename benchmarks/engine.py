"""Engine speed against PyTorch, measured in the same run (issue 2's benchmark).

(a) 2,000 tiny elementwise ops on shape-(16,) float32 tensors, then backward:
    the engine's per-op overhead.                 target <= 1.1x PyTorch (issue 11: no worse than at its filing)
(b) one MLP training step, batch 256, 784-512-512-10, float32, SGD:
    NumPy's BLAS against PyTorch's, plus what the engine adds.  target <= 1.1x PyTorch (issue 11)
(c) a 100,000-op chain, forward and backward, with peak RSS; each framework runs
    in a subprocess of its own so that its RSS is clean.
(lstm) one training step of nn.LSTM(32->64, batch_first) over 50 steps, batch 16, last
    state -> Linear -> cross-entropy, Adam; with peak RSS.        target <= 2.0x PyTorch
(gru) GRUCell(16->32) over 32 sequences of lengths 5..40, a Python loop over the steps
    (the active sequences shrink), one backward.                 target <= 1.3x PyTorch
(cnn) one SGD training step of conv16-pool-conv32-pool-linear on a batch of 32 x 1x28x28
    (3x3 convolutions, padding 1, ReLU, 2x2 max pooling, cross-entropy); with peak RSS.
                                                                  target <= 1.5x PyTorch
(transformer) one AdamW training step of a pre-norm transformer block on 8 x 64 tokens: token and
    position Embedding(128, 64), LayerNorm, causal nn.MultiheadAttention(64, 4 heads), LayerNorm,
    GELU MLP 64-256-64, final LayerNorm, Linear to the vocabulary, next-token cross-entropy; with
    peak RSS.                                                     target <= 1.5x PyTorch
(convnext) one SGD step of a ConvNeXt block (depthwise 7x7 convolution, channels-last LayerNorm, 4x
    pointwise GELU MLP, residual) and a linear head on 16 x 96 x 28 x 28; with peak RSS (no target:
    where real vision models' wide depthwise kernels stand).

Prints each framework's median time and the ratio. PyTorch is optional: without
it only gradserve's times are printed. Both frameworks get the same number of
BLAS threads: PyTorch is set to the thread count NumPy's BLAS uses.

Each framework runs in a process of its own that imports only it, as its users' processes do.
Importing the engine tunes the process's C heap (a 32 MiB glibc top pad, engine/_malloc.py, so a
step's arrays stay mapped between steps); until this was noticed the PyTorch workers imported the
engine too and ran with that pad, which spares PyTorch's steps their page faults (at 2 threads,
hundreds per MLP step). ``--same-heap`` gives PyTorch's process the same pad (glibc's own
MALLOC_TOP_PAD_), to compare the two on equal heaps.

On a shared machine under load, wall time measures the scheduler more than the code
(PyTorch's OpenMP threads, which spin and wait for each other, suffer most). With
``--threads 1 --clock cpu`` each figure is the CPU time of the measuring thread
(time.thread_time), which a descheduled process does not accrue; all work runs on that
thread when both frameworks have one thread (PyTorch runs CPU backward on the calling thread).

    python benchmarks/engine.py [--repeat N] [--rounds N] [--only a,b,c,lstm,gru,cnn,transformer,convnext]
                                [--threads N] [--clock wall|cpu] [--same-heap]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import importlib.util

import numpy as np

# each imported only by the processes that measure it: gradserve's RSS is its own, and PyTorch runs
# in a process as a PyTorch user's is (importing the engine tunes the process's C heap, _malloc.py)
gs = None
torch = None
HAVE_TORCH = importlib.util.find_spec("torch") is not None

TINY_OPS = 2_000
CHAIN_OPS = 100_000
BATCH, SIZES = 256, (784, 512, 512, 10)


# ------------------------------------------------------------------ threads
def blas_threads():
    """The thread count NumPy's BLAS uses, and where that number came from."""
    try:
        from threadpoolctl import threadpool_info
        counts = [p["num_threads"] for p in threadpool_info() if p.get("user_api") == "blas"]
        if counts:
            return counts[0], "threadpoolctl"
    except ImportError:
        pass
    for name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
        if os.environ.get(name, "").isdigit():
            return int(os.environ[name]), name
    # OpenBLAS, NumPy's default BLAS, starts one thread per available core
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(), \
        "OpenBLAS default: one per available core"


# ------------------------------------------------------------------ timing
# wall time, or with --clock cpu (one thread only) the measuring thread's CPU time
clock = time.thread_time if os.environ.get("GRADSERVE_BENCH_CLOCK") == "cpu" else time.perf_counter


def median_time(fn, repeat, warmup=2):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return statistics.median(times)


# ------------------------------------------------------------------ (a) tiny ops
def tiny_ops(lib):
    """A closure running 2,000 elementwise ops on (16,) tensors and their backward."""
    lib.manual_seed(0)
    x = lib.randn(16, requires_grad=True)
    w = lib.randn(16, requires_grad=True)

    def step():
        y = x
        for _ in range(TINY_OPS // 4):
            y = (y * w + x).tanh() - 0.5
        y.sum().backward()
        x.grad = w.grad = None
    return step


# ------------------------------------------------------------------ (b) MLP step
def _has_nn(lib):
    try:
        return all(hasattr(lib.nn, n) for n in ("Linear", "ReLU", "Sequential")) and \
            hasattr(lib.nn.functional, "cross_entropy") and hasattr(lib.optim, "SGD")
    except AttributeError:
        return False


def mlp_step(lib):
    """A closure running one SGD training step of a 784-512-512-10 MLP on a batch of 256."""
    lib.manual_seed(0)
    x = lib.randn(BATCH, SIZES[0])
    target = lib.randint(0, SIZES[-1], (BATCH,))
    if _has_nn(lib):
        nn, F = lib.nn, lib.nn.functional
        layers = []
        for i, (n_in, n_out) in enumerate(zip(SIZES, SIZES[1:])):
            layers += [nn.Linear(n_in, n_out)] + ([nn.ReLU()] if i < len(SIZES) - 2 else [])
        model = nn.Sequential(*layers)
        opt = lib.optim.SGD(model.parameters(), lr=0.01)

        def step():
            opt.zero_grad()
            loss = F.cross_entropy(model(x), target)
            loss.backward()
            opt.step()
            return loss
        return step, "nn.Sequential + F.cross_entropy + optim.SGD"

    # raw tensors until nn and optim exist: x @ W + b -> relu -> ... -> log-softmax cross-entropy
    params = []
    for n_in, n_out in zip(SIZES, SIZES[1:]):
        bound = 1 / n_in ** 0.5
        params.append(((lib.rand(n_in, n_out) * 2 - 1) * bound).requires_grad_())
        params.append(((lib.rand(n_out) * 2 - 1) * bound).requires_grad_())
    onehot = lib.zeros(BATCH, SIZES[-1])
    onehot[lib.arange(BATCH), target] = 1.0

    def step():
        for p in params:
            p.grad = None
        h = x
        for i in range(0, len(params), 2):
            h = h @ params[i] + params[i + 1]
            if i < len(params) - 2:
                h = h.relu()
        shifted = h - h.detach().max(1, keepdim=True)[0]
        log_probs = shifted - shifted.exp().sum(1, keepdim=True).log()
        loss = -(log_probs * onehot).sum() / BATCH
        loss.backward()
        with lib.no_grad():
            for p in params:
                p.sub_(p.grad * 0.01)
        return loss
    return step, "raw tensors (x @ W + b, relu, log-softmax cross-entropy, manual SGD)"


# ------------------------------------------------------------------ (c) long chain
def _memory_mb(field):
    """VmRSS (now) or VmHWM (peak) of this process, in MB: per address space, so a fresh
    subprocess starts clean (ru_maxrss would carry the parent's peak across exec)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def long_chain(lib):
    """Times a 100,000-op chain forward and backward; reports peak RSS above the start."""
    base = _memory_mb("VmRSS")
    x = lib.ones(16, requires_grad=True)
    start = clock()
    y = x
    for i in range(CHAIN_OPS):
        y = y * 1.0001 if i % 2 else y + 0.0001
    loss = y.sum()
    forward = clock() - start
    start = clock()
    loss.backward()
    backward = clock() - start
    del y, loss
    return {"forward": forward, "backward": backward, "time": forward + backward,
            "peak_rss_mb": _memory_mb("VmHWM"), "graph_mb": _memory_mb("VmHWM") - base,
            "after_mb": _memory_mb("VmRSS") - base}


# ------------------------------------------------------------------ (lstm), (gru): recurrent nets
LSTM_BATCH, LSTM_STEPS, LSTM_IN, LSTM_HIDDEN, LSTM_CLASSES = 16, 50, 32, 64, 10
GRU_IN, GRU_HIDDEN, GRU_SEQUENCES, GRU_LENGTHS = 16, 32, 32, (5, 40)


def lstm_step(lib):
    """A closure running one Adam step of LSTM(32->64, batch_first) -> last state -> Linear -> CE."""
    nn = lib.nn
    lib.manual_seed(0)
    lstm = nn.LSTM(LSTM_IN, LSTM_HIDDEN, batch_first=True)
    head = nn.Linear(LSTM_HIDDEN, LSTM_CLASSES)
    params = list(lstm.parameters()) + list(head.parameters())
    opt = lib.optim.Adam(params, lr=1e-3)
    x = lib.randn(LSTM_BATCH, LSTM_STEPS, LSTM_IN)
    target = lib.randint(0, LSTM_CLASSES, (LSTM_BATCH,))

    def step():
        opt.zero_grad()
        _, (h, _) = lstm(x)
        loss = nn.functional.cross_entropy(head(h[-1]), target)
        loss.backward()
        opt.step()
        return loss
    return step


def gru_loop(lib):
    """A closure running GRUCell over 32 ragged sequences (sorted by length, a Python loop over
    the time steps on the still-active ones), then one backward."""
    lib.manual_seed(0)
    cell = lib.nn.GRUCell(GRU_IN, GRU_HIDDEN)
    lengths = sorted(np.random.default_rng(0).integers(GRU_LENGTHS[0], GRU_LENGTHS[1] + 1, GRU_SEQUENCES),
                     reverse=True)
    x = lib.randn(max(lengths), GRU_SEQUENCES, GRU_IN)
    active = [sum(1 for n in lengths if n > t) for t in range(max(lengths))]

    def step():
        h = lib.zeros(GRU_SEQUENCES, GRU_HIDDEN)
        for t, n in enumerate(active):
            h_t = cell(x[t, :n], h[:n])
            h = lib.cat([h_t, h[n:]], 0) if n < GRU_SEQUENCES else h_t
        h.pow(2).sum().backward()
        cell.zero_grad()
    return step


CNN_BATCH, CNN_CLASSES = 32, 10


def cnn_step(lib):
    """A closure running one SGD step of conv16-pool-conv32-pool-linear on 32 MNIST-sized images."""
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 7 * 7, CNN_CLASSES))
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = lib.randn(CNN_BATCH, 1, 28, 28)
    target = lib.randint(0, CNN_CLASSES, (CNN_BATCH,))

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), target)
        loss.backward()
        opt.step()
        return loss
    return step


TF_BATCH, TF_TOKENS, TF_DIM, TF_HEADS, TF_VOCAB = 8, 64, 64, 4, 128


def transformer_step(lib):
    """A closure running one AdamW step of a pre-norm transformer block on next-token prediction."""
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(TF_VOCAB, TF_DIM)
            self.pos = nn.Embedding(TF_TOKENS, TF_DIM)
            self.ln1 = nn.LayerNorm(TF_DIM)
            self.attn = nn.MultiheadAttention(TF_DIM, TF_HEADS, batch_first=True)
            self.ln2 = nn.LayerNorm(TF_DIM)
            self.mlp = nn.Sequential(nn.Linear(TF_DIM, 4 * TF_DIM), nn.GELU(), nn.Linear(4 * TF_DIM, TF_DIM))
            self.ln_f = nn.LayerNorm(TF_DIM)
            self.head = nn.Linear(TF_DIM, TF_VOCAB)

        def forward(self, tokens, mask):
            x = self.tok(tokens) + self.pos(lib.arange(tokens.shape[1]))
            h = self.ln1(x)
            x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False, is_causal=True)[0]
            x = x + self.mlp(self.ln2(x))
            return self.head(self.ln_f(x))

    lib.manual_seed(0)
    model = Block()
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
    data = lib.randint(0, TF_VOCAB, (TF_BATCH, TF_TOKENS + 1))
    tokens, target = data[:, :-1], data[:, 1:]
    mask = nn.Transformer.generate_square_subsequent_mask(TF_TOKENS)

    def step():
        opt.zero_grad()
        logits = model(tokens, mask)
        loss = nn.functional.cross_entropy(logits.reshape(-1, TF_VOCAB), target.reshape(-1))
        loss.backward()
        opt.step()
        return loss
    return step


CNX_BATCH, CNX_DIM, CNX_SIZE = 16, 96, 28


def convnext_step(lib):
    """A closure running one SGD step of a ConvNeXt block (depthwise 7x7 convolution, channels-last
    LayerNorm, 4x pointwise MLP with GELU, residual) and a linear head, on 16 x 96 x 28 x 28."""
    nn = lib.nn
    lib.manual_seed(0)

    class Block(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.dwconv = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
            self.norm = nn.LayerNorm(dim)
            self.pw1, self.pw2 = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

        def forward(self, x):
            y = self.dwconv(x).permute(0, 2, 3, 1)
            y = self.pw2(nn.functional.gelu(self.pw1(self.norm(y))))
            return x + y.permute(0, 3, 1, 2)

    block, head = Block(CNX_DIM), nn.Linear(CNX_DIM, 10)
    opt = lib.optim.SGD(list(block.parameters()) + list(head.parameters()), lr=0.01, momentum=0.9)
    x = lib.randn(CNX_BATCH, CNX_DIM, CNX_SIZE, CNX_SIZE)
    target = lib.randint(0, 10, (CNX_BATCH,))

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(head(block(x).mean((2, 3))), target)
        loss.backward()
        opt.step()
        return loss
    return step


def peak_step(step, repeat):
    """Median time of ``step`` and the process's peak RSS (it runs in a fresh subprocess)."""
    return {"time": median_time(step, repeat), "peak_rss_mb": _memory_mb("VmHWM")}


RECURRENT = {"lstm": lambda lib, repeat: peak_step(lstm_step(lib), repeat),
             "gru": lambda lib, repeat: peak_step(gru_loop(lib), repeat),
             "cnn": lambda lib, repeat: peak_step(cnn_step(lib), repeat),
             "transformer": lambda lib, repeat: peak_step(transformer_step(lib), repeat),
             "convnext": lambda lib, repeat: peak_step(convnext_step(lib), repeat)}


def report_recurrent(only, repeat, threads, rounds):
    if "lstm" in only:
        ours, theirs = measure("lstm", repeat, threads, rounds)
        print(_line(f"(lstm) LSTM {LSTM_IN}->{LSTM_HIDDEN} x {LSTM_STEPS} steps, batch {LSTM_BATCH}, Adam step",
                    ours["time"], theirs and theirs["time"], 2.0))
        _rss_line(ours, theirs)
    if "gru" in only:
        ours, theirs = measure("gru", repeat, threads, rounds)
        print(_line(f"(gru) GRUCell {GRU_IN}->{GRU_HIDDEN}, {GRU_SEQUENCES} ragged seqs, loop", ours["time"],
                    theirs and theirs["time"], 1.3))
        _rss_line(ours, theirs)
    if "cnn" in only:
        ours, theirs = measure("cnn", repeat, threads, rounds)
        print(_line(f"(cnn) conv16-pool-conv32-pool-linear, batch {CNN_BATCH}, SGD", ours["time"],
                    theirs and theirs["time"], 1.5))
        _rss_line(ours, theirs)
    if "transformer" in only:
        ours, theirs = measure("transformer", repeat, threads, rounds)
        print(_line(f"(transformer) pre-norm block, {TF_BATCH}x{TF_TOKENS} tokens, AdamW", ours["time"],
                    theirs and theirs["time"], 1.5))
        _rss_line(ours, theirs)
    if "convnext" in only:
        ours, theirs = measure("convnext", repeat, threads, rounds)
        print(_line(f"(convnext) depthwise 7x7 block, {CNX_BATCH}x{CNX_DIM}x{CNX_SIZE}x{CNX_SIZE}, SGD", ours["time"],
                    theirs and theirs["time"]))
        _rss_line(ours, theirs)


def _rss_line(ours, theirs):
    text = f"    peak RSS: gradserve {ours['peak_rss_mb']:6.1f} MB"
    if theirs is not None:
        text += f", torch {theirs['peak_rss_mb']:6.1f} MB"
        text += " (no more than PyTorch's: met)" if ours["peak_rss_mb"] <= theirs["peak_rss_mb"] else " (MISSED)"
    print(text)


# ------------------------------------------------------------------ workers
def worker(task, name, repeat):
    """Runs in a subprocess of its own: one benchmark on one framework, one JSON line out.

    A process per measurement keeps the frameworks' thread pools from competing
    (OpenBLAS threads spin after a call) and each RSS clean."""
    global gs, torch
    if name == "torch":
        import torch
        if os.environ.get("GRADSERVE_BENCH_THREADS"):
            torch.set_num_threads(int(os.environ["GRADSERVE_BENCH_THREADS"]))
    else:
        import gradserve.engine as gs
    lib = gs if name == "gradserve" else torch
    if task in RECURRENT:
        result = RECURRENT[task](lib, repeat)
    elif task == "a":
        result = {"time": median_time(tiny_ops(lib), repeat)}
    elif task == "b":
        step, how = mlp_step(lib)
        result = {"time": median_time(step, repeat), "how": how}
    else:
        result = long_chain(lib)
    print(json.dumps(result))


def run_worker(task, name, repeat, threads):
    # NumPy's OpenBLAS reads its thread count from the environment when it loads
    env = dict(os.environ, GRADSERVE_BENCH_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               GRADSERVE_BENCH_CLOCK=CLOCK)
    if SAME_HEAP and name == "torch":
        from gradserve.engine._malloc import DEFAULT_TOP_PAD
        env["MALLOC_TOP_PAD_"] = str(DEFAULT_TOP_PAD)   # glibc's own setting: the engine's top pad
    done = subprocess.run([sys.executable, __file__, "--worker", f"{task}:{name}", "--repeat", str(repeat)],
                          capture_output=True, text=True, env=env, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"benchmark ({task}) on {name} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


CLOCK = "wall"
SAME_HEAP = False


def measure(task, repeat, threads, rounds):
    """gradserve's and PyTorch's results (None without PyTorch): medians over ``rounds``
    subprocess runs per framework, alternating, so that load on the machine falls on both."""
    names = ("gradserve", "torch") if HAVE_TORCH else ("gradserve",)
    got = {name: [] for name in names}
    for _ in range(rounds):
        for name in names:
            got[name].append(run_worker(task, name, repeat, threads))
    results = {}
    for name, runs in got.items():
        merged = dict(runs[0])
        for key in ("time", "forward", "backward"):
            if key in merged:
                merged[key] = statistics.median(r[key] for r in runs)
        for key in ("peak_rss_mb", "graph_mb", "after_mb"):
            if key in merged:
                merged[key] = max(r[key] for r in runs)
        results[name] = merged
    return results["gradserve"], results.get("torch")


# ------------------------------------------------------------------ report
def _line(label, ours, theirs, target=None):
    text = f"{label:<46} gradserve {ours * 1e3:9.2f} ms"
    if theirs is None:
        return text + "   (PyTorch not installed)"
    ratio = ours / theirs
    text += f"   torch {theirs * 1e3:9.2f} ms   ratio {ratio:5.2f}x"
    if target is not None:
        text += f"   target <= {target}x {'met' if ratio <= target else 'MISSED'}"
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7, help="timed repetitions of (a) and (b) per round")
    parser.add_argument("--rounds", type=int, default=5,
                        help="subprocess runs per framework and benchmark, alternating between frameworks")
    parser.add_argument("--only", default="a,b,c,lstm,gru,cnn,transformer",
                        help="which of a, b, c, lstm, gru, cnn, transformer, convnext to run")
    parser.add_argument("--threads", type=int, help="BLAS threads for both frameworks (default: what NumPy uses)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall time, or the measuring thread's CPU time (needs --threads 1)")
    parser.add_argument("--same-heap", action="store_true",
                        help="give PyTorch's process the C heap setting the engine makes for its own "
                             "(a 32 MiB glibc top pad, engine/_malloc.py); by default each framework "
                             "runs in a process as its users' does")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.worker:
        task, name = args.worker.split(":")
        worker(task, name, args.repeat)
        return

    threads, source = (args.threads, "--threads") if args.threads else blas_threads()
    if args.clock == "cpu" and threads != 1:
        parser.error("--clock cpu measures one thread: give --threads 1")
    global CLOCK, SAME_HEAP
    CLOCK = args.clock
    SAME_HEAP = args.same_heap
    only = set(args.only.split(","))
    if HAVE_TORCH:
        from importlib.metadata import version
        versions = f"NumPy {np.__version__}, PyTorch {version('torch')}"
    else:
        versions = f"NumPy {np.__version__}, PyTorch not installed"
    print(f"gradserve engine benchmark ({versions})")
    print(f"each figure: the median of {args.rounds} rounds x {args.repeat} runs, every round a fresh subprocess "
          f"per framework, frameworks alternating; {'CPU time of the measuring thread' if CLOCK == 'cpu' else 'wall time'}"
          f", load average {os.getloadavg()[0]:.1f} at the start")
    print(f"threads: NumPy's BLAS uses {threads} ({source})"
          + (f"; PyTorch gets torch.set_num_threads({threads}) for a fair comparison" if HAVE_TORCH else ""))
    if HAVE_TORCH:
        print("C heap: PyTorch " + ("with the engine's 32 MiB glibc top pad (--same-heap)" if SAME_HEAP else
                                    "as in its users' processes (glibc's defaults); the engine with its own "
                                    "32 MiB top pad (engine/_malloc.py)"))

    if "a" in only:
        ours, theirs = measure("a", args.repeat, threads, args.rounds)
        print(_line(f"(a) {TINY_OPS:,} ops on (16,) float32 + backward", ours["time"],
                    theirs and theirs["time"], 1.1))
    if "b" in only:
        ours, theirs = measure("b", args.repeat, threads, args.rounds)
        print(_line(f"(b) MLP step, batch {BATCH}, {'-'.join(map(str, SIZES))}", ours["time"],
                    theirs and theirs["time"], 1.1))
        print(f"    written with {ours['how']}")
    if "c" in only:
        ours, theirs = measure("c", 1, threads, args.rounds)
        print(_line(f"(c) {CHAIN_OPS:,}-op chain, forward + backward", ours["time"], theirs and theirs["time"]))
        for name, r in (("gradserve", ours), ("torch", theirs)):
            if r is not None:
                print(f"    {name:<9} forward {r['forward'] * 1e3:7.1f} ms, backward {r['backward'] * 1e3:7.1f} ms;"
                      f" peak RSS {r['peak_rss_mb']:6.1f} MB, of which {r['graph_mb']:5.1f} MB for the graph;"
                      f" {r['after_mb']:5.1f} MB still held after backward and del")
    report_recurrent(only, args.repeat, threads, args.rounds)


if __name__ == "__main__":
    main()
