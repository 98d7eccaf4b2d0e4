"""What an op saves for backward: only the inputs a gradient that is asked for reads.

An input that only the gradient of a constant (an input without requires_grad)
would read is not kept, so changing it in place after the op does not break
backward, and it is not kept alive; an input a wanted gradient reads is kept
with its version and changing it raises, in both libraries alike.
"""
import gc
import weakref

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.autograd import gradcheck, gradgradcheck
from gradserve.engine.autograd.function import Function

MODIFIED = "modified by an inplace operation"


def _operands(T, spec, seed=0):
    """Tensors from a spec string, one letter each: W requires grad, C is a constant."""
    rng = np.random.default_rng(seed)
    out = []
    for kind, shape in spec:
        a = np.abs(rng.standard_normal(shape)) + 0.5
        out.append(T.tensor(a, dtype=T.float64, requires_grad=kind == "W"))
    return out


def _F(T):
    return T.nn.functional


# (id, fn(T, *operands), operands as (W: requires grad | C: constant, shape), whose in-place change raises)
CASES = [
    ("mul", lambda T, a, b: a * b, [("W", (3,)), ("C", (3,))], [False, True]),
    ("div", lambda T, a, b: a / b, [("W", (3,)), ("C", (3,))], [False, True]),
    ("div by a tensor that needs grad", lambda T, a, b: a / b, [("C", (3,)), ("W", (3,))], [True, True]),
    ("mm", lambda T, a, b: T.mm(a, b), [("C", (2, 3)), ("W", (3, 4))], [True, False]),
    ("matmul batch by matrix", lambda T, a, b: a @ b, [("C", (2, 2, 3)), ("W", (3, 4))], [True, False]),
    ("matmul vector by matrix", lambda T, a, b: a @ b, [("C", (3,)), ("W", (3, 4))], [True, False]),
    ("matmul matrix by vector", lambda T, a, b: a @ b, [("W", (2, 3)), ("C", (3,))], [False, True]),
    ("bmm", lambda T, a, b: T.bmm(a, b), [("C", (2, 2, 3)), ("W", (2, 3, 4))], [True, False]),
    ("mv", lambda T, a, b: T.mv(a, b), [("W", (2, 3)), ("C", (3,))], [False, True]),
    ("dot", lambda T, a, b: T.dot(a, b), [("C", (3,)), ("W", (3,))], [True, False]),
    ("outer", lambda T, a, b: T.outer(a, b), [("C", (3,)), ("W", (4,))], [True, False]),
    ("einsum", lambda T, a, b: T.einsum("ij,jk->ik", a, b), [("C", (2, 3)), ("W", (3, 4))], [True, False]),
    ("pow of a constant base", lambda T, a, b: a ** b, [("C", (3,)), ("W", (3,))], [True, True]),
    ("pow with a constant exponent", lambda T, a, b: a ** b, [("W", (3,)), ("C", (3,))], [True, True]),
    ("maximum", lambda T, a, b: T.maximum(a, b), [("W", (3,)), ("C", (3,))], [True, True]),
    ("where", lambda T, a, b: T.where(b > 1, a, b), [("W", (3,)), ("C", (3,))], [False, False]),
    ("lerp", lambda T, a, b, w: T.lerp(a, b, w), [("W", (3,)), ("C", (3,)), ("C", (3,))], [False, False, True]),
    ("remainder", lambda T, a, b: a % b, [("W", (3,)), ("C", (3,))], [False, False]),
    ("atan2", lambda T, a, b: T.atan2(a, b), [("W", (3,)), ("C", (3,))], [True, True]),
    ("linear", lambda T, x, w, b: _F(T).linear(x, w, b), [("C", (2, 3)), ("W", (4, 3)), ("W", (4,))],
     [True, False, False]),
    ("linear of a batch", lambda T, x, w, b: _F(T).linear(x, w, b), [("C", (2, 2, 3)), ("W", (4, 3)), ("W", (4,))],
     [True, False, False]),
    ("bilinear", lambda T, x, y, w: _F(T).bilinear(x, y, w), [("C", (2, 3)), ("C", (2, 4)), ("W", (5, 3, 4))],
     [True, True, False]),
    ("conv2d input", lambda T, x, w, b: _F(T).conv2d(x, w, b), [("C", (1, 2, 5, 5)), ("W", (3, 2, 3, 3)), ("W", (3,))],
     [True, None, False]),   # PyTorch keeps the weight even when no input gradient needs it; see below
]


