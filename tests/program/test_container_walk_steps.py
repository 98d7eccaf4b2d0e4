"""A host call's container result is walked (access._wrap_container: are all its items program
values?) at a step per item (attack8 F1).

``collections.OrderedDict(a=big)`` and ``defaultdict(f, a=big)`` return a container holding the
program's ``big``, and the walk over it cost no steps: 1000 such calls on a 10M-item list ran to the
30 s wall-time limit where any counted loop stops at the step limit in ~7 s, and a list holding one
big list many times over was walked as many times.
"""
import pytest

from gradserve.engine.program import Limits

LIMITS = Limits(steps=200_000, wall_time_s=20.0, sequence_length=1_000_000)


@pytest.mark.parametrize("source", [
    "import collections\nbig = [0] * 100_000\nfor i in range(100):\n    x = collections.OrderedDict(a=big)",
    "import collections\nbig = [0] * 100_000\nfor i in range(100):\n    x = collections.defaultdict(None, a=big)",
    # one call: the same 1000-item list 1000 times over
    "import collections\ninner = [0] * 1000\nbig = [inner] * 1000\nx = collections.OrderedDict(a=big)",
    # a chain of OrderedDicts, each walked again by the next
    "import collections\nx = collections.OrderedDict()\nfor i in range(2000):\n    x = collections.OrderedDict(a=x)",
])
def test_walking_a_host_results_contents_costs_steps(run_err, source):
    err = run_err(source, limits=LIMITS)
    assert err.type == "LimitExceeded" and err.limit == "steps", err.to_dict()


def test_small_containers_and_tolist_still_run(run_ok):
    out, ns = run_ok("import collections\n"
                     "d = collections.OrderedDict(a=[1, 2, 3], b={'k': (4, 5)})\n"
                     "dd = collections.defaultdict(list, a=[1])\n"
                     "dd['z'].append(2)\n"
                     "t = torch.arange(1000).tolist()\n"
                     "sd = nn.Linear(3, 2).state_dict()\n"
                     "print(list(d.items()), dict(dd), sum(t), list(sd))", limits=LIMITS)
    assert out.stdout == ("[('a', [1, 2, 3]), ('b', {'k': (4, 5)})] {'a': [1], 'z': [2]} 499500 "
                          "['weight', 'bias']\n")
