"""A program may add names of its own to its views of the engine's modules (ikostrikov's flows do
``nn.MaskedLinear = MaskedLinear``): this session's only, held with its variables (counted in its bytes,
released past its limit), never replacing or deleting one of the engine's names."""
import pytest

from gradserve.engine.program import Limits, Namespace, run


def test_added_names_are_read_imported_and_deleted_in_the_same_session(run_ok):
    out, ns = run_ok(
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "class MaskedLinear(nn.Linear):\n"
        "    pass\n"
        "nn.MaskedLinear = MaskedLinear\n"
        "F.double = lambda x: x * 2\n"
        "from torch.nn import MaskedLinear as ML\n"
        "print(ML is MaskedLinear, type(nn.MaskedLinear(2, 3)).__name__, F.double(torch.ones(1)).tolist())\n")
    assert out.stdout == "True MaskedLinear [2.0]\n"
    out, _ = run_ok("print(hasattr(nn, 'MaskedLinear'))\ndel F.double\nprint(hasattr(F, 'double'))\n", ns)
    assert out.stdout == "True\nFalse\n"


def test_added_names_are_not_seen_by_other_sessions(run_ok, run_err):
    run_ok("import torch\ntorch.mine = 3\n")
    err = run_err("import torch\nx = torch.mine\n")
    assert err.type == "AttributeError" and "has no attribute 'mine'" in err.message


@pytest.mark.parametrize("source", ["import torch.nn as nn\nnn.Linear = 3", "import torch\ntorch.nn = None",
                                    "import torch.nn.functional as F\nF.relu = lambda x: x",
                                    "import torch\ndel torch.cat", "import math\nmath.pi = 3"])
def test_the_engines_names_stay_read_only(run_err, source):
    err = run_err(source)
    assert err.type == "AttributeError" and "the engine's names are read-only" in err.message, err.to_dict()


def test_what_added_names_hold_counts_in_the_session_bytes():
    ns, limits = Namespace(), Limits(session_bytes=50_000_000)
    out = run("import torch\ntorch.stash = torch.ones(4_000_000)\n", ns, limits)
    assert out.ok and ns.nbytes() == 16_000_000
    out = run("torch.stash2 = torch.ones(12_000_000)\n", ns, limits)
    assert not out.ok and out.error.limit == "session_bytes"
    assert "torch.stash2" in out.error.message
    out = run("print(hasattr(torch, 'stash'), hasattr(torch, 'stash2'))\n", ns, limits)
    assert out.ok and out.stdout == "True False\n"
