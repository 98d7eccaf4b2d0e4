"""Fused recurrent ops: a whole RNN / LSTM / GRU layer (one direction) over its whole
sequence as one node, and the three cells as one node each, with back-propagation
through time written on arrays (NumPy or CuPy alike).

Layout. A layer runs on rows: a padded time-major sequence (T, B, I) is T steps of B
rows; a packed sequence (PackedSequence.data, (N, I)) is steps of ``batch_sizes[t]``
rows, sorted by decreasing length, so step t's active rows are the first
``batch_sizes[t]`` of the running state and the others keep theirs.

Forward: the input projections of every step are one GEMM (x W_ih^T + b) into one
gate buffer; each step adds one recurrent GEMM and applies the gates in place (the
sigmoid gates through tanh, sigmoid(z) = 0.5 tanh(z / 2) + 0.5, so that one tanh
call activates all gates). Backward: the gate derivatives' step-independent factors
are computed for all steps at once; each step only carries dh (and dc) back through
the recurrent GEMM, writing the pre-activation gradients into one buffer, from which
the weight gradients and the input's gradient are one GEMM each.

Saved for backward: the layer's inputs (input, weights, initial states), its output,
the activated gates, and for the LSTM the cell states (GRU: the recurrent n-gate
term). h_{t-1} and c_{t-1} are rebuilt from the output and the cell states.

Nodes and names. PyTorch 2.13 on CPU runs an LSTM layer (each layer and direction)
as one ``mkldnn_rnn_layer`` node, ``MkldnnRnnLayerBackward0``, whose next functions
are (input, weight_ih, weight_hh, bias_ih, bias_hh, hx, cx): the layer nodes here
take that name and those inputs (weight_hr last with proj_size), and GRU / RNN layers
(composite in PyTorch's CPU build) take it too. The final states are the layer's
further outputs; the engine's nodes have one output each, so h_n and c_n come from a
``_LayerState`` node (same name) whose one edge leads to the layer node, and their
gradient reaches the layer's backward through it. The fused cells take PyTorch's
CUDA fused-cell names (``ThnnFusedLstmCellBackward0``, ``ThnnFusedGruCellBackward0``);
RNNCell, composite in PyTorch, is ``RnnTanhCellBackward0`` / ``RnnReluCellBackward0``.

Higher-order gradients: under create_graph the backward rule re-runs the op in its
composite form (the engine's differentiable ops, from the saved inputs) and
differentiates that with a graph, so double backward works through every fused op.
"""
import numpy as np

from ..autograd import array_ops as _array_ops
from ..autograd.function import Op
from ..autograd.state import state as _state
from ..device import get_array_module
from ..tensor import Tensor

__all__ = ["recurrent_layer", "recurrent_cell", "composite_layer", "MODES"]

MODES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# ------------------------------------------------------------------ layout
def _layout(batch_sizes, steps, batch):
    """[(row offset, active rows)] per time step."""
    if batch_sizes is None:
        return [(t * batch, batch) for t in range(steps)]
    out, o = [], 0
    for n in batch_sizes:
        out.append((o, n))
        o += n
    return out


def _prev_rows(seq, init, layout, reverse, xp):
    """For every row of ``seq`` (N, D), the state the step that made it started from."""
    batch = init.shape[0]
    if all(n == batch for _, n in layout):                 # padded: one shifted copy
        if reverse:
            return xp.concatenate([seq[batch:], init], 0)
        return xp.concatenate([init, seq[:len(seq) - batch]], 0)
    prev = xp.empty_like(seq)
    steps = len(layout)
    for t, (o, n) in enumerate(layout):
        if not reverse:
            prev[o:o + n] = init[:n] if t == 0 else seq[layout[t - 1][0]:layout[t - 1][0] + n]
        else:
            m = layout[t + 1][1] if t + 1 < steps else 0
            if m:
                prev[o:o + m] = seq[layout[t + 1][0]:layout[t + 1][0] + m]
            prev[o + m:o + n] = init[m:n]
    return prev


def _order(layout, reverse):
    return layout[::-1] if reverse else layout


_SCALES = {}


