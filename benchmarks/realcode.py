"""The real-code corpus at speed: each public script of tests/realcode run in this process under
PyTorch, under the engine (``torch`` mapped to gradserve.engine) and as a program through the
interpreter, measured in the same run.

For each script that passes in the engine's modes, prints the median time of each (after one
warm-up run of each, the three alternating), the engine's ratio to PyTorch and the program's ratio
to the engine run in-process: as sent (parsing and compiling its cells included, as each new
program over HTTP is) and once compiled (the compile time, measured apart, taken off). Scripts PyTorch or the engine cannot run are listed apart. The
summary gives the medians and the worst ratios: where real code is slow, not where our own
benchmarks say it is.

Each script is measured in a fresh process of its own, as a session runs in a process of its own:
a process that has run a hundred scripts holds more than a session's memory limit, and the
interpreter then walks the session's variables after each statement to check it, which no session
process does. Both frameworks get one thread (torch.set_num_threads(1), one BLAS thread), so the
comparison is of the frameworks, not of their threading; the clock is the thread's CPU time
(``--clock wall`` for wall time).

    python benchmarks/realcode.py [--repeat N] [--only SOURCE/NAME,...] [--clock cpu|wall]
"""
import argparse
import contextlib
import gc
import io
import json
import os
import statistics
import subprocess
import sys
import time

if __name__ == "__main__":
    for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_name, "1")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "realcode"))

import harness  # noqa: E402

clock = time.thread_time


def timed(fn):
    # the garbage of the calls before (a discarded session's compiled cells and tensors hold cycles)
    # is collected first: a full collection of it during the next call cost up to 200 ms, charged to
    # whichever arm ran then, most often the interpreter's, which allocates the most (nerf/run_nerf's
    # program ran 46 ms, then 231 and 208: "10x the engine")
    gc.collect()
    start = clock()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        result = fn()
    return clock() - start, result


def compile_cells(script):
    """Parses and compiles every cell of ``script`` for a fresh session, as its first run does."""
    from gradserve.engine.program import Limits, Namespace
    from gradserve.engine.program.runner import _compile
    ns = Namespace()
    for cell in script.cells:
        _compile(cell.source, ns, Limits())
    return True


def measure(script, repeat):
    """{mode: [seconds]} for torch, inprocess and interp, or (mode, why) where one fails."""
    expected = harness.load_expected(script)
    arms = {
        "torch": lambda: harness.run_python(script, "torch", expected.inputs, expected.grad_inputs, expected.init),
        "inprocess": lambda: harness.run_mode(script, expected, "inprocess"),
        "interp": lambda: harness.run_mode(script, expected, "interp"),
        "compile": lambda: compile_cells(script),
    }
    times = {mode: [] for mode in arms}
    for round_ in range(repeat + 1):
        for mode, fn in arms.items():
            seconds, result = timed(fn)
            if result is not True and not result.ok:
                return mode, result.describe()[:100]
            if mode in ("inprocess", "interp") and round_ == 0 and harness.verdict(script, expected, result) != "pass":
                return mode, "wrong values"
            if round_:   # the first round warms caches (imports, compiled programs)
                times[mode].append(seconds)
    return times


def measure_one(sid, repeat):
    """Measures script ``sid`` in this (fresh) process and prints the result as one JSON line."""
    import torch
    import gradserve.engine.program  # noqa: F401
    torch.set_num_threads(1)
    script = harness.load_script(harness.SCRIPTS / (sid + ".py"))
    # what the imports made stays out of the collector's walks, as in a session's process (forked from
    # a template that froze them): PyTorch's millions of objects made each full collection of the
    # program's allocations cost a quarter of a second, and the interpreter allocates the most
    gc.collect()
    gc.freeze()
    out = measure(script, repeat)
    print(json.dumps({"failed": list(out)} if isinstance(out, tuple) else {"times": out}))


def in_subprocess(sid, args):
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", sid, "--repeat", str(args.repeat),
                           "--clock", args.clock], capture_output=True, text=True, timeout=1800)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode or not lines:
        return "process", f"exit {proc.returncode}: {proc.stderr.strip()[-100:]}"
    answer = json.loads(lines[-1])
    return tuple(answer["failed"]) if "failed" in answer else answer["times"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated script ids (source/name)")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--one", help=argparse.SUPPRESS)   # internal: measure one script in this process
    args = parser.parse_args()
    global clock
    if args.clock == "wall":
        clock = time.perf_counter
    if args.one:
        return measure_one(args.one, args.repeat)
    scripts = harness.discover()
    if args.only:
        wanted = set(args.only.split(","))
        scripts = [s for s in scripts if s.id in wanted]
    print(f"{len(scripts)} scripts, each in a fresh process, median of {args.repeat} runs after a warm-up, "
          f"{args.clock} time, one thread; load average {os.getloadavg()[0]:.1f} at the start")
    print(f"{'script':<48} {'torch':>9} {'engine':>9} {'program':>9} {'compile':>9} {'eng/torch':>9} "
          f"{'prog/eng':>9} {'compiled':>9}")
    rows, failed = [], []
    for script in scripts:
        out = in_subprocess(script.id, args)
        if isinstance(out, tuple):
            failed.append((script.id, *out))
            continue
        t, e, p, c = (statistics.median(out[m]) for m in ("torch", "inprocess", "interp", "compile"))
        rows.append((script.id, t, e, p, c))
        print(f"{script.id:<48} {t * 1e3:8.1f}ms {e * 1e3:8.1f}ms {p * 1e3:8.1f}ms {c * 1e3:8.1f}ms {e / t:8.2f}x "
              f"{p / e:8.2f}x {(p - c) / e:8.2f}x", flush=True)
    if rows:
        def summary(name, ratio, total):
            return (f"{name} median {statistics.median(ratio(r) for r in rows):.2f}x, "
                    f"on the total time {total:.2f}x")
        e_total, t_total = sum(r[2] for r in rows), sum(r[1] for r in rows)
        p_total, c_total = sum(r[3] for r in rows), sum(r[4] for r in rows)
        print(f"\n{len(rows)} scripts measured:")
        print("  " + summary("engine/torch", lambda r: r[2] / r[1], e_total / t_total))
        print("  " + summary("program/engine as sent", lambda r: r[3] / r[2], p_total / e_total))
        print("  " + summary("program/engine compiled", lambda r: (r[3] - r[4]) / r[2], (p_total - c_total) / e_total))
        worst = lambda key: ", ".join(f"{r[0]} {key(r):.2f}x" for r in sorted(rows, key=key, reverse=True)[:8])
        print("slowest against PyTorch:", worst(lambda r: r[2] / r[1]))
        print("slowest as programs, compiled:", worst(lambda r: (r[3] - r[4]) / r[2]))
    for sid, mode, why in failed:
        print(f"not measured: {sid} ({mode}: {why})")


if __name__ == "__main__":
    main()
