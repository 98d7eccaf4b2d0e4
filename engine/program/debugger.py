"""Debugging a run (SPEC section 4): breakpoints, stepping, post-mortem and anomaly pauses, and
``eval`` / ``exec`` in the paused frame.

A run with a ``Debugger`` is compiled with a small hook before every statement (and at the head
of every loop iteration): ``line_event`` keeps the stack of program frames and decides whether to
pause. Runs without one are compiled without the hooks, so they pay nothing. A pause sends a
``paused`` event and blocks in ``wait`` (the host's command queue: no CPU) until a command
resumes the run; the run's wall-time clock is stopped meanwhile, and ``pause_timeout_s`` without
a command cancels it.

``eval`` and ``exec`` compile the text the client sent with the interpreter's own compiler, in a
scope made from the paused frame (its locals, the cells it closes over, then the globals), and
run it as program code: same sandbox, same step, memory and wall-time limits.
"""
import ast
import base64
import math
import time

import numpy as np

from ..autograd.state import state
from ..tensor import Tensor
from .errors import Abort, ProgramBaseException, exception_type_name, locate, meta, to_program_exception
from .scopes import CompileError, Scope, build_scopes, check_nesting
from .values import Function

__all__ = ["Debugger", "DebugError", "PAUSE_REASONS", "command_error", "debugger_observer", "describe"]

PAUSE_REASONS = ("breakpoint", "step", "exception", "anomaly")
PAUSE_ON = frozenset(("exception", "anomaly"))
MAX_LOCALS = 100           # names a paused event describes
MAX_REPR = 200             # characters of a non-tensor value's short repr
MAX_EVAL_REPR = 10_000     # characters of an evaluated value's repr
MAX_FULL_ELEMENTS = 1 << 22   # elements of a tensor an eval sends whole
MAX_CODE = 64 << 10        # characters of eval / exec text

_STEP, _NEXT, _OUT = "step", "next", "out"


class DebugError(Exception):
    """A debug setting or command the debugger refuses (a clear message, the run goes on); ``line``: the
    breakpoint's line, when a breakpoint is what was refused."""

    def __init__(self, message, line=None):
        super().__init__(message)
        self.line = line


def _monotonic():
    return time.monotonic()


