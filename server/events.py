"""Run events on their way to WebSocket clients.

Every event of a run gets the run's id and the next ``seq``, then goes to the
connection that started the run and to every connection watching the session.
Each connection has its own bounded queue, so a client that stops reading only
fills its own: past the bound its node, backward and log events are counted
instead of queued, and so are module events (a ``dropped`` event with the counts takes their place), and
stdout merges into the stdout event before it; started, result, error and
cancelled are never dropped. So the queue also counts about the bytes it holds (EVENT_BYTES an event,
plus its text and a result's ``cost``): a connection that already holds more than its byte bound is not
keeping up and is closed (1013, try again later), its queue let go. A watcher that never read once held
every run's result and stdout (hostile pass 9, F3: 160 MB a run, or 2 MB a run at 80 runs a second).
"""
import asyncio
import time
from collections import deque

DROPPABLE = frozenset({"node", "backward", "log", "module"})
EVENT_BYTES = 256   # what an event counts in a queue's bytes besides its text and cost (see EventQueue)


class SharedEvent(dict):
    """An event several connections send: the first to send it encodes it, the others reuse that text
    (40 watchers once meant 40 encodings of every event, on the event loop), and the first queue to
    hold it counts its bytes for all (``held``: _cost's answer)."""
    __slots__ = ("wire", "cost", "held", "__weakref__")   # cost: a result's values, counted by EventQueue


