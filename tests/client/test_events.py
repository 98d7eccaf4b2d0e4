import io
import json

import numpy as np
import pytest

from gradserve.client import (Backward, BadRequest, Cancelled, Conflict, Dropped, Error, Event,
                              LimitExceeded, Log, Node, ProgramError, Result, Started)
from gradserve.client.events import parse_event
from gradserve.client.progress import ProgressBar
from gradserve.client.streaming import _StreamState, run_message, stream_url


def test_every_server_event_becomes_its_dataclass():
    assert parse_event({"type": "started", "run": "r", "seq": 0}) == Started("r", 0)
    node = parse_event({"type": "node", "run": "r", "seq": 1, "node": {"id": 3, "op": "mul"}})
    assert isinstance(node, Node) and node.node["op"] == "mul"
    assert parse_event({"type": "stdout", "run": "r", "seq": 2, "text": "hi\n"}).text == "hi\n"
    log = parse_event({"type": "log", "run": "r", "seq": 3, "metrics": {"step": 1, "total": 4,
                                                                        "loss": 0.5}})
    assert isinstance(log, Log) and (log.step, log.total, log.metrics["loss"]) == (1, 4, 0.5)
    back = parse_event({"type": "backward", "run": "r", "seq": 4, "node": 3, "grad": {"max": 1}})
    assert isinstance(back, Backward) and back.node == 3
    result = parse_event({"type": "result", "run": "r", "seq": 5, "stdout": "hi\n",
                          "values": {"y": {"shape": [], "dtype": "float32", "data": 2.0}},
                          "grads": {}, "graph": None, "elapsed_ms": 3.0})
    assert isinstance(result, Result) and result.result["y"].dtype == np.float32
    assert isinstance(parse_event({"type": "cancelled", "run": "r", "seq": 6}), Cancelled)
    dropped = parse_event({"type": "dropped", "run": "r", "seq": 7, "node": 5, "backward": 2, "log": 0})
    assert isinstance(dropped, Dropped) and (dropped.node, dropped.backward, dropped.log) == (5, 2, 0)
    other = parse_event({"type": "frobnicated", "run": "r", "node": 5})  # a newer server's event
    assert type(other) is Event and other.raw["node"] == 5 and other.type == "frobnicated"


@pytest.mark.parametrize("message,cls", [
    ({"status": 422, "error": {"type": "NameError", "message": "x", "line": 2, "col": 5}},
     ProgramError),
    ({"status": 408, "error": {"type": "LimitExceeded", "message": "t", "limit": "wall_time"}},
     LimitExceeded),
    ({"status": 409, "error": {"type": "Conflict", "message": "busy"}}, Conflict),
    ({"error": {"type": "ValidationError", "message": "a run needs an id"}}, BadRequest),
])
def test_error_events_map_to_the_same_exceptions_as_http(message, cls):
    event = parse_event({"type": "error", "run": "r", "seq": 1, **message})
    assert isinstance(event, Error) and type(event.error) is cls


def test_stream_state_ends_on_result_and_ignores_other_runs():
    state = _StreamState(run_message("y = 1", None, ["y"], True))
    run = state.run_id
    assert json.loads(json.dumps(state.first_message))["type"] == "run"
    assert state.accept(json.dumps({"type": "started", "run": "other", "seq": 0})) is None
    assert isinstance(state.accept(json.dumps({"type": "started", "run": run, "seq": 0})),
                      Started)
    assert not state.finished
    state.accept(json.dumps({"type": "result", "run": run, "seq": 1, "values": {"y": 1},
                             "grads": {}, "graph": None, "stdout": "", "elapsed_ms": 1}))
    assert state.finished and state.result.values == {"y": 1}
    assert state.pending_error() is None


def test_stream_state_raises_an_error_after_yielding_it():
    state = _StreamState(run_message("y = (", None, None, True))
    event = state.accept(json.dumps({"type": "error", "run": state.run_id, "seq": 0,
                                     "status": 422, "error": {"type": "SyntaxError",
                                                              "message": "bad", "line": 1,
                                                              "col": 6}}))
    assert isinstance(event, Error) and state.finished
    exc = state.pending_error()
    assert isinstance(exc, ProgramError) and (exc.line, exc.col) == (1, 6)
    assert state.pending_error() is None


def test_progress_bar_follows_log_events():
    out = io.StringIO()
    bar = ProgressBar(file=out)
    for step in range(3):
        bar.update(Log("r", step, metrics={"step": step, "total": 3, "loss": 1.0 / (step + 1)}))
    assert bar._bar is None or bar._bar.total == 3
    bar.close(finished=True)
    assert "3/3" in out.getvalue() or "[2/3]" in out.getvalue()
    if "3/3" in out.getvalue():   # tqdm: the filled bar is drawn once (it was twice in a log or a pipe)
        assert out.getvalue().count("3/3") == 1, out.getvalue()


def test_progress_bar_takes_a_programs_tqdm_desc_as_its_title():
    # a program's tqdm(desc="epochs") reports desc with its step: the bar is titled by it, not postfixed
    out = io.StringIO()
    bar = ProgressBar(description="train.py", file=out)
    bar.update(Log("r", 0, metrics={"step": 0, "total": 2, "desc": "epochs"}))
    bar.update(Log("r", 1, metrics={"step": 1, "total": 2, "desc": "epoch 1", "loss": 0.5}))
    bar.close(finished=True)
    text = out.getvalue()
    assert "epoch 1" in text and "desc=" not in text and "loss=0.5" in text, text


def test_stream_url_uses_ws_scheme_and_token_query():
    assert stream_url("http://h:1", "s 1", "t&k") == "ws://h:1/v1/sessions/s%201/stream?token=t%26k"
    assert stream_url("https://h/", "s", "t").startswith("wss://h/v1/sessions/s/stream")
