"""The interpreter's cost counted, not timed: what one step of a workload adds as a program over the
same code in-process, in instructions, cache misses and mispredicted branches per step (cachegrind).

Times of a 3-6 ms step on a shared machine move by a point or two from run to run, which is as much
as the interpreter adds (benchmarks/program.py's targets are 1.05x), so a change to it is hard to
judge by time. cachegrind counts what the step executes, the same on every run and under any load.
Each of the two sides runs in a process of its own under valgrind, N1 and then N2 steps after the
setup and two warm-up steps, and the difference between the two counts is divided by N2 - N1: what
one step costs, setup and imports cancelled out. The ticker thread's 20 ms checks are slowed to once
in 1000 s, since under valgrind a step takes ~50x longer and would get ~50x more of them.

Counts are per step, and "cycles" weighs them as a rough model of this machine (an L1 miss 12, an
LL miss 40 and a mispredicted branch 15 cycles, an instruction 1): a guide to where the time goes,
not a time. Needs valgrind (``apt-get install valgrind``); the simulated LL cache is 1 MiB, the L2
of one core of the machine these figures were taken on.

    python benchmarks/program_counts.py [--only lstm,gru] [--steps N1,N2]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EVENTS = {"I   refs": "instructions", "D1  misses": "L1 data misses", "LL misses": "LL misses",
          "Mispredicts": "mispredicted branches"}
CYCLES = {"instructions": 1, "L1 data misses": 12, "LL misses": 40, "mispredicted branches": 15}


def child(workload, side, steps):
    """Under valgrind: the workload's setup, two warm-up steps, then ``steps`` steps of one side."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    sys.path.insert(0, HERE)
    import program
    from gradserve.engine.program import runtime
    runtime.TICK_S = 1000.0
    direct, source = program.WORKLOADS[workload]
    step = direct() if side == "direct" else program.as_program(source)
    for _ in range(2 + steps):
        step()


def counts(workload, side, steps):
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes",
                              "--LL=1048576,16,64", f"--cachegrind-out-file={tmp}/out",
                              sys.executable, os.path.abspath(__file__), "--child", workload, side, str(steps)],
                             capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": "0"}).stderr   # dict layouts alike run to run
    found = {}
    for line in out.splitlines():
        for key, name in EVENTS.items():
            m = re.search(re.escape(key) + r":\s+([\d,]+)", line)
            if m:
                found[name] = int(m.group(1).replace(",", ""))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="tiny,mlp,lstm,gru,cnn,transformer")
    parser.add_argument("--steps", default="2,8", help="N1,N2: the two step counts whose difference is measured")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        workload, side, steps = args.child
        return child(workload, side, int(steps))
    n1, n2 = (int(n) for n in args.steps.split(","))
    from concurrent.futures import ThreadPoolExecutor
    for workload in args.only.split(","):
        with ThreadPoolExecutor(2) as pool:   # the four runs, two at a time (each is one process)
            runs = {(side, n): pool.submit(counts, workload, side, n) for side in ("direct", "program") for n in (n1, n2)}
        per_step = {side: {name: (runs[side, n2].result()[name] - runs[side, n1].result()[name]) / (n2 - n1)
                           for name in CYCLES} for side in ("direct", "program")}
        for side in per_step:
            per_step[side]["cycles (model)"] = sum(per_step[side][name] * w for name, w in CYCLES.items())
        for name in per_step["direct"]:
            d, p = per_step["direct"][name], per_step["program"][name]
            print(f"({workload}) {name:<22} engine {d:14,.0f}   program {p:14,.0f}   "
                  f"program adds {p - d:12,.0f} ({(p / d - 1) * 100:+6.2f}%)")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