def _scale(n_gates, sigmoid_gates, hidden, dtype, xp):
    """Per gate column: the factor and offset of the tanh trick (0.5, 0.5 on sigmoid gates)."""
    key = (n_gates, sigmoid_gates, hidden, np.dtype(dtype), xp)
    got = _SCALES.get(key)
    if got is None:
        s = np.ones((n_gates, hidden), dtype=dtype)
        b = np.zeros((n_gates, hidden), dtype=dtype)
        for k in sigmoid_gates:
            s[k] = 0.5
            b[k] = 0.5
        got = (xp.asarray(s.reshape(-1)), xp.asarray(b.reshape(-1)))
        if len(_SCALES) > 64:
            _SCALES.clear()
        _SCALES[key] = got
    return got


# ------------------------------------------------------------------ kernels on arrays
def _chained(layout, reverse):
    """Whether each step's previous state is the previous step's rows (always but for a packed
    sequence run in reverse, whose active rows grow: those need a running state buffer)."""
    return not reverse or all(n == layout[0][1] for _, n in layout)


def _final_rows(layout, reverse, batch, xp):
    """For each sequence, the row of its last step (its final state), or None when those
    are the last processed step's rows in order."""
    if reverse or all(n == batch for _, n in layout):
        return None
    rows = np.empty(batch, dtype=np.int64)
    for o, n in layout:
        rows[:n] = np.arange(o, o + n)
    return xp.asarray(rows)


def _c(a, xp):
    """C order: OpenBLAS multiplies by a Fortran-ordered right operand of these shapes ~2.5x slower."""
    return xp.ascontiguousarray(a)


def _is_zero(a):
    """A gradient known to be zero: the broadcast zero a state's node sends (no memory)."""
    return a.size and not any(a.strides)


_TANH_GATE = {c: np.array([[0], [0], [1], [0]], dtype=c) for c in "efd"}


# ------------------------------------------------------------------ one CUDA kernel a step (CuPy)
# On a GPU each array call is a kernel launch of some microseconds, and an LSTM step's elementwise
# part is a dozen of them on a few thousand elements: one kernel does it all. NumPy (and a CuPy
# without ElementwiseKernel) takes the array-call path; the two compute the same expressions.
_LSTM_STEP_FORWARD = """
const ptrdiff_t r = i / H, j = i - r * H, b = r * 4 * H;
const T ig = tanh(G[b + j]) * (T)0.5 + (T)0.5;
const T fg = tanh(G[b + H + j]) * (T)0.5 + (T)0.5;
const T gg = tanh(G[b + 2 * H + j]);
const T og = tanh(G[b + 3 * H + j]) * (T)0.5 + (T)0.5;
G[b + j] = ig;
G[b + H + j] = fg;
G[b + 2 * H + j] = gg;
G[b + 3 * H + j] = og;
const T c = fg * cp[i] + ig * gg;
C[i] = c;
const T t = tanh(c);
TC[i] = t;
Y[i] = og * t;
"""
_LSTM_STEP_BACKWARD = """
const ptrdiff_t r = i / H, j = i - r * H, b = r * 4 * H;
const T dci = dc[i] + d[i] * K[i];
DG[b + j] = P[b + j] * dci;
DG[b + H + j] = P[b + H + j] * dci;
DG[b + 2 * H + j] = P[b + 2 * H + j] * dci;
DG[b + 3 * H + j] = P[b + 3 * H + j] * d[i];
dc[i] = dci * A[b + H + j];
"""
_STEP_KERNELS = {}


def _step_kernel(xp, which):
    """The step kernel ``which`` ("forward" or "backward") on CuPy, None on NumPy."""
    make = getattr(xp, "ElementwiseKernel", None)
    if make is None:
        return None
    kernel = _STEP_KERNELS.get(which)
    if kernel is None:
        if which == "forward":
            kernel = make("raw T cp, int32 H", "raw T G, raw T C, raw T TC, raw T Y", _LSTM_STEP_FORWARD,
                          "gradserve_lstm_step_forward")
        else:
            kernel = make("raw T P, raw T K, raw T A, raw T d, int32 H", "raw T DG, raw T dc", _LSTM_STEP_BACKWARD,
                          "gradserve_lstm_step_backward")
        _STEP_KERNELS[which] = kernel
    return kernel


