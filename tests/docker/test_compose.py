"""The image and the compose topology, built and run for real (``-m docker``; CI runs them).

The image is built by a Docker engine of the test's own (Debian's docker.io; storage driver
overlay2, or vfs where overlay2 cannot run) on a Debian bookworm base made with debootstrap,
since no image registry can be reached. It is then handed with ``docker save`` / ``docker load``
to a second engine started inside a network namespace that has only loopback, where the
containers run with the host's network (that namespace): every address they use is 127.0.0.1,
and the checks run in the same namespace (``nsenter``). Everything started is stopped, by
process id, and removed, but for the builder's data root and the debootstrapped base under
``GRADSERVE_DOCKER_WORK``, kept as a cache for the next run.
"""
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.docker

ROOT = Path(__file__).resolve().parents[2]
BASE_IMAGE = "gradserve-base:bookworm"
IMAGE = "gradserve:latest"
WORK = Path(os.environ.get("GRADSERVE_DOCKER_WORK", "/var/tmp/gradserve-docker"))
RAY_TOKEN = secrets.token_hex(32)
# overlay2 first, vfs where overlay2 cannot run (a data root on overlayfs, an old kernel)
STORAGE_DRIVERS = os.environ.get("GRADSERVE_DOCKER_STORAGE", "overlay2,vfs").split(",")


def _need(*tools):
    if os.environ.get("GRADSERVE_DOCKER_TESTS") != "1":
        pytest.skip("builds images and runs Docker engines: opt in with GRADSERVE_DOCKER_TESTS=1 (make test-docker)")
    missing = [t for t in tools if shutil.which(t) is None and not Path("/usr/sbin", t).exists()]
    if missing or os.geteuid() != 0:
        pytest.skip(f"needs root and {', '.join(tools)} (.ci/run installs them): missing {missing or 'root'}")


def _run(cmd, timeout=1800, **kw):
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    assert result.returncode == 0, f"{cmd[:4]} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


def _mounts_under(path):
    prefix = str(path).rstrip("/") + "/"
    with open("/proc/self/mountinfo") as f:
        points = [line.split()[4] for line in f]
    return [p for p in points if p.startswith(prefix)]


def _children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


class Engine:
    """A dockerd of the test's own: its own data, socket and pid; optionally in a new network namespace."""

    def __init__(self, name, isolated):
        self.dir = WORK / name
        self.sock = f"unix://{self.dir}/docker.sock"
        self.isolated = isolated
        self.proc = None
        self.pid = None  # dockerd's own pid (inside unshare when isolated)
        self.driver = None

    def start(self):
        """Starts dockerd with the first storage driver of ``STORAGE_DRIVERS`` that works here: overlay2 where
        the kernel and the file system allow it, else vfs (which copies the whole image for every container:
        minutes per container for this image on a loaded 2-core machine)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        problems = []
        for driver in STORAGE_DRIVERS:
            if self._start(driver):
                self.driver = driver
                return self
            problems.append(f"{driver}: " + (self.dir / "dockerd.log").read_text()[-1500:])
        raise RuntimeError("dockerd did not start:\n" + "\n".join(problems))

    def _start(self, driver):
        data = self.dir / f"data-{driver}"  # one data root per driver: a driver refuses another's leftovers
        dockerd = ["dockerd", f"--storage-driver={driver}", f"--data-root={data}",
                   f"--exec-root={self.dir}/exec", f"--host={self.sock}", f"--pidfile={self.dir}/dockerd.pid"]
        log = open(self.dir / "dockerd.log", "wb")
        if self.isolated:
            dockerd += ["--bridge=none", "--iptables=false", "--ip6tables=false"]
            cmd = ["unshare", "--net", "--fork", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *dockerd]
        else:
            cmd = dockerd
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.proc.poll() is None:
            if subprocess.run(self.docker("version"), capture_output=True).returncode == 0:
                self.pid = (_children(self.proc.pid) or [self.proc.pid])[0] if self.isolated else self.proc.pid
                return True
            time.sleep(0.5)
        self.stop()
        return False

    def docker(self, *args):
        return ["docker", "-H", self.sock, *args]

    def compose(self, *args):
        return ["docker-compose", "-H", self.sock, "-f", str(ROOT / "docker-compose.yml"), "-p", "gstest", *args]

    def compose_env(self):
        return {**os.environ, "RAY_AUTH_TOKEN": RAY_TOKEN}

    def in_netns(self, script, timeout=300):
        """Runs a Python script in the engine's network namespace (where its containers listen)."""
        return _run(["nsenter", f"--target={self.pid}", "--net", sys.executable, "-c", script], timeout=timeout)

    def stop(self):
        if self.proc is None:
            return
        subprocess.run(self.docker("rm", "-f", *self.containers()), capture_output=True)
        for pid in [self.pid, self.proc.pid]:
            try:
                os.kill(pid, signal.SIGTERM)
            except (ProcessLookupError, TypeError):
                pass
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None
        # dockerd leaves mounts behind (its network namespace under exec/netns, overlay2 layers): unmount
        # them, deepest first, so the directory can be removed
        for mount in sorted(_mounts_under(self.dir), key=len, reverse=True):
            subprocess.run(["umount", "-l", mount], capture_output=True)

    def containers(self):
        out = subprocess.run(self.docker("ps", "-aq"), capture_output=True, text=True).stdout
        return out.split()


