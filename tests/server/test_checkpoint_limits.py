"""The number of tensors in a checkpoint and in a session's listing is bounded (attack report S8).

A 38 MB checkpoint of 600,000 empty tensors took 70-80 s to restore, 30-39 s to list and 71 s to save,
and stalled other users' runs for 10 s. Now a checkpoint holds at most ``max_tensors`` (16384 by
default): past it PUT and GET answer 413 naming the limit, a header too long for that many tensors is
refused before it is parsed, and the session listing names the first ``max_tensors`` and says how
many it omitted. The parse and packing run off the event loop.
"""
import json
import struct
import threading
import time

from test_hostile_wire import neighbour  # noqa: F401  (the fixture)


def _checkpoint(n, data=b""):
    head = json.dumps({f"v{i}": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]} for i in range(n)}).encode()
    return struct.pack("<Q", len(head)) + head + data


def test_a_checkpoint_past_max_tensors_is_a_413_naming_the_limit(live_server, session, neighbour):
    with live_server.setting(max_tensors=50):
        r = session.put("/checkpoint", content=_checkpoint(51))
        assert r.status_code == 413, r.text
        error = r.json()["error"]
        assert error["limit"] == "max_tensors" and "50" in error["message"], error
        assert session.put("/checkpoint", content=_checkpoint(50)).status_code == 204
        assert len(session.get().json()["variables"]) == 50
    neighbour.check()


def test_the_listing_and_the_saved_checkpoint_are_bounded_too(live_server, session, neighbour):
    session.ok("ps = nn.ParameterList([nn.Parameter(torch.zeros(1)) for i in range(60)])\nw = torch.ones(2)")
    with live_server.setting(max_tensors=40):
        info = session.get().json()
        assert len(info["variables"]) == 40 and info["omitted"] == 21, info
        r = session.get("/checkpoint")
        assert r.status_code == 413 and r.json()["error"]["limit"] == "max_tensors", r.text
    assert session.get().json().get("omitted") is None
    assert session.get("/checkpoint").status_code == 200
    neighbour.check()


def test_the_attackers_600000_tensor_checkpoint_is_refused_at_once_and_others_keep_running(session, neighbour):
    """The attack itself, on the default limit: refused from its header's length before any parsing, while a
    neighbour's runs keep being answered."""
    content = _checkpoint(600_000)
    latencies, done = [], threading.Event()

    def neighbour_runs():
        while not done.is_set():
            started = time.monotonic()
            neighbour.check()
            latencies.append(time.monotonic() - started)

    runner = threading.Thread(target=neighbour_runs)
    runner.start()
    try:
        r = session.put("/checkpoint", content=content)
    finally:
        done.set()
        runner.join()
    assert r.status_code == 413, r.text
    assert r.json()["error"]["limit"] == "max_tensors", r.text
    assert session.ok("a = torch.ones(1)", outputs=["a"])["values"]["a"]["data"] == [1.0]
    assert latencies, "the neighbour ran"
    neighbour.check()
