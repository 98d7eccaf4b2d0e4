"""The builtins programs see (SPEC section 2), as the interpreter's own functions.

Those that loop over a program's data (``sum``, ``sorted``, ``list``, ``min``,
``any``, ``map``, ``zip``, ...) loop here, in Python, one step per element, so
``sum(range(10**12))`` meets the step limit instead of running in C for hours.
``str``/``repr``/``print`` estimate the size of what they would build first.
``getattr``/``hasattr``/``setattr`` go through the attribute gate.
"""
import math
import operator
from collections import OrderedDict

from ..autograd.state import state
from ..tensor import Tensor
from . import access, decorators, guards, operators
from .errors import PROGRAM_EXCEPTIONS, ProgramBaseException, exception_args, limit_abort, without_addresses
from .generators import ProgramGenerator
from .stdlib.typing import abc_class
from .values import BoundMethod, Function, ProgramIterator

__all__ = ["Builtins", "make_builtins", "materialize", "repr_size_check", "text", "program_text", "SUPER",
           "UNAVAILABLE"]

_TypeError = PROGRAM_EXCEPTIONS["TypeError"]
_VIEWS = (type({}.keys()), type({}.values()), type({}.items()), type(OrderedDict().keys()),
          type(OrderedDict().values()), type(OrderedDict().items()))
_SIZED = (list, tuple, str, dict, set, frozenset, range) + _VIEWS
_PLAIN_ITER = frozenset((list, tuple, str, dict, set, frozenset, range, ProgramIterator, ProgramGenerator) + _VIEWS)
_current = None   # the running session's Builtins (for helpers called from operators)

# names Python has that programs do not, with a clearer NameError
UNAVAILABLE = frozenset(("eval", "exec", "compile", "open", "__import__", "globals", "locals", "dir",
                         "input", "help", "memoryview", "bytearray", "__builtins__", "classmethod_descriptor", "copyright",
                         "credits", "license"))


def _estimate_repr(v, limit):
    """About how many characters ``repr(v)`` would have (tensors by their print options),
    and whether program code would make part of it (a program object inside a container, or
    an exception): then the interpreter builds the text itself (``program_text``). Stops once
    past ``limit`` (a structure sharing its parts can be exponentially long); a container
    inside itself prints as ``[...]``, as Python."""
    total = 0
    program = False
    path = set()            # ids of the containers being walked (a cycle back to one is [...])
    stack = [(None, iter((v,)))]
    top = True
    while stack:
        if total > limit:
            return total, program
        owner, it = stack[-1]
        x = next(it, _END)
        if x is _END:
            stack.pop()
            path.discard(owner)
            continue
        t = type(x)
        if t is str:
            total += len(x) + 2
        elif t is int:
            total += 1 + (x.bit_length() * 3) // 10
        elif t in (float, bool, type(None)):
            total += 3
        elif isinstance(x, Tensor):
            total += _tensor_repr_size(x)
        elif t in (list, tuple, set, frozenset, dict) or isinstance(x, (dict, ProgramBaseException)):
            if id(x) in path:
                total += 5
            else:
                path.add(id(x))
                if isinstance(x, dict):
                    total += 2 + 4 * len(x)
                    stack.append((id(x), (y for kv in x.items() for y in kv)))
                elif isinstance(x, ProgramBaseException):
                    total += 32
                    program = True
                    stack.append((id(x), iter(exception_args(x))))
                else:
                    total += 2 + 2 * len(x)
                    stack.append((id(x), iter(x)))
        else:
            total += 32
            if not top and access.is_program_class(t):
                program = True
        top = False
    return total, program


_END = object()


def _tensor_repr_size(t):
    opts = state.print_options
    shape = t._data.shape
    n = t._data.size
    precision = getattr(opts, "precision", 4) or 4
    threshold = getattr(opts, "threshold", 1000)
    edge = getattr(opts, "edgeitems", 3) or 3
    if threshold is not None and n > threshold:
        n = 1
        for d in shape:
            n *= min(d, 2 * edge + 1)
    return 16 + n * (int(min(precision, 10 ** 9)) + 2)


def repr_size_check(v, limit):
    """Raises LimitExceeded when printing ``v`` would build more than ``limit`` characters;
    returns whether program code makes part of the text (see ``program_text``)."""
    if type(v) in (int, float, bool, type(None)):
        return False
    if type(v) is str:
        return False
    size, program = _estimate_repr(v, limit)
    if size > limit:
        raise limit_abort("string_length", f"limit exceeded: string_length: printing this value would build "
                                           f"about {size} characters (at most {limit})")
    return program


