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


# F11: GET .../checkpoint had no byte bound of its own and was built whole in the API process: a session
# holding 4 bytes (views of torch.ones(1) expanded to 2^27 elements each) made a 1.34 GB checkpoint,
# copied in the session process, then held as the received buffers, the arrays and safetensors' bytes at
# once (3.3 GB peak of the API process, 1.1 GB kept after). Now the worker counts the checkpoint against
# answer_max_bytes before copying anything, and the file is streamed from the received buffers.
def test_a_checkpoint_past_answer_max_bytes_is_refused_before_it_is_built(http):
    s = open_session(http)
    try:
        r = s.run("b = torch.ones(1)\nc0 = b.expand(2**27)\nc1 = b.expand(2**27)\nc2 = b.expand(2**27)", outputs=[])
        assert r.status_code == 200, r.text
        t0 = time.monotonic()
        r = s.get("/checkpoint")
        assert r.status_code == 413, r.text[:300]
        error = r.json()["error"]
        assert error["type"] == "LimitExceeded" and error["limit"] == "answer_bytes", error
        assert time.monotonic() - t0 < 5
        assert s.run("y = b + 1").status_code == 200   # the session goes on
    finally:
        s.delete()


def test_a_streamed_checkpoint_is_a_safetensors_file_that_restores(http):
    from safetensors.numpy import load
    s = open_session(http)
    try:
        program = ("m = nn.Linear(3, 2)\nh = torch.ones(2, dtype=torch.float16)\ni = torch.arange(5)\n"
                   "k = torch.tensor([True, False])\ne = torch.zeros(0, 3)\nv = torch.ones(1).expand(300000)\n"
                   "u = torch.arange(4, dtype=torch.uint8)\nz = torch.tensor(2.5, dtype=torch.float64)")
        assert s.run(program, outputs=[]).status_code == 200
        r = s.get("/checkpoint")
        assert r.status_code == 200, r.text[:300]
        tensors = load(r.content)
        assert tensors["v"].shape == (300000,) and (tensors["v"] == 1).all()
        assert tensors["h"].dtype.name == "float16" and tensors["k"].dtype.name == "bool"
        assert tensors["i"].tolist() == [0, 1, 2, 3, 4] and tensors["e"].shape == (0, 3)
        assert float(tensors["z"]) == 2.5 and tensors["m.weight"].shape == (2, 3)
        weight = tensors["m.weight"].copy()
        assert s.run("m.weight.data.zero_()\ni = torch.zeros(5, dtype=torch.int64)").status_code == 200
        r = s.client.put(s.path + "/checkpoint", content=r.content,
                         headers={**s.headers, "Content-Type": "application/octet-stream"})
        assert r.status_code == 204, r.text
        r = s.run("w = m.weight\nj = i", outputs=["w", "j"])
        assert r.json()["values"]["w"]["data"] == weight.tolist() and r.json()["values"]["j"]["data"] == [0, 1, 2, 3, 4]
    finally:
        s.delete()
