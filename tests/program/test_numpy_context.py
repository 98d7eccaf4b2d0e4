"""A run keeps NumPy's allocator context variable cached (engine/_numpy_context.py) and leaves the
host's context as it found it."""
import contextvars

import numpy as np

from gradserve.engine._numpy_context import allocator_var
from gradserve.engine.program import Limits, Namespace, run


def _names():
    return sorted(v.name for v in contextvars.copy_context())


def test_the_allocator_variable_is_numpys_and_found_without_touching_the_host_context():
    before = _names()
    assert allocator_var is not None   # NumPy >= 1.22 on CPython: the C API slot exists
    assert allocator_var.name == "current_allocator"
    assert type(allocator_var.get()).__name__ == "PyCapsule"
    assert _names() == before   # found in a throwaway context: nothing set in the host's


def test_a_run_sets_it_only_while_it_runs_and_arrays_still_allocate():
    ns = Namespace()
    before = _names()
    seen = []

    def on_stdout(text):
        # called from inside the run: the variable is set in the running context then
        seen.append(any(v is allocator_var for v in contextvars.copy_context()))
    out = run("import torch\nx = torch.ones(1000) * 2\nprint(float(x.sum()))", ns, Limits(), on_stdout=on_stdout)
    assert out.ok, out.error
    assert out.stdout == "2000.0\n"
    assert seen and all(seen)
    assert _names() == before
    assert np.ones(3).sum() == 3.0   # the host's NumPy allocates as before


def test_a_failed_run_also_restores_the_context():
    ns = Namespace()
    before = _names()
    out = run("import torch\nx = torch.ones(3)\nraise ValueError('no')", ns, Limits())
    assert not out.ok and out.error.type == "ValueError"
    assert _names() == before


def test_a_run_ignores_floating_point_errors_and_gives_the_host_its_own_state_back():
    """Inside a run NumPy's error state is all "ignore" (PyTorch computes inf and NaN without a warning,
    engine/_numpy_context.ignore_errors); the host's, even a changed one, is back after the run, a failed
    one too."""
    ns = Namespace()
    seen = []

    def on_stdout(text):
        seen.append(np.geterr())
    with np.errstate(divide="raise", over="warn", under="ignore", invalid="call"):
        host = np.geterr()
        for program in ("import torch\nprint(torch.tensor([1.0, -1.0, 0.0]) / 0)",
                        "print(1)\nraise ValueError('no')"):
            out = run(program, ns, Limits(), on_stdout=on_stdout)
            assert out.ok == (program[0] == "i"), out.error
            assert np.geterr() == host
    assert out.error.type == "ValueError"
    assert ns.runtime.active is False
    assert seen and all(s == {"divide": "ignore", "over": "ignore", "under": "ignore", "invalid": "ignore"}
                        for s in seen), seen
    first = run("print(torch.tensor([1.0, -1.0, 0.0]) / 0)", ns, Limits())
    assert first.stdout == "tensor([inf, -inf, nan])\n", first.stdout   # as PyTorch prints it
