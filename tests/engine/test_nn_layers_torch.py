"""Every layer against PyTorch's: the same weights (copied through state_dict),
the same input, then outputs, input gradients, parameter gradients and buffers
compared. Also the default initialisation's ranges and the repr."""
import numpy as np
import pytest

import gradserve.engine as gs

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def to_gs(t):
    return gs.tensor(t.detach().cpu().numpy())


def to_np(t):
    return np.asarray(t.detach().cpu().numpy())


def copy_weights(theirs, ours):
    ours.load_state_dict({k: to_gs(v) for k, v in theirs.state_dict().items()})


def _randn(shape):
    return lambda T, rng: T.tensor(rng.standard_normal(shape), dtype=T.float64, requires_grad=True)


def _const(values, dtype="int64"):
    return lambda T, rng: T.tensor(values, dtype=getattr(T, dtype))


def _sigmoid_of(shape):
    return lambda T, rng: T.tensor(1 / (1 + np.exp(-rng.standard_normal(shape))), dtype=T.float64,
                                   requires_grad=True)


def _uniform(shape):
    return lambda T, rng: T.tensor(rng.uniform(size=shape), dtype=T.float64)


def _tensors(out):
    """The tensors in a (nested) tuple of outputs, in order; None entries are skipped."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _tensors(o)]
    return [] if out is None else [out]


def run_both(make, inputs, train=True, steps=1, seed=0, kwargs=None):
    """Builds the layer in both libraries with PyTorch's weights and compares every result."""
    torch.manual_seed(seed)
    theirs = make(torch).double().train(train)
    ours = make(gs).double().train(train)
    copy_weights(theirs, ours)
    for step in range(steps):
        rng = np.random.default_rng(seed + step)
        xs_t = [f(torch, rng) for f in inputs]
        rng = np.random.default_rng(seed + step)
        xs_g = [f(gs, rng) for f in inputs]
        outs_t = _tensors(theirs(*xs_t, **(kwargs(torch) if kwargs else {})))
        outs_g = _tensors(ours(*xs_g, **(kwargs(gs) if kwargs else {})))
        assert len(outs_g) == len(outs_t)
        loss_t = loss_g = 0
        for k, (out_t, out_g) in enumerate(zip(outs_t, outs_g)):
            assert tuple(out_g.shape) == tuple(out_t.shape)
            np.testing.assert_allclose(to_np(out_g), to_np(out_t), rtol=1e-7, atol=1e-9, err_msg=f"output {k}")
            w = np.random.default_rng(99 + k).standard_normal(tuple(out_t.shape))
            loss_t = loss_t + (out_t * torch.tensor(w)).sum()
            loss_g = loss_g + (out_g * gs.tensor(w)).sum()
        loss_t.backward()
        loss_g.backward()
        for a, b in zip(xs_g, xs_t):
            if b.requires_grad:
                np.testing.assert_allclose(to_np(a.grad), to_np(b.grad), rtol=1e-7, atol=1e-9)
    params_t = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        assert name in params_t
        if params_t[name].grad is None:
            assert p.grad is None
        else:
            np.testing.assert_allclose(to_np(p.grad), to_np(params_t[name].grad), rtol=1e-7, atol=1e-9,
                                       err_msg=name)
    buffers_t = dict(theirs.named_buffers())
    for name, b in ours.named_buffers():
        np.testing.assert_allclose(to_np(b), to_np(buffers_t[name]), rtol=1e-7, atol=1e-9, err_msg=name)
    assert list(ours.state_dict()) == list(theirs.state_dict())


