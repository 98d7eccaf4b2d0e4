"""Linear algebra: matmul and its relatives (mm, bmm, mv, dot, outer, inner), einsum,
tensordot, trace, and the fused multiply-adds (addmm, addmv, addr, baddbmm, addbmm).

matmul and einsum are the two primitives with backward rules; the rest are
written in terms of them. Shapes are checked before anything is computed, with
PyTorch's messages, and every product's size is checked against the element limit.
"""
import math
import operator
import warnings
from collections import Counter

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..device import get_array_module
from ..limits import check_broadcast, check_elements
from ..tensor import Tensor, _wrap_dim
from .arguments import tensor_parameters
from .shape import broadcast_shapes, diagonal, expand, permute, reshape, unsqueeze

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "einsum", "tensordot",
           "trace", "addmm", "addmv", "addr", "baddbmm", "addbmm", "matrix_power"]

# einsum subscripts, in the order an implicit output lists them (PyTorch's: A-Z, then a-z)
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_C_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
           "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}
_SCALAR_TYPE = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
                "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _name(x, table):
    return table.get(_dt.from_numpy_dtype(x._data.dtype).name, str(x._data.dtype))


# ------------------------------------------------------------------ matmul
class MatMul(Op):
    __slots__ = ()
    op = "matmul"
    saves = (0, 1)
    grad_needs = ((1,), (0,))

    def forward(self, a, b):
        return a @ b

    def backward(self, F, g, a, b):
        need_a = self.next_functions[0][0] is not None
        need_b = self.next_functions[1][0] is not None
        # an operand is None when only the other's gradient, not wanted, reads it; its own
        # gradient's node then knows its shape
        sa = a.shape if a is not None else self.next_functions[0][0].shape
        sb = b.shape if b is not None else self.next_functions[1][0].shape
        ga = gb = None
        if len(sa) == 1 and len(sb) == 1:   # dot
            return (g * b if need_a else None), (g * a if need_b else None)
        if len(sa) == 1:                    # (k) @ (..., k, n) -> (..., n)
            if need_a:
                ga = F.sum_to(F.matmul(F.unsqueeze(g, -2), F.transpose(b, -1, -2)), (1, sa[0]))
                ga = F.reshape(ga, sa)
            if need_b:
                gb = F.matmul(F.unsqueeze(a, -1), F.unsqueeze(g, -2))
            return ga, gb
        if len(sb) == 1:                    # (..., m, k) @ (k) -> (..., m)
            if need_a:
                ga = F.matmul(F.unsqueeze(g, -1), F.unsqueeze(b, -2))
            if need_b:
                gb = F.reshape(F.sum_to(F.matmul(F.unsqueeze(g, -2), a), (1, sb[0])), sb)
            return ga, gb
        if need_a:
            ga = F.matmul(g, F.transpose(b, -1, -2))
        if need_b:
            if len(sb) == 2 and len(sa) > 2:  # a weight shared over a batch: one matrix product, no batch of them
                k, n = sb
                gb = F.matmul(F.transpose(F.reshape(a, (-1, k)), 0, 1), F.reshape(g, (-1, n)))
            else:
                gb = F.matmul(F.transpose(a, -1, -2), g)
        return ga, gb


class Dot(MatMul):
    __slots__ = ()
    backward_name = "DotBackward0"


class Mv(MatMul):
    __slots__ = ()
    backward_name = "MvBackward0"


class Mm(MatMul):
    __slots__ = ()
    backward_name = "MmBackward0"


class Bmm(MatMul):
    __slots__ = ()
    backward_name = "BmmBackward0"


# the node PyTorch records for each product (its matmul of other ranks ends in a view of a bmm)
_PRODUCT_NODE = {"dot": Dot, "mv": Mv, "mm": Mm, "bmm": Bmm}


