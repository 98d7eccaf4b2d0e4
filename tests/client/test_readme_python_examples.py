"""Every ```python example of the README, run as written (the server's address put in where one is
named), with what its comments say it prints checked against what it printed. The "Debugging a run"
example has its own test (test_readme_debugging.py); the shell examples are checked by
tests/server/test_readme_examples.py (curl) and the cluster and docker suites (Ray, compose)."""
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def _blocks():
    """{heading: [python blocks]} of the README, by the nearest heading above each block."""
    out, heading = {}, None
    text = README.read_text(encoding="utf-8")
    for m in re.finditer(r"^(#{2,3} [^\n]*)$|^```python\n(.*?)^```", text, re.M | re.S):
        if m.group(1):
            heading = m.group(1).lstrip("#").strip()
        else:
            out.setdefault(heading, []).append(m.group(2))
    return out


def _run(code, capsys, **names):
    exec(compile(code, "README.md", "exec"), dict(names))   # the README's own Python (test-side code)
    return capsys.readouterr().out.splitlines()


def test_every_python_example_has_a_test_here():
    assert set(_blocks()) == {"The engine", "Programs", "From Python", "The Python client"}


def test_the_engine_example_prints_its_comment(capsys):
    (code,) = _blocks()["The engine"]
    expected = re.search(r"print\(x\.grad\)\s+# (.*)", code).group(1)
    assert _run(code, capsys) == [expected]


def test_the_programs_example_trains_and_prints_ok_and_the_loss(capsys):
    (code,) = _blocks()["Programs"]
    out = _run(code, capsys)
    ok, loss = out[-1].split(" ", 1)
    assert ok == "True" and loss.startswith("tensor(") and "grad_fn" in loss


def test_the_client_example_prints_its_comments(server_url, capsys):
    (code,) = _blocks()["The Python client"]
    assert "http://127.0.0.1:8000" in code
    out = _run(code.replace("http://127.0.0.1:8000", server_url), capsys)
    printed = [line for line in out if not line.startswith(("Started", "Log", "Result", "Stdout"))]
    comments = re.findall(r"print\((?!event).*?\)\s+# (.*)", code)
    assert printed == comments
    kinds = [line.split("(", 1)[0] for line in out if line not in comments]
    assert kinds[0] == "Started" and kinds.count("Log") == 3 and kinds[-1] == "Result", out
