"""gradserve on a real Ray cluster: stateless replicas behind nginx, sessions as actors, faults.

One cluster (a head and a worker node), two ``gradserve serve --backend ray`` replicas and nginx
per module, all on loopback inside the test's own network namespace (see conftest).
"""
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from server_harness import open_session  # noqa: E402
# The HTTP suite's tests that need only a session and a client, run here through nginx on Ray.
from test_runs import (  # noqa: E402,F401
    test_base64_encoding_round_trips_bytes, test_big_integers_and_lone_surrogates_reach_the_caller,
    test_graph_route_shows_a_variables_graph, test_graph_true_returns_the_graph_of_the_outputs,
    test_kserve_tensor_is_accepted_as_input, test_malformed_json_answers_422, test_missing_output_is_a_422_naming_it,
    test_nan_and_infinity_travel_as_strings, test_non_tensor_output_is_a_422_naming_it,
    test_numbers_and_lists_of_tensors_are_outputs_too, test_outputs_omitted_returns_every_tensor_the_run_bound,
    test_program_error_is_a_422_pointing_into_the_program, test_run_answers_values_grads_stdout_and_elapsed,
    test_syntax_error_is_a_422, test_values_bound_before_a_failure_persist, test_values_persist_between_runs)
from test_sessions import (  # noqa: E402,F401
    test_bad_session_bodies_answer_422, test_create_session_answers_id_token_device_and_expiry,
    test_get_session_lists_tensor_variables_and_bytes, test_request_without_token_answers_401,
    test_token_of_one_session_does_not_open_another, test_wrong_token_and_unknown_session_answer_the_same_404)

pytestmark = pytest.mark.cluster

ENDLESS = "i = 0\nwhile True:\n    i = i + 1\n"


@pytest.fixture
def http(nginx):
    with httpx.Client(base_url=nginx.url, timeout=60) as client:
        yield client


@pytest.fixture
def session(http):
    s = open_session(http)
    yield s
    s.delete()


def _client(replica):
    return httpx.Client(base_url=replica.url, timeout=60)


def _record(cluster, session):
    """The session's record as its actor holds it (pid and node included), asked from a Ray driver."""
    import hashlib

    import ray
    if not ray.is_initialized():
        ray.init(address=cluster.address, namespace="gradserve", logging_level="ERROR", log_to_driver=False)
    digest = hashlib.sha256(session.token.encode()).hexdigest()
    directory = ray.get_actor("gradserve-directory", namespace="gradserve")
    _, host = ray.get(directory.locate.remote(session.id, digest))
    return ray.get(ray.get_actor(host, namespace="gradserve").touch.remote(session.id, digest))


def _record_host(cluster, session):
    """The name of the session host holding ``session``, as the directory has it."""
    import hashlib

    import ray
    _record(cluster, session)  # connects
    digest = hashlib.sha256(session.token.encode()).hexdigest()
    directory = ray.get_actor("gradserve-directory", namespace="gradserve")
    return ray.get(directory.locate.remote(session.id, digest))[1]


def _ws(replica, session):
    return connect(f"ws://127.0.0.1:{replica.port}/v1/sessions/{session.id}/stream?token={session.token}")


def _events_until_end(ws, run_id, timeout=60):
    events = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = json.loads(ws.recv(timeout=timeout))
        if event.get("run") != run_id:
            continue
        events.append(event)
        if event["type"] in ("result", "error", "cancelled"):
            return events
    raise AssertionError(f"run {run_id} did not finish: {events[-5:]}")


def test_a_session_created_through_one_replica_is_served_by_the_other(replicas):
    a, b = replicas
    with _client(a) as ca, _client(b) as cb:
        s = open_session(ca)
        s_b = open_session(cb)  # only to compare: created on b
        s.client = cb
        r = s.ok("w = torch.tensor([1.0, 2.0], requires_grad=True)\nloss = (w * w).sum()\nloss.backward()",
                 outputs=["loss", "w"])
        assert r["values"]["loss"]["data"] == 5.0 and r["grads"]["w"]["data"] == [2.0, 4.0]
        s.client = ca
        assert s.get("/variables/w").json()["grad"]["data"] == [2.0, 4.0]
        info = s.get().json()
        assert info["id"] == s.id and info["device"] == "cpu" and "w" in info["variables"]
        assert s.put("/variables/v", json=[3.0]).status_code == 204
        s.client = cb
        assert s.ok("u = v * 2", outputs=["u"])["values"]["u"]["data"] == [6.0]
        assert s.delete().status_code == 204
        s.client = ca
        assert s.get().status_code == 404
        s_b.delete()


