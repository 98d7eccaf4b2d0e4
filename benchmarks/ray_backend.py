"""The Ray backend against the local one, on this machine (not a timed test).

Prints, for the local backend and for the Ray backend (a Ray head and a worker node on loopback):
session-creation p50, tiny-program HTTP run p50, requests/s with 32 clients through nginx in front
of 1 and 2 Ray replicas, and the time for 100 sessions to be created and run once across the two
nodes. Run it in a loopback-only network namespace, as the cluster tests do:

    unshare --net sh -c 'ip link set lo up && .venv/bin/python benchmarks/ray_backend.py'

``--only run`` measures only the tiny-program HTTP p50: the local server and the Ray replica stay up
together and are measured in alternating rounds (``--rounds``), so both see the same machine load;
the medians of the rounds' p50s are compared.
"""
import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "cluster"))

from cluster_harness import BIN, Nginx, RayCluster, Replica, _stop, free_port, only_loopback  # noqa: E402

TINY = {"program": "y = x * 2", "inputs": {"x": [1.0, 2.0]}, "outputs": ["y"]}


class LocalServer:
    def __init__(self):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen([str(BIN / "gradserve"), "serve", "--port", str(self.port), "--log-level",
                                      "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/readyz").status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("local server did not start")

    def stop(self):
        _stop(self.proc)


def p50_ms(samples):
    return statistics.median(samples) * 1000.0


def create_p50(url, n=20):
    times, made = [], []
    with httpx.Client(base_url=url, timeout=120) as c:
        for _ in range(n):
            t = time.perf_counter()
            r = c.post("/v1/sessions", json={})
            times.append(time.perf_counter() - t)
            made.append(r.json())
        for s in made:
            c.delete(f"/v1/sessions/{s['id']}", headers={"Authorization": f"Bearer {s['token']}"})
    return p50_ms(times)


def run_p50(url, n=300):
    with httpx.Client(base_url=url, timeout=60) as c:
        s = c.post("/v1/sessions", json={}).json()
        h = {"Authorization": f"Bearer {s['token']}"}
        path = f"/v1/sessions/{s['id']}/run"
        for _ in range(20):
            c.post(path, json=TINY, headers=h)
        times = []
        for _ in range(n):
            t = time.perf_counter()
            r = c.post(path, json=TINY, headers=h)
            times.append(time.perf_counter() - t)
            assert r.status_code == 200, r.text
        c.delete(f"/v1/sessions/{s['id']}", headers=h)
    return p50_ms(times)


async def _throughput(url, clients=32, seconds=5.0):
    async with httpx.AsyncClient(base_url=url, timeout=60,
                                 limits=httpx.Limits(max_connections=clients)) as c:
        sessions = [(await c.post("/v1/sessions", json={})).json() for _ in range(clients)]
        done = 0
        stop = time.perf_counter() + seconds

        async def loop(s):
            nonlocal done
            h = {"Authorization": f"Bearer {s['token']}"}
            while time.perf_counter() < stop:
                r = await c.post(f"/v1/sessions/{s['id']}/run", json=TINY, headers=h)
                assert r.status_code == 200, r.text
                done += 1

        t = time.perf_counter()
        await asyncio.gather(*(loop(s) for s in sessions))
        rate = done / (time.perf_counter() - t)
        for s in sessions:
            await c.delete(f"/v1/sessions/{s['id']}", headers={"Authorization": f"Bearer {s['token']}"})
    return rate


def throughput(url, **kw):
    return asyncio.run(_throughput(url, **kw))


def sessions_per_node(cluster):
    """{node: sessions} as the cluster's directory counts them (a Ray driver of this process)."""
    import ray
    if not ray.is_initialized():
        ray.init(address=cluster.address, namespace="gradserve", logging_level="ERROR", log_to_driver=False)
    directory = ray.get_actor("gradserve-directory", namespace="gradserve")
    per_node = {}
    for h in ray.get(directory.counts.remote())["per_host"]:
        if h["alive"]:
            per_node[h["node"][:8]] = per_node.get(h["node"][:8], 0) + h["sessions"]
    return per_node


async def _hundred(url, n=100, cluster=None):
    async with httpx.AsyncClient(base_url=url, timeout=300, limits=httpx.Limits(max_connections=16)) as c:
        gate = asyncio.Semaphore(16)

        async def one():
            async with gate:
                r = await c.post("/v1/sessions", json={})
                if r.status_code != 201:
                    return f"create {r.status_code}: {r.text[:200]}"
                s = r.json()
                h = {"Authorization": f"Bearer {s['token']}"}
                r = await c.post(f"/v1/sessions/{s['id']}/run", json=TINY, headers=h)
                return s if r.status_code == 200 else f"run {r.status_code}: {r.text[:200]}"

        t = time.perf_counter()
        made = await asyncio.gather(*(one() for _ in range(n)))
        elapsed = time.perf_counter() - t
        failed = [m for m in made if isinstance(m, str)]
        if failed:
            print(f"    {len(failed)} of {n} failed, first: {failed[0]}", flush=True)
        if cluster is not None:
            print(f"    sessions per node: {await asyncio.to_thread(sessions_per_node, cluster)}", flush=True)
        for s in made:
            if isinstance(s, str):
                continue
            await c.delete(f"/v1/sessions/{s['id']}", headers={"Authorization": f"Bearer {s['token']}"})
    return elapsed


class Rows(list):
    """Results, printed as they come (a long run still shows what it measured)."""

    def append(self, row):
        super().append(row)
        print(f"{row[0]:10} {row[1]:45} {row[2]:10.2f}", flush=True)


def run_only(layouts, rounds, n):
    """Tiny-run p50, local and Ray side by side: alternating rounds, the median of each side's p50s."""
    print(f"load average at start: {os.getloadavg()}", flush=True)
    local = LocalServer().start()
    try:
        for layout in layouts:
            cluster = RayCluster(num_cpus=os.cpu_count() or 2).start()
            replica = None
            try:
                replica = Replica(cluster, **LAYOUTS[layout]).start()
                run_p50(replica.url, 50)
                p50s = {"local": [], layout: []}
                for _ in range(rounds):
                    p50s["local"].append(run_p50(local.url, n))
                    p50s[layout].append(run_p50(replica.url, n))
                    print(f"    round: local {p50s['local'][-1]:.2f} ms, {layout} {p50s[layout][-1]:.2f} ms, "
                          f"load {os.getloadavg()[0]:.2f}", flush=True)
                loc, ray_ = statistics.median(p50s["local"]), statistics.median(p50s[layout])
                print(f"{layout:10} tiny run p50 (ms), median of {rounds} rounds: local {loc:.2f}, "
                      f"{layout} {ray_:.2f}, gap {ray_ - loc:+.2f}", flush=True)
            finally:
                if replica is not None:
                    replica.stop()
                cluster.stop()
    finally:
        local.stop()
    print(f"load average at end: {os.getloadavg()}", flush=True)


# max_sessions: the default is derived from this machine's memory (94 here) and the throughput runs'
# sessions count until the replicas next read the cluster's counts
LAYOUTS = {"pooled": {"max_sessions": 160},
           "per-actor": {"ray_isolation": "shared", "ray_sessions_per_host": 1, "max_sessions": 160}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=["run"], help="only the tiny-run p50, local and Ray in alternating rounds")
    parser.add_argument("--layouts", default=os.environ.get("BENCH_LAYOUTS", "pooled,per-actor"),
                        help="comma-separated: pooled, per-actor (default: both)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of --only run (default 5)")
    parser.add_argument("--requests", type=int, default=300, help="timed requests per round (default 300)")
    args = parser.parse_args()
    layouts = args.layouts.split(",")
    if not only_loopback():
        sys.exit("run this in a loopback-only network namespace (see the module docstring)")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped"))  # so every started process is stopped
    if args.only == "run":
        return run_only(layouts, args.rounds, args.requests)
    sessions = int(os.environ.get("BENCH_SESSIONS", "100"))
    rows = Rows()
    print(f"load average at start: {os.getloadavg()}", flush=True)
    local = LocalServer().start()
    try:
        rows.append(("local", "session create p50 (ms)", create_p50(local.url)))
        rows.append(("local", "tiny run p50 (ms)", run_p50(local.url)))
        rows.append(("local", "req/s, 32 clients", throughput(local.url)))
    finally:
        local.stop()
    for layout in layouts:
        cluster = RayCluster(num_cpus=os.cpu_count() or 2).start()
        replicas = []
        try:
            replicas = [Replica(cluster, **LAYOUTS[layout]).start(), Replica(cluster, **LAYOUTS[layout]).start()]
            rows.append((layout, "session create p50 (ms)", create_p50(replicas[0].url)))
            rows.append((layout, "tiny run p50 (ms)", run_p50(replicas[0].url)))
            for k in (1, 2):
                lb = Nginx(replicas[:k]).start()
                try:
                    rows.append((layout, f"req/s, 32 clients, {k} replica(s) behind nginx", throughput(lb.url)))
                finally:
                    lb.stop()
            rows.append((layout, f"{sessions} sessions created and run once (s)",
                         asyncio.run(_hundred(replicas[0].url, sessions, cluster))))
        finally:
            for r in replicas:
                r.stop()
            import ray
            if ray.is_initialized():
                ray.shutdown()
            cluster.stop()
    print(f"load average at end: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