def _clear(path):
    """Removes ``path``, unmounting first whatever is mounted below it (a debootstrap that fails midway
    leaves the target's /proc mounted)."""
    for mount in sorted(_mounts_under(path), key=len, reverse=True):
        subprocess.run(["umount", "-l", mount], capture_output=True)
    shutil.rmtree(path, ignore_errors=True)


def _base_rootfs():
    rootfs, done = WORK / "rootfs", WORK / "rootfs.done"
    for attempt in range(3):  # a mirror that drops one download (seen: "Couldn't download ... Packages")
        if done.exists():
            return rootfs
        _clear(rootfs)
        result = subprocess.run(["debootstrap", "--variant=minbase", "--include=python3,python3-venv,ca-certificates",
                                 "bookworm", str(rootfs), "http://deb.debian.org/debian"],
                                capture_output=True, text=True, timeout=1800)
        if result.returncode == 0:
            done.touch()
        else:
            print(f"debootstrap failed (attempt {attempt + 1}): {result.stdout[-1500:]}{result.stderr[-1500:]}")
            _clear(rootfs)
            time.sleep(5)
    assert done.exists(), "debootstrap failed three times (output above)"
    return rootfs


def _build_context():
    """A copy of the repository's files for the image, with this machine's extra CAs (a TLS-inspecting
    proxy's) so the build can reach the package registries as this machine does."""
    ctx = Path(tempfile.mkdtemp(prefix="gsctx", dir=WORK))
    files = _run(["git", "ls-files", "-z"], cwd=ROOT).split("\0")
    for name in files:
        if name and not name.startswith("tests/") and (ROOT / name).is_file():
            (ctx / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, ctx / name)
    for crt in Path("/usr/local/share/ca-certificates").glob("*.crt"):
        shutil.copy2(crt, ctx / "deploy" / "ca-certificates" / crt.name)
    return ctx


@pytest.fixture(scope="module")
def image_tar():
    _need("dockerd", "docker", "debootstrap", "docker-compose", "nsenter", "unshare")
    WORK.mkdir(parents=True, exist_ok=True)
    builder = Engine("builder", isolated=False).start()
    try:
        if subprocess.run(builder.docker("image", "inspect", BASE_IMAGE), capture_output=True).returncode != 0:
            tar = subprocess.Popen(["tar", "-C", str(_base_rootfs()), "-c", "."], stdout=subprocess.PIPE)
            _run(builder.docker("import", "-", BASE_IMAGE), stdin=tar.stdout)
            tar.wait()
        ctx = _build_context()
        try:
            # the classic builder (Debian's docker.io has no buildx for BuildKit): a container per instruction,
            # cheap under overlay2, a copy of the whole image each under vfs
            _run(builder.docker("build", "-q", "--build-arg", f"BASE={BASE_IMAGE}", "-t", IMAGE, str(ctx)))
        finally:
            shutil.rmtree(ctx, ignore_errors=True)
        path = WORK / "gradserve-image.tar"
        _run(builder.docker("save", "-o", str(path), IMAGE))
        yield path
    finally:
        builder.stop()  # its data root stays, as a cache of the base image and the build's layers
        (WORK / "gradserve-image.tar").unlink(missing_ok=True)


@pytest.fixture(scope="module")
def engine(image_tar):
    e = Engine("isolated", isolated=True).start()
    try:
        _run(e.docker("load", "-i", str(image_tar)))
        yield e
    finally:
        subprocess.run(e.compose("down", "-v", "--remove-orphans"), capture_output=True, timeout=300,
                       env=e.compose_env())
        e.stop()
        shutil.rmtree(e.dir, ignore_errors=True)


