"""Run events on their way to WebSocket clients.

Every event of a run gets the run's id and the next ``seq``, then goes to the
connection that started the run and to every connection watching the session.
Each connection has its own bounded queue, so a client that stops reading only
fills its own: past the bound its node, backward and log events are counted
instead of queued, and so are module events (a ``dropped`` event with the counts takes their place), and
stdout merges into the stdout event before it; started, result, error and
cancelled are never dropped.
"""
import asyncio
from collections import deque

DROPPABLE = frozenset({"node", "backward", "log", "module"})


class EventQueue:
    """One connection's outgoing events."""

    def __init__(self, capacity):
        self.capacity = capacity
        self.items = deque()
        self.dropped = {}  # run id -> {"node", "backward", "log", "seq"}
        self._ready = asyncio.Event()

    def __len__(self):
        return len(self.items)

    @property
    def overflowing(self):
        """Far past the bound even with dropping: the reader is not coming back."""
        return len(self.items) > 8 * self.capacity

    def put(self, event):
        kind = event["type"]
        full = len(self.items) >= self.capacity
        if full and kind in DROPPABLE:
            counts = self.dropped.setdefault(event["run"], {"node": 0, "backward": 0, "log": 0})
            counts[kind] = counts.get(kind, 0) + 1  # "module" (a module call's box) only when one was dropped
            counts["seq"] = event["seq"]
            return
        if full and kind == "stdout" and self.items:
            tail = self.items[-1]
            if tail["type"] == "stdout" and tail["run"] == event["run"]:
                self.items[-1] = {**tail, "text": tail["text"] + event["text"]}  # shared dicts stay intact
                return
        counts = self.dropped.pop(event["run"], None)
        if counts is not None:
            self.items.append({"type": "dropped", "run": event["run"], **counts})
        self.items.append(event)
        self._ready.set()

    async def get(self):
        while not self.items:
            self._ready.clear()
            await self._ready.wait()
        return self.items.popleft()


class RunEvents:
    """Stamps one run's events with run id and seq and hands them to every listener."""
    __slots__ = ("run_id", "session", "own", "seq")

    def __init__(self, run_id, session, own=None):
        self.run_id = run_id
        self.session = session
        self.own = own
        self.seq = 0

    @property
    def active(self):
        return self.own is not None or bool(self.session.watchers)

    def publish(self, event):
        event["run"] = self.run_id
        event["seq"] = self.seq
        self.seq += 1
        if self.own is not None:
            self.own.put(event)
        for queue in self.session.watchers:
            if queue is not self.own:
                queue.put(event)

    def publish_many(self, events):
        for event in events:
            self.publish(event)