class Debugger:
    """One debug run's breakpoints, stepping state and frames.

    ``wait(timeout_s)`` returns the next command (a dict) or None when ``timeout_s`` passed;
    ``emit(event)`` sends an event to whoever watches the run.
    """

    def __init__(self, wait, emit, breakpoints=(), pause_on=None, pause_timeout_s=600.0):
        self.wait = wait
        self.emit = emit
        self.pause_timeout_s = float(pause_timeout_s)
        if pause_on is None:
            pause_on = ("exception",)
        unknown = [p for p in pause_on if p not in PAUSE_ON]
        if unknown:
            raise DebugError(f"pause_on accepts {sorted(PAUSE_ON)}, not {unknown}")
        self.pause_on = frozenset(pause_on)
        self.anomaly = "anomaly" in self.pause_on
        self.requested = list(breakpoints or ())
        self.breakpoints = {}   # line -> list of conditions (None: always)
        self.rt = None
        self.namespace = None
        self.lines = frozenset()
        self.frames = []        # [depth, frame, function, line, col], outermost first
        self.mode = None
        self.mode_depth = 0
        self.mode_frame = None
        self.paused = False
        self.last = None        # (frame, line) of the last line event, to fold a loop's head into its first run
        self.failing = None     # the frames where an exception passing through statements was raised
        self.stopped_at = None  # (frame, line) of the last pause until the next line event

    # ------------------------------------------------------------------ set-up
    def attach(self, rt, namespace, lines):
        """Called by the runner once the program compiled: its runtime and the lines that hold code."""
        self.rt = rt
        self.namespace = namespace
        self.lines = frozenset(lines)
        self.breakpoints = self._check_breakpoints(self.requested, lenient=True)

    def _check_breakpoints(self, items, lenient=False):
        """{line: [conditions]} of a breakpoint list; a bad entry raises DebugError, or, ``lenient``
        (the run's first list), is reported in an error event and left out."""
        table = {}
        if not isinstance(items, (list, tuple)):
            raise DebugError("breakpoints are a list of {\"line\": N, \"condition\": \"expr\"} objects")
        for b in items:
            try:
                line, condition = self._check_breakpoint(b)
            except DebugError as e:
                if not lenient:
                    raise
                self.emit(command_error(str(e), "breakpoints", paused=False, line=e.line))
                continue
            table.setdefault(line, []).append(condition)
        return table

    def _check_breakpoint(self, b):
        """(line, condition or None) of one breakpoint, or DebugError naming what is wrong."""
        if isinstance(b, int) and not isinstance(b, bool):
            b = {"line": b}
        line = b.get("line") if isinstance(b, dict) else None
        condition = b.get("condition") if isinstance(b, dict) else None
        if not isinstance(line, int) or isinstance(line, bool):
            raise DebugError("a breakpoint needs a \"line\" (an integer)")
        if condition is not None and (not isinstance(condition, str) or len(condition) > MAX_CODE):
            raise DebugError(f"the condition of the breakpoint at line {line} must be a string of at most "
                             f"{MAX_CODE} characters", line)
        if line not in self.lines:
            raise DebugError(f"line {line} has no code to stop at; breakpoints go on lines that begin "
                             f"a statement", line)
        if condition is not None and condition.strip():
            try:
                _parse(condition.strip(), "<condition>", "eval")
            except SyntaxError as e:
                raise DebugError(f"the condition of the breakpoint at line {line} is not an expression: "
                                 f"{e.msg}", line) from None
        else:
            condition = None
        return line, condition

    def breakpoint_list(self):
        return [{"line": line, "condition": c} for line, cs in sorted(self.breakpoints.items()) for c in cs]

    # ------------------------------------------------------------------ hooks
    def line_event(self, fr, line, col, fn):
        """Before a statement runs (or a loop's next iteration): keep the stack, pause if asked to."""
        if self.paused:
            return
        depth = self.rt.depth
        frames = self.frames
        while frames and frames[-1][0] >= depth and frames[-1][1] is not fr:
            frames.pop()
        if frames and frames[-1][1] is fr:
            top = frames[-1]
            top[3] = line
            top[4] = col
        else:
            frames.append([depth, fr, fn, line, col])
        self.failing = None
        self.stopped_at = None
        last = self.last
        self.last = (fr, line)
        if last is not None and last[0] is fr and last[1] == line:
            return   # a loop's head right after the loop statement itself: one stop, not two
        mode = self.mode
        if mode is not None and (mode is _STEP or mode is _OUT and depth < self.mode_depth
                                 or mode is _NEXT and (depth < self.mode_depth
                                                       or depth == self.mode_depth and fr is self.mode_frame)):
            return self.pause("step", line, col)
        conditions = self.breakpoints.get(line)
        if conditions is not None:
            hit, failed = self._hit(conditions, fr, fn)
            if hit:
                return self.pause("breakpoint", line, col, **({"condition_error": failed} if failed else {}))

    def _hit(self, conditions, fr, fn):
        """(whether a breakpoint's condition holds, the error of the condition that failed or None)."""
        for condition in conditions:
            if condition is None:
                return True, None
            # the condition's own code (a call of a function holding this breakpoint, a breakpoint() in
            # it, a NaN it makes) stops nowhere, as in pdb: the debugger is not re-entered from it
            self.paused = True
            try:
                if bool(self._evaluate(condition, len(self.frames) - 1)):
                    return True, None
            except (ProgramBaseException, Exception) as e:
                # as pdb: a condition that fails stops, so the failure can be looked at; the pause says why
                # ("condition_error"), as pdb prints "*** Error in condition", instead of looking like a hit
                pe = e if isinstance(e, ProgramBaseException) else to_program_exception(e)
                return True, {"condition": condition, "type": exception_type_name(pe),
                              "message": _message_of(pe, self.namespace)}
            finally:
                self.paused = False
        return False, None

    def breakpoint_call(self):
        """The program called ``breakpoint()``."""
        if self.paused or not self.frames:
            return
        top = self.frames[-1]
        if self.stopped_at == (top[1], top[3]):
            return   # a step already stopped on this statement
        self.pause("breakpoint", top[3], top[4])

    def exception_passing(self, fr, line, col, fn):
        """An exception leaves a statement: remember the innermost frames, for a post-mortem."""
        if self.failing is None and not self.paused:
            self.failing = [list(f) for f in self.frames]

    def post_mortem(self, error):
        """An uncaught program exception is about to end the run: pause in the frame that raised it."""
        if "exception" not in self.pause_on or self.paused:
            return
        frames = self.failing or self.frames
        if not frames:
            return
        self.frames = frames
        self.mode = None
        top = frames[-1]
        m = meta(error) if isinstance(error, (ProgramBaseException, Abort)) else None
        tb = m.tb if m is not None else None
        line, col = (tb[0][0], tb[0][1]) if tb else (top[3], top[4])
        message = _message_of(error, self.namespace)
        self.pause("exception", line, col, exception={"type": exception_type_name(error), "message": message})

    def anomaly_forward(self, node, out, inputs, node_id=None):
        """An op made ``out``: pause the first time a value is NaN or Inf (``node_id``: its id in the run's
        graph events, when the run is traced)."""
        if self.paused or not self.anomaly or not _nonfinite(out):
            return
        self.anomaly = False
        state.value_check = None
        self._anomaly_pause(node, "forward", [x for x in inputs if isinstance(x, Tensor)], {"output": _tensor_summary(out)},
                            node_id)

    def anomaly_backward(self, node, grad_in, grads, node_id=None):
        """A node's backward made ``grads`` from ``grad_in``: pause the first time one is NaN or Inf."""
        if self.paused or not self.anomaly:
            return
        bad = [i for i, g in enumerate(grads or ()) if g is not None and _nonfinite(g)]
        if not bad:
            return
        self.anomaly = False
        state.value_check = None
        self._anomaly_pause(node, "backward", [grad_in],
                            {"grads": [_tensor_summary(g) if g is not None else None for g in grads],
                             "nonfinite": bad}, node_id)

    def _anomaly_pause(self, node, phase, inputs, extra, node_id=None):
        top = self.frames[-1] if self.frames else [0, None, "<module>", state.line, None]
        info = {"op": _node_name(node), "phase": phase, "line": getattr(node, "line", None),
                "inputs": [_tensor_summary(x) for x in inputs], **extra}
        if node_id is not None:
            info["id"] = node_id   # the node's id in the run's node events: a viewer outlines that node
        self.pause("anomaly", top[3] if phase == "backward" else (state.line or top[3]), top[4], node=info)

    # ------------------------------------------------------------------ pausing
    def pause(self, reason, line, col, **extra):
        """Sends ``paused`` and answers commands until one resumes the run (or cancels it)."""
        rt = self.rt
        self.paused = True
        saved_line = state.line
        remaining = rt.deadline - _monotonic()   # the wall-time clock stops while paused
        try:
            event = {"type": "paused", "reason": reason, "line": line, "col": col, "stack": self.stack(),
                     "locals": self.describe_locals(len(self.frames) - 1), **extra}
            self.emit(event)
            until = _monotonic() + self.pause_timeout_s
            while True:
                command = self.wait(max(0.0, until - _monotonic()))
                if command is None:
                    raise Abort("Cancelled", f"the paused run was cancelled after pause_timeout_s "
                                             f"({self.pause_timeout_s:g} s) without a command")
                until = _monotonic() + self.pause_timeout_s
                kind = command.get("command") if isinstance(command, dict) else None
                if kind in ("continue", "step", "next", "out"):
                    self._resume(kind)
                    return
                if kind == "cancel":
                    raise Abort("Cancelled", "the run was cancelled")
                if kind in ("eval", "exec"):
                    self.emit(self._limited(kind, command))
                elif kind == "breakpoints":
                    try:
                        self.breakpoints = self._check_breakpoints(command.get("breakpoints"))
                        self.emit({"type": "breakpoints", "breakpoints": self.breakpoint_list()})
                    except DebugError as e:
                        self.emit(command_error(str(e), kind, line=e.line))
                else:
                    self.emit(command_error(f"unknown debug command {kind!r}; use continue, step, next, out, "
                                            f"eval, exec, breakpoints or cancel", kind))
        finally:
            self.paused = False
            self.stopped_at = (self.frames[-1][1], self.frames[-1][3]) if self.frames else None
            state.line = saved_line
            rt.deadline = _monotonic() + remaining

    def _limited(self, kind, command):
        """Runs one eval / exec under the run's limits, each command with budgets of its own: its steps
        and wall time start from nothing and go back to the run's afterwards, so a command that hits a
        limit answers LimitExceeded and leaves the run paused with what it had (a limit reached inside
        the command never ends the run)."""
        rt = self.rt
        saved = (rt.steps, rt.check_at, rt.deadline, rt.abort, state.observer)
        rt.steps = 0
        rt.check_at = rt.next_check(0)
        rt.deadline = _monotonic() + rt.wall_time
        rt.abort = None
        index = command.get("frame", -1) if isinstance(command, dict) else -1
        try:
            line = self.frames[index][3] if self.frames else state.line
        except (IndexError, TypeError):   # a bad frame: _evaluate_command answers it
            line = state.line
        state.observer = _CommandObserver(state.observer, line, report=kind == "exec")
        try:
            return self._evaluate_command(kind, command)
        finally:
            rt.steps, rt.check_at, rt.deadline, rt.abort, state.observer = saved

    def _resume(self, kind):
        self.mode = {"step": _STEP, "next": _NEXT, "out": _OUT}.get(kind)   # the constants: compared by identity
        self.mode_depth = self.frames[-1][0] if self.frames else 0
        self.mode_frame = self.frames[-1][1] if self.frames else None   # next: this frame, or a caller (not a sibling call)
        self.emit({"type": "resumed", "command": kind})

    def stack(self):
        return [{"function": f[2], "line": f[3], "col": f[4]} for f in self.frames]

    def describe_locals(self, index):
        if not self.frames:
            return {}
        fr = self.frames[index][1]
        out = {}
        for name, value in list(fr.vars.items()):
            if len(out) >= MAX_LOCALS:
                break
            if name.startswith("_") or _is_module_like(value):
                continue
            out[name] = describe(value)
        return out

    # ------------------------------------------------------------------ eval / exec
    def _evaluate_command(self, kind, command):
        text = command.get("expr" if kind == "eval" else "code")
        if kind == "eval" and text is None:
            text = command.get("code")
        index = command.get("frame", len(self.frames) - 1)
        if not isinstance(text, str) or len(text) > MAX_CODE:
            return {"type": "evaluated", "command": kind,
                    "error": {"type": "ValueError", "message": f"{kind} needs \"{'expr' if kind == 'eval' else 'code'}\""
                              f" (program text of at most {MAX_CODE} characters)"}}
        if not isinstance(index, int) or isinstance(index, bool) or not -len(self.frames) <= index < len(self.frames):
            return {"type": "evaluated", "command": kind,
                    "error": {"type": "IndexError", "message": f"no frame {index!r} in a stack of {len(self.frames)}"}}
        index %= len(self.frames)
        try:
            if kind == "eval":
                value = self._evaluate(text, index)
                answer = {"type": "evaluated", "command": kind, "expr": text, "value": self._value(value, command)}
            else:
                self._execute(text, index)
                answer = {"type": "evaluated", "command": kind, "code": text, "value": None,
                          "locals": self.describe_locals(index)}
        except (Abort, RecursionError) as e:   # (RecursionError: a value nested too deeply for its repr)
            a = e if isinstance(e, Abort) else locate(e, None, None, None)   # call_depth, as a program's repr() says
            answer = {"type": "evaluated", "command": kind,
                      "error": {"type": a.type, "message": a.message, **({"limit": a.limit} if a.limit else {})}}
        except CompileError as e:
            answer = {"type": "evaluated", "command": kind,
                      "error": {"type": e.type, "message": e.message, "line": e.line, "col": e.col}}
        except SyntaxError as e:
            answer = {"type": "evaluated", "command": kind,
                      "error": {"type": "SyntaxError", "message": e.msg, "line": e.lineno, "col": e.offset}}
        except BaseException as e:   # the program's own exception, or an engine error
            pe = e if isinstance(e, ProgramBaseException) else to_program_exception(e)
            m = meta(pe)
            tb = m.tb or ()
            answer = {"type": "evaluated", "command": kind,
                      "error": {"type": exception_type_name(pe), "message": _message_of(pe, self.namespace),
                                "line": tb[0][0] if tb else None, "col": tb[0][1] if tb else None}}
        return answer

    def _value(self, value, command):
        if isinstance(value, Tensor):
            out = describe(value)
            if command.get("full"):
                if value.numel() > MAX_FULL_ELEMENTS:
                    out["full_error"] = (f"the tensor has {value.numel()} elements; at most {MAX_FULL_ELEMENTS} "
                                         f"are sent whole")
                else:
                    array = np.array(value.detach().numpy(force=True), order="C")   # (ascontiguousarray makes 0-d 1-d)
                    if array.dtype.byteorder == ">":
                        array = array.astype(array.dtype.newbyteorder("<"))
                    out["tensor"] = {"shape": list(array.shape), "dtype": str(value.dtype).replace("torch.", ""),
                                     "b64": base64.b64encode(array.tobytes()).decode("ascii")}
            return out
        if value is None or isinstance(value, (bool, int, float, str)):
            if isinstance(value, float) and not math.isfinite(value):
                return {"repr": repr(value)}
            if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 1 << 53:
                return {"repr": _number_repr(value)}
            if isinstance(value, str) and len(value) > MAX_EVAL_REPR:
                return {"repr": repr(value[:MAX_EVAL_REPR]) + "...", "type": "str"}
            return {"value": value, "repr": self.namespace.builtins.b_repr(value)[:MAX_EVAL_REPR]}
        text = self.namespace.builtins.b_repr(value)   # program code: a program __repr__ runs under the limits
        if len(text) > MAX_EVAL_REPR:
            text = text[:MAX_EVAL_REPR] + f"... ({len(text) - MAX_EVAL_REPR} more characters)"
        return {"repr": text, "type": _type_name(value)}

    def _compiler(self, tree, index):
        """A compiler for ``tree`` whose names resolve as in frame ``index``."""
        from .compiler import Compiler
        ns = self.namespace
        check_nesting(tree)
        scopes = build_scopes(tree)
        module = scopes[tree]
        depth, fr, fn, _, _ = self.frames[index]
        if fr.vars is not ns.globals:
            outer = None
            for cell in fr.cells:
                s = Scope("function", "<enclosing>", outer)
                s.assigned.update(cell)
                outer = s
            scope = Scope("function", fn, outer)
            scope.assigned.update(fr.vars)
            scope.assigned.update(module.assigned)
            scope.globals.update(_declared_globals(tree))   # `global x` assigns the module's x, as in pdb
            for node, s in scopes.items():   # parents come before their children
                if s is module:
                    continue
                if s.parent is module:
                    s.parent = scope
                p = s.parent
                s.chain = p.chain + ((p,) if p.is_function() else ())
            scopes[tree] = scope
        else:
            scope = module
        c = Compiler(self.rt, ns.globals, ns.builtins, ns.views, scopes)
        c.scope = scope
        c.fname = fn
        return c, fr

    def _evaluate(self, text, index):
        tree = _parse(text.strip(), "<debug>", "exec")
        if len(tree.body) != 1 or type(tree.body[0]) is not ast.Expr:
            raise SyntaxError("eval takes one expression (use exec for statements)")
        c, fr = self._compiler(tree, index)
        closure = c.expr(tree.body[0].value)
        return closure(fr)

    def _execute(self, text, index):
        tree = _parse(text, "<debug>", "exec")
        c, fr = self._compiler(tree, index)
        for statement in [c.stmt(s) for s in tree.body]:
            r = statement(fr)
            if r is not None:
                raise SyntaxError("return, break and continue cannot be run from the debugger")


