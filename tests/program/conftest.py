"""Fixtures for the program interpreter's tests: run a program in a fresh session
and get its outcome, asserting it succeeded (``run_ok``) or failed (``run_err``)."""
import textwrap

import pytest

from gradserve.engine.program import Limits, Namespace, run

try:
    import torch as real_torch
except ImportError:  # the suite passes without PyTorch
    real_torch = None


def _run(source, ns=None, limits=None, **kwargs):
    ns = ns if ns is not None else Namespace()
    return run(textwrap.dedent(source), ns, limits, **kwargs), ns


@pytest.fixture
def run_ok():
    """``run_ok(source, ns=None, limits=None, **kw) -> (outcome, namespace)``; the run must succeed."""
    def run_ok(source, ns=None, limits=None, **kwargs):
        out, ns = _run(source, ns, limits, **kwargs)
        assert out.ok, out.error.to_dict()
        return out, ns
    return run_ok


@pytest.fixture
def run_err():
    """``run_err(source, ns=None, limits=None, **kw) -> ProgramError``; the run must fail."""
    def run_err(source, ns=None, limits=None, **kwargs):
        out, ns = _run(source, ns, limits, **kwargs)
        assert not out.ok, f"expected an error, got stdout {out.stdout!r}"
        return out.error
    return run_err


@pytest.fixture
def small_limits():
    """Limits small enough that bombs end quickly."""
    return Limits(steps=200_000, wall_time_s=5.0, tensor_elements=1 << 22, session_bytes=64 << 20,
                  graph_nodes=100_000, sequence_length=1_000_000, string_length=1_000_000,
                  output_bytes=64 << 10)
