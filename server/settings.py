"""Server settings: defaults, overridden by GRADSERVE_* environment variables
and then by explicit arguments (the command line, tests)."""
import dataclasses
import os
from dataclasses import dataclass, field

from gradserve.engine.limits import Limits

MiB = 1 << 20


def _split(text):
    return tuple(part.strip() for part in text.split(",") if part.strip())


@dataclass
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    backend: str = "local"
    # "process": each CPU session in a process of its own, forked from a warm template (Linux; the default).
    # "shared": CPU sessions share `workers` worker processes (the model before; a crash ends them all).
    isolation: str = "process"
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)  # shared CPU workers ("shared" only)
    gpu_workers: int | None = None        # None: one per GPU CuPy finds
    worker_threads: int = 1               # BLAS threads per session process / worker (sessions share the cores)
    session_cpu_s: float = 86400.0        # RLIMIT_CPU hard limit of a session process over its life; 0: unset
    worker_memory_bytes: int = 8 << 30    # RLIMIT_AS of each CPU worker; 0 leaves it unset
    worker_max_files: int = 256           # RLIMIT_NOFILE of each worker
    api_keys: tuple = ()                  # when set, POST /v1/sessions needs one as a Bearer token
    cors_origins: tuple = ()              # browser origins allowed to call the API and open streams
    # Host header values the server answers to (DNS rebinding): loopback names by default, plus the address
    # it binds when that is a specific one; "*" turns the check off (behind a proxy that checks Host itself).
    allowed_hosts: tuple = ("localhost", "127.0.0.1", "[::1]")
    # None: derived from this machine's memory (default_max_sessions): each session may hold
    # limits.session_bytes, so a fixed 1000 let anonymous callers open far more than the host can back.
    max_sessions: int | None = None
    session_ttl_s: float = 3600.0         # default lifetime of a session
    max_session_ttl_s: float = 7 * 24 * 3600.0
    idle_timeout_s: float = 1800.0        # a session unused this long expires
    sweep_interval_s: float = 5.0
    max_body_bytes: int = 64 * MiB        # request bodies, counted as they stream in
    max_queued_runs: int = 256            # runs admitted (queued or running) across all sessions
    cancel_grace_s: float = 2.0           # after a deadline, how long a cancelled run may take to stop
    pause_timeout_s: float = 600.0        # a paused debug run without a command this long is cancelled
    ws_max_message_bytes: int = 64 * MiB
    # HTTP connections (http_protocol.py, attack8 F2/F3): the request line and headers of one request, the
    # time a request's headers may take, the longest wait for a body's next bytes, and the connections
    # (HTTP and WebSocket) open at once (None: the open-file limit less 1024)
    max_header_bytes: int = 64 << 10
    header_timeout_s: float = 30.0
    body_idle_timeout_s: float = 60.0
    max_connections: int | None = None
    # What the API process may spend at once reading and parsing bodies and WebSocket messages past 64 KiB,
    # all requests together (parse_budget.cost: up to 8x a large body's size); past it 503 + Retry-After.
    # None: 1 GiB, or what one body at the size caps costs when that is more.
    parse_budget_bytes: int | None = None
    ws_queue_events: int = 1024           # events buffered per WebSocket before coalescing
    # about the bytes of events one WebSocket may hold queued while its reader lags (events.EventQueue):
    # past it the lagging connection is closed (1013); results and stdout are never dropped, and a
    # watcher that never read held every run's (hostile pass 9, F3)
    ws_queue_bytes: int = 256 << 20
    max_watchers: int = 16                # WebSocket connections watching one session (each gets every event)
    # node, backward and module events (and, from a bucket of their own, log events) one session's WebSocket
    # connections get a second, all of them together (events.FanoutBudget: a bucket of one second's worth);
    # past it they are counted in the ``dropped`` events a lagging reader gets. Each message sent costs the
    # API's event loop, which every session shares: 16 watchers reading a traced run's 200,000 events
    # slowed every other session's runs a hundredfold (attack14 F3). 0: no budget.
    stream_events_per_s: int = 5_000
    # permessage-deflate on WebSockets: off, since compressing each event cost the shared event loop about
    # 20 us a message per connection (events are small JSON) and a large result's whole text at once
    ws_deflate: bool = False
    ws_ping_interval_s: float = 20.0
    ws_auth_timeout_s: float = 10.0
    json_max_elements: int = 1 << 22      # numbers a JSON answer may hold; past it 413 (ask for base64/binary)
    answer_max_bytes: int = 1 << 30       # tensor bytes one answer may carry
    # tensor bytes of HTTP answers the API process holds at once while they are sent (answers.AnswerBudget);
    # past it 503 + Retry-After. None: twice answer_max_bytes.
    answer_budget_bytes: int | None = None
    output_max_depth: int = 32            # list nesting in a run output
    output_max_items: int = 1 << 20       # list entries in one run's outputs
    graph_answer_max_nodes: int = 200_000 # nodes a graph answer (graph=true, GET .../graph) carries: ~52 MB of JSON
    # tensors in one checkpoint (PUT and GET) and in a session's variable listing: 600,000 empty tensors
    # took 70-80 s to restore and stalled every other client (a large model's state_dict has a few thousand)
    max_tensors: int = 1 << 14
    # --backend ray: sessions per host actor (a process each, forked from the host's template), the
    # layout ("process", or "shared": sessions in the host's own process; with one per host that is an
    # actor per session), and the GPUs a GPU host asks Ray for (fractions allowed)
    ray_sessions_per_host: int = 64
    ray_isolation: str = "process"
    ray_gpus_per_host: float = 1.0
    limits: Limits = field(default_factory=Limits)

    @classmethod
    def from_env(cls, env=None, **overrides):
        """Settings from GRADSERVE_<FIELD> (and GRADSERVE_LIMIT_<FIELD> for limits), then ``overrides``."""
        env = os.environ if env is None else env
        values = {}
        for f in dataclasses.fields(cls):
            raw = env.get("GRADSERVE_" + f.name.upper())
            if raw is None or f.name == "limits":
                continue
            values[f.name] = _parse(f.name, raw, f.type)
        limits = {}
        for f in dataclasses.fields(Limits):
            raw = env.get("GRADSERVE_LIMIT_" + f.name.upper())
            if raw is not None:
                limits[f.name] = float(raw) if f.type in (float, "float") else int(raw)
        values["limits"] = Limits(**limits)
        values.update({k: v for k, v in overrides.items() if v is not None})
        if isinstance(values.get("limits"), dict):
            values["limits"] = dataclasses.replace(Limits(), **values["limits"])
        settings = cls(**values)
        settings.validate()
        return settings

    def trusted_hosts(self):
        """The Host names requests may carry: ``allowed_hosts`` and the bound address when it is a specific one."""
        hosts = [h.lower() for h in self.allowed_hosts]
        bound = self.host.lower()
        if ":" in bound and not bound.startswith("["):
            bound = f"[{bound}]"
        if bound not in ("0.0.0.0", "[::]", "") and bound not in hosts:
            hosts.append(bound)
        return hosts

    def validate(self):
        if self.parse_budget_bytes is None:
            from .parse_budget import cost
            self.parse_budget_bytes = max(1 << 30, cost(max(self.max_body_bytes, self.ws_max_message_bytes)))
        if self.answer_budget_bytes is None:
            self.answer_budget_bytes = 2 * self.answer_max_bytes
        if self.max_sessions is None:
            self.max_sessions = default_max_sessions(self.limits.session_bytes)
        if self.max_sessions < 1:
            raise ValueError("GRADSERVE_MAX_SESSIONS must be at least 1")
        if "*" in self.cors_origins:
            raise ValueError("GRADSERVE_CORS_ORIGINS cannot be '*': list the origins (credentials are allowed)")
        for host in self.allowed_hosts:
            if "*" in host[1:] or host.startswith("*") and host != "*" and not host.startswith("*."):
                raise ValueError(f"GRADSERVE_ALLOWED_HOSTS: {host!r}: wildcards only as '*' or '*.example.com'")
        if self.isolation not in ("process", "shared"):
            raise ValueError(f"GRADSERVE_ISOLATION: {self.isolation!r}: 'process' or 'shared'")
        if self.workers < 1:
            raise ValueError("at least one worker is needed")


