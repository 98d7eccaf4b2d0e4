"""Size checks made before the work is done: repetitions, concatenations, integer
powers, format widths, and the shapes of tensor ops that can grow past their
inputs (broadcasting, matmul, outer, einsum, kron, one_hot, pad, indexing).

The engine checks the element count of what it allocates; these checks catch
what is obvious from the operands first, so a bomb fails before it allocates,
and they cover what the interpreter itself builds (strings, lists, ints).
"""
import re

from ..autograd.state import state
from ..limits import count_text, shape_text
from ..ops.creation import nested_shape as _nested_shape
from ..tensor import Tensor
from .errors import PROGRAM_EXCEPTIONS, limit_abort

__all__ = ["MAX_INT_BITS", "MAX_MATMUL_FLOPS"]

# Python ints are unbounded; past this many bits arithmetic on them is a CPU and
# memory bomb (x = x * x doubles the size each step).
MAX_INT_BITS = 1 << 16
# one matrix product past this many multiply-adds runs for minutes inside BLAS,
# where the wall-time limit cannot stop it
MAX_MATMUL_FLOPS = 1 << 38

_DIGITS = re.compile(r"\d+")


def abort_int(bits):
    return limit_abort("integer_size", f"limit exceeded: integer_size: an integer of about {bits} bits "
                                       f"(at most {MAX_INT_BITS})")


def check_int(value):
    """Raises past MAX_INT_BITS for an int result (cheap for small values)."""
    if -(1 << 62) < value < (1 << 62):
        return value
    bits = value.bit_length()
    if bits > MAX_INT_BITS:
        raise abort_int(bits)
    return value


def check_int_pow(base, exp):
    if exp > 0 and (base > 1 or base < -1):
        bits = (abs(base).bit_length() - 1) * exp if abs(base) & (abs(base) - 1) == 0 else \
            abs(base).bit_length() * exp
        if bits > MAX_INT_BITS:
            raise abort_int(bits)


def check_lshift(value, n):
    if value and n > 0 and value.bit_length() + n > MAX_INT_BITS:
        raise abort_int(value.bit_length() + n)


def check_length(n, limit, what):
    """Raises LimitExceeded when a string (what="string") or list would be too long."""
    if n > limit:
        name = "string_length" if what == "string" else "sequence_length"
        raise limit_abort(name, f"limit exceeded: {name}: a {what} of {count_text(n)} items (at most {limit})"
                          if what != "string" else
                          f"limit exceeded: {name}: a string of {count_text(n)} characters (at most {limit})")


def check_format_spec(spec, limit):
    """Width and precision in a format spec are sizes of what it builds."""
    for m in _DIGITS.finditer(spec):
        digits = m.group()
        if len(digits) > 9 or int(digits) > limit:
            raise limit_abort("string_length", f"limit exceeded: string_length: format width or precision "
                                               f"{digits[:20]} (at most {limit})")


def check_percent_format(fmt, args, limit):
    check_format_spec(fmt, limit)
    if "*" in fmt:
        for a in (args if type(args) is tuple else (args,)):
            if type(a) is int and a > limit:
                raise limit_abort("string_length", f"limit exceeded: string_length: format width {a} "
                                                   f"(at most {limit})")
    # the strings the result will hold, counted before it is built: a string argument is copied once
    # for each conversion that reads it (('%(a)s' * 1000) % {'a': 'm' * 10**6} built a billion
    # characters, a GB at once, before its length was checked)
    if type(args) is tuple:
        n = len(fmt) + sum(len(a) for a in args if type(a) is str)
    elif isinstance(args, dict):
        n = len(fmt)
        for key in _MAPPING_KEY.findall(fmt):
            v = args.get(key)
            if type(v) is str:
                n += len(v)
    else:
        n = len(fmt) + (len(args) if type(args) is str else 0)
    if n > limit:
        raise limit_abort("string_length", f"limit exceeded: string_length: formatting would build about {n} "
                                           f"characters (at most {limit})")


_MAPPING_KEY = re.compile(r"%\(([^)]*)\)")


