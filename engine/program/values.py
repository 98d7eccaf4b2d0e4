"""The interpreter's own runtime objects: frames, functions, bound methods, iterators.

A function a program defines is a ``Function``: it holds the compiled body (a
tuple of closures), its defaults and the scopes it closes over, and nothing of
the host's (no ``__globals__``, no ``__code__``). Host code may call it (the
engine calls ``forward`` through ``Module.__call__``, hooks during backward):
``__call__`` converts what host code passes in before the body sees it.
"""
from .errors import Abort, PROGRAM_EXCEPTIONS, meta

__all__ = ["Frame", "Function", "BoundMethod", "ProgramIterator", "BREAK", "CONTINUE", "RETURN"]

# What a statement returns to the block running it: None to go on, or one of these.
BREAK = 1
CONTINUE = 2
RETURN = 3


class Frame:
    """One activation: its variables, the enclosing functions' variables it closes
    over (outermost first), the function running and the class being defined."""
    __slots__ = ("vars", "cells", "fn", "ret", "cls")

    def __init__(self, vars, cells=(), fn=None, cls=None):
        self.vars = vars
        self.cells = cells
        self.fn = fn
        self.ret = None
        self.cls = cls


class Function:
    """A function defined by the program (``def`` or ``lambda``)."""
    __slots__ = ("name", "rt", "pos", "n_pos", "n_required", "defaults", "vararg", "kwonly",
                 "kwdefaults", "kwarg", "simple", "body", "cells", "cls", "line", "self_name",
                 "__weakref__")

    def __init__(self, rt, name, spec, defaults, kwdefaults, body, cells, cls, line):
        self.rt = rt
        self.name = name
        pos, vararg, kwonly, kwarg = spec
        self.pos = pos
        self.n_pos = len(pos)
        self.defaults = defaults
        self.n_required = len(pos) - len(defaults)
        self.vararg = vararg
        self.kwonly = kwonly
        self.kwdefaults = kwdefaults
        self.kwarg = kwarg
        self.simple = vararg is None and not kwonly and kwarg is None
        self.body = body
        self.cells = cells
        self.cls = cls          # [class] of the class body it was defined in, for super()
        self.line = line
        self.self_name = pos[0] if pos else None

    # ------------------------------------------------------------------ calling
    def invoke(self, args, kwargs):
        """Runs the function on program values (the interpreter's own call path)."""
        rt = self.rt
        rt.steps += 1
        if rt.steps >= rt.check_at:
            rt.check()
        if rt.depth >= rt.max_depth:
            raise rt.depth_abort()
        if kwargs or not self.simple or len(args) != self.n_pos:
            local = self.bind(args, kwargs)
        else:
            local = dict(zip(self.pos, args))
        frame = Frame(local, self.cells, self, self.cls)
        rt.depth += 1
        try:
            body = self.body
            if type(body) is tuple:
                for stmt in body:
                    if stmt(frame) is not None:
                        return frame.ret
                return None
            return body(frame)  # a lambda's expression
        except (PROGRAM_BASE, Abort) as e:
            meta(e).site = True
            raise
        finally:
            rt.depth -= 1

    def __call__(self, *args, **kwargs):
        # host code calling program code: only during this session's run, on program values
        rt = self.rt
        if not rt.active:
            raise RuntimeError("program code can only run while its session runs a program")
        wrap = rt.wrap
        r = self.invoke([wrap(a) for a in args], {k: wrap(v) for k, v in kwargs.items()})
        if rt.text_budget is not None and self.name in _TEXT_DUNDERS:
            rt.count_text(r)
        return r

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        return BoundMethod(self, obj)

    def bind(self, args, kwargs):
        """Python's argument binding, with Python's error messages."""
        name = self.name
        pos = self.pos
        n_pos = self.n_pos
        local = {}
        n = len(args)
        if n > n_pos:
            if self.vararg is None:
                given = n
                raise PROGRAM_EXCEPTIONS["TypeError"](
                    f"{name}() takes {n_pos} positional argument{'s' if n_pos != 1 else ''} but "
                    f"{given} {'were' if given != 1 else 'was'} given")
            local[self.vararg] = tuple(args[n_pos:])
            args = args[:n_pos]
            n = n_pos
        elif self.vararg is not None:
            local[self.vararg] = ()
        for i in range(n):
            local[pos[i]] = args[i]
        extra = None
        if kwargs:
            kwonly = self.kwonly
            for key, value in kwargs.items():
                if key in local and key != self.vararg:
                    raise PROGRAM_EXCEPTIONS["TypeError"](f"{name}() got multiple values for argument '{key}'")
                if key in pos or key in kwonly:
                    local[key] = value
                elif self.kwarg is not None:
                    if extra is None:
                        extra = {}
                    extra[key] = value
                else:
                    raise PROGRAM_EXCEPTIONS["TypeError"](f"{name}() got an unexpected keyword argument '{key}'")
        missing = []
        first_default = self.n_required
        for i in range(n, n_pos):
            p = pos[i]
            if p not in local:
                if i >= first_default:
                    local[p] = self.defaults[i - first_default]
                else:
                    missing.append(p)
        if missing:
            quoted = [repr(m) for m in missing]
            if len(quoted) == 1:
                names = quoted[0]
            elif len(quoted) == 2:
                names = f"{quoted[0]} and {quoted[1]}"
            else:
                names = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
            raise PROGRAM_EXCEPTIONS["TypeError"](
                f"{name}() missing {len(missing)} required positional argument{'s' if len(missing) != 1 else ''}: "
                f"{names}")
        for k in self.kwonly:
            if k not in local:
                if k in self.kwdefaults:
                    local[k] = self.kwdefaults[k]
                else:
                    raise PROGRAM_EXCEPTIONS["TypeError"](f"{name}() missing 1 required keyword-only argument: '{k}'")
        if self.kwarg is not None:
            local[self.kwarg] = extra if extra is not None else {}
        return local

    def __repr__(self):
        return f"<function {self.name}>"


PROGRAM_BASE = PROGRAM_EXCEPTIONS["BaseException"]
_TEXT_DUNDERS = frozenset(("__repr__", "__str__"))


class BoundMethod:
    """A program function bound to an object (what ``obj.method`` gives)."""
    __slots__ = ("fn", "obj")

    def __init__(self, fn, obj):
        self.fn = fn
        self.obj = obj

    def __call__(self, *args, **kwargs):
        rt = self.fn.rt
        if not rt.active:
            raise RuntimeError("program code can only run while its session runs a program")
        wrap = rt.wrap
        r = self.fn.invoke([self.obj] + [wrap(a) for a in args], {k: wrap(v) for k, v in kwargs.items()})
        if rt.text_budget is not None and self.fn.name in _TEXT_DUNDERS:
            rt.count_text(r)
        return r

    def __eq__(self, other):
        return type(other) is BoundMethod and other.fn is self.fn and other.obj is self.obj

    def __hash__(self):
        return hash((id(self.fn), id(self.obj)))

    def __repr__(self):
        return f"<bound method {self.fn.name}>"


class ProgramIterator:
    """An iterator handed to a program (generator expressions, map, zip, iter(...)):
    each item costs a step, and items coming from host iterators are checked."""
    __slots__ = ("it", "rt", "wrap")

    def __init__(self, it, rt, wrap=False):
        self.it = it
        self.rt = rt
        self.wrap = wrap

    def __iter__(self):
        return self

    def __next__(self):
        rt = self.rt
        rt.steps += 1
        if rt.steps >= rt.check_at:
            rt.check()
        v = next(self.it)
        return rt.wrap(v) if self.wrap else v

    def __repr__(self):
        return "<iterator>"