LAYERS = {
    "Linear": (lambda T: T.nn.Linear(5, 3), [_randn((4, 5))]),
    "Linear_no_bias_3d": (lambda T: T.nn.Linear(5, 3, bias=False), [_randn((2, 4, 5))]),
    "Bilinear": (lambda T: T.nn.Bilinear(3, 2, 4), [_randn((5, 3)), _randn((5, 2))]),
    "Conv1d": (lambda T: T.nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2), [_randn((2, 4, 9))]),
    "Conv2d": (lambda T: T.nn.Conv2d(3, 4, (3, 2), stride=(1, 2), padding=1), [_randn((2, 3, 6, 5))]),
    "Conv2d_same_no_bias": (lambda T: T.nn.Conv2d(2, 3, 3, padding="same", bias=False), [_randn((1, 2, 5, 5))]),
    "Conv2d_reflect": (lambda T: T.nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"), [_randn((1, 2, 4, 5))]),
    "Conv2d_circular": (lambda T: T.nn.Conv2d(2, 2, 3, padding=(1, 2), padding_mode="circular"),
                        [_randn((1, 2, 4, 5))]),
    "MaxPool2d": (lambda T: T.nn.MaxPool2d(3, stride=2, padding=1), [_randn((2, 3, 7, 6))]),
    "MaxPool1d": (lambda T: T.nn.MaxPool1d(2), [_randn((2, 3, 7))]),
    "AvgPool2d": (lambda T: T.nn.AvgPool2d(2, stride=1), [_randn((2, 3, 4, 5))]),
    "AvgPool1d": (lambda T: T.nn.AvgPool1d(3, stride=2, padding=1, count_include_pad=False), [_randn((2, 3, 8))]),
    "AdaptiveAvgPool2d": (lambda T: T.nn.AdaptiveAvgPool2d((2, 3)), [_randn((2, 3, 5, 7))]),
    "AdaptiveAvgPool1d": (lambda T: T.nn.AdaptiveAvgPool1d(4), [_randn((2, 3, 9))]),
    "BatchNorm1d_2d_input": (lambda T: T.nn.BatchNorm1d(3), [_randn((6, 3))]),
    "BatchNorm1d_3d_input": (lambda T: T.nn.BatchNorm1d(3, momentum=0.3), [_randn((4, 3, 5))]),
    "BatchNorm2d": (lambda T: T.nn.BatchNorm2d(3), [_randn((2, 3, 4, 4))]),
    "BatchNorm2d_no_affine": (lambda T: T.nn.BatchNorm2d(2, affine=False), [_randn((3, 2, 2, 2))]),
    "SyncBatchNorm_2d_input": (lambda T: T.nn.SyncBatchNorm(3, momentum=0.3), [_randn((6, 3))]),
    "SyncBatchNorm_4d_input": (lambda T: T.nn.SyncBatchNorm(3), [_randn((2, 3, 4, 4))]),
    "LayerNorm": (lambda T: T.nn.LayerNorm(5), [_randn((3, 4, 5))]),
    "LayerNorm_2d_no_bias": (lambda T: T.nn.LayerNorm((4, 5), bias=False), [_randn((3, 4, 5))]),
    "GroupNorm": (lambda T: T.nn.GroupNorm(2, 4), [_randn((3, 4, 5))]),
    "GroupNorm_no_bias": (lambda T: T.nn.GroupNorm(2, 4, bias=False), [_randn((3, 4, 5))]),
    "Embedding": (lambda T: T.nn.Embedding(6, 3), [_const([[0, 5, 2], [2, 2, 1]])]),
    "Embedding_padding": (lambda T: T.nn.Embedding(6, 3, padding_idx=2), [_const([[0, 5, 2], [2, 2, 1]])]),
    "Flatten": (lambda T: T.nn.Flatten(), [_randn((2, 3, 4))]),
    "Sequential_mlp": (lambda T: T.nn.Sequential(T.nn.Linear(6, 5), T.nn.ReLU(), T.nn.Linear(5, 2), T.nn.Tanh()),
                       [_randn((4, 6))]),
    "Sequential_cnn": (lambda T: T.nn.Sequential(
        T.nn.Conv2d(1, 3, 3, padding=1), T.nn.BatchNorm2d(3), T.nn.ReLU(), T.nn.MaxPool2d(2), T.nn.Flatten(),
        T.nn.Linear(12, 2)), [_randn((2, 1, 4, 4))]),
    # activations
    "ReLU": (lambda T: T.nn.ReLU(), [_randn((3, 4))]),
    "LeakyReLU": (lambda T: T.nn.LeakyReLU(0.1), [_randn((3, 4))]),
    "ELU": (lambda T: T.nn.ELU(0.5), [_randn((3, 4))]),
    "GELU": (lambda T: T.nn.GELU(), [_randn((3, 4))]),
    "SiLU": (lambda T: T.nn.SiLU(), [_randn((3, 4))]),
    "Tanh": (lambda T: T.nn.Tanh(), [_randn((3, 4))]),
    "Sigmoid": (lambda T: T.nn.Sigmoid(), [_randn((3, 4))]),
    "Softplus": (lambda T: T.nn.Softplus(beta=2.0), [_randn((3, 4))]),
    "Softmax": (lambda T: T.nn.Softmax(dim=1), [_randn((3, 4))]),
    "LogSoftmax": (lambda T: T.nn.LogSoftmax(dim=-1), [_randn((3, 4))]),
    "Identity": (lambda T: T.nn.Identity(), [_randn((3, 4))]),
    # losses
    "CrossEntropyLoss": (lambda T: T.nn.CrossEntropyLoss(), [_randn((4, 5)), _const([1, 0, 4, 2])]),
    "CrossEntropyLoss_options": (lambda T: T.nn.CrossEntropyLoss(
        weight=T.tensor([1.0, 0.5, 2.0, 1.0, 3.0]), ignore_index=0, label_smoothing=0.1),
        [_randn((4, 5)), _const([1, 0, 4, 2])]),
    "NLLLoss": (lambda T: T.nn.NLLLoss(reduction="sum"), [_randn((4, 5)), _const([1, 0, 4, 2])]),
    "MSELoss": (lambda T: T.nn.MSELoss(), [_randn((4, 5)), _randn((4, 5))]),
    "L1Loss": (lambda T: T.nn.L1Loss(reduction="sum"), [_randn((4, 5)), _randn((4, 5))]),
    "SmoothL1Loss": (lambda T: T.nn.SmoothL1Loss(beta=0.5), [_randn((4, 5)), _randn((4, 5))]),
    "HuberLoss": (lambda T: T.nn.HuberLoss(delta=0.5), [_randn((4, 5)), _randn((4, 5))]),
    "BCELoss": (lambda T: T.nn.BCELoss(), [_sigmoid_of((4, 5)), _uniform((4, 5))]),
    "BCEWithLogitsLoss": (lambda T: T.nn.BCEWithLogitsLoss(pos_weight=T.tensor([1.0, 2.0, 0.5, 1.0, 3.0])),
                          [_randn((4, 5)), _uniform((4, 5))]),
    "KLDivLoss": (lambda T: T.nn.KLDivLoss(reduction="batchmean"), [_randn((4, 5)), _uniform((4, 5))]),
    # recurrent
    "RNNCell": (lambda T: T.nn.RNNCell(3, 4), [_randn((2, 3)), _randn((2, 4))]),
    "RNNCell_relu_no_hidden": (lambda T: T.nn.RNNCell(3, 4, nonlinearity="relu"), [_randn((2, 3))]),
    "LSTMCell": (lambda T: T.nn.LSTMCell(3, 4), [_randn((2, 3))]),
    "GRUCell_unbatched": (lambda T: T.nn.GRUCell(3, 4, bias=False), [_randn((3,)), _randn((4,))]),
    "RNN_two_layers_relu": (lambda T: T.nn.RNN(3, 4, num_layers=2, nonlinearity="relu"), [_randn((5, 2, 3))]),
    "RNN_batch_first_h0": (lambda T: T.nn.RNN(3, 4, batch_first=True), [_randn((2, 5, 3)), _randn((1, 2, 4))]),
    "LSTM": (lambda T: T.nn.LSTM(3, 4), [_randn((5, 2, 3))]),
    "LSTM_bidirectional_two_layers_batch_first": (
        lambda T: T.nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True), [_randn((2, 5, 3))]),
    "LSTM_unbatched": (lambda T: T.nn.LSTM(3, 2, num_layers=2), [_randn((4, 3))]),
    "GRU": (lambda T: T.nn.GRU(3, 4, num_layers=2), [_randn((5, 2, 3)), _randn((2, 2, 4))]),
    "GRU_bidirectional_no_bias": (lambda T: T.nn.GRU(3, 4, bias=False, bidirectional=True), [_randn((5, 2, 3))]),
    # attention
    "MultiheadAttention": (lambda T: T.nn.MultiheadAttention(8, 2), [_randn((5, 2, 8)), _randn((4, 2, 8)),
                                                                      _randn((4, 2, 8))]),
    "MultiheadAttention_kdim_vdim_bias_kv_zero_attn": (
        lambda T: T.nn.MultiheadAttention(6, 3, kdim=4, vdim=5, add_bias_kv=True, add_zero_attn=True),
        [_randn((3, 2, 6)), _randn((4, 2, 4)), _randn((4, 2, 5))]),
    "MultiheadAttention_unbatched_no_bias": (lambda T: T.nn.MultiheadAttention(4, 2, bias=False),
                                             [_randn((3, 4)), _randn((5, 4)), _randn((5, 4))]),
}

