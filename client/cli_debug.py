"""``gradserve run --debug FILE.py``: the program under the debugger, with a pdb-like prompt.

The run stops before its first line (as pdb does), at breakpoints (``--break LINE[:COND]`` or
``b`` at the prompt), at ``breakpoint()`` calls and before an uncaught exception leaves it
(post-mortem). At the prompt:

    c            continue            s   step (into calls)     n   next (this frame)
    r            return (out)        l   source around the line   w   the stack
    u / d        up to the caller's frame / down again (p, !, l and w then work there)
    p EXPR       print an expression, evaluated in the paused frame
    !STMT        run statements in the paused frame (assignments persist)
    b [LINE [COND]]  list breakpoints, or set one (with a condition)
    cl [LINE]    clear the breakpoints (of LINE)
    q            cancel the run and quit
    EXPR / STMT  anything else: printed if it is an expression, run if it is a statement

An empty line repeats the last command; readline keeps the history (also across sessions, in
``~/.gradserve_debug_history``). The program's stdout and ``log`` lines print as they come.
"""
from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

import numpy as np

from .client import Client
from .debugging import DebugCommandError
from .errors import ProgramError
from .events import Log, Stdout

PROMPT = "(gradserve) "
HISTORY_FILE = "~/.gradserve_debug_history"
HELP = __doc__.split("At the prompt:", 1)[1].split("An empty line", 1)[0]


def _readline():
    """readline with the history file loaded, or None where the platform has none."""
    try:
        import readline
    except ImportError:
        return None
    path = os.path.expanduser(HISTORY_FILE)
    try:
        readline.read_history_file(path)
    except OSError:
        pass
    readline.set_history_length(1000)
    return readline


def _save_history(readline) -> None:
    if readline is not None:
        try:
            readline.write_history_file(os.path.expanduser(HISTORY_FILE))
        except OSError:
            pass


def parse_break(spec: str) -> dict:
    """``"12"`` or ``"12:loss > 2"`` (``--break``) as a breakpoint."""
    line, _, condition = spec.partition(":")
    return {"line": int(line), **({"condition": condition.strip()} if condition.strip() else {})}


def _first_line(source: str) -> int | None:
    try:
        tree = ast.parse(source)   # parsing only: the program runs on the server
    except SyntaxError:
        return None
    return tree.body[0].lineno if tree.body else None


def show_value(value) -> str:
    """An evaluated value as the prompt prints it."""
    if isinstance(value, np.ndarray):
        body = np.array2string(value, separator=", ", threshold=200, edgeitems=4)
        return f"{body} ({value.dtype}, shape {list(value.shape)})"
    if isinstance(value, dict) and "shape" in value:   # a tensor's summary
        head = ", ".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in value.get("head") or [])
        stats = "  ".join(f"{k}={value[k]:.4g}" if isinstance(value.get(k), float) else f"{k}={value.get(k)}"
                          for k in ("min", "max", "mean", "norm"))
        numel = 1
        for d in value.get("shape") or ():
            numel *= int(d)
        more = ", ..." if numel > len(value.get("head") or ()) else ""   # (a 0-d tensor's head is all of it)
        return f"tensor {value['shape']} {value.get('dtype')}  [{head}{more}]  {stats}"
    if isinstance(value, str):
        return value   # a repr already
    return repr(value)


