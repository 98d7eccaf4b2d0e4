"""A run's outputs, walked and counted before any of them is encoded (SPEC section 3).

What a program leaves in ``outputs`` is program-built data: it may be a list that
contains itself, a list nested thousands deep, or ``[[[0]*1000]*1000]*100``, a
small structure that stands for 10^8 numbers. Nothing here encodes a value before
the whole answer has been walked within bounds: depth, containers and numbers,
tensor elements (for a JSON answer) and tensor bytes. The walk is iterative (no
recursion to overflow), and it decides by exact type alone: it never calls
program code and never reads an attribute of a program object (an instance of a
program class is refused for what it is, without asking it anything).

A container reached twice within one output (a cycle, or the same list shared)
is refused with a 422 naming the output: following it would encode the same data
again and again. The same tensor under two output names is fine (``y = x``); each
occurrence is counted.
"""
import numpy as np

from gradserve.engine.program.stdlib import numpy as program_numpy

from . import runtime
from .wire_frames import DTYPES as WIRE_DTYPES
from .wire_frames import pack_array

# Defaults when a caller sends no caps (they come from the server's settings).
MAX_DEPTH = 32                 # nesting of lists and tuples in one output
MAX_ITEMS = 1 << 20            # list and tuple entries in all outputs together
JSON_MAX_ELEMENTS = 1 << 22    # numbers a JSON answer may hold (tensor elements and Python numbers)
MAX_BYTES = 1 << 30            # tensor bytes an answer may carry
MAX_INT_BITS = 13_000          # about 3,900 digits (JSON readers refuse more than 4,300)
# Tensors an answer may carry (values and grads): each is a buffer the API process reads back and writes out
# on its event loop, whatever its size; 100,000 one-number tensors in a list held /healthz 1.5 s, 200,000
# outputs 4 s (hostile pass 11)
MAX_TENSORS = 10_000

_NUMBERS = (bool, int, float)
_NUMPY_SCALARS = frozenset({np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                            np.uint64, np.float16, np.float32, np.float64,
                            *program_numpy._SCALAR_CLASSES.values()})   # a program's np.float64(...) values
_CONTAINERS = (list, tuple)
# The dtypes the wire has names for (the engine's); a program's NumPy array may hold others
# (uint16-64, complex64/128), which no encoding can spell.
_WIRE_DTYPES = frozenset(np.dtype(name) for name in WIRE_DTYPES)


class OutputRefused(Exception):
    """An answer that cannot be encoded within its limits: ``status`` and the error object."""

    def __init__(self, status, type_, message, **extra):
        super().__init__(message)
        self.status = status
        self.error = {"type": type_, "message": message, **extra}


def _tensor_types():
    torch = runtime.torch
    return frozenset({torch.Tensor, torch.nn.Parameter, program_numpy.ndarray})   # a program's np arrays too


def _is_container(t):
    """A list or tuple; or one of the engine's named tuples (``torch.max(x, 0)``'s values and indices,
    ``torch.aminmax``'s min and max), answered as the list of its fields. Those are read with
    tuple's own C methods only: a class qualifies only when nothing on it overrides them."""
    if t in _CONTAINERS:
        return True
    return (type(t) is type and t.__module__ == "torch.return_types" and t.__mro__[1:] == (tuple, object)
            and not any(name in t.__dict__ for name in _TUPLE_METHODS))


_TUPLE_METHODS = ("__iter__", "__reversed__", "__getitem__", "__len__", "__gs_program__")


def _kind(value):
    """A short name for what a value is, read from its type alone (never from the object)."""
    t = type(value)
    if type(t) is not type:  # a class with a metaclass of its own: say nothing it could choose
        return "object"
    name = type.__dict__["__name__"].__get__(t)
    return name if isinstance(name, str) and len(name) <= 80 else "object"


class Caps:
    """The bounds one answer is encoded within."""
    __slots__ = ("json", "json_max_elements", "max_items", "max_depth", "max_bytes")

    def __init__(self, encoding="json", json_max_elements=JSON_MAX_ELEMENTS, max_items=MAX_ITEMS,
                 max_depth=MAX_DEPTH, max_bytes=MAX_BYTES):
        self.json = encoding == "json"
        self.json_max_elements = int(json_max_elements)
        self.max_items = int(max_items)
        self.max_depth = int(max_depth)
        self.max_bytes = int(max_bytes)

    @classmethod
    def from_header(cls, header):
        caps = header.get("answer") if isinstance(header, dict) else None
        if not isinstance(caps, dict):
            return cls()
        known = {k: caps[k] for k in ("encoding", "json_max_elements", "max_items", "max_depth", "max_bytes")
                 if k in caps}
        return cls(**known)