def _declared_globals(tree):
    """The names the top level of ``tree`` declares ``global`` (not those of the functions and classes
    it defines): in a function's frame they are the module's names, as in pdb's ``!global x; x = 1``."""
    names = set()
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if type(node) is ast.Global:
            names.update(node.names)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))
    return names


def _parse(text, filename, mode):
    """``ast.parse`` of a condition, eval or exec: text nested too deeply for Python's parser is a
    SyntaxError, as a program's is (its MemoryError read as session_bytes and ended the run, its
    RecursionError spoke of "ast construction")."""
    from .runner import parse_text   # (the runner imports this module)
    try:
        return parse_text(text, filename, mode)
    except (RecursionError, MemoryError):
        raise SyntaxError("the code is nested too deeply to parse") from None


def command_error(message, command=None, paused=True, line=None):
    """The event answering a command the debugger refuses; the run stays as it was (paused). A refused
    breakpoint names its ``line``."""
    error = {"type": "DebugError", "message": message, "command": command}
    if line is not None:
        error["line"] = line
    return {"type": "error", "paused": paused, "error": error}


def _message_of(e, namespace):
    try:
        return namespace.builtins.b_str(e)[:MAX_EVAL_REPR]
    except BaseException:
        return "<exception str() failed>"


def _nonfinite(t):
    data = t._data if isinstance(t, Tensor) else t
    try:
        if data.dtype.kind not in "fc":
            return False
        if type(data) is np.ndarray:
            return not bool(np.isfinite(data).all())
        return not math.isfinite(float(abs(data).sum()))   # a device array: one reduction, one copy back
    except (AttributeError, TypeError, ValueError):
        return False


