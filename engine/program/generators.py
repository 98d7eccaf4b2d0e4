"""Generator functions in programs: ``def f(): ... yield x ...`` (and ``yield from``, ``x = yield``,
``return value``, ``send``, ``throw``, ``close``), lazily evaluated as in Python.

A function whose body holds a ``yield`` is compiled here, in a generator mode, once. Each
statement of its body that holds a yield (at any depth, not counting nested functions and
classes) becomes a host generator function over the frame, run with ``yield from``; every other
statement is the ordinary compiled closure, unchanged. A ``yield`` sits at the bottom of such a
chain: the value it yields travels up the chain of ``yield from`` to whoever resumes the program
generator, and what that one sends comes back down. An expression that holds a yield somewhere
inside evaluates its operands in Python's order, the ones before and including the last yield
into the frame's temporaries (``GenFrame.tmp``), then runs the ordinary closure of a copy of
the expression that reads those temporaries: the operation itself (a call, a subscript, an
operator) is the ordinary compiled one.

Calling such a function binds its arguments as any call does and returns a ``ProgramGenerator``
(its class is named ``generator``, as Python's): nothing runs before the first ``next``. Each
resumption counts a step and a level of call depth, as a call does; the statements inside count
and check their own, set the engine's line and locate their errors, so limits, tracebacks and
the debugger see a generator's body as any other function's.

What the program sees of one: iteration, ``next``, and the methods ``send``, ``throw`` and
``close``; no frame, no code, nothing of the host's (its attributes go through the gate's
``_generator_get``). The host protocol (``__next__``, ``send``, ``throw``, ``close``) is what
Python's own ``yield from`` uses to delegate to a program generator: each runs only while the
session runs a program, through the interpreter. A generator the program abandons is not
finalized by program code: the host's garbage collector closing it runs none of the program's
``finally`` blocks or handlers (only a host context manager's exit, while the session runs), so
program code never runs at an arbitrary moment; ``close()``, exhaustion or an exception run them.
"""
import ast

from ..autograd.state import state
from .errors import Abort, PROGRAM_EXCEPTIONS, ProgramBaseException, locate, meta
from .scopes import CompileError, child_nodes
from .values import BREAK, CONTINUE, RETURN, Frame

__all__ = ["ProgramGenerator", "GenFrame", "function_body", "misplaced_yield"]

_P = PROGRAM_EXCEPTIONS
_StopIteration = _P["StopIteration"]
_GeneratorExit = _P["GeneratorExit"]
_HOST_GENERATOR_EXIT = GeneratorExit


class GenFrame(Frame):
    """A generator function's frame: a Frame with the temporaries its expressions keep across a yield."""
    __slots__ = ("tmp",)

    def __init__(self, vars, cells, fn, cls):
        Frame.__init__(self, vars, cells, fn, cls)
        self.tmp = {}


class _Carry(BaseException):
    """A StopIteration on its way out of one host generator of the chain into the next: Python
    would turn it into RuntimeError at each generator's edge (PEP 479), where the program's own
    generator has its edge only at the top (``function_body``'s driver)."""

    def __init__(self, exc):
        BaseException.__init__(self)
        self.exc = exc