def test_requests_of_one_session_alternate_between_replicas_through_nginx(http, session):
    session.ok("n = torch.zeros(1)")
    for _ in range(10):
        session.ok("n = n + 1")
    assert session.ok("m = n * 1", outputs=["m"])["values"]["m"]["data"] == [10.0]


def test_one_run_at_a_time_holds_across_replicas(cluster, replicas):
    a, b = replicas
    with _client(a) as ca, _client(b) as cb:
        s = open_session(ca)
        other = open_session(cb)
        other.id, other.token, other.headers, other.path = s.id, s.token, s.headers, s.path
        assert _record(cluster, s)["run_id"] is None
        results = {}
        # a run that only its deadline ends: still in progress when the second arrives, however loaded the
        # machine (a counted loop took past the deadline at load 10)
        t = threading.Thread(target=lambda: results.setdefault("slow", s.run(ENDLESS)))
        t.start()
        deadline = time.monotonic() + 10
        while _record(cluster, s)["run_id"] is None and time.monotonic() < deadline:
            time.sleep(0.01)
        second = other.run("a = 1")
        t.join()
        assert results["slow"].status_code == 408, results["slow"].text
        assert second.status_code == 409 and second.json()["error"]["type"] == "Conflict"
        s.delete()


def test_a_watcher_on_one_replica_sees_the_runs_started_on_the_other(replicas):
    a, b = replicas
    with _client(a) as ca:
        s = open_session(ca)
        with _ws(a, s) as ws:
            ws.send(json.dumps({"type": "watch"}))
            time.sleep(0.3)  # the watch reaches the actor before the run does
            with _client(b) as cb:
                s.client = cb
                r = s.ok("for i in range(3):\n    print('step', i)\n    log(step=i)\ny = torch.ones(2) * 2",
                         outputs=["y"])
            s.client = ca
            assert r["values"]["y"]["data"] == [2.0, 2.0]
            first = json.loads(ws.recv(timeout=30))
            events = [first] + _events_until_end(ws, first["run"])
        kinds = [e["type"] for e in events]
        assert kinds[0] == "started" and kinds[-1] == "result"
        assert [e["seq"] for e in events] == list(range(len(events)))
        assert "".join(e["text"] for e in events if e["type"] == "stdout") == "step 0\nstep 1\nstep 2\n"
        assert [e["metrics"]["step"] for e in events if e["type"] == "log"] == [0, 1, 2]
        assert events[-1]["values"]["y"]["data"] == [2.0, 2.0]
        s.delete()


def test_a_watcher_that_goes_away_lets_go_of_its_place_on_the_host(cluster, replicas):
    """A watcher holds a thread of its host while it watches: closing the WebSocket cancels its stream and the
    host lets the watcher go (and its thread with it)."""
    a, b = replicas
    with _client(a) as ca:
        s = open_session(ca)
        for _ in range(2):  # the place is free again for the next watcher
            with _ws(a, s) as ws:
                ws.send(json.dumps({"type": "watch"}))
                deadline = time.monotonic() + 10
                while _record(cluster, s)["watchers"] < 1 and time.monotonic() < deadline:
                    time.sleep(0.05)
                assert _record(cluster, s)["watchers"] == 1
            deadline = time.monotonic() + 10
            while _record(cluster, s)["watchers"] and time.monotonic() < deadline:
                time.sleep(0.1)
            assert _record(cluster, s)["watchers"] == 0
        with _client(b) as cb:
            s.client = cb
            assert s.ok("z = torch.ones(1)", outputs=["z"])["values"]["z"]["data"] == [1.0]
        s.client = ca
        assert s.delete().status_code == 204


def test_a_websocket_run_streams_through_nginx(nginx, http, session):
    with connect(f"ws://127.0.0.1:{nginx.port}/v1/sessions/{session.id}/stream?token={session.token}") as ws:
        ws.send(json.dumps({"type": "run", "id": "r1", "program": "print('hi')\nz = torch.ones(3)",
                            "outputs": ["z"]}))
        events = _events_until_end(ws, "r1")
    assert [e["type"] for e in events][0] == "started" and events[-1]["type"] == "result"
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert events[-1]["values"]["z"]["data"] == [1.0, 1.0, 1.0]


