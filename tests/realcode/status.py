"""Runs the whole real-code corpus three ways and writes what happened.

    .venv/bin/python tests/realcode/status.py [--failures PATH]

Writes ``STATUS.md`` (per script and mode: pass, wrong values, or the error
type, line and message; and a per-source table) and ``xfail.json`` (the
recorded cause of each script x mode that fails, read by test_realcode.py),
both beside this file. With ``--failures PATH`` it also writes the failures
grouped by cause, most scripts blocked first, for the helpers fixing them.
"""
import collections
import json
import re
import sys
import time

import harness

# What a failure message means, whose area fixes it, and a one-line reproducer:
# (pattern, cause, area, reproducer). The first pattern that matches the verdict wins.
CAUSES = [
    (r"no attribute 'Function'|\.forward\(\) missing 1 required positional|save_for_backward|ctx\.",
     "torch.autograd.Function (PyTorch's contract: static forward/backward with ctx, .apply)", "engineapi",
     "class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x): ctx.save_for_backward(x); return x.clamp(min=0)\n"
     "    @staticmethod\n    def backward(ctx, g): x, = ctx.saved_tensors; return g * (x > 0)\ny = F.apply(torch.randn(3, requires_grad=True))"),
    (r"utils\.data|engine\.utils|no attribute 'utils'|torch\.utils is not available",
     "torch.utils.data (Dataset, TensorDataset, DataLoader) is missing / not importable", "engineapi (module) + programs (import)",
     "import torch.utils.data as Data; loader = Data.DataLoader(Data.TensorDataset(torch.ones(4, 2)), batch_size=2)"),
    (r"import numpy", "`import numpy as np` refused in programs", "programs", "import numpy as np; a = np.arange(6).reshape(2, 3)"),
    (r"from __future__", "`from __future__ import print_function` refused", "programs", "from __future__ import print_function"),
    (r"from torch\.autograd import Variable|no attribute 'Variable'", "`torch.autograd.Variable` (import and the name)",
     "programs (import) + engineapi (Variable)", "from torch.autograd import Variable; v = Variable(torch.ones(2), requires_grad=True)"),
    (r"from torch import|from torch\.nn import|import torch\.\w+(\.\w+)* as|from torch\.\w+ import",
     "`from torch[.sub] import name` / `import torch.sub as x` refused", "programs",
     "from torch import tensor, nn; from torch.nn import init; import torch.optim as optim"),
    (r"import sys|import pdb|import os\\b",
     "`import sys` / `import pdb` refused (by SPEC's design today; real scripts use sys.stdout.write and leave `import pdb` in)",
     "lead (SPEC decision), then programs", "import sys; sys.stdout.write('x')"),
    (r"import random|import math|import string|import itertools|from itertools|import copy|import time|import inspect|from dataclasses|from typing",
     "standard-library import refused (SPEC section 2 lists random, time, inspect, itertools, dataclasses, typing, ...)", "programs",
     "import random; random.seed(0); random.randint(0, 3)\nimport time; import inspect; from dataclasses import dataclass"),
    (r"LongTensor|FloatTensor|DoubleTensor|IntTensor|ByteTensor|BoolTensor|no attribute 'Tensor'",
     "legacy typed constructors (torch.FloatTensor / LongTensor / ...)", "engineapi", "torch.FloatTensor([[1, 2], [3, 4]]); torch.LongTensor([1, 0])"),
    (r"keyword argument '(keepdims|axis|size|input|other)'",
     "keyword aliases PyTorch accepts (keepdims=, axis=, size= on factories)", "engineapi",
     "x = torch.ones(2, 3); x.sum(1, keepdims=True); torch.randn(size=(2, 3))"),
    (r"name '(id|type|vars|globals|setattr|iter|next)' is not defined", "a builtin missing in programs", "programs", "id(torch.ones(1))"),
    (r"lr_scheduler|StepLR|LBFGS|Adadelta|Adamax|NAdam|RAdam", "optimisers and schedulers (LBFGS, Adadelta, StepLR import, ...)",
     "engineapi (+ programs for the import)", "from torch.optim.lr_scheduler import StepLR; opt = torch.optim.LBFGS([torch.zeros(2, requires_grad=True)])"),
    (r"accelerator", "torch.accelerator (is_available / current_accelerator)", "engineapi", "torch.accelerator.is_available()"),
    (r"private to the host|starting with '_'", "a program's own private names are refused", "sandbox", "class A:\n    def _f(self): return 1\nA()._f()"),
    (r"Transformer|scaled_dot_product|LazyLinear", "transformer layers / SDPA / LazyLinear", "engineapi", "nn.TransformerEncoderLayer(8, 2)"),
    (r"'method' is not available|decorator|property|classmethod|staticmethod",
     "decorators and descriptors on program classes", "programs", "class A:\n    @property\n    def x(self): return 1"),
    (r"format", "str.format / format()", "programs", "'{:+.2f}'.format(torch.tensor(1.5))"),
    (r"__name__", "__name__ in programs", "programs", "if __name__ == '__main__': pass"),
    (r"ImportError|ModuleNotFoundError|No module named", "another import is refused or missing", "programs", ""),
    (r"got range\)", "indexing a tensor with a Python range (x[range(n), y])", "engineapi",
     "x = torch.ones(3, 4); x[range(3), torch.tensor([0, 1, 2])]"),
    (r"name '__name__'", "__name__ in programs", "programs", "if __name__ == '__main__': pass"),
    (r"is not available|not allowed", "a name or attribute the sandbox refuses", "sandbox", ""),
    (r"has no attribute|unexpected keyword|takes .* positional|missing .* required",
     "engine API missing or different", "engineapi", ""),
    (r"^wrong values", "wrong values (a fidelity bug)", "the op's owner (see the message)", ""),
]