def _node_name(node):
    try:
        return node.name()
    except Exception:
        return type(node).__name__


def _tensor_summary(t):
    from ..graph import summary
    data = t._data if isinstance(t, Tensor) else t
    if data is None:
        return None
    s = summary(data)
    s["shape"] = list(data.shape)
    s["dtype"] = str(data.dtype)
    return s


def _number_repr(value):
    """repr of a number; an int past Python's int->str digit limit (4,300 digits) is described by its
    size: its repr raises ValueError, which ended the paused run with an internal error."""
    try:
        return repr(value)
    except ValueError:
        return f"<int of {value.bit_length()} bits>"


def _type_name(value):
    return type(value).__name__


def _is_module_like(value):
    t = type(value)
    return t.__name__ in ("ModuleView", "module") or t.__module__.endswith("access") and "View" in t.__name__


def describe(value):
    """A paused frame's value as the wire shows it: a tensor's summary (SPEC section 5, with shape
    and dtype), or a short repr of anything else (never running program code)."""
    if isinstance(value, Tensor):
        from ..graph import summary
        s = summary(value)
        s.update(shape=list(value.shape), dtype=str(value.dtype).replace("torch.", ""),
                 requires_grad=bool(value.requires_grad))
        return s
    if value is None or isinstance(value, (bool, int, float)):
        text = _number_repr(value)
    elif isinstance(value, str):
        text = repr(value[:MAX_REPR])
    elif isinstance(value, (list, tuple, dict, set)):
        text = f"{type(value).__name__} of {len(value)}"
    elif isinstance(value, type):
        text = f"<class {value.__name__}>"
    elif isinstance(value, Function):
        text = f"<function {value.name}>"
    else:
        text = f"<{_type_name(value)}>"
    return text[:MAX_REPR]


