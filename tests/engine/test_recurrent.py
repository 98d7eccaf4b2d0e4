"""The fused recurrent ops (engine/ops/recurrent.py) and the layers on them (engine/nn/rnn.py):
gradcheck and gradgradcheck in float64 of every fused op (each mode, padded and packed, both
directions, proj_size, cells), the layers against PyTorch with the same weights, the graph
they record, and their errors."""
import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.autograd import gradcheck, gradgradcheck
from gradserve.engine.graph import to_json
from gradserve.engine.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
from gradserve.engine.ops.recurrent import composite_layer, recurrent_cell, recurrent_layer

try:
    import torch
except ImportError:  # the suite passes without PyTorch
    torch = None

with_torch = [pytest.mark.torch, pytest.mark.skipif(torch is None, reason="compares with PyTorch")]

GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
MODES = list(GATES)


def _t(rng, *shape):
    return gs.tensor(rng.standard_normal(shape), dtype=gs.float64, requires_grad=True)


def _layer_case(mode, packed, proj=False, bias=True, seed=0):
    """Inputs of one layer direction (x, weights, states) and the batch sizes (None: padded)."""
    rng = np.random.default_rng(seed)
    steps, batch, size, hidden = 3, 3, 2, 3
    out = 2 if proj else hidden
    batch_sizes = [3, 2, 1] if packed else None
    g = GATES[mode] * hidden
    x = _t(rng, sum(batch_sizes), size) if packed else _t(rng, steps, batch, size)
    names = ["x", "w_ih", "w_hh"]
    tensors = [x, _t(rng, g, size), _t(rng, g, out)]
    if bias:
        names += ["b_ih", "b_hh"]
        tensors += [_t(rng, g), _t(rng, g)]
    names.append("hx")
    tensors.append(_t(rng, batch, out))
    if mode == "LSTM":
        names.append("cx")
        tensors.append(_t(rng, batch, hidden))
    if proj:
        names.append("w_hr")
        tensors.append(_t(rng, out, hidden))
    return names, tensors, batch_sizes


def _layer_fn(fn, mode, names, batch_sizes, reverse):
    def f(*tensors):
        a = dict(zip(names, tensors))
        outs = fn(mode, a["x"], a["w_ih"], a["w_hh"], a.get("b_ih"), a.get("b_hh"), a["hx"], a.get("cx"),
                  a.get("w_hr"), batch_sizes=batch_sizes, reverse=reverse)
        return tuple(o for o in outs if o is not None)
    return f


LAYER_CASES = [(mode, packed, reverse, False, True) for mode in MODES for packed in (False, True)
               for reverse in (False, True)]
LAYER_CASES += [("LSTM", False, True, True, True), ("LSTM", True, False, True, True), ("LSTM", True, True, True, False),
                ("GRU", True, True, False, False), ("RNN_TANH", False, False, False, False)]


def _case_id(case):
    mode, packed, reverse, proj, bias = case
    return "-".join([mode, "packed" if packed else "padded", "reverse" if reverse else "forward"]
                    + (["proj"] if proj else []) + ([] if bias else ["no_bias"]))


@pytest.mark.parametrize("case", LAYER_CASES, ids=_case_id)
def test_fused_layer_passes_gradcheck_and_gradgradcheck(case):
    mode, packed, reverse, proj, bias = case
    names, tensors, batch_sizes = _layer_case(mode, packed, proj, bias)
    f = _layer_fn(recurrent_layer, mode, names, batch_sizes, reverse)
    assert gradcheck(f, tensors)
    assert gradgradcheck(f, tensors, fast_mode=True)


