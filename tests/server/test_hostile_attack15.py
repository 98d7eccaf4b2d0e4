"""Hostile pass 15 (tests/hostile_attack15_log.md): server findings.

F1: a WebSocket message was compressed (permessage-deflate, which every websockets and browser client
offers) inside uvicorn's send, on the event loop that serves every session: a run's 192 MiB result (the
most a stream may carry) held the loop about 10 s, once per connection it went to, so /healthz and every
other session's requests waited 10 s (11.5 s with four watchers, whose own run took 26 s). A message
past ws_protocol.COMPRESS_MAX_BYTES is now sent uncompressed (RSV1 unset), as RFC 7692 allows; small
events are still compressed.
"""
import base64
import json

import numpy as np

from websockets.sync.client import connect

from gradserve.server.ws_protocol import COMPRESS_MAX_BYTES


def _frames_seen(ws):
    """Records (rsv1, bytes on the wire) of each data frame ``ws`` receives, before it is decompressed."""
    seen = []
    (deflate,) = ws.protocol.extensions   # permessage-deflate was negotiated
    decode = deflate.decode

    def recording(frame, *args, **kwargs):
        seen.append((frame.rsv1, len(frame.data)))
        return decode(frame, *args, **kwargs)
    deflate.decode = recording
    return seen


def test_a_large_message_is_sent_uncompressed_and_small_ones_compressed(live_server, session):
    n = COMPRESS_MAX_BYTES   # float32: its base64 alone is past the bound
    url = f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token={session.token}"
    with connect(url, max_size=None, compression="deflate") as ws:
        seen = _frames_seen(ws)
        ws.send(json.dumps({"type": "run", "id": "r", "program": f"y = torch.ones({n})\nprint('hi')",
                            "outputs": ["y"], "encoding": "base64"}))
        events = []
        while not events or events[-1]["type"] not in ("result", "error"):
            events.append(json.loads(ws.recv(timeout=60)))
        result = events[-1]
        assert result["type"] == "result", result
        y = np.frombuffer(base64.b64decode(result["values"]["y"]["b64"]), "<f4")
        assert result["values"]["y"]["shape"] == [n] and y.shape == (n,) and (y == 1).all()
        big = [rsv1 for rsv1, size in seen if size > COMPRESS_MAX_BYTES]
        small = [rsv1 for rsv1, size in seen if size < 1000]
        assert big == [False], seen   # the result: sent as it is
        assert small and all(small), seen   # started, stdout: compressed as before
