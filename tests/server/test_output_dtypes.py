"""Outputs of every dtype a program's NumPy can make (attack report S4).

A program-side NumPy array of uint16/uint32/uint64/complex64/complex128 reached the answer encoder,
which has no name for those dtypes: 500 in every encoding, and over the WebSocket an InternalError
event that reused seq 0. Now the output walk refuses them with a 422 naming the output and the dtype
(the wire carries the engine's dtypes only), every dtype the wire has is answered exactly, and an
unexpected failure of a started run is that run's own error event with its next seq.
"""
import base64
import json

import numpy as np
import pytest
from websockets.sync.client import connect

from gradserve.engine.program.stdlib import numpy as program_numpy
from gradserve.server.wire_frames import DTYPES as WIRE

from test_hostile_wire import neighbour  # noqa: F401  (the fixture)

ALL = program_numpy._ALLOWED            # every dtype a program's NumPy arrays may have
UNNAMED = [d for d in ALL if d not in WIRE]


def _np(dtype):
    return "np.bool_" if dtype == "bool" else f"np.{dtype}"


def test_the_sweep_covers_the_unnamed_dtypes():
    assert {"uint16", "uint32", "uint64", "complex64", "complex128"} <= set(UNNAMED)


def _decoded(r, encoding, name="y"):
    if encoding == "binary":
        n = int(r.headers["Inference-Header-Content-Length"])
        head = json.loads(r.content[:n])
        entry = head["values"][name]
        return np.frombuffer(r.content[n:n + entry["binary_data_size"]], entry["dtype"])
    entry = r.json()["values"][name]
    if encoding == "base64":
        return np.frombuffer(base64.b64decode(entry["b64"]), entry["dtype"])
    return np.array(entry["data"], entry["dtype"])


@pytest.mark.parametrize("encoding", ["json", "base64", "binary"])
@pytest.mark.parametrize("dtype", ALL)
def test_a_numpy_output_of_every_dtype_answers_or_is_a_422_naming_it(session, neighbour, dtype, encoding):
    for program, name in ((f"import numpy as np\ny = np.arange(3).astype({_np(dtype)})", "y"),
                          (f"import numpy as np\ny = [torch.ones(1), np.arange(3).astype({_np(dtype)})]", "y")):
        r = session.run(program, outputs=[name], encoding=encoding)
        if dtype in WIRE:
            assert r.status_code == 200, r.text
            if "y = np" in program:
                np.testing.assert_array_equal(_decoded(r, encoding), np.arange(3).astype(dtype))
        else:
            assert r.status_code == 422, r.text
            error = r.json()["error"]
            assert error["type"] == "TypeError" and error["name"] == "y" and dtype in error["message"], error
    neighbour.check()


def test_numpy_scalars_of_every_dtype_answer_or_are_refused(session):
    for dtype in ALL:
        r = session.run(f"import numpy as np\ny = {_np(dtype)}(3)", outputs=["y"])
        assert r.status_code in (200, 422), (dtype, r.text)
        if r.status_code == 200:
            assert r.json()["values"]["y"] == (True if dtype == "bool" else 3), (dtype, r.text)


def _events(ws, run_id):
    out = []
    while True:
        event = json.loads(ws.recv(timeout=30))
        if event.get("run") == run_id:
            out.append(event)
            if event["type"] in ("result", "error", "cancelled"):
                return out


@pytest.mark.parametrize("dtype", UNNAMED)
def test_over_the_websocket_an_unnamed_dtype_is_an_error_event_in_sequence(live_server, session, neighbour, dtype):
    with connect(f"{live_server.ws_url}{session.path}/stream?token={session.token}") as ws:
        ws.send(json.dumps({"type": "run", "id": "r", "program": f"import numpy as np\nprint(1)\ny = np.ones(2, dtype={_np(dtype)})",
                            "outputs": ["y"]}))
        events = _events(ws, "r")
    assert [e["seq"] for e in events] == list(range(len(events))), events
    assert events[-1]["type"] == "error" and events[-1]["status"] == 422, events[-1]
    assert events[-1]["error"]["type"] == "TypeError" and dtype in events[-1]["error"]["message"]
    neighbour.check()


def test_an_unexpected_failure_is_the_runs_own_error_event_and_a_json_500(live_server, session, neighbour, monkeypatch):
    """A bug of the server's (here: the answer's reading made to fail) still answers in order: the run's
    error event takes the run's next seq (it reused seq 0), and HTTP answers a JSON 500."""
    from gradserve.server import answers

    def broken(reply, buffers):
        raise RuntimeError("simulated")

    monkeypatch.setattr(answers, "run_skeleton", broken)
    with connect(f"{live_server.ws_url}{session.path}/stream?token={session.token}") as ws:
        ws.send(json.dumps({"type": "run", "id": "r", "program": "print(1)\ny = torch.ones(2)", "outputs": ["y"]}))
        events = _events(ws, "r")
    assert [e["seq"] for e in events] == list(range(len(events))), events
    assert events[0]["type"] == "started" and events[-1]["type"] == "error", events
    assert events[-1]["status"] == 500 and events[-1]["error"]["type"] == "InternalError"
    r = session.run("y = torch.ones(2)", outputs=["y"])
    assert r.status_code == 500 and r.json()["error"]["type"] == "InternalError", r.text
    monkeypatch.undo()
    assert session.ok("z = torch.ones(2)", outputs=["z"])["values"]["z"]["data"] == [1.0, 1.0]
    neighbour.check()
