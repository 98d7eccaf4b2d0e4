"""A session that ends (deleted, or expired and swept) closes its WebSocket connections with an
error event and close code 4404, the code the viewer reports as 'the session has ended'.
Before, a watcher's socket stayed open and silent: the viewer kept showing 'watching <id>' for a
session that no longer existed, and a client waiting on watch() waited forever."""
import json

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from server_harness import open_session


def _url(live_server, session):
    return f"{live_server.ws_url}{session.path}/stream?token={session.token}"


def _watch(ws, watch=True):
    if watch:
        ws.send(json.dumps({"type": "watch"}))
    ws.send(json.dumps({"type": "ping"}))
    assert json.loads(ws.recv(timeout=30))["type"] == "pong"


def _ended(ws):
    """The events up to the close, and the close code."""
    events = []
    with pytest.raises(ConnectionClosed) as info:
        while True:
            events.append(json.loads(ws.recv(timeout=30)))
    return events, info.value.rcvd.code


@pytest.mark.parametrize("watch", [True, False], ids=["watcher", "connection"])
def test_deleting_a_session_closes_its_streams_with_4404(live_server, http, watch):
    s = open_session(http)
    with connect(_url(live_server, s)) as ws:
        _watch(ws, watch)
        assert s.delete().status_code == 204
        events, code = _ended(ws)
    assert code == 4404
    assert events and events[-1]["type"] == "error", events
    assert events[-1]["error"]["type"] == "SessionNotFound"
    assert "ended" in events[-1]["error"]["message"]


def test_an_expired_session_closes_its_watchers_with_4404(live_server, http):
    s = open_session(http, ttl_s=1.0)
    with connect(_url(live_server, s)) as ws:
        _watch(ws)
        events, code = _ended(ws)    # the sweeper (every 0.2 s here) frees it past its second
    assert code == 4404
    assert events[-1]["error"]["type"] == "SessionNotFound"
    assert s.get().status_code == 404
