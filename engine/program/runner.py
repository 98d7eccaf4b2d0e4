"""``run``: one program against one session, with its limits; never raises for
anything the program does.

It parses (ast.parse only parses), refuses what is too big or nested too
deeply, compiles the tree to closures, installs the session's engine state and
the run's limits and observer, runs the top-level statements one by one
(checking the session's bytes after each), and restores the engine's state
whatever happened.
"""
import ast
import gc
import sys
import time
import warnings
from dataclasses import dataclass, field

from .. import _malloc
from .._numpy_context import allocator_var, ignore_errors
from ..autograd.state import state
from ..limits import Limits
from .compiler import Compiler
from .errors import (PROGRAM_EXCEPTIONS, Abort, ProgramError, ProgramBaseException, exception_type_name, locate, meta,
                     system_exit_code, to_program_exception)
from .debugger import DebugError, debugger_observer
from .runtime import Interrupted
from .scopes import CompileError, build_scopes, check_nesting
from .values import Frame

__all__ = ["run", "Outcome"]

# Python frames the interpreter may stack: about 8 per program call at call_depth 200,
# plus expression nesting; kept modest because deep C recursion (repr of a deeply nested
# list) is bounded by the same number.
_RECURSION_LIMIT = 4000


@dataclass
class Outcome:
    """What a run did: ok, or the error; its output, the names it bound, its logs."""
    ok: bool
    error: ProgramError | None = None
    stdout: str = ""
    bound: list = field(default_factory=list)
    logs: list = field(default_factory=list)
    elapsed_s: float = 0.0


