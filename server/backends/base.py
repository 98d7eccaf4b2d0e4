"""What the server needs from whatever hosts sessions: the worker-backend interface.

The local backend (worker processes on this machine) is the embedded default;
a Ray backend (a named actor per session) implements the same methods. Commands
and replies are ``wire_frames`` messages: a JSON header and raw buffers, the
format ``worker.Worker.handle`` speaks.
"""
from abc import ABC, abstractmethod
from dataclasses import dataclass


class SessionGone(Exception):
    """The process that held the session died; the session's state is lost (410)."""


class RunDeadline(Exception):
    """A run went past its deadline and did not stop when cancelled; its worker was replaced."""


class RunCancelled(Exception):
    """The run was cancelled before its worker started it."""


class BackendUnavailable(Exception):
    """No worker can take the request now (503)."""


@dataclass(frozen=True)
class Placement:
    """Where a session lives: a shared worker's slot and the generation of the process in it, or, for a
    session in a process of its own, ``worker`` None and the serial number of that process."""
    worker: int | None
    generation: int


class WorkerBackend(ABC):
    """Hosts sessions (each in a process of its own, or on a shared worker) and carries commands to them."""

    # answers.AnswerBudget the app gives it: a backend that reads replies itself charges big ones to it as
    # they arrive, and answers a call whose reply it has no room for with its ``refusal()``
    frame_budget = None

    @abstractmethod
    async def start(self):
        """Starts the workers; returns when at least one can take sessions."""

    @abstractmethod
    async def stop(self):
        """Stops every worker."""

    @abstractmethod
    def ready(self):
        """Whether a new session could be placed now."""

    @abstractmethod
    def health(self):
        """{"workers": [{"worker", "device", "alive", "sessions", "restarts"}...]} for /readyz and /metrics."""

    @abstractmethod
    def devices(self):
        """The devices sessions may ask for ("cpu", and "cuda" when a GPU worker exists)."""

    @abstractmethod
    async def open_session(self, session_id, device, session=None):
        """Creates the session's namespace on a worker; returns its Placement.

        ``session`` is the new record (a backend that keeps records in its cluster stores it)."""

    @abstractmethod
    async def close_session(self, placement, session_id):
        """Frees everything the session holds on its worker (no error if the worker is gone)."""

    @abstractmethod
    def is_alive(self, placement):
        """False once the worker the session lived on has died or been replaced."""

    @abstractmethod
    async def call(self, placement, header, buffers=(), *, on_events=None, deadline_s=None):
        """Sends one command and returns (reply header, reply buffers).

        ``on_events(list_of_events)`` receives the events a run streams while it executes.
        With ``deadline_s``, a command still running then is cancelled, and its worker
        replaced if it does not stop within the grace period (raising RunDeadline).
        Raises SessionGone when the worker dies meanwhile.
        """

    @abstractmethod
    async def cancel(self, placement, run_id):
        """Asks a running run to stop at its next step."""

    def debug_unsupported(self, placement):
        """Why debug runs cannot run where ``placement`` lives, or None when they can (SPEC section 4)."""
        return "this server's backend does not support debugging runs"

    async def debug(self, placement, run_id, command):
        """Hands a debug command to a debug run (it answers with events)."""
        raise NotImplementedError
