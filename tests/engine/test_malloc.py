"""engine._malloc: the C heap's top pad set at import, and the environment's say over it."""
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")


def _top_pad(**env):
    base = {k: v for k, v in os.environ.items() if k not in ("MALLOC_TOP_PAD_", "GRADSERVE_MALLOC_TOP_PAD")}
    done = subprocess.run([sys.executable, "-c", "import gradserve.engine as g; print(g._malloc.top_pad)"],
                          capture_output=True, text=True, env=dict(base, **env), timeout=120, check=True)
    return done.stdout.strip()


def test_engine_sets_a_32_mib_top_pad_by_default():
    assert _top_pad() == str(32 << 20)


def test_environment_chooses_the_pad_or_leaves_glibc_alone():
    assert _top_pad(GRADSERVE_MALLOC_TOP_PAD=str(8 << 20)) == str(8 << 20)
    assert _top_pad(GRADSERVE_MALLOC_TOP_PAD="0") == "None"
    assert _top_pad(MALLOC_TOP_PAD_="4096") == "None"   # glibc's own setting wins