def test_a_run_past_its_deadline_is_stopped_and_the_session_stays_usable(http, session):
    session.ok("before = torch.ones(1)")
    t0 = time.monotonic()
    r = session.run(ENDLESS)
    assert r.status_code == 408, r.text
    assert time.monotonic() - t0 < 15
    assert session.ok("after = before + 1", outputs=["after"])["values"]["after"]["data"] == [2.0]


def test_a_run_that_ignores_its_cancel_loses_its_process_on_every_replica_and_only_it(cluster, replicas):
    """One huge matmul cannot see the cancel flag: at the deadline plus the grace its process is killed."""
    from cluster_harness import Replica
    quick = Replica(cluster, limit_wall_time_s=0.5, cancel_grace_s=0.3, ray_sessions_per_host=3).start()
    try:
        with _client(quick) as cq, _client(replicas[0]) as ca:
            victim = open_session(cq)
            neighbours = [open_session(cq) for _ in range(2)]  # three sessions per host: the same host
            # the set-up goes through a replica with the usual deadline (filling 144 MB can take more than
            # 0.5 s on a loaded machine); only the matmul meets the quick one's
            victim.client = ca
            for i, s in enumerate(neighbours):
                s.client = ca
                s.ok(f"kept = torch.full((2,), {float(i)})")
            victim.ok("a = torch.ones(6000, 6000)", outputs=[])
            victim.client = cq
            t0 = time.monotonic()
            r = victim.run("b = a @ a", outputs=[])
            assert r.status_code in (408, 410), r.text
            assert time.monotonic() - t0 < 30
    finally:
        quick.stop()
    for replica in replicas:
        with _client(replica) as c:
            victim.client = c
            assert victim.run("y = 1").status_code == 410
            for i, s in enumerate(neighbours):
                s.client = c
                assert s.ok("z = kept * 2", outputs=["z"])["values"]["z"]["data"] == [2.0 * i] * 2
            if replica is replicas[-1]:
                for s in neighbours + [victim]:
                    assert s.delete().status_code == 204


def test_cancel_over_the_websocket_stops_a_run(nginx, http, session):
    with connect(f"ws://127.0.0.1:{nginx.port}/v1/sessions/{session.id}/stream?token={session.token}") as ws:
        ws.send(json.dumps({"type": "run", "id": "c", "program": ENDLESS}))
        assert json.loads(ws.recv(timeout=30))["type"] == "started"
        ws.send(json.dumps({"type": "cancel", "id": "c"}))
        events = _events_until_end(ws, "c")
    assert events[-1]["type"] in ("cancelled", "error")
    assert session.ok("k = torch.ones(1)", outputs=["k"])["values"]["k"]["data"] == [1.0]


def test_delete_needs_the_sessions_own_token_on_every_replica(replicas):
    """Over HTTP a Ray replica checks a token only where the session is: a DELETE too."""
    a, b = replicas
    with _client(a) as ca, _client(b) as cb:
        s, other = open_session(ca), open_session(ca)
        s.ok("x = torch.ones(1)")  # replica a now knows where s lives
        for client in (ca, cb):
            for token in (other.token, "not-a-token"):
                r = client.delete(f"/v1/sessions/{s.id}", headers={"Authorization": f"Bearer {token}"})
                assert r.status_code == 404, r.text
        s.client = cb
        assert s.ok("y = x + 1", outputs=["y"])["values"]["y"]["data"] == [2.0]
        assert s.delete().status_code == 204
        for client in (ca, cb):
            s.client = client
            assert s.delete().status_code == 404
            assert s.run("y = 1").status_code == 404
        assert other.delete().status_code == 204


def test_sessions_expire_with_no_replica_in_charge(replicas):
    a, b = replicas
    with _client(a) as ca, _client(b) as cb:
        s = open_session(ca, ttl_s=4)
        assert s.ok("x = torch.ones(1)")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and s.get().status_code != 404:
            time.sleep(0.2)
        assert s.get().status_code == 404
        s.client = cb
        assert s.get().status_code == 404


