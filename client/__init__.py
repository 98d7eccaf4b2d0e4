r"""gradserve.client: a thin SDK for a gradserve server (httpx, websockets and NumPy only).

    from gradserve.client import Client

    with Client("http://127.0.0.1:8000") as client, client.session() as s:
        result = s.run("x = torch.ones(3, requires_grad=True)\ny = (x * x).sum()\ny.backward()",
                       outputs=["x", "y"])
        result.grads["x"]            # array([2., 2., 2.], dtype=float32)

        x = s.tensor([1., 2., 3.], requires_grad=True)   # lazy: recorded, sent when needed
        (x ** 2).sum().backward()
        x.grad.numpy()               # array([2., 4., 6.], dtype=float32)
"""
from .client import AsyncClient, Client
from .errors import (APIConnectionError, APIError, APITimeoutError, AuthError, BadRequest,
                     Conflict, GradserveError, LimitExceeded, NotFound, ProgramError, RateLimited,
                     RunCancelled, ServerError, ServiceUnavailable, SessionGone,
                     SessionNotFound)
from .debugging import AsyncDebugRun, AsyncPause, DebugCommandError, DebugRun, Pause
from .events import (Backward, BreakpointsSet, Cancelled, CommandRefused, Dropped, Error, Evaluated, Event, Log,
                     Module, Names, Node, Paused, Result, Resumed, Started, Stdout)
from .lazy import RemoteTensor
from .results import RunResult, SessionInfo, VariableInfo
from .retries import RetryPolicy
from .session import AsyncSession, Session
from .streaming import AsyncEventStream, EventStream

__all__ = [
    "Client", "AsyncClient", "Session", "AsyncSession", "RunResult", "SessionInfo",
    "VariableInfo", "RemoteTensor", "RetryPolicy", "EventStream", "AsyncEventStream",
    "Event", "Started", "Node", "Stdout", "Log", "Backward", "Result", "Error", "Cancelled",
    "Paused", "Resumed", "Evaluated", "BreakpointsSet", "CommandRefused", "Module", "Names", "Dropped",
    "DebugRun", "AsyncDebugRun", "Pause", "AsyncPause", "DebugCommandError",
    "GradserveError", "APIError", "APIConnectionError", "APITimeoutError", "BadRequest",
    "AuthError", "NotFound", "SessionNotFound", "Conflict", "SessionGone", "ProgramError",
    "LimitExceeded", "RateLimited", "RunCancelled", "ServerError", "ServiceUnavailable",
]