def _lstm_forward(X, w_ih, w_hh, b_ih, b_hh, hx, cx, w_hr, layout, reverse, grad=True):
    """Saves, per row: the activated gates (N, 4H); P (N, 4H), the factors that turn dc (i, f, g)
    and dh (o) into the gates' pre-activation gradients; K = o (1 - tanh(c)^2), what dh contributes
    to dc; with proj_size, o tanh(c). The time loop does only what the next step needs (10 array
    calls a step); P and K are computed after it over the whole sequence at once."""
    xp = get_array_module(X)
    hidden = cx.shape[1]
    s, b = _scale(4, (0, 1, 3), hidden, X.dtype, xp)
    gates = X @ _c(w_ih.T * s, xp)
    if b_ih is not None:
        gates += (b_ih + b_hh) * s
    whh = _c(w_hh.T * s, xp)
    whr = None if w_hr is None else _c(w_hr.T, xp)
    N = X.shape[0]
    batch = hx.shape[0]
    Y = xp.empty((N, hx.shape[1]), dtype=X.dtype)
    C = xp.empty((N, hidden), dtype=X.dtype)
    R = None
    # tanh(c) of every row when backward needs it, else one step's worth
    TC = xp.empty((N if grad else batch, hidden), dtype=X.dtype)
    if grad and whr is not None:
        R = xp.empty((N, hidden), dtype=X.dtype)
    chained = _chained(layout, reverse)
    h, c = (hx, cx) if chained else (hx.copy(), cx.copy())
    tmp = xp.empty((batch, whh.shape[1]), dtype=X.dtype)
    tanh, multiply, matmul = xp.tanh, xp.multiply, xp.matmul
    h1, h2, h3 = hidden, 2 * hidden, 3 * hidden
    kernel = _step_kernel(xp, "forward")
    hr_step = None if whr is None or grad else xp.empty((batch, hidden), dtype=X.dtype)
    for o, n in _order(layout, reverse):
        e = o + n
        G = gates[o:e]
        r = tmp[:n]
        matmul(h[:n], whh, out=r)
        G += r
        cp = c[:n]
        cn = C[o:e]
        yn = Y[o:e]
        tc = TC[o:e] if grad else TC[:n]
        if kernel is not None:
            hr = yn if whr is None else (R[o:e] if grad else hr_step[:n])
            kernel(_c(cp, xp), hidden, G, cn, tc, hr, size=n * hidden)
            if whr is not None:
                matmul(hr, whr, out=yn)
        else:
            tanh(G, out=G)
            G *= s
            G += b
            multiply(G[:, h1:h2], cp, out=cn)
            cn += G[:, :h1] * G[:, h2:h3]
            tanh(cn, out=tc)
            og = G[:, h3:]
            if whr is None:
                multiply(og, tc, out=yn)
            else:
                hr = multiply(og, tc, out=R[o:e]) if grad else og * tc
                matmul(hr, whr, out=yn)
        if chained:
            h, c = yn, cn
        else:
            h[:n] = yn
            c[:n] = cn
    rows = _final_rows(layout, reverse, batch, xp)
    if rows is not None:
        h, c = Y[rows], C[rows]
    if not grad:
        return Y, (h.copy(), c.copy()), ()
    # each gate's derivative from its activated value, a (1 - a) for the sigmoids and 1 - a^2 for
    # tanh (PyTorch's rule), times what dc (i, f, g) or dh (o) meets: g, c_{t-1}, i, tanh(c)
    P = xp.subtract(1, gates)
    P *= gates
    g_gate, pg = gates[:, h2:h3], P[:, h2:h3]
    multiply(g_gate, g_gate, out=pg)
    xp.subtract(1, pg, out=pg)
    P[:, :h1] *= g_gate
    P[:, h1:h2] *= _prev_rows(C, cx, layout, reverse, xp)
    pg *= gates[:, :h1]
    P[:, h3:] *= TC
    K = multiply(TC, TC, out=TC)
    xp.subtract(1, K, out=K)
    K *= gates[:, h3:]
    return Y, (h.copy(), c.copy()), (gates, P, K, R)