@pytest.mark.parametrize("case", LAYER_CASES, ids=_case_id)
def test_fused_layer_equals_its_composite_form(case):
    mode, packed, reverse, proj, bias = case
    names, tensors, batch_sizes = _layer_case(mode, packed, proj, bias, seed=3)
    got = []
    for fn in (recurrent_layer, composite_layer):
        outs = _layer_fn(fn, mode, names, batch_sizes, reverse)(*tensors)
        # only the final states carry gradient: output 0's gradient is the broadcast zero
        loss = sum((o * o.detach().cos()).sum() for o in outs[1:])
        got.append(([o.detach().numpy() for o in outs], [g.numpy() for g in gs.autograd.grad(loss, tensors)]))
    for a, b in zip(got[0][0] + got[0][1], got[1][0] + got[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_fused_cell_passes_gradcheck_and_gradgradcheck(mode):
    rng = np.random.default_rng(1)
    g = GATES[mode] * 3
    tensors = [_t(rng, 2, 4), _t(rng, 2, 3)] + ([_t(rng, 2, 3)] if mode == "LSTM" else []) + \
        [_t(rng, g, 4), _t(rng, g, 3), _t(rng, g), _t(rng, g)]

    def f(x, hx, *rest):
        cx, rest = (rest[0], rest[1:]) if mode == "LSTM" else (None, rest)
        return recurrent_cell(mode, x, hx, cx, *rest)
    assert gradcheck(f, tensors)
    assert gradgradcheck(f, tensors, fast_mode=True)


def test_module_with_everything_passes_gradcheck_and_gradgradcheck():
    """Two bidirectional layers with projections over an unsorted packed batch: input, initial
    states and every weight."""
    gs.manual_seed(0)
    lstm = gs.nn.LSTM(2, 3, num_layers=2, bidirectional=True, proj_size=2).double()
    rng = np.random.default_rng(2)
    x, h0, c0 = _t(rng, 3, 3, 2), _t(rng, 4, 3, 2), _t(rng, 4, 3, 3)
    params = list(lstm.parameters())

    def f(x, h0, c0, *weights):
        out, (h, c) = lstm(pack_padded_sequence(x, [2, 3, 1], enforce_sorted=False), (h0, c0))
        return pad_packed_sequence(out)[0], h, c
    assert gradcheck(f, [x, h0, c0] + params, fast_mode=True)
    assert gradgradcheck(f, [x, h0, c0], fast_mode=True)


# ------------------------------------------------------------------ against PyTorch
def _pair(make, dtype="double"):
    torch.manual_seed(0)
    theirs = getattr(make(torch), dtype)()
    ours = getattr(make(gs), dtype)()
    ours.load_state_dict({k: gs.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


def _both(shape, rng, dtype=np.float64, grad=True):
    a = rng.standard_normal(shape).astype(dtype)
    return gs.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad)


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _compare(ours, theirs, outs_g, outs_t, inputs_g, inputs_t, rtol=1e-9, atol=1e-10):
    outs_g, outs_t = _flat(outs_g), _flat(outs_t)
    assert len(outs_g) == len(outs_t)
    rng = np.random.default_rng(7)
    loss_g = loss_t = 0
    for a, b in zip(outs_g, outs_t):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)
        if b.requires_grad:
            w = rng.standard_normal(tuple(b.shape))
            loss_g = loss_g + (a * gs.tensor(w, dtype=a.dtype)).sum()
            loss_t = loss_t + (b * torch.tensor(w, dtype=b.dtype)).sum()
    loss_g.backward()
    loss_t.backward()
    for a, b in zip(inputs_g, inputs_t):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol * 10, atol=atol * 10)
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=rtol * 10, atol=atol * 10, err_msg=name)