def _matmul_shape(sa, sb):
    """The shape of a @ b, or PyTorch's error for operands that do not multiply."""
    na, nb = len(sa), len(sb)
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D")
    if na == 1 and nb == 1:
        if sa[0] != sb[0]:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] to have the "
                               f"same number of elements, but got {sa[0]} and {sb[0]} elements respectively")
        return ()
    if nb == 1:
        if sa[-1] != sb[0]:
            rows = math.prod(sa[:-1])
            raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{sa[-1]}), vec ({sb[0]})")
        return tuple(sa[:-1])
    if nb == 2:
        k = sa[-1]
        if k != sb[0]:
            rows = math.prod(sa[:-1]) if na > 1 else 1
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and {sb[0]}x{sb[1]})")
        return tuple(sa[:-1]) + (sb[1],)
    batch = tuple(broadcast_shapes(sa[:-2], sb[:-2]))
    k = sa[-1]
    if k != sb[-2]:
        n = math.prod(batch)
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {k}] but got: "
                           f"[{n}, {sb[-2]}].")
    return batch + ((sa[-2],) if na > 1 else ()) + (sb[-1],)


def _check_dtypes(a, b, op):
    if a._data.dtype != b._data.dtype:
        if op == "dot":
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                               f"{_name(a, _SCALAR_TYPE)} and {_name(b, _SCALAR_TYPE)}")
        if op == "mv":
            v, m = _name(b, _SCALAR_TYPE), _name(a, _SCALAR_TYPE)
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got {v}, {m}, and {v}")
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_name(a, _C_TYPE)} != "
                           f"{_name(b, _C_TYPE)}")
    if a._data.dtype == np.bool_:
        raise NotImplementedError(f"\"{op}\" not implemented for 'Bool'")


def _product(a, b, op):
    shape = _matmul_shape(a._data.shape, b._data.shape)
    _check_dtypes(a, b, op)
    check_elements(shape, f"{op} result")
    return _PRODUCT_NODE.get(op, MatMul).apply(a, b)


@tensor_parameters("input", "other")
def matmul(input, other, *, out=None):
    """Matrix product of two tensors, with NumPy's batching and broadcasting."""
    a, b = input._data.ndim, other._data.ndim
    op = "dot" if a == b == 1 else "mv" if b == 1 and a == 2 else "mm" if a == b == 2 else "matmul"
    return _product(input, other, op)


@tensor_parameters("input", "mat2")
def mm(input, mat2, *, out=None):
    """Performs a matrix multiplication of the matrices input and mat2."""
    if input._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return _product(input, mat2, "mm")


@tensor_parameters("input", "mat2")
def bmm(input, mat2, *, out=None):
    """Performs a batch matrix-matrix product of matrices stored in input and mat2 (both 3-D)."""
    if input._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2._data.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    sa, sb = input._data.shape, mat2._data.shape
    if sb[0] != sa[0] or sb[1] != sa[2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{sa[0]}, {sa[2]}] but "
                           f"got: [{sb[0]}, {sb[1]}].")
    return _product(input, mat2, "bmm")


@tensor_parameters("input", "vec")
def mv(input, vec, *, out=None):
    """Performs a matrix-vector product of the matrix input and the vector vec."""
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input._data.ndim}, {vec._data.ndim}")
    return _product(input, vec, "mv")


@tensor_parameters("input", "tensor")
def dot(input, tensor, *, out=None):
    """Computes the dot product of two 1-D tensors."""
    if input._data.ndim != 1 or tensor._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {tensor._data.ndim}D tensors")
    return _product(input, tensor, "dot")


vdot = dot


@tensor_parameters("input", "other")
def inner(input, other, *, out=None):
    """Computes the dot product over the last dimension of two tensors."""
    if input._data.ndim == 0 or other._data.ndim == 0:
        return input * other
    sa, sb = input._data.shape, other._data.shape
    if sa[-1] != sb[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(sa)} and {list(sb)}")
    return tensordot(input, other, ([-1], [-1]))


@tensor_parameters("input", "vec2")
def outer(input, vec2, *, out=None):
    """Outer product of input and vec2 (two 1-D tensors)."""
    if input._data.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input._data.ndim}-D")
    if vec2._data.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2._data.ndim}-D")
    check_elements((input._data.shape[0], vec2._data.shape[0]), "outer result")
    return unsqueeze(input, 1) * vec2


ger = outer


def trace(input):
    """Returns the sum of the elements of the diagonal of the input 2-D matrix."""
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._data.ndim}")
    return diagonal(input).sum()


