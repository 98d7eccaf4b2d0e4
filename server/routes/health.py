"""Liveness, readiness and Prometheus metrics."""
from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST

from ..models import Health, Readiness

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health)
async def healthz():
    """The server process is up."""
    return {"status": "ok"}


@router.get("/readyz", response_model=Readiness, responses={503: {"model": Readiness}})
async def readyz(request: Request):
    """Ready when at least one worker can take sessions."""
    backend = request.app.state.backend
    workers = [{k: w[k] for k in ("worker", "device", "alive", "sessions")} for w in backend.health()["workers"]]
    ready = backend.ready()
    return JSONResponse({"status": "ready" if ready else "starting", "workers": workers},
                        status_code=200 if ready else 503)


@router.get("/metrics", response_class=Response,
            responses={200: {"content": {CONTENT_TYPE_LATEST: {"schema": {"type": "string"}}}}})
async def metrics(request: Request):
    """Prometheus metrics: runs, errors, latency, sessions, worker health."""
    return Response(request.app.state.metrics.render(), media_type=CONTENT_TYPE_LATEST)