# Sessions planned per machine: each counted at a quarter of its byte limit (most sessions hold far less
# than their limit; a machine full of sessions at their limit would need four times the memory), at
# least MIN_SESSIONS (a small machine still serves a class) and at most MAX_SESSIONS_CAP.
SESSION_SHARE = 4
MIN_SESSIONS = 64
MAX_SESSIONS_CAP = 1000


def machine_memory_bytes():
    """Physical memory, or the cgroup's limit when that is lower (a container)."""
    total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit():
            total = min(total, int(text))
    return total


def default_max_sessions(session_bytes, memory_bytes=None):
    """How many sessions this machine can back: its memory over a quarter of each session's byte limit
    (24 GB and 1 GiB sessions: 94), within MIN_SESSIONS..MAX_SESSIONS_CAP."""
    memory = machine_memory_bytes() if memory_bytes is None else memory_bytes
    per_session = max(1, session_bytes // SESSION_SHARE)
    return max(MIN_SESSIONS, min(MAX_SESSIONS_CAP, memory // per_session))


def _parse(name, raw, type_):
    type_ = str(type_)
    if "tuple" in type_:
        return _split(raw)
    if "None" in type_ and raw.strip().lower() in ("", "none", "auto"):
        return None
    if "bool" in type_:
        if raw.strip().lower() not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            raise ValueError(f"GRADSERVE_{name.upper()}: {raw!r}: 1/true/yes/on or 0/false/no/off")
        return raw.strip().lower() in ("1", "true", "yes", "on")
    if "float" in type_:
        return float(raw)
    if "int" in type_:
        return int(raw)
    return raw