CHECK_SINGLE = textwrap.dedent("""
    import time, httpx
    url = "http://127.0.0.1:18000"
    deadline = time.monotonic() + 180
    while True:
        try:
            if httpx.get(url + "/healthz").status_code == 200: break
        except httpx.HTTPError: pass
        assert time.monotonic() < deadline, "the container never answered /healthz"
        time.sleep(1)
    s = httpx.post(url + "/v1/sessions", json={}).json()
    h = {"Authorization": "Bearer " + s["token"]}
    r = httpx.post(url + f"/v1/sessions/{s['id']}/run", headers=h, timeout=60,
                   json={"program": "y = (x * x).sum()\\ny.backward()",
                         "inputs": {"x": {"data": [1.0, 2.0], "requires_grad": True}}})
    assert r.status_code == 200, r.text
    assert r.json()["grads"]["x"]["data"] == [2.0, 4.0], r.text
    print("ok")
""")


def test_the_image_runs_healthz_a_session_and_a_run(engine):
    name = "gstest-single"
    _run(engine.docker("run", "-d", "--name", name, "--network", "host", "-e", "GRADSERVE_PORT=18000", IMAGE))
    try:
        assert engine.in_netns(CHECK_SINGLE).strip().endswith("ok")
        user = _run(engine.docker("exec", name, "id", "-u")).strip()
        assert user != "0", "the image runs as a non-root user"
        deadline = time.monotonic() + 120
        while True:
            health = json.loads(_run(engine.docker("inspect", "--format", "{{json .State.Health}}", name)))
            if health and health["Status"] == "healthy":
                break
            assert time.monotonic() < deadline, f"the container's healthcheck never passed: {health}"
            time.sleep(2)
    finally:
        subprocess.run(engine.docker("rm", "-f", name), capture_output=True)


CHECK_TOPOLOGY = textwrap.dedent("""
    import json, threading, time, httpx
    from websockets.sync.client import connect
    lb, a, b = "http://127.0.0.1:8000", "http://127.0.0.1:8001", "http://127.0.0.1:8002"
    deadline = time.monotonic() + 300
    while True:
        try:
            if all(httpx.get(u + "/readyz").status_code == 200 for u in (lb, a, b)): break
        except httpx.HTTPError: pass
        assert time.monotonic() < deadline, "the topology never became ready"
        time.sleep(2)
    s = httpx.post(a + "/v1/sessions", json={}, timeout=120).json()
    h = {"Authorization": "Bearer " + s["token"]}
    path = f"/v1/sessions/{s['id']}"
    with connect(f"ws://127.0.0.1:8001{path}/stream?token={s['token']}") as ws:
        ws.send(json.dumps({"type": "watch"}))
        time.sleep(0.5)
        r = httpx.post(b + path + "/run", headers=h, timeout=60,
                       json={"program": "w = torch.ones(2, requires_grad=True)\\nloss = (w * 3).sum()\\nloss.backward()",
                             "outputs": ["loss", "w"]})
        assert r.status_code == 200, r.text
        assert r.json()["grads"]["w"]["data"] == [3.0, 3.0]
        kinds = []
        while "result" not in kinds:
            kinds.append(json.loads(ws.recv(timeout=60))["type"])
        assert kinds[0] == "started", kinds
    for i in range(6):  # through nginx, alternating replicas
        r = httpx.post(lb + path + "/run", headers=h, timeout=60, json={"program": "w = w + 1", "outputs": ["w"]})
        assert r.status_code == 200, r.text
    assert httpx.get(a + path + "/variables/w", headers=h).json()["value"]["data"] == [7.0, 7.0]
    assert httpx.delete(lb + path, headers=h).status_code == 204
    assert httpx.get(b + path, headers=h).status_code == 404
    print("ok")
""")


def test_the_compose_topology_serves_a_session_across_replicas_through_nginx(engine):
    _run(engine.compose("up", "-d", "--no-build"), timeout=600, env=engine.compose_env())
    try:
        assert engine.in_netns(CHECK_TOPOLOGY, timeout=600).strip().endswith("ok")
        services = _run(engine.compose("ps", "--services", "--filter", "status=running"),
                        env=engine.compose_env()).split()
        assert {"ray-head", "ray-worker-cpu", "api-1", "api-2", "nginx"} <= set(services), services
    finally:
        _run(engine.compose("down", "-v", "--remove-orphans"), timeout=300, env=engine.compose_env())