class ProgramGenerator:
    """What calling a generator function returns (``generator`` to the program)."""
    __slots__ = ("_gen", "_frame", "_rt", "_name", "_handled", "_mode")

    def __init__(self, gen, frame, rt, name):
        self._gen = gen
        self._frame = frame
        self._rt = rt
        self._name = name
        self._handled = None   # the exceptions its handlers were handling when it last yielded
        self._mode = None      # grad mode each resumption runs under (@torch.no_grad() on the function)

    # ------------------------------------------------------------------ host protocol (the interpreter's)
    def __iter__(self):
        return self

    def send(self, value):
        return self._resume(value, None)

    def throw(self, typ, value=None, tb=None):
        if value is not None:
            raise _P["TypeError"]("throw() takes the exception to raise only, in programs")
        if isinstance(typ, type) and issubclass(typ, ProgramBaseException):
            typ = typ()
        if not isinstance(typ, ProgramBaseException):
            raise _P["TypeError"](f"exceptions must be classes or instances deriving from BaseException, "
                                  f"not {type(typ).__name__}")
        return self._resume(None, typ)

    def close(self):
        """The host's close (Python's ``yield from`` calls it when the generator delegating to this
        one is finalized): no program code runs."""
        self._gen.close()

    # ------------------------------------------------------------------ what the program calls close
    def program_close(self):
        """``g.close()``: GeneratorExit raised where the generator is suspended; its handlers and
        ``finally`` blocks run. A generator that yields instead is a RuntimeError, as in Python."""
        gen = self._gen
        if not gen.gi_suspended:
            if gen.gi_running:
                raise _P["ValueError"]("generator already executing")
            gen.close()   # finished, or never started: nothing of the program's runs
            return None
        try:
            self._resume(None, _GeneratorExit())
        except (_GeneratorExit, _StopIteration):
            return None
        raise _P["RuntimeError"]("generator ignored GeneratorExit")

    def _resume(self, value=None, exc=None):
        rt = self._rt
        if not rt.active:
            raise RuntimeError("program code can only run while its session runs a program")
        rt.steps += 1
        if rt.steps >= rt.check_at:
            rt.check()
        if rt.depth >= rt.max_depth:
            raise rt.depth_abort()
        handled = rt.handled
        n = len(handled)
        if self._handled:
            handled.extend(self._handled)
            self._handled = None
        line = state.line
        mode = self._mode
        if mode is not None:
            grad_enabled = state.grad_enabled
            state.grad_enabled = mode
        rt.depth += 1
        try:
            if exc is None:
                return self._gen.send(value)
            return self._gen.throw(exc)
        except StopIteration as e:
            v = e.value
            raise (_StopIteration() if v is None else _StopIteration(v)) from None
        except (ProgramBaseException, Abort) as e:
            meta(e).site = True   # the caller's position comes next in the traceback
            raise
        finally:
            rt.depth -= 1
            if mode is not None:
                state.grad_enabled = grad_enabled
            if len(handled) > n:   # suspended in a handler: what it handles is its own, not the caller's
                self._handled = handled[n:]
                del handled[n:]
            state.line = line

    __next__ = _resume   # next(g): _resume(g), one call less per item

    def __repr__(self):
        return f"<generator object {self._name}>"


ProgramGenerator.__name__ = ProgramGenerator.__qualname__ = "generator"   # in messages, as Python's


# --------------------------------------------------------------------------- compile time
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_YIELDS = (ast.Yield, ast.YieldFrom)


def _yield_nodes(stmts):
    """ids of the nodes of ``stmts`` that hold a yield (themselves or below, within the function)."""
    found = set()

    def visit(n):
        if isinstance(n, _SCOPES):
            return False
        inside = isinstance(n, _YIELDS)
        for child in child_nodes(n):
            if visit(child):
                inside = True
        if inside:
            found.add(id(n))
        return inside
    for s in stmts:
        visit(s)
    return found


def misplaced_yield(c, node):
    """The SyntaxError message for a yield the generator mode did not compile."""
    kind = c.scope.kind if c.scope is not None else "module"
    if kind in ("module", "class"):
        return f"'{'yield from' if type(node) is ast.YieldFrom else 'yield'}' outside function"
    if kind == "comprehension":
        return "'yield' inside a comprehension or generator expression"
    if kind == "lambda":
        return "yield in a lambda is not supported in programs (write a def)"
    return "yield in this position is not supported in programs"


class _Slot(ast.expr):
    """An operand already evaluated (before a yield, or by one): read from the frame's temporaries."""
    _fields = ()


def _slot_expr(node):
    key = node.key
    return lambda fr: fr.tmp[key]


def function_body(c, stmts):
    """The body of a generator function, compiled by Compiler ``c`` (its scope and name set): a
    callable ``make(frame)`` giving the program generator (Function.invoke calls it as it calls a
    lambda's expression)."""
    g = _GeneratorMode(c, stmts)
    block = g.block(stmts)
    rt, name = c.rt, c.fname

    def driver(fr):
        try:
            for s, is_gen in block:
                r = (yield from s(fr)) if is_gen else s(fr)
                if r is not None:
                    return fr.ret if r is RETURN else None
            return None
        except _Carry as e:
            raise _raised_stop(e.exc) from None
        except StopIteration as e:
            raise _raised_stop(e) from None

    def make(frame):
        gf = GenFrame(frame.vars, frame.cells, frame.fn, frame.cls)
        return ProgramGenerator(driver(gf), gf, rt, name)
    make.makes_generator = True
    return make


