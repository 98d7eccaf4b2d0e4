"""A real gradserve server for the client's integration tests: ``gradserve serve`` as a
subprocess on a free local port (the client's own ``embedded_server``), one per test process."""
import pytest

from gradserve.client import Client
from gradserve.client.cli_run import embedded_server

# Small limits so the limit tests are quick; every other test program is far below them.
LIMITS = {"GRADSERVE_LIMIT_STEPS": "200000", "GRADSERVE_LIMIT_WALL_TIME_S": "2",
          "GRADSERVE_SESSION_TTL_S": "600"}


@pytest.fixture(scope="session")
def server_url():
    with embedded_server(env=LIMITS) as url:
        yield url


@pytest.fixture
def client(server_url):
    with Client(server_url) as c:
        yield c


@pytest.fixture
def session(client):
    with client.session() as s:
        yield s
