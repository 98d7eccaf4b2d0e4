"""Zero-size operands of F.linear and F.scaled_dot_product_attention answer as PyTorch's (attack8 F5).

``F.linear(zeros(2, 3, 0), zeros(4, 0))`` raised NumPy's "cannot reshape array of size 0 into shape (0)"
(``reshape(-1, 0)`` is ambiguous), where PyTorch answers zeros(2, 3, 4); attention over zero keys raised
NumPy's "zero-size array to reduction operation maximum which has no identity", where PyTorch answers
zeros. Values, gradients and their shapes are compared with PyTorch.
"""
import numpy as np
import pytest

import gradserve.engine as G

torch = pytest.importorskip("torch")

CASES = {
    "linear_zero_in_3d": (lambda L, x, w: L.nn.functional.linear(x, w), [(2, 3, 0), (4, 0)]),
    "linear_zero_in_3d_bias": (lambda L, x, w, b: L.nn.functional.linear(x, w, b), [(2, 3, 0), (4, 0), (4,)]),
    "linear_zero_out_3d": (lambda L, x, w: L.nn.functional.linear(x, w), [(2, 3, 4), (0, 4)]),
    "linear_zero_rows_3d": (lambda L, x, w: L.nn.functional.linear(x, w), [(0, 3, 4), (5, 4)]),
    "linear_zero_in_2d_bias": (lambda L, x, w, b: L.nn.functional.linear(x, w, b), [(3, 0), (4, 0), (4,)]),
    "module_linear_zero_in": (lambda L, x: L.nn.Linear(0, 3)(x), [(2, 5, 0)]),
    "sdpa_no_keys": (lambda L, q, k, v: L.nn.functional.scaled_dot_product_attention(q, k, v),
                     [(1, 2, 4), (1, 0, 4), (1, 0, 4)]),
    "sdpa_no_queries_no_keys": (lambda L, q, k, v: L.nn.functional.scaled_dot_product_attention(q, k, v),
                                [(1, 0, 4), (1, 0, 4), (1, 0, 4)]),
    "sdpa_no_queries": (lambda L, q, k, v: L.nn.functional.scaled_dot_product_attention(q, k, v),
                        [(1, 0, 4), (1, 3, 4), (1, 3, 4)]),
}


def _go(lib, fn, shapes):
    inputs = [lib.ones(*s, requires_grad=True) for s in shapes]
    out = fn(lib, *inputs)
    (out * 2.0).sum().backward()
    grads = [None if i.grad is None else np.asarray(i.grad.detach().numpy()) for i in inputs]
    return np.asarray(out.detach().numpy()), grads


@pytest.mark.parametrize("name", sorted(CASES))
def test_zero_size_operands_match_pytorch(name):
    fn, shapes = CASES[name]
    want, want_grads = _go(torch, fn, shapes)
    got, got_grads = _go(G, fn, shapes)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want)
    for g, w in zip(got_grads, want_grads):
        assert (g is None) == (w is None)
        if w is not None:
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w)