def _grads(T, fn, spec, modify=None):
    operands = _operands(T, spec)
    out = fn(T, *operands)
    if modify is not None:
        with T.no_grad():
            operands[modify].add_(1.0)
    out.sum().backward()
    return [t.grad for t in operands]


def _cases():
    for case, fn, spec, raises in CASES:
        for i, r in enumerate(raises):
            if r is not None:
                verdict = "raises" if r else "is fine"
                yield pytest.param(fn, spec, i, r, id=f"{case}: changing operand {i} {verdict}")


@pytest.mark.parametrize("fn, spec, modify, raises", list(_cases()))
def test_in_place_change_of_an_operand_after_the_op(lib, fn, spec, modify, raises):
    if raises:
        with pytest.raises(RuntimeError, match=MODIFIED):
            _grads(lib, fn, spec, modify)
        return
    changed = _grads(lib, fn, spec, modify)
    # nothing a wanted gradient reads was changed, so the gradients are those of an untouched run
    for got, want in zip(changed, _grads(lib, fn, spec)):
        assert (got is None) == (want is None)
        if got is not None:
            np.testing.assert_allclose(got.numpy(), want.numpy())


def test_operand_of_a_number_product_is_not_saved(lib):
    y = lib.ones(3, 2, requires_grad=True) * 1
    a = y[0] * 2          # y[0]'s value would only serve the gradient of the number
    with lib.no_grad():
        y.add_(1)         # bumps the version y[0] shares
    a.sum().backward()


def test_output_of_a_power_by_a_number_is_not_saved(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    z = x ** 2            # only the exponent's gradient reads the result
    with lib.no_grad():
        z.mul_(3)
    z.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_output_of_a_power_is_saved_when_the_exponent_needs_grad(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    e = lib.tensor([2.0, 2.0], requires_grad=True)
    z = x ** e
    with lib.no_grad():
        z.mul_(3)
    with pytest.raises(RuntimeError, match=MODIFIED):
        z.sum().backward()


def test_conv_weight_is_not_saved_when_only_its_own_gradient_is_wanted():
    # PyTorch's convolution keeps both input and weight whatever is wanted; the weight's
    # gradient reads only the input, so here a weight updated in place does not break backward
    x, w, b = _operands(gs, [("C", (1, 2, 5, 5)), ("W", (3, 2, 3, 3)), ("W", (3,))])
    out = gs.nn.functional.conv2d(x, w, b)
    with gs.no_grad():
        w.add_(1.0)
    out.sum().backward()
    x2, w2, b2 = _operands(gs, [("C", (1, 2, 5, 5)), ("W", (3, 2, 3, 3)), ("W", (3,))])
    gs.nn.functional.conv2d(x2, w2, b2).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), w2.grad.numpy())


def test_an_unneeded_operand_is_not_kept_alive():
    x = gs.randn(3, requires_grad=True)
    a = x.exp()
    out = a @ gs.randn(3, 2)   # a's value only serves the constant's gradient
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is None
    out.sum().backward()
    assert x.grad.shape == (3,)


def test_a_needed_operand_is_kept_alive():
    w = gs.randn(3, 2, requires_grad=True)
    a = gs.randn(3).exp()
    out = a @ w
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is not None
    del out
    gc.collect()
    assert ref() is None


# higher order through the same rules, with the constant's entries missing
@pytest.mark.parametrize("fn, spec", [pytest.param(fn, spec, id=case) for case, fn, spec, _ in CASES])
def test_gradients_with_constant_operands_are_right_to_second_order(fn, spec):
    operands = _operands(gs, spec)
    wanted = [i for i, (kind, _) in enumerate(spec) if kind == "W"]

    def f(*ws):
        args = list(operands)
        for i, w in zip(wanted, ws):
            args[i] = w
        return fn(gs, *args)

    ws = [operands[i] for i in wanted]
    assert gradcheck(f, ws)
    assert gradgradcheck(f, ws)


def test_grad_needs_must_name_saved_entries():
    with pytest.raises(TypeError, match="does not save"):
        type("Bad", (Function,), {"__slots__": (), "saves": (0,), "grad_needs": ((1,), (0,))})