# Seen while building the corpus, beside the per-script results.
NOTES = [
    "HTTP: a run whose `outputs` names a program-side NumPy array (`predicted = model(x).detach().numpy()`, "
    "yunjey/linear_regression) answers **500** `InternalError: AttributeError: 'ndarray' object has no attribute 'grad'`; "
    "it should answer the array (or a 422 naming the output). Reproducer: POST /run "
    "`{\"program\": \"import torch\\na = torch.ones(2).numpy()\", \"outputs\": [\"a\"]}`. Area: wire (output walking).",
]


def classify(verdict):
    m = re.match(r"ImportError at line \d+: (.*?) is not allowed", verdict)
    if m:   # judge by the refused statement, not the list of allowed ones that follows it
        verdict = "ImportError: " + m.group(1)
    for pattern, cause, area, repro in CAUSES:
        if re.search(pattern, verdict):
            return cause, area, repro
    return "other", "?", ""


def run_all(words=()):
    sys.path.insert(0, str(harness.HERE.parent / "server"))
    import httpx
    from server_harness import LiveServer

    server = LiveServer().start()
    rows = {}
    try:
        with httpx.Client(base_url=server.url, timeout=120) as client:
            for script in harness.discover():
                if words and not any(w in script.id for w in words):
                    continue
                expected = harness.load_expected(script)
                rows[script.id] = {}
                for mode in harness.MODES:
                    t0 = time.monotonic()
                    try:
                        result = harness.run_mode(script, expected, mode, client)
                        v = harness.verdict(script, expected, result)
                    except Exception as e:  # noqa: BLE001 - a harness problem is a result too
                        v = f"HarnessError: {type(e).__name__}: {e}"
                    rows[script.id][mode] = (v, time.monotonic() - t0)
                    print(f"{script.id:55s} {mode:9s} {time.monotonic() - t0:6.2f}s {v[:110]}", flush=True)
    finally:
        server.stop()
    return rows


