"""Lazy remote tensors: PyTorch's operators and method names record a program on the client.

``session.tensor(data)`` gives a ``RemoteTensor`` named like ``rt_1``: a variable of the session on
the server. Every operation on it appends one statement (``rt_2 = rt_1 ** 2``) to the session's
``LazyProgram`` and returns a new ``RemoteTensor`` at once; nothing is sent. When a value is needed
(``.item()``, ``.numpy()``, ``.tolist()``, ``repr``, ``bool()``, ``len()``, ``.backward()``,
``.grad``, ``.shape``) the pending statements and uploads go to the server as one run, which also
asks for the needed value. Tensors stay on the server between runs (uploaded once); a
``RemoteTensor`` that Python frees is released on the server by the next run (``rt_2 = None``).

With an ``AsyncSession`` the fetching methods and properties return awaitables
(``await x.item()``, ``await x.grad``), and the conversions Python cannot await (``bool``,
``len``, ``float``, iteration) raise ``TypeError``.
"""
from __future__ import annotations

import asyncio
import itertools
import os
import sys
import threading
from collections import namedtuple
from contextlib import contextmanager
from typing import Any, Callable

import numpy as np

from .encoding import encode_tensor
from .errors import ProgramError

# Executed before the recorded statements; a failing statement's line is found past these.
_HEADER = ("import torch", "import math")
# The variable through which answers to queries (grad, shape, len) come back.
_QUERY = "rt_q"

# Methods (and torch functions) that return a fixed-size named tuple, and when they do.
_TUPLE_RESULTS: dict[str, tuple[tuple[str, ...], Callable[[tuple, dict], bool]]] = {}


def _with_dim(args: tuple, kwargs: dict) -> bool:
    return "dim" in kwargs or (bool(args) and isinstance(args[0], int)
                               and not isinstance(args[0], bool))


def _always(args: tuple, kwargs: dict) -> bool:
    return True


for _name in ("max", "min", "median", "nanmedian"):
    _TUPLE_RESULTS[_name] = (("values", "indices"), _with_dim)
for _name in ("mode", "kthvalue", "sort", "topk", "cummax", "cummin"):
    _TUPLE_RESULTS[_name] = (("values", "indices"), _always)
_TUPLE_RESULTS["aminmax"] = (("min", "max"), _always)
_TUPLE_RESULTS["var_mean"] = (("var", "mean"), _always)
_TUPLE_RESULTS["std_mean"] = (("std", "mean"), _always)
_TUPLE_TYPES = {fields: namedtuple("return_types", fields) for fields, _ in _TUPLE_RESULTS.values()}


def _tuple_fields(name: str, args: tuple, kwargs: dict) -> tuple[str, ...] | None:
    entry = _TUPLE_RESULTS.get(name)
    return entry[0] if entry is not None and entry[1](args, kwargs) else None


