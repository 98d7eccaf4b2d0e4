"""The README's first example, run as a new user runs it: its curl commands against a live server."""
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def _curl_block():
    text = README.read_text(encoding="utf-8")
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        if "curl" in block and "/run" in block:
            return block
    raise AssertionError("the README has no curl example of a run")


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")
def test_the_readme_curl_example_answers_the_gradient(live_server):
    lines = [line for line in _curl_block().replace("\\\n", " ").splitlines() if line.strip()]
    create, run = lines
    port = live_server.settings.port
    create = create.split("#")[0].replace("localhost:8000", f"localhost:{port}")
    run = run.replace("localhost:8000", f"localhost:{port}")
    created = json.loads(subprocess.run(create, shell=True, capture_output=True, text=True, check=True).stdout)
    assert set(created) == {"id", "token", "device", "expires_at"}
    env = {"ID": created["id"], "TOKEN": created["token"], "PATH": "/usr/bin:/bin"}
    answer = subprocess.run(run, shell=True, capture_output=True, text=True, check=True, env=env).stdout
    body = json.loads(answer)
    assert body["values"]["y"] == {"shape": [], "dtype": "float32", "data": 14.0}
    # The smallest example answers its gradient: x required grad and received one (SPEC section 3).
    assert body["grads"] == {"x": {"shape": [3], "dtype": "float32", "data": [2.0, 4.0, 6.0]}}
