"""From a parsed program to closures: each AST node is compiled once into a
Python closure that evaluates it against a Frame, so running a program is a
chain of ordinary calls with every per-node decision (which operator, where a
name lives, which line to report) already made. Dispatch is a dict from node
type to compiling method. Nothing here hands program text to exec, eval or
compile: the program only ever runs as these closures.

A statement's closure counts a step, checks the limits every few steps, tells
the engine the current line (graph nodes carry it), and locates any error at
its position; expressions that can fail locate errors at their own position
(the innermost wins). A statement returns None to go on, or BREAK, CONTINUE,
RETURN (the value in ``frame.ret``).
"""
import ast
import operator
import string
import sys

from ..autograd.state import state
from ..tensor import Tensor
from . import access, generators, guards, imports, operators
from .access import CLASS_DUNDERS, ModuleView, get_attr, set_attr, del_attr
from .builtin_functions import _GRAD_MODES, SUPER, UNAVAILABLE, repr_size_check, text
from .errors import Abort, PROGRAM_EXCEPTIONS, ProgramBaseException, locate, meta
from .scopes import CompileError
from .values import BREAK, CONTINUE, RETURN, BoundMethod, Frame, Function, ProgramIterator

# string constants made only of these are interned by CPython's compiler, so `is` finds two of them identical
_NAME_CHARS = frozenset(string.ascii_letters + string.digits + "_")

__all__ = ["Compiler"]

_P = PROGRAM_EXCEPTIONS
_MISSING = object()
_LARGE = 1 << 20   # elements of a result past which memory is checked at the next step

_UNSUPPORTED = {
    ast.AsyncFunctionDef: "async functions", ast.AsyncFor: "async for", ast.AsyncWith: "async with",
    ast.Await: "await", ast.Match: "match statements",
}
if hasattr(ast, "TryStar"):
    _UNSUPPORTED[ast.TryStar] = "except*"

_PICKLE_HOOKS = ("__getstate__", "__setstate__")   # accepted in a class body, never called (see define)
# __setattr__ is accepted too, and called by the interpreter only (see define and access.set_attr)
_CLASS_BODY_NAMES = frozenset(("__module__", "__qualname__", "__doc__", "__annotations__",
                               "__constants__"))   # TorchScript's list of constant attributes (PlaNet)

# comparisons two plain numbers make directly (operators.COMPARE adds only tensor checks to these)
_NUMBERS = frozenset((int, float, bool))
# operators whose tensor branch (in operators.py) is _check_operands and then the operator itself
_TENSOR_BINARY = {"Add": operator.add, "Sub": operator.sub, "Mult": operator.mul, "Div": operator.truediv,
                  "FloorDiv": operator.floordiv, "Mod": operator.mod, "Pow": operator.pow}
_TENSOR_DUNDER = {"Add": "__add__", "Sub": "__sub__", "Mult": "__mul__", "Div": "__truediv__",
                  "FloorDiv": "__floordiv__", "Mod": "__mod__", "Pow": "__pow__"}
# callees a call site does not call in place: program functions and methods (invoked), and what the
# gate's call intercepts (classes, grad modes); everything else is a host callable called directly
_NOT_IN_PLACE = frozenset((Function, BoundMethod, type)) | _GRAD_MODES
_SCALARS = frozenset((int, float))   # a number operand (not bool: True + t promotes as a bool tensor)
_NUMERIC_COMPARE = {"Eq": operator.eq, "NotEq": operator.ne, "Lt": operator.lt, "LtE": operator.le,
                    "Gt": operator.gt, "GtE": operator.ge}


def _pos(node):
    return node.lineno, node.col_offset + 1


