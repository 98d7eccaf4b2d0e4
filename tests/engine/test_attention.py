"""The fused attention op (engine/ops/attention.py) and nn.MultiheadAttention on it: gradcheck and
gradgradcheck in float64 of every mask kind, causal, scale, grouped-query heads and dropout (its
mask fixed by the seed); values and gradients against PyTorch; the dropout mask's statistics and
determinism; one node; PyTorch's errors."""
import numpy as np
import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_with_torch, torch



def needs_torch(test):
    return pytest.mark.torch(pytest.mark.skipif(torch is None, reason="compares with PyTorch")(test))


def _sdpa(T):
    return T.nn.functional.scaled_dot_product_attention


def _const(T, array):
    return T.tensor(array)


_RNG = np.random.default_rng(7)
BOOL_MASK = _RNG.random((3, 5)) > 0.4
BOOL_MASK[:, 0] = True                       # every query sees a key: no fully masked row here
DEAD_ROW_MASK = BOOL_MASK.copy()
DEAD_ROW_MASK[1] = False                     # query 1 sees nothing: zero weights, as PyTorch
FLOAT_MASK = _RNG.standard_normal((1, 3, 5))
INF_MASK = np.where(BOOL_MASK, 0.0, -np.inf)

# id -> (fn(T, *inputs), input shapes)
CASES = {
    "plain_4d": (lambda T, q, k, v: _sdpa(T)(q, k, v), [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)]),
    "3d_value_width_differs": (lambda T, q, k, v: _sdpa(T)(q, k, v), [(2, 3, 4), (2, 5, 4), (2, 5, 2)]),
    "2d": (lambda T, q, k, v: _sdpa(T)(q, k, v), [(3, 4), (5, 4), (5, 3)]),
    "causal_fewer_queries": (lambda T, q, k, v: _sdpa(T)(q, k, v, is_causal=True),
                             [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)]),
    "causal_more_queries": (lambda T, q, k, v: _sdpa(T)(q, k, v, is_causal=True),
                            [(1, 2, 5, 3), (1, 2, 3, 3), (1, 2, 3, 3)]),
    "scale": (lambda T, q, k, v: _sdpa(T)(q, k, v, scale=0.3), [(2, 3, 4), (2, 5, 4), (2, 5, 4)]),
    "bool_mask": (lambda T, q, k, v: _sdpa(T)(q, k, v, attn_mask=_const(T, BOOL_MASK)),
                  [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)]),
    "fully_masked_row": (lambda T, q, k, v: _sdpa(T)(q, k, v, attn_mask=_const(T, DEAD_ROW_MASK)),
                         [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)]),
    "additive_mask_constant": (lambda T, q, k, v: _sdpa(T)(q, k, v, attn_mask=_const(T, FLOAT_MASK)),
                               [(2, 3, 4), (2, 5, 4), (2, 5, 4)]),
    "additive_mask_with_minus_inf": (lambda T, q, k, v: _sdpa(T)(q, k, v, attn_mask=_const(T, INF_MASK)),
                                     [(2, 3, 4), (2, 5, 4), (2, 5, 4)]),
    # an additive mask that is itself an input: its gradient too
    "additive_mask_requires_grad": (lambda T, q, k, v, m: _sdpa(T)(q, k, v, attn_mask=m),
                                    [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4), (2, 1, 3, 5)]),
    "grouped_query_heads": (lambda T, q, k, v: _sdpa(T)(q, k, v, enable_gqa=True),
                            [(2, 4, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)]),
    "batch_broadcast": (lambda T, q, k, v: _sdpa(T)(q, k, v), [(2, 2, 3, 4), (1, 2, 5, 4), (2, 1, 5, 4)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_gradcheck_and_gradgradcheck(name):
    fn, shapes = CASES[name]
    check_gradients(fn, shapes)


@pytest.mark.parametrize("name", list(CASES))
@needs_torch
def test_matches_torch(name):
    fn, shapes = CASES[name]
    compare_with_torch(fn, shapes, rtol=1e-7, atol=1e-9)


def test_fully_masked_row_gets_zero_output_and_gradient():
    q, k, v = (gs.randn(*s, dtype=gs.float64, requires_grad=True) for s in [(3, 4), (5, 4), (5, 4)])
    out = _sdpa(gs)(q, k, v, attn_mask=gs.tensor(DEAD_ROW_MASK))
    out.sum().backward()
    assert out[1].tolist() == [0.0] * 4
    assert q.grad[1].tolist() == [0.0] * 4
    assert np.isfinite(k.grad.numpy()).all()


def test_is_one_node_whose_inputs_are_query_key_value():
    q, k, v = (gs.randn(2, 2, 3, 4, requires_grad=True) for _ in range(3))
    out = _sdpa(gs)(q, k, v, attn_mask=gs.ones(3, 3, dtype=gs.bool), dropout_p=0.2)
    node = out.grad_fn
    assert node.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    assert [n.variable for n, _ in node.next_functions[:3]] == [q, k, v]
    assert node.next_functions[3] == (None, 0)


# ------------------------------------------------------------------ dropout
def _revealed_dropout(p, seed, l=64, s=64):
    """With q = k = 0 every weight is 1/S, and V = I makes the output the dropped weight matrix."""
    gs.manual_seed(seed)
    q = gs.zeros(4, l, 8, dtype=gs.float64)
    v = gs.eye(s, dtype=gs.float64).expand(4, s, s)
    return _sdpa(gs)(q, gs.zeros(4, s, 8, dtype=gs.float64), v, dropout_p=p).numpy()


def test_dropout_keeps_a_fraction_1_minus_p_scaled_by_1_over_1_minus_p():
    p = 0.3
    out = _revealed_dropout(p, seed=0)
    kept = out != 0
    # 16,384 Bernoulli draws: the kept fraction within 5 standard deviations of 1 - p
    sd = np.sqrt(p * (1 - p) / kept.size)
    assert abs(kept.mean() - (1 - p)) < 5 * sd
    np.testing.assert_allclose(out[kept], 1 / 64 / (1 - p), rtol=1e-12)
    # the mask is drawn per (batch, query, key), not shared across rows or batches
    assert not (kept[0] == kept[1]).all() and not (kept[0, 0] == kept[0, 1]).all()


def test_dropout_mask_is_fixed_by_the_seed():
    np.testing.assert_array_equal(_revealed_dropout(0.5, seed=3), _revealed_dropout(0.5, seed=3))
    assert (_revealed_dropout(0.5, seed=3) != _revealed_dropout(0.5, seed=4)).any()


def test_dropout_zero_and_one():
    q, k, v = (gs.randn(2, 3, 4, dtype=gs.float64) for _ in range(3))
    np.testing.assert_array_equal(_sdpa(gs)(q, k, v, dropout_p=0.0).numpy(), _sdpa(gs)(q, k, v).numpy())
    assert not _sdpa(gs)(q, k, v, dropout_p=1.0).numpy().any()


def _seeded_dropout(T, q, k, v):
    T.manual_seed(11)
    return _sdpa(T)(q, k, v, dropout_p=0.4, is_causal=True)


def test_dropout_gradcheck_and_gradgradcheck_with_the_mask_fixed_by_the_seed():
    check_gradients(_seeded_dropout, [(2, 4, 4), (2, 4, 4), (2, 4, 3)])


@needs_torch
def test_dropout_values_and_gradients_match_torch_given_the_same_mask():
    # the mask read from our output (V = I), then PyTorch's composite with it against ours
    rng = np.random.default_rng(0)
    l, s, p = 5, 6, 0.4
    gs.manual_seed(5)
    revealed = _sdpa(gs)(gs.zeros(2, l, 3, dtype=gs.float64), gs.zeros(2, s, 3, dtype=gs.float64),
                         gs.eye(s, dtype=gs.float64).expand(2, s, s), dropout_p=p).numpy()
    keep = (revealed != 0) / (1 - p)
    data = [rng.standard_normal(shape) for shape in [(2, l, 3), (2, s, 3), (2, s, 4)]]
    ours = [gs.tensor(a, requires_grad=True) for a in data]
    theirs = [torch.tensor(a, requires_grad=True) for a in data]
    gs.manual_seed(5)
    out = _sdpa(gs)(*ours, dropout_p=p)
    qt, kt, vt = theirs
    ref = (torch.softmax(qt @ kt.transpose(-1, -2) / np.sqrt(3), -1) * torch.tensor(keep)) @ vt
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-12, atol=1e-12)
    w = rng.standard_normal((2, l, 4))
    (out * gs.tensor(w)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ float32
@needs_torch
def test_float32_matches_torch():
    rng = np.random.default_rng(1)
    data = [rng.standard_normal((8, 4, 64, 16)).astype(np.float32) for _ in range(3)]
    ours = [gs.tensor(a, requires_grad=True) for a in data]
    theirs = [torch.tensor(a, requires_grad=True) for a in data]
    out = _sdpa(gs)(*ours, is_causal=True)
    ref = _sdpa(torch)(*theirs, is_causal=True)
    assert out.dtype == gs.float32
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-5)
    out.sum().backward()
    ref.sum().backward()
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------ errors
def _tensors(T, *shapes, dtype=None):
    return [T.zeros(*s, dtype=dtype or T.float32) for s in shapes]


ERRORS = {
    "one_dimensional": lambda T: _sdpa(T)(*_tensors(T, (4,), (4,), (4,))),
    "key_width": lambda T: _sdpa(T)(*_tensors(T, (2, 4, 5, 8), (2, 4, 6, 7), (2, 4, 6, 8))),
    "dtypes": lambda T: _sdpa(T)(T.zeros(2, 3, 4), T.zeros(2, 3, 4, dtype=T.float64), T.zeros(2, 3, 4)),
    "mask_dtype_long": lambda T: _sdpa(T)(*_tensors(T, (2, 3, 4), (2, 5, 4), (2, 5, 4)),
                                          attn_mask=T.zeros(3, 5, dtype=T.int64)),
    "mask_dtype_double": lambda T: _sdpa(T)(*_tensors(T, (2, 3, 4), (2, 5, 4), (2, 5, 4)),
                                            attn_mask=T.zeros(3, 5, dtype=T.float64)),
    "mask_shape": lambda T: _sdpa(T)(*_tensors(T, (2, 4, 5, 8), (2, 4, 6, 8), (2, 4, 6, 8)),
                                     attn_mask=T.zeros(4, 6)),
    "mask_and_causal": lambda T: _sdpa(T)(*_tensors(T, (2, 3, 4), (2, 5, 4), (2, 5, 4)),
                                          attn_mask=T.ones(3, 5, dtype=T.bool), is_causal=True),
    "heads": lambda T: _sdpa(T)(*_tensors(T, (2, 4, 5, 8), (2, 3, 6, 8), (2, 3, 6, 8))),
    "gqa_heads_do_not_divide": lambda T: _sdpa(T)(*_tensors(T, (2, 4, 5, 8), (2, 3, 6, 8), (2, 3, 6, 8)),
                                                  enable_gqa=True),
}


@pytest.mark.parametrize("name", list(ERRORS))
@needs_torch
def test_errors_are_pytorchs(name):
    with pytest.raises(Exception) as theirs:
        ERRORS[name](torch)
    with pytest.raises(Exception) as ours:
        ERRORS[name](gs)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


def test_errors_without_torch():
    with pytest.raises(RuntimeError, match="at least 2 dimensional, but got query.dim: 1"):
        ERRORS["one_dimensional"](gs)
    with pytest.raises(RuntimeError, match=r"batch2 tensor to be: \[8, 8\] but got: \[8, 7\]"):
        ERRORS["key_width"](gs)
    with pytest.raises(RuntimeError, match="attn_mask.dtype: long int and  query.dtype: float"):
        ERRORS["mask_dtype_long"](gs)
    with pytest.raises(RuntimeError, match="must divide the number of heads in "):
        ERRORS["gqa_heads_do_not_divide"](gs)
    # value's length differs from key's: PyTorch's CPU kernel reads past it; here a clear error
    with pytest.raises(RuntimeError, match=r"batch2 tensor to be: \[2, 5\] but got: \[2, 4\]"):
        _sdpa(gs)(*_tensors(gs, (2, 3, 4), (2, 5, 4), (2, 4, 4)))
    with pytest.raises(ValueError, match="dropout probability"):
        _sdpa(gs)(*_tensors(gs, (2, 3, 4), (2, 5, 4), (2, 5, 4)), dropout_p=1.5)


# ------------------------------------------------------------------ nn.MultiheadAttention on the fused op
def _mha_pair(seed=0, **kwargs):
    """The same MultiheadAttention, float64, in both libraries (PyTorch's initial weights copied)."""
    torch.manual_seed(seed)
    theirs = torch.nn.MultiheadAttention(**kwargs).double()
    ours = gs.nn.MultiheadAttention(**kwargs).double()
    ours.load_state_dict({k: gs.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


MHA_CASES = {
    # (module kwargs, (query, key, value) shapes or "self", call kwargs built from T)
    "self_causal_batch_first": (dict(embed_dim=8, num_heads=2, batch_first=True), "self", (3, 5, 8),
                                lambda T: dict(attn_mask=T.nn.Transformer.generate_square_subsequent_mask(5),
                                               is_causal=True)),
    "self_sequence_first_bool_mask": (dict(embed_dim=8, num_heads=4), "self", (5, 3, 8),
                                      lambda T: dict(attn_mask=T.tensor(~BOOL_MASK[[0, 1, 2, 0, 1]]
                                                                        [:, [0, 1, 2, 3, 4]]))),
    "self_key_padding_mask": (dict(embed_dim=8, num_heads=2, batch_first=True), "self", (3, 5, 8),
                              lambda T: dict(key_padding_mask=T.tensor([[False] * 5, [False] * 3 + [True] * 2,
                                                                        [False] * 4 + [True]]))),
    "causal_with_key_padding_mask": (
        dict(embed_dim=8, num_heads=2, batch_first=True), "self", (3, 5, 8),
        lambda T: dict(attn_mask=T.nn.Transformer.generate_square_subsequent_mask(5), is_causal=True,
                       key_padding_mask=T.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 5]))),
    "cross_attention_3d_float_mask": (dict(embed_dim=6, num_heads=3), ((4, 2, 6), (5, 2, 6), (5, 2, 6)), None,
                                      lambda T: dict(attn_mask=T.tensor(FLOAT_MASK.repeat(6, 0)[:, :, :5]
                                                                        .reshape(6, 3, 5)[:, [0, 1, 2, 0], :]))),
    "kdim_vdim_bias_kv_zero_attn": (dict(embed_dim=6, num_heads=3, kdim=4, vdim=5, add_bias_kv=True,
                                         add_zero_attn=True), ((4, 2, 6), (5, 2, 4), (5, 2, 5)), None,
                                    lambda T: dict(key_padding_mask=T.tensor([[False] * 5, [False] * 4 + [True]]))),
    "unbatched_no_bias": (dict(embed_dim=4, num_heads=2, bias=False), "self", (5, 4), lambda T: {}),
}


def _mha_inputs(spec, shape, rng):
    if spec == "self":
        x = rng.standard_normal(shape)
        return [x], True
    return [rng.standard_normal(s) for s in spec], False


@pytest.mark.parametrize("name", list(MHA_CASES))
@needs_torch
def test_multihead_attention_without_weights_matches_torch(name):
    kwargs, spec, shape, call = MHA_CASES[name]
    ours, theirs = _mha_pair(**kwargs)
    data, same = _mha_inputs(spec, shape, np.random.default_rng(0))
    xs_g = [gs.tensor(a, requires_grad=True) for a in data]
    xs_t = [torch.tensor(a, requires_grad=True) for a in data]
    args_g = xs_g * 3 if same else xs_g
    args_t = xs_t * 3 if same else xs_t
    out_g, w_g = ours(*args_g, need_weights=False, **call(gs))
    out_t, w_t = theirs(*args_t, need_weights=False, **call(torch))
    assert w_g is None and w_t is None
    np.testing.assert_allclose(out_g.detach().numpy(), out_t.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = np.random.default_rng(1).standard_normal(tuple(out_t.shape))
    (out_g * gs.tensor(g)).sum().backward()
    (out_t * torch.tensor(g)).sum().backward()
    for a, b in zip(xs_g, xs_t):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-11)
    params_t = dict(theirs.named_parameters())
    for pname, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), params_t[pname].grad.numpy(), rtol=1e-9, atol=1e-11,
                                   err_msg=pname)


