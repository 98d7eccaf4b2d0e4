"""Fixtures for the server tests: one live server per test process (see server_harness)."""
import httpx
import pytest

from server_harness import LiveServer, open_session


@pytest.fixture(scope="session")
def live_server():
    server = LiveServer().start()
    yield server
    server.stop()


@pytest.fixture
def http(live_server):
    with httpx.Client(base_url=live_server.url, timeout=60) as client:
        yield client


@pytest.fixture
def session(http):
    s = open_session(http)
    yield s
    s.delete()
