"""Hostile pass 6, F1 (found in pass 5): CPython hashes a tuple (tuplehash) and frees a slice of slices
with C recursion that has no depth check, while a program builds each level with one step and 48
bytes. A tuple nested ~130,000 deep, hashed on the 8 MiB main-thread stack (hash(t), {t}, {t: 1},
t in s, Counter, an lru_cache'd call), or a slice chain ~260,000 deep dropped, killed the session's
process (410, state lost); in a shared GPU worker it took every session there with it. Commands are
now served on a thread whose stack holds any nesting the session's memory allows
(server/worker.run_on_stack). These fail before the fix (the session answers 410)."""
import pytest

from server_harness import LiveServer, open_session

BUILD = "t = ()\nfor i in range(1000000):\n    t = (t,)\nkept = 7\n"

USES = [
    ("h = hash(t) == hash(t)", True),
    ("h = len({t, ()})", 2),
    ("h = {t: 1}[t]", 1),
    ("h = t in {1, 2}", False),
    ("import collections\nh = collections.Counter([t, t])[t]", 2),
    ("import functools\n@functools.lru_cache(maxsize=None)\ndef f(x):\n    return 3\nh = f(t)", 3),
]


@pytest.mark.parametrize("use,answer", USES)
def test_hashing_a_tuple_nested_a_million_deep_keeps_the_session(session, use, answer):
    session.ok(BUILD, outputs=[])
    assert session.ok(use, outputs=["h"])["values"]["h"] == answer
    assert session.ok("kept = kept + 1", outputs=["kept"])["values"]["kept"] == 8


def test_dropping_a_slice_chain_two_million_deep_keeps_the_session(session):
    session.ok("kept = 7\ns = None\nfor i in range(2000000):\n    s = slice(s)\n", outputs=[])
    session.ok("s = None", outputs=[])
    assert session.ok("kept = kept + 1", outputs=["kept"])["values"]["kept"] == 8


def test_the_tuple_limit_is_what_memory_allows_across_runs(session):
    """Nesting grows across runs (each run's steps add levels): 3 million levels, hashed and freed."""
    session.ok("t = ()\nfor i in range(1500000):\n    t = (t,)\n", outputs=[])
    session.ok("for i in range(1500000):\n    t = (t,)\n", outputs=[])
    assert session.ok("h = t in {1}\nt = None", outputs=["h"])["values"]["h"] is False


@pytest.mark.gpu
def test_a_deep_tuple_in_a_shared_gpu_worker_loses_no_session(cuda_device):
    import httpx
    server = LiveServer(workers=1, gpu_workers=None).start()
    try:
        with httpx.Client(base_url=server.url, timeout=120) as http:
            victim, attacker = open_session(http, device="cuda"), open_session(http, device="cuda")
            victim.ok("kept = 41", outputs=[])
            attacker.ok(BUILD, outputs=[])
            assert attacker.ok("h = t in {1}", outputs=["h"])["values"]["h"] is False
            assert victim.ok("kept = kept + 1", outputs=["kept"])["values"]["kept"] == 42
    finally:
        server.stop()