MODULES = {
    "LSTM": lambda T: T.nn.LSTM(3, 4),
    "LSTM_two_layers_bidirectional_batch_first": lambda T: T.nn.LSTM(3, 4, 2, batch_first=True, bidirectional=True),
    "LSTM_proj": lambda T: T.nn.LSTM(3, 4, proj_size=2),
    "LSTM_proj_two_layers_bidirectional": lambda T: T.nn.LSTM(3, 5, 2, bidirectional=True, proj_size=3),
    "LSTM_no_bias": lambda T: T.nn.LSTM(3, 4, bias=False),
    "GRU_three_layers": lambda T: T.nn.GRU(3, 4, 3),
    "GRU_bidirectional_batch_first": lambda T: T.nn.GRU(3, 4, batch_first=True, bidirectional=True),
    "RNN_tanh_bidirectional": lambda T: T.nn.RNN(3, 4, 2, bidirectional=True),
    "RNN_relu": lambda T: T.nn.RNN(3, 4, nonlinearity="relu"),
}


def _states(name, module, batch, rng, unbatched=False):
    """Random initial states for a module (h0, or (h0, c0)), in both libraries."""
    layers = module.num_layers * (2 if module.bidirectional else 1)
    h = ((layers,) if unbatched else (layers, batch)) + (module.proj_size or module.hidden_size,)
    h_g, h_t = _both(h, rng)
    if not name.startswith("LSTM"):
        return h_g, h_t, [h_g], [h_t]
    c_g, c_t = _both(h[:-1] + (module.hidden_size,), rng)
    return (h_g, c_g), (h_t, c_t), [h_g, c_g], [h_t, c_t]


@pytest.mark.parametrize("with_states", [False, True], ids=["zero_states", "given_states"])
@pytest.mark.parametrize("name", list(MODULES))
@pytest.mark.parametrize("marks", [with_torch])
def test_layer_matches_torch(name, with_states, marks):
    if torch is None:
        pytest.skip("compares with PyTorch")
    ours, theirs = _pair(MODULES[name])
    rng = np.random.default_rng(0)
    shape = (2, 5, 3) if theirs.batch_first else (5, 2, 3)
    x_g, x_t = _both(shape, rng)
    inputs_g, inputs_t = [x_g], [x_t]
    args_g, args_t = (x_g,), (x_t,)
    if with_states:
        s_g, s_t, more_g, more_t = _states(name, theirs, 2, rng)
        args_g, args_t = (x_g, s_g), (x_t, s_t)
        inputs_g += more_g
        inputs_t += more_t
    _compare(ours, theirs, ours(*args_g), theirs(*args_t), inputs_g, inputs_t)


@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("name", list(MODULES))
def test_layer_on_packed_sequences_matches_torch(name, enforce_sorted):
    if torch is None:
        pytest.skip("compares with PyTorch")
    ours, theirs = _pair(MODULES[name])
    rng = np.random.default_rng(1)
    lengths = [5, 4, 2, 1] if enforce_sorted else [2, 5, 1, 4]
    bf = theirs.batch_first
    x_g, x_t = _both((4, 5, 3) if bf else (5, 4, 3), rng)
    s_g, s_t, more_g, more_t = _states(name, theirs, 4, rng)
    out_g, st_g = ours(gs.nn.utils.rnn.pack_padded_sequence(x_g, lengths, bf, enforce_sorted), s_g)
    out_t, st_t = theirs(torch.nn.utils.rnn.pack_padded_sequence(x_t, lengths, bf, enforce_sorted), s_t)
    assert type(out_g).__name__ == "PackedSequence"
    np.testing.assert_array_equal(out_g.batch_sizes.numpy(), out_t.batch_sizes.numpy())
    pad_g, len_g = gs.nn.utils.rnn.pad_packed_sequence(out_g, batch_first=bf, padding_value=-1.0, total_length=6)
    pad_t, len_t = torch.nn.utils.rnn.pad_packed_sequence(out_t, batch_first=bf, padding_value=-1.0, total_length=6)
    np.testing.assert_array_equal(len_g.numpy(), len_t.numpy())
    _compare(ours, theirs, (pad_g, out_g.data, st_g), (pad_t, out_t.data, st_t), [x_g] + more_g, [x_t] + more_t)


