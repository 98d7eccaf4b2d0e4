"""nn.Transformer, its encoder/decoder stacks and layers, and the lazy modules: PyTorch's parameter
names and state_dict keys, and outputs and gradients equal to PyTorch's with the same weights
(post-norm, pre-norm, batch_first, gelu, causal and padding masks)."""
import numpy as np
import pytest

import gradserve.engine as gs

try:
    import torch
except ImportError:  # the oracle tests are skipped without PyTorch
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _make(lib, cls, **kw):
    return getattr(lib.nn, cls)(dropout=0.0, dtype=lib.float64, **kw)


def _copy(tm, gm):
    state = {k: gs.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()}
    assert list(state) == list(gm.state_dict())
    gm.load_state_dict(state)


CONFIGS = [dict(), dict(norm_first=True), dict(batch_first=True, activation="gelu"),
           dict(bias=False, layer_norm_eps=1e-3)]


@pytest.mark.torch
@needs_torch
@pytest.mark.parametrize("cfg", CONFIGS, ids=["post_norm", "pre_norm", "batch_first_gelu", "no_bias"])
def test_transformer_matches_torch_with_masks(cfg):
    kw = dict(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16, **cfg)
    torch.manual_seed(0)
    tm = _make(torch, "Transformer", **kw)
    gm = _make(gs, "Transformer", **kw)
    _copy(tm, gm)
    rng = np.random.default_rng(0)
    S, T, B = 5, 4, 3
    bf = cfg.get("batch_first", False)
    src = rng.standard_normal((B, S, 8) if bf else (S, B, 8))
    tgt = rng.standard_normal((B, T, 8) if bf else (T, B, 8))
    pad = np.zeros((B, S), bool)
    pad[0, -2:] = True
    results = []
    for lib, m in ((torch, tm), (gs, gm)):
        s = lib.tensor(src, requires_grad=True)
        t = lib.tensor(tgt, requires_grad=True)
        mask = m.generate_square_subsequent_mask(T, dtype=lib.float64)
        y = m(s, t, tgt_mask=mask, src_key_padding_mask=lib.tensor(pad), memory_key_padding_mask=lib.tensor(pad))
        (y ** 2).sum().backward()
        results.append([y.detach().numpy(), s.grad.numpy(), t.grad.numpy()] + [p.grad.numpy() for p in m.parameters()])
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-11)


@pytest.mark.torch
@needs_torch
@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_stack_with_a_causal_mask_and_a_final_norm_matches_torch(norm_first):
    results = []
    for lib in (torch, gs):
        layer = _make(lib, "TransformerEncoderLayer", d_model=6, nhead=3, dim_feedforward=12, norm_first=norm_first,
                      activation=lib.nn.GELU())
        enc = lib.nn.TransformerEncoder(layer, num_layers=3, norm=lib.nn.LayerNorm(6, dtype=lib.float64),
                                        enable_nested_tensor=False)
        results.append(enc)
    tm, gm = results
    _copy(tm, gm)
    x = np.random.default_rng(1).standard_normal((7, 2, 6))
    outs = []
    for lib, m in ((torch, tm), (gs, gm)):
        mask = lib.nn.Transformer.generate_square_subsequent_mask(7, dtype=lib.float64)
        outs.append(m(lib.tensor(x), mask=mask, is_causal=True).detach().numpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-9, atol=1e-11)


@pytest.mark.torch
@needs_torch
def test_decoder_layer_alone_matches_torch():
    tl = _make(torch, "TransformerDecoderLayer", d_model=4, nhead=2, dim_feedforward=8)
    gl = _make(gs, "TransformerDecoderLayer", d_model=4, nhead=2, dim_feedforward=8)
    _copy(tl, gl)
    rng = np.random.default_rng(2)
    tgt, mem = rng.standard_normal((3, 2, 4)), rng.standard_normal((5, 2, 4))
    a = tl(torch.tensor(tgt), torch.tensor(mem)).detach().numpy()
    b = gl(gs.tensor(tgt), gs.tensor(mem)).detach().numpy()
    np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-11)


def test_state_dict_keys_and_clones_are_independent(lib):
    m = lib.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16)
    keys = list(m.state_dict())
    assert keys[0] == "encoder.layers.0.self_attn.in_proj_weight"
    assert "decoder.layers.0.multihead_attn.out_proj.weight" in keys and "decoder.norm.bias" in keys
    assert len(keys) == 2 * 12 + 2 + 18 + 2   # encoder layers, encoder norm, decoder layer, decoder norm
    w0 = m.encoder.layers[0].linear1.weight
    w1 = m.encoder.layers[1].linear1.weight
    assert w0 is not w1


def test_generate_square_subsequent_mask(lib):
    mask = lib.nn.Transformer.generate_square_subsequent_mask(3)
    assert mask.dtype == lib.float32
    assert mask.tolist() == [[0.0, float("-inf"), float("-inf")], [0.0, 0.0, float("-inf")], [0.0, 0.0, 0.0]]


