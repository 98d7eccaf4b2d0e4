"""Hostile pass 13, F12 (fixed in pass 14): the answer budget was charged after a worker's reply, with
all its bytes, was already in the API process. Six sessions asking at once for a 512 MB binary answer of
a 4-byte tensor (``torch.ones(1).expand(2**27)``) took the API process to 3.3 GB and none was refused;
a JSON ``GET .../variables/{name}`` of 2^27 elements moved the tensor into the API before its 413. Now a
big reply is charged when its frame's prefix arrives, and one past the budget is dropped unread (503,
Retry-After); the worker refuses a JSON variable past json_max_elements before sending it. Measured on
a real server process."""
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import psutil
import pytest

from server_harness import peak_rss_while, server_process

pytestmark = pytest.mark.slow

MiB = 1 << 20
ANSWER = 2**25 * 4                       # a 128 MiB answer of a tensor that holds 4 bytes
BUDGET = 200 * MiB                       # room for one such answer at a time
PROGRAM = "y = torch.ones(1).expand(2**25)"


@pytest.fixture(scope="module")
def server():
    with server_process(GRADSERVE_ANSWER_BUDGET_BYTES=str(BUDGET)) as (url, pid):
        with httpx.Client(base_url=url, timeout=120) as http:
            yield http, psutil.Process(pid)


def _session(http):
    body = http.post("/v1/sessions", json={}).json()
    return f"/v1/sessions/{body['id']}", {"Authorization": f"Bearer {body['token']}"}


def _metric(http, name):
    for line in http.get("/metrics").text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no {name} in /metrics")


def test_concurrent_large_answers_are_refused_before_their_bytes_reach_the_api(server):
    http, process = server
    sessions = [_session(http) for _ in range(6)]

    def ask(session):
        path, headers = session
        with httpx.Client(base_url=str(http.base_url), timeout=120) as client:
            with client.stream("POST", path + "/run", headers=headers,
                               json={"program": PROGRAM, "outputs": ["y"], "encoding": "binary"}) as r:
                if r.status_code != 200:
                    r.read()
                    return r.status_code, r.headers.get("Retry-After"), r.json()["error"].get("limit")
                got = 0
                for chunk in r.iter_bytes(1 << 20):   # a slow reader: the answer is held a while
                    got += len(chunk)
                    time.sleep(0.02)
                return 200, got, None

    def all_at_once():
        with ThreadPoolExecutor(len(sessions)) as pool:
            return list(pool.map(ask, sessions))

    answers, growth = peak_rss_while(process, all_at_once, 0.005)
    refused = [a for a in answers if a[0] != 200]
    assert refused, answers
    assert all(a == (503, "1", "answer_budget_bytes") for a in refused), answers
    assert all(a[1] > ANSWER for a in answers if a[0] == 200), answers
    # at most the budget's worth of answers arrived (six would be 768 MiB)
    assert growth < BUDGET + 150 * MiB, growth / MiB
    # every charge was given back once the answers were sent
    deadline = time.monotonic() + 20
    while _metric(http, "gradserve_answer_budget_used_bytes") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _metric(http, "gradserve_answer_budget_used_bytes") == 0
    assert _metric(http, "gradserve_answer_budget_refused_total") >= len(refused)
    # a refused run's results stayed in its session
    path, headers = sessions[answers.index(refused[0])]
    r = http.get(path + "/variables/y", headers=headers, params={"encoding": "binary"})
    assert r.status_code == 200 and len(r.content) > ANSWER
    assert http.post(path + "/run", headers=headers, json={"program": "z = y.sum()", "outputs": ["z"]}).json()[
        "values"]["z"]["data"] == 2**25


def test_a_json_variable_past_json_max_elements_never_leaves_the_worker(server):
    http, process = server
    path, headers = _session(http)
    assert http.post(path + "/run", headers=headers, json={"program": PROGRAM, "outputs": []}).status_code == 200
    r, growth = peak_rss_while(process, lambda: http.get(path + "/variables/y", headers=headers), 0.005)
    assert r.status_code == 413, r.text
    error = r.json()["error"]
    assert error["type"] == "LimitExceeded" and error["limit"] == "json_max_elements" and error["name"] == "y"
    assert growth < 48 * MiB, growth / MiB      # the 128 MiB tensor stayed in the session
