"""The README's "Debugging a run" Python example, run as written against a real server."""
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def _python_block():
    section = README.read_text(encoding="utf-8").split("## Debugging a run", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)[0]


def test_the_readme_debugging_example_runs(server_url, capsys):
    code = _python_block().replace("http://localhost:8000", server_url)
    exec(compile(code, "README.md", "exec"), {})   # the README's own client code (test-side Python)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("breakpoint 7 {'function': '<module>', 'line': 7")
    assert out[1].startswith("step 8 ")
    assert float(out[-1]) >= 0