def _lstm_backward(dY, side, X, w_ih, w_hh, hx, cx, w_hr, Y, extra, layout, reverse):
    gates, P, K, R = extra
    xp = get_array_module(X)
    hidden = K.shape[1]
    F = gates[:, hidden:2 * hidden]
    h3 = 3 * hidden
    P3 = P[:, :h3].reshape(-1, 3, hidden)
    DG = xp.empty_like(P)
    DG3 = DG[:, :h3].reshape(-1, 3, hidden)
    dh = side[0].copy() if side[0] is not None else xp.zeros_like(hx)
    dc = side[1].copy() if side[1] is not None else xp.zeros_like(cx)
    DH = None if w_hr is None else xp.empty_like(Y)
    zero = _is_zero(dY)
    multiply, matmul = xp.multiply, xp.matmul
    kernel = _step_kernel(xp, "backward")
    for o_, n in _order(layout, not reverse):
        e = o_ + n
        d = dh[:n] if zero else dY[o_:e] + dh[:n]
        if DH is not None:
            DH[o_:e] = d
            d = d @ w_hr
        dcn = dc[:n]
        if kernel is not None:
            kernel(P[o_:e], K[o_:e], gates[o_:e], _c(d, xp), hidden, DG[o_:e], dcn, size=n * hidden)
        else:
            dcn += d * K[o_:e]
            multiply(P3[o_:e], dcn[:, None, :], out=DG3[o_:e])
            multiply(P[o_:e, h3:], d, out=DG[o_:e, h3:])
            dcn *= F[o_:e]
        matmul(DG[o_:e], w_hh, out=dh[:n])
    out = {"DG": DG, "hx": dh, "cx": dc}
    out["Hprev"] = _prev_rows(Y, hx, layout, reverse, xp)
    if DH is not None:
        out["w_hr"] = DH.T @ R
    return out


def _gru_forward(X, w_ih, w_hh, b_ih, b_hh, hx, cx, w_hr, layout, reverse, grad=True):
    xp = get_array_module(X)
    hidden = hx.shape[1]
    s, b = _scale(3, (0, 1), hidden, X.dtype, xp)
    G = X @ _c(w_ih.T * s, xp)
    whh = _c(w_hh.T * s, xp)
    bhh = None
    if b_ih is not None:
        G += b_ih * s
        bhh = b_hh * s
    N = X.shape[0]
    Y = xp.empty((N, hidden), dtype=X.dtype)
    GHn = xp.empty((N, hidden), dtype=X.dtype)
    h = hx.copy()
    tanh, multiply, subtract = xp.tanh, xp.multiply, xp.subtract
    h2 = 2 * hidden
    s2, b2 = s[:h2], b[:h2]
    for o, n in _order(layout, reverse):
        e = o + n
        gh = h[:n] @ whh
        if bhh is not None:
            gh += bhh
        rz = G[o:e, :h2]
        rz += gh[:, :h2]
        tanh(rz, out=rz)
        rz *= s2
        rz += b2
        ghn = GHn[o:e]
        ghn[...] = gh[:, h2:]
        nn = G[o:e, h2:]
        nn += rz[:, :hidden] * ghn
        tanh(nn, out=nn)
        yn = Y[o:e]
        subtract(h[:n], nn, out=yn)
        yn *= rz[:, hidden:]
        yn += nn
        h[:n] = yn
    return Y, (h,), (G, GHn)


def _gru_backward(dY, side, X, w_ih, w_hh, hx, cx, w_hr, Y, extra, layout, reverse):
    G, GHn = extra
    xp = get_array_module(X)
    hidden = hx.shape[1]
    h1, h2 = hidden, 2 * hidden
    r, z, nn = G[:, :h1], G[:, h1:h2], G[:, h2:]
    Hprev = _prev_rows(Y, hx, layout, reverse, xp)
    Qn = (1 - z) * (1 - nn * nn)
    Qz = (Hprev - nn) * z * (1 - z)
    Qr = GHn * r * (1 - r)
    DGi = xp.empty_like(G)
    DGh = xp.empty_like(G)
    dh = side[0].copy() if side[0] is not None else xp.zeros_like(hx)
    multiply = xp.multiply
    for o, n in _order(layout, not reverse):
        e = o + n
        d = dY[o:e] + dh[:n]
        dn = DGi[o:e, h2:]
        multiply(d, Qn[o:e], out=dn)
        multiply(d, Qz[o:e], out=DGi[o:e, h1:h2])
        multiply(dn, Qr[o:e], out=DGi[o:e, :h1])
        DGh[o:e, :h2] = DGi[o:e, :h2]
        multiply(dn, r[o:e], out=DGh[o:e, h2:])
        d *= z[o:e]
        d += DGh[o:e] @ w_hh
        dh[:n] = d
    return {"DG": DGi, "DGh": DGh, "hx": dh, "Hprev": Hprev}