@pytest.mark.parametrize("name", ["LSTM_proj_two_layers_bidirectional", "GRU_three_layers", "RNN_relu"])
def test_unbatched_input_matches_torch(name):
    if torch is None:
        pytest.skip("compares with PyTorch")
    ours, theirs = _pair(MODULES[name])
    rng = np.random.default_rng(2)
    x_g, x_t = _both((5, 3), rng)
    s_g, s_t, more_g, more_t = _states(name, theirs, None, rng, unbatched=True)
    _compare(ours, theirs, ours(x_g, s_g), theirs(x_t, s_t), [x_g] + more_g, [x_t] + more_t)


CELLS = {
    "LSTMCell": lambda T: T.nn.LSTMCell(3, 4),
    "GRUCell": lambda T: T.nn.GRUCell(3, 4),
    "GRUCell_no_bias": lambda T: T.nn.GRUCell(3, 4, bias=False),
    "RNNCell_tanh": lambda T: T.nn.RNNCell(3, 4),
    "RNNCell_relu": lambda T: T.nn.RNNCell(3, 4, nonlinearity="relu"),
}


@pytest.mark.parametrize("unbatched", [False, True])
@pytest.mark.parametrize("name", list(CELLS))
def test_cell_matches_torch(name, unbatched):
    if torch is None:
        pytest.skip("compares with PyTorch")
    ours, theirs = _pair(CELLS[name])
    rng = np.random.default_rng(3)
    lead = () if unbatched else (2,)
    x_g, x_t = _both(lead + (3,), rng)
    h_g, h_t = _both(lead + (4,), rng)
    inputs_g, inputs_t = [x_g, h_g], [x_t, h_t]
    if name.startswith("LSTM"):
        c_g, c_t = _both(lead + (4,), rng)
        inputs_g.append(c_g)
        inputs_t.append(c_t)
        out_g, out_t = ours(x_g, (h_g, c_g)), theirs(x_t, (h_t, c_t))
    else:
        out_g, out_t = ours(x_g, h_g), theirs(x_t, h_t)
    _compare(ours, theirs, out_g, out_t, inputs_g, inputs_t)


def test_float32_lstm_step_matches_torch_to_float_precision():
    if torch is None:
        pytest.skip("compares with PyTorch")
    ours, theirs = _pair(lambda T: T.nn.LSTM(8, 16, 2, batch_first=True), dtype="float")
    rng = np.random.default_rng(4)
    x_g, x_t = _both((4, 30, 8), rng, np.float32, grad=False)
    out_g, (h_g, _) = ours(x_g)
    out_t, (h_t, _) = theirs(x_t)
    assert out_g.dtype == gs.float32 and h_g.dtype == gs.float32
    h_g[-1].pow(2).sum().backward()
    h_t[-1].pow(2).sum().backward()
    np.testing.assert_allclose(out_g.detach().numpy(), out_t.detach().numpy(), rtol=1e-4, atol=1e-5)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-3, atol=1e-5)


