"""The README's "Debugging a run" examples, run as written against a real server: the Python example
through the client, and the terminal session replayed at the prompt of `gradserve run --debug`."""
import os
import re
import shlex
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def _section():
    return README.read_text(encoding="utf-8").split("## Debugging a run", 1)[1].split("\n## ", 1)[0]


def _python_block():
    return re.findall(r"```python\n(.*?)```", _section(), re.S)[0]


def _terminal_block():
    terminal = _section().split("### In a terminal", 1)[1]
    return re.findall(r"```\n(.*?)```", terminal, re.S)[0]


def test_the_readme_debugging_example_runs(server_url, capsys):
    code = _python_block().replace("http://localhost:8000", server_url)
    exec(compile(code, "README.md", "exec"), {})   # the README's own client code (test-side Python)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("breakpoint 7 {'function': '<module>', 'line': 7")
    assert out[1].startswith("step 8 ")    # next, after the exec; then the run goes on to its end
    assert len(out) == 3 and float(out[-1]) >= 0


def _pattern(line):
    """A transcript line as a regex: its numbers stand for any number (the weights are random)."""
    parts = re.split(r"(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)", line.rstrip())
    out = []
    for i, part in enumerate(parts):
        out.append(r"-?[\d.e+-]+" if i % 2 and "." in part else re.escape(part))
    return "".join(out)


def test_the_readme_terminal_session_replays_as_written(tmp_path, server_url):
    """Each command of the README's transcript is typed at the prompt; what the prompt prints is the
    transcript's next lines (numbers with a decimal point stand for any number)."""
    pexpect = pytest.importorskip("pexpect")
    program = _python_block().split('program = """\n', 1)[1].split('"""', 1)[0]
    (tmp_path / "train.py").write_text(program)            # "the program above, as a file"
    lines = _terminal_block().splitlines()
    command = lines[0].split("#", 1)[0].strip()
    assert command.startswith("$ .venv/bin/gradserve run --debug train.py")   # as typed in a fresh shell
    argv = shlex.split(command[2:])[2:] + ["--url", server_url]
    env = {**os.environ, "HOME": str(tmp_path), "TERM": "dumb", "PYTHONUNBUFFERED": "1"}
    child = pexpect.spawn(sys.executable, ["-m", "gradserve.client.cli_run", *argv], cwd=str(tmp_path),
                          env=env, encoding="utf-8", timeout=60, dimensions=(40, 200))
    try:
        expected, typed = [], None
        for line in lines[1:]:
            if line.startswith("(gradserve) "):
                child.expect_exact("(gradserve) ")
                got = [g for g in child.before.replace("\r", "").split("\n") if g.strip()]
                # (the line typed last is echoed back by the terminal first)
                got = got[1:] if typed is not None and got and got[0].strip() == typed else got
                assert len(got) == len(expected), (got, expected)
                for g, e in zip(got, expected):
                    assert re.fullmatch(_pattern(e), g.rstrip()), (g, e)
                typed = line[len("(gradserve) "):]
                child.sendline(typed)
                expected = []
            else:
                expected.append(line)
        child.expect_exact("(gradserve) ")   # the last command ("n") stopped at the next line
        assert "> train.py(7)<module>()" in child.before
        child.sendline("c")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
