"""The application factory: ``create_app(settings)`` builds the FastAPI app,
its worker backend, session registry and metrics; the lifespan starts the
workers and the session sweeper and stops them."""
import asyncio
import contextlib
import logging
import re

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from . import errors, openapi
from .backends import make_backend
from .body_limit import BodySizeLimit
from .body_parser import BodyParser
from .answers import AnswerBudget
from .parse_budget import ParseBudget
from .host_check import TrustedHosts
from .metrics import BudgetCollector, Metrics
from .routes import checkpoint, health, runs, sessions, stream, variables, viewer
from .runs import RunService
from .sessions import SessionRegistry, sweep_forever
from .ws_protocol import budgeted_protocol
from .http_protocol import guarded_http_protocol
from .settings import Settings

log = logging.getLogger("gradserve.server")


class RedactTokens(logging.Filter):
    """Keeps session tokens sent as ``?token=`` out of the server's logs (uvicorn logs WebSocket paths)."""
    _TOKEN = re.compile(r"(token=)[^&\s\"']+")

    def filter(self, record):
        if isinstance(record.args, tuple):
            record.args = tuple(self._TOKEN.sub(r"\1***", a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.msg, str):
            record.msg = self._TOKEN.sub(r"\1***", record.msg)
        return True


def _redact_uvicorn_logs():
    for name in ("uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    settings.validate()
    backend = make_backend(settings)
    registry = backend.session_registry() if hasattr(backend, "session_registry") else SessionRegistry(settings)
    metrics = Metrics(registry, backend)

    async def close_session(session):
        await backend.close_session(session.placement, session.id)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        _redact_uvicorn_logs()  # here: uvicorn has configured its loggers by now
        await backend.start()
        sweeper = asyncio.create_task(sweep_forever(registry, close_session, settings.sweep_interval_s))
        try:
            yield
        finally:
            sweeper.cancel()
            app.state.body_parser.stop()
            await backend.stop()

    app = FastAPI(title="gradserve", version="0.1.0", lifespan=lifespan, docs_url=None,   # (routes/viewer.py)
                  description="Autograd as a service: run PyTorch-flavoured programs define-by-run on "
                              "session-scoped workers; values, gradients and graphs over HTTP and WebSocket.")
    app.state.settings = settings
    app.state.backend = backend
    app.state.sessions = registry
    app.state.metrics = metrics
    app.state.runs = RunService(settings, backend, metrics)
    app.state.creating = 0
    app.state.body_parser = BodyParser()
    # bodies and WebSocket messages being read and parsed, all together; uvicorn's WebSocket protocol
    # charges it too when it runs with app.state.ws_protocol (``gradserve serve`` does)
    app.state.parse_budget = ParseBudget(settings.parse_budget_bytes)
    app.state.answer_budget = backend.frame_budget = AnswerBudget(settings.answer_budget_bytes)
    app.state.ws_protocol = budgeted_protocol(app.state.parse_budget)
    # uvicorn's HTTP protocol with a header size limit, header/body timeouts and a connection cap
    app.state.http_protocol = guarded_http_protocol(settings)
    metrics.registry.register(BudgetCollector(app.state.parse_budget))
    metrics.registry.register(BudgetCollector(app.state.answer_budget, "answer", "holding answers while they are "
                                              "sent (a worker's reply from its arrival)", "Answers refused (503)"))
    # Routes are matched in order, router by router: the run route, the hot path, comes first.
    for module in (runs, sessions, variables, checkpoint, stream, health, viewer):
        app.include_router(module.router)
    errors.install(app)
    openapi.install(app, settings)
    if settings.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(settings.cors_origins), allow_credentials=True,
                           allow_methods=["GET", "POST", "PUT", "DELETE"],
                           allow_headers=["Authorization", "Content-Type"])
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes, budget=app.state.parse_budget)
    # Outermost: a request naming a host this server is not (DNS rebinding) is refused before anything runs.
    app.add_middleware(TrustedHosts, allowed_hosts=settings.trusted_hosts())
    return app
