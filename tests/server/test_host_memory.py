"""A run that grows while the host is short of memory (GRADSERVE_HOST_MEMORY_RESERVE above what the host
has) answers 503 LimitExceeded host_memory, and its session, in its own process, answers on (attack8 F4)."""
import httpx

from server_harness import server_process

GROW = """
import time
big = torch.ones(48_000_000)
t = time.monotonic()
while time.monotonic() - t < 0.2:
    pass
"""


def test_a_run_that_grows_on_a_short_host_answers_503_and_the_session_stays():
    with server_process(GRADSERVE_HOST_MEMORY_RESERVE=str(1 << 60)) as (url, _pid):
        with httpx.Client(base_url=url, timeout=120) as c:
            created = c.post("/v1/sessions").json()
            path, auth = f"/v1/sessions/{created['id']}/run", {"Authorization": f"Bearer {created['token']}"}
            assert c.post(path, json={"program": "keep = torch.arange(3.0)"}, headers=auth).status_code == 200
            r = c.post(path, json={"program": GROW}, headers=auth)
            assert r.status_code == 503, r.text
            error = r.json()["error"]
            assert error["type"] == "LimitExceeded" and error["limit"] == "host_memory"
            after = c.post(path, json={"program": "total = keep.sum()", "outputs": ["total"]}, headers=auth)
            assert after.status_code == 200 and after.json()["values"]["total"]["data"] == 3.0
            c.delete(f"/v1/sessions/{created['id']}", headers=auth)
