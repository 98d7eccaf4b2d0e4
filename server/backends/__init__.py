"""Worker backends: where sessions live and programs run."""
from .base import BackendUnavailable, Placement, RunCancelled, RunDeadline, SessionGone, WorkerBackend

__all__ = ["make_backend", "WorkerBackend", "Placement", "SessionGone", "RunDeadline", "RunCancelled",
           "BackendUnavailable"]


def make_backend(settings):
    """The backend named by ``settings.backend``."""
    if settings.backend == "local":
        from .local import LocalBackend
        return LocalBackend(settings)
    if settings.backend == "ray":
        from .ray_backend import RayBackend
        return RayBackend(settings)
    raise ValueError(f"unknown backend {settings.backend!r} (available: local, ray)")
