"""Scaled dot-product attention as one op: softmax(Q K^T * scale + mask) V, with the
causal mask, a boolean or additive attn_mask, dropout on the weights and grouped-query
heads, forward and backward written on arrays (NumPy or CuPy alike).

Forward: one batched product for the scores, the masks applied in place, an in-place
softmax (a row every key of which is masked gets zero weights, as PyTorch's CPU kernels
give), the dropout mask drawn from the run's generator, one product with V. Saved: the
inputs and the attention weights P (before dropout) with the dropout mask.

Backward: dV = Pd^T dO, dPd = dO V^T, dS = P (dP - rowsum(P dP)) with dP = dPd * keep,
dQ = scale dS K, dK = scale dS^T Q; an additive mask that requires grad gets dS summed
to its shape; grouped-query heads sum their group's gradients.

Node name: PyTorch 2.13 runs 4-D inputs with equal head dims on CPU as
``_scaled_dot_product_flash_attention_for_cpu`` (``ScaledDotProductFlashAttentionForCpuBackward0``,
next functions query, key, value); with dropout, an additive mask that requires grad, other
ranks or a value head dim of its own it composes bmm and softmax. Here every call is the one
node, under that name, with the mask as a fourth input (no edge unless it requires grad).

Higher-order gradients: under create_graph the rule re-runs the composite form (matmul,
softmax, the same dropout mask) from the saved inputs and differentiates it with a graph.
"""
import math

import numpy as np

from ..autograd import array_ops as _array_ops
from ..autograd.function import Op, composite_grads
from ..autograd.state import state as _state
from ..device import get_array_module
from ..tensor import Tensor
from .linalg import _C_TYPE
from .shape import broadcast_shapes

__all__ = ["scaled_dot_product_attention", "composite_attention"]

_CAUSAL = {}


def _future(l, s, xp):
    """(L, S) bool, True above the diagonal: the keys a causal query may not see (cached)."""
    key = (l, s, xp)
    got = _CAUSAL.get(key)
    if got is None:
        got = np.triu(np.ones((l, s), dtype=bool), 1)
        got = got if xp is np else xp.asarray(got)
        if len(_CAUSAL) > 32:
            _CAUSAL.clear()
        _CAUSAL[key] = got
    return got


def _repeat_heads(a, groups, xp):
    return a if groups == 1 else xp.repeat(a, groups, axis=-3)