class Answer:
    """Counts and encodes one answer's values and gradients into reply entries and buffers."""

    def __init__(self, buffers, caps):
        self.buffers = buffers
        self.caps = caps
        self.numbers = 0   # what a JSON answer spells as numbers
        self.items = 0
        self.bytes = 0
        self.tensors = 0
        self.tensor_types = _tensor_types()

    # ------------------------------------------------------------ counting
    def _count_tensor(self, name, array):
        self.tensors += 1
        if self.tensors > MAX_TENSORS:
            raise OutputRefused(413, "LimitExceeded", f"limit exceeded: output_tensors: an answer carries at most "
                                f"{MAX_TENSORS} tensors and output {name!r} takes it past that; stack them into one "
                                "tensor (torch.stack) or fetch them with GET .../variables/{name}",
                                limit="output_tensors", name=name)
        self.bytes += array.nbytes
        if self.bytes > self.caps.max_bytes:
            raise OutputRefused(413, "LimitExceeded", f"limit exceeded: answer_bytes: the answer's tensors pass "
                                f"{self.caps.max_bytes} bytes at output {name!r}", limit="answer_bytes", name=name)
        if self.caps.json:
            self._count_numbers(name, array.size)

    def _count_numbers(self, name, n):
        self.numbers += n
        if self.caps.json and self.numbers > self.caps.json_max_elements:
            raise OutputRefused(413, "LimitExceeded", f"limit exceeded: json_max_elements: a JSON answer holds at "
                                f"most {self.caps.json_max_elements} numbers and output {name!r} takes it past "
                                "that; ask for \"encoding\": \"base64\" or \"binary\"",
                                limit="json_max_elements", name=name)

    def _check(self, name, root):
        """Walks one output without encoding anything; returns its tensors' arrays in walk order."""
        tensor_types = self.tensor_types
        caps = self.caps
        arrays = []
        seen = set()   # ids of the containers of this output
        stack = [(root, 0)]
        while stack:
            value, depth = stack.pop()
            t = type(value)
            if t in tensor_types:
                array = runtime.array_of(value)
                if array.dtype not in _WIRE_DTYPES:
                    raise OutputRefused(422, "TypeError", f"output {name!r} is or holds a NumPy array of "
                                        f"{array.dtype.name}, a dtype the wire has no name for (it carries "
                                        f"{', '.join(sorted(WIRE_DTYPES))}); convert it first, for example with "
                                        ".astype(np.int64) or .astype(np.float64)", name=name)
                self._count_tensor(name, array)
                arrays.append(array)
            elif t in _NUMBERS or t in _NUMPY_SCALARS:
                if t is int and value.bit_length() > MAX_INT_BITS:
                    raise OutputRefused(422, "ValueError", f"output {name!r} holds an integer of "
                                        f"{value.bit_length()} bits, too large to answer", name=name)
                self._count_numbers(name, 1)
            elif _is_container(t):
                if depth >= caps.max_depth:
                    raise OutputRefused(422, "ValueError", f"output {name!r} nests lists more than "
                                        f"{caps.max_depth} deep", name=name, limit="output_depth")
                key = id(value)
                if key in seen:
                    raise OutputRefused(422, "ValueError", f"output {name!r} contains the same list twice (a cycle "
                                        "or a shared reference); answer a copy of each part instead", name=name)
                seen.add(key)
                self.items += len(value)
                if self.items > caps.max_items:
                    raise OutputRefused(413, "LimitExceeded", f"limit exceeded: output_items: the outputs hold more "
                                        f"than {caps.max_items} list entries (at output {name!r})",
                                        limit="output_items", name=name)
                for v in reversed(value):
                    stack.append((v, depth + 1))
            else:
                raise OutputRefused(422, "TypeError", f"output {name!r} is or holds a {_kind(value)}, not a tensor, "
                                    "a number, or a list of them", name=name)
        return arrays

    # ------------------------------------------------------------ encoding
    def value(self, name, value):
        """A run output in reply form: an array entry, {"num": x}, or {"list": [...]}, after walking it."""
        arrays = iter(self._check(name, value))
        return self._encode(value, arrays)

    def grad(self, name, tensor):
        array = runtime.array_of(tensor)
        self._count_tensor(name, array)
        return pack_array(array, self.buffers)

    def _encode(self, root, arrays):
        # Iterative too: the walk bounded the depth, but the host's stack is nobody's business.
        tensor_types = self.tensor_types
        result = []
        stack = [(root, result)]
        while stack:
            value, into = stack.pop()
            t = type(value)
            if t in tensor_types:
                into.append(pack_array(next(arrays), self.buffers))
            elif _is_container(t):
                items = []
                into.append({"list": items})
                for v in reversed(value):
                    stack.append((v, items))
            elif t in _NUMPY_SCALARS:
                into.append({"num": _json_number(value.item())})
            else:
                into.append({"num": _json_number(value)})
        return result[0]


def _json_number(x):
    if type(x) is float and (x != x or x in (_INF, -_INF)):
        return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")
    return x


_INF = float("inf")


def encode_run_outputs(resolved, inputs, buffers, caps):
    """Reply entries for a finished run.

    ``resolved``: (name, value) for each output; ``inputs``: {name: tensor} bound before the run.
    Returns (values, grads, tensors): grads holds ``.grad`` of each output tensor that has one and
    of each input that requires grad and received one (SPEC section 3); tensors the output tensors
    by name, for the graph.
    """
    answer = Answer(buffers, caps)
    tensor_types = answer.tensor_types
    values, grads, tensors = {}, {}, {}
    for name, value in resolved:
        values[name] = answer.value(name, value)
        if type(value) in tensor_types and type(value) is not program_numpy.ndarray:  # a NumPy array has no grad
            tensors[name] = value
    for name, value in tensors.items():
        if value.grad is not None:
            grads[name] = answer.grad(name, value.grad)
    for name, t in inputs.items():
        if name not in grads and type(t) in tensor_types and t.requires_grad and t.grad is not None:
            grads[name] = answer.grad(name, t.grad)
    return values, grads, tensors