def _rnn_forward(X, w_ih, w_hh, b_ih, b_hh, hx, cx, w_hr, layout, reverse, grad, relu):
    xp = get_array_module(X)
    Y = X @ _c(w_ih.T, xp)
    if b_ih is not None:
        Y += b_ih + b_hh
    whh = _c(w_hh.T, xp)
    h = hx.copy()
    for o, n in _order(layout, reverse):
        yn = Y[o:o + n]
        yn += h[:n] @ whh
        if relu:
            xp.maximum(yn, 0, out=yn)
        else:
            xp.tanh(yn, out=yn)
        h[:n] = yn
    return Y, (h,), ()


def _rnn_backward(dY, side, X, w_ih, w_hh, hx, cx, w_hr, Y, extra, layout, reverse, relu):
    xp = get_array_module(X)
    D = (Y > 0).astype(Y.dtype) if relu else 1 - Y * Y
    DG = xp.empty_like(Y)
    dh = side[0].copy() if side[0] is not None else xp.zeros_like(hx)
    multiply = xp.multiply
    for o, n in _order(layout, not reverse):
        e = o + n
        dg = DG[o:e]
        xp.add(dY[o:e], dh[:n], out=dg)
        multiply(dg, D[o:e], out=dg)
        dh[:n] = dg @ w_hh
    return {"DG": DG, "hx": dh, "Hprev": _prev_rows(Y, hx, layout, reverse, xp)}


_KERNELS = {
    "LSTM": (_lstm_forward, _lstm_backward),
    "GRU": (_gru_forward, _gru_backward),
    "RNN_TANH": (lambda *a, grad=True: _rnn_forward(*a, grad, False), lambda *a: _rnn_backward(*a, False)),
    "RNN_RELU": (lambda *a, grad=True: _rnn_forward(*a, grad, True), lambda *a: _rnn_backward(*a, True)),
}

_CANON = ("x", "w_ih", "w_hh", "b_ih", "b_hh", "hx", "cx", "w_hr")