def tensordot(a, b, dims=2, out=None):
    """Returns a contraction of a and b over multiple dimensions."""
    na, nb = a._data.ndim, b._data.ndim
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(na, nb):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(-dims, 0)), list(range(dims))
    else:
        da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    sa, sb = a._data.shape, b._data.shape
    for x, y in zip(da, db):
        if sa[_wrap_dim(x, na)] != sb[_wrap_dim(y, nb)]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {sa[_wrap_dim(x, na)]} in "
                               f"dim {x} and second has size {sb[_wrap_dim(y, nb)]} in dim {y}")
    ca = [_wrap_dim(d, na) for d in da]
    cb = [_wrap_dim(d, nb) for d in db]
    fa = [d for d in range(na) if d not in ca]
    fb = [d for d in range(nb) if d not in cb]
    k = math.prod(sa[d] for d in ca)
    out_shape = tuple(sa[d] for d in fa) + tuple(sb[d] for d in fb)
    check_elements(out_shape, "tensordot result")
    left = reshape(permute(a, fa + ca), (math.prod(sa[d] for d in fa), k))
    right = reshape(permute(b, cb + fb), (k, math.prod(sb[d] for d in fb)))
    return reshape(mm(left, right), out_shape)


# ------------------------------------------------------------------ fused multiply-adds
def _scaled_sum(input, product, beta, alpha, op):
    # input is broadcast to the product's shape first, for PyTorch's error when it cannot be
    base = expand(input, tuple(product._data.shape))
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product  # PyTorch ignores input when beta is 0 (its nan and inf do not propagate)
    return product + (base if beta == 1 else base * beta)


def _legacy_scales(name, operands, input, a, b, legacy, beta, alpha):
    """PyTorch's deprecated overloads that take the scales first, with a UserWarning as PyTorch's:
    ``torch.X(beta, input, alpha, a, b)`` and ``torch.X(beta, input, a, b)``, and as methods
    ``input.X(beta, alpha, a, b)`` and ``input.X(beta, a, b)`` (pytorch-center-loss's
    ``distmat.addmm_(1, -2, x, centers.t())``). Returns input, a, b, beta, alpha."""
    if not legacy:
        return input, a, b, beta, alpha
    args = (input, a, b) + legacy
    if isinstance(args[0], Tensor):     # input.X(beta, [alpha,] a, b)
        input, beta_, rest = args[0], args[1], args[2:]
    else:                               # torch.X(beta, input, [alpha,] a, b)
        beta_, input, rest = args[0], args[1], args[2:]
    alpha_ = 1
    if len(rest) == 3:
        alpha_, rest = rest[0], rest[1:]
    if (beta != 1 or alpha != 1 or len(rest) != 2 or isinstance(beta_, Tensor) or isinstance(alpha_, Tensor)
            or not all(isinstance(t, Tensor) for t in (input,) + rest)):
        raise TypeError(f"{name}() received an invalid combination of arguments")
    first, second = operands
    self_ = "" if isinstance(args[0], Tensor) else "Tensor input, "   # a method's self is not in its signature
    warnings.warn(f"This overload of {name} is deprecated:\n\t{name}(Number beta, {self_}Number alpha, "
                  f"Tensor {first}, Tensor {second})\nConsider using one of the following signatures instead:\n"
                  f"\t{name}({self_}Tensor {first}, Tensor {second}, *, Number beta = 1, Number alpha = 1)",
                  UserWarning, stacklevel=3)
    return input, rest[0], rest[1], beta_, alpha_


def addmm(input, mat1, mat2, *legacy, beta=1, alpha=1, out=None):
    """beta * input + alpha * (mat1 @ mat2)."""
    input, mat1, mat2, beta, alpha = _legacy_scales("addmm", _OPERANDS["addmm"], input, mat1, mat2, legacy, beta, alpha)
    return _scaled_sum(input, mm(mat1, mat2), beta, alpha, "addmm")


def addmv(input, mat, vec, *legacy, beta=1, alpha=1, out=None):
    """beta * input + alpha * (mat @ vec)."""
    input, mat, vec, beta, alpha = _legacy_scales("addmv", _OPERANDS["addmv"], input, mat, vec, legacy, beta, alpha)
    return _scaled_sum(input, mv(mat, vec), beta, alpha, "addmv")


