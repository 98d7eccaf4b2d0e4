"""Hostile pass 16 (tests/hostile_attack16_log.md): server findings.

F2: a WebSocket run admitted and then refused with 409, 413 or 429 (a result past json_max_elements)
sent its error twice: the run's own ``error`` event (its next seq) and, from the stream route, which
took every such status for a refusal before admission, a second one with seq 0 (a connection notice),
so a client that takes the first terminal event as the end saw a stray one at the start of its next
run. The run's error event now marks the error as sent, and the route adds none.

F4 (pass 15's, left open there): bodies past 4 MiB are parsed one at a time in one parser process,
first come first served, so a client that queued many large bodies made every other session's large
body wait behind all of them. The parser's turns are now start-time fair queuing by session and size
(``body_parser.FairTurns``): a session that has not been parsing goes next, behind only the body in
the parser.
"""
import asyncio
import concurrent.futures
import json
import time

import httpx

from gradserve.server.body_parser import PROCESS_BYTES, FairTurns


def _events_until_quiet(ws, timeout=2.0):
    events = []
    while True:
        try:
            events.append(json.loads(ws.recv(timeout=timeout)))
        except TimeoutError:
            return events


def test_an_admitted_run_refused_with_413_sends_one_error_event(live_server, session):
    from websockets.sync.client import connect
    with live_server.setting(json_max_elements=100), \
            connect(f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token={session.token}") as ws:
        ws.send(json.dumps({"type": "run", "id": "r1", "program": "x = torch.ones(1000)", "trace": False}))
        events = _events_until_quiet(ws)
        ws.send(json.dumps({"type": "run", "id": "r2", "program": "y = 1", "outputs": ["y"], "trace": False}))
        after = _events_until_quiet(ws)
    assert [e["type"] for e in events] == ["started", "error"], events
    assert events[1]["status"] == 413 and events[1]["error"]["limit"] == "json_max_elements"
    assert [e["seq"] for e in events] == [0, 1] and all(e["run"] == "r1" for e in events)
    assert [(e["type"], e["run"]) for e in after] == [("started", "r2"), ("result", "r2")], after


def test_a_run_refused_before_admission_still_gets_its_error_event(live_server, session):
    from websockets.sync.client import connect
    with connect(f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token={session.token}") as ws:
        ws.send(json.dumps({"type": "run", "id": "r1", "program": "x = 1\n" * 20000}))
        events = _events_until_quiet(ws)
    assert [(e["type"], e["run"], e["status"]) for e in events] == [("error", "r1", 413)], events
    assert events[0]["error"]["limit"] == "program_bytes"


def _order_of(turns, requests, first=("a", 36)):
    """The order ``requests`` ((key, nbytes, name), queued in that order while ``first`` (key, nbytes)
    holds the parser) are given their turns."""
    async def main():
        order = []
        await turns.acquire(*first)

        async def one(key, nbytes, name):
            await turns.acquire(key, nbytes)
            order.append(name)
            await asyncio.sleep(0)
            turns.release()
        tasks = [asyncio.ensure_future(one(*r)) for r in requests]
        await asyncio.sleep(0)
        turns.release()
        await asyncio.gather(*tasks)
        return order
    return asyncio.run(main())


def test_a_session_that_was_not_parsing_goes_before_a_flood_of_another_sessions_bodies():
    flood = [("a", 36, f"a{i}") for i in range(5)]   # (first come first served: b last)
    assert _order_of(FairTurns(), flood + [("b", 5, "b")]) == ["b", "a0", "a1", "a2", "a3", "a4"]
    # equal sizes take turns; a session's larger bodies take turns in proportion to their bytes
    assert _order_of(FairTurns(), [("a", 10, "a0"), ("a", 10, "a1"), ("b", 10, "b0"), ("b", 10, "b1")],
                     first=("c", 10)) == ["a0", "b0", "a1", "b1"]
    assert _order_of(FairTurns(), [("a", 30, "a0"), ("a", 30, "a1"), ("b", 10, "b0"), ("b", 10, "b1"),
                                   ("b", 10, "b2"), ("b", 10, "b3")], first=("c", 10)) == \
        ["a0", "b0", "b1", "b2", "a1", "b3"]


def test_a_waiting_body_whose_request_goes_away_gives_up_its_turn():
    async def main():
        turns = FairTurns()
        await turns.acquire("a", 10)
        gone = asyncio.ensure_future(turns.acquire("b", 1))
        after = asyncio.ensure_future(turns.acquire("c", 5))
        await asyncio.sleep(0)
        gone.cancel()
        turns.release()
        await asyncio.wait_for(after, 1)
        turns.release()
        assert not turns.busy and not turns.waiting
        await asyncio.wait_for(turns.acquire("d", 1), 1)   # free again: taken at once
    asyncio.run(main())


def _large_run(http, s, n):
    body = json.dumps({"program": "y = 1", "inputs": {"a": [0.5] * n}, "outputs": ["y"]}).encode()
    assert len(body) > PROCESS_BYTES
    r = http.post(f"{s.path}/run", content=body, headers={**s.headers, "content-type": "application/json"})
    assert r.status_code == 200, r.text[:300]
    return time.monotonic()


def test_another_sessions_large_body_is_parsed_before_a_queue_of_large_bodies(live_server, http):
    from server_harness import open_session
    flooder, other = open_session(http), open_session(http)
    try:
        with concurrent.futures.ThreadPoolExecutor(7) as pool, \
                httpx.Client(base_url=live_server.url, timeout=120) as http2:
            flood = [pool.submit(_large_run, http2, flooder, 3_000_000) for _ in range(6)]
            # once the first is parsed and answered, the others have been read and wait for the parser
            concurrent.futures.wait(flood, return_when=concurrent.futures.FIRST_COMPLETED)
            small_start = time.monotonic()
            r = http.post(f"{other.path}/run", json={"program": "z = 2", "outputs": ["z"]}, headers=other.headers)
            small = time.monotonic() - small_start
            mine = pool.submit(_large_run, http, other, 1_100_000).result()
            done = sorted(f.result() for f in flood)
        assert r.status_code == 200 and small < 5, (r.status_code, small)
        # first come first served, it came after the flooder's five waiting bodies
        assert mine < done[-2], ([round(d - small_start, 2) for d in done], round(mine - small_start, 2))
    finally:
        flooder.delete()
        other.delete()