def run(source, namespace, limits=None, *, observer=None, cancel=None, on_stdout=None, on_log=None,
        debugger=None):
    """Runs program ``source`` in ``namespace``; returns an Outcome (never raises for the program).

    With a ``debugger.Debugger`` the program is compiled with the debugger's hooks and may pause."""
    started = time.monotonic()
    limits = limits or Limits()
    rt = namespace.runtime
    if rt.active:
        return _failed(ProgramError("RuntimeError", "this session is already running a program"), started)
    try:
        compiled = _compile(source, namespace, limits, debug=debugger is not None)
        if debugger is not None:
            compiled, lines = compiled
            debugger.attach(rt, namespace, lines)
            if debugger.anomaly:
                observer = debugger_observer(debugger, observer)
    except ProgramError as e:
        return _failed(e, started)
    except DebugError as e:
        return _failed(ProgramError("ValueError", str(e)), started)
    except Exception as e:  # the compiler refusing what the parser accepted
        return _failed(ProgramError("SyntaxError", f"the program could not be compiled: {e}"), started)

    saved_state = (state.observer, state.line, state.node_count, state.node_limit, state.element_limit,
                   state.grad_enabled, state.anomaly, state.value_check, state.charge)
    saved_session = namespace.swap_in()
    saved_recursion = sys.getrecursionlimit()
    errstate = ignore_errors()   # PyTorch computes inf/nan without warnings
    saved_warnings = (warnings.filters, warnings.showwarning)
    host_warnings = None if _filters_mutated is not None else warnings.catch_warnings()
    allocator_token = None
    error = None
    before = dict(namespace.globals)   # what top-level names held, to release after a memory limit
    try:
        if saved_recursion < _RECURSION_LIMIT:
            sys.setrecursionlimit(_RECURSION_LIMIT)
        errstate.__enter__()
        if allocator_var is not None:   # NumPy's reads of it stay cached while the error state is set
            allocator_token = allocator_var.set(allocator_var.get())
        # the engine's warnings go to the program (_to_program), each of them: the program's own filters
        # dedupe by its line. A fresh list installed directly is catch_warnings() + simplefilter("always")
        # without copying and searching the host's filters (where CPython has _filters_mutated)
        if host_warnings is None:
            warnings.filters = [("always", None, Warning, None, 0)]
            _filters_mutated()
        else:
            host_warnings.__enter__()
            warnings.simplefilter("always")
        warnings.showwarning = _to_program
        state.observer = observer
        state.line = None
        state.node_count = 0
        state.node_limit = int(limits.graph_nodes)
        state.element_limit = int(limits.tensor_elements)
        state.grad_enabled = True
        state.anomaly = False
        state.value_check = debugger.anomaly_forward if debugger is not None and debugger.anomaly else None
        state.charge = rt.charge
        namespace.builtins.activate()
        rt.begin(limits, cancel, on_stdout, on_log)
        rt.debugger = debugger
        frame = Frame(namespace.globals)
        last = len(compiled) - 1
        line = col = None
        rt.arm()
        try:
            for i, (statement, line, col) in enumerate(compiled):
                statement(frame)
                rt.after_statement(final=i == last)
        except Abort as a:   # the statement's own, or its check's, or an interrupt between statements
            raise locate(a, line, col, "<module>")
        finally:
            # no interrupt (Runtime.interrupt) is raised past this point; one raised while disarming
            # stands for the abort the ticker recorded, raised again below
            while True:
                try:
                    rt.disarm()
                    break
                except Interrupted:
                    continue
        if rt.abort is not None:   # the ticker interrupted host code after the last statement's check
            raise locate(rt.abort.again(), line, col, "<module>")
    except Abort as a:
        error = _from_abort(a)
    except ProgramBaseException as e:
        if not _clean_exit(e):
            error = _post_mortem(debugger, e) or _report(e, namespace)
    except Exception as e:  # an unlocated host error: report it at the current line
        e = to_program_exception(e)
        error = _post_mortem(debugger, e) or _report(e, namespace, state.line)
    finally:
        if host_warnings is None:
            warnings.filters, warnings.showwarning = saved_warnings
            _filters_mutated()
        else:
            host_warnings.__exit__(None, None, None)
        if allocator_token is not None:
            allocator_var.reset(allocator_token)
        errstate.__exit__(None, None, None)
        rt.debugger = None
        rt.end()
        namespace.swap_out(saved_session)
        (state.observer, state.line, state.node_count, state.node_limit, state.element_limit,
         state.grad_enabled, state.anomaly, state.value_check, state.charge) = saved_state
        if saved_recursion < _RECURSION_LIMIT:
            sys.setrecursionlimit(saved_recursion)
    bound = list(rt.bound)
    if error is not None and error.limit in ("session_bytes", "host_memory"):
        released = _release(namespace, before, bound)
        if released:
            restored = [n for n in released if n in before]
            unbound = [n for n in released if n not in before]
            parts = ([f"{_names(unbound)} {'is' if len(unbound) == 1 else 'are'} unbound again"] if unbound else []) \
                + ([f"{_names(restored)} {'holds what it' if len(restored) == 1 else 'hold what they'} held before "
                    f"the run"] if restored else [])
            error.message += f"; this run's bindings were released ({'; '.join(parts)})"
            bound = [n for n in bound if n not in released]
    if error is not None and error.limit == "session_bytes":
        dropped = _shrink(namespace, limits.session_bytes)
        if dropped:
            error.message += (f"; the session still held more than its limit (the run had grown objects it "
                              f"kept, which cannot be undone), so {_names(dropped)} were released too")
            bound = [n for n in bound if n not in dropped]
        _malloc.trim()   # what the run allocated is freed: its fragmented heap goes back to the system too
    return Outcome(ok=error is None, error=error, stdout="".join(rt.out), bound=bound,
                   logs=list(rt.logs), elapsed_s=time.monotonic() - started)


# invalidates the per-module registries of warnings already shown, as catch_warnings does on entry and exit
_filters_mutated = getattr(warnings, "_filters_mutated", None)
_HIDDEN_WARNINGS = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)


