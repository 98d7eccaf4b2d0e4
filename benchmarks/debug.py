"""The latency of the debugger's commands on a paused run (SPEC section 4), end to end: client ->
WebSocket -> API -> the session process's command pipe -> the interpreter, and the answer back.

Against an embedded server (``gradserve serve`` on a free local port) unless ``--url`` is given,
it pauses one run and times, one at a time: ``eval`` of a small expression, ``eval`` of a
(64, 64) tensor sent whole, ``exec`` of an assignment, and a ``step`` (from the command to the
next ``paused`` event); beside them, for scale, a tiny HTTP run in another session. Prints p50 and
p99 in milliseconds.

    python benchmarks/debug.py [--repeat N] [--url URL]
"""
import argparse
import statistics
import time

from gradserve.client import Client
from gradserve.client.cli_run import embedded_server

PROGRAM = """\
w = torch.randn(64, 64)
total = 0
for i in range(100000):
    total = total + i
"""


def _percentiles(samples):
    samples = sorted(samples)
    return statistics.median(samples) * 1e3, samples[min(len(samples) - 1, int(len(samples) * 0.99))] * 1e3


def _time(fn, repeat):
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def measure(url, repeat):
    rows = []
    with Client(url) as client, client.session() as s, client.session() as other:
        run = s.debug(PROGRAM, breakpoints=[4])
        pauses = iter(run)
        pause = next(pauses)
        for _ in range(20):   # warm up
            pause.eval("i + 1")
        rows.append(("eval i + 1", _time(lambda: pause.eval("i + 1"), repeat)))
        rows.append(("eval w (64x64, full)", _time(lambda: pause.eval("w", full=True), repeat)))
        rows.append(("exec total = total + 0", _time(lambda: pause.exec("total = total + 0"), repeat)))

        state = {"pause": pause}

        def step():
            state["pause"].step()
            state["pause"] = next(pauses)
        rows.append(("step to the next pause", _time(step, repeat)))
        state["pause"].cancel()
        run.close()
        other.run("y = 1")
        rows.append(("(HTTP run y = 1, another session)", _time(lambda: other.run("y = 1"), repeat)))
    for name, samples in rows:
        p50, p99 = _percentiles(samples)
        print(f"{name:36s} p50 {p50:7.3f} ms   p99 {p99:7.3f} ms   (n={len(samples)})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--url", default=None)
    args = parser.parse_args()
    if args.url:
        measure(args.url, args.repeat)
    else:
        with embedded_server() as url:
            measure(url, args.repeat)


if __name__ == "__main__":
    main()