# the masks and options of MultiheadAttention calls
ATTENTION_CALLS = {
    "causal_bool_mask_and_key_padding_batch_first": (
        lambda T: T.nn.MultiheadAttention(8, 2, batch_first=True),
        lambda T: dict(attn_mask=T.triu(T.ones(4, 4, dtype=T.bool), diagonal=1),
                       key_padding_mask=T.tensor([[False, False, False, True], [False, True, False, False]]),
                       is_causal=True)),
    "float_3d_mask_per_head_weights": (
        lambda T: T.nn.MultiheadAttention(8, 2, batch_first=True),
        lambda T: dict(attn_mask=T.tensor(np.random.default_rng(5).standard_normal((4, 4, 4))),
                       average_attn_weights=False)),
    "no_weights": (lambda T: T.nn.MultiheadAttention(8, 4, batch_first=True),
                   lambda T: dict(need_weights=False)),
}


@pytest.mark.parametrize("name", list(ATTENTION_CALLS))
def test_multihead_attention_masks_match_torch(name):
    make, kwargs = ATTENTION_CALLS[name]
    x = _randn((2, 4, 8))
    run_both(make, [x, x, x], kwargs=kwargs)


def test_recurrent_dropout_between_layers_is_off_in_eval():
    run_both(lambda T: T.nn.GRU(3, 4, num_layers=3, dropout=0.5), [_randn((5, 2, 3))], train=False)


