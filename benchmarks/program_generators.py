"""What a generator function costs a program, measured in the same run as its neighbours:

(items) 100,000 items from a generator function, summed in a for loop; the same loop over a
        generator expression and over range() as programs; and CPython running the same text.
(batches) char-rnn's get_batches (a generator yielding (x, y) tensor slices) over a (64, 2000)
        tensor, one pass summing each batch, as a program and directly on the engine.

Each program measurement is one ``run()`` in a fresh session; the cases are interleaved round by
round. Prints the medians and the ratios (program / CPython or program / direct engine).

    python benchmarks/program_generators.py [--repeat N]
"""
import argparse
import os
import statistics
import time

import gradserve.engine as torch
from gradserve.engine.program import Limits, Namespace, run

N = 100_000
ITEMS = {
    "generator function": f"""
def gen(n):
    for i in range(n):
        yield i
t = 0
for v in gen({N}):
    t += v
""",
    "generator expression": f"""
t = 0
for v in (i for i in range({N})):
    t += v
""",
    "range loop": f"""
t = 0
for v in range({N}):
    t += v
""",
}

BATCHES = """
def get_batches(arr, batch_size, seq_length):
    batch_size_total = batch_size * seq_length
    n_batches = len(arr[0]) // seq_length
    for n in range(0, arr.shape[1], seq_length):
        x = arr[:, n:n + seq_length]
        y = torch.zeros_like(x)
        y[:, :-1], y[:, -1] = x[:, 1:], arr[:, (n + seq_length) % arr.shape[1]]
        yield x, y

total = 0.0
for x, y in get_batches(arr, 64, 20):
    total += float(x.sum()) + float(y.sum())
"""


def _program(source, ns_factory):
    ns = ns_factory()
    started = time.perf_counter()
    out = run(source, ns, Limits(steps=10 ** 8, wall_time_s=120))
    elapsed = time.perf_counter() - started
    assert out.ok, out.error
    return elapsed


def _python(source, env):
    started = time.perf_counter()
    exec(compile(source, "<bench>", "exec"), dict(env))  # noqa: S102 - our own benchmark text, not a program's
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    arr = torch.arange(64 * 2000).reshape(64, 2000).float()

    def batches_ns():
        ns = Namespace()
        assert run("import torch", ns).ok
        ns.set("arr", arr)
        return ns

    times = {name: ([], []) for name in list(ITEMS) + ["batches"]}
    for _ in range(args.repeat):
        for name, source in ITEMS.items():
            times[name][0].append(_program(source, Namespace))
            times[name][1].append(_python(source, {}))
        times["batches"][0].append(_program(BATCHES, batches_ns))
        times["batches"][1].append(_python(BATCHES, {"torch": torch, "arr": arr}))
    print(f"load average {os.getloadavg()[0]:.2f}; medians of {args.repeat}")
    for name, (prog, ref) in times.items():
        p, r = statistics.median(prog), statistics.median(ref)
        against = "direct engine" if name == "batches" else "CPython"
        per_item = f"  {p / N * 1e9:6.0f} ns an item" if name in ITEMS else ""
        print(f"{name:22s} program {p * 1e3:8.1f} ms  {against} {r * 1e3:7.1f} ms  ratio {p / r:5.2f}{per_item}")


if __name__ == "__main__":
    main()
