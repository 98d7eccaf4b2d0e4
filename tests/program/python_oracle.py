"""Runs a snippet both as a program and as CPython itself, for tests that compare the
program-side standard modules and NumPy subset with the real ones."""
import contextlib
import io
import textwrap

from gradserve.engine.program import Namespace, run


def program_stdout(source, ns=None, limits=None):
    out = run(textwrap.dedent(source), ns or Namespace(), limits)
    assert out.ok, out.error.to_dict()
    return out.stdout


def python_stdout(source):
    """What CPython prints for ``source`` (the test's own process: real modules)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(textwrap.dedent(source), "<oracle>", "exec"), {"__name__": "__main__"})  # noqa: S102
    return buf.getvalue()


def assert_same_as_python(source):
    expected = python_stdout(source)
    got = program_stdout(source)
    assert got == expected, f"program printed:\n{got}\nCPython printed:\n{expected}"
    return got