def under_grad_mode(make, mode):
    """A generator function's body decorated with a grad mode (``@torch.no_grad()``): as PyTorch's
    decorator does for generator functions, every resumption runs under the mode, not only the call."""
    def make_under(frame):
        g = make(frame)
        g._mode = mode
        return g
    make_under.makes_generator = True
    return make_under


def _raised_stop(e):
    """PEP 479: StopIteration leaving a generator's body is a RuntimeError (located where it was raised)."""
    err = _P["RuntimeError"]("generator raised StopIteration")
    err.__cause__ = e if isinstance(e, ProgramBaseException) else None
    if isinstance(e, ProgramBaseException):
        tb = meta(e).tb
        if tb:
            meta(err).tb = list(tb)
    return err


def _run(block, fr):
    """A block of (closure, is_generator) statements: None, or BREAK, CONTINUE, RETURN."""
    try:
        for s, is_gen in block:
            r = (yield from s(fr)) if is_gen else s(fr)
            if r is not None:
                return r
        return None
    except StopIteration as e:
        raise _Carry(e) from None


class _GeneratorMode:
    """Compiles the statements of one generator function's body that hold a yield."""

    def __init__(self, c, stmts):
        self.c = c
        self.rt = c.rt
        self.fname = c.fname
        self.yields = _yield_nodes(stmts)
        self.keys = 0
        c._expr.setdefault(_Slot, _slot_expr)

    def holds(self, node):
        return node is not None and id(node) in self.yields

    def _pos(self, node):
        return node.lineno, node.col_offset + 1

    # ------------------------------------------------------------------ statements
    def block(self, stmts):
        return tuple(self.statement(s) for s in stmts)

    def statement(self, node, loop_counted=False):
        """(closure, is_generator) for statement ``node``."""
        if not self.holds(node):
            return self.c.stmt(node, loop_counted), False
        handler = _STATEMENTS.get(type(node))
        if handler is None:
            raise CompileError(f"yield inside {type(node).__name__.lower()} statements is not supported in "
                               f"programs", node)
        if _plain_yield(node, self.holds):
            stmt = self._yield_statement(node)   # ``yield x`` / ``y = yield x``: one generator, no chain
        else:
            stmt = self._shell(node, handler(self, node))
        if self.c.debug_lines is not None:
            stmt = self._debug(node, stmt)
        return stmt, True

    def loop_block(self, node):
        self.c.loops += 1
        try:
            body = tuple(self.statement(s, loop_counted=True) for s in node.body)
        finally:
            self.c.loops -= 1
        counted = sum(1 for s, is_gen in body if not is_gen and getattr(s, "counted_by_loop", False))
        head = self.c._loop_body(node, ())
        return tuple((h, False) for h in head) + body, counted

    def _shell(self, node, inner):
        rt, st, fn = self.rt, state, self.fname
        line, col = self._pos(node)

        def statement(fr):
            rt.steps += 1
            if rt.steps >= rt.check_at:
                rt.check()
            st.line = line
            try:
                return (yield from inner(fr))
            except Exception as e:
                raise locate(e, line, col, fn) from None
            except Abort as e:
                raise locate(e, line, col, fn)
        return statement

    def _yield_statement(self, node):
        """``yield x`` or ``target = yield x`` (x without a yield): the statement's step, line and error
        location and the yield itself in one host generator (a batching loop's one yield per item)."""
        rt, st, fn = self.rt, state, self.fname
        line, col = self._pos(node)
        y = node.value
        value = self.c.expr(y.value) if y.value is not None else None
        store = self.c.target(node.targets[0]) if type(node) is ast.Assign else None

        def yield_statement(fr):
            rt.steps += 1
            if rt.steps >= rt.check_at:
                rt.check()
            st.line = line
            try:
                sent = yield (value(fr) if value is not None else None)
                st.line = line
                if store is not None:
                    store(fr, sent)
            except StopIteration as e:
                raise _Carry(locate(e, line, col, fn)) from None
            except Exception as e:
                raise locate(e, line, col, fn) from None
            except Abort as e:
                raise locate(e, line, col, fn)
        return yield_statement

    def _debug(self, node, inner):
        rt, fn = self.rt, self.fname
        line, col = self._pos(node)
        self.c.debug_lines.add(line)

        def statement(fr):
            d = rt.debugger
            if d is None:
                return (yield from inner(fr))
            d.line_event(fr, line, col, fn)
            try:
                return (yield from inner(fr))
            except (Exception, ProgramBaseException, _Carry):
                d.exception_passing(fr, line, col, fn)
                raise
        return statement

    def _refuse_in(self, nodes, what):
        for n in nodes:
            if self.holds(n):
                raise CompileError(f"yield inside {what} is not supported in programs", n)

    def simple(self, node):
        """Expr, Assign, AugAssign, AnnAssign, Return, Raise, Assert: the operands before and
        including the last yield evaluated here, then the ordinary statement on a copy reading them."""
        t = type(node)
        if t is ast.Assign:
            self._refuse_in(node.targets, "an assignment target")
        elif t in (ast.AugAssign, ast.AnnAssign):
            self._refuse_in([node.target, getattr(node, "annotation", None)], "an assignment target")
        elif t is ast.Assert:
            self._refuse_in([node.msg], "an assert message")
        if t is ast.Expr and type(node.value) in _YIELDS:
            ev = self.expression(node.value)   # ``yield x`` on its own line: no copy to run

            def expression_statement(fr):
                yield from ev(fr)
            return expression_statement
        fields = {ast.Raise: ("exc", "cause"), ast.Assert: ("test",)}.get(t, ("value",))
        paths = [(f,) for f in fields if getattr(node, f, None) is not None]
        hoist, copy = self._hoist(node, paths)
        op = _STMT_HANDLER(self.c, copy)
        return self._with_operands(hoist, op)

    def _with_operands(self, hoist, op):
        keys = tuple(k for k, _, _ in hoist)

        def run(fr):
            tmp = fr.tmp
            try:
                for key, ev, is_gen in hoist:
                    tmp[key] = (yield from ev(fr)) if is_gen else ev(fr)
                return op(fr)
            except StopIteration as e:
                raise _Carry(e) from None
            finally:
                for key in keys:
                    tmp.pop(key, None)
        return run

    def if_(self, node):
        branches = []
        n = node
        while True:
            branches.append(self.truth(n.test) + (self.block(n.body),))
            if len(n.orelse) == 1 and type(n.orelse[0]) is ast.If:
                n = n.orelse[0]
                continue
            break
        orelse = self.block(n.orelse)

        def if_(fr):
            try:
                for test, is_gen, body in branches:
                    if ((yield from test(fr)) if is_gen else test(fr)):
                        return (yield from _run(body, fr))
                return (yield from _run(orelse, fr))
            except StopIteration as e:
                raise _Carry(e) from None
        return if_

    def while_(self, node):
        test, test_gen = self.truth(node.test)
        body, counted = self.loop_block(node)
        orelse = self.block(node.orelse)
        rt = self.rt
        per_pass = 1 + counted

        def while_(fr):
            try:
                while ((yield from test(fr)) if test_gen else test(fr)):
                    rt.steps += per_pass
                    if rt.steps >= rt.check_at:
                        rt.check()
                    for s, is_gen in body:
                        r = (yield from s(fr)) if is_gen else s(fr)
                        if r is not None:
                            break
                    else:
                        continue
                    if r is BREAK:
                        return None
                    if r is CONTINUE:
                        continue
                    return r
                return (yield from _run(orelse, fr))
            except StopIteration as e:
                raise _Carry(e) from None
        return while_

    def for_(self, node):
        self._refuse_in([node.target], "a for target")
        seq, seq_gen = self.operand(node.iter)
        store = self.c.target(node.target)
        body, counted = self.loop_block(node)
        orelse = self.block(node.orelse)
        rt = self.rt
        per_pass = 1 + counted
        iterate = self.c.bt.iterate

        def for_(fr):
            try:
                for item in iterate((yield from seq(fr)) if seq_gen else seq(fr)):
                    rt.steps += per_pass
                    if rt.steps >= rt.check_at:
                        rt.check()
                    store(fr, item)
                    for s, is_gen in body:
                        r = (yield from s(fr)) if is_gen else s(fr)
                        if r is not None:
                            break
                    else:
                        continue
                    if r is BREAK:
                        return None
                    if r is CONTINUE:
                        continue
                    return r
                return (yield from _run(orelse, fr))
            except StopIteration as e:
                raise _Carry(e) from None
        return for_

    def try_(self, node):
        c = self.c
        body = self.block(node.body)
        handlers = []
        for h in node.handlers:
            self._refuse_in([h.type], "an except clause's exception type")
            types = c.expr(h.type) if h.type is not None else None
            store = c.store_name(h.name) if h.name else None
            delete = c.delete_name(h.name, h) if h.name else None
            handlers.append((types, store, delete, self.block(h.body), h))
        orelse = self.block(node.orelse)
        final = self.block(node.finalbody)
        rt, fn = self.rt, self.fname
        line, col = self._pos(node)
        from .compiler import _valid_except

        def guarded(fr):
            try:
                r = yield from _run(body, fr)
            except (Exception, _Carry) as e:
                carried = type(e) is _Carry
                pe = locate(e.exc if carried else e, line, col, fn)
                if type(pe) is Abort:
                    raise pe
                for types, store, delete, hbody, h in handlers:
                    if types is not None:
                        cls = types(fr)
                        if not _valid_except(cls):
                            raise locate(_P["TypeError"](
                                "catching classes that do not inherit from BaseException is not allowed"),
                                h.lineno, h.col_offset + 1, fn) from None
                        if not isinstance(pe, cls):
                            continue
                    pe.__traceback__ = None
                    if store is not None:
                        store(fr, pe)
                    rt.handled.append(pe)
                    try:
                        r = yield from _run(hbody, fr)
                    except _HOST_GENERATOR_EXIT:
                        raise   # finalized by the host: no program code runs, and rt.handled is not its own
                    except BaseException:
                        _leave_handler(rt, delete, fr)
                        raise
                    _leave_handler(rt, delete, fr)
                    return r
                if isinstance(pe, StopIteration):
                    raise _Carry(pe) from None
                raise pe from None
            if orelse:
                return (yield from _run(orelse, fr))
            return r

        if not final:
            return guarded

        def try_finally(fr):
            try:
                r = yield from guarded(fr)
            except _HOST_GENERATOR_EXIT:
                raise
            except BaseException as e:
                r2 = yield from _run(final, fr)
                if r2 is not None and not isinstance(e, Abort):
                    return r2   # Python's semantics: return (or break) in finally wins; not over a limit (F3)
                raise
            r2 = yield from _run(final, fr)
            return r2 if r2 is not None else r
        return try_finally

    def with_(self, node):
        c = self.c
        self._refuse_in([i.optional_vars for i in node.items], "a with target")
        items = [self.operand(i.context_expr) + (c.target(i.optional_vars) if i.optional_vars is not None else None,)
                 for i in node.items]
        body = self.block(node.body)
        rt = self.rt
        from . import access
        from .compiler import _context_methods

        def nest(k):
            if k == len(items):
                return lambda fr: _run(body, fr)
            ctx, ctx_gen, store = items[k]
            inner = nest(k + 1)

            def with_(fr):
                try:
                    mgr = (yield from ctx(fr)) if ctx_gen else ctx(fr)
                    enter, exit_ = _context_methods(mgr)
                    v = enter(mgr)
                    if store is not None:
                        store(fr, v)
                except StopIteration as e:
                    raise _Carry(e) from None
                try:
                    r = yield from inner(fr)
                except _HOST_GENERATOR_EXIT:
                    # finalized by the host: a host context manager (torch.no_grad()) still restores its
                    # state while the session runs; a program's __exit__ is program code and does not run
                    if rt.active and not access.is_program_class(type(mgr)):
                        try:
                            exit_(mgr, None, None, None)
                        except BaseException:
                            pass
                    raise
                except (Exception, _Carry) as e:
                    exc = e.exc if type(e) is _Carry else e
                    try:
                        swallow = exit_(mgr, type(exc), exc, None)
                    except StopIteration as e2:
                        raise _Carry(e2) from None
                    if swallow:
                        return None
                    raise
                except Abort:
                    try:
                        exit_(mgr, None, None, None)
                    except BaseException:
                        pass
                    raise
                try:
                    exit_(mgr, None, None, None)
                except StopIteration as e:
                    raise _Carry(e) from None
                return r
            return with_
        return nest(0)

    # ------------------------------------------------------------------ expressions
    def operand(self, node):
        """(closure, is_generator) evaluating expression ``node``."""
        if not self.holds(node):
            return self.c.expr(node), False
        return self.expression(node), True

    def truth(self, node):
        """(closure, is_generator) testing ``node`` as a condition."""
        if not self.holds(node):
            return self.c._truth(node), False
        ev = self.expression(node)
        line, col = self._pos(node)
        fn = self.fname

        def truth(fr):
            v = yield from ev(fr)
            if v is True or v is False:
                return v
            try:
                return bool(v)
            except StopIteration as e:
                raise _Carry(e) from None
            except Exception as e:
                raise locate(e, line, col, fn) from None
        return truth, True

    def expression(self, node):
        """A host generator function evaluating ``node`` (which holds a yield) to its value."""
        t = type(node)
        if t is ast.Yield:
            return self._yield(node)
        if t is ast.YieldFrom:
            return self._yield_from(node)
        if t is ast.BoolOp:
            return self._bool_op(node)
        if t is ast.IfExp:
            return self._if_exp(node)
        if t is ast.Compare and len(node.ops) > 1:
            return self._chain(node)
        paths = _operand_paths(node)
        if paths is None:
            raise CompileError("'yield' inside a comprehension or generator expression" if t in _COMPREHENSIONS
                               else f"yield inside {t.__name__} is not supported in programs", node)
        hoist, copy = self._hoist(node, paths)
        op = self.c.expr(copy)
        return self._with_operands(hoist, op)

    def _hoist(self, node, paths):
        """The operands of ``node`` at ``paths`` (in evaluation order) up to the last holding a
        yield, as (key, closure, is_generator), and a copy of ``node`` reading them from the frame."""
        operands = [(p, _get(node, p)) for p in paths]
        last = max(i for i, (_, child) in enumerate(operands) if self.holds(child))
        hoist = []
        copy = node
        for p, child in operands[:last + 1]:
            ev, is_gen = self.operand(child)
            self.keys += 1
            key = self.keys
            slot = ast.copy_location(_Slot(), child)
            slot.key = key
            copy = _replace(copy, p, slot)
            hoist.append((key, ev, is_gen))
        return tuple(hoist), copy

    def _yield(self, node):
        value, value_gen = self.operand(node.value) if node.value is not None else (None, False)
        st = state
        line = node.lineno

        def yield_(fr):
            try:
                v = None if value is None else (yield from value(fr)) if value_gen else value(fr)
                sent = yield v
            except StopIteration as e:
                raise _Carry(e) from None
            st.line = line
            return sent
        return yield_

    def _yield_from(self, node):
        value, value_gen = self.operand(node.value)
        iterate = self.c.bt.iterate
        st = state
        line, col = self._pos(node)
        fn = self.fname

        def yield_from(fr):
            try:
                v = (yield from value(fr)) if value_gen else value(fr)
                try:
                    it = iterate(v)
                except Exception as e:
                    raise locate(e, line, col, fn) from None
                r = yield from it
            except StopIteration as e:
                raise _Carry(e) from None
            st.line = line
            return r
        return yield_from

    def _bool_op(self, node):
        parts = tuple(self.operand(v) for v in node.values)
        is_and = type(node.op) is ast.And

        def bool_op(fr):
            try:
                v = is_and
                for ev, is_gen in parts:
                    v = (yield from ev(fr)) if is_gen else ev(fr)
                    if (not v) if is_and else v:
                        return v
                return v
            except StopIteration as e:
                raise _Carry(e) from None
        return bool_op

    def _if_exp(self, node):
        test, test_gen = self.truth(node.test)
        body, body_gen = self.operand(node.body)
        orelse, orelse_gen = self.operand(node.orelse)

        def if_exp(fr):
            try:
                if ((yield from test(fr)) if test_gen else test(fr)):
                    return (yield from body(fr)) if body_gen else body(fr)
                return (yield from orelse(fr)) if orelse_gen else orelse(fr)
            except StopIteration as e:
                raise _Carry(e) from None
        return if_exp

    def _chain(self, node):
        from . import operators
        left, left_gen = self.operand(node.left)
        pairs = tuple((operators.COMPARE[type(o).__name__],) + self.operand(r)
                      for o, r in zip(node.ops, node.comparators))
        line, col = self._pos(node)
        fn = self.fname

        def chain(fr):
            try:
                a = (yield from left(fr)) if left_gen else left(fr)
                r = True
                for op, right, right_gen in pairs:
                    b = (yield from right(fr)) if right_gen else right(fr)
                    try:
                        r = op(a, b)
                    except Exception as e:
                        raise locate(e, line, col, fn) from None
                    if not r:
                        return r
                    a = b
                return r
            except StopIteration as e:
                raise _Carry(e) from None
        return chain


