"""``gradserve run FILE.py [--input name=FILE.npy] [--url URL]``: run a program file on a server.

Without ``--url`` it starts an embedded server (``gradserve serve`` on a free local port, one
worker) for the duration of the run. The program's stdout is streamed as it prints, ``log``
events drive a progress bar on stderr, and the values and gradients are printed at the end.
Exit status: 0 on success, 1 when the program failed, 2 when the server could not be used.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

import numpy as np

from .client import Client
from .errors import GradserveError, ProgramError
from .events import Stdout
from .progress import ProgressBar


def add_run_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``run`` on the ``gradserve`` command's subparsers."""
    parser = subparsers.add_parser(
        "run", help="run a program file on a server (an embedded one unless --url is given)",
        description="Run a program file on a gradserve server: stream its stdout and log "
                    "progress, then print its values and gradients.")
    parser.add_argument("file", help="the program, a .py file")
    parser.add_argument("--input", "-i", action="append", default=[], metavar="NAME=FILE.npy",
                        help="bind a NumPy .npy file as a variable before the run (repeatable); FILE.npz "
                             "binds each array of the archive under its name")
    parser.add_argument("--output", "-o", action="append", default=None, metavar="NAME",
                        help="a value to print (repeatable; default: every tensor it binds)")
    parser.add_argument("--url", default=os.environ.get("GRADSERVE_URL"),
                        help="server to use (default: $GRADSERVE_URL, else start an embedded one)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--api-key", default=None, help="API key, if the server needs one (default: $GRADSERVE_API_KEY)")
    parser.add_argument("--no-progress", action="store_true", help="do not draw a progress bar")
    parser.add_argument("--debug", action="store_true",
                        help="run under the debugger: a pdb-like prompt at each pause (c, s, n, r, p EXPR, "
                             "!STMT, l, w, u, d, b LINE [COND], q)")
    parser.add_argument("--break", "-b", dest="breaks", action="append", default=[], metavar="LINE[:COND]",
                        help="with --debug: a breakpoint (repeatable)")
    parser.set_defaults(func=lambda args: sys.exit(run_command(args)))
    return parser


def _load_arrays(path: str) -> dict[str, np.ndarray]:
    """The arrays of a ``.npy`` file (``{"": array}``) or a ``.npz`` archive (by name); a file of another kind
    (a ``torch.save`` file is a zip too, which ``np.load`` takes for an archive) is a ``ValueError``."""
    advice = "save arrays with numpy.save or numpy.savez (a torch tensor: numpy.save(path, t.numpy()))"
    try:
        loaded = np.load(path, allow_pickle=False)
    except ValueError:   # a pickle, or no NumPy file at all
        raise ValueError(f"{path}: not a NumPy .npy or .npz file; {advice}") from None
    if isinstance(loaded, np.ndarray):
        arrays = {"": loaded}
    else:
        with loaded:
            try:
                arrays = {key: loaded[key] for key in loaded.files}
            except ValueError:   # a pickled member
                arrays = {"": None}
    if not all(isinstance(a, np.ndarray) for a in arrays.values()):   # (np.load reads other members as bytes)
        raise ValueError(f"{path}: not a NumPy .npz archive (a zip of .npy files); {advice}")
    if not arrays:
        raise ValueError(f"{path}: the archive holds no arrays")
    for key, array in arrays.items():
        if array.dtype.kind not in "fiub":
            raise ValueError(f"{path}{f' ({key})' if key else ''}: an array of dtype {array.dtype} is not a tensor "
                             f"(numbers or booleans)")
    return arrays


def parse_inputs(specs: list[str]) -> dict[str, np.ndarray]:
    """``["x=x.npy", "y=one.npz", "data.npz", ...]`` as ``{"x": array, ...}``: a bare ``.npz`` binds each of
    its arrays under its own name (``numpy.savez(path, x=..., y=...)``)."""
    inputs = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep and spec.endswith(".npz"):
            arrays = _load_arrays(spec)
            bad = [key for key in arrays if not key.isidentifier()]
            if bad:
                raise ValueError(f"{spec}: its arrays {bad[:4]} are not variable names; pass NAME=FILE.npz for "
                                 f"an archive of one array")
            inputs.update(arrays)
            continue
        if not sep or not name.isidentifier() or not path:
            raise ValueError(f"--input takes NAME=FILE.npy (or FILE.npz, each array under its name), not {spec!r}")
        arrays = _load_arrays(path)
        if len(arrays) != 1:
            raise ValueError(f"{path} holds {len(arrays)} arrays ({', '.join(list(arrays)[:8])}): pass {path} "
                             f"alone to bind each under its name")
        inputs[name] = next(iter(arrays.values()))
    return inputs


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def embedded_server(timeout_s: float = 120.0, workers: int = 1,
                    env: dict[str, str] | None = None) -> Iterator[str]:
    """A ``gradserve serve`` subprocess on a free local port, ready; yields its URL.

    ``env`` adds environment variables (``GRADSERVE_LIMIT_STEPS``, ``GRADSERVE_API_KEYS``...).
    """
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = tempfile.TemporaryFile()
    command = [sys.executable, "-m", "gradserve.server.cli", "serve", "--host", "127.0.0.1",
               "--port", str(port), "--workers", str(workers), "--log-level", "warning"]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})})
    try:
        with Client(url, max_retries=0, timeout=5.0) as probe:
            deadline = time.monotonic() + timeout_s
            while not probe.ready():
                if process.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    output = log.read().decode("utf-8", "replace")[-4000:]
                    raise RuntimeError(f"the embedded server did not become ready:\n{output}")
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _describe(value) -> str:
    if isinstance(value, np.ndarray):
        body = np.array2string(value, separator=", ", threshold=200, edgeitems=4)
        return f"{body} ({value.dtype}, shape {list(value.shape)})"
    if isinstance(value, list):
        return "[" + ", ".join(_describe(v) for v in value) + "]"
    return repr(value)