def test_multihead_attention_self_attention_is_one_projection_and_one_attention_node():
    mha = gs.nn.MultiheadAttention(8, 2, batch_first=True)
    x = gs.randn(3, 5, 8, requires_grad=True)
    out, _ = mha(x, x, x, need_weights=False, attn_mask=gs.nn.Transformer.generate_square_subsequent_mask(5),
                 is_causal=True)
    names = []
    stack, seen = [out.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(node.name())
        stack.extend(n for n, _ in node.next_functions)
    assert names.count("ScaledDotProductFlashAttentionForCpuBackward0") == 1
    assert names.count("LinearBackward0") == 2          # the packed in-projection and out_proj
    assert "SoftmaxBackward0" not in names


def test_multihead_attention_dropout_applies_in_training_only():
    mha = gs.nn.MultiheadAttention(8, 2, dropout=0.5, batch_first=True).double()
    x = gs.randn(2, 6, 8, dtype=gs.float64)
    gs.manual_seed(0)
    a = mha(x, x, x, need_weights=False)[0]
    gs.manual_seed(1)
    b = mha(x, x, x, need_weights=False)[0]
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())
    mha.eval()
    c = mha(x, x, x, need_weights=False)[0]
    d = mha(x, x, x, need_weights=False)[0]
    np.testing.assert_array_equal(c.detach().numpy(), d.detach().numpy())
    # in eval the fused path and the need_weights path agree
    e = mha(x, x, x)[0]
    np.testing.assert_allclose(c.detach().numpy(), e.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_multihead_attention_fused_path_gradgradcheck():
    from gradserve.engine.autograd import gradcheck, gradgradcheck
    mha = gs.nn.MultiheadAttention(4, 2, batch_first=True).double()
    x = gs.randn(2, 3, 4, dtype=gs.float64, requires_grad=True)
    mask = gs.nn.Transformer.generate_square_subsequent_mask(3, dtype=gs.float64)

    def f(x):
        return mha(x, x, x, need_weights=False, attn_mask=mask, is_causal=True)[0]

    assert gradcheck(f, [x])
    assert gradgradcheck(f, [x])


@needs_torch
def test_multihead_attention_mask_shape_errors_are_pytorchs():
    for lib in (torch, gs):
        lib.manual_seed(0)
    for make in (lambda T: T.zeros(4, 4), lambda T: T.zeros(3, 5, 5), lambda T: T.zeros(1, 1, 5, 5)):
        errors = []
        for T in (torch, gs):
            mha = T.nn.MultiheadAttention(8, 2, batch_first=True)
            x = T.zeros(3, 5, 8)
            with pytest.raises(Exception) as e:
                mha(x, x, x, need_weights=False, attn_mask=make(T))
            errors.append((type(e.value), str(e.value)))
        assert errors[0] == errors[1]


# ------------------------------------------------------------------ F.multi_head_attention_forward
def _mhaf(T):
    return T.nn.functional.multi_head_attention_forward


_KPM = np.array([[False, False, True, False, True], [False, True, False, False, False]])
_ATTN_2D = _RNG.standard_normal((3, 5))
_CAUSAL = np.triu(np.ones((3, 3), dtype=bool), 1)

# id -> (fn(T, *inputs), input shapes); E = 4, 2 heads, (L, N, E) = (3, 2, 4), S = 5
MHAF_CASES = {
    # packed in_proj_weight, a boolean key_padding_mask, the head-averaged weights
    "packed_key_padding_mask": (
        lambda T, q, k, v, w, b, ow, ob: _mhaf(T)(
            q, k, v, 4, 2, w, b, None, None, False, 0.0, ow, ob,
            key_padding_mask=_const(T, _KPM)),
        [(3, 2, 4), (5, 2, 4), (5, 2, 4), (12, 4), (12,), (4, 4), (4,)]),
    # CLIP's AttentionPool2d: separate q/k/v weights, one query, need_weights=False (the fused path)
    "separate_weights_one_query_fused": (
        lambda T, q, k, v, wq, wk, wv, b, ow, ob: _mhaf(T)(
            query=q, key=k, value=v, embed_dim_to_check=4, num_heads=2, q_proj_weight=wq, k_proj_weight=wk,
            v_proj_weight=wv, in_proj_weight=None, in_proj_bias=b, bias_k=None, bias_v=None,
            add_zero_attn=False, dropout_p=0, out_proj_weight=ow, out_proj_bias=ob,
            use_separate_proj_weight=True, training=True, need_weights=False)[0],
        [(1, 2, 4), (5, 2, 4), (5, 2, 4), (4, 4), (4, 4), (4, 4), (12,), (4, 4), (4,)]),
    # unbatched, an additive 2-D attn_mask, bias_k / bias_v and a zero attention slot, per-head weights
    "unbatched_bias_kv_zero_attn": (
        lambda T, q, k, v, w, b, bk, bv, ow, ob: _mhaf(T)(
            q, k, v, 4, 2, w, b, bk, bv, True, 0.0, ow, ob, attn_mask=_const(T, _ATTN_2D),
            average_attn_weights=False),
        [(3, 4), (5, 4), (5, 4), (12, 4), (12,), (1, 1, 4), (1, 1, 4), (4, 4), (4,)]),
    # self-attention with a causal boolean mask and the is_causal hint, fused, no biases
    "causal_hint_fused": (
        lambda T, x, w, ow: _mhaf(T)(
            x, x, x, 4, 2, w, None, None, None, False, 0.0, ow, None, attn_mask=_const(T, _CAUSAL),
            need_weights=False, is_causal=True)[0],
        [(3, 2, 4), (12, 4), (4, 4)]),
}


@pytest.mark.parametrize("name", list(MHAF_CASES))
def test_multi_head_attention_forward_gradcheck(name):
    fn, shapes = MHAF_CASES[name]
    check_gradients(fn, shapes, second_order=False)


@pytest.mark.parametrize("name", list(MHAF_CASES))
@needs_torch
def test_multi_head_attention_forward_matches_torch(name):
    fn, shapes = MHAF_CASES[name]
    compare_with_torch(fn, shapes, rtol=1e-7, atol=1e-9)


def test_multi_head_attention_forward_is_the_modules_computation():
    gs.manual_seed(0)
    mha = gs.nn.MultiheadAttention(4, 2, add_bias_kv=True, dtype=gs.float64)
    q, k, v = gs.randn(3, 2, 4, dtype=gs.float64), gs.randn(5, 2, 4, dtype=gs.float64), gs.randn(5, 2, 4, dtype=gs.float64)
    want, want_w = mha(q, k, v, key_padding_mask=gs.tensor(_KPM))
    got, got_w = _mhaf(gs)(q, k, v, 4, 2, mha.in_proj_weight, mha.in_proj_bias, mha.bias_k, mha.bias_v, False,
                           0.0, mha.out_proj.weight, mha.out_proj.bias, key_padding_mask=gs.tensor(_KPM))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(got_w.detach().numpy(), want_w.detach().numpy(), rtol=1e-12)


def test_multi_head_attention_forward_errors_as_pytorch():
    q = gs.randn(3, 2, 4)
    w, ow = gs.randn(12, 4), gs.randn(4, 4)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 8"):
        _mhaf(gs)(q, q, q, 8, 2, w, None, None, None, False, 0.0, ow, None)
    with pytest.raises(AssertionError, match="q_proj_weight is None"):
        _mhaf(gs)(q, q, q, 4, 2, None, None, None, None, False, 0.0, ow, None, use_separate_proj_weight=True)
    with pytest.raises(RuntimeError, match="Need attn_mask"):
        _mhaf(gs)(q, q, q, 4, 2, w, None, None, None, False, 0.0, ow, None, is_causal=True)