def _literal_float(x: float) -> str:
    if x != x:
        return "math.nan"
    if x in (float("inf"), float("-inf")):
        return "math.inf" if x > 0 else "-math.inf"
    return repr(x)


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _origin() -> str | None:
    """``file:line`` of the first caller outside this package: where user code recorded a statement."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    return None if frame is None else f"{frame.f_code.co_filename}:{frame.f_lineno}"


class _Statement:
    __slots__ = ("text", "defines", "origin")

    def __init__(self, text: str, defines: tuple["RemoteTensor", ...]):
        self.text = text
        self.defines = defines
        self.origin = _origin()


class _Batch:
    """Pending statements and uploads taken together into one run."""

    def __init__(self, statements, uploads, released, extra, outputs, epoch):
        self.statements = statements
        self.uploads = uploads  # name -> (tensor, wire form)
        self.released = released
        self.epoch = epoch
        lines = [*_HEADER, *(s.text for s in statements), *extra,
                 *(f"{name} = None" for name in released)]
        self.body = {"program": "\n".join(lines) + "\n",
                     "inputs": {name: wire for name, (_, wire) in uploads.items()},
                     "outputs": list(outputs), "encoding": "base64"}

    def failed(self, program: "LazyProgram", exc: BaseException) -> None:
        """Mark the tensors the failed run did not define, so that using them raises ``exc``.

        A program error with a line says how far the run got: statements before it ran (their
        values are on the server), the failing one and those after did not.
        """
        first_failed = 0
        if isinstance(exc, ProgramError) and exc.line is not None:
            first_failed = exc.line - len(_HEADER) - 1
            if 0 <= first_failed < len(self.statements):
                exc.statement = self.statements[first_failed].text
                exc.origin = self.statements[first_failed].origin
            first_failed = max(0, first_failed)
        else:  # nothing says what ran: none of the batch can be trusted
            for tensor, _ in self.uploads.values():
                tensor._error = exc
        for statement in self.statements[first_failed:]:
            for tensor in statement.defines:
                tensor._error = exc
        program._released.extend(self.released)


class _SyncExecutor:
    is_async = False

    def __init__(self, send: Callable[[dict], Any]):
        self._send = send
        self._lock = threading.Lock()

    def submit(self, program: "LazyProgram", outputs, extra, then):
        with self._lock:
            batch = program._take(outputs, extra)
            try:
                result = self._send(batch.body)
            except BaseException as exc:
                batch.failed(program, exc)
                raise
        return then(result, batch.epoch)

    def ready(self, value):
        return value


class _AsyncExecutor:
    is_async = True

    def __init__(self, send):
        self._send = send
        self._lock = asyncio.Lock()

    async def _submit(self, program, outputs, extra, then):
        # The batch is taken under the lock, so runs reach the server in the order they start.
        async with self._lock:
            batch = program._take(outputs, extra)
            try:
                result = await self._send(batch.body)
            except BaseException as exc:
                batch.failed(program, exc)
                raise
        return then(result, batch.epoch)

    def submit(self, program, outputs, extra, then):
        return self._submit(program, outputs, extra, then)

    def ready(self, value):
        async def ready():
            return value
        return ready()


class _Pending:
    """What a property that asks the server (``t.grad``, ``t.shape``, ...) answers in an async session:
    an awaitable and nothing else, so that ``t.grad.numpy()`` says to await first instead of failing on
    a bare coroutine."""

    __slots__ = ("_awaitable", "_what")

    def __init__(self, awaitable: Any, what: str):
        self._awaitable = awaitable
        self._what = what

    def __await__(self):
        return self._awaitable.__await__()

    def _misused(self, use: str, example: str):
        close = getattr(self._awaitable, "close", None)
        if close is not None:
            close()  # never awaited now: no "coroutine was never awaited" warning on top of this error
        return TypeError(f"in an async session `{self._what}` asks the server: await it before {use}, "
                         f"as in `{example}`")

    def __getattr__(self, name: str):
        raise self._misused(f"using .{name}", f"(await {self._what}).{name}")

    def __getitem__(self, key: Any):
        raise self._misused("indexing it", f"(await {self._what})[...]")

    def __iter__(self):
        raise self._misused("iterating it", f"for ... in await {self._what}")

    def __bool__(self):
        raise self._misused("testing it", f"if await {self._what}: ...")

    def __repr__(self) -> str:
        return f"<{self._what}: awaitable>"


class LazyProgram:
    """The statements a session's remote tensors recorded that the server has not run yet."""

    def __init__(self, send: Callable[[dict], Any], is_async: bool = False):
        self._executor = _AsyncExecutor(send) if is_async else _SyncExecutor(send)
        self._names = itertools.count(1)
        self._statements: list[_Statement] = []
        self._uploads: dict[str, tuple[RemoteTensor, Any]] = {}
        self._released: list[str] = []
        self._no_grad_depth = 0
        # Bumped by every statement that may change existing values: cached values are stamped
        # with the epoch they were fetched at and trusted only while it is unchanged.
        self.epoch = 0

    @property
    def is_async(self) -> bool:
        return self._executor.is_async

    @property
    def pending(self) -> list[str]:
        """The statements recorded and not yet sent (for inspection)."""
        return [s.text for s in self._statements]

    def new_name(self) -> str:
        return f"rt_{next(self._names)}"

    def invalidate(self) -> None:
        """Forget cached values (something outside the recorded program may have changed them)."""
        self.epoch += 1

    # -- recording -------------------------------------------------------------------------------

    def record(self, text: str, defines: tuple["RemoteTensor", ...] = (),
               mutates: bool = False) -> None:
        if self._no_grad_depth:
            text = f"with torch.no_grad(): {text}"
        self._statements.append(_Statement(text, defines))
        if mutates:
            self.epoch += 1

    def new_tensor(self, expression: str, mutates: bool = False) -> "RemoteTensor":
        tensor = RemoteTensor(self, self.new_name())
        self.record(f"{tensor._name} = {expression}", (tensor,), mutates)
        return tensor

    def new_tuple(self, expression: str, fields: tuple[str, ...], mutates: bool = False):
        tensors = tuple(RemoteTensor(self, self.new_name()) for _ in fields)
        targets = ", ".join(t._name for t in tensors)
        self.record(f"{targets} = {expression}", tensors, mutates)
        return _TUPLE_TYPES[fields](*tensors)

    def call(self, callee: str, name: str, args: tuple, kwargs: dict, method: bool = True):
        """Record ``callee(*args, **kwargs)``; ``name`` is the function's own name, and a
        ``torch.max(x, 1)`` (``method=False``) has its tensor as first argument."""
        expression = f"{callee}({self.render_arguments(args, kwargs)})"
        fields = _tuple_fields(name, args if method else args[1:], kwargs)
        if fields is not None:
            return self.new_tuple(expression, fields, mutates=True)
        return self.new_tensor(expression, mutates=True)

    def upload(self, data: Any, requires_grad: bool = False, dtype: Any = None) -> "RemoteTensor":
        if isinstance(data, RemoteTensor):
            raise TypeError("session.tensor() takes data, not a RemoteTensor: use .detach().clone()")
        tensor = RemoteTensor(self, self.new_name())
        # Arrays travel as raw bytes (exact, compact); Python data as lists the server types.
        encoding = "base64" if isinstance(data, (np.ndarray, np.generic)) else "json"
        self._uploads[tensor._name] = (tensor, encode_tensor(
            data, encoding=encoding, requires_grad=requires_grad, dtype=dtype))
        return tensor

    def release(self, name: str) -> None:
        # Called from __del__, possibly in the middle of building a batch: list.append is atomic.
        self._released.append(name)

    @contextmanager
    def no_grad(self):
        self._no_grad_depth += 1
        try:
            yield
        finally:
            self._no_grad_depth -= 1

    # -- rendering values as program text --------------------------------------------------------

    def render(self, value: Any) -> str:
        if isinstance(value, RemoteTensor):
            if value._program is not self:
                raise ValueError("a RemoteTensor of another session cannot be used here")
            return value._ref()
        if isinstance(value, TorchNamespace):
            return value._path
        if value is None or isinstance(value, (bool, int, str)):
            return repr(value)
        if isinstance(value, float):
            return _literal_float(value)
        if value is Ellipsis:
            return "..."
        if value is bool or value is int or value is float:
            return value.__name__
        if isinstance(value, np.dtype) or (isinstance(value, type)
                                           and issubclass(value, np.generic)):
            return f"torch.{np.dtype(value).name}"
        if isinstance(value, np.generic):
            return self.render(value.item())
        if isinstance(value, np.ndarray):
            return self.upload(value)._ref()
        if isinstance(value, list):
            return "[" + ", ".join(self.render(v) for v in value) + "]"
        if isinstance(value, tuple):
            inner = ", ".join(self.render(v) for v in value)
            return f"({inner},)" if len(value) == 1 else f"({inner})"
        if isinstance(value, dict):
            return "{" + ", ".join(f"{self.render(k)}: {self.render(v)}"
                                   for k, v in value.items()) + "}"
        if isinstance(value, slice):
            raise TypeError("a slice is only allowed inside []")
        raise TypeError(f"cannot send a {type(value).__name__} to a remote program")

    def render_arguments(self, args: tuple, kwargs: dict) -> str:
        parts = [self.render(a) for a in args]
        parts += [f"{k}={self.render(v)}" for k, v in kwargs.items()]
        return ", ".join(parts)

    def render_index(self, key: Any) -> str:
        def bound(v):
            return "" if v is None else self.render(v)

        def part(k):
            if isinstance(k, slice):
                text = f"{bound(k.start)}:{bound(k.stop)}"
                return text if k.step is None else f"{text}:{bound(k.step)}"
            return self.render(k)
        if isinstance(key, tuple):
            return ", ".join(part(k) for k in key) + ("," if len(key) == 1 else "") or "()"
        return part(key)

    # -- sending ---------------------------------------------------------------------------------

    def _take(self, outputs, extra) -> _Batch:
        statements, self._statements = self._statements, []
        uploads, self._uploads = self._uploads, {}
        released, self._released = self._released, []
        return _Batch(statements, uploads, released, extra, outputs, self.epoch)

    def submit(self, outputs: list[str], extra: tuple[str, ...], then: Callable[[Any, int], Any]):
        """Run what is pending plus ``extra`` lines; ``then(result, epoch)`` makes the answer."""
        return self._executor.submit(self, outputs, extra, then)

    def ready(self, value: Any):
        """``value`` as the executor returns answers (itself, or an awaitable of it)."""
        return self._executor.ready(value)

    def answer(self, value: Any, what: str):
        """A property's answer: ``value`` itself in a sync session, an awaitable that says to await it
        when misused in an async one."""
        return _Pending(value, what) if self.is_async else value

    def sync_only(self, what: str) -> None:
        if self.is_async:
            raise TypeError(f"{what} would wait for the server; with an AsyncSession use "
                            f"await .item() / .numpy() / .tolist() / .size() instead")


