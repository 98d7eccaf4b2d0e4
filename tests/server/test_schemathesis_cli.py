"""schemathesis run as an outside tool runs it: the ``st`` command line, every check, against a live
server, with OpenAPI links from POST /v1/sessions carrying the new session's id and token into the
stateful phase. Bounded in examples and time so the suite stays fast."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from server_harness import LiveServer

pytestmark = pytest.mark.slow

CONFIG = Path(__file__).with_name("schemathesis.toml")


def _st():
    found = Path(sys.executable).with_name("st")
    return str(found) if found.exists() else shutil.which("st")


@pytest.fixture(scope="module")
def fuzzed_server():
    server = LiveServer(workers=1).start()
    try:
        with server.limits(wall_time_s=2.0):
            yield server
    finally:
        server.stop()


@pytest.mark.skipif(_st() is None, reason="needs schemathesis's st command")
def test_st_run_with_every_check_finds_nothing(fuzzed_server, tmp_path):
    command = [_st(), "--config-file", str(CONFIG), "run", fuzzed_server.url + "/openapi.json",
               "--checks", "all", "--exclude-checks", "ignored_auth",
               "--max-examples", "5", "--max-time", "45", "--seed", "7", "--workers", "1",
               "--request-timeout", "20", "--no-color", "--output-sanitize", "false"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-6000:]
    # Every phase ran, the stateful one included: the links got it past authentication.
    for phase in ("Coverage", "Fuzzing", "Stateful"):
        assert re.search(rf"✅\s+{phase}", output), output[-3000:]
    stateful = re.search(r"Stateful \(in [^)]*\)[^❌]*?✅ (\d+) passed", output)
    assert stateful and int(stateful.group(1)) > 0, output[-3000:]
    links = re.search(r"API Links:\s+(\d+) covered", output)
    assert links and int(links.group(1)) >= 8, output[-3000:]   # every session route reached with a token
