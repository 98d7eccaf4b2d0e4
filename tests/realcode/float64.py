"""Bug or float32 drift? Runs a corpus script in process with PyTorch and with the engine, both in
float64 from PyTorch's recorded initial values, and prints how far apart each output ends up.

    .venv/bin/python tests/realcode/float64.py SOURCE/NAME [LIMIT]

Rounding drift vanishes in float64 (the two runs agree to ~1e-12 of each output's magnitude), a
real difference in an op stays. Values that are float64 noise on both sides (a gradient that is
zero in exact arithmetic, and what an optimizer moves by it) differ by their whole magnitude, which
the printed magnitude shows. Needs PyTorch.
"""
import importlib
import sys

import numpy as np

import harness


def to_float64(arrays):
    """Float arrays (float16 and float32 included) as float64, the others as they are."""
    return {k: np.asarray(v, np.float64) if np.asarray(v).dtype.kind == "f" else v for k, v in arrays.items()}


def run_float64(script, expected, library):
    """The script run in process with ``library`` ("torch" or "gradserve.engine"), float64 by default."""
    lib = importlib.import_module(library)
    previous = lib.get_default_dtype()
    lib.set_default_dtype(lib.float64)
    try:
        return harness.run_python(script, library, to_float64(expected.inputs), expected.grad_inputs,
                                  to_float64(expected.init))
    finally:
        lib.set_default_dtype(previous)


def differences(got, want):
    """(name, max |got - want| / max |want|, max |want|) per float output and gradient both runs have,
    largest relative difference first."""
    rows = []
    for kind, a, b in (("", got.values, want.values), (".grad", got.grads, want.grads)):
        for name, w in b.items():
            g = a.get(name)
            if g is None or np.shape(g) != np.shape(w) or np.asarray(w).dtype.kind != "f":
                continue
            w, g = np.asarray(w, np.float64), np.asarray(g, np.float64)
            scale = float(np.max(np.abs(w))) if w.size else 0.0
            err = float(np.max(np.abs(g - w))) if w.size else 0.0
            rows.append((name + kind, err / scale if scale else err, scale))
    return sorted(rows, key=lambda r: -r[1])


def main(script_id, limit=20):
    script = harness.load_script(harness.SCRIPTS / (script_id + ".py"))
    expected = harness.load_expected(script)
    runs = {lib: run_float64(script, expected, lib) for lib in ("torch", "gradserve.engine")}
    for lib, result in runs.items():
        if not result.ok:
            print(f"{lib} (float64): {result.describe()}")
            return 1
    print(f"{'output':60s} {'engine vs PyTorch':>18s} {'magnitude':>10s}")
    for name, rel, scale in differences(runs["gradserve.engine"], runs["torch"])[:limit]:
        print(f"{name[:60]:60s} {rel:18.2e} {scale:10.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], *(int(a) for a in sys.argv[2:3])))