class _CommandObserver:
    """The run's observer while an eval or exec runs in a paused frame. The nodes the command makes take
    the frame's line (the command's text has lines of its own: line 1 of an eval is not the program's
    line 1). An exec's nodes are part of the run from there on and are reported; an eval's are not: an
    expression that inspects a value does not add to the run's graph (nor to the diff with the next)."""
    __slots__ = ("inner", "line", "report", "ids")

    def __init__(self, inner, line, report):
        self.inner = inner
        self.line = line
        self.report = report and inner is not None
        self.ids = getattr(inner, "ids", None)

    def on_node(self, node, out, inputs):
        node.line = self.line
        if self.report:
            self.inner.on_node(node, out, inputs)

    def on_backward(self, node, grad):
        if self.inner is not None:
            self.inner.on_backward(node, grad)

    def on_grads(self, node, grad, grads):
        on_grads = getattr(self.inner, "on_grads", None)
        if on_grads is not None:
            on_grads(node, grad, grads)

    def enter_module(self, module):
        if self.report and hasattr(self.inner, "enter_module"):
            self.inner.enter_module(module)

    def exit_module(self):
        if self.report and hasattr(self.inner, "exit_module"):
            self.inner.exit_module()


class _AnomalyObserver:
    """The engine's graph observer in an ``anomaly`` debug run: checks each op's value and each
    backward node's gradients for NaN/Inf, and passes everything on to the run's own observer."""
    __slots__ = ("debugger", "inner", "ids")

    def __init__(self, debugger, inner):
        self.debugger = debugger
        self.inner = inner
        self.ids = getattr(inner, "ids", None)

    def on_node(self, node, out, inputs):
        if self.inner is not None:
            self.inner.on_node(node, out, inputs)
        self.debugger.anomaly_forward(node, out, inputs, self._id(node))

    def on_backward(self, node, grad):
        if self.inner is not None:
            self.inner.on_backward(node, grad)

    def on_grads(self, node, grad, grads):
        self.debugger.anomaly_backward(node, grad, grads, self._id(node))

    def _id(self, node):
        return self.ids.get(node) if self.ids is not None else None

    def enter_module(self, module):
        if self.inner is not None and hasattr(self.inner, "enter_module"):
            self.inner.enter_module(module)

    def exit_module(self):
        if self.inner is not None and hasattr(self.inner, "exit_module"):
            self.inner.exit_module()


def debugger_observer(debugger, inner):
    """The observer a debug run with ``pause_on: ["anomaly"]`` installs (wrapping ``inner``)."""
    return _AnomalyObserver(debugger, inner)
