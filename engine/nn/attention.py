"""MultiheadAttention, with PyTorch's parameters (in_proj_weight, out_proj, ...) and masks."""
import math

from ..ops import elementwise as _ew
from ..ops.creation import empty, zeros
from ..ops.shape import cat
from . import functional as F
from . import init
from .linear import Linear
from .module import Module
from .parameter import Parameter

__all__ = ["MultiheadAttention", "multi_head_attention_forward"]


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under the name PyTorch gives MultiheadAttention's output projection."""


def _canonical_mask(mask, dtype, name):
    """A boolean mask (True = not allowed) becomes an additive float mask of -inf; a float mask stays."""
    if mask is None:
        return None
    kind = mask._data.dtype.kind
    if kind == "b":
        return _ew.where(mask, float("-inf"), 0.0).to(dtype)
    if kind != "f":
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """PyTorch's checks of the ranks of query, key, value and the masks; whether the input is batched."""
    if query.ndim == 3:
        if key.ndim != 3 or value.ndim != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None and attn_mask.ndim not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.ndim}-D tensor instead")
        return True
    if query.ndim == 2:
        if key.ndim != 2 or value.ndim != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.ndim not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.ndim}-D tensor instead")
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.ndim == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query tensor")


def _checked_attn_mask(attn_mask, tgt_len, src_len, batch_heads):
    """An attention mask as PyTorch checks it: 2-D (L, S), made (1, L, S), or 3-D (N * heads, L, S)."""
    if attn_mask is None:
        return None
    if attn_mask.ndim == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                               f"{(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.ndim == 3:
        if tuple(attn_mask.shape) != (batch_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                               f"{(batch_heads, tgt_len, src_len)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")