def _to_program(message, category, filename, lineno, file=None, line=None):
    """An engine warning during a run (F.softmax without dim, a deprecated argument): issued by the
    program's own ``warnings`` at the program's line, so it reaches the program's stdout (and its
    filters: ignored, or raised under 'error') instead of the host's stderr."""
    if issubclass(category, _HIDDEN_WARNINGS):
        return   # hidden by Python's default filters outside __main__, as for code that imports a library
    from .stdlib import warnings as program_warnings
    cat = PROGRAM_EXCEPTIONS.get(getattr(category, "__name__", ""), None)
    if not (isinstance(cat, type) and issubclass(cat, PROGRAM_EXCEPTIONS["Warning"])):
        cat = PROGRAM_EXCEPTIONS["UserWarning"]
    program_warnings.warn(str(message), cat)


def _post_mortem(debugger, e):
    """A debug run pauses before its uncaught exception is reported; None, or the Abort's error
    when the run was cancelled while paused."""
    if debugger is None:
        return None
    try:
        debugger.post_mortem(e)
    except Abort as a:
        return _from_abort(a)
    return None


def _names(names):
    return ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")


def _release(namespace, before, bound):
    """After a session_bytes limit: the names the failed run bound go back to what they held
    before it (or away), and what it allocated is freed, so the session stays usable."""
    g = namespace.globals
    released = []
    for name in bound:
        if name in before:
            if g.get(name, before) is not before[name]:
                g[name] = before[name]
                released.append(name)
        elif g.pop(name, None) is not None:
            released.append(name)
    namespace.runtime.session_changed()
    gc.collect()
    return released


def _shrink(namespace, limit):
    """After a session_bytes limit and the run's own bindings released: while the session still
    holds more than ``limit`` (the run grew a list, deque or dict it kept: D.append(big), which no
    release of names undoes, and run after run could grow it), its variables and the state its program
    modules keep (logging's loggers) are released, those holding the most first. Returns their names."""
    if namespace.nbytes() <= limit:
        return []
    from .memory import tensor_bytes
    g = namespace.globals
    modules = namespace.__dict__.get("program_modules") or {}
    held = [(name, g, name) for name in g] + [(key, modules, f"{key}'s state") for key in modules]
    held += [(key, view.own, f"{view.name}.{key}") for view in namespace.views.values() if view.own
             for key in view.own]
    sizes = sorted(((tensor_bytes([holder[key]]), key, holder, label) for key, holder, label in held),
                   key=lambda entry: entry[0], reverse=True)
    dropped = []
    for size, key, holder, label in sizes:
        if size == 0:
            break
        holder.pop(key, None)   # a program module's state (its loggers) starts afresh, as after an import
        dropped.append(label)
        if namespace.nbytes() <= limit:
            break
    namespace.runtime.session_changed()
    gc.collect()
    return dropped


def _clean_exit(e):
    """``sys.exit()``, ``exit(0)``, ``quit()`` uncaught: the program ends there as a script does, and the
    run succeeds with what it bound so far. Another status (``sys.exit(1)``, ``sys.exit("why")``) is
    the run's error, as a script's is a failure."""
    if not isinstance(e, PROGRAM_EXCEPTIONS["SystemExit"]):
        return False
    code = system_exit_code(e)
    return code is None or (type(code) in (int, bool) and code == 0)


def _failed(error, started):
    return Outcome(ok=False, error=error, elapsed_s=time.monotonic() - started)


