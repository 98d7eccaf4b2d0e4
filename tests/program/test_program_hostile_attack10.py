"""Hostile pass 10 (tests/hostile_attack10_log.md): the newest program surfaces.

F1: what a session's program modules keep between runs (logging's loggers and the handlers a program
appends to them, warning filters, compiled patterns) was not counted in session_bytes: the walk
started from the variables only, so a session grew run after run with nothing to stop it.
"""
import pytest

from gradserve.engine.program import Limits, Namespace

LIMITS = dict(session_bytes=64 << 20, string_length=4_000_000, wall_time_s=20.0)


# F1: the state of a session's program modules counts in session_bytes ---------------------------
@pytest.mark.parametrize("program", [
    # loggers named by long strings: the registry keeps them, no variable does
    "import logging\ns = 'b' * 3_000_000\nfor i in range(8):\n    logging.getLogger(s[:-10] + 'K%d' % i)",
    # a tensor in a logger's handlers list
    "import logging\nlogging.getLogger('h').handlers.append(torch.zeros(3_000_000))",
    # warning filters with long messages
    "import warnings\ns = 'w' * 3_000_000\nfor i in range(8):\n    warnings.filterwarnings('ignore', s[:-10] + 'K%d' % i)",
])
def test_program_module_state_counts_in_session_bytes_across_runs(program, run_ok, run_err):
    ns = Namespace()
    limits = Limits(**LIMITS)
    for k in range(6):   # about 24 MB a run: past the 64 MB limit by the third
        out, _ = (run_ok if k == 0 else _either)(program.replace("K", f"{k}_"), ns, limits)
        assert ns.nbytes() <= limits.session_bytes + (40 << 20), (k, ns.nbytes())
        if not out.ok:
            assert out.error.type == "LimitExceeded" and out.error.limit == "session_bytes", out.error.to_dict()
            break
    else:
        pytest.fail(f"six runs each keeping ~24 MB in module state stayed within 64 MB: {ns.nbytes()}")
    # the session is usable again: what the modules held was released
    out, _ = run_ok("import logging\nlogging.getLogger('again').warning('ok')", ns, limits)
    assert ns.nbytes() <= limits.session_bytes


def _either(source, ns, limits):
    from gradserve.engine.program import run
    return run(source, ns, limits), ns


def test_program_module_state_is_counted_when_measured():
    from gradserve.engine.program import run
    ns = Namespace()
    out = run("import logging\nlogging.getLogger('a' * 2_000_000)\n"
              "logging.getLogger('t').handlers.append(torch.zeros(1_000_000))", ns, Limits())
    assert out.ok, out.error.to_dict()
    assert ns.nbytes() >= 2_000_000 + 4_000_000


# F2: a namedtuple of millions of fields ---------------------------------------------------------
def test_a_namedtuple_of_many_fields_is_stopped_while_it_is_built(run_err):
    """'a ' * 4_000_000 with rename=True was one host call of 22 s and 1.9 GB (default limits), past
    wall_time and session_bytes with neither checked until it returned: each field's property was
    built at no step's cost. Now each field is a step, and the run's checks see the memory grow."""
    import re
    error = run_err("from collections import namedtuple\nP = namedtuple('P', 'a ' * 600_000, rename=True)",
                    limits=Limits(session_bytes=64 << 20))
    assert error.type == "LimitExceeded" and error.limit == "session_bytes", error.to_dict()
    held = int(re.search(r"holds about (\d+) bytes", error.message).group(1))
    assert held < 300 << 20, error.message   # it had built all 600,000 (about 450 MB) before checking


def test_namedtuples_still_work(run_ok):
    out, ns = run_ok("from collections import namedtuple\nP = namedtuple('P', 'x y', defaults=(2,))\n"
                     "p = P(1)\nq = p._replace(y=5)\nr = P._make([3, 4])\n"
                     "G = namedtuple('G', 'a b c')\nG.__new__.__defaults__ = (None,) * len(G._fields)\n"
                     "print(p, q, r, q._asdict(), G())")
    assert out.stdout == "P(x=1, y=2) P(x=1, y=5) P(x=3, y=4) {'x': 1, 'y': 5} G(a=None, b=None, c=None)\n"


