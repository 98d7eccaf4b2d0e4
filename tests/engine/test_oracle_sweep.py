"""The engine against PyTorch on generated inputs (differential testing).

Each case calls one public function or Tensor method with the same generated arguments on
gradserve.engine and on torch (see ``oracle_cases.py``): dtypes, 0-d and empty shapes,
broadcasting, non-contiguous views, negative and out-of-range dims, Python scalars, NaN/inf/-0.0,
ties, integer overflow and division, in-place variants. ``oracle_harness.check`` compares values,
dtype, shape, autograd flags, gradients and the kind of error raised. A difference known and
left is listed in ``KNOWN`` with its reason and runs as a strict xfail.
"""
import inspect

import pytest

import gradserve.engine as gs
from gradserve.engine.program import allowlist
from oracle_cases import FAMILIES, PLAIN_FAMILIES, probe_cases
from oracle_harness import check, torch
from oracle_known import KNOWN

pytestmark = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _public(names, theirs):
    return sorted(n for n in names if not inspect.isclass(getattr(theirs, n, None)) and callable(getattr(theirs, n, None)))


def swept_names():
    """The functions and Tensor methods that programs reach and PyTorch also has."""
    if torch is None:
        return [], []
    functions = _public(allowlist.MODULES["torch"].names, torch)
    methods = _public(allowlist.TYPES["gradserve.engine.tensor.Tensor"].attrs, torch.Tensor)
    return functions, [n for n in methods if callable(getattr(gs.Tensor, n, None))]


def all_cases():
    functions, methods = swept_names()
    inplace = {n for n in methods if n.endswith("_")}
    cases = [c for family in FAMILIES for c in family(inplace)] + [c for family in PLAIN_FAMILIES for c in family()]
    covered = {c.target.partition(".")[2].removesuffix("_") for c in cases}
    covered |= {n + "_" for n in covered}
    cases += list(probe_cases(functions, methods, covered))
    seen = {}
    for case in cases:
        n = seen[case.id] = seen.get(case.id, 0) + 1
        if n > 1:
            case.id = f"{case.id}#{n}"
    return cases


CASES = all_cases()
BY_TARGET = {}
for _case in CASES:
    if _case.id not in KNOWN:
        BY_TARGET.setdefault(_case.target, []).append(_case)


# one test per function (a test per case would cost pytest more than the cases themselves)
@pytest.mark.parametrize("target", sorted(BY_TARGET))
def test_engine_matches_pytorch(target):
    failures = []
    for case in BY_TARGET[target]:
        try:
            check(case)
        except AssertionError as error:
            failures.append(f"{case.id}: {str(error).strip().splitlines()[0]}")
    assert not failures, f"{len(failures)} cases differ from PyTorch:\n" + "\n".join(failures)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=pytest.mark.xfail(reason=KNOWN[c.id], strict=True))
                                  for c in CASES if c.id in KNOWN])
def test_known_mismatch(case):
    check(case)


def test_known_mismatches_are_still_generated():
    ids = {c.id for c in CASES}
    assert not [k for k in KNOWN if k not in ids]