def _plain_yield(node, holds):
    """Whether statement ``node`` is ``yield x`` or ``target = yield x`` with no other yield in it."""
    t = type(node)
    if t is ast.Expr:
        y = node.value
    elif t is ast.Assign and len(node.targets) == 1 and not holds(node.targets[0]):
        y = node.value
    else:
        return False
    return type(y) is ast.Yield and not holds(y.value)


def _leave_handler(rt, delete, fr):
    rt.handled.pop()
    if delete is not None:
        try:
            delete(fr)
        except Exception:
            pass


def _STMT_HANDLER(c, node):
    """The ordinary compiled closure of statement ``node`` (a copy reading its operands): its own
    step, line and error location; no debugger hook (the generator statement has it)."""
    return c._stmt[type(node)](node)


_STATEMENTS = {
    ast.Expr: _GeneratorMode.simple, ast.Assign: _GeneratorMode.simple, ast.AugAssign: _GeneratorMode.simple,
    ast.AnnAssign: _GeneratorMode.simple, ast.Return: _GeneratorMode.simple, ast.Raise: _GeneratorMode.simple,
    ast.Assert: _GeneratorMode.simple, ast.If: _GeneratorMode.if_, ast.While: _GeneratorMode.while_,
    ast.For: _GeneratorMode.for_, ast.Try: _GeneratorMode.try_, ast.With: _GeneratorMode.with_,
}
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# expressions whose operands are all evaluated, in this order, before the operation itself
_ALL_OPERANDS = {
    ast.BinOp: ("left", "right"), ast.UnaryOp: ("operand",), ast.Attribute: ("value",),
    ast.Subscript: ("value", "slice"), ast.Slice: ("lower", "upper", "step"),
    ast.FormattedValue: ("value", "format_spec"), ast.NamedExpr: ("value",),
}