# --------------------------------------------------------------------------- tensors
def _abort_elements(n, shape, what):
    limit = state.element_limit
    return limit_abort("tensor_elements", f"limit exceeded: tensor_elements: {what} of shape {shape_text(shape)} "
                                          f"would have {count_text(n)} elements (at most {limit})")


def check_shape(shape, what="the result"):
    limit = state.element_limit
    if limit is None:
        return
    n = 1
    for s in shape:
        n *= int(s)
    if n > limit:
        raise _abort_elements(n, shape, what)


def nested_shape(data):
    """The shape nested lists would give a tensor (the engine's walk, which stops a list
    that holds itself with PyTorch's ValueError)."""
    return _nested_shape(data)[0]


def check_nested(data, *rest, **kwargs):
    """Before building a tensor from nested lists: its element count fits."""
    if isinstance(data, (list, tuple)):
        check_shape(nested_shape(data), "a tensor from nested lists")


def broadcast_shape(s1, s2):
    """The broadcast of two shapes; PyTorch's RuntimeError when they do not broadcast."""
    n1, n2 = len(s1), len(s2)
    if n1 < n2:
        s1 = (1,) * (n2 - n1) + tuple(s1)
    elif n2 < n1:
        s2 = (1,) * (n1 - n2) + tuple(s2)
    out = []
    for i, (a, b) in enumerate(zip(s1, s2)):
        if a == b or b == 1:
            out.append(a)
        elif a == 1:
            out.append(b)
        else:
            raise PROGRAM_EXCEPTIONS["RuntimeError"](
                f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton dimension {i}")
    return tuple(out)


def check_new_tensor(t, data, *rest, **kwargs):
    """``x.new_tensor(data)``: as torch.tensor(data)."""
    check_nested(data)


def check_new(t, *args, **kwargs):
    """``x.new(data)``: as torch.tensor(data) (``x.new(3, 4)`` is sized as any creation)."""
    if len(args) == 1 and not isinstance(args[0], int):
        check_nested(args[0])


def check_broadcast(a, b):
    """Before an elementwise op on tensors ``a`` and ``b``: its broadcast result fits."""
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        sa, sb = a._data.shape, b._data.shape
        if sa != sb:
            check_shape(broadcast_shape(sa, sb))
    elif isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        check_nested(a if isinstance(a, (list, tuple)) else b)


def check_matmul(a, b):
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        return
    sa, sb = a._data.shape, b._data.shape
    if len(sa) == 0 or len(sb) == 0:
        return
    if len(sa) == 1 and len(sb) == 1:
        return
    m = sa[-2] if len(sa) >= 2 else 1
    k = sa[-1]
    n = sb[-1] if len(sb) >= 2 else 1
    batch = broadcast_shape(sa[:-2], sb[:-2]) if len(sa) > 2 or len(sb) > 2 else ()
    out = batch + (m, n)
    check_shape(out)
    flops = m * n * k
    for d in batch:
        flops *= d
    if flops > MAX_MATMUL_FLOPS:
        raise limit_abort("tensor_elements", f"limit exceeded: tensor_elements: a matrix product of "
                                             f"{list(sa)} and {list(sb)} needs {flops} multiply-adds "
                                             f"(at most {MAX_MATMUL_FLOPS})")


def check_matrix_power(a, n, *rest, **kwargs):
    """``x.matrix_power(n)``: about 2 log2(n) products of k x k matrices (repeated squaring), bounded
    as one matrix product is."""
    if not isinstance(a, Tensor) or a._data.ndim < 2 or not isinstance(n, int) or n < 2:
        return
    shape = a._data.shape
    k = shape[-1]
    flops = 2 * n.bit_length() * k * k * k
    for d in shape[:-2]:
        flops *= d
    if flops > MAX_MATMUL_FLOPS:
        raise limit_abort("tensor_elements", f"limit exceeded: tensor_elements: matrix_power({n}) of {list(shape)} "
                                             f"needs about {flops} multiply-adds (at most {MAX_MATMUL_FLOPS})")


def _numel(x):
    if isinstance(x, Tensor):
        return x._data.size
    return 1


def check_outer(a, b, *rest, **kwargs):
    check_shape((_numel(a), _numel(b)))


def check_kron(a, b, *rest, **kwargs):
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        sa, sb = a._data.shape, b._data.shape
        n = max(len(sa), len(sb))
        sa = (1,) * (n - len(sa)) + sa
        sb = (1,) * (n - len(sb)) + sb
        check_shape(tuple(x * y for x, y in zip(sa, sb)))


def check_cdist(x1, x2, *rest, **kwargs):
    """``torch.cdist``: its (..., P, R) result and the (..., P, R, M) differences it norms fit."""
    if isinstance(x1, Tensor) and isinstance(x2, Tensor) and x1._data.ndim >= 2 and x2._data.ndim >= 2:
        batch = broadcast_shape(x1._data.shape[:-2], x2._data.shape[:-2])
        check_shape(tuple(batch) + (x1._data.shape[-2], x2._data.shape[-2], x1._data.shape[-1]))


def check_cartesian_prod(*tensors):
    n = 1
    for t in tensors:
        n *= _numel(t)
    check_shape((n, len(tensors)))


def check_block_diag(*tensors):
    """``torch.block_diag``: its (sum of rows, sum of columns) result fits."""
    rows = cols = 0
    for t in tensors:
        if isinstance(t, Tensor):
            shape = t._data.shape
            rows += shape[0] if len(shape) == 2 else 1
            cols += shape[-1] if len(shape) else 1
    check_shape((rows, cols))


def check_tri_indices(row, col, offset=0, **kwargs):
    """``torch.triu_indices`` / ``tril_indices``: at most 2 x row x col indices (the sizes are ints)."""
    if type(row) is int and type(col) is int and row >= 0 and col >= 0:
        check_shape((2, row, col))


def check_bincount(input, weights=None, minlength=0):
    """``torch.bincount``: a count per value up to the largest (read first) or ``minlength``."""
    n = minlength if type(minlength) is int else 0
    if isinstance(input, Tensor) and input._data.size and input._data.dtype.kind in "iu":
        n = max(n, int(input._data.max()) + 1)
    check_shape((n,))


def check_meshgrid(*tensors, **kwargs):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    n = 1
    for t in tensors:
        n *= _numel(t)
    check_shape((len(tensors), n))


def check_one_hot(tensor, num_classes=-1):
    if not isinstance(tensor, Tensor):
        return
    if num_classes is None or num_classes < 0:
        data = tensor._data
        num_classes = int(data.max()) + 1 if data.size else 0
    check_shape(tuple(tensor._data.shape) + (int(num_classes),))


def check_expand(input, *sizes, **kwargs):
    """``x.expand(*sizes)`` / ``torch.broadcast_to(x, shape)``: a view, but its element count must fit too.
    Sizes whose product passes 2**63 made NumPy's broadcast_to raise "iterator is too large" before the
    engine counted them (hostile pass 9, F5)."""
    if not isinstance(input, Tensor):
        return
    if not sizes:
        sizes = (kwargs.get("size", kwargs.get("shape", ())),)
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        sizes = tuple(sizes[0])
    if not all(isinstance(s, int) for s in sizes):
        return   # the op says what is wrong with them
    shape = input._data.shape
    lead = len(sizes) - len(shape)
    result = []
    for i, s in enumerate(sizes):
        if s == -1 and i >= lead:
            s = shape[i - lead]
        if s < 0:
            return   # the op says what is wrong with it
        result.append(s)
    check_shape(result, "an expanded tensor")


def check_pad(input, pad, mode="constant", value=None):
    if not isinstance(input, Tensor):
        return
    shape = list(input._data.shape)
    pad = list(pad)
    for i in range(0, len(pad) - 1, 2):
        d = len(shape) - 1 - i // 2
        if d < 0:
            break
        shape[d] += int(pad[i]) + int(pad[i + 1])
    check_shape(shape)


def _tuple(v, n):
    if isinstance(v, int):
        return (v,) * n
    return tuple(int(x) for x in v)


def check_conv(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Before a convolution: the padded input, the output and the unfolded patches fit."""
    if not (isinstance(input, Tensor) and isinstance(weight, Tensor)) or weight._data.ndim < 3:
        return
    nd = weight._data.ndim - 2
    shape = input._data.shape
    if len(shape) == nd + 1:
        shape = (1,) + shape
    if len(shape) != nd + 2:
        return
    n, c = shape[0], shape[1]
    kernel = weight._data.shape[2:]
    stride, dilation = _tuple(stride, nd), _tuple(dilation, nd)
    pads = (0,) * nd if isinstance(padding, str) else _tuple(padding, nd)
    padded = [s + 2 * p for s, p in zip(shape[2:], pads)]
    out = [max((s - d * (k - 1) - 1) // st + 1, 0) for s, k, d, st in zip(padded, kernel, dilation, stride)]
    check_shape([n, c] + padded, "the padded input")
    check_shape([n, weight._data.shape[0]] + out, "the convolution's result")
    k = 1
    for x in kernel:
        k *= x
    check_shape([n, c * k] + out, "the convolution's unfolded input")


def check_unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    if not isinstance(input, Tensor) or input._data.ndim not in (3, 4):
        return
    n, c, h, w = (1,) * (4 - input._data.ndim) + input._data.shape   # an unbatched (C, H, W) is one sample
    kernel, dilation, padding, stride = (_tuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    out = [max((s + 2 * p - d * (k - 1) - 1) // st + 1, 0)
           for s, k, d, p, st in zip((h, w), kernel, dilation, padding, stride)]
    check_shape([n, c * kernel[0] * kernel[1], out[0] * out[1]], "unfold's result")


def check_pool(input, *rest, **kwargs):
    """Before pooling: the windows' bookkeeping is as large as the input's spatial dims, which
    an empty input may have at 2**30."""
    if isinstance(input, Tensor) and input._data.ndim >= 2:
        check_shape(input._data.shape[2:] if input._data.ndim > 2 else input._data.shape[-1:],
                    "the pooled input's spatial extent")


def check_adaptive_pool(input, output_size, *rest, **kwargs):
    """Before adaptive pooling: its (output, input) averaging matrix per spatial dim fits."""
    if not isinstance(input, Tensor) or input._data.ndim < 1:
        return
    sizes = output_size if isinstance(output_size, (list, tuple)) else (output_size,)
    spatial = input._data.shape[-len(sizes):]
    for out, n in zip(sizes, spatial):
        if isinstance(out, int):
            check_shape((out, n), "the adaptive pooling matrix")


def check_embedding(input, weight, *rest, **kwargs):
    if isinstance(input, Tensor) and isinstance(weight, Tensor) and weight._data.ndim == 2:
        check_shape(tuple(input._data.shape) + (weight._data.shape[1],), "the embedding's result")


MAX_PIECES = 1 << 20   # tensors one split/chunk/unbind may return (each is a Python object)


def _pieces_abort(n):
    return limit_abort("sequence_length", f"limit exceeded: sequence_length: the call would return {n} tensors "
                                          f"(at most {MAX_PIECES})")


def _dim_size(t, dim):
    shape = t._data.shape
    if not shape:
        return 1
    try:
        return shape[int(dim)]
    except (IndexError, TypeError, ValueError):
        return 1


def check_pieces(n):
    if n > MAX_PIECES:
        raise _pieces_abort(n)


def check_split(t, split_size_or_sections, dim=0):
    if not isinstance(t, Tensor):
        return
    if isinstance(split_size_or_sections, (list, tuple)):
        check_pieces(len(split_size_or_sections))
    elif isinstance(split_size_or_sections, int) and split_size_or_sections > 0:
        check_pieces(-(-_dim_size(t, dim) // split_size_or_sections))


def check_tensor_split(t, indices_or_sections, *rest, **kwargs):
    """tensor_split (and hsplit, vsplit, dsplit) return exactly n sections, empty ones past the
    dim's size, or one more tensor than they are given indices."""
    if not isinstance(t, Tensor):
        return
    if isinstance(indices_or_sections, Tensor):
        data = indices_or_sections._data
        check_pieces(int(data) if data.ndim == 0 else data.size + 1)
    elif isinstance(indices_or_sections, int):
        check_pieces(indices_or_sections)
    elif isinstance(indices_or_sections, (list, tuple)):
        check_pieces(len(indices_or_sections) + 1)


def check_chunk(t, chunks, dim=0):
    if isinstance(t, Tensor) and isinstance(chunks, int) and min(chunks, _dim_size(t, dim)) > MAX_PIECES:
        raise _pieces_abort(min(chunks, _dim_size(t, dim)))


def check_unbind(t, dim=0):
    if isinstance(t, Tensor) and _dim_size(t, dim) > MAX_PIECES:
        raise _pieces_abort(_dim_size(t, dim))


def check_einsum(equation, *operands):
    """The output of einsum, and the size of its iteration space, from the subscripts."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str) or not all(isinstance(t, Tensor) for t in operands):
        return
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        return
    sizes = {}
    ellipsis = ()
    for term, t in zip(terms, operands):
        shape = t._data.shape
        if "..." in term:
            head, _, tail = term.partition("...")
            n_ell = len(shape) - len(head) - len(tail)
            if n_ell < 0:
                return
            ell = shape[len(head):len(head) + n_ell]
            ellipsis = broadcast_shape(ellipsis, ell)
            letters = list(head) + list(tail)
            dims = shape[:len(head)] + shape[len(head) + n_ell:]
        else:
            letters, dims = list(term), shape
        if len(letters) != len(dims):
            return
        for c, d in zip(letters, dims):
            sizes[c] = max(sizes.get(c, 1), int(d))
    if arrow:
        out_letters = [c for c in rhs.replace("...", "") if c in sizes]
    else:
        counts = {}
        for term in terms:
            for c in term.replace("...", ""):
                counts[c] = counts.get(c, 0) + 1
        out_letters = sorted(c for c, k in counts.items() if k == 1)
    out = tuple(ellipsis) + tuple(sizes[c] for c in out_letters)
    check_shape(out)
    space = 1
    for d in tuple(ellipsis) + tuple(sizes.values()):
        space *= d
    if space > MAX_MATMUL_FLOPS:
        raise limit_abort("tensor_elements", f"limit exceeded: tensor_elements: einsum {equation!r} iterates "
                                             f"over {space} index combinations (at most {MAX_MATMUL_FLOPS})")


def _index_shape(index):
    """The shape an advanced index (tensor or nested list) broadcasts with, or None."""
    if isinstance(index, Tensor):
        if index._data.dtype.kind == "b":
            return (int(index._data.sum()),)
        return index._data.shape
    if isinstance(index, list):
        shape = []
        x = index
        while isinstance(x, (list, tuple)):
            shape.append(len(x))
            if not x:
                break
            x = x[0]
        if x is True or x is False:
            return (sum(1 for v in index if v is True),)
        return tuple(shape)
    return None


BASIC_INDEX = frozenset((int, slice, type(None), type(Ellipsis)))   # indices that select a view


def check_getitem(x, index):
    """Before ``x[index]`` with tensors or lists as indices: the gathered result fits."""
    if not isinstance(x, Tensor):
        return
    items = index if type(index) is tuple else (index,)
    for it in items:
        if type(it) not in BASIC_INDEX:
            break
    else:
        # basic indexing (x[t, :n] in a loop over time steps): a view, never more elements
        # than x; the walk below cost 5.7 us of the 15 us such an index takes
        return
    adv = None
    shape = x._data.shape
    out = []
    dim = 0
    n_consumed = sum(1 for it in items if it is not None and it is not Ellipsis) 
    for it in items:
        if it is None:
            out.append(1)
            continue
        if it is Ellipsis:
            skip = len(shape) - n_consumed
            out.extend(shape[dim:dim + max(skip, 0)])
            dim += max(skip, 0)
            continue
        s = _index_shape(it)
        if s is not None:
            adv = s if adv is None else broadcast_shape(adv, s)
            if isinstance(it, Tensor) and it._data.dtype.kind == "b":
                dim += it._data.ndim
            else:
                dim += 1
            continue
        if isinstance(it, slice):
            if dim < len(shape):
                out.append(len(range(*it.indices(shape[dim]))))
            dim += 1
            continue
        dim += 1  # an integer removes the dimension
    if adv is None:
        return
    out.extend(shape[dim:])
    check_shape(tuple(adv) + tuple(out))
