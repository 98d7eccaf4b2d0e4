"""``out=`` on the engine's functions, as PyTorch's native functions take it: the result written into
``out`` (resized when its shape differs, cast to its dtype when that is safe), ``out`` returned, and
PyTorch's errors for an unsafe cast and for a result that requires grad. It used to be accepted and
ignored, which left ``out`` silently unchanged (the PyTorch tensors tutorial computed wrong values)."""
import warnings

import numpy as np
import pytest

import gradserve.engine as gs

try:
    import torch
except ImportError:
    torch = None

LIBS = [gs] + ([torch] if torch is not None else [])

CASES = {
    "matmul": lambda T, o: T.matmul(T.ones(2, 3), T.ones(3, 2), out=o),
    "mul": lambda T, o: T.mul(T.arange(4.0).reshape(2, 2), 3, out=o),
    "add_alpha": lambda T, o: T.add(T.ones(2, 2), T.ones(2, 2), alpha=2, out=o),
    "exp": lambda T, o: T.exp(T.zeros(2, 2), out=o),
    "cat": lambda T, o: T.cat([T.ones(1, 2), T.zeros(1, 2)], out=o),
    "zeros": lambda T, o: T.zeros(2, 2, out=o),
    # torch.linalg's functions, in a namespace of their own (they were accepted and ignored)
    "linalg_inv": lambda T, o: T.linalg.inv(T.tensor([[4.0, 1.0], [1.0, 3.0]]), out=o),
    "linalg_solve": lambda T, o: T.linalg.solve(T.tensor([[4.0, 1.0], [1.0, 3.0]]), T.eye(2), out=o),
    "linalg_matrix_power": lambda T, o: T.linalg.matrix_power(T.tensor([[1.0, 1.0], [0.0, 1.0]]), 3, out=o),
}


def _run(T, name, out_shape=(2, 2), dtype=None):
    o = T.full(out_shape, 7.0, dtype=dtype or T.float32)
    r = CASES[name](T, o)
    return o, r


@pytest.mark.parametrize("name", list(CASES))
def test_the_result_is_written_into_out_and_out_returned(name):
    o, r = _run(gs, name)
    assert r is o
    expected = CASES[name](gs, None)
    np.testing.assert_array_equal(o.numpy(), expected.numpy())
    assert o.dtype == gs.float32


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(CASES))
def test_out_matches_torch(name):
    ours, _ = _run(gs, name)
    theirs, _ = _run(torch, name)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_out_of_another_shape_is_resized_with_pytorchs_warning():
    for T in LIBS:
        o = T.zeros(3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            T.mul(T.ones(2, 2), 2, out=o)
        assert tuple(o.shape) == (2, 2) and float(o.sum()) == 8.0
        assert any("was resized" in str(w.message) for w in caught), T
        empty = T.empty(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            T.mul(T.ones(2), 2, out=empty)
        assert tuple(empty.shape) == (2,) and not [w for w in caught if "was resized" in str(w.message)]


def test_a_tuple_out_takes_values_and_indices():
    for T in LIBS:
        v, i = T.empty(0), T.empty(0, dtype=T.int64)
        T.max(T.tensor([[1.0, 3.0], [4.0, 2.0]]), 1, out=(v, i))
        assert v.tolist() == [3.0, 4.0] and i.tolist() == [1, 0]


def test_a_safe_cast_keeps_outs_dtype():
    for T in LIBS:
        o = T.zeros(2, dtype=T.float64)
        T.add(T.ones(2), 1, out=o)
        assert o.dtype == T.float64 and o.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("call, message", [
    (lambda T: T.add(T.ones(2), 1.5, out=T.zeros(2, dtype=T.int64)),
     "result type Float can't be cast to the desired output type Long"),
    (lambda T: T.mul(T.ones(2, requires_grad=True), 2, out=T.zeros(2)),
     "functions with out=... arguments don't support automatic differentiation"),
])
def test_pytorchs_errors(call, message):
    for T in LIBS:
        with pytest.raises(RuntimeError, match=message.replace("(", r"\(").replace(")", r"\)")):
            call(T)


def test_out_works_under_no_grad_with_inputs_that_require_grad():
    x = gs.ones(2, requires_grad=True)
    o = gs.zeros(2)
    with gs.no_grad():
        gs.mul(x, 3, out=o)
    assert o.tolist() == [3.0, 3.0] and not o.requires_grad


def test_out_in_a_program():
    from gradserve.engine.program import Limits, Namespace, run
    out = run("y = torch.zeros(2, 2)\nr = torch.matmul(torch.ones(2, 2), torch.ones(2, 2), out=y)\nprint(y.tolist(), r is y)",
              Namespace(), Limits())
    assert out.ok, out.error
    assert out.stdout == "[[2.0, 2.0], [2.0, 2.0]] True\n"