# F6: a logging date format's directives counted before strftime builds them ---------------------
def test_a_logging_date_format_is_counted_before_strftime_builds_it(run_err, run_ok):
    """'%c' * 4_999_999 (a string within the limit) made strftime build 120 million characters,
    626 MB at once, before the result's length was checked."""
    error = run_err("import logging\nf = logging.Formatter('%(asctime)s', datefmt='%c' * 4_999_999)\n"
                    "f.format({'created': 0.0})")
    assert error.type == "LimitExceeded" and error.limit == "string_length", error.to_dict()
    import re
    counted = int(re.search(r"a string of (\d+) characters", error.message).group(1))
    assert counted > 120_000_000, error.message   # what it may build, not the 119,999,976 it had built
    out, _ = run_ok("import logging\nf = logging.Formatter('%(asctime)s|%(message)s', datefmt='%Y-%m-%d')\n"
                    "print(f.format({'created': 0.0, 'message': 'm'})[-11:])")
    assert out.stdout.endswith("|m\n") and len(out.stdout) == 12


# F7: a logger's child name is counted against string_length --------------------------------------
def test_a_child_loggers_name_is_counted_against_string_length(run_err, run_ok, small_limits):
    """lg.getChild(lg.name) doubled a name with no check: 18 million characters from two strings
    of 9 million, and a chain of them grew until session_bytes stopped it."""
    error = run_err("import logging\nlg = logging.getLogger('a' * 600_000)\nlg = lg.getChild(lg.name)",
                    limits=small_limits)
    assert error.type == "LimitExceeded" and error.limit == "string_length" and error.line == 3, error.to_dict()
    out, _ = run_ok("import logging\nprint(logging.getLogger('a').getChild('b').name, "
                    "logging.getLogger().getChild('c').name)")
    assert out.stdout == "a.b c\n"


# F8: the % operator counts the strings it will copy before building the result -----------------
@pytest.mark.parametrize("program", [
    "s = ('%s' * 1000) % tuple(['m' * 100_000] * 1000)",
    "s = ('%(a)s' * 1000) % {'a': 'm' * 100_000}",
    "import logging\nlogging.Formatter('%(message)s' * 1000).format({'message': 'm' * 100_000})",
    "import logging\nlogging.basicConfig(format='%(message)s' * 1000)\nlogging.warning('m' * 100_000)",
])
def test_percent_formatting_is_counted_before_it_is_built(program, run_err, small_limits):
    """A string argument is copied once per conversion that reads it: ('%(a)s' * 1000) % {'a': 'm' * 10**6}
    (and the same as a logging format, whose records are formatted with the program's %) built a
    billion characters, 974 MB at once, before the result's length was checked."""
    error = run_err(program, limits=small_limits)
    assert error.type == "LimitExceeded" and error.limit == "string_length", error.to_dict()
    assert "formatting would build about 1000" in error.message, error.message


def test_ordinary_percent_formatting_still_works(run_ok):
    out, _ = run_ok("print('%s-%d-%(x)s' % {'x': 1} if False else '%s-%d' % ('a', 3), '%(a)s%(a)s' % {'a': 'b'}, "
                    "'%%(a)s %s' % 'z', '%5.2f' % 3.14159, '%s' % 'q')")
    assert out.stdout == "a-3 bb %(a)s z  3.14 q\n"


# F9: a namedtuple's repr builds its fields' text as the program's repr() does -------------------
@pytest.mark.parametrize("program", [
    "from collections import namedtuple\nP = namedtuple('P', 'a')\ns = repr(P(['m' * 100_000] * 1000))",
    "from collections import namedtuple\nP = namedtuple('P', 'a')\nprint(P(['m' * 100_000] * 1000))",
    "from collections import namedtuple\nP = namedtuple('P', 'a b')\ns = f\"{P(['m' * 100_000] * 1000, 1)}\"",
    "from collections import namedtuple\nP = namedtuple('P', ['f%d' % i for i in range(20)])\n"
    "s = repr(P(*(['m' * 60_000] * 20)))",
])
def test_a_namedtuple_repr_is_counted_as_it_is_built(program, run_err, small_limits):
    """Its __repr__ used Python's repr of each field: a field holding ['m' * 10**6] * 1000 built a
    billion characters (1.9 GB, 15 s) before the length was checked; a list's own repr is counted first."""
    error = run_err(program, limits=small_limits)
    assert error.type == "LimitExceeded" and error.limit == "string_length", error.to_dict()
    import re
    size = int(re.search(r"(\d+) characters", error.message).group(1))
    assert size < 2 * small_limits.string_length, error.message   # refused as it grew, not once all was built


def test_namedtuple_reprs_are_pythons(run_ok):
    out, _ = run_ok("from collections import namedtuple\nP = namedtuple('P', 'a b')\n"
                    "print(P('x', [1, (2, 'y')]), repr(P(None, {'k': 1.5})), str(P(P(1, 2), True)))")
    assert out.stdout == "P(a='x', b=[1, (2, 'y')]) P(a=None, b={'k': 1.5}) P(a=P(a=1, b=2), b=True)\n"
