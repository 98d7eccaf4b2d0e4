"""Hostile pass 13 (tests/hostile_attack13_log.md): server findings.

F7: a run whose session was deleted while it ran (DELETE ends the session's process) answered
410 SessionGone, "the worker holding this session died; its state is lost (delete it and create a new
one)": the answer for a crashed worker, telling the client to delete what it had just deleted. It is the
404 of an ended session, as the WebSocket's error event already said.
"""
import threading
import time

import httpx

from server_harness import open_session


def test_a_run_whose_session_is_deleted_under_it_answers_the_ended_sessions_404(live_server, http):
    s = open_session(http)
    answers = []

    def run():
        with httpx.Client(base_url=live_server.url, timeout=60) as client:
            answers.append(client.post(s.path + "/run", headers=s.headers, json={"program": "while True:\n    pass"}))
    t = threading.Thread(target=run)
    t.start()
    time.sleep(1.0)   # the run is in its loop
    assert s.delete().status_code == 204
    t.join(30)
    r = answers[0]
    assert r.status_code == 404, r.text
    error = r.json()["error"]
    assert error["type"] == "SessionNotFound" and "ended" in error["message"], error
    assert s.run("x = 1").status_code == 404