class DebugPrompt:
    """The prompt over one debug run: reads commands, prints what the pauses show."""

    def __init__(self, path: str, source: str, out, err, input_fn=input):
        self.path = path
        self.name = Path(path).name
        self.lines = source.splitlines()
        self.out = out
        self.err = err
        self.input = input_fn
        self.breakpoints: list[dict] = []
        self.last = ""
        self.frame: int | None = None   # the stack index ``u`` / ``d`` moved to (None: the paused frame)

    # ------------------------------------------------------------ output
    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def on_event(self, event) -> None:
        if isinstance(event, Stdout):
            self.out.write(event.text)
            self.out.flush()
        elif isinstance(event, Log):
            self.say("log: " + " ".join(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}"
                                        for k, v in event.metrics.items()))

    def where(self, pause) -> None:
        current = self._frame_index(pause)
        for i, frame in enumerate(pause.stack):
            mark = ">" if i == current else " "
            self.say(f"{mark} {self.name}({frame['line']}){frame['function']}()")
            self.say(f"-> {self._text(frame['line']).strip()}")

    def listing(self, line: int) -> None:
        marked = {b["line"] for b in self.breakpoints}
        for n in range(max(1, line - 5), min(len(self.lines), line + 5) + 1):
            flag = "B" if n in marked else " "
            arrow = "->" if n == line else "  "
            self.say(f"{n:4d} {flag}{arrow} {self.lines[n - 1]}")

    def _text(self, line) -> str:
        return self.lines[line - 1] if line and 1 <= line <= len(self.lines) else ""

    def _frame_index(self, pause) -> int:
        return len(pause.stack) - 1 if self.frame is None else self.frame

    def move(self, pause, by: int) -> None:
        """``u`` (by -1) and ``d`` (by +1): the frame that p, !, l and w look at, as in pdb."""
        if not pause.stack:
            return
        index = self._frame_index(pause) + by
        if index < 0:
            self.say("*** Oldest frame")
        elif index >= len(pause.stack):
            self.say("*** Newest frame")
        else:
            self.frame = None if index == len(pause.stack) - 1 else index
            frame = pause.stack[index]
            self.say(f"> {self.name}({frame['line']}){frame['function']}()")
            self.say(f"-> {self._text(frame['line']).strip()}")

    def announce(self, pause) -> None:
        if pause.reason == "exception" and pause.exception:
            self.say(f"*** {pause.exception['type']}: {pause.exception['message']} (post-mortem: the run stops "
                     f"with this error when it goes on)")
        elif pause.reason == "anomaly" and pause.node:
            node = pause.node
            made = f", made at line {node['line']}" if node.get("line") else ""
            self.say(f"*** anomaly: {node['op']} ({node['phase']}{made}) produced NaN or Inf")
        elif pause.reason == "breakpoint" and getattr(pause, "condition_error", None):
            failed = pause.condition_error
            self.say(f"*** Error in condition {failed.get('condition')!r}: {failed.get('type')}: {failed.get('message')}")
        frame = pause.stack[-1] if pause.stack else {"function": "<module>"}
        self.say(f"> {self.name}({pause.line}){frame['function']}()")
        self.say(f"-> {self._text(pause.line).strip()}")

    # ------------------------------------------------------------ commands
    def prompt(self, pause) -> bool:
        """Answers commands until one resumes the run; False when the user quit."""
        self.frame = None
        self.announce(pause)
        while True:
            try:
                line = self.input(PROMPT)
            except EOFError:
                line = "q"
            except KeyboardInterrupt:
                self.say("")
                continue
            line = line.strip() or self.last
            if not line:
                continue
            self.last = line
            word, _, rest = line.partition(" ")
            rest = rest.strip()
            try:
                if word in ("c", "cont", "continue"):
                    pause.continue_()
                    return True
                if word in ("s", "step"):
                    pause.step()
                    return True
                if word in ("n", "next"):
                    pause.next()
                    return True
                if word in ("r", "return"):
                    pause.out()
                    return True
                if word in ("q", "quit", "exit"):
                    pause.cancel()
                    return False
                if word in ("l", "list"):
                    self.listing(int(rest) if rest else pause.stack[self._frame_index(pause)]["line"]
                                 if pause.stack else pause.line or 1)
                elif word in ("u", "up", "d", "down") and not rest:
                    self.move(pause, -1 if word in ("u", "up") else 1)
                elif word in ("w", "where", "bt"):
                    self.where(pause)
                elif word in ("h", "help", "?"):
                    self.say(HELP.rstrip())
                elif word == "p" and rest:
                    self.say(show_value(pause.eval(rest, frame=self.frame)))
                elif line.startswith("!"):
                    pause.exec(line[1:].strip(), frame=self.frame)
                elif word in ("b", "break"):
                    self.set_break(pause, rest)
                elif word in ("cl", "clear"):
                    self.breakpoints = [b for b in self.breakpoints if rest and b["line"] != int(rest)]
                    pause.breakpoints(self.breakpoints)
                    self.say("breakpoints cleared" if not rest else f"cleared the breakpoints of line {rest}")
                else:
                    self.evaluate_or_run(pause, line)
            except ProgramError as e:
                self.say(f"*** {e.type}: {e.message}")
            except DebugCommandError as e:
                self.say(f"*** {e.message}")
            except ValueError:
                self.say(f"*** {word} takes a line number")

    def evaluate_or_run(self, pause, text: str) -> None:
        try:
            self.say(show_value(pause.eval(text, frame=self.frame)))
        except ProgramError as e:
            if e.type != "SyntaxError":
                raise
            pause.exec(text, frame=self.frame)

    def set_break(self, pause, rest: str) -> None:
        if not rest:
            if not self.breakpoints:
                self.say("no breakpoints")
            for i, b in enumerate(self.breakpoints, 1):
                self.say(f"{i:3d}  line {b['line']}" + (f"  if {b['condition']}" if b.get("condition") else ""))
            return
        line, _, condition = rest.partition(" ")
        wanted = self.breakpoints + [{"line": int(line), **({"condition": condition.strip()}
                                                             if condition.strip() else {})}]
        pause.breakpoints(wanted)          # refused (a line with no code): nothing changes
        self.breakpoints = wanted
        self.say(f"Breakpoint {len(wanted)} at {self.name}:{line}" + (f" if {condition.strip()}"
                                                                       if condition.strip() else ""))


def debug_program_file(url: str, path: str, inputs: dict, outputs: list[str] | None, device: str,
                       api_key: str | None, breakpoints: list[dict], out=sys.stdout, err=sys.stderr,
                       input_fn=input) -> int:
    """Runs ``path`` under the debugger with a prompt at each pause; the exit status."""
    from .cli_run import _describe, report_error
    source = Path(path).read_text()
    ui = DebugPrompt(path, source, out, err, input_fn)
    ui.breakpoints = list(breakpoints)
    first = _first_line(source)
    wire = ui.breakpoints + ([{"line": first}] if first is not None else [])
    readline = _readline() if input_fn is input else None
    quit_ = False
    try:
        with Client(url, api_key=api_key) as client, client.session(device=device) as session:
            run = session.debug(source, inputs=inputs, outputs=outputs, breakpoints=wire, on_event=ui.on_event)
            try:
                with run:
                    for n, pause in enumerate(run):
                        if n == 0 and first is not None and first not in {b["line"] for b in ui.breakpoints}:
                            pause.breakpoints(ui.breakpoints)   # the stop before the first line is a one-off
                        if not ui.prompt(pause):
                            quit_ = True
                            break
                    result = run.result
                    if quit_:
                        run.close()
            except ProgramError as exc:
                if quit_ or exc.type == "Cancelled":
                    ui.say("the run was cancelled")
                    return 1
                report_error(exc, path, source, file=err)
                return 1
    finally:
        _save_history(readline)
    if result is None:
        ui.say("the run was cancelled")
        return 1
    for name, value in result.values.items():
        print(f"{name} = {_describe(value)}", file=out)
    for name, grad in result.grads.items():
        print(f"{name}.grad = {_describe(grad)}", file=out)
    return 0
