"""The ``gradserve`` command: ``gradserve serve`` runs the server."""
import argparse
import sys


def _serve(args):
    import uvicorn

    from .app import create_app
    from .settings import Settings

    settings = Settings.from_env(host=args.host, port=args.port, workers=args.workers, backend=args.backend)
    app = create_app(settings)
    base = f"http://{settings.host}:{settings.port}"
    print(f"gradserve: serving on {base} ({settings.workers} CPU workers, backend {settings.backend})\n"
          f"  browser: {base}/viewer   (graph viewer)   {base}/docs   (API)\n"
          f"  client:  gradserve.client.Client({base!r})", file=sys.stderr, flush=True)
    uvicorn.run(app, host=settings.host, port=settings.port, log_level=args.log_level,
                http=app.state.http_protocol, ws=app.state.ws_protocol, ws_max_size=settings.ws_max_message_bytes, ws_ping_interval=settings.ws_ping_interval_s,
                ws_per_message_deflate=settings.ws_deflate,
                ws_ping_timeout=settings.ws_ping_interval_s, timeout_graceful_shutdown=5)


def build_parser():
    parser = argparse.ArgumentParser(prog="gradserve", description="Autograd as a service.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the HTTP/WebSocket server and its workers")
    serve.add_argument("--host", default=None, help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default 8000)")
    serve.add_argument("--workers", type=int, default=None, help="CPU worker processes (default: one per core)")
    serve.add_argument("--backend", choices=["local", "ray"], default=None, help="where sessions run (default local)")
    serve.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    serve.set_defaults(func=_serve)
    from gradserve.client.cli_run import add_run_parser  # gradserve run FILE.py (the client's)
    add_run_parser(sub)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
