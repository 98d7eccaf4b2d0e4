"""Findings of a newcomer's first hour with the SDK (tests/newcomer_log.md), one test each."""
import asyncio

import pytest

from gradserve.client import AsyncClient, DebugCommandError

PROGRAM = "total = 0\nfor i in range(5):\n    total = total + i\n\n# a comment\ndone = total\n"


@pytest.mark.parametrize("breakpoints, words", [
    ([(3, "i >")], "not an expression"),      # a condition that does not parse
    ([4], "no code to stop at"),              # a blank line
    ([99], "no code to stop at"),             # past the end
    ([(3, "i == 2"), 5], "no code to stop at"),   # one bad entry among good ones
])
def test_s2_a_refused_breakpoint_raises_instead_of_a_run_without_pauses(session, breakpoints, words):
    """S2: the server refused the list with an error event and ran on without any breakpoint; the
    iteration yielded nothing and raised nothing, so the run seemed to ignore the breakpoints."""
    run = session.debug(PROGRAM, breakpoints=breakpoints)
    with pytest.raises(DebugCommandError, match=words) as caught:
        for pause in run:
            pause.continue_()
    assert caught.value.command == "breakpoints"
    run.close()
    assert session.run("x = 1", outputs=["x"]).values["x"] == 1     # the session is free again


def test_s2_good_breakpoints_still_pause(session):
    run = session.debug(PROGRAM, breakpoints=[(3, "i == 2")])
    assert [(p.line, p.locals["i"]) for p in run] == [(3, "2")]
    assert run.result is not None


def test_s2_the_async_debugger_raises_too(server_url):
    async def main():
        async with AsyncClient(server_url) as client:
            s = await client.session()
            try:
                run = s.debug(PROGRAM, breakpoints=[(3, "i >")])
                with pytest.raises(DebugCommandError, match="not an expression"):
                    async for pause in run:
                        await pause.continue_()
                await run.close()
            finally:
                await s.close()
    asyncio.run(main())


def test_s3_a_session_used_after_its_client_closed_raises_an_api_error(server_url):
    """S3: httpx's bare RuntimeError("Cannot send a request, as the client has been closed.") escaped."""
    from gradserve.client import APIConnectionError, APIError, Client
    with Client(server_url) as client:
        s = client.session()
    with pytest.raises(APIConnectionError, match="this client is closed") as caught:
        s.run("x = 1")
    assert isinstance(caught.value, APIError)
    with Client(server_url) as again:                      # the session itself lives on: attach and delete it
        again.attach(s.id, s.token).close()


def test_s3_the_async_client_too(server_url):
    from gradserve.client import APIConnectionError

    async def main():
        async with AsyncClient(server_url) as client:
            s = await client.session()
        with pytest.raises(APIConnectionError, match="this client is closed"):
            await s.run("x = 1")
        async with AsyncClient(server_url) as again:
            await again.attach(s.id, s.token).close()
    asyncio.run(main())


def test_s5_a_breakpoint_whose_condition_raises_says_so_in_its_pause(session):
    """S5: a condition that raises stops the run, as pdb does, but the pause looked like a hit (pdb prints
    "*** Error in condition"): with undefined_var > 1 it paused at every iteration for no visible reason."""
    run = session.debug(PROGRAM, breakpoints=[(3, "undefined_var > 1"), (6, "total == 10")])
    pauses = [(p.line, p.condition_error) for p in run]
    assert len(pauses) == 6, pauses                      # 5 failures of line 3's condition, and line 6's hit
    line, failed = pauses[0]
    assert line == 3 and failed["condition"] == "undefined_var > 1" and failed["type"] == "NameError", failed
    assert "undefined_var" in failed["message"], failed
    assert pauses[-1] == (6, None)                       # a condition that holds: no error
    assert run.result is not None


def test_s5_the_cli_prints_the_failed_condition(server_url, tmp_path):
    import io
    from gradserve.client.cli_debug import debug_program_file
    path = tmp_path / "prog.py"
    path.write_text("for i in range(2):\n    j = i\n")
    out = io.StringIO()
    answers = iter(["c", "c", "c", "c"])
    code = debug_program_file(server_url, str(path), {}, None, "cpu", None, [{"line": 2, "condition": "nope > 1"}],
                              out=out, err=out, input_fn=lambda prompt: next(answers))
    assert code == 0, out.getvalue()
    assert "*** Error in condition 'nope > 1': NameError" in out.getvalue(), out.getvalue()


def test_s2_another_watchers_refused_breakpoints_do_not_end_this_run(session, server_url):
    """Every watcher sees a refused debug command: one sent by another watcher (the viewer) to this run
    while it runs must not be taken for the refusal of this run's own breakpoints."""
    import json
    import time
    from websockets.sync.client import connect
    program = ("for i in range(40):\n    y = torch.randn(300, 300) @ torch.randn(300, 300)\n"
               "z = 0\ndone = 1\n")       # busy for a while in few steps (the test server allows 200,000)
    run = session.debug(program, breakpoints=[4], outputs=["done"])
    ws_url = server_url.replace("http://", "ws://") + f"/v1/sessions/{session.id}/stream"
    with connect(ws_url) as watcher:
        watcher.send(json.dumps({"type": "watch", "token": session.token}))
        run._stream.open()
        deadline = time.monotonic() + 10
        while run.run_id is None and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.05)                      # the run is busy in its loop, not paused
        watcher.send(json.dumps({"type": "debug", "id": run.run_id, "command": "breakpoints",
                                 "breakpoints": [{"line": 99}]}))
        lines = [p.line for p in run]
    assert lines == [4]
    assert run.result is not None and run.result.values["done"] == 1


def test_s6_the_debugger_entry_points_have_type_hints():
    """S6: session.debug(breakpoints=None, pause_on=None, on_event=None) and Pause.breakpoints(breakpoints)
    were the SDK's only public parameters without annotations (help() and IDEs showed nothing)."""
    import typing
    from gradserve.client import AsyncPause, AsyncSession, Pause, Session
    for fn in (Session.debug, AsyncSession.debug):
        hints = typing.get_type_hints(fn)
        assert {"breakpoints", "pause_on", "on_event"} <= set(hints), hints
    for fn in (Pause.breakpoints, AsyncPause.breakpoints):
        assert "breakpoints" in typing.get_type_hints(fn)


def test_s7_a_session_held_by_a_paused_debug_run_says_so(session):
    """S7: leaving `for pause in run:` with break leaves the run paused on the server, holding the session:
    every run answered "a run is already in progress in this session; wait for it or cancel it", which
    waiting does not help (it waits 10 minutes) and which did not say how to cancel it."""
    from gradserve.client import Conflict
    run = session.debug("for i in range(3):\n    j = i\n", breakpoints=[2])
    for pause in run:
        break
    with pytest.raises(Conflict, match="paused in the debugger") as caught:
        session.run("x = 1")
    assert "close the DebugRun" in str(caught.value)
    run.close()                                       # cancels the paused run: the session is free again
    import time
    deadline = time.monotonic() + 10
    while True:
        try:
            assert session.run("x = 1", outputs=["x"]).values["x"] == 1
            break
        except Conflict:
            assert time.monotonic() < deadline
            time.sleep(0.05)