class Compiler:
    """Compiles one program for one session (its runtime, globals and builtins)."""

    def __init__(self, rt, globals_, builtins, views, scopes):
        self.rt = rt
        self.g = globals_
        self.bt = builtins
        self.bi = builtins.table
        self.views = views
        self.scopes = scopes
        self.scope = None
        self.fname = "<module>"
        self.loops = 0
        self.debug_lines = None   # a set when compiling for a debug run: statements get debugger hooks
        self.loop_counted = False # the statement being compiled is counted by its loop (see loop_block)
        self._stmt = {node: getattr(self, name) for node, name in _HANDLERS["s_"]}
        self._expr = {node: getattr(self, name) for node, name in _HANDLERS["e_"]}

    # ------------------------------------------------------------------ entry points
    def module(self, tree):
        """The top-level statements as (closure, line, col), in order (the runner runs them
        one by one)."""
        self.scope = self.scopes[tree]
        return [(self.stmt(s),) + _pos(s) for s in tree.body]

    def stmt(self, node, loop_counted=False):
        handler = self._stmt.get(type(node))
        if handler is None:
            what = _UNSUPPORTED.get(type(node), type(node).__name__)
            raise CompileError(f"{what} {'are' if what.endswith('s') else 'is'} not supported in programs", node)
        if self.debug_lines is not None:
            return self._debug_statement(handler(node), node)
        self.loop_counted = loop_counted
        try:
            return handler(node)
        finally:
            self.loop_counted = False

    def expr(self, node):
        handler = self._expr.get(type(node))
        if handler is None:
            what = _UNSUPPORTED.get(type(node), type(node).__name__)
            raise CompileError(f"{what} is not supported in programs", node)
        return handler(node)

    def block(self, stmts):
        return tuple(self.stmt(s) for s in stmts)

    def loop_block(self, stmts):
        """A loop's body, and the steps one pass through it counts. Its simple statements (an
        expression, an assignment to a name) are counted by the loop as each pass begins, not one
        by one: a pass that leaves early by ``break``, ``continue`` or an error counts the statements
        it skipped too. The others count themselves as anywhere else."""
        body = tuple(self.stmt(s, loop_counted=True) for s in stmts)
        return body, sum(1 for s in body if getattr(s, "counted_by_loop", False))

    def _take_loop_counted(self):
        """Whether the simple statement being compiled is counted by its loop (read first, once)."""
        counted, self.loop_counted = self.loop_counted, False
        return counted

    # ------------------------------------------------------------------ statement shell
    def _shell(self, node, inner):
        """A statement: count a step, check limits, set the line, locate errors."""
        rt = self.rt
        st = state
        line, col = _pos(node)
        fn = self.fname

        def statement(fr):
            rt.steps += 1
            if rt.steps >= rt.check_at:
                rt.check()
            st.line = line
            try:
                return inner(fr)
            except Exception as e:
                raise locate(e, line, col, fn) from None
            except Abort as e:
                raise locate(e, line, col, fn)
        return statement

    # ------------------------------------------------------------------ debugger hooks (debug runs only)
    def _debug_statement(self, inner, node):
        """``inner`` preceded by the debugger's line event; an exception leaving it is noted for a
        post-mortem. Only debug runs are compiled this way."""
        rt = self.rt
        line, col = _pos(node)
        fn = self.fname
        self.debug_lines.add(line)

        def statement(fr):
            d = rt.debugger
            if d is None:
                return inner(fr)
            d.line_event(fr, line, col, fn)
            try:
                return inner(fr)
            except (Exception, ProgramBaseException):
                d.exception_passing(fr, line, col, fn)
                raise
        return statement

    def _loop_body(self, node, body):
        """A loop's body; in a debug run led by a line event at the loop's head, as Python's tracer
        stops at a ``for`` or ``while`` line before each iteration."""
        if self.debug_lines is None:
            return body
        rt = self.rt
        line, col = _pos(node)
        fn = self.fname

        def head(fr):
            d = rt.debugger
            if d is not None:
                d.line_event(fr, line, col, fn)
        return (head,) + tuple(body)

    def _located(self, closure, node):
        """``closure`` with its errors located at ``node`` (when nothing inside did)."""
        line, col = _pos(node)
        fn = self.fname

        def located(fr):
            try:
                return closure(fr)
            except Exception as e:
                raise locate(e, line, col, fn) from None
            except Abort as e:
                raise locate(e, line, col, fn)
        return located

    # ------------------------------------------------------------------ names
    def load_name(self, name, node):
        kind = self.scope.resolve(name)
        g, bi = self.g, self.bi
        line, col = _pos(node)
        fn = self.fname

        def undefined():
            why = " (it is not available in programs)" if name in UNAVAILABLE else ""
            return locate(_P["NameError"](f"name '{name}' is not defined{why}"), line, col, fn)

        if kind[0] == "global":
            def load(fr):
                try:
                    return g[name]
                except KeyError:
                    pass
                try:
                    return bi[name]
                except KeyError:
                    raise undefined() from None
            return load
        if kind[0] == "local":
            def load(fr):
                try:
                    return fr.vars[name]
                except KeyError:
                    raise locate(_P["UnboundLocalError"](
                        f"cannot access local variable '{name}' where it is not associated with a value"),
                        line, col, fn) from None
            return load
        if kind[0] == "free":
            k = kind[1]

            def load(fr):
                try:
                    return fr.cells[k][name]
                except KeyError:
                    raise locate(_P["NameError"](
                        f"cannot access free variable '{name}' where it is not associated with a value in "
                        f"enclosing scope"), line, col, fn) from None
            return load
        k = kind[1]   # class body: its own namespace, then enclosing functions, then globals

        def load(fr):
            v = fr.vars.get(name, _MISSING)
            if v is not _MISSING:
                return v
            if k is not None:
                v = fr.cells[k].get(name, _MISSING)
                if v is not _MISSING:
                    return v
            v = g.get(name, _MISSING)
            if v is not _MISSING:
                return v
            v = bi.get(name, _MISSING)
            if v is not _MISSING:
                return v
            raise undefined()
        return load

    def store_name(self, name):
        kind = self.scope.resolve(name)
        if kind[0] == "global":
            g, rt = self.g, self.rt

            def store(fr, v):
                g[name] = v
                bound = rt.bound_set
                if name not in bound:
                    bound.add(name)
                    rt.bound.append(name)
            return store
        if kind[0] == "free":
            k = kind[1]

            def store(fr, v):
                fr.cells[k][name] = v
            return store

        def store(fr, v):
            fr.vars[name] = v
        return store

    def delete_name(self, name, node):
        kind = self.scope.resolve(name)
        g = self.g
        line, col = _pos(node)
        fn = self.fname

        def missing():
            return locate(_P["NameError"](f"name '{name}' is not defined"), line, col, fn)
        if kind[0] == "global":
            def delete(fr):
                try:
                    del g[name]
                except KeyError:
                    raise missing() from None
            return delete
        if kind[0] == "free":
            k = kind[1]

            def delete(fr):
                try:
                    del fr.cells[k][name]
                except KeyError:
                    raise missing() from None
            return delete

        def delete(fr):
            try:
                del fr.vars[name]
            except KeyError:
                raise missing() from None
        return delete

    # ------------------------------------------------------------------ targets
    def target(self, node):
        """A closure ``store(frame, value)`` for an assignment target."""
        t = type(node)
        if t is ast.Name:
            return self.store_name(node.id)
        if t in (ast.Tuple, ast.List):
            return self._unpack_target(node)
        if t is ast.Attribute:
            obj = self.expr(node.value)
            attr = node.attr
            line, col = _pos(node)
            fn = self.fname

            def store(fr, v):
                o = obj(fr)
                try:
                    set_attr(o, attr, v)
                except Exception as e:
                    raise locate(e, line, col, fn) from None
            return store
        if t is ast.Subscript:
            obj = self.expr(node.value)
            index = self.expr(node.slice)
            setitem = self._setitem
            line, col = _pos(node)
            fn = self.fname

            def store(fr, v):
                o = obj(fr)
                i = index(fr)
                try:
                    setitem(o, i, v)
                except Exception as e:
                    raise locate(e, line, col, fn) from None
                except Abort as e:
                    raise locate(e, line, col, fn)
            return store
        if t is ast.Starred:
            raise CompileError("starred assignment target must be in a list or tuple", node)
        raise CompileError(f"cannot assign to {type(node).__name__}", node)

    def _setitem(self, obj, index, value):
        if isinstance(obj, Tensor):
            tv = type(value)
            if tv is list or tv is tuple:
                guards.check_nested(value)
            elif type(index) is not int and type(index) is not slice:
                guards.check_getitem(obj, index)
        elif type(obj) is list and type(index) is slice:
            if type(value) is not list:
                value = self.bt.materialize(value)
            start, stop, step = index.indices(len(obj))
            removed = len(range(start, stop, step))
            guards.check_length(len(obj) - removed + len(value), self.rt.seq_limit, "list")
        obj[index] = value

    def _unpack_target(self, node):
        elts = node.elts
        starred = [i for i, e in enumerate(elts) if type(e) is ast.Starred]
        if len(starred) > 1:
            raise CompileError("multiple starred expressions in assignment", node)
        stores = [self.target(e.value if type(e) is ast.Starred else e) for e in elts]
        n = len(elts)
        materialize = self.bt.materialize
        line, col = _pos(node)
        fn = self.fname
        if not starred:
            def store(fr, v):
                items = v if type(v) in (tuple, list) else materialize(v)
                if len(items) != n:
                    msg = (f"too many values to unpack (expected {n})" if len(items) > n else
                           f"not enough values to unpack (expected {n}, got {len(items)})")
                    raise locate(_P["ValueError"](msg), line, col, fn)
                for s, x in zip(stores, items):
                    s(fr, x)
            return store
        k = starred[0]
        after = n - k - 1

        def store(fr, v):
            items = list(v) if type(v) in (tuple, list) else materialize(v)
            if len(items) < n - 1:
                raise locate(_P["ValueError"](
                    f"not enough values to unpack (expected at least {n - 1}, got {len(items)})"), line, col, fn)
            values = items[:k] + [items[k:len(items) - after]] + (items[len(items) - after:] if after else [])
            for s, x in zip(stores, values):
                s(fr, x)
        return store

    # ------------------------------------------------------------------ simple statements
    def s_Expr(self, node):
        counted = self._take_loop_counted()
        value = self.expr(node.value)
        rt = self.rt
        st = state
        line, col = _pos(node)
        fn = self.fname
        if counted:
            def statement(fr):
                # counted by the loop; a slow call or a large result before it still checks here
                if not rt.check_at:
                    rt.check()
                st.line = line
                try:
                    value(fr)
                except Exception as e:
                    raise locate(e, line, col, fn) from None
                except Abort as e:
                    raise locate(e, line, col, fn)
            statement.counted_by_loop = True
            statement.simple = (None, value, line, col)   # a loop of such statements runs them in place
            return statement

        def statement(fr):
            rt.steps += 1
            if rt.steps >= rt.check_at:
                rt.check()
            st.line = line
            try:
                value(fr)
            except Exception as e:
                raise locate(e, line, col, fn) from None
            except Abort as e:
                raise locate(e, line, col, fn)
        return statement

    def s_Assign(self, node):
        counted = self._take_loop_counted()
        value = self.expr(node.value)
        rt = self.rt
        st = state
        line, col = _pos(node)
        fn = self.fname
        if len(node.targets) == 1 and type(node.targets[0]) is ast.Name:
            name = node.targets[0].id
            kind = self.scope.resolve(name)
            if kind[0] == "global":
                g = self.g

                def statement(fr):
                    rt.steps += 1
                    if rt.steps >= rt.check_at:
                        rt.check()
                    st.line = line
                    try:
                        v = value(fr)
                    except Exception as e:
                        raise locate(e, line, col, fn) from None
                    except Abort as e:
                        raise locate(e, line, col, fn)
                    g[name] = v
                    bound = rt.bound_set
                    if name not in bound:
                        bound.add(name)
                        rt.bound.append(name)
                return statement
            if kind[0] == "local" and counted:
                def statement(fr):
                    # counted by the loop; a slow call or a large result before it still checks here
                    if not rt.check_at:
                        rt.check()
                    st.line = line
                    try:
                        fr.vars[name] = value(fr)
                    except Exception as e:
                        raise locate(e, line, col, fn) from None
                    except Abort as e:
                        raise locate(e, line, col, fn)
                statement.counted_by_loop = True
                statement.simple = (name, value, line, col)
                return statement
            if kind[0] == "local":
                def statement(fr):
                    rt.steps += 1
                    if rt.steps >= rt.check_at:
                        rt.check()
                    st.line = line
                    try:
                        fr.vars[name] = value(fr)
                    except Exception as e:
                        raise locate(e, line, col, fn) from None
                    except Abort as e:
                        raise locate(e, line, col, fn)
                return statement
        stores = [self.target(t) for t in node.targets]

        def assign(fr):
            v = value(fr)
            for s in stores:
                s(fr, v)
        return self._shell(node, assign)

    def s_AnnAssign(self, node):
        if self.scope.kind == "class" and type(node.target) is ast.Name:
            # a class body records its annotations (as source text), for @dataclass and NamedTuple
            name, text = node.target.id, ast.unparse(node.annotation)
            value = self.expr(node.value) if node.value is not None else None
            store = self.target(node.target) if value is not None else None

            def annotate(fr):
                ann = fr.vars.get("__annotations__")
                if ann is None:
                    ann = fr.vars["__annotations__"] = {}
                ann[name] = text
                if value is not None:
                    store(fr, value(fr))
            return self._shell(node, annotate)
        if node.value is None:
            return self._shell(node, lambda fr: None)
        value = self.expr(node.value)
        store = self.target(node.target)

        def assign(fr):
            store(fr, value(fr))
        return self._shell(node, assign)

    def s_AugAssign(self, node):
        op = operators.INPLACE[type(node.op).__name__]
        value = self.expr(node.value)
        target = node.target
        t = type(target)
        if t is ast.Name:
            load = self.load_name(target.id, target)
            store = self.store_name(target.id)

            def aug(fr):
                v = value(fr)
                store(fr, op(load(fr), v))
        elif t is ast.Attribute:
            obj = self.expr(target.value)
            attr = target.attr

            def aug(fr):
                o = obj(fr)
                v = value(fr)
                set_attr(o, attr, op(get_attr(o, attr), v))
        elif t is ast.Subscript:
            obj = self.expr(target.value)
            index = self.expr(target.slice)
            setitem = self._setitem

            def aug(fr):
                o = obj(fr)
                i = index(fr)
                v = value(fr)
                setitem(o, i, op(o[i], v))
        else:
            raise CompileError("illegal expression for augmented assignment", node)
        return self._shell(node, aug)

    def s_Pass(self, node):
        return self._shell(node, lambda fr: None)

    def s_Break(self, node):
        if not self.loops:
            raise CompileError("'break' outside loop", node)
        return self._shell(node, lambda fr: BREAK)

    def s_Continue(self, node):
        if not self.loops:
            raise CompileError("'continue' not properly in loop", node)
        return self._shell(node, lambda fr: CONTINUE)

    def s_Return(self, node):
        if not self.scope.is_function():
            raise CompileError("'return' outside function", node)
        rt = self.rt
        st = state
        line, col = _pos(node)
        fn = self.fname
        if node.value is None:
            def statement(fr):
                rt.steps += 1
                if rt.steps >= rt.check_at:
                    rt.check()
                fr.ret = None
                return RETURN
            return statement
        value = self.expr(node.value)

        def statement(fr):
            rt.steps += 1
            if rt.steps >= rt.check_at:
                rt.check()
            st.line = line
            try:
                fr.ret = value(fr)
            except Exception as e:
                raise locate(e, line, col, fn) from None
            except Abort as e:
                raise locate(e, line, col, fn)
            return RETURN
        return statement

    def s_Delete(self, node):
        parts = []
        for t in node.targets:
            if type(t) is ast.Name:
                parts.append(self.delete_name(t.id, t))
            elif type(t) is ast.Subscript:
                obj, index = self.expr(t.value), self.expr(t.slice)
                parts.append(lambda fr, obj=obj, index=index: _delitem(obj(fr), index(fr)))
            elif type(t) is ast.Attribute:
                obj, attr = self.expr(t.value), t.attr
                parts.append(lambda fr, obj=obj, attr=attr: del_attr(obj(fr), attr))
            elif type(t) in (ast.Tuple, ast.List):
                parts.append(self.s_Delete(ast.copy_location(ast.Delete(targets=t.elts), t)))
            else:
                raise CompileError("cannot delete this expression", t)

        def delete(fr):
            for p in parts:
                p(fr)
        return self._shell(node, delete)

    def s_Global(self, node):
        return self._shell(node, lambda fr: None)

    s_Nonlocal = s_Global

    def s_Assert(self, node):
        test = self.expr(node.test)
        msg = self.expr(node.msg) if node.msg is not None else None

        def check(fr):
            if not test(fr):
                raise _P["AssertionError"](msg(fr)) if msg is not None else _P["AssertionError"]()
        return self._shell(node, check)

    def s_Import(self, node):
        views = self.views
        entries = []
        for alias in node.names:
            if alias.asname:
                entries.append((self.store_name(alias.asname), alias.name))
            else:
                top = alias.name.split(".")[0]
                entries.append((self.store_name(top), (alias.name, top)))

        def do_import(fr):
            for store, what in entries:
                if type(what) is tuple:
                    imports.import_module(views, what[0])     # the whole path must exist
                    store(fr, imports.import_module(views, what[1]))
                else:
                    store(fr, imports.import_module(views, what))
        return self._shell(node, do_import)

    def s_ImportFrom(self, node):
        module = node.module or ""
        if module == imports.FUTURE and not node.level:
            return self._shell(node, lambda fr: None)
        views = self.views
        if node.level:
            what = "." * node.level + module
            raise CompileError(f"relative import 'from {what} import ...' is not available: a program is one "
                               f"file; programs import torch, numpy and standard modules", node)
        if len(node.names) == 1 and node.names[0].name == "*":
            if self.scope.is_function():
                raise CompileError("import * only allowed at module level", node)
            try:
                names = imports.star_names(views, module)
            except Exception:
                names = []
            stores = [(self.store_name(n), n) for n in names]

            def star(fr):
                imports.import_module(views, module)
                for store, n in stores:
                    try:
                        v = imports.import_name(views, module, n)
                    except _P["ImportError"]:
                        continue
                    store(fr, v)
            return self._shell(node, star)
        entries = [(self.store_name(alias.asname or alias.name), alias.name) for alias in node.names]

        def do_import(fr):
            for store, name in entries:
                store(fr, imports.import_name(views, module, name))
        return self._shell(node, do_import)

    # ------------------------------------------------------------------ control flow
    def _truth(self, node):
        line, col = _pos(node)
        fn = self.fname
        if type(node) is ast.Compare and len(node.ops) == 1 and type(node.ops[0]).__name__ in _NUMERIC_COMPARE:
            # a condition that is one comparison: compared and tested in one closure
            left = self.expr(node.left)
            right = self.expr(node.comparators[0])
            name = type(node.ops[0]).__name__
            op, raw = operators.COMPARE[name], _NUMERIC_COMPARE[name]
            numbers = _NUMBERS

            def compare_truth(fr):
                a = left(fr)
                b = right(fr)
                try:
                    if type(a) in numbers and type(b) in numbers:
                        return raw(a, b)
                    v = op(a, b)
                    if v is True:
                        return True
                    if v is False:
                        return False
                    return bool(v)
                except Exception as e:
                    raise locate(e, line, col, fn) from None
                except Abort as e:
                    raise locate(e, line, col, fn)
            return compare_truth
        test = self.expr(node)

        def truth(fr):
            v = test(fr)
            if v is True:
                return True
            if v is False:
                return False
            try:
                return bool(v)
            except Exception as e:
                raise locate(e, line, col, fn) from None
        return truth

    def s_If(self, node):
        branches = []
        n = node
        while True:
            branches.append((self._truth(n.test), self.block(n.body)))
            if len(n.orelse) == 1 and type(n.orelse[0]) is ast.If:
                n = n.orelse[0]
                continue
            break
        orelse = self.block(n.orelse)
        if len(branches) == 1:
            test, body = branches[0]

            def if_(fr):
                for s in (body if test(fr) else orelse):
                    r = s(fr)
                    if r is not None:
                        return r
                return None
            return self._shell(node, if_)

        def if_chain(fr):
            for test, body in branches:
                if test(fr):
                    for s in body:
                        r = s(fr)
                        if r is not None:
                            return r
                    return None
            for s in orelse:
                r = s(fr)
                if r is not None:
                    return r
            return None
        return self._shell(node, if_chain)

    def s_While(self, node):
        test = self._truth(node.test)
        self.loops += 1
        body, counted = self.loop_block(node.body)
        body = self._loop_body(node, body)
        self.loops -= 1
        orelse = self.block(node.orelse)
        rt = self.rt
        per_pass = 1 + counted   # the pass itself, and the body's statements it counts

        def while_(fr):
            while test(fr):
                rt.steps += per_pass
                if rt.steps >= rt.check_at:
                    rt.check()
                for s in body:
                    r = s(fr)
                    if r is not None:
                        break
                else:
                    continue
                if r is BREAK:
                    return None
                if r is CONTINUE:
                    continue
                return r
            for s in orelse:
                r = s(fr)
                if r is not None:
                    return r
            return None
        return self._shell(node, while_)

    def s_For(self, node):
        seq = self.expr(node.iter)
        store = self.target(node.target)
        self.loops += 1
        body, counted = self.loop_block(node.body)
        body = self._loop_body(node, body)
        self.loops -= 1
        orelse = self.block(node.orelse)
        rt = self.rt
        per_pass = 1 + counted   # the pass itself, and the body's statements it counts
        iterate = self.bt.iterate
        single = body[0] if len(body) == 1 else None
        local = (node.target.id if type(node.target) is ast.Name and self.scope.resolve(node.target.id)[0] == "local"
                 else None)   # for i in ...: the loop variable stored here, not through a closure
        if local is not None and all(hasattr(s, "simple") for s in body):
            return self._shell(node, self._simple_for(seq, local, [s.simple for s in body], per_pass, orelse))

        def for_(fr):
            names = fr.vars
            for item in iterate(seq(fr)):
                rt.steps += per_pass
                if rt.steps >= rt.check_at:
                    rt.check()
                if local is not None:
                    names[local] = item
                else:
                    store(fr, item)
                if single is not None:
                    r = single(fr)
                    if r is None:
                        continue
                else:
                    for s in body:
                        r = s(fr)
                        if r is not None:
                            break
                    else:
                        continue
                if r is BREAK:
                    return None
                if r is CONTINUE:
                    continue
                return r
            for s in orelse:
                r = s(fr)
                if r is not None:
                    return r
            return None
        return self._shell(node, for_)

    def _simple_for(self, seq, local, simple, per_pass, orelse):
        """``for name in ...:`` over a body of simple statements only (an expression, an assignment to
        a local name), as a loop over time steps mostly is: each statement runs here in place, as its
        own closure would run it (check, line, errors located at its line), without a call of its own."""
        rt = self.rt
        st = state
        fn = self.fname
        iterate = self.bt.iterate
        simple = tuple(simple)

        def for_(fr):
            names = fr.vars
            for item in iterate(seq(fr)):
                rt.steps += per_pass
                if rt.steps >= rt.check_at:
                    rt.check()
                names[local] = item
                for name, value, line, col in simple:
                    if not rt.check_at:   # a tick, or a large result, since the pass began
                        rt.check()
                    st.line = line
                    try:
                        if name is None:
                            value(fr)
                        else:
                            names[name] = value(fr)
                    except Exception as e:
                        raise locate(e, line, col, fn) from None
                    except Abort as e:
                        raise locate(e, line, col, fn)
            for s in orelse:
                r = s(fr)
                if r is not None:
                    return r
            return None
        return for_

    def s_Raise(self, node):
        rt = self.rt
        line, col = _pos(node)
        fn = self.fname
        if node.exc is None:
            def reraise(fr):
                if not rt.handled:
                    raise _P["RuntimeError"]("No active exception to reraise")
                raise rt.handled[-1]
            return self._shell(node, reraise)
        exc = self.expr(node.exc)
        cause = self.expr(node.cause) if node.cause is not None else None
        call = self.bt.call

        def raise_(fr):
            e = exc(fr)
            if isinstance(e, type) and issubclass(e, ProgramBaseException):
                e = call(e, [], None)
            if not isinstance(e, ProgramBaseException):
                raise _P["TypeError"]("exceptions must derive from BaseException")
            if cause is not None:
                c = cause(fr)
                if isinstance(c, type) and issubclass(c, ProgramBaseException):
                    c = call(c, [], None)
                if c is not None and not isinstance(c, ProgramBaseException):
                    raise _P["TypeError"]("exception causes must derive from BaseException")
                e.__cause__ = c
            m = meta(e)
            m.tb = [(line, col, fn)]
            m.site = False
            raise e
        return self._shell(node, raise_)

    def s_Try(self, node):
        body = self.block(node.body)
        handlers = []
        for h in node.handlers:
            types = self.expr(h.type) if h.type is not None else None
            store = self.store_name(h.name) if h.name else None
            delete = self.delete_name(h.name, h) if h.name else None
            handlers.append((types, store, delete, self.block(h.body), h))
        orelse = self.block(node.orelse)
        final = self.block(node.finalbody)
        rt = self.rt
        line, col = _pos(node)
        fn = self.fname

        def run(stmts, fr):
            for s in stmts:
                r = s(fr)
                if r is not None:
                    return r
            return None

        def try_(fr):
            aborting = False
            try:
                try:
                    r = run(body, fr)
                except Exception as e:
                    pe = locate(e, line, col, fn)
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
                            r = run(hbody, fr)
                        finally:
                            rt.handled.pop()
                            if delete is not None:
                                try:
                                    delete(fr)
                                except Exception:
                                    pass
                        return r
                    raise pe from None
                if orelse:
                    return run(orelse, fr)
                return r
            except Abort:
                aborting = True
                raise
            finally:
                if final:
                    r2 = run(final, fr)
                    # Python's semantics: return (break, continue) in finally wins; not over a limit or a
                    # cancellation, which no program code ends (hostile pass 15, F3)
                    if r2 is not None and not aborting:
                        return r2  # noqa: B012
        return self._shell(node, try_)

    def s_With(self, node):
        items = [(self.expr(i.context_expr), self.target(i.optional_vars) if i.optional_vars is not None else None)
                 for i in node.items]
        body = self.block(node.body)

        def run_body(fr):
            for s in body:
                r = s(fr)
                if r is not None:
                    return r
            return None

        def nest(k):
            if k == len(items):
                return run_body
            ctx, store = items[k]
            inner = nest(k + 1)

            def with_(fr):
                mgr = ctx(fr)
                enter, exit_ = _context_methods(mgr)
                v = enter(mgr)
                if store is not None:
                    store(fr, v)
                try:
                    r = inner(fr)
                except Exception as e:
                    if exit_(mgr, type(e), e, None):
                        return None
                    raise
                except Abort:
                    try:
                        exit_(mgr, None, None, None)
                    except BaseException:
                        pass
                    raise
                exit_(mgr, None, None, None)
                return r
            return with_
        return self._shell(node, nest(0))

    # ------------------------------------------------------------------ definitions
    def _function(self, node, name, body_nodes, is_lambda):
        scope = self.scopes[node]
        args = node.args
        pos = tuple(a.arg for a in args.posonlyargs + args.args)
        spec = (pos, args.vararg.arg if args.vararg else None, tuple(a.arg for a in args.kwonlyargs),
                args.kwarg.arg if args.kwarg else None)
        defaults = [self.expr(d) for d in args.defaults]
        kwdefaults = [(a.arg, self.expr(d)) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
        saved = self.scope, self.fname, self.loops
        self.scope, self.fname, self.loops = scope, name, 0
        try:
            if is_lambda:
                body = self._located(self.expr(body_nodes), body_nodes)
            elif scope.generator:
                body = generators.function_body(self, body_nodes)   # a generator function (generators.py)
            else:
                body = self.block(body_nodes)
        finally:
            self.scope, self.fname, self.loops = saved
        rt = self.rt
        outer_is_function = self.scope.is_function()
        line = node.lineno

        def make(fr):
            d = tuple(c(fr) for c in defaults)
            kd = {k: c(fr) for k, c in kwdefaults}
            cells = fr.cells + (fr.vars,) if outer_is_function else fr.cells
            return Function(rt, name, spec, d, kd, body, cells, fr.cls, line)
        return make

    def s_FunctionDef(self, node):
        decorators = [self.expr(d) for d in node.decorator_list]
        make = self._function(node, node.name, node.body, False)
        store = self.store_name(node.name)
        call = self.bt.call

        def define(fr):
            decs = [d(fr) for d in decorators]
            f = make(fr)
            for d in reversed(decs):
                f = call(d, [f], None)
            store(fr, f)
        return self._shell(node, define)

    def e_Yield(self, node):
        # a yield the generator mode did not compile (generators.py): outside a function, in a
        # lambda or a comprehension
        raise CompileError(generators.misplaced_yield(self, node), node)

    e_YieldFrom = e_Yield

    def e_Lambda(self, node):
        return self._function(node, "<lambda>", node.body, True)

    def s_ClassDef(self, node):
        if any(k.arg != "metaclass" for k in node.keywords):
            raise CompileError("class keywords other than metaclass=abc.ABCMeta are not supported in programs", node)
        name = node.name
        bases = [self.expr(b) for b in node.bases]
        metaclass = self.expr(node.keywords[0].value) if node.keywords else None
        decorators = [self.expr(d) for d in node.decorator_list]
        saved = self.scope, self.fname, self.loops
        self.scope, self.fname, self.loops = self.scopes[node], name, 0
        try:
            for s in node.body:
                if type(s) is ast.Return:
                    raise CompileError("'return' outside function", s)
            body = self.block(node.body)
        finally:
            self.scope, self.fname, self.loops = saved
        store = self.store_name(name)
        outer_is_function = self.scope.is_function()
        call = self.bt.call

        rt = self.rt

        def define(fr):
            decs = [d(fr) for d in decorators]
            base_values = tuple(b(fr) for b in bases)
            for b in base_values:
                _check_base(b)
            make_class = type if metaclass is None else _check_metaclass(metaclass(fr))
            cell = [None]
            ns = {"__module__": "__main__", "__qualname__": name}
            cfr = Frame(ns, fr.cells + (fr.vars,) if outer_is_function else fr.cells, None, cell)
            rt.depth += 1   # the body is a frame inside the defining one, as in Python (a debugger's stack shows both)
            try:
                for s in body:
                    s(cfr)
            finally:
                rt.depth -= 1
            hooks = {}
            for key in _PICKLE_HOOKS:
                if type(ns.get(key)) is Function:
                    # an optimizer's __setstate__, Lookahead's __getstate__: only pickling calls them, and programs
                    # never pickle; kept out of the class so the host's copy machinery (a deepcopy of the state it
                    # is handed) never calls program code
                    hooks[key] = ns.pop(key)
            setattr_hook = ns.pop("__setattr__", None) if type(ns.get("__setattr__")) is Function else None
            for key, value in ns.items():
                if key.startswith("__") and key.endswith("__") and key not in _CLASS_BODY_NAMES:
                    if key not in CLASS_DUNDERS:
                        raise _P["TypeError"](f"defining '{key}' in a class body is not supported in programs")
                    if not (type(value) is Function or (key in ("__hash__", "__eq__") and value is None)):
                        raise _P["TypeError"](f"'{key}' in a class body must be a method defined with def")
            ns["__gs_program__"] = True
            if hooks:
                ns["__gs_pickle_hooks__"] = hooks
            if setattr_hook is not None:
                # kept out of the type's slot too: the interpreter calls it for the program's own assignments
                # (access.set_attr), the host's machinery never does
                ns["__gs_setattr__"] = setattr_hook
            cls = make_class(name, base_values or (object,), ns)
            for key in ns:
                if key[0] == "_" and not (key.startswith("__") and key.endswith("__")) \
                        and access.host_reserved(cls, key):
                    raise _P["TypeError"](f"'{key}' in the body of class '{name}' would replace the engine's own "
                                          f"'{key}' of its base class; choose another name")
            cell[0] = cls
            for d in reversed(decs):
                cls = call(d, [cls], None)
            store(fr, cls)
        return self._shell(node, define)

    # ------------------------------------------------------------------ expressions
    def e_Constant(self, node):
        v = node.value
        if type(v) is str and _NAME_CHARS.issuperset(v):   # interned as CPython's compile does: MAML's `name is 'conv2d'`
            v = sys.intern(v)
        return lambda fr: v

    def e_Name(self, node):
        return self.load_name(node.id, node)

    def e_Attribute(self, node):
        obj = self.expr(node.value)
        attr = node.attr
        line, col = _pos(node)
        fn = self.fname
        policies = access._POLICIES
        policy_for = access._policy_for
        if attr.startswith("_"):
            def load(fr):
                o = obj(fr)
                try:
                    return get_attr(o, attr)
                except Exception as e:
                    raise locate(e, line, col, fn) from None
            return load

        def load(fr):
            o = obj(fr)
            try:
                t = type(o)
                policy = policies.get(t)
                if policy is None:
                    policy = policy_for(t)
                return policy(o, attr)
            except Exception as e:
                raise locate(e, line, col, fn) from None
            except Abort as e:
                raise locate(e, line, col, fn)
        return load

    def e_Subscript(self, node):
        obj = self.expr(node.value)
        line, col = _pos(node)
        fn = self.fname
        check = guards.check_getitem
        wrap = self.rt.wrap
        plain = (list, tuple, dict, str, range)
        if type(node.slice) is ast.Slice:
            # x[a:b]: the slice is built here, by the subscript's own syntax (no closure and no call of
            # slice()); a slice needs no index check on a tensor (a view, never more elements)
            sl = node.slice
            lo = self.expr(sl.lower) if sl.lower is not None else None
            hi = self.expr(sl.upper) if sl.upper is not None else None
            st = self.expr(sl.step) if sl.step is not None else None

            def load_slice(fr):
                o = obj(fr)
                a = lo(fr) if lo is not None else None
                b = hi(fr) if hi is not None else None
                c = st(fr) if st is not None else None
                try:
                    to = type(o)
                    if to is Tensor or to in plain:
                        return o[a:b:c]
                    i = slice(a, b, c)
                    if isinstance(o, Tensor):
                        check(o, i)
                    return wrap(o[i])
                except Exception as e:
                    raise locate(e, line, col, fn) from None
                except Abort as e:
                    raise locate(e, line, col, fn)
            return load_slice
        index = self.expr(node.slice)
        # which part of the index a tensor's guard must see (an advanced index may gather more
        # elements than the tensor has): the index itself unless an int or a slice (probe None); for a
        # tuple, only the elements that are not slices or int constants by their syntax: none (probe
        # -1), one (its position), or several (-2: the guard walks the tuple)
        probe = None
        if type(node.slice) is ast.Tuple:
            dynamic = [k for k, e in enumerate(node.slice.elts)
                       if not (type(e) is ast.Slice or (type(e) is ast.Constant and type(e.value) is int))]
            probe = -1 if not dynamic else dynamic[0] if len(dynamic) == 1 else -2
        basic = guards.BASIC_INDEX

        def load(fr):
            o = obj(fr)
            i = index(fr)
            try:
                to = type(o)
                if to is Tensor:
                    if probe is None:
                        ti = type(i)
                        if ti is not int and ti is not slice:
                            check(o, i)
                    elif probe >= 0:
                        if type(i[probe]) not in basic:
                            check(o, i)
                    elif probe == -2:
                        check(o, i)
                    return o[i]
                if to in plain:
                    return o[i]
                if isinstance(o, Tensor):
                    check(o, i)
                return wrap(o[i])
            except Exception as e:
                raise locate(e, line, col, fn) from None
            except Abort as e:
                raise locate(e, line, col, fn)
        return load

    def e_Slice(self, node):
        lo = self.expr(node.lower) if node.lower is not None else None
        hi = self.expr(node.upper) if node.upper is not None else None
        st = self.expr(node.step) if node.step is not None else None

        def make(fr):
            return slice(lo(fr) if lo is not None else None, hi(fr) if hi is not None else None,
                         st(fr) if st is not None else None)
        return make

    def e_BinOp(self, node):
        op = operators.BINARY[type(node.op).__name__]
        left = self.expr(node.left)
        right = self.expr(node.right)
        line, col = _pos(node)
        fn = self.fname
        rt = self.rt
        raw = _TENSOR_BINARY.get(type(node.op).__name__)
        if raw is not None:
            # a tensor with a tensor of its own shape, or with a number: operators' checks have nothing
            # to check (no broadcast, no nesting), so the tensor's own operator method is applied here
            # (Tensor.__mul__ itself: the left operand's exact type is Tensor and the right one's is
            # Tensor, int or float, so Python would call that method and no reflected one)
            raw = Tensor.__dict__.get(_TENSOR_DUNDER[type(node.op).__name__], raw)
            raw = getattr(raw, "__wrapped__", raw)   # the operator without its foreign-operand check: b is
                                                     # a tensor or a number whenever raw is called
            scalars = _SCALARS

            def tensor_binop(fr):
                a = left(fr)
                b = right(fr)
                try:
                    if type(a) is Tensor and (type(b) in scalars or
                                              (type(b) is Tensor and a._data.shape == b._data.shape)):
                        r = raw(a, b)
                        if a._data.size > _LARGE:
                            rt.check_at = rt.rss_next = 0   # a large result (the operand's size): check memory next step
                        return r
                    r = op(a, b)
                    if type(r) is Tensor and r._data.size > _LARGE:
                        rt.check_at = rt.rss_next = 0
                    return r
                except Exception as e:
                    raise locate(e, line, col, fn) from None
                except Abort as e:
                    raise locate(e, line, col, fn)
            return tensor_binop

        def binop(fr):
            a = left(fr)
            b = right(fr)
            try:
                r = op(a, b)
                if type(r) is Tensor and r._data.size > _LARGE:
                    rt.check_at = rt.rss_next = 0   # a large result: check memory at the next step
                return r
            except Exception as e:
                raise locate(e, line, col, fn) from None
            except Abort as e:
                raise locate(e, line, col, fn)
        return binop

    def e_UnaryOp(self, node):
        op = operators.UNARY[type(node.op).__name__]
        operand = self.expr(node.operand)
        line, col = _pos(node)
        fn = self.fname

        def unary(fr):
            v = operand(fr)
            try:
                return op(v)
            except Exception as e:
                raise locate(e, line, col, fn) from None
        return unary

    def e_BoolOp(self, node):
        values = [self.expr(v) for v in node.values]
        if type(node.op) is ast.And:
            def and_(fr):
                v = True
                for c in values:
                    v = c(fr)
                    if not v:
                        return v
                return v
            return and_

        def or_(fr):
            v = False
            for c in values:
                v = c(fr)
                if v:
                    return v
            return v
        return or_

    def e_Compare(self, node):
        left = self.expr(node.left)
        ops = [operators.COMPARE[type(o).__name__] for o in node.ops]
        rights = [self.expr(c) for c in node.comparators]
        line, col = _pos(node)
        fn = self.fname
        if len(ops) == 1:
            op, right = ops[0], rights[0]
            raw = _NUMERIC_COMPARE.get(type(node.ops[0]).__name__, op)
            numbers = _NUMBERS

            def compare(fr):
                a = left(fr)
                b = right(fr)
                try:
                    if type(a) in numbers and type(b) in numbers:
                        return raw(a, b)
                    return op(a, b)
                except Exception as e:
                    raise locate(e, line, col, fn) from None
                except Abort as e:
                    raise locate(e, line, col, fn)
            return compare
        pairs = list(zip(ops, rights))

        def chain(fr):
            a = left(fr)
            r = True
            for op, right in pairs:
                b = right(fr)
                try:
                    r = op(a, b)
                except Exception as e:
                    raise locate(e, line, col, fn) from None
                if not r:
                    return r
                a = b
            return r
        return chain

    def e_IfExp(self, node):
        test = self._truth(node.test)
        body = self.expr(node.body)
        orelse = self.expr(node.orelse)
        return lambda fr: body(fr) if test(fr) else orelse(fr)

    def e_NamedExpr(self, node):
        value = self.expr(node.value)
        store = self.store_name(node.target.id)

        def walrus(fr):
            v = value(fr)
            store(fr, v)
            return v
        return walrus

    def _elements(self, elts):
        """Closures for display elements; starred ones are marked (compiled value, True)."""
        return [(self.expr(e.value), True) if type(e) is ast.Starred else (self.expr(e), False) for e in elts]

    def _build_items(self, parts, node):
        materialize = self.bt.materialize
        rt = self.rt
        line, col = _pos(node)
        fn = self.fname
        if not any(star for _, star in parts):
            closures = [c for c, _ in parts]
            if len(closures) == 1:
                a = closures[0]
                return lambda fr: [a(fr)]
            if len(closures) == 2:
                a, b = closures
                return lambda fr: [a(fr), b(fr)]
            return lambda fr: [c(fr) for c in closures]

        def build(fr):
            out = []
            for c, star in parts:
                v = c(fr)
                if star:
                    items = v if type(v) in (list, tuple) else materialize(v)
                    if len(out) + len(items) > rt.seq_limit:
                        raise locate(_seq_abort(len(out) + len(items), rt.seq_limit), line, col, fn)
                    out.extend(items)
                else:
                    out.append(v)
            return out
        return build

    def e_List(self, node):
        if type(node.ctx) is not ast.Load:
            raise CompileError("list target used as a value", node)
        return self._build_items(self._elements(node.elts), node)

    def e_Tuple(self, node):
        if type(node.ctx) is not ast.Load:
            raise CompileError("tuple target used as a value", node)
        parts = self._elements(node.elts)
        if not any(star for _, star in parts):
            closures = tuple(c for c, _ in parts)
            if len(closures) == 2:
                a, b = closures
                return lambda fr: (a(fr), b(fr))
            return lambda fr: tuple([c(fr) for c in closures])
        build = self._build_items(parts, node)
        return lambda fr: tuple(build(fr))

    def e_Set(self, node):
        build = self._build_items(self._elements(node.elts), node)
        return self._located(lambda fr: set(build(fr)), node)

    def e_Dict(self, node):
        entries = [(self.expr(k) if k is not None else None, self.expr(v)) for k, v in zip(node.keys, node.values)]
        line, col = _pos(node)
        fn = self.fname

        def build(fr):
            out = {}
            try:
                for k, v in entries:
                    if k is None:
                        m = v(fr)
                        if not isinstance(m, dict):
                            raise _P["TypeError"](f"'{type(m).__name__}' object is not a mapping")
                        out.update(m)
                    else:
                        key = k(fr)
                        out[key] = v(fr)
            except Exception as e:
                raise locate(e, line, col, fn) from None
            return out
        return build

    def e_Starred(self, node):
        raise CompileError("can't use starred expression here", node)

    # ------------------------------------------------------------------ calls
    def e_Call(self, node):
        func = node.func
        if type(func) is ast.Name and func.id == "super":
            return self._super_call(node)
        if type(func) is ast.Name and func.id in ("locals", "vars") and not node.args and not node.keywords \
                and self.scope.kind != "module" and self.scope.resolve(func.id)[0] in ("global", "class"):
            return self._locals_call(node)
        return self._call(node)

    def _locals_call(self, node):
        """``locals()`` in a function or class body: a new dict of the scope's bound variables, as
        CPython's snapshot (rtdl's ``transformer_config[arg_name] = locals()[arg_name]``); writing to
        it changes no variable. A global the program names ``locals`` is called instead. At module
        level it stays unavailable (it would be the session's namespace itself). ``vars()`` is the same."""
        g = self.g
        name = node.func.id
        regular = self._call(node)

        def call_locals(fr):
            if name in g or name in fr.vars:
                return regular(fr)
            return dict(fr.vars)
        return call_locals

    def _call(self, node):
        func = node.func
        args = self._elements(node.args)
        kws = [(k.arg, self.expr(k.value)) for k in node.keywords]
        starred = any(star for _, star in args) or any(k is None for k, _ in kws)
        if type(func) is ast.Attribute and not starred and not func.attr.startswith("_"):
            return self._method_call(node, [c for c, _ in args], kws)
        fc = self.expr(func)
        line, col = _pos(node)
        fn = self.fname
        st = state
        host = self.bt.call
        result = self.bt.result
        rt = self.rt
        not_in_place = _NOT_IN_PLACE
        if not starred and not kws:
            closures = [c for c, _ in args]
            n = len(closures)
            # The host branch below is Builtins.call made in place (one Python frame less per call of
            # an engine module or function): what call intercepts (classes, grad modes) goes to it;
            # the rest is timed as call times it, and its result goes through result() unless it is
            # a tensor within the element limit.
            if n == 1:
                a0 = closures[0]

                def call1(fr):
                    f = fc(fr)
                    try:
                        x = a0(fr)
                        st.line = line
                        if type(f) in not_in_place:
                            tf = type(f)
                            if tf is Function:
                                r = f.invoke([x], None)
                            elif tf is BoundMethod:
                                r = f.fn.invoke([f.obj, x], None)
                            else:
                                r = host(f, [x], None)
                        else:
                            r = f(x)
                            if type(r) is not Tensor or r._data.size > rt.elem_limit:
                                r = result(r)
                        st.line = line
                        return r
                    except Exception as e:
                        raise locate(e, line, col, fn) from None
                    except Abort as e:
                        raise locate(e, line, col, fn)
                return call1
            if n == 2:
                a0, a1 = closures

                def call2(fr):
                    f = fc(fr)
                    try:
                        x = a0(fr)
                        y = a1(fr)
                        st.line = line
                        if type(f) in not_in_place:
                            tf = type(f)
                            if tf is Function:
                                r = f.invoke([x, y], None)
                            elif tf is BoundMethod:
                                r = f.fn.invoke([f.obj, x, y], None)
                            else:
                                r = host(f, [x, y], None)
                        else:
                            r = f(x, y)
                            if type(r) is not Tensor or r._data.size > rt.elem_limit:
                                r = result(r)
                        st.line = line
                        return r
                    except Exception as e:
                        raise locate(e, line, col, fn) from None
                    except Abort as e:
                        raise locate(e, line, col, fn)
                return call2

            def calln(fr):
                f = fc(fr)
                try:
                    a = [c(fr) for c in closures]
                    st.line = line
                    tf = type(f)
                    if tf is Function:
                        r = f.invoke(a, None)
                    elif tf is BoundMethod:
                        a.insert(0, f.obj)
                        r = f.fn.invoke(a, None)
                    else:
                        r = host(f, a, None)
                    st.line = line
                    return r
                except Exception as e:
                    raise locate(e, line, col, fn) from None
                except Abort as e:
                    raise locate(e, line, col, fn)
            return calln
        build_args = self._build_items(args, node) if args else (lambda fr: [])

        def call(fr):
            f = fc(fr)
            try:
                a = build_args(fr)
                kw = {}
                for k, c in kws:
                    v = c(fr)
                    if k is None:
                        if not isinstance(v, dict):
                            raise _P["TypeError"](f"argument after ** must be a mapping, not {type(v).__name__}")
                        for key in v:
                            if type(key) is not str:
                                raise _P["TypeError"]("keywords must be strings")
                            if key in kw:
                                raise _P["TypeError"](f"got multiple values for keyword argument '{key}'")
                        kw.update(v)
                    else:
                        if k in kw:
                            raise _P["TypeError"](f"got multiple values for keyword argument '{k}'")
                        kw[k] = v
                st.line = line
                tf = type(f)
                if tf is Function:
                    r = f.invoke(a, kw)
                elif tf is BoundMethod:
                    a.insert(0, f.obj)
                    r = f.fn.invoke(a, kw)
                else:
                    r = host(f, a, kw)
                st.line = line
                return r
            except Exception as e:
                raise locate(e, line, col, fn) from None
            except Abort as e:
                raise locate(e, line, col, fn)
        return call

    def _method_call(self, node, closures, kws):
        """``obj.name(args)``: on a tensor, the method is called directly (the common case
        in model code); on anything else the attribute goes through the gate as usual. Calls
        with two positional arguments or fewer and no keywords take _positional_method_call."""
        func = node.func
        obj = self.expr(func.value)
        attr = func.attr
        line, col = _pos(node)
        fn = self.fname
        st = state
        rt = self.rt
        host = self.bt.call
        result = self.bt.result
        policies = access._POLICIES
        policy_for = access._policy_for
        wrap = rt.wrap
        kw_names = [k for k, _ in kws]
        kw_closures = [c for _, c in kws]
        n = len(closures)
        a0 = closures[0] if n in (1, 2) else None
        a1 = closures[1] if n == 2 else None
        plain = access.tensor_method_is_plain(attr)   # the allowlist grants it with no guard

        def method_call(fr):
            o = obj(fr)
            try:
                if n == 0:
                    a = []
                elif n == 1:
                    a = [a0(fr)]
                elif n == 2:
                    a = [a0(fr), a1(fr)]
                else:
                    a = [c(fr) for c in closures]
                kw = {k: c(fr) for k, c in zip(kw_names, kw_closures)} if kw_names else None
                st.line = line
                if plain and type(o) is Tensor:
                    m = getattr(o, attr)
                    r = m(*a, **kw) if kw else m(*a)
                    st.line = line
                    if type(r) is Tensor:
                        if r._data.size > _LARGE:
                            rt.check_at = rt.rss_next = 0
                            return wrap(r)
                        return r
                    return wrap(r)
                t = type(o)
                if t is ModuleView:   # torch.cat(...): the view's own cache of what its policy granted
                    f = o._cache.get(attr, o)
                    if f is o:
                        f = o.get(attr)
                else:
                    policy = policies.get(t)
                    if policy is None:
                        policy = policy_for(t)
                    f = policy(o, attr)
                tf = type(f)
                if tf is BoundMethod:
                    a.insert(0, f.obj)
                    r = f.fn.invoke(a, kw)
                elif tf is Function:
                    r = f.invoke(a, kw)
                elif tf is type or tf in _GRAD_MODES:
                    r = host(f, a, kw)
                else:   # Builtins.call in place, as in e_Call's call1
                    r = f(*a, **kw) if kw else f(*a)
                    if type(r) is not Tensor or r._data.size > rt.elem_limit:
                        r = result(r)
                st.line = line
                return r
            except Exception as e:
                raise locate(e, line, col, fn) from None
            except Abort as e:
                raise locate(e, line, col, fn)
        if n <= 2 and not kw_names:
            return self._positional_method_call(obj, attr, plain, n, a0, a1, line, col)
        return method_call

    def _positional_method_call(self, obj, attr, plain, n, a0, a1, line, col):
        """``obj.name()``, ``obj.name(x)`` or ``obj.name(x, y)``, positional arguments only (``t.tanh()``,
        ``torch.cat([a, b], 0)``, ``lst.append(x)``): method_call made without an argument list
        where the callee takes plain arguments, and without keywords. The method is looked up
        before the arguments are evaluated, as Python does."""
        fn = self.fname
        st = state
        rt = self.rt
        host = self.bt.call
        result = self.bt.result
        wrap = rt.wrap
        policies = access._POLICIES
        policy_for = access._policy_for
        program = _NOT_IN_PLACE   # called with an argument list
        two, one = n == 2, n == 1

        def positional_call(fr):
            o = obj(fr)
            to = type(o)
            try:
                if to is Tensor and plain:   # a method the allowlist grants on tensors with no guard
                    if two:
                        x = a0(fr)
                        y = a1(fr)
                        st.line = line
                        r = getattr(o, attr)(x, y)
                    elif one:
                        x = a0(fr)
                        st.line = line
                        r = getattr(o, attr)(x)
                    else:
                        st.line = line
                        r = getattr(o, attr)()
                    st.line = line
                    if type(r) is Tensor:
                        if r._data.size > _LARGE:
                            rt.check_at = rt.rss_next = 0
                            return wrap(r)
                        return r
                    return wrap(r)
                if to is ModuleView:   # torch.cat(...): the view's own cache of what its policy granted
                    f = o._cache.get(attr, o)
                    if f is o:
                        f = o.get(attr)
                else:
                    policy = policies.get(to)
                    if policy is None:
                        policy = policy_for(to)
                    f = policy(o, attr)
                tf = type(f)
                if tf in program:
                    a = [a0(fr), a1(fr)] if two else [a0(fr)] if one else []
                    st.line = line
                    if tf is BoundMethod:
                        a.insert(0, f.obj)
                        r = f.fn.invoke(a, None)
                    elif tf is Function:
                        r = f.invoke(a, None)
                    else:
                        r = host(f, a, None)
                    st.line = line
                    return r
                # a host function or method: Builtins.call in place, as in e_Call's call1
                if two:
                    x = a0(fr)
                    y = a1(fr)
                    st.line = line
                    r = f(x, y)
                elif one:
                    x = a0(fr)
                    st.line = line
                    r = f(x)
                else:
                    st.line = line
                    r = f()
                if type(r) is not Tensor or r._data.size > rt.elem_limit:
                    r = result(r)
                st.line = line
                return r
            except Exception as e:
                raise locate(e, line, col, fn) from None
            except Abort as e:
                raise locate(e, line, col, fn)
        return positional_call

    def _super_call(self, node):
        load = self.load_name("super", node.func)
        args = [self.expr(a) for a in node.args]
        if node.keywords or any(type(a) is ast.Starred for a in node.args):
            raise CompileError("super() takes no keyword or starred arguments in programs", node)
        line, col = _pos(node)
        fn = self.fname
        host = self.bt.call

        def super_(fr):
            f = load(fr)
            values = [a(fr) for a in args]
            try:
                if f is not SUPER:
                    return host(f, values, None)
                if not values:
                    cell, func = fr.cls, fr.fn
                    if cell is None or func is None or func.self_name is None or cell[0] is None:
                        raise _P["RuntimeError"]("super(): no arguments")
                    obj = fr.vars.get(func.self_name, _MISSING)
                    if obj is _MISSING:
                        raise _P["RuntimeError"]("super(): arg[0] deleted")
                    return super(cell[0], obj)
                if len(values) != 2:
                    raise _P["TypeError"]("super() takes a class and an object in programs")
                cls, obj = values
                if not (isinstance(cls, type) and access.is_program_class(cls)):
                    raise _P["TypeError"]("super() argument 1 must be a class the program defined")
                return super(cls, obj)
            except Exception as e:
                raise locate(e, line, col, fn) from None
        return super_

    # ------------------------------------------------------------------ strings
    def e_JoinedStr(self, node):
        parts = [self.expr(v) if type(v) is not ast.Constant else (lambda fr, s=v.value: s) for v in node.values]
        rt = self.rt
        line, col = _pos(node)
        fn = self.fname

        def fstring(fr):
            s = "".join([p(fr) for p in parts])
            if len(s) > rt.str_limit:
                raise locate(_str_abort(len(s), rt.str_limit), line, col, fn)
            return s
        return fstring

    def e_FormattedValue(self, node):
        value = self.expr(node.value)
        spec = self.expr(node.format_spec) if node.format_spec is not None else None
        conversion = node.conversion
        rt = self.rt
        line, col = _pos(node)
        fn = self.fname

        def formatted(fr):
            v = value(fr)
            try:
                s = spec(fr) if spec is not None else ""
                tv = type(v)
                if tv is str or tv is float or tv is int:
                    if conversion == 114:
                        v = repr(v)
                    elif conversion == 97:
                        v = ascii(v)
                elif conversion == 97:
                    v = text(v, True, rt.str_limit).encode("ascii", "backslashreplace").decode("ascii")
                elif conversion == 114:
                    v = text(v, True, rt.str_limit)
                elif conversion == 115 or not s:
                    v = text(v, False, rt.str_limit)   # the interpreter's printing, counted as it grows
                else:
                    repr_size_check(v, rt.str_limit)
                if s:
                    guards.check_format_spec(s, rt.str_limit)
                return format(v, s)
            except Exception as e:
                raise locate(e, line, col, fn) from None
            except Abort as e:
                raise locate(e, line, col, fn)
        return formatted

    # ------------------------------------------------------------------ comprehensions
    def _comprehension(self, node, kind):
        scope = self.scopes[node]
        gens = node.generators
        for g in gens:
            if g.is_async:
                raise CompileError("async comprehensions are not supported in programs", node)
        first = self.expr(gens[0].iter)
        outer_is_function = self.scope.is_function()
        saved = self.scope
        self.scope = scope
        try:
            levels = []
            for i, g in enumerate(gens):
                levels.append((self.expr(g.iter) if i else None, self.target(g.target),
                               [self._truth(c) for c in g.ifs]))
            if kind == "dict":
                key, val = self.expr(node.key), self.expr(node.value)
            else:
                elt = self.expr(node.elt)
        finally:
            self.scope = saved
        rt = self.rt
        iterate = self.bt.iterate
        line, col = _pos(node)
        fn = self.fname

        def frame_for(fr):
            return Frame({}, fr.cells + (fr.vars,) if outer_is_function else fr.cells, fr.fn, fr.cls)

        if kind == "gen":
            def gen_level(k, cfr, items):
                it_c, store, conds = levels[k]
                last = k == len(levels) - 1
                for item in items:
                    store(cfr, item)
                    if conds and not all(c(cfr) for c in conds):
                        continue
                    if last:
                        yield elt(cfr)
                    else:
                        yield from gen_level(k + 1, cfr, iterate(levels[k + 1][0](cfr)))

            def genexp(fr):
                items = iterate(first(fr))
                return ProgramIterator(gen_level(0, frame_for(fr), items), rt)
            return genexp

        if kind == "list":
            def emit(cfr, acc):
                acc.append(elt(cfr))
                if len(acc) > rt.seq_limit:
                    raise locate(_seq_abort(len(acc), rt.seq_limit), line, col, fn)
        elif kind == "set":
            def emit(cfr, acc):
                acc.add(elt(cfr))
        else:
            def emit(cfr, acc):
                k = key(cfr)
                acc[k] = val(cfr)

        def level(k, cfr, items, acc):
            it_c, store, conds = levels[k]
            last = k == len(levels) - 1
            for item in items:
                rt.steps += 1
                if rt.steps >= rt.check_at:
                    rt.check()
                store(cfr, item)
                if conds:
                    ok = True
                    for c in conds:
                        if not c(cfr):
                            ok = False
                            break
                    if not ok:
                        continue
                if last:
                    emit(cfr, acc)
                else:
                    level(k + 1, cfr, iterate(levels[k + 1][0](cfr)), acc)

        factory = {"list": list, "set": set, "dict": dict}[kind]

        def comprehension(fr):
            items = iterate(first(fr))
            acc = factory()
            try:
                level(0, frame_for(fr), items, acc)
            except Exception as e:
                raise locate(e, line, col, fn) from None
            return acc
        return comprehension

    def e_ListComp(self, node):
        return self._comprehension(node, "list")

    def e_SetComp(self, node):
        return self._comprehension(node, "set")

    def e_DictComp(self, node):
        return self._comprehension(node, "dict")

    def e_GeneratorExp(self, node):
        return self._comprehension(node, "gen")


# --------------------------------------------------------------------------- helpers
def _delitem(obj, index):
    del obj[index]


def _valid_except(cls):
    if isinstance(cls, tuple):
        return all(_valid_except(c) for c in cls)
    return isinstance(cls, type) and issubclass(cls, ProgramBaseException)


def _context_methods(mgr):
    t = type(mgr)
    if not (access.is_program_class(t) or access.type_info(t).allowed):
        raise _P["TypeError"](f"'{t.__name__}' object does not support the context manager protocol")
    enter = getattr(t, "__enter__", None)
    exit_ = getattr(t, "__exit__", None)
    if enter is None or exit_ is None:
        raise _P["TypeError"](f"'{t.__name__}' object does not support the context manager protocol")
    return enter, exit_


def _check_base(b):
    if not isinstance(b, type):
        raise _P["TypeError"]("a class can only derive from classes")
    if b is object or access.is_program_class(b) or issubclass(b, ProgramBaseException):
        return
    if access.settable_engine_class(b):
        return
    raise _P["TypeError"](f"programs can define classes deriving from nn.Module, an optimizer, an exception "
                          f"class, object or their own classes, not {b.__name__}")


def _check_metaclass(m):
    # abc.ABCMeta, the one metaclass real scripts name (torchdiffeq's solvers): program-side, it computes a
    # class's abstract methods; any other would make the host build classes the program's way
    from .stdlib.abc import ABCMeta
    if m is not ABCMeta:
        what = m.__name__ if isinstance(m, type) else f"a {type(m).__name__} object"
        raise _P["TypeError"](f"a program class's metaclass can only be abc.ABCMeta, not {what}")
    return m


def _seq_abort(n, limit):
    from .errors import limit_abort
    return limit_abort("sequence_length", f"limit exceeded: sequence_length: a list of {n} items (at most {limit})")


def _str_abort(n, limit):
    from .errors import limit_abort
    return limit_abort("string_length", f"limit exceeded: string_length: a string of {n} characters "
                                        f"(at most {limit})")


# (node type, method name) of the compiler's statement (s_) and expression (e_) handlers, found once:
# dir() of the class at every compile was a tenth of compiling a notebook cell
_HANDLERS = {prefix: tuple((getattr(ast, name[2:]), name) for name in dir(Compiler) if name.startswith(prefix))
             for prefix in ("s_", "e_")}