# ------------------------------------------------------------------ nodes
class _Recurrent(Op):
    """One layer direction (or one cell step) of a recurrent net as one node."""
    __slots__ = ("side", "meta", "finals")
    op = "rnn"
    backward_name = "MkldnnRnnLayerBackward0"
    mode = None
    args = ()       # the input names in order, from _CANON
    cell = False

    def forward(self, *arrays, batch_sizes=None, reverse=False, states=None, grad=True):
        a = dict(zip(self.args, arrays))
        self.side = [None, None]
        if states is not None:
            states.append(self)
        x = a["x"]
        hx = a["hx"]
        packed = batch_sizes is not None
        X = x.reshape(-1, x.shape[-1])
        steps = 1 if self.cell else (len(batch_sizes) if packed else x.shape[0])
        layout = _layout(batch_sizes, steps, hx.shape[0])
        Y, finals, extra = _KERNELS[self.mode][0](X, a["w_ih"], a["w_hh"], a.get("b_ih"), a.get("b_hh"), hx,
                                                  a.get("cx"), a.get("w_hr"), layout, reverse, grad=grad)
        self.keep(*extra)
        self.meta = (layout, reverse, batch_sizes)
        self.finals = finals
        if self.cell or packed:
            return Y
        return Y.reshape(steps, hx.shape[0], Y.shape[1])

    def backward(self, F, g, *saved):
        k = len(self.args)
        a = dict(zip(self.args, saved[:k]))
        y, extra = saved[k], saved[k + 1:]
        side = self.side
        self.side = [None, None]
        nf = self.next_functions
        need = {name: nf[i][0] is not None for i, name in enumerate(self.args)}
        if F is not _array_ops:
            return self._composite_backward(g, side, a, need)
        layout, reverse, _ = self.meta
        x = a["x"]
        X = x.reshape(-1, x.shape[-1])
        dY = g.reshape(-1, g.shape[-1])
        Y = y.reshape(-1, y.shape[-1])
        out = _KERNELS[self.mode][1](dY, side, X, a["w_ih"], a["w_hh"], a["hx"], a.get("cx"), a.get("w_hr"),
                                     Y, extra, layout, reverse)
        DG = out["DG"]
        DGh = out.get("DGh", DG)
        grads = {}
        if need["x"]:
            grads["x"] = (DG @ a["w_ih"]).reshape(x.shape)
        if need["w_ih"]:
            grads["w_ih"] = DG.T @ X
        if need["w_hh"]:
            grads["w_hh"] = DGh.T @ out["Hprev"]
        if need.get("b_ih"):
            grads["b_ih"] = DG.sum(0)
        if need.get("b_hh"):
            grads["b_hh"] = grads["b_ih"] if DGh is DG and "b_ih" in grads else DGh.sum(0)
        for name in ("hx", "cx", "w_hr"):
            if need.get(name):
                grads[name] = out[name]
        return tuple(grads.get(name) for name in self.args)

    def _composite_backward(self, g, side, a, need):
        """Under create_graph: the composite op from the saved inputs, differentiated with a graph."""
        from ..autograd import grad as _grad
        from ..autograd.grad_mode import enable_grad
        layout, reverse, batch_sizes = self.meta
        x = a["x"]
        with enable_grad():
            outs = composite_layer(self.mode, x.unsqueeze(0) if self.cell else x, a["w_ih"], a["w_hh"],
                                   a.get("b_ih"), a.get("b_hh"), a["hx"], a.get("cx"), a.get("w_hr"),
                                   batch_sizes=batch_sizes, reverse=reverse)
        y = outs[0].reshape(tuple(g.shape))
        pairs = [(o, go) for o, go in zip((y,) + tuple(outs[1:]), [g] + side) if go is not None]
        wanted = [name for name in self.args if need[name] and isinstance(a[name], Tensor)
                  and a[name].requires_grad]
        if not wanted:
            return (None,) * len(self.args)
        got = _grad([o for o, _ in pairs], [a[name] for name in wanted], [go for _, go in pairs],
                    create_graph=True, allow_unused=True)
        grads = dict(zip(wanted, got))
        return tuple(grads.get(name) for name in self.args)


class _LayerState(Op):
    """A layer's final state (h_n or c_n of one layer and direction): its gradient goes to
    the layer node's backward, which it reaches through this node's one edge."""
    __slots__ = ("index",)
    op = "rnn_state"

    def name(self):
        fn = self.next_functions[0][0]
        return fn.name() if fn is not None else _Recurrent.backward_name

    def forward(self, output, value=None, index=0):
        self.index = index
        return value

    def backward(self, F, g):
        layer = self.next_functions[0][0]
        side = layer.side
        k = self.index
        side[k] = g if side[k] is None else side[k] + g
        # the layer node must run even when its output got no gradient: a zero of its shape,
        # broadcast (no memory)
        if F is _array_ops:
            xp = get_array_module(g)
            return (xp.broadcast_to(xp.zeros((), dtype=g.dtype), layer.shape),)
        from .creation import zeros
        return (zeros(tuple(layer.shape), dtype=g.dtype, device=g.device),)


def _node_class(mode, cell, bias, proj):
    key = (mode, cell, bias, proj)
    cls = _CLASSES.get(key)
    if cls is None:
        if cell:
            args = ("x", "hx") + (("cx",) if mode == "LSTM" else ()) + ("w_ih", "w_hh")
            args += ("b_ih", "b_hh") if bias else ()
            name = {"LSTM": "ThnnFusedLstmCellBackward0", "GRU": "ThnnFusedGruCellBackward0",
                    "RNN_TANH": "RnnTanhCellBackward0", "RNN_RELU": "RnnReluCellBackward0"}[mode]
        else:
            args = ("x", "w_ih", "w_hh") + (("b_ih", "b_hh") if bias else ()) + ("hx",)
            args += (("cx",) if mode == "LSTM" else ()) + (("w_hr",) if proj else ())
            name = _Recurrent.backward_name
        cls = type(f"_{mode.title().replace('_', '')}{'Cell' if cell else 'Layer'}", (_Recurrent,), {
            "__slots__": (), "mode": mode, "cell": cell, "args": args, "backward_name": name,
            "saves": tuple(range(len(args))) + (-1,), "op": "rnn_cell" if cell else "rnn_layer"})
        _CLASSES[key] = cls
    return cls