class TorchNamespace:
    """``session.torch``: calls such as ``s.torch.cat([a, b])`` or ``s.torch.nn.functional.relu``
    record like tensor methods; attributes such as ``s.torch.float64`` stand for themselves."""

    def __init__(self, program: LazyProgram, path: str = "torch"):
        self._program = program
        self._path = path

    def __getattr__(self, name: str) -> "TorchNamespace":
        if name.startswith("_"):
            raise AttributeError(name)
        return TorchNamespace(self._program, f"{self._path}.{name}")

    def __call__(self, *args, **kwargs):
        return self._program.call(self._path, self._path.rsplit(".", 1)[-1], args, kwargs,
                                  method=False)

    def __repr__(self) -> str:
        return f"<remote {self._path}>"


def _size_error(n: int) -> RuntimeError:
    return RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")


class RemoteTensor:
    """A tensor (or any value) held by the session on the server, named ``name`` there."""

    __slots__ = ("_program", "_name", "_parent", "_attr", "_error", "_cache", "_meta",
                 "__weakref__")
    # NumPy's operators defer to ours (``array @ remote`` calls ``remote.__rmatmul__``).
    __array_ufunc__ = None
    __hash__ = object.__hash__

    def __init__(self, program: LazyProgram, name: str | None = None, *,
                 parent: "RemoteTensor | None" = None, attr: str | None = None):
        object.__setattr__(self, "_program", program)
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_parent", parent)
        object.__setattr__(self, "_attr", attr)
        object.__setattr__(self, "_error", None)
        object.__setattr__(self, "_cache", None)
        object.__setattr__(self, "_meta", None)

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:  # x.grad = None, x.requires_grad = True, model.weight = w, ...
            text = f"{self._ref()}.{name} = {self._program.render(value)}"
            self._program.record(text, mutates=True)

    def __del__(self):
        try:
            if self._name is not None and self._error is None:
                self._program.release(self._name)
        except Exception:  # interpreter shutdown: nothing left to release into
            pass

    def _ref(self) -> str:
        """The name on the server; records a pending attribute read when first used as a value."""
        if self._error is not None:
            raise self._error
        if self._name is None:
            self._name = self._program.new_name()
            self._program.record(f"{self._name} = {self._parent._ref()}.{self._attr}", (self,))
            object.__setattr__(self, "_parent", None)
        return self._name

    @property
    def name(self) -> str:
        """The variable's name in the session (usable in ``session.run`` programs)."""
        return self._ref()

    # -- recording -------------------------------------------------------------------------------

    def __getattr__(self, name: str) -> "RemoteTensor":
        # Only called for names not defined here: x.T, x.mT, model.weight, or a method like
        # x.softmax, which is recorded when called (see __call__) and read when used as a value.
        if name.startswith("_"):
            raise AttributeError(name)
        if self._error is not None:
            raise self._error
        return RemoteTensor(self._program, parent=self, attr=name)

    def __call__(self, *args, **kwargs):
        program = self._program
        if self._name is None:  # a method: x.softmax(dim=0)
            owner, name = self._parent, self._attr
            if name.endswith("_") and not name.endswith("__"):  # in place: returns its tensor
                program.record(f"{owner._ref()}.{name}({program.render_arguments(args, kwargs)})",
                               mutates=True)
                return owner
            return program.call(f"{owner._ref()}.{name}", name, args, kwargs)
        return program.call(self._ref(), "", args, kwargs)  # a remote module or function

    def _binary(self, op: str, other: Any, reflected: bool = False) -> "RemoteTensor":
        program = self._program
        a, b = (program.render(other), self._ref()) if reflected else \
            (self._ref(), program.render(other))
        return program.new_tensor(f"{a} {op} {b}")

    def _inplace(self, op: str, other: Any) -> "RemoteTensor":
        self._program.record(f"{self._ref()} {op}= {self._program.render(other)}", mutates=True)
        return self

    def __add__(self, o): return self._binary("+", o)
    def __radd__(self, o): return self._binary("+", o, True)
    def __sub__(self, o): return self._binary("-", o)
    def __rsub__(self, o): return self._binary("-", o, True)
    def __mul__(self, o): return self._binary("*", o)
    def __rmul__(self, o): return self._binary("*", o, True)
    def __truediv__(self, o): return self._binary("/", o)
    def __rtruediv__(self, o): return self._binary("/", o, True)
    def __floordiv__(self, o): return self._binary("//", o)
    def __rfloordiv__(self, o): return self._binary("//", o, True)
    def __mod__(self, o): return self._binary("%", o)
    def __rmod__(self, o): return self._binary("%", o, True)
    def __pow__(self, o): return self._binary("**", o)
    def __rpow__(self, o): return self._binary("**", o, True)
    def __matmul__(self, o): return self._binary("@", o)
    def __rmatmul__(self, o): return self._binary("@", o, True)
    def __and__(self, o): return self._binary("&", o)
    def __rand__(self, o): return self._binary("&", o, True)
    def __or__(self, o): return self._binary("|", o)
    def __ror__(self, o): return self._binary("|", o, True)
    def __xor__(self, o): return self._binary("^", o)
    def __rxor__(self, o): return self._binary("^", o, True)
    def __lt__(self, o): return self._binary("<", o)
    def __le__(self, o): return self._binary("<=", o)
    def __gt__(self, o): return self._binary(">", o)
    def __ge__(self, o): return self._binary(">=", o)
    def __eq__(self, o): return self._binary("==", o)  # noqa: E704 - elementwise, as in PyTorch
    def __ne__(self, o): return self._binary("!=", o)

    def __iadd__(self, o): return self._inplace("+", o)
    def __isub__(self, o): return self._inplace("-", o)
    def __imul__(self, o): return self._inplace("*", o)
    def __itruediv__(self, o): return self._inplace("/", o)
    def __ifloordiv__(self, o): return self._inplace("//", o)
    def __imod__(self, o): return self._inplace("%", o)
    def __ipow__(self, o): return self._inplace("**", o)
    def __iand__(self, o): return self._inplace("&", o)
    def __ior__(self, o): return self._inplace("|", o)
    def __ixor__(self, o): return self._inplace("^", o)

    def __neg__(self): return self._program.new_tensor(f"-{self._ref()}")
    def __pos__(self): return self._program.new_tensor(f"+{self._ref()}")
    def __invert__(self): return self._program.new_tensor(f"~{self._ref()}")
    def __abs__(self): return self._program.new_tensor(f"abs({self._ref()})")

    def __getitem__(self, key: Any) -> "RemoteTensor":
        return self._program.new_tensor(f"{self._ref()}[{self._program.render_index(key)}]")

    def __setitem__(self, key: Any, value: Any) -> None:
        program = self._program
        program.record(f"{self._ref()}[{program.render_index(key)}] = {program.render(value)}",
                       mutates=True)

    # -- fetching --------------------------------------------------------------------------------

    def _value(self, convert: Callable[[Any], Any]):
        """``convert(value)``, fetching the value first unless a fresh copy is cached."""
        name = self._ref()
        program = self._program
        if self._cache is not None and self._cache[0] == program.epoch:
            return program.ready(convert(self._cache[1]))

        def answer(result, epoch):
            value = result.values[name]
            self._cache = (epoch, value)
            return convert(value)
        return program.submit([name], (), answer)

    def _query(self, expression: str, convert: Callable[[Any, int], Any]):
        """Run what is pending, then evaluate ``expression`` on the server;
        ``convert(value, epoch)`` makes the answer."""
        return self._program.submit([_QUERY], (f"{_QUERY} = {expression}",),
                                    lambda result, epoch: convert(result.values[_QUERY], epoch))

    def _metadata(self, convert: Callable[[tuple], Any]):
        """``convert((shape, dtype, requires_grad, is_leaf))``, asked of the server once per epoch."""
        program = self._program
        if self._meta is not None and self._meta[0] == program.epoch:
            return program.ready(convert(self._meta[1]))
        n = self._ref()
        expression = (f"[torch.tensor(list({n}.shape), dtype=torch.int64), "
                      f"{n}.detach().reshape(-1)[:0], torch.tensor({n}.requires_grad), "
                      f"torch.tensor({n}.is_leaf)]")

        def answer(values, epoch):
            shape, empty, requires_grad, is_leaf = values
            meta = (tuple(int(d) for d in shape), empty.dtype, bool(requires_grad),
                    bool(is_leaf))
            self._meta = (epoch, meta)
            return convert(meta)
        return self._query(expression, answer)

    def numpy(self):
        """The value as a NumPy array (a copy; its dtype is the tensor's)."""
        return self._value(lambda v: v.copy() if isinstance(v, np.ndarray) else np.asarray(v))

    def item(self):
        """The value of a one-element tensor as a Python number."""
        def item(v):
            if isinstance(v, np.ndarray):
                if v.size != 1:
                    raise _size_error(v.size)
                return v.item()
            return v
        return self._value(item)

    def tolist(self):
        """The value as nested Python lists (a number for a 0-d tensor)."""
        return self._value(lambda v: v.tolist() if isinstance(v, np.ndarray) else v)

    def backward(self, gradient: Any = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Any = None):
        """Computes the gradient of this tensor w.r.t. graph leaves; runs on the server now."""
        kwargs = {k: v for k, v in (("gradient", gradient), ("retain_graph", retain_graph),
                                    ("inputs", inputs)) if v is not None}
        if create_graph:
            kwargs["create_graph"] = True
        program = self._program
        program.record(f"{self._ref()}.backward({program.render_arguments((), kwargs)})",
                       mutates=True)
        return program.submit([], (), lambda result, epoch: None)

    @property
    def grad(self):
        """The gradient accumulated into this tensor, or None (asks the server).

        In an async session it is awaited, like every property that asks the server (``shape``,
        ``dtype``, ``ndim``, ``requires_grad``, ``is_leaf``): ``await (await x.grad).numpy()``."""
        program = self._program
        grad = RemoteTensor(program, program.new_name())
        n = grad._name
        lines = (f"{n} = {self._ref()}.grad", f"{_QUERY} = [] if {n} is None else [{n}]")

        def answer(result, epoch):
            box = result.values[_QUERY]
            if not box:
                return None
            grad._cache = (epoch, box[0])
            return grad
        return program.answer(program.submit([_QUERY], lines, answer), "tensor.grad")

    @property
    def shape(self):
        """The tensor's shape as a tuple of ints."""
        return self._program.answer(self._metadata(lambda m: m[0]), "tensor.shape")

    def size(self, dim: int | None = None):
        """The shape, or its length along ``dim``."""
        return self._metadata(lambda m: m[0] if dim is None else m[0][dim])

    def dim(self):
        return self._metadata(lambda m: len(m[0]))

    @property
    def ndim(self):
        return self._program.answer(self.dim(), "tensor.ndim")

    def numel(self):
        return self._metadata(lambda m: int(np.prod(m[0], dtype=np.int64)))

    @property
    def dtype(self):
        """The dtype, as the NumPy dtype of the same name (``float32``, ``int64``, ...)."""
        return self._program.answer(self._metadata(lambda m: m[1]), "tensor.dtype")

    @property
    def requires_grad(self):
        return self._program.answer(self._metadata(lambda m: m[2]), "tensor.requires_grad")

    @property
    def is_leaf(self):
        return self._program.answer(self._metadata(lambda m: m[3]), "tensor.is_leaf")

    # Python conversions: they cannot await, so they exist for synchronous sessions only.

    def __bool__(self) -> bool:
        self._program.sync_only("bool(tensor)")

        def truth(v):
            if isinstance(v, np.ndarray):
                if v.size != 1:
                    raise RuntimeError("Boolean value of Tensor with more than one value is "
                                       "ambiguous")
                return bool(v.item())
            return bool(v)
        return self._value(truth)

    def __float__(self) -> float:
        self._program.sync_only("float(tensor)")
        return float(self.item())

    def __int__(self) -> int:
        self._program.sync_only("int(tensor)")
        return int(self.item())

    def __index__(self) -> int:
        self._program.sync_only("using a tensor as an index")
        value = self.item()
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(value)

    def __len__(self) -> int:
        self._program.sync_only("len(tensor)")
        return int(self._query(f"len({self._ref()})", lambda value, epoch: value))

    def __iter__(self):
        self._program.sync_only("iterating a tensor")
        return (self[i] for i in range(len(self)))

    def __array__(self, dtype=None, copy=None):
        self._program.sync_only("np.asarray(tensor)")
        value = self.numpy()
        return value if dtype is None else value.astype(dtype)

    def __format__(self, spec: str) -> str:
        if not spec:
            return repr(self)
        self._program.sync_only("format(tensor)")
        return format(self.item(), spec)

    def __repr__(self) -> str:
        if self._error is not None:
            return f"<RemoteTensor (failed: {type(self._error).__name__})>"
        if self._program.is_async:
            cached = self._cache[1] if self._cache is not None else None
            shown = "" if cached is None else f", last fetched={cached!r}"
            return f"<RemoteTensor {self._name or 'pending'}{shown}; await .numpy() for its value>"
        value = self.numpy()
        return f"RemoteTensor({value!r}, name={self._name!r})"