def text(v, as_repr, limit):
    """``repr(v)`` or ``str(v)`` for a program: the host's own when only host values make it,
    else built by ``program_text``. What program ``__repr__``/``__str__`` methods return to the
    host's printing (an engine module holding program submodules) is counted as it comes."""
    if repr_size_check(v, limit):
        s = program_text(v, as_repr, limit)
    else:
        rt = _current.rt if _current is not None else None
        if rt is None or rt.text_budget is not None:
            s = repr(v) if as_repr else str(v)
        else:
            rt.text_budget = limit
            try:
                s = repr(v) if as_repr else str(v)
            finally:
                rt.text_budget = None
    guards.check_length(len(s), limit, "string")
    return without_addresses(s)


def program_text(v, as_repr, limit):
    """``repr(v)``/``str(v)`` built by the interpreter: containers and exceptions are walked
    here, and what each part adds (a program's ``__repr__`` is program code, run through the
    interpreter) is counted against ``limit`` as the text grows, so a thousand objects each
    returning a long string fail at the limit instead of building it."""
    out = []
    total = 0
    active = set()   # containers being printed: a cycle prints as [...], as Python

    def emit(piece):
        nonlocal total
        total += len(piece)
        if total > limit:
            raise limit_abort("string_length", f"limit exceeded: string_length: printing this value would "
                                               f"build more than {limit} characters")
        out.append(piece)

    def items(x, opening, closing, depth, empty=None):
        if not x and empty is not None:
            emit(empty)
            return
        if id(x) in active:
            emit(opening + "..." + closing)
            return
        active.add(id(x))
        emit(opening)
        first = True
        if isinstance(x, dict):
            for k, val in x.items():
                if not first:
                    emit(", ")
                first = False
                walk(k, True, depth + 1)
                emit(": ")
                walk(val, True, depth + 1)
        else:
            for item in x:
                if not first:
                    emit(", ")
                first = False
                walk(item, True, depth + 1)
            if type(x) is tuple and len(x) == 1:
                emit(",")
        emit(closing)
        active.discard(id(x))

    def walk(x, as_repr, depth):
        if depth > 500:
            raise limit_abort("call_depth", "limit exceeded: call_depth: the value nests too deeply to print")
        t = type(x)
        if t is list:
            items(x, "[", "]", depth)
        elif t is tuple:
            items(x, "(", ")", depth)
        elif t is dict:
            items(x, "{", "}", depth)
        elif t is set:
            items(x, "{", "}", depth, "set()")
        elif t is frozenset:
            if not x:
                emit("frozenset()")
            else:
                emit("frozenset(")
                items(x, "{", "}", depth)
                emit(")")
        elif isinstance(x, ProgramBaseException) and not _defines_text(t, as_repr):
            args = exception_args(x)
            if as_repr:
                emit(type.__dict__["__name__"].__get__(t))
                items(args, "(", ")", depth)
                if len(args) == 1:
                    out.pop(-2)   # Python's repr has no trailing comma: ValueError('x')
            elif not args:
                emit("")
            elif len(args) == 1:
                if issubclass(t, PROGRAM_EXCEPTIONS["KeyError"]):
                    walk(args[0], True, depth + 1)
                else:
                    walk(args[0], False, depth + 1)
            else:
                items(args, "(", ")", depth)
        else:
            s = repr(x) if as_repr else str(x)   # a program object's own __repr__ runs as program code
            if type(s) is not str:
                raise _TypeError(f"__{'repr' if as_repr else 'str'}__ returned non-string")
            emit(s)

    walk(v, as_repr, 0)
    return "".join(out)


def _defines_text(cls, as_repr):
    """Whether a program class defines its own __repr__ (or __str__) method."""
    names = ("__repr__",) if as_repr else ("__str__", "__repr__")
    for k in cls.__mro__:
        d = k.__dict__
        if "__gs_program__" not in d:
            return False
        for n in names:
            if n in d:
                return True
    return False


def materialize(iterable):
    """A list of ``iterable``'s items, one step each (the interpreter's own loop)."""
    return _current.materialize(iterable)


# log() events go to every watcher: names are bounded as the values are (runtime cuts a string value to 1000
# characters), so one event stays small however a program builds its metrics
MAX_LOG_METRICS = 64
MAX_LOG_NAME = 256


def _current_builtins():
    return _current