class FanoutBudget:
    """The droppable events (node, backward, log, module) one session's WebSocket connections get,
    all of them together: at most ``rate`` a second, from a bucket that holds one second's worth, each
    event costing one per connection it goes to. What the bucket cannot pay for is counted in each
    connection's ``dropped`` counts, as a lagging reader's is: every message sent costs the API's one
    event loop, so one session's many watchers of a long traced run slowed every other session's runs
    a hundredfold (attack14 F3). A run of up to ``rate`` such events a connection loses none. Log events
    (``log(step=..., loss=...)``: the progress a client shows) draw from a bucket of their own, ``logs``,
    so that a traced run's node events never crowd them out."""
    __slots__ = ("rate", "tokens", "stamp", "logs")

    def __init__(self, rate, logs=True):
        self.rate = float(rate)
        self.tokens = self.rate
        self.stamp = time.monotonic()
        self.logs = FanoutBudget(rate, logs=False) if logs else None

    def pays(self, kind, n):
        """Whether ``n`` deliveries of a droppable event of ``kind`` may be made now (log events from
        their own bucket)."""
        bucket = self.logs if kind == "log" and self.logs is not None else self
        return bucket.take(n)

    def take(self, n):
        """Whether ``n`` deliveries may be made now (and they are counted)."""
        now = time.monotonic()
        tokens = min(self.rate, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if tokens < n:
            self.tokens = tokens
            return False
        self.tokens = tokens - n
        return True


def held_back(held, event):
    """``held`` (None, or the counts of a run's events a FanoutBudget did not pay for, and the last one's
    ``seq``: what EventQueue.count_dropped takes) with ``event`` counted too."""
    if held is None:
        held = {"node": 0, "backward": 0, "log": 0}
    kind = event["type"]
    held[kind] = held.get(kind, 0) + 1
    held["seq"] = event["seq"]
    return held


class _StdoutRun:
    """Consecutive stdout of one run merged while a reader lags: its pieces, joined once when sent
    (joining them one at a time copied the whole text for every line: quadratic, per watcher)."""
    __slots__ = ("event", "texts")

    def __init__(self, event):
        self.event = event
        self.texts = [event["text"]]

    def __getitem__(self, key):
        return self.event[key]

    def joined(self):
        return {**self.event, "text": "".join(self.texts)}


# Events after which a debug run no longer waits in the debugger (see worker_calls.call).
_UNPAUSING = frozenset({"resumed", "result", "error", "cancelled"})

CLOSE = object()  # in a queue: close the connection with the queue's close_code once what is before it is sent


def _cost(event):
    """About the bytes ``event`` holds in a queue: EVENT_BYTES, its texts (stdout, a program, an error's
    message, a debug answer's repr or whole tensor, a pause's locals, breakpoint conditions) and a
    result's ``cost``."""
    cost = EVENT_BYTES + getattr(event, "cost", 0)
    for key in ("text", "program", "stdout", "code", "expr"):
        value = event.get(key)
        if type(value) is str:
            cost += len(value)
    for key in ("error", "value"):
        inner = event.get(key)
        if type(inner) is dict:
            for field in ("message", "repr"):
                if type(inner.get(field)) is str:
                    cost += len(inner[field])
            tensor = inner.get("tensor")
            if type(tensor) is dict and type(tensor.get("b64")) is str:
                cost += len(tensor["b64"])
    for key in ("locals", "names"):   # a pause's locals; the names of a traced run's nodes
        names = event.get(key)
        if type(names) is dict:
            cost += EVENT_BYTES * len(names)
    breakpoints = event.get("breakpoints")   # a breakpoints command's answer lists them with their conditions
    if type(breakpoints) is list:
        for b in breakpoints:
            cost += EVENT_BYTES
            if type(b) is dict and type(b.get("condition")) is str:
                cost += len(b["condition"])
    return cost


class EventQueue:
    """One connection's outgoing events."""

    def __init__(self, capacity, max_bytes=None):
        self.capacity = capacity
        self.max_bytes = max_bytes
        self.held_bytes = 0    # about the bytes of what is queued: the sum of ``costs``
        self.items = deque()
        self.costs = deque()   # each queued item's share of held_bytes
        self.dropped = {}  # run id -> {"node", "backward", "log", "seq"}
        self._ready = asyncio.Event()
        self.close_code = None

    def close_after(self, event, code):
        """Send ``event`` (never dropped) after what is queued, then close the connection with ``code``."""
        if self.close_code is not None:
            return
        self.close_code = code
        self.items.append(event)
        self.items.append(CLOSE)
        self.costs.extend((EVENT_BYTES, 0))
        self.held_bytes += EVENT_BYTES
        self._ready.set()

    def __len__(self):
        return len(self.items)

    @property
    def overflowing(self):
        """Far past the bound even with dropping: the reader is not coming back."""
        return len(self.items) > 8 * self.capacity

    def put(self, event):
        if self.close_code is not None:   # closing: nothing more is sent
            return
        kind = event["type"]
        full = len(self.items) >= self.capacity
        if full and kind in DROPPABLE:
            counts = self.dropped.setdefault(event["run"], {"node": 0, "backward": 0, "log": 0})
            counts[kind] = counts.get(kind, 0) + 1  # "module" (a module call's box) only when one was dropped
            counts["seq"] = event["seq"]
            return
        if self.max_bytes is not None and self.held_bytes > self.max_bytes:
            self._fell_behind(event)
            return
        if type(event) is SharedEvent:
            cost = getattr(event, "held", None)
            if cost is None:
                cost = event.held = _cost(event)
        else:
            cost = _cost(event)
        self.held_bytes += cost
        if full and kind == "stdout" and self.items:
            tail = self.items[-1]
            if tail["type"] == "stdout" and tail["run"] == event["run"]:
                if type(tail) is not _StdoutRun:
                    tail = self.items[-1] = _StdoutRun(tail)  # (shared event dicts stay intact)
                tail.texts.append(event["text"])
                self.costs[-1] += cost
                return
        counts = self.dropped.pop(event["run"], None)
        if counts is not None:
            self.items.append({"type": "dropped", "run": event["run"], **counts})
            self.costs.append(0)
        self.items.append(event)
        self.costs.append(cost)
        self._ready.set()

    def count_dropped(self, run, counts):
        """Adds ``counts`` (kind -> events, and the last one's ``seq``) of run ``run``'s events that were not
        sent to this connection to its dropped counts: the next event of the run that is queued is preceded
        by a ``dropped`` event with them."""
        if self.close_code is not None:
            return
        mine = self.dropped.setdefault(run, {"node": 0, "backward": 0, "log": 0})
        for kind, n in counts.items():
            mine[kind] = n if kind == "seq" else mine.get(kind, 0) + n   # "module" only when one was dropped

    def _fell_behind(self, event):
        """More than ``max_bytes`` is queued and not read: the reader is not keeping up. What is queued is
        let go, and the connection closes after saying why (1013: try again later)."""
        self.items.clear()
        self.costs.clear()
        self.dropped.clear()
        self.held_bytes = 0
        self.close_after({"type": "error", "run": event.get("run"), "seq": event.get("seq"), "status": 503,
                          "error": {"type": "LimitExceeded", "limit": "ws_queue_bytes",
                                    "message": f"this connection fell behind: more than ws_queue_bytes "
                                               f"({self.max_bytes} bytes) of events were waiting to be read, so "
                                               f"they were let go and the connection is closed; a run's values "
                                               f"stay in the session (GET /v1/sessions/{{id}}/variables/{{name}})"}},
                         1013)

    async def get(self):
        while not self.items:
            self._ready.clear()
            await self._ready.wait()
        item = self.items.popleft()
        self.held_bytes -= self.costs.popleft()
        return item.joined() if type(item) is _StdoutRun else item


class RunEvents:
    """Stamps one run's events with run id and seq and hands them to every listener."""
    __slots__ = ("run_id", "session", "own", "seq", "held_back")

    def __init__(self, run_id, session, own=None):
        self.run_id = run_id
        self.session = session
        self.own = own
        self.seq = 0
        self.held_back = None   # the counts of events the session's FanoutBudget did not pay for, since the last sent

    @property
    def active(self):
        return self.own is not None or bool(self.session.watchers)

    def publish(self, event):
        kind = event["type"]
        if kind == "paused":
            self.session.paused = True
        elif kind in _UNPAUSING and not (kind == "error" and event.get("paused")):
            # (an error that says "paused": a debug command the paused run refused; it still waits)
            self.session.paused = False
        event["run"] = self.run_id
        event["seq"] = self.seq
        self.seq += 1
        watchers = self.session.watchers
        own = self.own
        budget = self.session.fanout
        if budget is not None and kind in DROPPABLE:
            if not budget.pays(kind, len(watchers) + (own is not None and own not in watchers)):
                # counted once here, not once per connection (16 watchers of a 200,000-event run were 3.2
                # million counts on the event loop): each connection gets the counts with the next event sent
                self.held_back = held_back(self.held_back, event)
                return
        held, self.held_back = self.held_back, None
        if watchers and type(event) is dict and (len(watchers) > 1 or own is not None):
            event = SharedEvent(event)  # several connections send it: encoded once
        if own is not None:
            if held is not None:
                own.count_dropped(self.run_id, held)
            own.put(event)
        for queue in watchers:
            if queue is not own:
                if held is not None:
                    queue.count_dropped(self.run_id, held)
                queue.put(event)

    def publish_many(self, events):
        for event in events:
            self.publish(event)
