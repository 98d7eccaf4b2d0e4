"""The seeds' training steps on a CUDA device: gradserve (CuPy) against PyTorch (torch.cuda), in
the same run, float32. Each step ends with the device synchronised; the figure is the median wall
time over ``--repeat`` steps after a warm-up (CuPy compiles its kernels on first use).

(mlp) 784-512-512-10, batch 256, SGD          (cnn) conv16-pool-conv32-pool-linear, batch 32, SGD
(lstm) LSTM(32->64) over 50 steps, batch 16, Adam
(transformer) the pre-norm block of benchmarks/engine.py on 8 x 64 tokens, AdamW

Without a CUDA device for a framework, its column is left out.

    python benchmarks/cuda.py [--repeat N] [--only mlp,cnn,lstm,transformer] [--batch-scale K]
"""
import argparse
import statistics
import time

import gradserve.engine as gs

torch = None    # imported after CuPy has found the device (see main)


def _mlp(lib, dev, k):
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)).to(dev)
    opt = lib.optim.SGD(model.parameters(), lr=0.01)
    x, target = lib.randn(256 * k, 784).to(dev), lib.randint(0, 10, (256 * k,)).to(dev)
    return model, opt, lambda: nn.functional.cross_entropy(model(x), target)


def _cnn(lib, dev, k):
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(32 * 7 * 7, 10)).to(dev)
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, target = lib.randn(32 * k, 1, 28, 28).to(dev), lib.randint(0, 10, (32 * k,)).to(dev)
    return model, opt, lambda: nn.functional.cross_entropy(model(x), target)


def _lstm(lib, dev, k):
    lib.manual_seed(0)
    nn = lib.nn
    lstm, head = nn.LSTM(32, 64, batch_first=True).to(dev), nn.Linear(64, 10).to(dev)
    opt = lib.optim.Adam(list(lstm.parameters()) + list(head.parameters()), lr=1e-3)
    x, target = lib.randn(16 * k, 50, 32).to(dev), lib.randint(0, 10, (16 * k,)).to(dev)

    def loss():
        _, (h, _) = lstm(x)
        return nn.functional.cross_entropy(head(h[-1]), target)
    return lstm, opt, loss


def _transformer(lib, dev, k):
    nn = lib.nn
    dim, tokens_n, vocab = 64, 64, 128
    lib.manual_seed(0)
    emb, pos = nn.Embedding(vocab, dim).to(dev), nn.Embedding(tokens_n, dim).to(dev)
    ln1, ln2, ln_f = nn.LayerNorm(dim).to(dev), nn.LayerNorm(dim).to(dev), nn.LayerNorm(dim).to(dev)
    attn = nn.MultiheadAttention(dim, 4, batch_first=True).to(dev)
    mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim)).to(dev)
    head = nn.Linear(dim, vocab).to(dev)
    modules = [emb, pos, ln1, ln2, ln_f, attn, mlp, head]
    opt = lib.optim.AdamW([p for m in modules for p in m.parameters()], lr=1e-3)
    data = lib.randint(0, vocab, (8 * k, tokens_n + 1)).to(dev)
    tokens, target = data[:, :-1], data[:, 1:]
    mask = nn.Transformer.generate_square_subsequent_mask(tokens_n).to(dev)
    positions = lib.arange(tokens_n).to(dev)

    def loss():
        x = emb(tokens) + pos(positions)
        h = ln1(x)
        x = x + attn(h, h, h, attn_mask=mask, need_weights=False, is_causal=True)[0]
        x = x + mlp(ln2(x))
        return nn.functional.cross_entropy(head(ln_f(x)).reshape(-1, vocab), target.reshape(-1))
    return attn, opt, loss


WORKLOADS = {"mlp": _mlp, "cnn": _cnn, "lstm": _lstm, "transformer": _transformer}


def measure(lib, build, repeat, k):
    _, opt, loss_fn = build(lib, "cuda", k)

    def step():
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        opt.step()
        lib.cuda.synchronize()
        return loss

    for _ in range(5):
        first = step()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        last = step()
        times.append(time.perf_counter() - start)
    return statistics.median(times), float(first.item()), float(last.item())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--only", default=",".join(WORKLOADS))
    parser.add_argument("--batch-scale", type=int, default=1, help="multiply every batch by this")
    args = parser.parse_args()
    ours_ok = gs.cuda.is_available()
    global torch
    try:
        import torch
    except ImportError:
        pass
    theirs_ok = torch is not None and torch.cuda.is_available()
    print(f"gradserve cuda: {ours_ok}; torch cuda: {theirs_ok}"
          + (f" ({torch.cuda.get_device_name()})" if theirs_ok else ""))
    for name in args.only.split(","):
        line = f"({name}) batch x{args.batch_scale}"
        ours = theirs = None
        if ours_ok:
            ours = measure(gs, WORKLOADS[name], args.repeat, args.batch_scale)
            line += f"   gradserve {ours[0] * 1e3:8.2f} ms (loss {ours[1]:.4f} -> {ours[2]:.4f})"
        if theirs_ok:
            theirs = measure(torch, WORKLOADS[name], args.repeat, args.batch_scale)
            line += f"   torch {theirs[0] * 1e3:8.2f} ms (loss {theirs[1]:.4f} -> {theirs[2]:.4f})"
        if ours and theirs:
            line += f"   ratio {ours[0] / theirs[0]:5.2f}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