class Builtins:
    """One session's builtins: functions closed over its runtime."""

    def __init__(self, rt, views):
        self.rt = rt
        self.views = views
        self.table = self._table()
        self.intercept = {list: self.b_list, tuple: self.b_tuple, set: self.b_set, frozenset: self.b_frozenset,
                          dict: self.b_dict, str: self.b_str, bytes: self.b_bytes, Tensor: _tensor_class,
                          int: self.b_int, type: _b_type}
        self.intercept.update(_grad_mode_intercepts())
        self.id_key = None

    def activate(self):
        global _current
        _current = self

    # ------------------------------------------------------------------ calling
    def call(self, f, args, kwargs):
        """Calls any callable a program holds with program values."""
        tf = type(f)
        if tf is Function:
            return f.invoke(args, kwargs)
        if tf is BoundMethod:
            return f.fn.invoke([f.obj, *args], kwargs)
        if tf is type:
            impl = self.intercept.get(f)
            if impl is not None:
                return impl(*args, **kwargs) if kwargs else impl(*args)
        elif tf in _GRAD_MODES and len(args) == 1 and not kwargs and type(args[0]) in (Function, BoundMethod):
            return decorators.grad_mode_function(f, args[0])
        r = f(*args, **kwargs) if kwargs else f(*args)
        return self.result(r)

    def result(self, r):
        """What a host call returned, as the program gets it: a tensor within the element limit,
        a string within the string limit, anything else through the gate (``access.wrap``)."""
        tr = type(r)
        if tr is Tensor:
            limit = self.rt.elem_limit
            if limit is not None and r._data.size > limit:
                raise self.rt.elements_abort(r)
            return r
        if tr in _FAST_RESULT:
            if tr is str and len(r) > self.rt.str_limit:
                guards.check_length(len(r), self.rt.str_limit, "string")
            return r
        return access.wrap(r, self.rt)

    def step(self, n=1):
        rt = self.rt
        rt.steps += n
        if rt.steps >= rt.check_at:
            rt.check()

    def iterate(self, value):
        """``iter(value)`` for a program: host iterators' items are checked."""
        it = iter(value)
        if type(value) in _PLAIN_ITER or type(value) is Tensor:
            return it
        if type(it) is ProgramIterator:
            return it
        return ProgramIterator(it, self.rt, True)

    def materialize(self, iterable):
        t = type(iterable)
        rt = self.rt
        if t in _SIZED:
            n = len(iterable)
            guards.check_length(n, rt.seq_limit, "list")
            self.step(n)
            return list(iterable)
        out = []
        limit = rt.seq_limit
        for x in self.iterate(iterable):
            rt.steps += 1
            if rt.steps >= rt.check_at:
                rt.check()
            out.append(x)
            if len(out) > limit:
                guards.check_length(len(out), limit, "list")
        return out

    # ------------------------------------------------------------------ the table
    def _table(self):
        t = {}
        for name in ("range", "len", "abs", "round", "int", "float", "bool", "isinstance", "issubclass",
                     "callable", "chr", "ord", "divmod", "hex", "oct", "bin", "hash", "slice", "object",
                     "staticmethod", "classmethod", "property", "complex", "type"):
            t[name] = _HOST[name]
        for name in ("list", "tuple", "dict", "set", "frozenset", "str", "bytes"):
            t[name] = _HOST[name]
        t.update(
            print=self.b_print, log=self.b_log, breakpoint=self.b_breakpoint, sum=self.b_sum, min=self.b_min, max=self.b_max,
            sorted=self.b_sorted, reversed=self.b_reversed, enumerate=self.b_enumerate, zip=self.b_zip,
            map=self.b_map, filter=self.b_filter, any=self.b_any, all=self.b_all, iter=self.b_iter,
            next=self.b_next, getattr=self.b_getattr, hasattr=self.b_hasattr, setattr=self.b_setattr,
            repr=self.b_repr, format=self.b_format, pow=self.b_pow, ascii=self.b_ascii, id=self.b_id,
            delattr=self.b_delattr, vars=self.b_vars, exit=b_exit, quit=b_exit,
            IOError=PROGRAM_EXCEPTIONS["OSError"], __name__="__main__",
            EnvironmentError=PROGRAM_EXCEPTIONS["OSError"],
            super=SUPER, NotImplemented=NotImplemented, Ellipsis=Ellipsis,
        )
        for name, cls in PROGRAM_EXCEPTIONS.items():
            t[name] = cls
        views = self.views
        t.update(torch=views["torch"], nn=views["torch.nn"], F=views["torch.nn.functional"],
                 optim=views["torch.optim"], math=views["math"])
        return t

    # ------------------------------------------------------------------ conversions
    def b_str(self, *args, **kwargs):
        if not args and not kwargs:
            return ""
        if kwargs or len(args) > 1:
            return _host_str_decode(*args, **kwargs)
        v = args[0]
        if type(v) is str:
            return v
        return text(v, False, self.rt.str_limit)

    def b_repr(self, v):
        return text(v, True, self.rt.str_limit)

    def b_format(self, value, spec=""):
        if type(spec) is not str:
            raise _TypeError("format() argument 2 must be str")
        guards.check_format_spec(spec, self.rt.str_limit)
        if repr_size_check(value, self.rt.str_limit):
            value = program_text(value, False, self.rt.str_limit)
        # (an object without __format__ formats as its str(): Python's default repr, whose host address
        # and the interpreter's names for builtins are taken out as everywhere a program reads a repr)
        return without_addresses(format(value, spec))

    def b_ascii(self, v):
        if repr_size_check(v, self.rt.str_limit):
            text_ = program_text(v, True, self.rt.str_limit)
            s = text_.encode("ascii", "backslashreplace").decode("ascii")
        else:
            s = ascii(v)
        guards.check_length(len(s), self.rt.str_limit, "string")
        return s

    def b_int(self, *args, **kwargs):
        """``int(x)``, ``int(s, base)``: a string in a power-of-two base (which Python does not
        limit) is checked against the integer-size cap first."""
        if args and type(args[0]) in (str, bytes):
            base = args[1] if len(args) > 1 else kwargs.get("base", 10)
            if base in (0, 2, 4, 8, 16, 32):
                digits = len(args[0])
                bits = digits * (5 if base == 32 else 4 if base in (0, 16) else {2: 1, 4: 2, 8: 3}[base])
                if bits > guards.MAX_INT_BITS + 64:
                    raise guards.abort_int(bits)
        return int(*args, **kwargs)

    def b_id(self, obj):
        """``id(obj)``: unique and constant for the object's lifetime, as Python's, but not its
        host memory address (a keyed hash of it, the key the session's own)."""
        if self.id_key is None:
            import os
            self.id_key = os.urandom(16)
        import hashlib
        digest = hashlib.blake2b(id(obj).to_bytes(8, "little"), key=self.id_key, digest_size=6).digest()
        return int.from_bytes(digest, "little")

    def b_delattr(self, obj, name):
        if type(name) is not str:
            raise _TypeError(f"attribute name must be string, not '{type(name).__name__}'")
        if not name:
            raise PROGRAM_EXCEPTIONS["AttributeError"]("attribute name must not be empty")
        access.del_attr(obj, name)

    def b_bytes(self, *args, **kwargs):
        if args and type(args[0]) is int:
            guards.check_length(args[0], self.rt.str_limit, "string")
        elif args and not isinstance(args[0], (str, bytes)):
            return bytes(self.materialize(args[0]))
        return bytes(*args, **kwargs)

    def b_list(self, iterable=()):
        return self.materialize(iterable)

    def b_tuple(self, iterable=()):
        if type(iterable) is tuple:
            return iterable
        return tuple(self.materialize(iterable))

    def b_set(self, iterable=()):
        return set(self.materialize(iterable))

    def b_frozenset(self, iterable=()):
        return frozenset(self.materialize(iterable))

    def b_dict(self, *args, **kwargs):
        if len(args) > 1:
            raise _TypeError(f"dict expected at most 1 argument, got {len(args)}")
        out = {}
        if args:
            src = args[0]
            if isinstance(src, dict):
                self.step(len(src))
                out.update(src)
            else:
                for item in self.materialize(src):
                    pair = self.materialize(item) if type(item) not in (tuple, list) else item
                    if len(pair) != 2:
                        raise PROGRAM_EXCEPTIONS["ValueError"](
                            f"dictionary update sequence element has length {len(pair)}; 2 is required")
                    out[pair[0]] = pair[1]
        out.update(kwargs)
        return out

    # ------------------------------------------------------------------ output
    def b_print(self, *args, sep=" ", end="\n", file=None, flush=False):
        if file is not None:
            from .stdlib.sys import _Stream
            if type(file) is not _Stream:   # sys.stdout / sys.stderr: the program's output; no files
                raise _TypeError("print(file=...) is not available in programs, except sys.stdout and sys.stderr")
        if sep is None:
            sep = " "
        if end is None:
            end = "\n"
        if type(sep) is not str or type(end) is not str:
            raise _TypeError("sep and end must be None or a string")
        rt = self.rt
        pieces = [self.b_str(a) for a in args]
        total = sum(len(p) for p in pieces) + len(sep) * max(len(pieces) - 1, 0) + len(end)
        guards.check_length(total, rt.str_limit, "string")
        rt.write(sep.join(pieces) + end)

    def b_breakpoint(self, *args, **kwargs):
        """Pauses a debug run here (SPEC section 4); does nothing in other runs, as with
        PYTHONBREAKPOINT=0."""
        d = self.rt.debugger
        if d is not None:
            d.breakpoint_call()

    def b_log(self, *args, **metrics):
        if args:
            if len(args) == 1 and isinstance(args[0], dict):
                merged = dict(args[0])
                merged.update(metrics)
                metrics = merged
            else:
                raise _TypeError("log() takes keyword arguments: log(step=i, loss=loss)")
        if len(metrics) > MAX_LOG_METRICS:
            raise PROGRAM_EXCEPTIONS["ValueError"](f"log() takes at most {MAX_LOG_METRICS} metrics in one call, "
                                                   f"not {len(metrics)}")
        for key in metrics:
            if type(key) is not str:
                raise _TypeError("log() metric names must be strings")
            if len(key) > MAX_LOG_NAME:  # (values are cut to 1000 characters; a name is the event's own size)
                raise PROGRAM_EXCEPTIONS["ValueError"](f"log() metric names are at most {MAX_LOG_NAME} characters, "
                                                       f"not {len(key)}")
        self.rt.log(metrics)

    # ------------------------------------------------------------------ loops over data
    def b_sum(self, iterable, start=0):
        if type(start) is str:
            raise _TypeError("sum() can't sum strings [use ''.join(seq) instead]")
        acc = start
        add = operators.add
        rt = self.rt
        for x in self.iterate(iterable):
            rt.steps += 1
            if rt.steps >= rt.check_at:
                rt.check()
            acc = add(acc, x)
        return acc

    def _extreme(self, name, better, args, key, default):
        if len(args) == 1:
            items = self.iterate(args[0])
        elif len(args) == 0:
            raise _TypeError(f"{name} expected at least 1 argument, got 0")
        else:
            if default is not _NO_DEFAULT:
                raise _TypeError(f"Cannot specify a default for {name}() with multiple positional arguments")
            items = iter(args)
        rt = self.rt
        best = _NO_DEFAULT
        best_key = None
        call = self.call
        for x in items:
            rt.steps += 1
            if rt.steps >= rt.check_at:
                rt.check()
            k = x if key is None else call(key, [x], {})
            if best is _NO_DEFAULT or better(k, best_key):
                best, best_key = x, k
        if best is _NO_DEFAULT:
            if default is not _NO_DEFAULT:
                return default
            raise PROGRAM_EXCEPTIONS["ValueError"](f"{name}() arg is an empty sequence")
        return best

    def b_min(self, *args, key=None, **kw):
        return self._extreme("min", _lt, args, key, _default_kw("min", kw))

    def b_max(self, *args, key=None, **kw):
        return self._extreme("max", _gt, args, key, _default_kw("max", kw))

    def b_sorted(self, iterable, *, key=None, reverse=False):
        items = self.materialize(iterable)
        self._sort(items, key, reverse)
        return items

    def _sort(self, items, key, reverse):
        n = len(items)
        if n > 1:
            self.step(int(n * math.log2(n)) // 8 + n)
        if key is None:
            items.sort(reverse=bool(reverse))
        else:
            call = self.call
            items.sort(key=lambda x: call(key, [x], {}), reverse=bool(reverse))

    def b_reversed(self, seq):
        if type(seq) in (list, tuple, str, range):
            return ProgramIterator(reversed(seq), self.rt)
        if isinstance(seq, dict):
            return ProgramIterator(reversed(list(seq)), self.rt)
        return ProgramIterator(reversed(seq), self.rt, True)

    def b_enumerate(self, iterable, start=0):
        return ProgramIterator(enumerate(self.iterate(iterable), start), self.rt)

    def b_zip(self, *iterables, strict=False):
        return ProgramIterator(zip(*[self.iterate(i) for i in iterables], strict=bool(strict)), self.rt)

    def b_map(self, fn, *iterables):
        if not iterables:
            raise _TypeError("map() must have at least two arguments.")
        call = self.call
        return ProgramIterator(map(lambda *a: call(fn, list(a), {}), *[self.iterate(i) for i in iterables]),
                               self.rt)

    def b_filter(self, fn, iterable):
        call = self.call
        if fn is None:
            return ProgramIterator(filter(None, self.iterate(iterable)), self.rt)
        return ProgramIterator(filter(lambda x: call(fn, [x], {}), self.iterate(iterable)), self.rt)

    def b_any(self, iterable):
        rt = self.rt
        for x in self.iterate(iterable):
            rt.steps += 1
            if rt.steps >= rt.check_at:
                rt.check()
            if x:
                return True
        return False

    def b_all(self, iterable):
        rt = self.rt
        for x in self.iterate(iterable):
            rt.steps += 1
            if rt.steps >= rt.check_at:
                rt.check()
            if not x:
                return False
        return True

    def b_iter(self, value, *sentinel):
        if sentinel:
            return self._call_until(value, *sentinel)
        it = self.iterate(value)
        if type(it) is ProgramIterator or type(it) is ProgramGenerator:
            return it   # iter(g) is g
        return ProgramIterator(it, self.rt)

    def _call_until(self, fn, sentinel, *more):
        """``iter(fn, sentinel)``: calls ``fn()`` (through the interpreter) until it returns a value
        equal to ``sentinel``."""
        if more:
            raise _TypeError(f"iter expected at most 2 arguments, got {2 + len(more)}")
        if not callable(fn):
            raise _TypeError("iter(v, w): v must be callable")
        call, equal = self.call, operators.COMPARE["Eq"]

        def calls():
            while True:
                value = call(fn, [], {})
                if equal(value, sentinel):
                    return
                yield value
        return ProgramIterator(calls(), self.rt)

    def b_next(self, it, *default):
        if type(it) is not ProgramIterator and type(it) is not ProgramGenerator:
            raise _TypeError(f"'{type(it).__name__}' object is not an iterator")
        try:
            return next(it)
        except StopIteration as e:
            if default:
                return default[0]
            if type(it) is ProgramGenerator:
                raise PROGRAM_EXCEPTIONS["StopIteration"](*e.args) from None   # what the generator returned
            raise PROGRAM_EXCEPTIONS["StopIteration"]() from None

    def b_pow(self, base, exp, mod=None):
        if mod is None:
            return operators.pow_(base, exp)
        if type(exp) is int and type(mod) is int:
            # modular exponentiation costs about bits(mod)**2 * bits(exp) in one C call
            work = max(mod.bit_length(), 64) ** 2 * max(exp.bit_length(), 1)
            if work > 1 << 36:
                raise guards.abort_int(max(mod.bit_length(), exp.bit_length()))
        return pow(base, exp, mod)

    # ------------------------------------------------------------------ attributes
    def b_getattr(self, obj, name, *default):
        if type(name) is not str:
            raise _TypeError(f"attribute name must be string, not '{type(name).__name__}'")
        try:
            if not name:
                raise PROGRAM_EXCEPTIONS["AttributeError"]("attribute name must not be empty")
            return access.get_attr(obj, name)
        except PROGRAM_EXCEPTIONS["AttributeError"]:
            if default:
                return default[0]
            raise

    def b_vars(self, *obj):
        """``vars(obj)``: the attributes of an object of a program class with no engine base (its own
        ``__dict__``, as Python's), or of an ``argparse.Namespace`` / ``SimpleNamespace`` (a new dict of
        them: ``for arg in vars(args)``, ``json.dumps(vars(args))``; set them with setattr). ``vars()``
        with no argument is ``locals()``, compiled where it is called."""
        if len(obj) != 1:
            raise _TypeError(f"vars expected at most 1 argument, got {len(obj)}" if obj else
                             "vars() without an argument is available in programs only inside a function or class body")
        return access.vars_of(obj[0])

    def b_hasattr(self, obj, name):
        if type(name) is not str:
            raise _TypeError(f"attribute name must be string, not '{type(name).__name__}'")
        if not name:
            return False
        try:
            access.get_attr(obj, name)
            return True
        except PROGRAM_EXCEPTIONS["AttributeError"]:
            return False

    def b_setattr(self, obj, name, value):
        if type(name) is not str:
            raise _TypeError(f"attribute name must be string, not '{type(name).__name__}'")
        if not name:
            raise PROGRAM_EXCEPTIONS["AttributeError"]("attribute name must not be empty")
        access.set_attr(obj, name, value)


def _tensor_class(*args, **kwargs):
    """``torch.Tensor(data)``: nested lists are sized before the engine walks them."""
    guards.check_nested(args[0] if len(args) == 1 else list(args))
    return Tensor(*args, **kwargs)


def _host_str_decode(obj=b"", encoding="utf-8", errors="strict"):
    if not isinstance(obj, bytes):
        raise _TypeError("decoding to str: need a bytes-like object")
    return str(obj, encoding, errors)


def _default_kw(name, kw):
    for k in kw:
        if k != "default":
            raise _TypeError(f"'{k}' is an invalid keyword argument for {name}()")
    return kw.get("default", _NO_DEFAULT)


def _lt(a, b):
    return a < b


def _gt(a, b):
    return a > b


_NO_DEFAULT = object()


class _Super:
    """The ``super`` builtin; calls are resolved by the interpreter, which knows the frame."""
    __slots__ = ()

    def __repr__(self):
        return "<class 'super'>"


SUPER = _Super()
access._OK_TYPES.add(_Super)

_HOST = {"range": range, "len": len, "abs": abs, "round": round, "int": int, "float": float, "bool": bool,
         "isinstance": None, "issubclass": None, "callable": callable, "chr": chr, "ord": ord,
         "divmod": divmod, "hex": hex, "oct": oct, "bin": bin, "hash": hash, "slice": slice, "object": object,
         "staticmethod": staticmethod, "classmethod": classmethod, "property": property, "complex": complex,
         "list": list, "tuple": tuple, "dict": dict, "set": set, "frozenset": frozenset, "str": str,
         "bytes": bytes}


def _abc_classinfo(classinfo):
    """``collections.abc.Sequence`` (in programs, typing's form of that name) as the class it names
    (grad-cam-pytorch's ``isinstance(patch, Sequence)``)."""
    if isinstance(classinfo, tuple):
        return tuple(_abc_classinfo(c) for c in classinfo)
    return abc_class(classinfo) or classinfo


def _check_classinfo(classinfo, fn):
    if isinstance(classinfo, tuple):
        for c in classinfo:
            _check_classinfo(c, fn)
        return
    if not isinstance(classinfo, type):
        raise _TypeError(f"{fn}() arg 2 must be a type, a tuple of types, or a union")


def b_exit(status=None):
    """exit(status=None), quit() and sys.exit(): raise SystemExit. Uncaught, one with no status or
    status 0 ends the program as a script's end does (the run succeeds); any other status is the
    run's error."""
    raise PROGRAM_EXCEPTIONS["SystemExit"](status) if status is not None else PROGRAM_EXCEPTIONS["SystemExit"]()


b_exit.__name__ = b_exit.__qualname__ = "exit"


def b_isinstance(obj, classinfo):
    """isinstance(obj, class_or_tuple)"""
    classinfo = _abc_classinfo(classinfo)
    _check_classinfo(classinfo, "isinstance")
    return isinstance(obj, classinfo)


def b_issubclass(cls, classinfo):
    """issubclass(cls, class_or_tuple)"""
    if not isinstance(cls, type):
        raise _TypeError("issubclass() arg 1 must be a class")
    classinfo = _abc_classinfo(classinfo)
    _check_classinfo(classinfo, "issubclass")
    return issubclass(cls, classinfo)


def b_round(number, ndigits=None):
    """round(number, ndigits=None); for an int and a negative ndigits, int.__round__ builds
    10 ** -ndigits in one C call first (round(10**1000, -10**9) would run for minutes): past the
    number's own digits the answer is 0 without it."""
    if ndigits is None:
        return round(number)
    if isinstance(number, int):
        ndigits = operator.index(ndigits)
        if -ndigits > number.bit_length() * 31 // 100 + 2:  # 10 ** -ndigits > 10 * abs(number)
            return 0
    return round(number, ndigits)


def _b_type(*args, **kwargs):
    """``type(x)``: the class of ``x`` (one a program may hold); ``type`` as a class factory is not
    available in programs."""
    if len(args) != 1 or kwargs:
        raise _TypeError("type(name, bases, dict) is not available in programs: define classes with 'class'")
    return access.wrap(type(args[0]))


_HOST["isinstance"] = b_isinstance
_HOST["round"] = b_round
b_round.__name__ = b_round.__qualname__ = "round"  # (as programs see it: "round() takes ...")
_HOST["type"] = type
_HOST["issubclass"] = b_issubclass

_FAST_RESULT = frozenset((int, float, bool, str, type(None)))


def _grad_mode_classes():
    from ..autograd import grad_mode
    return (grad_mode.no_grad, grad_mode.enable_grad, grad_mode.set_grad_enabled, grad_mode.inference_mode)


_GRAD_MODES = frozenset(_grad_mode_classes())


def _grad_mode_intercepts():
    """``@torch.no_grad`` (the class itself) on a program function; any other call constructs."""
    def make(cls):
        def construct(*args, **kwargs):
            if len(args) == 1 and not kwargs and type(args[0]) in (Function, BoundMethod) and \
                    cls is not _grad_mode_classes()[2]:
                return decorators.grad_mode_function(cls(), args[0])
            return cls(*args, **kwargs)
        return construct
    return {cls: make(cls) for cls in _GRAD_MODES}


def make_builtins(rt, views):
    return Builtins(rt, views)



# --------------------------------------------------------------------------- str.format
_MAX_FORMAT_DEPTH = 2
_format_fields = None   # string.Formatter().parse: splits a format string (it runs nothing)


def _parse_format(fmt):
    global _format_fields
    if _format_fields is None:
        import string
        _format_fields = string.Formatter().parse
    fields = _format_fields
    try:
        return list(fields(fmt))
    except ValueError as e:
        raise PROGRAM_EXCEPTIONS["ValueError"](str(e)) from None


def _field_value(field, args, kwargs, auto):
    """The value a replacement field names: ``0``, ``name``, ``0[1]``, ``name.attr`` (attributes
    through the program's attribute rules, never the host's internals)."""
    first, rest = _split_field(field)
    if first == "":
        if auto[0] is None:
            raise PROGRAM_EXCEPTIONS["ValueError"]("cannot switch from manual field specification to automatic "
                                                   "field numbering")
        key = auto[0]
        auto[0] += 1
        auto[1] = True
    elif first.isdigit():
        if auto[1]:
            raise PROGRAM_EXCEPTIONS["ValueError"]("cannot switch from automatic field numbering to manual field "
                                                   "specification")
        auto[0] = None
        key = int(first)
    else:
        key = first
    if type(key) is int:
        if key >= len(args):
            raise PROGRAM_EXCEPTIONS["IndexError"](f"Replacement index {key} out of range for positional args tuple")
        value = args[key]
    else:
        if key not in kwargs:
            raise PROGRAM_EXCEPTIONS["KeyError"](key)
        value = kwargs[key]
    for is_attr, name in rest:
        if is_attr:
            if not name:
                raise PROGRAM_EXCEPTIONS["ValueError"]("Empty attribute in format string")
            value = access.get_attr(value, name)   # the program's attribute rules (its own '_x' too)
        else:
            value = value[int(name) if name.isdigit() else name]
    return value


def _split_field(field):
    """``'a.b[0][k]'`` -> ('a', [(True, 'b'), (False, '0'), (False, 'k')])."""
    i = 0
    n = len(field)
    while i < n and field[i] not in ".[":
        i += 1
    first = field[:i]
    rest = []
    while i < n:
        c = field[i]
        if c == ".":
            j = i + 1
            while j < n and field[j] not in ".[":
                j += 1
            rest.append((True, field[i + 1:j]))
            i = j
        elif c == "[":
            j = field.find("]", i)
            if j < 0:
                raise PROGRAM_EXCEPTIONS["ValueError"]("Missing ']' in format string")
            rest.append((False, field[i + 1:j]))
            i = j + 1
            if i < n and field[i] not in ".[":
                raise PROGRAM_EXCEPTIONS["ValueError"]("Only '.' or '[' may follow ']' in format field specifier")
        else:
            raise PROGRAM_EXCEPTIONS["ValueError"]("Only '.' or '[' may follow ']' in format field specifier")
    return first, rest


def format_string(fmt, args, kwargs, b, depth=0, auto=None):
    """``fmt.format(*args, **kwargs)`` as a program gets it: Python's format mini-language,
    each field's width and size checked before it is built, attribute fields through the
    program's attribute rules."""
    if depth > _MAX_FORMAT_DEPTH:
        raise PROGRAM_EXCEPTIONS["ValueError"]("Max string recursion exceeded")
    if auto is None:
        auto = [0, False]
    limit = b.rt.str_limit
    pieces = []
    total = 0
    for literal, field, spec, conversion in _parse_format(fmt):
        if literal:
            pieces.append(literal)
            total += len(literal)
        if field is None:
            continue
        b.step()
        value = _field_value(field, args, kwargs, auto)
        if spec and "{" in spec:
            spec = format_string(spec, args, kwargs, b, depth + 1, auto)
        if conversion == "r":
            value = b.b_repr(value)
        elif conversion == "s":
            value = b.b_str(value)
        elif conversion == "a":
            value = b.b_ascii(value)
        elif conversion is not None:
            raise PROGRAM_EXCEPTIONS["ValueError"](f"Unknown conversion specifier {conversion}")
        piece = b.b_format(value, spec or "")
        pieces.append(piece)
        total += len(piece)
        guards.check_length(total, limit, "string")
    return "".join(pieces)


def str_format(s):
    """The bound ``s.format`` a program reads."""
    def format(*args, **kwargs):
        return format_string(s, args, kwargs, _current)
    return format


def str_format_map(s):
    def format_map(mapping):
        if not isinstance(mapping, dict):
            raise _TypeError("format_map() argument must be a mapping")
        return format_string(s, (), mapping, _current)
    return format_map
