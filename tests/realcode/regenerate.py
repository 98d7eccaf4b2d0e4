"""Records PyTorch's answers for the real-code corpus (needs PyTorch installed).

    .venv/bin/python tests/realcode/regenerate.py            # every script
    .venv/bin/python tests/realcode/regenerate.py mlp conv   # ids containing these words

For each script it makes the synthetic inputs (NumPy), runs the script with
PyTorch (seeded with the script's seed), records the values at its
``realcode-load`` markers (PyTorch's own initial weights and random draws) and
the values and gradients of its outputs, in ``<script>.npz`` beside it.
"""
import json
import sys

import numpy as np

import harness

STORED_INPUT_ELEMENTS = 4096   # larger inputs are remade from the header (NumPy's PCG64), checked by their sum


def record(script):
    inputs = harness.make_inputs(script)
    grad_inputs = sorted(k for k, v in inputs.items() if harness.requires_grad(v))
    init = {}
    result = harness.run_python(script, "torch", inputs, set(grad_inputs), None, record_init=init)
    if not result.ok:
        raise RuntimeError(f"{script.id} fails under PyTorch: {result.describe()}")
    import torch  # noqa: F401  (run_python imported it)
    arrays = {"meta": np.array(json.dumps({"grad_inputs": grad_inputs, "dtypes": {}}))}
    dtypes, sampled = {}, {}

    def keep(key, v):
        if v.size > harness.SAMPLE_ABOVE and v.dtype.kind == "f":
            fin = np.isfinite(v)
            sampled[key] = {"shape": list(v.shape), "scale": float(np.max(np.abs(v[fin]))) if fin.any() else 0.0}
            v = v.reshape(-1)[harness.sample_index(v.size)]
        arrays[key] = v
    glob_values = result.values
    for name, v in inputs.items():
        v = np.asarray(v)
        arrays[f"inputsum/{name}"] = np.array(np.sum(v, dtype=np.float64))
        if v.size <= STORED_INPUT_ELEMENTS:
            arrays[f"input/{name}"] = v
    for name, v in init.items():
        arrays[f"init/{name}"] = v
    for name, v in glob_values.items():
        if harness.is_shape_only(script, name):
            v = np.zeros_like(v)   # compared by shape and dtype only: the values are not kept
        keep(f"value/{name}", v)
        dtypes[name] = result.dtypes.get(name, str(v.dtype))
    for name, g in result.grads.items():
        if harness.is_shape_only(script, name):
            g = np.zeros_like(g)
        keep(f"grad/{name}", g)
    arrays["meta"] = np.array(json.dumps({"grad_inputs": grad_inputs, "dtypes": dtypes, "sampled": sampled}))
    np.savez_compressed(script.expected_path, **arrays)
    size = script.expected_path.stat().st_size
    return f"{script.id}: {len(glob_values)} values, {len(result.grads)} grads, {len(init)} init, {size} bytes"


def main(words):
    for script in harness.discover():
        if words and not any(w in script.id for w in words):
            continue
        print(record(script))


if __name__ == "__main__":
    main(sys.argv[1:])
