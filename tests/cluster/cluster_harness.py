"""A real Ray cluster, gradserve replicas and nginx on loopback, for the cluster tests.

Everything here runs inside a network namespace whose only interface is loopback
(``make test`` enters one with ``unshare --net``), so every address Ray, the
replicas and nginx use is 127.0.0.1 by construction. Each process is started
by this module, in a process group of its own, and stopped by its id.
"""
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

BIN = Path(sys.executable).parent


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def only_loopback():
    """Whether this process sits in a network namespace with loopback as its only interface."""
    try:
        names = {name for _, name in socket.if_nameindex()}
    except OSError:
        return False
    return names == {"lo"}


def _descendants(pid):
    """Every live process below ``pid`` (Ray's workers put themselves in process groups of their own)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _signal_all(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def _stop(proc, timeout_s=20, sig=signal.SIGTERM):
    """Stops ``proc`` and everything it started, by process id."""
    if proc is None:
        return
    below = _descendants(proc.pid)
    if proc.poll() is None:
        _signal_all([proc.pid], sig)
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            _signal_all([proc.pid], signal.SIGKILL)
            proc.wait(10)
    _signal_all(below + _descendants(proc.pid), signal.SIGKILL)


def _wait_for(predicate, timeout_s, what):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not come up in {timeout_s} s")


# Ray's token authentication, on: every process of a test cluster (nodes, replicas, the test's own
# driver) gets this run's token through the environment.
RAY_AUTH = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}


def ray_env(extra=None):
    env = dict(os.environ)
    env.update({"RAY_USAGE_STATS_ENABLED": "0", "RAY_DEDUP_LOGS": "0", "PYTHONUNBUFFERED": "1", **RAY_AUTH})
    env.update(extra or {})
    return env


class RayCluster:
    """A head node and a worker node (resource ``worker_node``), each a ``ray start --block`` process."""

    def __init__(self, num_cpus=2, object_store_bytes=80 << 20):
        self.num_cpus = num_cpus
        self.object_store_bytes = object_store_bytes
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.temp_dir = tempfile.mkdtemp(prefix="gsray")
        self.head = None
        self.worker = None

    def _node(self, *args):
        cmd = [str(BIN / "ray"), "start", "--block", "--node-ip-address", "127.0.0.1",
               "--num-cpus", str(self.num_cpus), "--object-store-memory", str(self.object_store_bytes),
               "--disable-usage-stats", *args]
        log = open(Path(self.temp_dir) / f"node-{len(os.listdir(self.temp_dir))}.log", "wb")
        return subprocess.Popen(cmd, env=ray_env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def nodes_alive(self):
        probe = subprocess.run([str(BIN / "python"), "-c",
                                "import ray, sys; ray.init(address=sys.argv[1], logging_level='ERROR');"
                                "print(sum(n['Alive'] for n in ray.nodes()))", self.address],
                               env=ray_env(), capture_output=True, text=True, timeout=60)
        try:
            return int(probe.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return 0

    def start(self):
        os.environ.update(RAY_AUTH)  # for a driver this process starts (ray.init)
        self.head = self._node("--head", "--port", str(self.port), "--include-dashboard", "false",
                               "--temp-dir", self.temp_dir)
        self.start_worker()
        return self

    def start_worker(self):
        self.worker = self._node("--address", self.address, "--resources", '{"worker_node": 1}')
        _wait_for(lambda: self.nodes_alive() >= 2, 90, "the Ray cluster")

    def stop_worker(self):
        """The worker node is lost: its raylet and every process on it end at once."""
        _stop(self.worker, sig=signal.SIGKILL)

    def stop(self):
        _stop(self.worker)
        _stop(self.head)
        keep = os.environ.get("GRADSERVE_KEEP_CLUSTER_LOGS")  # a directory to keep the replicas' logs in
        if keep:
            os.makedirs(keep, exist_ok=True)
            for log in Path(self.temp_dir).glob("replica-*.log"):
                shutil.copy(log, keep)
        shutil.rmtree(self.temp_dir, ignore_errors=True)


class Replica:
    """``gradserve serve --backend ray`` on a free port."""

    def __init__(self, cluster, **env):
        self.cluster = cluster
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = ray_env({"RAY_ADDRESS": cluster.address, **{f"GRADSERVE_{k.upper()}": str(v)
                                                               for k, v in env.items()}})
        self.proc = None

    def start(self):
        log = open(Path(self.cluster.temp_dir) / f"replica-{self.port}.log", "wb")
        self.proc = subprocess.Popen([str(BIN / "gradserve"), "serve", "--backend", "ray", "--host", "127.0.0.1",
                                      "--port", str(self.port), "--log-level", "warning"],
                                     env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        _wait_for(self.ready, 120, f"replica on port {self.port}")
        return self

    def ready(self):
        if self.proc.poll() is not None:
            raise RuntimeError(f"replica exited with {self.proc.returncode}")
        try:
            return httpx.get(self.url + "/readyz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def kill(self):
        _stop(self.proc, sig=signal.SIGKILL)

    def stop(self):
        _stop(self.proc)


NGINX_CONF = """
worker_processes 1;
error_log {prefix}/error.log warn;
pid {prefix}/nginx.pid;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    client_max_body_size 64m;
    map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
    upstream gradserve {{
{servers}
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://gradserve;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $host;
            proxy_read_timeout 3600s;
            proxy_next_upstream error timeout http_502 http_503;
            proxy_connect_timeout 2s;
        }}
    }}
}}
"""


class Nginx:
    """nginx (Debian's package) balancing over the replicas, WebSocket upgrades passed through."""

    def __init__(self, replicas):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.prefix = tempfile.mkdtemp(prefix="gsnginx")
        servers = "\n".join(f"        server 127.0.0.1:{r.port} max_fails=1 fail_timeout=2s;" for r in replicas)
        conf = Path(self.prefix) / "nginx.conf"
        conf.write_text(NGINX_CONF.format(prefix=self.prefix, servers=servers, port=self.port))
        self.conf = conf
        self.proc = None

    def start(self):
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.proc = subprocess.Popen([nginx, "-c", str(self.conf), "-p", self.prefix, "-g", "daemon off;"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        _wait_for(self._up, 30, "nginx")
        return self

    def _up(self):
        try:
            return httpx.get(self.url + "/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self):
        _stop(self.proc)
        shutil.rmtree(self.prefix, ignore_errors=True)