def addr(input, vec1, vec2, *legacy, beta=1, alpha=1, out=None):
    """beta * input + alpha * outer(vec1, vec2)."""
    input, vec1, vec2, beta, alpha = _legacy_scales("addr", _OPERANDS["addr"], input, vec1, vec2, legacy, beta, alpha)
    return _scaled_sum(input, outer(vec1, vec2), beta, alpha, "addr")


def baddbmm(input, batch1, batch2, *legacy, beta=1, alpha=1, out=None):
    """beta * input + alpha * bmm(batch1, batch2)."""
    input, batch1, batch2, beta, alpha = _legacy_scales("baddbmm", _OPERANDS["baddbmm"], input, batch1, batch2, legacy,
                                                        beta, alpha)
    return _scaled_sum(input, bmm(batch1, batch2), beta, alpha, "baddbmm")


def addbmm(input, batch1, batch2, *legacy, beta=1, alpha=1, out=None):
    """beta * input + alpha * (the sum over the batch of bmm(batch1, batch2))."""
    input, batch1, batch2, beta, alpha = _legacy_scales("addbmm", _OPERANDS["addbmm"], input, batch1, batch2, legacy,
                                                        beta, alpha)
    return _scaled_sum(input, bmm(batch1, batch2).sum(0), beta, alpha, "addbmm")


_OPERANDS = {"addmm": ("mat1", "mat2"), "addmv": ("mat", "vec"), "addr": ("vec1", "vec2"),
             "baddbmm": ("batch1", "batch2"), "addbmm": ("batch1", "batch2")}


# ------------------------------------------------------------------ einsum
class Einsum(Op):
    """einsum over explicit subscripts ("ij,jk->ik"; ellipses already spelled out).

    The gradient of an operand is the einsum of the output gradient with the
    other operands, so it is differentiable again (create_graph). A subscript
    repeated within the operand ("ii") is put back on the diagonal through an
    identity matrix; one summed away only there gets a vector of ones.
    """
    __slots__ = ("equation",)
    op = "einsum"

    def forward(self, *operands, equation):
        self.equation = equation
        return _einsum_arrays(equation, operands)

    def backward(self, F, g, *operands):
        lhs, out = self.equation.split("->")
        subs = lhs.split(",")
        # an operand's own gradient never reads it (only its shape, which its gradient's node knows)
        edges = self.next_functions
        return tuple(_einsum_grad(F, g, operands, subs, out, i, edges[i][0].shape) if edges[i][0] is not None
                     else None for i in range(len(subs)))


def _einsum_class(n):
    """Einsum for n operands: its ``saves`` names all of them, each gradient reading the others."""
    others = tuple(tuple(j for j in range(n) if j != i) for i in range(n))
    return type("Einsum", (Einsum,), {"__slots__": (), "saves": tuple(range(n)), "grad_needs": others})


# One node class per operand count, made here once: a class made per call would be a process-wide
# cache growing with what programs ask for. Einsums of more operands are contracted in groups.
EINSUM_MAX_OPERANDS = 8
_EINSUM_ARITY = {n: _einsum_class(n) for n in range(1, EINSUM_MAX_OPERANDS + 1)}


def _einsum_groups(subs, out, operands):
    """An einsum of many operands as nested einsums of at most EINSUM_MAX_OPERANDS: the first
    group is contracted to the subscripts the others or the output still need."""
    while len(subs) > EINSUM_MAX_OPERANDS:
        k = EINSUM_MAX_OPERANDS
        head, rest = subs[:k], subs[k:]
        needed = set(out).union(*rest)
        kept = "".join(dict.fromkeys(c for s in head for c in s if c in needed))
        sizes = {}
        for s, o in zip(head, operands[:k]):
            sizes.update(zip(s, o._data.shape))
        check_elements(tuple(sizes[c] for c in kept), "einsum intermediate")
        inner = _EINSUM_ARITY[k].apply(*operands[:k], equation=",".join(head) + "->" + kept)
        subs, operands = [kept] + rest, [inner] + operands[k:]
    return subs, operands


