"""Prometheus metrics: runs, errors, run latency, sessions, worker health."""
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, disable_created_metrics, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

disable_created_metrics()

# Error types a run's failure is counted under. A program names its own exception classes, and a
# label is shared, unauthenticated and kept forever: anything outside this set counts as "ProgramError".
ERROR_TYPES = frozenset({
    # the server's own
    "LimitExceeded", "Timeout", "Cancelled", "ValidationError", "Conflict", "TooManyRequests", "SessionGone",
    "SessionNotFound", "Unavailable", "InternalError", "MemoryError", "TooLarge", "BadCommand",
    # Python's built-in exceptions, as programs raise them
    "ArithmeticError", "AssertionError", "AttributeError", "Exception", "FloatingPointError", "ImportError",
    "IndexError", "KeyError", "LookupError", "ModuleNotFoundError", "NameError", "NotImplementedError",
    "OverflowError", "RecursionError", "RuntimeError", "StopIteration", "SyntaxError", "TypeError",
    "UnboundLocalError", "ValueError", "ZeroDivisionError",
})


def error_label(error_type):
    """The ``type`` label for a failed run: from the fixed set above, never program text."""
    return error_type if type(error_type) is str and error_type in ERROR_TYPES else "ProgramError"


class Metrics:
    def __init__(self, sessions, backend):
        self.registry = CollectorRegistry(auto_describe=True)
        self.runs = Counter("gradserve_runs", "Program runs by transport and outcome",
                            ["transport", "outcome"], registry=self.registry)
        self.errors = Counter("gradserve_run_errors", "Failed runs by error type", ["type"], registry=self.registry)
        self.latency = Histogram("gradserve_run_seconds", "Run latency as the server sees it, queueing included",
                                 ["transport"], registry=self.registry,
                                 buckets=(.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60))
        self.rejected = Counter("gradserve_rejected_runs", "Runs turned away (busy session, queue full)",
                                ["reason"], registry=self.registry)
        self.queued = Gauge("gradserve_runs_in_flight", "Runs admitted and not yet answered", registry=self.registry)
        self.registry.register(_LiveCollector(sessions, backend))
        self._finished = {}  # (transport, outcome) -> (runs child, latency child): labels() costs a lock and a lookup

    def run_finished(self, transport, outcome, seconds):
        """Counts a run and observes its latency."""
        children = self._finished.get((transport, outcome))
        if children is None:
            children = self._finished[transport, outcome] = (self.runs.labels(transport, outcome),
                                                             self.latency.labels(transport))
        children[0].inc()
        children[1].observe(seconds)

    def render(self):
        return generate_latest(self.registry)


class BudgetCollector:
    """A budget's use, read at scrape time: the parse budget (``parse_budget``) or the answer budget
    (``answers.AnswerBudget``), as ``gradserve_<name>_budget_*``."""

    def __init__(self, budget, name="parse", holds="reading and parsing request bodies and WebSocket messages",
                 refused="Bodies and messages refused (503 or 413)"):
        self.budget, self.name, self.holds, self.refused = budget, name, holds, refused

    def describe(self):
        return []

    def collect(self):
        prefix = f"gradserve_{self.name}_budget"
        yield GaugeMetricFamily(f"{prefix}_bytes", f"Bytes the API process may spend at once {self.holds}",
                                value=self.budget.total)
        yield GaugeMetricFamily(f"{prefix}_used_bytes", "Of those, held now", value=self.budget.used)
        yield CounterMetricFamily(f"{prefix}_refused", f"{self.refused} because the {self.name} budget could not "
                                  "hold them", value=self.budget.refused)


class _LiveCollector:
    """Values read at scrape time from the session registry and the backend."""

    def __init__(self, sessions, backend):
        self.sessions = sessions
        self.backend = backend

    def describe(self):
        return []

    def collect(self):
        yield GaugeMetricFamily("gradserve_sessions", "Live sessions", value=len(self.sessions))
        alive = GaugeMetricFamily("gradserve_worker_up", "1 when the worker process is alive",
                                  labels=["worker", "device"])
        hosted = GaugeMetricFamily("gradserve_worker_sessions", "Sessions on each worker", labels=["worker", "device"])
        restarts = CounterMetricFamily("gradserve_worker_restarts", "Worker processes replaced",
                                       labels=["worker", "device"])
        for w in self.backend.health()["workers"]:
            labels = [str(w["worker"]), w["device"]]
            alive.add_metric(labels, 1.0 if w["alive"] else 0.0)
            hosted.add_metric(labels, w["sessions"])
            restarts.add_metric(labels, w["restarts"])
        yield alive
        yield hosted
        yield restarts
        yield from self._cluster()

    def _cluster(self):
        """A cluster backend's view (Ray): the same cluster-wide numbers on every replica, as last read."""
        cluster = self.backend.health().get("cluster")
        if cluster is None:
            return
        yield GaugeMetricFamily("gradserve_cluster_reachable", "1 when this replica reaches the cluster's "
                                "session directory", value=1.0 if cluster["reachable"] else 0.0)
        sessions = GaugeMetricFamily("gradserve_cluster_sessions", "Sessions the cluster knows, by state "
                                     "(gone: their host or process died; they answer 410 until they expire)",
                                     labels=["state"])
        sessions.add_metric(["live"], cluster["sessions"])
        sessions.add_metric(["gone"], cluster["sessions_gone"])
        yield sessions
        hosts = GaugeMetricFamily("gradserve_cluster_hosts", "Session host actors, by state", labels=["state"])
        hosts.add_metric(["alive"], cluster["hosts"])
        hosts.add_metric(["lost"], cluster["hosts_lost"])
        yield hosts
        yield GaugeMetricFamily("gradserve_cluster_nodes", "Ray nodes alive", value=cluster["nodes"])
        resources = GaugeMetricFamily("gradserve_cluster_resources", "The cluster's resources", labels=["resource"])
        resources.add_metric(["CPU"], cluster["cpus"])
        resources.add_metric(["GPU"], cluster["gpus"])
        yield resources
        up = GaugeMetricFamily("gradserve_host_up", "1 while a session host actor is alive, 0 once it (or its "
                               "node) is lost", labels=["host", "node", "device"])
        held = GaugeMetricFamily("gradserve_host_sessions", "Sessions on each session host actor",
                                 labels=["host", "node", "device"])
        for h in self.backend.cluster_hosts():
            labels = [h["host"], h["node"], h["device"]]
            up.add_metric(labels, 1.0 if h["alive"] else 0.0)
            held.add_metric(labels, h["sessions"])
        yield up
        yield held