def source_table(rows):
    """The per-source table (markdown lines) and the totals."""
    lines = ["| source | scripts | in-process passes | interpreter passes | HTTP passes |",
             "| --- | ---: | ---: | ---: | ---: |"]
    by_source = collections.defaultdict(list)
    for sid, modes in rows.items():
        by_source[sid.split("/")[0]].append(modes)
    total = [0, 0, 0, 0]
    for source in sorted(by_source):
        ms = by_source[source]
        counts = [sum(m[mode][0] == "pass" for m in ms) for mode in harness.MODES]
        total = [total[0] + len(ms)] + [a + b for a, b in zip(total[1:], counts)]
        lines.append(f"| {source} | {len(ms)} | {counts[0]} | {counts[1]} | {counts[2]} |")
    lines.append(f"| **all** | **{total[0]}** | **{total[1]}** | **{total[2]}** | **{total[3]}** |")
    return lines, total


def write_status(rows):
    table, total = source_table(rows)
    lines = ["# Real-code corpus status", "",
             "Written by `tests/realcode/status.py`; each public script run in-process "
             "(`import gradserve.engine as torch`), through the interpreter, and over HTTP, compared "
             "with PyTorch's recorded answers. `pass` means every recorded value and gradient matched "
             "(outputs a script's header marks shape-only were compared by shape and dtype).", "",
             "## Per source", ""] + table
    lines += ["", "## Per script", "", "| script | in-process | interpreter | HTTP |", "| --- | --- | --- | --- |"]
    scripts = {sc.id: sc for sc in harness.discover()}
    for sid, modes in rows.items():
        weak = sorted(scripts[sid].shape_only)
        note = f" (by shape: {', '.join(weak)})" if weak else ""
        cells = [(modes[m][0] + (note if modes[m][0] == "pass" else "")).replace("|", "\\|") for m in harness.MODES]
        lines.append(f"| `{sid}` | " + " | ".join(cells) + " |")
    (harness.HERE / "STATUS.md").write_text("\n".join(lines) + "\n")
    xfail = {sid: {m: v for m, (v, _) in modes.items() if v != "pass"} for sid, modes in rows.items()}
    xfail = {k: v for k, v in xfail.items() if v}
    (harness.HERE / "xfail.json").write_text(json.dumps(xfail, indent=1, sort_keys=True) + "\n")
    return total


def write_failures(rows, path):
    groups = collections.defaultdict(lambda: collections.defaultdict(list))
    repros = {}
    for sid, modes in rows.items():
        for mode, (v, _) in modes.items():
            if v != "pass":
                cause, area, repro = classify(v)
                groups[(cause, area)][sid].append((mode, v))
                repros[(cause, area)] = repro
    order = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    out = ["# Real-code corpus failures, by cause (most scripts blocked first)", "",
           f"Generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by tests/realcode/status.py on "
           "h/corpus. A script counts under the first error it meets in each mode; fixing one cause may "
           "uncover the next. Reproduce one: `cd /work/wt/corpus && .venv/bin/python tests/realcode/harness.py "
           "SCRIPT_ID MODE` (modes: inprocess, interp, http); scripts are tests/realcode/scripts/SCRIPT_ID.py.", ""]
    out += source_table(rows)[0] + [""]
    if NOTES:
        out += ["## Noticed beside the per-script results", ""] + [f"- {n}" for n in NOTES] + [""]
    for (cause, area), scripts in order:
        out.append(f"## {cause} - {len(scripts)} scripts - area: {area}")
        out.append("")
        if repros[(cause, area)]:
            out += ["Reproducer (a program):", "", "```python", repros[(cause, area)], "```", ""]
        for sid, fails in sorted(scripts.items()):
            for mode, v in fails:
                v = v.split("; programs may use:")[0]
                out.append(f"- `{sid}` [{mode}] {v[:240]}")
        out.append("")
    pathlib_write(path, "\n".join(out) + "\n")


def pathlib_write(path, text):
    import pathlib
    pathlib.Path(path).write_text(text)


def main(argv):
    failures = None
    if "--failures" in argv:
        i = argv.index("--failures")
        failures = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    rows = run_all(argv)
    if not argv:
        total = write_status(rows)
        print("scripts, in-process, interpreter, HTTP passes:", total)
    if failures:
        write_failures(rows, failures)


if __name__ == "__main__":
    main(sys.argv[1:])
