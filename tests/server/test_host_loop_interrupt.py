"""An engine loop over a long list (``torch.stack`` of three million tensors: seconds of host code,
no statement) outlived the wall-time limit; past the grace period the server killed the session's
process: 408 "its worker was replaced", the session's state lost. Now the run is interrupted in its
host code (engine/program/runtime.py, Runtime.interrupt): a 408/422 LimitExceeded, and the session
keeps its state. Fails before the fix (the worker was replaced, ``kept`` lost)."""


def test_a_host_loop_past_the_deadline_is_a_limit_and_the_session_keeps_its_state(live_server, session):
    session.ok("kept = 7\nl = [torch.ones(1)] * 3_000_000", outputs=[])
    with live_server.limits(wall_time_s=0.5):
        r = session.run("t = torch.stack(l + l + l)")
    assert r.status_code in (408, 422), r.text
    error = r.json()["error"]
    assert error["type"] == "LimitExceeded" and error["limit"] == "wall_time", error
    assert "replaced" not in error["message"]
    assert session.ok("kept = kept + 1", outputs=["kept"])["values"]["kept"] == 8