def _zero_attn_and_padding(k, v, attn_mask, key_padding_mask, add_zero_attn, bsz, heads, head_dim):
    """(k, v, attn_mask) of (bsz * heads, S, head_dim) keys and values: a zero key and value appended
    with ``add_zero_attn`` (the masks padded to match), and the key padding mask folded into the
    additive mask, checked against (bsz, S) as PyTorch checks it."""
    if add_zero_attn:
        zero = zeros((bsz * heads, 1, head_dim), dtype=k.dtype, device=k.device)
        k = cat([k, zero], 1)
        v = cat([v, zero], 1)
        attn_mask = None if attn_mask is None else F.pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else F.pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{tuple(key_padding_mask.shape)}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, heads, -1, -1).reshape(
            bsz * heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    return k, v, attn_mask


class MultiheadAttention(Module):
    """Attention over num_heads subspaces: softmax(Q K^T / sqrt(d) + mask) V, projected in and out."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        kw = dict(device=device, dtype=dtype)
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **kw))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **kw))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **kw))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **kw))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **kw))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def _projections(self):
        e = self.embed_dim
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            weights = (w[:e], w[e:2 * e], w[2 * e:])
        else:
            weights = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        b = self.in_proj_bias
        biases = (None, None, None) if b is None else (b[:e], b[e:2 * e], b[2 * e:])
        return weights, biases

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        """Returns (attn_output, attn_weights), the weights averaged over heads unless asked otherwise."""
        batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, self.num_heads)
        if not need_weights:
            return self._fused_forward(query, key, value, key_padding_mask, attn_mask, is_causal, batched), None
        if batched and self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        if not batched:
            query, key, value = (t.unsqueeze(1) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        tgt_len, bsz, embed_dim = query.shape
        if embed_dim != self.embed_dim:
            raise AssertionError(f"was expecting embedding dimension of {self.embed_dim}, but got {embed_dim}")
        heads, head_dim = self.num_heads, self.head_dim
        key_padding_mask = _canonical_mask(key_padding_mask, query.dtype, "key_padding_mask")
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                               "method `generate_square_subsequent_mask` to create this mask.")
        attn_mask = _canonical_mask(attn_mask, query.dtype, "attn_mask")

        (w_q, w_k, w_v), (b_q, b_k, b_v) = self._projections()
        q = F.linear(query, w_q, b_q)
        k = F.linear(key, w_k, b_k)
        v = F.linear(value, w_v, b_v)

        src_len = k.shape[0]
        attn_mask = _checked_attn_mask(attn_mask, tgt_len, src_len, bsz * heads)
        if self.bias_k is not None:
            k = cat([k, self.bias_k.repeat(1, bsz, 1)])
            v = cat([v, self.bias_v.repeat(1, bsz, 1)])
            attn_mask = None if attn_mask is None else F.pad(attn_mask, (0, 1))
            key_padding_mask = None if key_padding_mask is None else F.pad(key_padding_mask, (0, 1))

        q = q.reshape(tgt_len, bsz * heads, head_dim).transpose(0, 1)
        k = k.reshape(k.shape[0], bsz * heads, head_dim).transpose(0, 1)
        v = v.reshape(v.shape[0], bsz * heads, head_dim).transpose(0, 1)
        k, v, attn_mask = _zero_attn_and_padding(k, v, attn_mask, key_padding_mask, self.add_zero_attn, bsz, heads,
                                                 head_dim)
        src_len = k.shape[1]

        scores = (q * math.sqrt(1.0 / head_dim)) @ k.transpose(-2, -1)
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = F.softmax(scores, -1)
        if self.dropout > 0.0 and self.training:
            weights = F.dropout(weights, self.dropout)
        out = (weights @ v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = F.linear(out, self.out_proj.weight, self.out_proj.bias).reshape(tgt_len, bsz, embed_dim)

        if not batched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1)
        weights = weights.reshape(bsz, heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            weights = weights.squeeze(0)
        return out, weights

    def _fused_forward(self, query, key, value, key_padding_mask, attn_mask, is_causal, batched):
        """need_weights=False: the heads through F.scaled_dot_product_attention (one node), as PyTorch.

        Works batch-major, (N, L, E), whatever batch_first says (the other layout is a transposed
        view), so the heads are views of the projections and the output needs no transpose back;
        self-attention with the packed in_proj_weight is one matrix product for q, k and v."""
        if not batched:
            query, key, value = (t.unsqueeze(0) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif not self.batch_first:
            same_kv, same_qk = key is value, query is key
            query = query.transpose(0, 1)
            key = query if same_qk else key.transpose(0, 1)
            value = key if same_kv else value.transpose(0, 1)
        bsz, tgt_len, embed_dim = query.shape
        if embed_dim != self.embed_dim:
            raise AssertionError(f"was expecting embedding dimension of {self.embed_dim}, but got {embed_dim}")
        heads, head_dim = self.num_heads, self.head_dim
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                               "method `generate_square_subsequent_mask` to create this mask.")
        if is_causal and key_padding_mask is None:
            attn_mask = None        # PyTorch trusts the hint: the causal mask replaces attn_mask
        else:
            is_causal = False

        if (query is key and key is value and self._qkv_same_embed_dim and self.bias_k is None
                and not self.add_zero_attn):
            qkv = F.linear(query, self.in_proj_weight, self.in_proj_bias)
            qkv = qkv.reshape(bsz, tgt_len, 3, heads, head_dim).permute(2, 0, 3, 1, 4)
            q, k, v = qkv.unbind(0)
            src_len = tgt_len
        else:
            (w_q, w_k, w_v), (b_q, b_k, b_v) = self._projections()
            q, k, v = F.linear(query, w_q, b_q), F.linear(key, w_k, b_k), F.linear(value, w_v, b_v)
            if self.bias_k is not None:
                k = cat([k, self.bias_k.expand(bsz, 1, embed_dim)], 1)
                v = cat([v, self.bias_v.expand(bsz, 1, embed_dim)], 1)
            q = q.reshape(bsz, tgt_len, heads, head_dim).transpose(1, 2)
            k = k.reshape(bsz, k.shape[1], heads, head_dim).transpose(1, 2)
            v = v.reshape(bsz, v.shape[1], heads, head_dim).transpose(1, 2)
            if self.add_zero_attn:
                zero = zeros((bsz, heads, 1, head_dim), dtype=k.dtype, device=k.device)
                k = cat([k, zero], 2)
                v = cat([v, zero], 2)
            src_len = k.shape[2]
        mask = self._sdpa_mask(attn_mask, key_padding_mask, query.dtype, bsz, tgt_len, src_len)
        dropout_p = self.dropout if self.training else 0.0
        out = F.scaled_dot_product_attention(q, k, v, mask, dropout_p, is_causal)
        out = F.linear(out.transpose(1, 2).reshape(bsz, tgt_len, embed_dim), self.out_proj.weight,
                       self.out_proj.bias)
        if not batched:
            return out.squeeze(0)
        return out if self.batch_first else out.transpose(0, 1)

    def _sdpa_mask(self, attn_mask, key_padding_mask, dtype, bsz, tgt_len, src_len):
        """attn_mask and key_padding_mask (True or -inf: not allowed) as one mask for SDPA, broadcasting
        to (N, heads, L, S): a boolean one (True: allowed) when only a boolean attn_mask is given."""
        extra = int(self.bias_k is not None) + int(self.add_zero_attn)
        if attn_mask is not None:
            if attn_mask._data.dtype.kind not in "bf":
                raise AssertionError("only bool and floating types of attn_mask are supported")
            if attn_mask.ndim == 2:
                if tuple(attn_mask.shape) != (tgt_len, src_len - extra):
                    raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                       f"{(tgt_len, src_len - extra)}.")
            elif attn_mask.ndim == 3:
                if tuple(attn_mask.shape) != (bsz * self.num_heads, tgt_len, src_len - extra):
                    raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                       f"{(bsz * self.num_heads, tgt_len, src_len - extra)}.")
                attn_mask = attn_mask.reshape(bsz, self.num_heads, tgt_len, src_len - extra)
            else:
                raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
            if extra:
                attn_mask = F.pad(attn_mask, (0, extra))
        if key_padding_mask is None:
            if attn_mask is not None and attn_mask._data.dtype.kind == "b":
                return attn_mask.logical_not()
            return attn_mask
        if extra:
            key_padding_mask = F.pad(key_padding_mask, (0, extra))
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{tuple(key_padding_mask.shape)}")
        kpm = _canonical_mask(key_padding_mask, dtype, "key_padding_mask").reshape(bsz, 1, 1, src_len)
        attn_mask = _canonical_mask(attn_mask, dtype, "attn_mask")
        return kpm if attn_mask is None else attn_mask + kpm


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """F.multi_head_attention_forward: nn.MultiheadAttention's computation on weights passed in, with
    PyTorch's signature, layout (L, N, E) or unbatched (L, E), checks and results (attn_output, weights or
    None). CLIP's AttentionPool2d calls it with separate q/k/v projection weights."""
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = (t.unsqueeze(1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, query.dtype, "key_padding_mask")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None        # PyTorch trusts the hint: scaled_dot_product_attention's causal mask
    else:
        attn_mask = _canonical_mask(attn_mask, query.dtype, "attn_mask")
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's "
                                 f"{tuple(value.shape[:2])}")
        if q_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but q_proj_weight is None")
        if k_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but k_proj_weight is None")
        if v_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but v_proj_weight is None")
        weights = (q_proj_weight, k_proj_weight, v_proj_weight)
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        e = embed_dim
        weights = (in_proj_weight[:e], in_proj_weight[e:2 * e], in_proj_weight[2 * e:])
    if in_proj_bias is None:
        biases = (None, None, None)
    else:
        e = embed_dim
        biases = (in_proj_bias[:e], in_proj_bias[e:2 * e], in_proj_bias[2 * e:])
    q = F.linear(query, weights[0], biases[0])
    k = F.linear(key, weights[1], biases[1])
    v = F.linear(value, weights[2], biases[2])

    attn_mask = _checked_attn_mask(attn_mask, tgt_len, src_len, bsz * num_heads)
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else F.pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else F.pad(key_padding_mask, (0, 1))
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must both be given or both be None")

    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_k.shape[0] != bsz * num_heads:
            raise AssertionError(f"expecting static_k.size(0) of {bsz * num_heads}, but got {static_k.shape[0]}")
        if static_k.shape[2] != head_dim:
            raise AssertionError(f"expecting static_k.size(2) of {head_dim}, but got {static_k.shape[2]}")
        k = static_k
    if static_v is None:
        v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_v.shape[0] != bsz * num_heads:
            raise AssertionError(f"expecting static_v.size(0) of {bsz * num_heads}, but got {static_v.shape[0]}")
        if static_v.shape[2] != head_dim:
            raise AssertionError(f"expecting static_v.size(2) of {head_dim}, but got {static_v.shape[2]}")
        v = static_v
    k, v, attn_mask = _zero_attn_and_padding(k, v, attn_mask, key_padding_mask, add_zero_attn, bsz, num_heads,
                                             head_dim)
    src_len = k.shape[1]
    if not training:
        dropout_p = 0.0

    if need_weights:
        scores = (q * math.sqrt(1.0 / head_dim)) @ k.transpose(-2, -1)
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = F.softmax(scores, -1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, p=dropout_p)
        out = (weights @ v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = F.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            out = out.squeeze(1)
            weights = weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.ndim == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    if not batched:
        out = out.squeeze(1)
    return out, None