def test_rnn_parameter_names_follow_torch():
    for make in (lambda T: T.nn.LSTM(2, 3, num_layers=2, bidirectional=True),
                 lambda T: T.nn.GRU(2, 3, bias=False), lambda T: T.nn.MultiheadAttention(4, 2, kdim=3, vdim=2)):
        assert [n for n, _ in make(gs).named_parameters()] == [n for n, _ in make(torch).named_parameters()]
        assert [tuple(p.shape) for p in make(gs).parameters()] == [tuple(p.shape) for p in make(torch).parameters()]


@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_matches_torch_in_training(name):
    make, inputs = LAYERS[name]
    run_both(make, inputs, train=True, steps=2)


@pytest.mark.parametrize("name", ["BatchNorm1d_2d_input", "BatchNorm2d", "Sequential_cnn", "Embedding_padding"])
def test_layer_matches_torch_in_eval(name):
    make, inputs = LAYERS[name]
    run_both(make, inputs, train=False)


def test_batchnorm_running_stats_follow_torch_over_many_batches():
    run_both(lambda T: T.nn.BatchNorm1d(4, momentum=None), [_randn((5, 4))], steps=4)


def test_float32_layers_match_torch_to_float_precision():
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Conv2d(2, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                                 torch.nn.Linear(16, 3))
    ours = gs.nn.Sequential(gs.nn.Conv2d(2, 4, 3), gs.nn.ReLU(), gs.nn.Flatten(), gs.nn.Linear(16, 3))
    copy_weights(theirs, ours)
    x = np.random.default_rng(0).standard_normal((5, 2, 4, 4)).astype(np.float32)
    target = [0, 2, 1, 1, 0]
    lt = torch.nn.functional.cross_entropy(theirs(torch.tensor(x)), torch.tensor(target))
    lg = gs.nn.functional.cross_entropy(ours(gs.tensor(x)), gs.tensor(target))
    lt.backward()
    lg.backward()
    assert lg.dtype == gs.float32
    np.testing.assert_allclose(lg.item(), lt.item(), rtol=1e-5)
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(to_np(p.grad), to_np(q.grad), rtol=1e-4, atol=1e-6, err_msg=name)


def test_repr_matches_torch():
    def build(T):
        nn = T.nn
        return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Dropout(0.2),
                             nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8)), nn.LayerNorm(5),
                             nn.Embedding(3, 4, padding_idx=0), nn.MaxPool2d(2), nn.AvgPool2d(2), nn.GELU(),
                             nn.LeakyReLU(), nn.Softmax(1), nn.Flatten(), nn.Conv1d(2, 3, 3, stride=2, bias=False),
                             nn.CrossEntropyLoss(), nn.AdaptiveAvgPool2d((1, 1)), nn.ModuleList(), nn.Identity(),
                             nn.GroupNorm(2, 4), nn.GroupNorm(2, 4, bias=False), nn.GroupNorm(1, 3, affine=False))
    assert repr(build(gs)) == repr(build(torch))