def _compile(source, namespace, limits, debug=False):
    if isinstance(source, bytes):
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ProgramError("SyntaxError", f"the program is not valid UTF-8: {e}") from None
    if not isinstance(source, str):
        raise ProgramError("TypeError", "a program is source text (str)")
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > limits.program_bytes:
        raise ProgramError("LimitExceeded", f"limit exceeded: program_bytes: the program has {size} bytes "
                                            f"(at most {limits.program_bytes})", limit="program_bytes")
    key = ("debug", source) if debug else source
    cached = namespace.compiled.get(key)
    if cached is not None:
        namespace.compiled.move_to_end(key)
        return cached
    try:
        tree = parse_text(source, "<program>", "exec")
    except SyntaxError as e:
        line = e.lineno
        col = e.offset
        raise ProgramError(type(e).__name__ if type(e).__name__ in ("SyntaxError", "IndentationError",
                                                                    "TabError") else "SyntaxError",
                           e.msg, line, col, [{"line": line, "col": col, "function": "<module>"}]) from None
    except (RecursionError, MemoryError):
        raise ProgramError("SyntaxError", "the program is nested too deeply to parse") from None
    except ValueError as e:  # null bytes, integer literals past Python's digit limit
        raise ProgramError("SyntaxError", str(e)) from None
    try:
        check_nesting(tree)
        scopes = build_scopes(tree)
        saved = sys.getrecursionlimit()
        if saved < _RECURSION_LIMIT:
            sys.setrecursionlimit(_RECURSION_LIMIT)
        try:
            compiler = Compiler(namespace.runtime, namespace.globals, namespace.builtins, namespace.views, scopes)
            if debug:
                compiler.debug_lines = set()
            compiled = compiler.module(tree)
            if debug:
                compiled = (compiled, frozenset(compiler.debug_lines))
        finally:
            if saved < _RECURSION_LIMIT:
                sys.setrecursionlimit(saved)
    except CompileError as e:
        frames = [{"line": e.line, "col": e.col, "function": "<module>"}] if e.line else []
        raise ProgramError(e.type, e.message, e.line, e.col, frames) from None
    except RecursionError:
        raise ProgramError("SyntaxError", "the program is nested too deeply to compile") from None
    namespace.compiled[key] = compiled
    if len(namespace.compiled) > 32:
        namespace.compiled.popitem(last=False)
    return compiled


def parse_text(text, filename, mode="exec"):
    """``ast.parse`` of program text (it only parses): the one place the package calls it, for runs
    and for the debugger's conditions, ``eval`` and ``exec``."""
    return ast.parse(text, filename, mode)


_TRACEBACK_KEPT = (10, 40)   # outermost and innermost frames kept of a deep traceback


def _frames(tb):
    """Program frames outermost first, as a traceback reads (a deep recursion keeps
    its outermost and innermost frames)."""
    tb = list(reversed(tb or []))
    head, tail = _TRACEBACK_KEPT
    if len(tb) > head + tail:
        tb = tb[:head] + tb[-tail:]
    return [{"line": line, "col": col, "function": fn} for line, col, fn in tb]


def _from_abort(a):
    frames = _frames(meta(a).tb)
    inner = frames[-1] if frames else {"line": None, "col": None}
    return ProgramError(a.type, a.message, inner["line"], inner["col"], frames,
                        limit=a.limit if a.type == "LimitExceeded" else None)


MAX_MESSAGE = 64 << 10   # characters of an error message kept in a report


def _report(e, namespace, line=None):
    """The ProgramError for program exception ``e``. Its message is ``str(e)`` as Python would
    print it, computed by the interpreter under the run's limits (a program class's own
    ``__str__`` runs as program code: an endless one is the program's LimitExceeded at its
    line); everything else comes from the interpreter's own record of the exception."""
    try:
        try:
            message = namespace.builtins.b_str(e)
        except Abort as a:
            am = meta(a)
            if am.tb is None:   # the printing itself was too big: the limit, where e was raised
                am.tb = list(meta(e).tb or ()) or ([(line, None, "<module>")] if line is not None else None)
            return _from_abort(a)
        except BaseException:   # the program's __str__ raised or returned a non-string, as Python
            message = "<exception str() failed>"
        if len(message) > MAX_MESSAGE:
            message = message[:MAX_MESSAGE] + f"... ({len(message) - MAX_MESSAGE} more characters)"
        m = meta(e)
        frames = _frames(m.tb)
        if not frames and line is not None:
            frames = [{"line": line, "col": None, "function": "<module>"}]
        inner = frames[-1] if frames else {"line": None, "col": None}
        e.__traceback__ = None
        return ProgramError(exception_type_name(e), message, inner["line"], inner["col"], frames)
    except Abort as a:
        return _from_abort(a)
    except BaseException:   # never let a report fail the run's caller
        return ProgramError("RuntimeError", "the program's error could not be reported", line, None,
                            [{"line": line, "col": None, "function": "<module>"}] if line else [])