def test_ragged_cell_loop_matches_torch():
    """GRUCell over sequences sorted by length, a Python loop over the still-active ones."""
    if torch is None:
        pytest.skip("compares with PyTorch")
    ours, theirs = _pair(lambda T: T.nn.GRUCell(3, 4))
    rng = np.random.default_rng(5)
    lengths = [6, 4, 4, 1]
    x_g, x_t = _both((6, 4, 3), rng)
    results = []
    for T, cell, x in ((gs, ours, x_g), (torch, theirs, x_t)):
        h = T.zeros(4, 4, dtype=T.float64)
        for t in range(6):
            n = sum(1 for L in lengths if L > t)
            h_t = cell(x[t, :n], h[:n])
            h = T.cat([h_t, h[n:]], 0) if n < 4 else h_t
        h.pow(2).sum().backward()
        results.append((h.detach().numpy(), x.grad.numpy(), cell.weight_hh.grad.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ behaviour
def test_dropout_applies_between_layers_in_training_only():
    gs.manual_seed(0)
    lstm = gs.nn.LSTM(3, 4, num_layers=2, dropout=1.0).double()
    x1, x2 = gs.randn(5, 2, 3, dtype=gs.float64), gs.randn(5, 2, 3, dtype=gs.float64)
    # every unit dropped: the second layer sees zeros, whatever the input
    np.testing.assert_allclose(lstm(x1)[0].detach().numpy(), lstm(x2)[0].detach().numpy())
    lstm.eval()
    assert not np.allclose(lstm(x1)[0].detach().numpy(), lstm(x2)[0].detach().numpy())


def test_no_grad_records_nothing_and_gives_the_same_values():
    gs.manual_seed(0)
    gru = gs.nn.GRU(3, 4, 2, bidirectional=True)
    x = gs.randn(5, 2, 3)
    out, h = gru(x)
    with gs.no_grad():
        out2, h2 = gru(x)
    assert out.grad_fn is not None and out2.grad_fn is None and not h2.requires_grad
    np.testing.assert_array_equal(out.detach().numpy(), out2.numpy())
    np.testing.assert_array_equal(h.detach().numpy(), h2.numpy())


def test_backward_twice_with_retain_graph_gives_twice_the_gradient():
    gs.manual_seed(0)
    lstm = gs.nn.LSTM(3, 4).double()
    out, (h, c) = lstm(gs.randn(4, 2, 3, dtype=gs.float64))
    loss = h.sum() + c.pow(2).sum() + out.mean()
    loss.backward(retain_graph=True)
    once = lstm.weight_hh_l0.grad.numpy().copy()
    loss.backward()
    np.testing.assert_allclose(lstm.weight_hh_l0.grad.numpy(), 2 * once)


def test_output_changed_in_place_before_backward_is_refused():
    gs.manual_seed(0)
    rnn = gs.nn.RNN(3, 4)
    out, _ = rnn(gs.randn(4, 2, 3))
    loss = out.sum()
    out.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_final_states_alone_carry_gradient_to_every_weight():
    gs.manual_seed(0)
    lstm = gs.nn.LSTM(3, 4, 2, bidirectional=True)
    _, (h, _) = lstm(gs.randn(5, 2, 3))
    h[-1].sum().backward()
    assert all(p.grad is not None for p in lstm.parameters())
    assert np.abs(lstm.weight_ih_l1_reverse.grad.numpy()).sum() > 0


# ------------------------------------------------------------------ the graph
def _names(fn):
    return [None if n is None else n.name().replace("torch::autograd::", "") for n, _ in fn.next_functions]


def test_lstm_node_and_its_inputs_follow_torch():
    if torch is None:
        pytest.skip("compares with PyTorch")
    # PyTorch's CPU build runs float32 LSTMs through oneDNN (float64 ones step by step)
    ours, theirs = _pair(lambda T: T.nn.LSTM(3, 4), dtype="float")
    rng = np.random.default_rng(0)
    x_g, x_t = _both((5, 2, 3), rng, np.float32)
    (h_g, h_t), (c_g, c_t) = _both((1, 2, 4), rng, np.float32), _both((1, 2, 4), rng, np.float32)
    out_g, (hn_g, cn_g) = ours(x_g, (h_g, c_g))
    out_t, (hn_t, cn_t) = theirs(x_t, (h_t, c_t))
    assert out_g.grad_fn.name() == out_t.grad_fn.name() == "MkldnnRnnLayerBackward0"
    assert _names(out_g.grad_fn) == _names(out_t.grad_fn)
    assert hn_g.grad_fn.name() == cn_g.grad_fn.name() == hn_t.grad_fn.name() == "StackBackward0"
    layer = hn_g.grad_fn.next_functions[0][0]
    assert layer.name() == "MkldnnRnnLayerBackward0" and layer.next_functions[0][0] is out_g.grad_fn


def test_layer_graph_around_the_fused_nodes_follows_torch():
    if torch is None:
        pytest.skip("compares with PyTorch")
    for make in (lambda T: T.nn.LSTM(3, 4, 2, bidirectional=True, batch_first=True),
                 lambda T: T.nn.LSTM(3, 4, batch_first=True)):
        ours, theirs = _pair(make, dtype="float")
        out_g, _ = ours(gs.randn(2, 5, 3))
        out_t, _ = theirs(torch.randn(2, 5, 3))
        fn_g, fn_t = out_g.grad_fn, out_t.grad_fn
        while fn_t is not None:
            assert fn_g.name() == fn_t.name()
            assert _names(fn_g) == _names(fn_t)
            fn_g, fn_t = fn_g.next_functions[0][0], fn_t.next_functions[0][0]


@pytest.mark.parametrize("make,name", [
    (lambda: gs.nn.LSTMCell(3, 4), "ThnnFusedLstmCellBackward0"),
    (lambda: gs.nn.GRUCell(3, 4), "ThnnFusedGruCellBackward0"),
    (lambda: gs.nn.RNNCell(3, 4), "RnnTanhCellBackward0"),
    (lambda: gs.nn.RNNCell(3, 4, nonlinearity="relu"), "RnnReluCellBackward0"),
])
def test_cell_is_one_node(make, name):
    cell = make()
    out = cell(gs.randn(2, 3, requires_grad=True))
    h = out[0] if isinstance(out, tuple) else out
    assert h.grad_fn.name() == name
    assert [n.name() for n, _ in h.grad_fn.next_functions[:1]] == ["AccumulateGrad"]
    if isinstance(out, tuple):
        assert out[1].grad_fn.next_functions[0][0] is h.grad_fn


def test_graph_json_has_one_fused_node_per_layer_and_direction():
    lstm = gs.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    out, (h, c) = lstm(gs.randn(50, 2, 3))
    graph = to_json(out, h, c)
    ops = [n["op"] for n in graph["nodes"] if n["kind"] == "op"]
    assert ops.count("rnn_layer") == 4
    assert len(ops) < 20     # not a node per time step and gate


# ------------------------------------------------------------------ errors
ERRORS = {
    "input_size": lambda T: T.nn.LSTM(2, 3)(T.randn(4, 3, 5)),
    "lstm_h0_shape": lambda T: T.nn.LSTM(2, 3)(T.randn(4, 3, 2), (T.randn(1, 2, 3), T.randn(1, 3, 3))),
    "lstm_c0_shape": lambda T: T.nn.LSTM(2, 3)(T.randn(4, 3, 2), (T.randn(1, 3, 3), T.randn(1, 2, 3))),
    "lstm_proj_h0_shape": lambda T: T.nn.LSTM(2, 3, proj_size=1)(T.randn(4, 3, 2), (T.randn(1, 3, 3),
                                                                                   T.randn(1, 3, 3))),
    "gru_h0_batch": lambda T: T.nn.GRU(2, 3)(T.randn(4, 3, 2), T.randn(1, 2, 3)),
    "rnn_h0_layers": lambda T: T.nn.RNN(2, 3)(T.randn(4, 3, 2), T.randn(2, 3, 3)),
    "h0_dims_batched": lambda T: T.nn.GRU(2, 3)(T.randn(4, 3, 2), T.randn(3, 3)),
    "h0_dims_unbatched": lambda T: T.nn.GRU(2, 3)(T.randn(4, 2), T.randn(1, 1, 3)),
    "lstm_states_dims": lambda T: T.nn.LSTM(2, 3)(T.randn(4, 3, 2), (T.randn(3, 3), T.randn(3, 3))),
    "input_dims": lambda T: T.nn.LSTM(2, 3)(T.randn(4, 3, 2, 1)),
    "cell_input_size": lambda T: T.nn.GRUCell(2, 3)(T.randn(4, 5)),
    "cell_hidden_batch": lambda T: T.nn.RNNCell(2, 3)(T.randn(4, 2), T.randn(3, 3)),
    "cell_hidden_size": lambda T: T.nn.GRUCell(2, 3)(T.randn(4, 2), T.randn(4, 4)),
    "lstm_cell_c_batch": lambda T: T.nn.LSTMCell(2, 3)(T.randn(4, 2), (T.randn(4, 3), T.randn(3, 3))),
    "cell_input_dims": lambda T: T.nn.LSTMCell(2, 3)(T.randn(4, 2, 1)),
    "proj_too_big": lambda T: T.nn.LSTM(2, 3, proj_size=3),
    "proj_on_gru": lambda T: T.nn.GRU(2, 3, proj_size=1),
    "unsorted_lengths": lambda T: T.nn.utils.rnn.pack_padded_sequence(T.randn(4, 3, 2), [2, 4, 3]),
    "zero_length": lambda T: T.nn.utils.rnn.pack_padded_sequence(T.randn(4, 3, 2), [4, 0, 3],
                                                                 enforce_sorted=False),
    "lengths_count": lambda T: T.nn.utils.rnn.pack_padded_sequence(T.randn(4, 3, 2), [4, 3]),
    "total_length": lambda T: T.nn.utils.rnn.pad_packed_sequence(
        T.nn.utils.rnn.pack_padded_sequence(T.randn(4, 3, 2), [4, 3, 1]), total_length=2),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    if torch is None:
        pytest.skip("compares with PyTorch")
    with pytest.raises(Exception) as theirs:
        ERRORS[name](torch)
    with pytest.raises(Exception) as ours:
        ERRORS[name](gs)
    assert type(ours.value).__name__ == type(theirs.value).__name__
    assert str(ours.value) == str(theirs.value)


def test_packed_hidden_state_of_another_batch_size_is_refused():
    """PyTorch silently drops the extra rows of a too-large hx for a packed batch; it is an error here."""
    lstm = gs.nn.LSTM(2, 3)
    packed = pack_padded_sequence(gs.randn(4, 3, 2), [4, 3, 1])
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 3, 3\), got \[1, 4, 3\]"):
        lstm(packed, (gs.randn(1, 4, 3), gs.randn(1, 4, 3)))


def test_packed_data_that_does_not_match_its_batch_sizes_is_refused():
    packed = pack_padded_sequence(gs.randn(4, 3, 2), [4, 3, 1])
    bad = type(packed)(packed.data[:-1], packed.batch_sizes)
    with pytest.raises(RuntimeError, match="packed batch sizes add up to 8 rows, but the packed data has 7"):
        gs.nn.GRU(2, 3)(bad)


def test_length_past_the_input_is_refused():
    with pytest.raises(RuntimeError, match="a length of 5 exceeds the input's 4 time steps"):
        pack_padded_sequence(gs.randn(4, 3, 2), [5, 2, 3], enforce_sorted=False)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["LSTM_proj_two_layers_bidirectional", "GRU_bidirectional_batch_first",
                                  "RNN_relu"])
def test_layer_on_cuda_matches_cpu(name):
    if not gs.cuda.is_available():
        pytest.skip("needs a CUDA device and CuPy")
    gs.manual_seed(0)
    cpu = MODULES[name](gs).double()
    gpu = MODULES[name](gs).double().to("cuda")
    gpu.load_state_dict(cpu.state_dict())
    x = np.random.default_rng(0).standard_normal((5, 4, 3))
    lengths = [5, 2, 4, 1]
    results = []
    for module, device in ((cpu, "cpu"), (gpu, "cuda")):
        xt = gs.tensor(x.swapaxes(0, 1) if module.batch_first else x, device=device, requires_grad=True)
        packed = pack_padded_sequence(xt, lengths, batch_first=module.batch_first, enforce_sorted=False)
        out, states = module(packed)
        padded, _ = pad_packed_sequence(out, batch_first=module.batch_first)
        loss = padded.pow(2).sum() + sum(s.sum() for s in _flat(states))
        loss.backward()
        results.append([padded.detach().cpu().numpy(), xt.grad.cpu().numpy()]
                       + [p.grad.cpu().numpy() for p in module.parameters()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["LSTM_two_layers_bidirectional_batch_first", "LSTM_proj"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_padded_lstm_on_cuda_matches_cpu_with_and_without_grad(name, dtype):
    """A padded LSTM (each step's previous state the previous step's rows) on CUDA, where a step's
    elementwise part is one kernel (forward and backward), against the CPU's array calls: the
    training outputs and gradients, with given initial states, and a forward under no_grad."""
    if not gs.cuda.is_available():
        pytest.skip("needs a CUDA device and CuPy")
    gs.manual_seed(0)
    cast = {"float32": "float", "float64": "double"}[dtype]
    cpu = getattr(MODULES[name](gs), cast)()
    gpu = getattr(MODULES[name](gs), cast)().to("cuda")
    gpu.load_state_dict(cpu.state_dict())
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 6, 3))
    layers = cpu.num_layers * (2 if cpu.bidirectional else 1)
    h0 = rng.standard_normal((layers, 4, cpu.proj_size or cpu.hidden_size))
    c0 = rng.standard_normal((layers, 4, cpu.hidden_size))
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-9, atol=1e-10)
    results = []
    for module, device in ((cpu, "cpu"), (gpu, "cuda")):
        def t(a, grad=False):
            return gs.tensor(a, dtype=getattr(gs, dtype), device=device, requires_grad=grad)
        xt = t(x if module.batch_first else x.swapaxes(0, 1), grad=True)
        out, (h, c) = module(xt, (t(h0), t(c0)))
        (out.pow(2).sum() + h.sum() + c.pow(2).sum()).backward()
        with gs.no_grad():
            plain, _ = module(xt)
        results.append([out.detach().cpu().numpy(), h.detach().cpu().numpy(), c.detach().cpu().numpy(),
                        xt.grad.cpu().numpy(), plain.cpu().numpy()] + [p.grad.cpu().numpy() for p in module.parameters()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, **tol)


@pytest.mark.parametrize(("layer", "weights", "inputs"), [
    ("RNN", "float64", "float32"), ("LSTM", "float64", "float32"), ("GRU", "float32", "float64")])
def test_a_recurrent_layer_refuses_an_input_of_another_dtype_than_its_weights(lib, layer, weights, inputs):
    """PyTorch's ValueError (the engine computed on, and LSTM and GRU returned float32 from float64 weights)."""
    net = getattr(lib.nn, layer)(3, 4, batch_first=True).to(getattr(lib, weights))
    message = (rf"RNN input dtype \(torch.{inputs}\) does not match weight dtype \(torch.{weights}\). "
               rf"Convert input: input.to\(torch.{weights}\), or convert model: model.to\(torch.{inputs}\)")
    with pytest.raises(ValueError, match=message):
        net(lib.zeros(2, 5, 3, dtype=getattr(lib, inputs)))


@pytest.mark.parametrize("cell", ["RNNCell", "LSTMCell", "GRUCell"])
def test_a_recurrent_cell_refuses_an_input_or_state_of_another_dtype_than_its_weights(lib, cell):
    """Its matrix products' RuntimeError, as PyTorch's: the input against weight_ih, then h against weight_hh."""
    net = getattr(lib.nn, cell)(3, 4).double()
    with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype, but got Float and Double"):
        net(lib.zeros(2, 3))
    h = lib.zeros(2, 4)
    with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype, but got Float and Double"):
        net(lib.zeros(2, 3, dtype=lib.float64), (h, h.double()) if cell == "LSTMCell" else h)