_CLASSES = {}


def _run(cls, inputs, params, state_indices):
    nodes = []
    grad = _state.grad_enabled and any(isinstance(t, Tensor) and t.requires_grad for t in inputs)
    y = cls.apply(*inputs, states=nodes, grad=grad, **params)
    node = nodes[0]
    finals = node.finals
    node.finals = None
    if y.grad_fn is None:
        return (y,) + tuple(Tensor._adopt_array(finals[k], False, None) for k in state_indices)
    return (y,) + tuple(_LayerState.apply(y, value=finals[k], index=k) for k in state_indices)


def recurrent_layer(mode, x, w_ih, w_hh, b_ih, b_hh, hx, cx=None, w_hr=None, batch_sizes=None, reverse=False):
    """One layer direction over a whole sequence: (output, h_n[, c_n]) for this direction.

    x: (T, B, I), or packed rows (N, I) with ``batch_sizes``; hx, cx: (B, H)."""
    cls = _node_class(mode, False, b_ih is not None, w_hr is not None)
    a = {"x": x, "w_ih": w_ih, "w_hh": w_hh, "b_ih": b_ih, "b_hh": b_hh, "hx": hx, "cx": cx, "w_hr": w_hr}
    params = {"reverse": reverse}
    if batch_sizes is not None:
        params["batch_sizes"] = tuple(batch_sizes)
    return _run(cls, [a[n] for n in cls.args], params, (0, 1) if mode == "LSTM" else (0,))


def recurrent_cell(mode, x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    """One cell step: h' (RNN, GRU) or (h', c') (LSTM); x: (B, I), hx, cx: (B, H)."""
    cls = _node_class(mode, True, b_ih is not None, False)
    a = {"x": x, "w_ih": w_ih, "w_hh": w_hh, "b_ih": b_ih, "b_hh": b_hh, "hx": hx, "cx": cx}
    out = _run(cls, [a[n] for n in cls.args], {}, (1,) if mode == "LSTM" else ())
    return out if mode == "LSTM" else out[0]


# ------------------------------------------------------------------ the composite form
def composite_layer(mode, x, w_ih, w_hh, b_ih, b_hh, hx, cx=None, w_hr=None, batch_sizes=None, reverse=False):
    """The same layer direction written with the engine's differentiable ops, step by step:
    (output, h_n, c_n or None). What higher-order gradients differentiate, and the tests'
    reference."""
    from ..nn.functional import linear
    from .elementwise import relu, sigmoid, tanh
    from .shape import cat
    packed = batch_sizes is not None
    batch = hx.shape[0]
    steps = len(batch_sizes) if packed else x.shape[0]
    layout = _layout(batch_sizes, steps, batch)
    X = x if packed else x.reshape(-1, x.shape[-1])
    gi = linear(X, w_ih, b_ih)
    h, c = hx, cx
    outs = [None] * steps
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    for t in order:
        o, n = layout[t]
        g_t = gi[o:o + n]
        h_n = h[:n] if n < batch else h
        if mode == "LSTM":
            c_n = c[:n] if n < batch else c
            i, f, gg, og = (g_t + linear(h_n, w_hh, b_hh)).chunk(4, 1)
            c_new = sigmoid(f) * c_n + sigmoid(i) * tanh(gg)
            h_new = sigmoid(og) * tanh(c_new)
            if w_hr is not None:
                h_new = linear(h_new, w_hr)
            c = cat([c_new, c[n:]], 0) if n < batch else c_new
        elif mode == "GRU":
            i_r, i_z, i_n = g_t.chunk(3, 1)
            h_r, h_z, h_nn = linear(h_n, w_hh, b_hh).chunk(3, 1)
            r = sigmoid(i_r + h_r)
            z = sigmoid(i_z + h_z)
            nn = tanh(i_n + r * h_nn)
            h_new = (1 - z) * nn + z * h_n
        else:
            pre = g_t + linear(h_n, w_hh, b_hh)
            h_new = relu(pre) if mode == "RNN_RELU" else tanh(pre)
        outs[t] = h_new
        h = cat([h_new, h[n:]], 0) if n < batch else h_new
    y = cat(outs, 0)
    if not packed:
        y = y.reshape(steps, batch, y.shape[-1])
    return y, h, c