def _operand_paths(node):
    """Paths to ``node``'s operands in evaluation order, or None where the generator mode has none."""
    t = type(node)
    if t is ast.Compare:
        return [("left",), ("comparators", 0)]
    fields = _ALL_OPERANDS.get(t)
    if fields is not None:
        return [(f,) for f in fields if getattr(node, f, None) is not None]
    if t in (ast.Tuple, ast.List, ast.Set):
        return [("elts", i, "value") if type(e) is ast.Starred else ("elts", i) for i, e in enumerate(node.elts)]
    if t is ast.JoinedStr:
        return [("values", i) for i, v in enumerate(node.values) if type(v) is not ast.Constant]
    if t is ast.Dict:
        out = []
        for i, k in enumerate(node.keys):
            if k is not None:
                out.append(("keys", i))
            out.append(("values", i))
        return out
    if t is ast.Call:
        out = [("func", "value") if type(node.func) is ast.Attribute else ("func",)]
        out += [("args", i, "value") if type(a) is ast.Starred else ("args", i) for i, a in enumerate(node.args)]
        out += [("keywords", i, "value") for i in range(len(node.keywords))]
        return out
    return None


def _get(node, path):
    for step in path:
        node = node[step] if type(step) is int else getattr(node, step)
    return node


def _replace(node, path, new):
    """A copy of ``node`` with what ``path`` leads to replaced by ``new`` (the nodes and lists on the
    way copied; everything else shared)."""
    step, rest = path[0], path[1:]
    if type(step) is int:
        out = list(node)
        out[step] = _replace(node[step], rest, new) if rest else new
        return out
    out = _copy_node(node)
    setattr(out, step, _replace(getattr(node, step), rest, new) if rest else new)
    return out


def _copy_node(node):
    out = type(node)()
    for f in node._fields:
        setattr(out, f, getattr(node, f, None))
    for a in node._attributes:
        if hasattr(node, a):
            setattr(out, a, getattr(node, a))
    return out