def test_feature_and_batch_mismatches_raise(lib):
    m = lib.nn.Transformer(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=8)
    with pytest.raises(RuntimeError, match="batch number"):
        m(lib.zeros(3, 2, 4), lib.zeros(3, 5, 4))
    with pytest.raises(RuntimeError, match="feature number"):
        m(lib.zeros(3, 2, 4), lib.zeros(3, 2, 6))
    with pytest.raises(RuntimeError):
        lib.nn.TransformerEncoderLayer(4, 2, activation="tanh")


def test_lazy_linear_takes_in_features_from_its_first_input_and_becomes_linear(lib):
    lazy = lib.nn.LazyLinear(3)
    assert lazy.in_features == 0 and lazy.has_uninitialized_params()
    params = list(lazy.parameters())
    opt = lib.optim.SGD(params, lr=0.1)
    y = lazy(lib.ones(2, 5))
    assert y.shape == (2, 3) and type(lazy) is lib.nn.Linear and lazy.in_features == 5
    assert lazy.weight.shape == (3, 5) and lazy.weight is params[0]
    assert type(lazy.weight) is lib.nn.Parameter
    y.sum().backward()
    before = lazy.weight.detach().clone()
    opt.step()
    assert not bool((lazy.weight.detach() == before).all())


def test_lazy_linear_without_bias(lib):
    lazy = lib.nn.LazyLinear(2, bias=False)
    lazy(lib.ones(4, 3))
    assert lazy.bias is None and lazy.weight.shape == (2, 3)


def test_register_buffer_rules(lib):
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(2, 2)
            self.register_buffer("running", lib.zeros(2))
            self.register_buffer("scratch", lib.ones(1), persistent=False)
    m = M()
    assert list(m.state_dict()) == ["running", "fc.weight", "fc.bias"]
    assert [n for n, _ in m.named_buffers()] == ["running", "scratch"] and len(list(m.buffers())) == 2
    with pytest.raises(KeyError):
        m.register_buffer("fc", lib.zeros(1))
    with pytest.raises(TypeError):
        m.register_buffer("bad", 3)
    m.register_buffer("scratch", lib.ones(1), persistent=True)
    assert "scratch" in m.state_dict()
    m.double()
    assert m.running.dtype == lib.float64


def test_module_apply_visits_children_first_and_returns_the_module(lib):
    seen = []
    m = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.ReLU()))

    def visit(mod):
        seen.append(type(mod).__name__)
        if isinstance(mod, lib.nn.Linear):
            lib.nn.init.constant_(mod.weight, 0.5)
    assert m.apply(visit) is m
    assert seen == ["Linear", "ReLU", "Sequential", "Sequential"]
    assert m[0].weight.tolist() == [[0.5, 0.5], [0.5, 0.5]]


def test_lazy_conv_and_batchnorm_take_their_channels_from_the_first_input(lib):
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.LazyConv2d(4, 3, padding=1), lib.nn.LazyBatchNorm2d(), lib.nn.ReLU(),
                            lib.nn.Flatten(), lib.nn.LazyLinear(2))
    y = net(lib.ones(2, 3, 5, 5))
    assert y.shape == (2, 2)
    assert [type(m).__name__ for m in net] == ["Conv2d", "BatchNorm2d", "ReLU", "Flatten", "Linear"]
    assert list(net.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
                                      "1.running_var", "1.num_batches_tracked", "4.weight", "4.bias"]
    assert net[0].in_channels == 3 and net[0].weight.shape == (4, 3, 3, 3) and net[1].num_features == 4
    assert net[1].running_mean.shape == (4,) and net[4].in_features == 100
    conv1 = lib.nn.LazyConv1d(2, 3, bias=False)
    assert conv1(lib.ones(4, 7)).shape == (2, 5) and conv1.bias is None and conv1.in_channels == 4


@pytest.mark.parametrize("make, shape, total", [
    ("ReflectionPad2d(1)", (1, 1, 5, 6), 165.0), ("ReplicationPad2d((1, 0, 2, 1))", (1, 1, 6, 5), 136.0),
    ("ZeroPad2d(2)", (1, 1, 7, 8), 66.0), ("ConstantPad1d(2, 3.5)", (1, 1, 3, 8), 108.0),
    ("CircularPad2d((1, 2, 0, 1))", (1, 1, 4, 7), 124.0),
])
def test_padding_layers(lib, make, shape, total):
    m = eval("lib.nn." + make)
    y = m(lib.arange(12.0).reshape(1, 1, 3, 4))
    assert y.shape == shape and y.sum().item() == total


def test_padding_layer_reprs(lib):
    assert repr(lib.nn.ReflectionPad2d(1)) == "ReflectionPad2d((1, 1, 1, 1))"
    assert repr(lib.nn.ConstantPad1d(2, 3.5)) == "ConstantPad1d(padding=(2, 2), value=3.5)"
    assert repr(lib.nn.ZeroPad2d((1, 2, 0, 0))) == "ZeroPad2d((1, 2, 0, 0))"