def _metrics(client):
    """/metrics as {(name, ((label, value), ...)): value}."""
    from prometheus_client.parser import text_string_to_metric_families
    r = client.get("/metrics")
    assert r.status_code == 200
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(r.text) for sample in family.samples}


def _metric(scraped, name, **labels):
    return scraped[(name, tuple(sorted(labels.items())))]


def _host_states(scraped):
    """{host name: (node, up, sessions)} from gradserve_host_up / gradserve_host_sessions."""
    return {dict(labels)["host"]: (dict(labels)["node"], value, _metric(scraped, "gradserve_host_sessions", **dict(labels)))
            for (name, labels), value in scraped.items() if name == "gradserve_host_up"}


def test_metrics_on_each_replica_count_the_clusters_sessions_and_hosts(cluster, replicas):
    a, b = replicas
    with _client(a) as ca, _client(b) as cb:
        made = [open_session(ca) for _ in range(3)]
        for s in made:
            s.ok("x = torch.ones(1)")
        hosts = {_record_host(cluster, s) for s in made}
        time.sleep(2.5)  # replicas read the cluster's counts every second
        seen = [_metrics(c) for c in (ca, cb)]
        for m in seen:
            assert _metric(m, "gradserve_cluster_reachable") == 1.0
            assert _metric(m, "gradserve_cluster_nodes") == 2.0
            assert _metric(m, "gradserve_cluster_resources", resource="CPU") == 2.0 * cluster.num_cpus
            assert _metric(m, "gradserve_cluster_sessions", state="live") >= 3
            assert _metric(m, "gradserve_cluster_hosts", state="alive") >= len(hosts)
            states = _host_states(m)
            for host in hosts:  # every host holding one of ours is up, holding it, on both replicas
                assert states[host][1] == 1.0 and states[host][2] >= 1
        assert _metric(seen[0], "gradserve_sessions") == _metric(seen[1], "gradserve_sessions") >= 3
        for s in made:
            s.delete()


def test_a_killed_session_actor_answers_410_on_every_replica_and_others_keep_working(cluster, replicas):
    a, b = replicas
    with _client(a) as ca, _client(b) as cb:
        victim = open_session(ca)
        others = [open_session(cb) for _ in range(3)]
        for o in others:
            o.ok("keep = torch.ones(2) * 7")
        victim.ok("x = torch.ones(1)")
        os.kill(_record(cluster, victim)["pid"], signal.SIGKILL)
        time.sleep(0.5)
        for client in (ca, cb):
            victim.client = client
            r = victim.run("y = 1")
            assert r.status_code == 410, r.text
            assert victim.get().status_code == 410
        for o in others:
            assert o.ok("k = keep * 1", outputs=["k"])["values"]["k"]["data"] == [7.0, 7.0]
        # nothing is resurrected under the old id
        victim.client = ca
        assert victim.run("y = 1").status_code == 410
        assert victim.delete().status_code == 204
        for o in others:
            o.delete()


def test_a_dead_session_host_is_never_answered_from_a_replicas_stale_hints(cluster, replicas):
    """Both replicas route the sessions from their caches (the host's name and handle) when the whole host
    actor dies. Each finds out on its next call and the directory decides from then on: 410 for its
    sessions on both replicas, every time (never a fresh empty session under the old id), and 404 for one
    deleted through the other replica, before or after the death; other hosts' sessions are untouched."""
    import ray
    a, b = replicas
    with _client(a) as ca, _client(b) as cb:
        by_host = {}
        made = []
        while len(made) < 24 and not any(len(v) >= 3 for v in by_host.values()):  # hosts take 3 sessions
            s = open_session(ca)
            made.append(s)
            by_host.setdefault(_record_host(cluster, s), []).append(s)
        host, victims = max(by_host.items(), key=lambda kv: len(kv[1]))
        others = [s for s in made if s not in victims]
        assert len(victims) >= 3 and others
        for s in made:
            for client in (ca, cb):  # both replicas now route each session from their cache
                s.client = client
                s.ok("x = torch.ones(1)")
        deleted = victims.pop(0)
        deleted.client = cb
        assert deleted.delete().status_code == 204  # through b, the host still alive: a keeps its hint
        ray.kill(ray.get_actor(host, namespace="gradserve"), no_restart=True)
        deleted.client = ca  # a's first call meets the dead handle: the directory no longer knows the session
        assert deleted.run("y = 1").status_code == 404
        for client in (ca, cb, ca, cb):  # then a's and b's hints of the dead host's other sessions
            for s in victims:
                s.client = client
                r = s.run("y = x + 1", outputs=["y"])
                assert r.status_code == 410, r.text
                assert s.get().status_code == 410
            for s in others:
                s.client = client
                assert s.ok("y = x + 1", outputs=["y"])["values"]["y"]["data"] == [2.0]
        victims[0].client = ca
        assert victims[0].delete().status_code == 204
        for client in (ca, cb):  # deleted after the death, through the replica that found it dead
            victims[0].client = client
            assert victims[0].run("y = 1").status_code == 404
            assert victims[0].get().status_code == 404
        for s in victims[1:] + others:
            assert s.delete().status_code == 204
        for client in (ca, cb):
            for s in victims + [deleted]:
                s.client = client
                assert s.run("y = 1").status_code == 404


