"""Resource limits on what one program run may use, and the error past them."""
from dataclasses import dataclass
from math import prod


class LimitExceeded(Exception):
    """A run went past one of its resource limits; ``limit`` names which."""

    def __init__(self, limit, value=None, message=None):
        self.limit = limit
        self.value = value
        super().__init__(message or f"limit exceeded: {limit}" + (f" (at most {value})" if value is not None else ""))


@dataclass
class Limits:
    """Per-run limits (SPEC section 2); every field is configurable."""
    program_bytes: int = 64 * 1024
    steps: int = 10_000_000
    wall_time_s: float = 30.0
    tensor_elements: int = 2 ** 27
    session_bytes: int = 1 << 30
    graph_nodes: int = 1_000_000
    call_depth: int = 200
    sequence_length: int = 10_000_000
    string_length: int = 10_000_000
    output_bytes: int = 1 << 20


# the engine's run state (autograd.state), imported on first use since this module is imported
# before autograd: an import statement on every call cost 1.15 us (about 35 calls a GRU step)
_run_state = None


def count_text(n):
    """``n`` for a limit's message: huge counts (a 65,000-bit size) as a power of two, since their
    digits are past Python's int-to-str limit (the message raised ValueError instead: hostile pass 11)."""
    n = int(n)
    if n.bit_length() <= 256:   # 77 digits at most
        return str(n)
    return f"{'-' if n < 0 else ''}about 2**{abs(n).bit_length() - 1}"


def shape_text(shape):
    return "[" + ", ".join(count_text(s) for s in shape) + "]"


def check_elements(shape, what="tensor"):
    """Raises LimitExceeded before allocating a tensor of ``shape`` past the element limit."""
    global _run_state
    st = _run_state
    if st is None:
        from .autograd.state import state as st
        _run_state = st
    limit = st.element_limit
    if limit is None:
        return
    n = prod(map(int, shape))   # Python ints: a NumPy product could wrap around
    if n > limit:
        raise LimitExceeded("tensor_elements", limit,
                            f"limit exceeded: tensor_elements: a {what} of shape {shape_text(shape)} has "
                            f"{count_text(n)} elements (at most {limit})")


def charge_steps(n=1):
    """Counts ``n`` steps of an engine loop that calls back into a program or builds a result per pass
    (vmap's passes) against the running program's step limit, and makes the run's due checks
    (deadline, cancellation, memory) there: such a loop could otherwise run, and hold, far more than a
    program's own loop may. Nothing outside a program run."""
    global _run_state
    st = _run_state
    if st is None:
        from .autograd.state import state as st
        _run_state = st
    charge = st.charge
    if charge is not None:
        charge(n)


def check_broadcast(*operands, what="broadcast result"):
    """Before a composite (a loss, a distance) combines tensors elementwise inside the engine: their
    broadcast fits the element limit. Programs' own ``a - b`` is checked by the program guard; engine
    code calling the operators directly was not (hostile pass 11). Operands that are not tensors, or
    shapes that do not broadcast, are left to the op's own error."""
    shapes = [tuple(x.shape) for x in operands if hasattr(x, "shape") and hasattr(x, "_data")]
    if len(shapes) < 2 or all(s == shapes[0] for s in shapes):
        return
    ndim = max(len(s) for s in shapes)
    out = [1] * ndim
    for s in shapes:
        for i, n in enumerate(s, ndim - len(s)):
            if n != 1:
                if out[i] not in (1, n):
                    return   # does not broadcast: the op raises PyTorch's error
                out[i] = n
    check_elements(out, what)
