"""Fixtures for the real-code corpus: one live server per test process for the HTTP mode."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "server"))


@pytest.fixture(scope="session")
def realcode_client():
    import httpx
    from server_harness import LiveServer

    server = LiveServer().start()
    try:
        with httpx.Client(base_url=server.url, timeout=120) as client:
            yield client
    finally:
        server.stop()