def test_a_command_during_a_run_is_answered_after_it_through_either_replica(cluster, replicas):
    """A host speaks to a session process over one socket: a command sent while a run holds the process (here
    through the other replica) waits its turn, and each reply reaches its own caller."""
    a, b = replicas
    with _client(a) as ca, _client(b) as cb:
        s = open_session(ca)
        s.ok("w = torch.tensor([1.0, 2.0])")
        results = {}
        t = threading.Thread(target=lambda: results.setdefault("run", s.run(ENDLESS)))
        t.start()
        deadline = time.monotonic() + 10
        while _record(cluster, s)["run_id"] is None and time.monotonic() < deadline:
            time.sleep(0.01)
        s_b = open_session(cb)
        s_b.id, s_b.token, s_b.headers, s_b.path = s.id, s.token, s.headers, s.path
        variable = s_b.get("/variables/w")
        info = s_b.get()
        t.join()
        assert results["run"].status_code == 408, results["run"].text
        assert variable.status_code == 200 and variable.json()["value"]["data"] == [1.0, 2.0], variable.text
        assert info.status_code == 200 and "w" in info.json()["variables"]
        assert s_b.ok("v = w * 3", outputs=["v"])["values"]["v"]["data"] == [3.0, 6.0]
        s.delete()


def test_more_reads_than_a_host_has_command_threads_wait_for_a_run_and_are_all_answered(cluster, replicas):
    """A run holds one of its host's command threads and reads of the same session wait for it, each holding
    one more: with more of them than the host has command threads (10 for hosts of 3 sessions), the rest
    wait in Ray's queue; the run still ends at its deadline (408) and every read is answered after it."""
    a, b = replicas
    with _client(a) as ca:
        s = open_session(ca)
        s.ok("w = torch.tensor([1.0, 2.0])")
        results = {}
        t = threading.Thread(target=lambda: results.setdefault("run", s.run(ENDLESS)))
        t.start()
        deadline = time.monotonic() + 10
        while _record(cluster, s)["run_id"] is None and time.monotonic() < deadline:
            time.sleep(0.01)
        reads = []

        def read():
            with _client(b) as cb:
                reads.append(cb.get(f"{s.path}/variables/w", headers=s.headers))

        readers = [threading.Thread(target=read) for _ in range(16)]  # hosts of 3 sessions have 10 threads
        for r in readers:
            r.start()
        t.join()
        for r in readers:
            r.join()
        assert results["run"].status_code == 408, results["run"].text
        assert [r.status_code for r in reads] == [200] * 16
        assert all(r.json()["value"]["data"] == [1.0, 2.0] for r in reads)
        assert s.ok("v = w * 2", outputs=["v"])["values"]["v"]["data"] == [2.0, 4.0]
        assert s.delete().status_code == 204


