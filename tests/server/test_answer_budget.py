"""Hostile pass 6, F5: the API process holds a tensor answer until its client has read it, and nothing
bounded how many it held at once: four clients reading 512 MiB binary answers slowly took the API
process from 92 MB to 2.1 GB, and with enough sessions any number of them could (the API serves every
user; its memory is no session's). Answers are now charged to answer_budget_bytes while they are sent:
one that would pass it is a 503 with Retry-After (the run's results stay in the session), and what
an answer holds is given back once it is sent or its client is gone."""
import time

import httpx

from server_harness import open_session

BIG = "x = torch.zeros(2**24)"   # 64 MiB
MiB = 1 << 20


def _wait_released(budget, timeout_s=20):
    deadline = time.monotonic() + timeout_s
    while budget.used and time.monotonic() < deadline:
        time.sleep(0.05)
    return budget.used


def test_large_answers_held_by_slow_readers_are_bounded(live_server, http):
    budget = live_server.app.state.answer_budget
    saved = budget.total
    budget.total = 100 * MiB
    try:
        slow, other = open_session(http), open_session(http)
        with httpx.Client(base_url=live_server.url, timeout=60) as reader:
            with reader.stream("POST", slow.path + "/run", headers=slow.headers,
                               json={"program": BIG, "outputs": ["x"], "encoding": "binary"}) as r:
                assert r.status_code == 200
                chunks = r.iter_raw(65536)   # (kept: a dropped iterator closes the response)
                next(chunks)   # reads a little, then stalls with the rest unsent
                refused = other.run(BIG, outputs=["x"], encoding="binary")
                assert refused.status_code == 503, refused.status_code
                assert refused.headers["Retry-After"] == "1"
                assert refused.json()["error"]["limit"] == "answer_budget_bytes"
                small = other.run("y = torch.ones(3)", outputs=["y"])   # small answers are never charged
                assert small.status_code == 200
                del chunks
            # the slow reader went away: its answer's share is given back
            assert _wait_released(budget) == 0
        got = other.get("/variables/x", params={"encoding": "binary"})   # the refused run's results stayed
        assert got.status_code == 200 and len(got.content) > 64 * MiB
        assert _wait_released(budget) == 0
        assert other.run(BIG, outputs=["x"], encoding="base64").status_code == 200
        assert _wait_released(budget) == 0
    finally:
        budget.total = saved
