"""The connectionist temporal classification loss (F.ctc_loss, nn.CTCLoss), as ATen's LossCTC.cpp
computes it on the CPU: Graves et al.'s forward (alpha) recursion over the target with blanks
between and around its labels, in log space, for the per-sample negative log-likelihood, and
the backward (beta) recursion for its gradient, which is ATen's

    grad[t, c] = exp(log_probs[t, c]) - exp(log(sum over s with l'[s] = c of alpha_t(s) beta_t(s)) + nll - log_probs[t, c])

for t below the sample's input length (0 past it): the gradient through a log_softmax of the
log-probabilities, as PyTorch documents (its ``exp(log_probs)`` term vanishes through the
log_softmax that produces them). Like ATen's, this gradient is not itself differentiable in the
log-probabilities. The reductions are PyTorch's: 'mean' divides each loss by its target length
(at least 1) and averages; ``zero_infinity`` turns infinite losses (no alignment fits) and their
gradients into zeros.
"""
import numbers

import numpy as np

from ..autograd.function import Op
from ..limits import charge_steps, check_elements
from ..tensor import Tensor, _host
from .functional import _reduction, _xp
from .loss import _Loss

__all__ = ["ctc_loss", "CTCLoss"]

_NEG_INF = -np.inf


def _lengths(value, name, batch):
    """input_lengths / target_lengths: a tensor or a sequence of ints, one per sample."""
    if isinstance(value, Tensor):
        data = np.asarray(_host(value._data))
        if data.dtype.kind not in "iu":
            data = data.astype(np.int64)
        flat = data.reshape(-1)
    else:
        if isinstance(value, numbers.Integral):
            value = [value]
        try:
            flat = np.array([int(v) for v in value], dtype=np.int64)
        except TypeError:
            raise TypeError(f"ctc_loss(): argument '{name}' must be a tuple of ints or a Tensor, not "
                            f"{type(value).__name__}") from None
    if flat.size != batch:
        raise RuntimeError(f"{name} must be of size batch_size")
    return flat.astype(np.int64)