def test_big_and_small_tensors_cross_both_ways_on_either_replica(replicas):
    """Buffers past Ray's inline size go through its object store as arrays, small ones inline as bytes: a
    run with both, in and out, gives exact values on both replicas."""
    import base64

    import numpy as np
    a, b = replicas
    big = np.arange(60_000, dtype=np.float32) / 7  # 240 KB: past Ray's 100 KiB inline limit
    small = np.array([1.5, -2.25], dtype=np.float64)
    inputs = {"big": {"dtype": "float32", "shape": [60_000], "b64": base64.b64encode(big.tobytes()).decode()},
              "small": {"data": small.tolist(), "dtype": "float64"}}
    with _client(a) as ca, _client(b) as cb:
        s = open_session(ca)
        for client in (ca, cb):
            s.client = client
            r = s.ok("out = big * 2\nkept = small + 1", inputs=inputs, outputs=["out", "kept"], encoding="base64")
            out = np.frombuffer(base64.b64decode(r["values"]["out"]["b64"]), dtype=np.float32)
            assert np.array_equal(out, big * 2)
            kept = np.frombuffer(base64.b64decode(r["values"]["kept"]["b64"]), dtype=np.float64)
            assert np.array_equal(kept, small + 1)
            stored = s.get("/variables/out", params={"encoding": "base64"})
            assert stored.status_code == 200, stored.text
            assert np.array_equal(np.frombuffer(base64.b64decode(stored.json()["value"]["b64"]), np.float32), big * 2)
        s.delete()


def test_stopping_the_worker_node_ends_its_sessions_and_new_ones_go_to_the_head(cluster, replicas):
    a, _ = replicas
    with _client(a) as ca:
        made = [open_session(ca) for _ in range(6)]
        nodes = {s.id: _record(cluster, s)["node"] for s in made}
        import ray
        head_node = next(n["NodeID"] for n in ray.nodes() if n["Alive"] and "worker_node" not in n["Resources"])
        assert len(set(nodes.values())) == 2, "SPREAD placed sessions on both nodes"
        for s in made:
            s.ok("x = torch.ones(1)")
        cluster.stop_worker()
        try:
            deadline = time.monotonic() + 60
            on_head = {s.id for s in made if nodes[s.id] == head_node}
            gone = [s for s in made if s.id not in on_head]
            while time.monotonic() < deadline and any(s.run("y = 1").status_code != 410 for s in gone):
                time.sleep(0.5)
            for s in gone:
                assert s.run("y = 1").status_code == 410
            directory = ray.get_actor("gradserve-directory", namespace="gradserve")
            assert ray.get(directory.counts.remote(), timeout=30)["live"] >= len(on_head), \
                "the directory lives on the head node and outlives the worker node"
            for s in made:
                if s.id in on_head:
                    assert s.ok("y = x + 1", outputs=["y"])["values"]["y"]["data"] == [2.0]
            # more new sessions than one host takes: hosts the lost node held (emptied ones included, which
            # nobody calls and so nobody finds dead) are never chosen, and a new host starts on the head
            fresh = [open_session(ca) for _ in range(4)]
            for f in fresh:
                assert f.ok("z = torch.ones(1)", outputs=["z"])["values"]["z"]["data"] == [1.0]
                assert _record(cluster, f)["node"] == head_node
            counts = ray.get(directory.counts.remote(), timeout=30)
            assert counts["hosts_lost"] >= 1 and counts["gone"] >= len(gone)
            # both replicas' /metrics say so (the other one never called a lost host itself)
            time.sleep(2.5)
            worker_node = next(n for n in set(nodes.values()) if n != head_node)
            for replica in replicas:
                with _client(replica) as c:
                    m = _metrics(c)
                assert _metric(m, "gradserve_cluster_nodes") == 1.0
                assert _metric(m, "gradserve_cluster_hosts", state="lost") >= 1
                assert _metric(m, "gradserve_cluster_sessions", state="gone") >= len(gone)
                states = _host_states(m)
                assert any(node == worker_node and up == 0.0 for node, up, _ in states.values())
                assert all(up == 0.0 for node, up, _ in states.values() if node == worker_node)
            for f in fresh:
                assert f.delete().status_code == 204
        finally:
            cluster.start_worker()
        for s in made:
            s.delete()


def test_a_killed_replica_loses_only_its_connections(cluster, replicas, nginx, http):
    a, b = replicas
    s = open_session(http)
    s.ok("x = torch.ones(1)")
    a.kill()
    try:
        for _ in range(6):  # nginx takes the dead replica out and the session lives on through the other
            assert s.ok("x = x + 1", outputs=["x"])["values"]["x"]["data"][0] > 1.0
        assert s.delete().status_code == 204
    finally:
        a.start()