# ------------------------------------------------------------------ initialisation
@pytest.mark.parametrize("make, fan_in", [
    (lambda T: T.nn.Linear(50, 40), 50),
    (lambda T: T.nn.Conv2d(6, 8, (3, 5)), 90),
    (lambda T: T.nn.Conv1d(4, 8, 3, groups=2), 6),
])
def test_default_init_is_uniform_within_one_over_sqrt_fan_in(make, fan_in):
    gs.manual_seed(0)
    layer = make(gs)
    bound = 1 / np.sqrt(fan_in)
    for p in (layer.weight, layer.bias):
        assert np.abs(to_np(p)).max() <= bound
    assert np.abs(to_np(layer.weight)).max() > 0.9 * bound
    assert [tuple(p.shape) for p in layer.parameters()] == [tuple(p.shape) for p in make(torch).parameters()]


@pytest.mark.parametrize("shape", [(30, 20), (8, 4, 3, 3), (5, 6, 7)])
def test_fan_computation_matches_torch(shape):
    from gradserve.engine.nn import init
    assert init._calculate_fan_in_and_fan_out(gs.zeros(shape)) == \
        torch.nn.init._calculate_fan_in_and_fan_out(torch.zeros(shape))


@pytest.mark.parametrize("args", [("linear",), ("relu",), ("tanh",), ("leaky_relu", 0.2), ("selu",), ("sigmoid",)])
def test_calculate_gain_matches_torch(args):
    assert gs.nn.init.calculate_gain(*args) == pytest.approx(torch.nn.init.calculate_gain(*args))


@pytest.mark.parametrize("fn, kwargs, expected_std", [
    ("xavier_uniform_", {}, np.sqrt(2 / (300 + 200))),
    ("xavier_normal_", {"gain": 2.0}, 2 * np.sqrt(2 / (300 + 200))),
    ("kaiming_uniform_", {"nonlinearity": "relu"}, np.sqrt(2) / np.sqrt(200)),
    ("kaiming_normal_", {"mode": "fan_out", "nonlinearity": "relu"}, np.sqrt(2) / np.sqrt(300)),
    ("normal_", {"std": 0.02}, 0.02),
    ("uniform_", {"a": -1.0, "b": 1.0}, 1 / np.sqrt(3)),
])
def test_init_functions_have_pytorchs_spread(fn, kwargs, expected_std):
    w = gs.nn.Parameter(gs.zeros(300, 200))
    gs.manual_seed(0)
    out = getattr(gs.nn.init, fn)(w, **kwargs)
    assert out is w and w.requires_grad and w.is_leaf
    assert to_np(w).std() == pytest.approx(expected_std, rel=0.02)


def test_constant_inits_and_eye():
    w = gs.nn.Parameter(gs.zeros(2, 3))
    gs.nn.init.ones_(w)
    assert to_np(w).tolist() == [[1.0] * 3] * 2
    gs.nn.init.constant_(w, 0.5)
    assert to_np(w).tolist() == [[0.5] * 3] * 2
    gs.nn.init.zeros_(w)
    assert float(w.abs().sum()) == 0.0
    gs.nn.init.eye_(w)
    np.testing.assert_array_equal(to_np(w), np.eye(2, 3))


def test_init_bumps_the_version_counter():
    w = gs.nn.Parameter(gs.ones(3))
    y = (w * w).sum()
    gs.nn.init.normal_(w)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_kaiming_fan_in_fewer_than_two_dims_raises():
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        gs.nn.init.kaiming_uniform_(gs.zeros(3))


# ------------------------------------------------------------------ clipping
@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_clip_grad_norm_matches_torch(norm_type):
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal(s).astype(np.float32) for s in [(3, 4), (5,), (2, 2, 2)]]
    ps_t = [torch.zeros(g.shape, requires_grad=True) for g in grads]
    ps_g = [gs.nn.Parameter(gs.zeros(g.shape)) for g in grads]
    for pt, pg, g in zip(ps_t, ps_g, grads):
        pt.grad = torch.tensor(g)
        pg.grad = gs.tensor(g)
    nt = torch.nn.utils.clip_grad_norm_(ps_t, 1.5, norm_type=norm_type)
    ng = gs.nn.utils.clip_grad_norm_(ps_g, 1.5, norm_type=norm_type)
    assert ng.dtype == gs.float32
    np.testing.assert_allclose(ng.item(), nt.item(), rtol=1e-6)
    for pt, pg in zip(ps_t, ps_g):
        np.testing.assert_allclose(to_np(pg.grad), to_np(pt.grad), rtol=1e-6)


def test_clip_grad_value():
    p = gs.nn.Parameter(gs.zeros(3))
    p.grad = gs.tensor([-2.0, 0.5, 3.0])
    gs.nn.utils.clip_grad_value_([p], 1.0)
    assert p.grad.tolist() == [-1.0, 0.5, 1.0]