def _sum_groups(a, groups):
    if groups == 1:
        return a
    shape = a.shape
    return a.reshape(shape[:-3] + (shape[-3] // groups, groups) + shape[-2:]).sum(axis=-3)


def _transposed(mask):
    """A mask for (L, S) scores, laid out for the (S, L) scores the kernels work on."""
    return mask[:, None] if mask.ndim == 1 else mask.swapaxes(-1, -2)


class ScaledDotProductAttention(Op):
    """The kernels work on the scores transposed, (..., S, L): the softmax then reduces over
    axis -2, which NumPy does with vectorised elementwise max / add across rows (a max along
    the last axis of 64 float32 is ~3x slower); products with a transposed operand cost BLAS
    nothing. Kept for backward: P^T and the dropout mask (in the (L, S) layout it was drawn in)."""
    __slots__ = ("scale", "causal", "groups")
    op = "scaled_dot_product_attention"
    backward_name = "ScaledDotProductFlashAttentionForCpuBackward0"
    saves = (0, 1, 2, 3)

    def forward(self, q, k, v, mask, scale, causal, dropout_p, groups):
        self.scale, self.causal, self.groups = scale, causal, groups
        xp = get_array_module(q)
        k = _repeat_heads(k, groups, xp)
        v = _repeat_heads(v, groups, xp)
        f = q.dtype.type
        # S^T = K (Q scale)^T, the scale on the smaller operand
        if q.shape[-2] * q.shape[-1] <= k.shape[-2] * q.shape[-2]:
            st = xp.matmul(k, (q * f(scale)).swapaxes(-1, -2))
        else:
            st = xp.matmul(k, q.swapaxes(-1, -2))
            st *= f(scale)
        masked = causal or mask is not None
        if mask is not None:
            mt = _transposed(mask)
            full = tuple(broadcast_shapes(st.shape, mt.shape))
            if st.shape != full:
                st = xp.array(xp.broadcast_to(st, full))
            if mask.dtype == np.bool_:
                xp.copyto(st, f(-np.inf), where=~mt)
            else:
                st += mt
        if causal:
            xp.copyto(st, f(-np.inf), where=_future(st.shape[-1], st.shape[-2], xp).T)
        if st.shape[-2] == 0:   # no keys: an empty softmax, and a zero output as PyTorch's (max has no identity)
            m = xp.zeros(st.shape[:-2] + (1, st.shape[-1]), st.dtype)
        else:
            m = st.max(axis=-2, keepdims=True)
        if masked:
            m[m == -np.inf] = 0      # a fully masked row: exp(-inf) = 0 everywhere, not NaN
        st -= m
        xp.exp(st, out=st)
        total = st.sum(axis=-2, keepdims=True)
        if masked:
            total[total == 0] = 1
        st /= total
        keep = None
        if dropout_p > 0.0:
            shape = st.shape[:-2] + (st.shape[-1], st.shape[-2])
            drop = _state.generator.rng.random(shape) >= dropout_p
            keep = drop.astype(st.dtype) * f(1.0 / (1.0 - dropout_p)) if dropout_p < 1 else np.zeros(shape, st.dtype)
            keep = keep if xp is np else xp.asarray(keep)
            out = xp.matmul((st * keep.swapaxes(-1, -2)).swapaxes(-1, -2), v)
        else:
            out = xp.matmul(st.swapaxes(-1, -2), v)
        self.keep(st, keep)
        return out

    def backward(self, F, g, q, k, v, mask, pt, keep):
        nf = self.next_functions
        if F is not _array_ops:
            return composite_grads(self, lambda q, k, v, mask: composite_attention(
                q, k, v, mask, self.scale, self.causal, keep, self.groups), (q, k, v, mask), g)
        xp = get_array_module(g)
        groups, f = self.groups, g.dtype.type
        kr = _repeat_heads(k, groups, xp)
        vr = _repeat_heads(v, groups, xp)
        keep_t = None if keep is None else keep.swapaxes(-1, -2)
        dv = None
        if nf[2][0] is not None:
            pdt = pt if keep is None else pt * keep_t
            dv = _array_ops.sum_to(_sum_groups(xp.matmul(pdt, g), groups), v.shape)
        dq = dk = dmask = None
        if nf[0][0] is not None or nf[1][0] is not None or nf[3][0] is not None:
            dst = xp.matmul(vr, g.swapaxes(-1, -2))          # (dO V^T)^T
            if keep is not None:
                dst *= keep_t
            # dS = P (dP - rowsum(P dP)), the row sums over the keys (axis -2 here)
            dst -= xp.einsum("...ji,...ji->...i", dst, pt)[..., None, :]
            dst *= pt
            if nf[3][0] is not None:
                dmask = _array_ops.sum_to(dst.swapaxes(-1, -2), mask.shape)
            if nf[0][0] is not None:
                dq = xp.matmul(dst.swapaxes(-1, -2), kr)
                dq *= f(self.scale)
                dq = _array_ops.sum_to(dq, q.shape)
            if nf[1][0] is not None:
                dk = xp.matmul(dst, q)
                dk *= f(self.scale)
                dk = _array_ops.sum_to(_sum_groups(dk, groups), k.shape)
        return dq, dk, dv, dmask


def composite_attention(q, k, v, mask, scale, causal, keep=None, groups=1):
    """The attention as engine ops (differentiable to any order): softmax(Q K^T scale + mask) V."""
    from ..nn import functional as F
    from . import elementwise as _ew
    if groups > 1:
        k = k.repeat_interleave(groups, -3)
        v = v.repeat_interleave(groups, -3)
    scores = (q @ k.transpose(-2, -1)) * scale
    l, s = scores.shape[-2], scores.shape[-1]
    allowed = None
    if causal:
        allowed = Tensor._adopt_array(~_future(l, s, get_array_module(q._data)), False, None)
    if mask is not None:
        if mask._data.dtype == np.bool_:
            allowed = mask if allowed is None else allowed & mask
        else:
            scores = scores + mask
    if allowed is not None:
        scores = _ew.where(allowed, scores, float("-inf"))
    if allowed is not None or mask is not None:
        # rows with every key masked get zero weights, as the fused op (and PyTorch's CPU kernels)
        dead = Tensor._adopt_array((scores._data == -np.inf).all(axis=-1, keepdims=True), False, None)
        scores = _ew.where(dead, 0.0, scores)
        weights = _ew.where(dead, 0.0, F.softmax(scores, -1))
    else:
        weights = F.softmax(scores, -1)
    if keep is not None:
        weights = weights * keep
    return weights @ v


def _dtype_name(dtype):
    return _C_TYPE.get(np.dtype(dtype).name, np.dtype(dtype).name)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(Q K^T * scale + mask) V over the last two dims, as one node."""
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead.")
    qd, kd, vd = query._data.dtype, key._data.dtype, value._data.dtype
    if not (qd == kd == vd):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{_dtype_name(qd)} key.dtype: {_dtype_name(kd)} and value.dtype: {_dtype_name(vd)} "
                           f"instead.")
    if qd.kind != "f":
        raise RuntimeError(f"\"baddbmm_with_gemm\" not implemented for '{query.dtype.name.capitalize()}'")
    if attn_mask is not None:
        md = attn_mask._data.dtype
        if md != np.bool_ and md != qd:
            raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                               f"attn_mask.dtype: {_dtype_name(md)} and  query.dtype: {_dtype_name(qd)} instead.")
    if is_causal and attn_mask is not None:
        # as documented; PyTorch 2.13's CPU flash kernel (4-D inputs only) applies both instead
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    groups = 1
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hk != hv or hk == 0 or hq % hk:
            # PyTorch's message, cut short as PyTorch 2.13 prints it
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
        groups = hq // hk
    e, l, s = query.shape[-1], query.shape[-2], key.shape[-2]
    batch = int(np.prod(query.shape[:-2]))
    if key.shape[-1] != e:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {e}] but got: "
                           f"[{batch}, {key.shape[-1]}].")
    if value.shape[-2] != s:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {s}] but got: "
                           f"[{batch}, {value.shape[-2]}].")
    heads_k = tuple(key.shape[:-3]) + ((key.shape[-3] * groups,) if key.ndim >= 3 else ())
    heads_v = tuple(value.shape[:-3]) + ((value.shape[-3] * groups,) if value.ndim >= 3 else ())
    lead = broadcast_shapes(tuple(query.shape[:-2]), heads_k, heads_v)
    if attn_mask is not None:
        broadcast_shapes(tuple(lead) + (l, s), tuple(attn_mask.shape))
    scale = 1.0 / math.sqrt(e) if scale is None else float(scale)
    return ScaledDotProductAttention.apply(query, key, value, attn_mask, scale=scale, causal=bool(is_causal),
                                           dropout_p=float(dropout_p), groups=groups)