def _einsum_arrays(equation, operands):
    xp = get_array_module(operands[0])
    dtypes = {o.dtype for o in operands}
    if len(dtypes) > 1:
        want = _dt.result_type(*operands).np
        operands = [o.astype(want) for o in operands]
    if xp is np:
        big = len(operands) > 2 or (len(operands) == 2 and operands[0].size * operands[1].size > 4096)
        out = np.einsum(equation, *operands, optimize="greedy" if big else False)
    else:
        out = xp.einsum(equation, *operands)
    if len(operands) == 1:
        out = out.copy()  # a one-operand einsum may be a view of its input
    elif not out.flags.c_contiguous:   # PyTorch's contractions come back contiguous (former's slice_diag views one)
        out = out.copy()
    return out


def _einsum_grad(F, g, operands, subs, out, i, shape):
    s = subs[i]
    others = [j for j in range(len(subs)) if j != i]
    present = set(out)
    for j in others:
        present.update(subs[j])
    used = set("".join(subs) + out)
    fresh = (c for c in _LETTERS if c not in used)
    is_tensor = isinstance(g, Tensor)
    data = g._data if is_tensor else g
    xp = get_array_module(data)
    terms = [out] + [subs[j] for j in others]
    args = [g] + [operands[j] for j in others]
    target = []
    seen = set()
    for c, n in zip(s, shape):
        if c in seen:
            c2 = next(fresh)
            const = xp.eye(n, dtype=data.dtype)
            terms.append(c + c2)
            target.append(c2)
        else:
            seen.add(c)
            target.append(c)
            if c in present:
                continue
            const = xp.ones(n, dtype=data.dtype)
            terms.append(c)
            present.add(c)
        args.append(Tensor._adopt_array(const, False, None) if is_tensor else const)
    return F.einsum(",".join(terms) + "->" + "".join(target), *args)


def _parse_einsum(equation, shapes):
    """Checks an einsum equation against the operand shapes, as PyTorch does, and spells it
    out: (subscripts per operand, output subscripts, size of each subscript)."""
    eq = equation.replace(" ", "")
    for pos, ch in enumerate(eq):
        if not (ch in _LETTERS or ch in ".,->"):
            raise RuntimeError(f"einsum(): invalid subscript given at index {pos} in the equation string, "
                               f"subscripts must be in [a-zA-Z]")
    lhs, arrow, rhs = eq.partition("->")
    if "-" in lhs or ">" in lhs or "-" in rhs or ">" in rhs:
        raise RuntimeError("einsum(): invalid equation: '->' may appear only once, between inputs and output")
    terms = lhs.split(",")
    if len(terms) > len(shapes):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    free = [c for c in _LETTERS if c not in eq]
    n_ell = 0
    ell_dims = []
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        if "." in term:
            if term.count("...") != 1 or "." in term.replace("...", "", 1):
                raise RuntimeError(f"einsum(): found '.' for operand {i} that is not part of any ellipsis")
            k = len(shape) - (len(term) - 3)
            if k < 0:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(term) - 3}) is more "
                                   f"than the number of dimensions ({len(shape)}) for operand {i}")
            n_ell = max(n_ell, k)
            ell_dims.append(k)
        else:
            if len(term) != len(shape):
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(term)}) does not "
                                   f"match the number of dimensions ({len(shape)}) for operand {i} and no ellipsis "
                                   f"was given")
            ell_dims.append(None)
    if n_ell > len(free):
        raise RuntimeError("einsum(): too many dimensions: at most 52 subscripts are supported")
    ell = "".join(free[:n_ell])
    subs = [t if k is None else t.replace("...", ell[n_ell - k:]) for t, k in zip(terms, ell_dims)]
    sizes = {}
    for i, (s, shape) in enumerate(zip(subs, shapes)):
        here = {}
        for c, n in zip(s, shape):
            if c in here:
                if here[c] != n:
                    raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {i} but the sizes don't "
                                       f"match, {n} != {here[c]}")
                continue
            here[c] = n
            prev = sizes.get(c)
            if prev is None or prev == 1:
                sizes[c] = n
            elif n != 1 and n != prev:
                if c in ell:
                    raise RuntimeError(f"einsum(): dimension {ell.index(c)} covered by ellipsis in operand {i}"
                                       f"has size {n} which does not broadcast with previously seen ellipsis with "
                                       f"size {prev} for the respective dimension")
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {i} which does not broadcast "
                                   f"with previously seen size {prev}")
    if not arrow:
        counts = Counter(c for s in subs for c in s if c not in ell)
        out = ell + "".join(sorted((c for c, n in counts.items() if n == 1), key=_LETTERS.index))
    else:
        if "." in rhs and (rhs.count("...") != 1 or "." in rhs.replace("...", "", 1)):
            raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was expected")
        out = rhs.replace("...", ell)
        for c in out:
            if c not in sizes:
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input "
                                   f"operand")
            if out.count(c) > 1:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
    return subs, out, sizes


