"""Fixtures for the real-code corpus: one live server per test process for the HTTP mode."""
import pathlib
import sys

import pytest

CORPUS_CLIENT_TIMEOUT_S = 300   # past the server's wall time for a cell (harness.CORPUS_WALL_TIME_S)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "server"))


@pytest.fixture(scope="session")
def realcode_client():
    import httpx
    from server_harness import LiveServer

    # the corpus checks answers, not speed: a training script gets the wall time a loaded 2-core CI
    # machine may need (harness.CORPUS_WALL_TIME_S, as in the interpreter mode)
    import harness
    server = LiveServer(limits={"wall_time_s": harness.CORPUS_WALL_TIME_S}).start()
    try:
        with httpx.Client(base_url=server.url, timeout=CORPUS_CLIENT_TIMEOUT_S) as client:
            yield client
    finally:
        server.stop()