def _extended(targets, target_lengths, batch, blank):
    """Each sample's labels with blanks between and around them (l' of length 2 L + 1), padded
    with blanks to the longest, and a mask of the real positions."""
    lmax = int(target_lengths.max()) if batch else 0
    s = 2 * lmax + 1
    ext = np.full((batch, s), blank, dtype=np.int64)
    for n in range(batch):
        ext[n, 1:2 * len(targets[n]):2] = targets[n]
    valid = np.arange(s)[None, :] < (2 * target_lengths + 1)[:, None]
    # l'[s] may come from l'[s - 2] too where it is a label other than l'[s - 2]
    skip = np.zeros((batch, s), dtype=bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    return ext, valid, skip


def _alpha(lp, ext, valid, skip, input_lengths):
    """log alpha_t(s) for every t and s (-inf outside each sample's extended target)."""
    tmax, batch, _ = lp.shape
    s = ext.shape[1]
    rows = np.arange(batch)[:, None]
    alpha = np.full((tmax, batch, s), _NEG_INF, dtype=lp.dtype)
    if tmax == 0:
        return alpha
    emit = lambda t: lp[t][rows, ext]   # noqa: E731  log-probability of l'[s] at t, (batch, s)
    first = np.full((batch, s), _NEG_INF, dtype=lp.dtype)
    first[:, :2] = emit(0)[:, :2]
    alpha[0] = np.where(valid, first, _NEG_INF)
    for t in range(1, tmax):
        charge_steps()
        prev = alpha[t - 1]
        total = prev.copy()
        total[:, 1:] = np.logaddexp(total[:, 1:], prev[:, :-1])
        two = np.full_like(prev, _NEG_INF)
        two[:, 2:] = prev[:, :-2]
        total = np.where(skip, np.logaddexp(total, two), total)
        alpha[t] = np.where(valid & (t < input_lengths)[:, None], total + emit(t), _NEG_INF)
    return alpha


def _nll(alpha, target_lengths, input_lengths):
    batch = alpha.shape[1]
    out = np.empty(batch, dtype=alpha.dtype)
    for n in range(batch):
        t, last = int(input_lengths[n]) - 1, 2 * int(target_lengths[n])
        if t < 0:
            out[n] = 0.0 if last == 0 else np.inf
            continue
        end = alpha[t, n, last]
        if last > 0:
            end = np.logaddexp(end, alpha[t, n, last - 1])
        out[n] = -end
    return out


def _gradient(lp, ext, valid, skip, input_lengths, target_lengths, alpha, nll, num_classes):
    """ATen's ctc_loss_backward_cpu, for a gradient of 1 on every sample's loss."""
    tmax, batch, _ = lp.shape
    s = ext.shape[1]
    rows = np.arange(batch)[:, None]
    beta = np.full((batch, s), _NEG_INF, dtype=lp.dtype)
    lcab = np.full((tmax, batch, num_classes), _NEG_INF, dtype=lp.dtype)
    last = 2 * target_lengths
    # l'[s + 2] may lead from l'[s] where it is a label other than l'[s]
    skip_next = np.zeros((batch, s), dtype=bool)
    skip_next[:, :-2] = skip[:, 2:]
    for t in range(tmax - 1, -1, -1):
        charge_steps()
        emit = lp[t][rows, ext]
        total = beta.copy()
        total[:, :-1] = np.logaddexp(total[:, :-1], beta[:, 1:])
        two = np.full_like(beta, _NEG_INF)
        two[:, :-2] = beta[:, 2:]
        total = np.where(skip_next, np.logaddexp(total, two), total)
        new = np.where(valid, total + emit, _NEG_INF)
        start = (t == input_lengths - 1)
        if start.any():
            at = np.arange(s)[None, :]
            ends = (at == last[:, None]) | ((at == last[:, None] - 1) & (last[:, None] > 0))
            init = np.where(ends, emit, _NEG_INF)
            new = np.where(start[:, None], init, new)
        new = np.where((t < input_lengths)[:, None], new, _NEG_INF)
        beta = new
        both = alpha[t] + beta
        n_at, s_at = np.nonzero(valid & (t < input_lengths)[:, None])
        np.logaddexp.at(lcab[t], (n_at, ext[n_at, s_at]), both[n_at, s_at])
    with np.errstate(over="ignore", invalid="ignore"):
        grad = np.exp(lp) - np.exp(lcab + nll[None, :, None] - lp)
    grad[np.arange(tmax)[:, None] >= input_lengths[None, :]] = 0.0
    return grad


class CtcLoss(Op):
    """The per-sample negative log-likelihood of the targets; backward is ATen's (above)."""
    __slots__ = ("zero_infinity",)
    op = "ctc_loss"
    differentiable = True
    backward_name = "CtcLossBackward0"

    def forward(self, lp, *, ext, valid, skip, input_lengths, target_lengths, zero_infinity):
        # the recursions run on the host (a loop over time, as ATen's CPU kernel); the results go back to lp's device
        self.zero_infinity = zero_infinity
        xp = _xp(lp)
        host = np.array(_host(lp), copy=True)
        alpha = _alpha(host, ext, valid, skip, input_lengths)
        nll = _nll(alpha, target_lengths, input_lengths)
        self.keep(host, ext, valid, skip, input_lengths, target_lengths, alpha, nll)
        if zero_infinity:
            return xp.asarray(np.where(np.isinf(nll), 0.0, nll).astype(lp.dtype))
        return xp.asarray(nll)

    def backward(self, F, g, lp, ext, valid, skip, input_lengths, target_lengths, alpha, nll):
        grad = _gradient(lp, ext, valid, skip, input_lengths, target_lengths, alpha, nll, lp.shape[2])
        if self.zero_infinity:
            grad[:, np.isinf(nll), :] = 0.0
        like = g._data if isinstance(g, Tensor) else g
        grad = _xp(like).asarray(grad.astype(lp.dtype))
        if isinstance(g, Tensor):
            return (F.mul(Tensor._adopt_array(grad, False, None), F.unsqueeze(g, -1)),)
        return (grad * g[None, :, None],)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """The CTC loss of (T, N, C) (or unbatched (T, C)) log-probabilities against targets given
    padded (N, S) or concatenated (sum of target_lengths), as PyTorch's."""
    from ..ops.shape import unsqueeze
    reduction = _reduction(None, None, reduction)
    if not isinstance(log_probs, Tensor):
        raise TypeError(f"ctc_loss(): argument 'log_probs' (position 1) must be Tensor, not {type(log_probs).__name__}")
    if not isinstance(targets, Tensor):
        raise TypeError(f"ctc_loss(): argument 'targets' (position 2) must be Tensor, not {type(targets).__name__}")
    unbatched = log_probs.ndim != 3   # ATen unsqueezes anything but 3-D, then checks for 3-D
    if unbatched and log_probs.ndim != 2:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.ndim + 1}-dimensional tensor for "
                           f"argument #1 'log_probs' (while checking arguments for ctc_loss_allocate_outputs)")
    lp_t = unsqueeze(log_probs, 1) if unbatched else log_probs
    data = lp_t._data
    if data.dtype.kind != "f" or data.dtype == np.float16:
        from ..ops.linalg import _SCALAR_TYPE, _name
        raise NotImplementedError(f'"ctc_loss_cpu" not implemented for \'{_name(log_probs, _SCALAR_TYPE)}\'')
    tmax, batch, classes = data.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    tgt = np.asarray(_host(targets._data))
    if unbatched:
        tgt = tgt.reshape(1, -1)
    tgt = tgt.astype(np.int64)
    in_len = _lengths(input_lengths, "input_lengths", batch)
    tg_len = _lengths(target_lengths, "target_lengths", batch)
    for name, lengths in (("input_lengths", in_len), ("target_lengths", tg_len)):
        if lengths.size and int(lengths.min()) < 0:
            raise RuntimeError(f"Expected {name} to have value at least 0, but got value {int(lengths.min())} "
                               f"(while checking arguments for ctc_loss_allocate_outputs)")
    if in_len.size and int(in_len.max()) > tmax:
        raise RuntimeError(f"Expected input_lengths to have value at most {tmax}, but got value {int(in_len.max())} "
                           f"(while checking arguments for ctc_loss_allocate_outputs)")
    charge_steps(batch)   # the loops over the samples below (a step each), counted as a program's loop
    per_sample = []
    if tgt.ndim == 1:   # concatenated
        if int(tg_len.sum()) > tgt.size:
            raise RuntimeError(f"Expected tensor to have size at least {int(tg_len.sum())} at dimension 0, but got "
                               f"size {tgt.size} for argument #2 'targets' (while checking arguments for "
                               f"ctc_loss_allocate_outputs)")
        offsets = np.concatenate([[0], np.cumsum(tg_len)])
        per_sample = [tgt[offsets[n]:offsets[n + 1]] for n in range(batch)]
    else:
        if tgt.shape[0] != batch and not unbatched:
            raise RuntimeError(f"Expected tensor to have size {batch} at dimension 0, but got size {tgt.shape[0]} "
                               f"for argument #2 'targets' (while checking arguments for ctc_loss_allocate_outputs)")
        if tg_len.size and int(tg_len.max()) > tgt.shape[1]:
            raise RuntimeError(f"Expected tensor to have size at least {int(tg_len.max())} at dimension 1, but got "
                               f"size {tgt.shape[1]} for argument #2 'targets' (while checking arguments for "
                               f"ctc_loss_allocate_outputs)")
        per_sample = [tgt[n, :tg_len[n]] for n in range(batch)]
    for labels in per_sample:
        if labels.size and (int(labels.min()) < 0 or int(labels.max()) >= classes):
            bad = int(labels.min()) if int(labels.min()) < 0 else int(labels.max())
            raise RuntimeError(f"ctc_loss: target label {bad} is out of the label range [0, {classes})")
    check_elements((tmax, batch, 2 * (int(tg_len.max()) if batch else 0) + 1), "ctc_loss alpha")
    ext, valid, skip = _extended(per_sample, tg_len, batch, blank)
    nll = CtcLoss.apply(lp_t, ext=ext, valid=valid, skip=skip, input_lengths=in_len, target_lengths=tg_len,
                        zero_infinity=bool(zero_infinity))
    if reduction == "mean":
        divisor = Tensor._adopt_array(_xp(data).asarray(np.maximum(tg_len, 1), dtype=data.dtype), False, None)
        return (nll / divisor).mean()
    if reduction == "sum":
        return nll.sum()
    return nll[0] if unbatched else nll


class CTCLoss(_Loss):
    """The connectionist temporal classification loss (blank index, reduction, zero_infinity)."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                        self.zero_infinity)
