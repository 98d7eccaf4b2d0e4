"""Hostile pass 16 (tests/hostile_attack16_log.md): program-side findings.

F1: ``split``, ``chunk`` and ``unbind`` refused a call that would return more than 2**20 tensors
(``sequence_length``) before building them, but ``tensor_split`` was given chunk's check, which caps the
count at the dim's size, while ``tensor_split(n)`` returns n tensors whatever the size (the extra ones
empty): ``torch.ones(3).tensor_split(2 * 10**7)`` ran 30 s to the wall-time limit. ``split`` with a list
of sizes, ``hsplit``/``vsplit``/``dsplit`` (their sections divide a size-0 dim) and NumPy's ``split``,
``array_split`` and kin were not checked at all (``np.array_split(np.ones(3), 10**7)``: 18 s, then
out of memory). They are all counted now, before the work.
"""
import time

import pytest


@pytest.mark.parametrize("program", [
    "x = torch.ones(3).tensor_split(2 * 10**7)",
    "x = torch.tensor_split(torch.ones(3), 2 * 10**7)",
    "x = torch.ones(3).tensor_split(torch.tensor(2 * 10**7))",
    "x = torch.ones(3).tensor_split([0] * (2 * 10**6))",
    "x = torch.ones(3).tensor_split(torch.zeros(2 * 10**6, dtype=torch.long))",
    "x = torch.zeros(2 * 10**6).split([1] * (2 * 10**6))",
    "x = torch.split(torch.zeros(2 * 10**6), [1] * (2 * 10**6))",
    "x = torch.hsplit(torch.ones(0), 2 * 10**6)",
    "x = torch.ones(0, 0).vsplit(2 * 10**6)",
    "x = torch.dsplit(torch.ones(1, 1, 0), [0] * (2 * 10**6))",
    "import numpy as np\nx = np.array_split(np.ones(3), 2 * 10**7)",
    "import numpy as np\nx = np.split(np.ones(0), 2 * 10**7)",
    "import numpy as np\nx = np.array_split(np.ones(3), [1] * (2 * 10**6))",
    "import numpy as np\nx = np.hsplit(np.ones(0), 2 * 10**7)",
])
def test_splits_into_too_many_pieces_are_refused_before_the_work(program, run_err):
    start = time.monotonic()
    err = run_err(program)
    assert err.type == "LimitExceeded" and err.limit == "sequence_length", (err.type, err.message)
    assert "tensors (at most 1048576)" in err.message
    assert time.monotonic() - start < 5


@pytest.mark.parametrize("program, expected", [
    ("x = [t.shape[0] for t in torch.ones(10).tensor_split(3)]", [4, 3, 3]),
    ("x = [t.shape[0] for t in torch.ones(3).tensor_split(5)]", [1, 1, 1, 0, 0]),
    ("x = [t.shape[0] for t in torch.ones(10).tensor_split([2, 5])]", [2, 3, 5]),
    ("x = [t.shape[0] for t in torch.ones(10).tensor_split(torch.tensor([2, 5]))]", [2, 3, 5]),
    ("x = [t.shape[0] for t in torch.ones(10).tensor_split(torch.tensor(4))]", [3, 3, 2, 2]),
    ("x = [t.shape[0] for t in torch.ones(10).split([2, 8])]", [2, 8]),
    ("x = [t.shape[1] for t in torch.hsplit(torch.ones(4, 4), 2)]", [2, 2]),
    ("import numpy as np\nx = [len(a) for a in np.array_split(np.ones(10), 3)]", [4, 3, 3]),
    ("import numpy as np\nx = [len(a) for a in np.split(np.ones(10), [2, 4])]", [2, 2, 6]),
])
def test_splits_within_the_limit_answer_as_before(program, expected, run_ok):
    out, ns = run_ok(program)
    assert ns.get("x") == expected