def report_error(exc: ProgramError, path: str, source: str, file=sys.stderr) -> None:
    """``FILE:LINE:COL: Type: message``, the line with a caret, and the traceback, like Python."""
    where = path if exc.line is None else f"{path}:{exc.line}" + (
        f":{exc.col}" if exc.col is not None else "")
    print(f"{where}: {exc.type}: {exc.message}", file=file)
    lines = source.splitlines()
    if exc.line is not None and 1 <= exc.line <= len(lines):
        text = lines[exc.line - 1]
        print(f"    {text}", file=file)
        if exc.col is not None:
            print("    " + " " * (exc.col - 1) + "^", file=file)
    for frame in exc.traceback[:-1] if len(exc.traceback) > 1 else []:
        print(f"  from {frame.get('function')} at line {frame.get('line')}", file=file)


def run_program_file(url: str, path: str, inputs: dict, outputs: list[str] | None, device: str,
                     api_key: str | None, progress: bool, out=sys.stdout, err=sys.stderr) -> int:
    source = Path(path).read_text()
    bar = ProgressBar(description=Path(path).name, file=err) if progress else False
    with Client(url, api_key=api_key) as client, client.session(device=device) as session:
        try:
            with session.stream(source, inputs=inputs, outputs=outputs, progress=bar) as events:
                for event in events:
                    if isinstance(event, Stdout):
                        if bar:
                            bar.write(event.text, file=out)
                        else:
                            out.write(event.text)
                            out.flush()
                result = events.result
        except ProgramError as exc:
            report_error(exc, path, source, file=err)
            return 1
    if result is None:
        print(f"{path}: the run was cancelled", file=err)
        return 1
    for name, value in result.values.items():
        print(f"{name} = {_describe(value)}", file=out)
    for name, grad in result.grads.items():
        print(f"{name}.grad = {_describe(grad)}", file=out)
    return 0


def run_command(args: argparse.Namespace) -> int:
    """The ``gradserve run`` command; returns the exit status."""
    try:
        inputs = parse_inputs(args.input)
    except (ValueError, OSError) as exc:
        print(f"gradserve run: {exc}", file=sys.stderr)
        return 2
    progress = not getattr(args, "no_progress", False)
    options = dict(path=args.file, inputs=inputs, outputs=getattr(args, "output", None),
                   device=getattr(args, "device", "cpu"), api_key=getattr(args, "api_key", None))
    runner = run_program_file
    if getattr(args, "debug", False):
        from .cli_debug import debug_program_file, parse_break
        try:
            options["breakpoints"] = [parse_break(b) for b in getattr(args, "breaks", [])]
        except ValueError:
            print("gradserve run: --break takes LINE or LINE:CONDITION", file=sys.stderr)
            return 2
        runner = debug_program_file
    else:
        options["progress"] = progress
    try:
        if args.url:
            return runner(args.url, **options)
        with embedded_server() as url:
            return runner(url, **options)
    except (GradserveError, RuntimeError, OSError) as exc:
        print(f"gradserve run: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:   # Ctrl-C while the run goes on: leaving the client's blocks cancelled it
        print("\ngradserve run: interrupted; the run was cancelled", file=sys.stderr)
        return 130


def main(argv: list[str] | None = None) -> int:
    """``python -m gradserve.client.cli_run FILE.py ...`` (the same as ``gradserve run``)."""
    parser = argparse.ArgumentParser(prog="gradserve")
    add_run_parser(parser.add_subparsers(dest="command", required=True))
    return run_command(parser.parse_args(["run", *(sys.argv[1:] if argv is None else argv)]))


if __name__ == "__main__":
    sys.exit(main())
