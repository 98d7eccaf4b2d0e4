"""gradserve.server: the FastAPI app, sessions, workers and the graph viewer."""


def create_app(settings=None):
    """The FastAPI application (see server.app)."""
    from .app import create_app as _create_app
    return _create_app(settings)