def _sublist_equation(args):
    """einsum(op1, [0, 1], op2, [1, 2], [0, 2]) -> ("AB,BC->AC", [op1, op2])."""
    def letters(sub):
        return "".join("..." if d is Ellipsis else _LETTERS[d] for d in sub)
    operands = list(args[0::2][:len(args) // 2])
    terms = [letters(s) for s in args[1::2][:len(args) // 2]]
    equation = ",".join(terms)
    if len(args) % 2:
        equation += "->" + letters(args[-1])
    return equation, operands


def einsum(*args):
    """Sums the product of the elements of the operands along dimensions given by Einstein notation."""
    if args and isinstance(args[0], str):
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    else:
        equation, operands = _sublist_equation(args)
    for i, o in enumerate(operands):
        if not isinstance(o, Tensor):
            raise TypeError(f"einsum(): argument 'operands' must be tuple of Tensors, but found element of type "
                            f"{type(o).__name__} at pos {i}")
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    subs, out, sizes = _parse_einsum(equation, [o._data.shape for o in operands])
    for i, (s, o) in enumerate(zip(subs, operands)):
        want = tuple(sizes[c] for c in s)
        if want != o._data.shape:  # size-1 dimensions broadcast
            operands[i] = expand(o, want)
    check_elements(tuple(sizes[c] for c in out), "einsum result")
    subs, operands = _einsum_groups(list(subs), out, operands)
    return _EINSUM_ARITY[len(operands)].apply(*operands, equation=",".join(subs) + "->" + out)


# ------------------------------------------------------------------ Tensor methods
def _matmul_operator(self, other):
    """``self @ other``: a tensor or a NumPy array (as PyTorch); anything else is NotImplemented, so Python
    tries ``other.__rmatmul__`` (a program's own object) and otherwise raises its TypeError."""
    if isinstance(other, Tensor):
        return matmul(self, other)
    if isinstance(other, np.ndarray):
        from .creation import as_tensor
        return matmul(self, as_tensor(other))
    return NotImplemented


def _inplace_method(name, fn):
    """``self.X_(a, b, *, beta, alpha)``, the deprecated scales-first overloads included."""
    def method(self, a, b, *legacy, beta=1, alpha=1):
        _, a, b, beta, alpha = _legacy_scales(name, _OPERANDS[name[:-1]], self, a, b, legacy, beta, alpha)
        return self._inplace(fn, a, b, beta=beta, alpha=alpha)
    method.__name__ = method.__qualname__ = name
    return method


def _register():
    for name in ("matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "trace", "addmm", "addmv",
                 "addr", "baddbmm", "addbmm"):
        setattr(Tensor, name, globals()[name])
    for name in ("addmm", "addmv", "addr", "baddbmm", "addbmm"):
        fn = globals()[name]
        setattr(Tensor, name + "_", _inplace_method(name + "_", fn))
    Tensor.__matmul__ = _matmul_operator
    Tensor.__rmatmul__ = lambda self, other: matmul(other, self) if isinstance(other, Tensor) else NotImplemented
    Tensor.__imatmul__ = lambda self, other: self._inplace(matmul, other)


_register()


def matrix_power(input, n, *, out=None):   # out: written by keyword_aliases
    """input (a square matrix, or a batch) to the integer power n >= 0, by repeated squaring with
    matmul, so its gradients are matmul's; n = 0 is the identity, a negative n the inverse's power."""
    from .creation import eye
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{input.shape[-2] if input.ndim > 1 else 1} by {input.shape[-1] if input.ndim else 1} "
                           f"matrices")
    n = operator.index(n)
    if n < 0:
        from .factorizations import linalg_inv
        input, n = linalg_inv(input), -n
    if n == 0:
        return eye(input.shape[-1], dtype=input.dtype, device=input.device).expand(tuple(input.shape)).clone()
    result, base = None, input
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return result.clone() if result is input else result


Tensor.matrix_power = matrix_power


# ------------------------------------------------------------------ cross, kron, dist
def _cross(input, other, dim, name):
    from .shape import broadcast_tensors, roll
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"expected scalar type {_name(input, _SCALAR_TYPE)} but found {_name(other, _SCALAR_TYPE)}")
    if input._data.ndim != other._data.ndim:
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions.")
    a, b = broadcast_tensors(input, other)
    d = _wrap_dim(dim, a._data.ndim)
    if input._data.shape[d] != 3 or other._data.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. "
                           f"Got {input._data.shape[d]} and {other._data.shape[d]}")
    # c_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1} (indices mod 3); roll's gradients are its own
    return roll(a, -1, d) * roll(b, -2, d) - roll(a, -2, d) * roll(b, -1, d)


@tensor_parameters("input", "other")
def cross(input, other, dim=None, *, out=None):
    """The cross product of input and other (3-vectors along dim; broadcast over the rest). Without
    dim, the first dimension of length 3, as PyTorch's deprecated default."""
    if dim is None:
        if input._data.ndim == other._data.ndim:
            shape = broadcast_shapes(input._data.shape, other._data.shape)
            dim = next((i for i, s in enumerate(shape) if s == 3), -1)
        else:
            dim = -1
    return _cross(input, other, dim, "cross")


def linalg_cross(input, other, *, dim=-1, out=None):
    """torch.linalg.cross: the cross product along dim (default the last)."""
    return _cross(input, other, dim, "linalg.cross")


@tensor_parameters("input", "other")
def kron(input, other, *, out=None):
    """The Kronecker product: each element of input times all of other, in blocks. Written as a
    broadcast product of interleaved unsqueezes, so its gradients are mul's and reshape's."""
    from .elementwise import result_dtype
    sa, sb = input._data.shape, other._data.shape
    n = max(len(sa), len(sb))
    sa = (1,) * (n - len(sa)) + tuple(sa)
    sb = (1,) * (n - len(sb)) + tuple(sb)
    shape = tuple(x * y for x, y in zip(sa, sb))
    check_elements(shape, "kron result")
    a = reshape(input, tuple(v for s in sa for v in (s, 1)))
    b = reshape(other, tuple(v for s in sb for v in (1, s)))
    return reshape(a * b, shape)


@tensor_parameters("input", "other")
def dist(input, other, p=2):
    """The p-norm of input - other (broadcast), over every element."""
    from .reduction import norm
    from .elementwise import sub
    check_broadcast(input, other)
    diff = sub(input, other)
    if not diff.is_floating_point():
        diff = diff.float()
    return norm(diff, p=p)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of x1 (..., P, M) and each row of x2 (..., R, M):
    (..., P, R), batch dims broadcast. Computed as the norm of the broadcast differences (every
    compute_mode alike), so its gradients are sub's and norm's: zero where a distance is zero."""
    from .reduction import norm
    for name, x in (("X1", x1), ("X2", x2)):
        if x._data.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x._data.ndim}D")
    if x1._data.shape[-1] != x2._data.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1._data.shape[-1]} "
                           f"X2: {x2._data.shape[-1]}")
    for name, x in (("X1", x1), ("X2", x2)):
        if x._data.dtype.kind != "f":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {_name(x, _SCALAR_TYPE)}")
    if x1._data.dtype != x2._data.dtype:
        raise RuntimeError(f"expected scalar type {_name(x1, _SCALAR_TYPE)} but found {_name(x2, _SCALAR_TYPE)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    batch = broadcast_shapes(x1._data.shape[:-2], x2._data.shape[:-2])
    (pn, m), rn = x1._data.shape[-2:], x2._data.shape[-2]
    check_elements(tuple(batch) + (pn, rn, m), "cdist differences")
    diff = unsqueeze(x1, -2) - unsqueeze(x2, -3)
    return norm(diff, p=p, dim=-1)


def _register_cross():
    Tensor.cross = cross
    Tensor.kron = kron
    Tensor.dist = dist


_register_cross()
__all__ += ["cross", "kron", "dist", "cdist"]
