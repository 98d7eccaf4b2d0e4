"""The ``gradserve`` command."""
import argparse


def main(argv=None):
    parser = argparse.ArgumentParser(prog="gradserve", description="Autograd as a service.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the server")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)
    if args.command == "serve":
        _demo()


def _demo():
    # Until the HTTP server lands: a short define-by-run demo on the engine.
    import gradserve.engine as torch
    torch.manual_seed(0)
    w = torch.randn(3, requires_grad=True)
    x = torch.randn(8, 3)
    y = x @ torch.tensor([1.0, -2.0, 0.5])
    for step in range(200):
        loss = ((x @ w - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
            w.grad = None
    print(f"fitted w = {w.tolist()} (true [1.0, -2.0, 0.5]), loss = {loss.item():.2e}")


if __name__ == "__main__":
    main()
