"""nn.Module behaviour: registration, traversal, state dicts, modes, dtype moves,
hooks and printing, plus the containers and Parameter."""
import copy
import pickle

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine import nn
from gradserve.engine.nn import functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.bn = nn.BatchNorm1d(3)
        self.fc2 = nn.Linear(3, 2)
        self.register_buffer("steps", gs.zeros(1))
        self.register_buffer("scratch", gs.zeros(2), persistent=False)
        self.scale = nn.Parameter(gs.ones(1))

    def forward(self, x):
        return self.fc2(F.relu(self.bn(self.fc1(x)))) * self.scale


# ------------------------------------------------------------------ Parameter
def test_parameter_is_a_tensor_that_requires_grad_and_shares_memory():
    t = gs.zeros(3)
    p = nn.Parameter(t)
    assert isinstance(p, gs.Tensor) and p.requires_grad and p.is_leaf
    t.add_(1.0)
    assert p.tolist() == [1.0, 1.0, 1.0]
    assert not nn.Parameter(gs.zeros(2), requires_grad=False).requires_grad


def test_parameter_dict_holds_only_what_the_caller_sets():
    """As PyTorch's (mamba.py marks parameters with p._no_weight_decay = True): empty until then."""
    p = nn.Parameter(gs.zeros(1))
    assert p.__dict__ == {}
    p._no_weight_decay = True
    assert p.__dict__ == {"_no_weight_decay": True}


def test_ops_on_a_parameter_return_plain_tensors():
    p = nn.Parameter(gs.ones(2))
    assert type(p * 2) is gs.Tensor and type(p.detach()) is gs.Tensor


def test_parameter_repr_says_parameter_containing():
    assert repr(nn.Parameter(gs.tensor([1.0, 2.0]))).startswith("Parameter containing:\ntensor([1., 2.]")


def test_parameter_survives_deepcopy_and_pickle():
    p = nn.Parameter(gs.tensor([1.0, 2.0]))
    for q in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(q) is nn.Parameter and q.requires_grad and q.tolist() == [1.0, 2.0]
        q.data.add_(1.0)
        assert p.tolist() == [1.0, 2.0]


def test_integer_parameter_cannot_require_grad():
    with pytest.raises(RuntimeError, match="floating point"):
        nn.Parameter(gs.tensor([1, 2]))


# ------------------------------------------------------------------ registration
def test_attributes_are_registered_in_assignment_order():
    net = Net()
    assert list(net._parameters) == ["scale"]
    assert list(net._modules) == ["fc1", "bn", "fc2"]
    assert [n for n, _ in net.named_parameters()] == [
        "scale", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias", "fc2.weight", "fc2.bias"]
    assert [n for n, _ in net.named_buffers()] == [
        "steps", "scratch", "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"]


def test_shared_parameters_and_modules_are_listed_once():
    shared = nn.Linear(2, 2)
    seq = nn.Sequential(shared, nn.ReLU(), shared)
    assert len(list(seq.parameters())) == 2
    assert [n for n, _ in seq.named_modules()] == ["", "0", "1"]
    assert len(list(seq.named_parameters(remove_duplicate=False))) == 4


def test_children_and_modules():
    net = Net()
    assert [type(m).__name__ for m in net.children()] == ["Linear", "BatchNorm1d", "Linear"]
    assert [n for n, _ in net.named_modules()] == ["", "fc1", "bn", "fc2"]
    assert next(net.modules()) is net


def test_assigning_none_to_a_parameter_keeps_the_slot():
    lin = nn.Linear(2, 2)
    lin.bias = None
    assert "bias" in lin._parameters and lin.bias is None
    assert [n for n, _ in lin.named_parameters()] == ["weight"]


def test_assigning_a_plain_tensor_to_a_parameter_name_raises():
    lin = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="cannot assign"):
        lin.weight = gs.zeros(2, 2)


def test_reassigning_an_attribute_moves_it_between_kinds():
    m = nn.Module()
    m.x = nn.Linear(1, 1)
    m.x = nn.Parameter(gs.zeros(1))
    assert "x" not in m._modules and "x" in m._parameters


def test_replacing_a_member_keeps_its_position(lib):
    # PyTorch rebinds a replaced child, parameter or buffer in place: a Sequential keeps running its layers in
    # order after seq[0] = ... or add_module("0", ...), and named_parameters / state_dict keep their order
    seq = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU(), lib.nn.Linear(2, 1))
    seq[0] = lib.nn.Tanh()
    seq.add_module("1", lib.nn.Sigmoid())
    assert [type(m).__name__ for m in seq] == ["Tanh", "Sigmoid", "Linear"]
    x = lib.ones(1, 2)
    assert seq(x).shape == (1, 1)
    m = lib.nn.Module()
    m.a, m.b = lib.nn.ReLU(), lib.nn.ReLU()
    m.w, m.v = lib.nn.Parameter(lib.zeros(1)), lib.nn.Parameter(lib.zeros(1))
    m.register_buffer("s", lib.zeros(1))
    m.register_buffer("t", lib.zeros(1))
    m.a = lib.nn.Tanh()
    m.w = lib.nn.Parameter(lib.ones(1))
    m.register_buffer("s", lib.ones(1))
    assert list(m.state_dict()) == ["w", "v", "s", "t"]
    assert [n for n, _ in m.named_children()] == ["a", "b"] and type(m.a).__name__ == "Tanh"


def test_sync_batchnorm_is_a_batchnorm_on_one_device(lib):
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Sequential(lib.nn.BatchNorm2d(2)),
                              lib.nn.InstanceNorm1d(4))
    sync = lib.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert [type(m).__name__ for m in sync.modules()] == [
        "Sequential", "Linear", "SyncBatchNorm", "Sequential", "SyncBatchNorm", "InstanceNorm1d"]
    assert sync[1].weight is model[1].weight and sync[1].running_mean is model[1].running_mean
    assert isinstance(sync[1], lib.nn.modules.batchnorm._BatchNorm) and sync[1].process_group is None
    single = lib.nn.SyncBatchNorm.convert_sync_batchnorm(lib.nn.BatchNorm1d(3, affine=False))
    assert type(single).__name__ == "SyncBatchNorm" and single.weight is None
    bn = lib.nn.SyncBatchNorm(3)
    assert bn(lib.ones(4, 3, 2, 2, 2)).shape == (4, 3, 2, 2, 2)   # any rank from 2 up
    with pytest.raises(ValueError, match="expected at least 2D input"):
        bn(lib.ones(3))


def test_missing_attribute_names_the_module():
    with pytest.raises(AttributeError, match="'Linear' object has no attribute 'nope'"):
        nn.Linear(1, 1).nope


def test_assigning_before_init_raises():
    class Bad(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(1, 1)
    with pytest.raises(AttributeError, match="before Module.__init__"):
        Bad()


def test_delattr_removes_registered_members():
    lin = nn.Linear(2, 2)
    del lin.bias
    assert "bias" not in lin._parameters


def test_get_submodule_and_parameter():
    net = Net()
    assert net.get_submodule("bn") is net.bn
    assert net.get_parameter("fc1.weight") is net.fc1.weight
    with pytest.raises(AttributeError):
        net.get_submodule("nope")


# ------------------------------------------------------------------ state dict
def test_state_dict_keys_follow_pytorch_names_and_skip_non_persistent_buffers():
    assert list(Net().state_dict()) == [
        "scale", "steps", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var",
        "bn.num_batches_tracked", "fc2.weight", "fc2.bias"]


def test_state_dict_values_are_detached_and_share_memory():
    net = Net()
    sd = net.state_dict()
    assert not sd["fc1.weight"].requires_grad
    sd["fc1.weight"].zero_()
    assert float(net.fc1.weight.abs().sum()) == 0.0


def test_state_dict_round_trip_reproduces_outputs():
    gs.manual_seed(0)
    a, b = Net(), Net()
    x = gs.randn(5, 4)
    a.train()(x)  # changes the running statistics
    result = b.load_state_dict(a.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    a.eval()
    b.eval()
    np.testing.assert_array_equal(a(x).detach().numpy(), b(x).detach().numpy())
    weight_before = b.fc1.weight
    assert b.fc1.weight is weight_before  # loaded in place


def test_load_state_dict_strict_reports_missing_and_unexpected_keys():
    lin = nn.Linear(2, 2)
    sd = lin.state_dict()
    del sd["bias"]
    sd["extra"] = gs.zeros(1)
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "bias"'):
        lin.load_state_dict(sd)
    with pytest.raises(RuntimeError, match=r'Unexpected key\(s\) in state_dict: "extra"'):
        lin.load_state_dict(sd)
    result = lin.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["extra"]


def test_load_state_dict_size_mismatch_raises():
    with pytest.raises(RuntimeError, match="size mismatch for weight"):
        nn.Linear(2, 2).load_state_dict(nn.Linear(3, 2).state_dict())


def test_load_state_dict_casts_to_the_parameter_dtype():
    lin = nn.Linear(2, 2)
    lin.load_state_dict({k: v.double() for k, v in nn.Linear(2, 2).state_dict().items()})
    assert lin.weight.dtype == gs.float32


def test_loading_bumps_the_version_so_stale_graphs_refuse_backward():
    lin = nn.Linear(2, 1)
    out = (lin.weight * lin.weight).sum()
    lin.load_state_dict(nn.Linear(2, 1).state_dict())
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


# ------------------------------------------------------------------ modes and grads
def test_train_and_eval_set_training_recursively():
    net = Net()
    assert net.training and net.bn.training
    assert net.eval() is net
    assert not net.training and not net.bn.training and not net.fc1.training
    net.train()
    assert net.bn.training


def test_zero_grad_sets_grads_to_none_by_default_or_zeros():
    net = Net()
    net(gs.randn(3, 4)).sum().backward()
    net.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_requires_grad_false_freezes_parameters():
    net = Net().requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_apply_visits_children_before_the_module():
    order = []
    Net().apply(lambda m: order.append(type(m).__name__))
    assert order == ["Linear", "BatchNorm1d", "Linear", "Net"]


def test_to_double_keeps_parameter_objects_and_casts_buffers_and_grads():
    net = Net()
    net(gs.randn(3, 4)).sum().backward()
    w = net.fc1.weight
    assert net.double() is net
    assert net.fc1.weight is w and w.dtype == gs.float64 and w.grad.dtype == gs.float64
    assert net.bn.running_mean.dtype == gs.float64
    assert net.bn.num_batches_tracked.dtype == gs.int64  # integer buffers keep their dtype
    assert net.to(gs.float32).fc1.weight.dtype == gs.float32
    assert net.float()(gs.randn(2, 4)).dtype == gs.float32
    assert net.to("cpu") is net


def test_to_rejects_integer_dtypes():
    with pytest.raises(TypeError, match="floating point"):
        nn.Linear(1, 1).to(gs.int64)


# ------------------------------------------------------------------ calling and hooks
def test_call_runs_forward_and_hooks_can_rewrite_inputs_and_outputs():
    lin = nn.Linear(2, 2)
    seen = []
    pre = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    post = lin.register_forward_hook(lambda m, args, out: seen.append(out.shape) or out + 1)
    out = lin(gs.ones(3, 2))
    np.testing.assert_allclose(out.detach().numpy(), (lin.bias + 1).detach().numpy()[None].repeat(3, 0), rtol=1e-6)
    assert seen == [gs.Size([3, 2])]
    pre.remove()
    post.remove()
    assert lin(gs.ones(1, 2)).shape == (1, 2) and len(seen) == 1


def test_base_module_forward_is_missing():
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(1)


# ------------------------------------------------------------------ containers
def test_sequential_indexing_slicing_and_append():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear)
    head = seq[:2]
    assert isinstance(head, nn.Sequential) and len(head) == 2 and head[0] is seq[0]
    seq.append(nn.Sigmoid())
    assert list(seq._modules) == ["0", "1", "2", "3"]
    assert seq(gs.randn(4, 2)).shape == (4, 1)
    del seq[1]
    assert list(seq._modules) == ["0", "1", "2"]


def test_sequential_from_ordered_dict_keeps_names():
    from collections import OrderedDict
    seq = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.Tanh())]))
    assert list(seq.state_dict()) == ["fc.weight", "fc.bias"]
    assert seq.act is seq[1]


def test_module_list_and_dict_register_their_members():
    ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(2)])
    ml.append(nn.Linear(1, 2))
    assert len(ml) == 3 and [n for n, _ in ml.named_parameters()][-1] == "2.bias"
    md = nn.ModuleDict({"a": nn.Linear(1, 1)})
    md["b"] = nn.ReLU()
    assert list(md.keys()) == ["a", "b"] and "a" in md and len(list(md.parameters())) == 2


def test_parameter_list_and_dict():
    pl = nn.ParameterList([nn.Parameter(gs.zeros(1)), gs.ones(2)])
    assert len(list(pl.parameters())) == 2 and isinstance(pl[1], nn.Parameter)
    pd = nn.ParameterDict({"w": nn.Parameter(gs.zeros(1))})
    assert [n for n, _ in pd.named_parameters()] == ["w"]


# ------------------------------------------------------------------ printing and copies
def test_repr_matches_pytorch_layout():
    seq = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Dropout(0.2),
                        nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8)))
    assert repr(seq) == (
        "Sequential(\n"
        "  (0): Linear(in_features=784, out_features=512, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Dropout(p=0.2, inplace=False)\n"
        "  (3): Sequential(\n"
        "    (0): Conv2d(1, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))\n"
        "    (1): BatchNorm2d(8, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)\n"
        "  )\n"
        ")")


def test_deepcopy_of_a_module_copies_parameters():
    net = Net()
    clone = copy.deepcopy(net)
    assert clone.fc1.weight is not net.fc1.weight and isinstance(clone.fc1.weight, nn.Parameter)
    clone.fc1.weight.data.zero_()
    assert float(net.fc1.weight.abs().sum()) > 0


# ------------------------------------------------------------------ layers' behaviour
def test_dropout_zeroes_about_p_and_scales_the_rest_in_training_only():
    gs.manual_seed(0)
    drop = nn.Dropout(0.25)
    x = gs.ones(200, 100)
    out = drop(x).numpy()
    kept = out != 0
    assert abs(kept.mean() - 0.75) < 0.02
    np.testing.assert_allclose(out[kept], 1 / 0.75, rtol=1e-6)
    assert drop.eval()(x) is x
    assert float(nn.Dropout(1.0)(x).abs().sum()) == 0.0


def test_dropout_gradient_uses_the_same_mask():
    gs.manual_seed(1)
    x = gs.ones(50, 20, requires_grad=True)
    out = F.dropout(x, 0.5)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), out.detach().numpy())


def test_dropout2d_drops_whole_channels():
    gs.manual_seed(0)
    out = F.dropout2d(gs.ones(4, 6, 3, 3), 0.5).numpy()
    per_channel = out.reshape(4, 6, 9)
    assert all(len(set(row.tolist())) == 1 for row in per_channel.reshape(24, 9))


def test_dropout_rejects_bad_probability():
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)


def test_batchnorm_updates_running_stats_in_training_and_uses_them_in_eval():
    gs.manual_seed(0)
    bn = nn.BatchNorm1d(3, momentum=0.5)
    x = gs.randn(8, 3) * 2 + 1
    bn(x)
    data = x.numpy()
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.5 * data.mean(0), rtol=1e-5)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.5 + 0.5 * data.var(0, ddof=1), rtol=1e-5)
    assert int(bn.num_batches_tracked) == 1
    bn.eval()
    expected = (data - bn.running_mean.numpy()) / np.sqrt(bn.running_var.numpy() + 1e-5)
    np.testing.assert_allclose(bn(x).detach().numpy(), expected, rtol=1e-5, atol=1e-6)
    assert int(bn.num_batches_tracked) == 1


def test_batchnorm_momentum_none_is_a_cumulative_average():
    gs.manual_seed(0)
    bn = nn.BatchNorm1d(2, momentum=None)
    xs = [gs.randn(6, 2) for _ in range(3)]
    for x in xs:
        bn(x)
    np.testing.assert_allclose(bn.running_mean.numpy(), np.mean([x.numpy().mean(0) for x in xs], 0), rtol=1e-5)


def test_batchnorm_without_running_stats_normalises_with_batch_stats_in_eval():
    bn = nn.BatchNorm1d(2, track_running_stats=False).eval()
    out = bn(gs.tensor([[1.0, 2.0], [3.0, 6.0]])).detach().numpy()
    np.testing.assert_allclose(out, [[-1, -1], [1, 1]], atol=1e-4)


def test_batchnorm_training_with_one_value_per_channel_raises():
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        nn.BatchNorm1d(3)(gs.randn(1, 3))


def test_batchnorm2d_checks_input_rank():
    with pytest.raises(ValueError, match="expected 4D input"):
        nn.BatchNorm2d(3)(gs.randn(2, 3))


def test_embedding_padding_row_starts_at_zero_and_gets_no_gradient():
    emb = nn.Embedding(5, 3, padding_idx=0)
    assert emb.weight[0].tolist() == [0.0, 0.0, 0.0]
    emb(gs.tensor([[0, 1], [0, 4]])).sum().backward()
    assert emb.weight.grad[0].tolist() == [0.0, 0.0, 0.0]
    assert emb.weight.grad[1].tolist() == [1.0, 1.0, 1.0]


def test_embedding_index_out_of_range_raises():
    with pytest.raises(IndexError, match="index out of range"):
        nn.Embedding(3, 2)(gs.tensor([3]))


def test_flatten_and_identity():
    assert nn.Flatten()(gs.zeros(2, 3, 4)).shape == (2, 12)
    assert nn.Flatten(0, 1)(gs.zeros(2, 3, 4)).shape == (6, 4)
    x = gs.zeros(1)
    assert nn.Identity(5, foo=1)(x) is x
    assert nn.Unflatten(1, (2, 3))(gs.zeros(4, 6)).shape == (4, 2, 3)


def test_linear_rejects_mismatched_shapes_and_dtypes():
    lin = nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(4x5 and 3x2\)"):
        lin(gs.zeros(4, 5))
    with pytest.raises(RuntimeError, match="same dtype"):
        lin(gs.zeros(4, 3, dtype=gs.float64))


def test_linear_skips_the_input_gradient_when_the_input_needs_none():
    lin = nn.Linear(3, 2)
    x = gs.randn(4, 3)
    lin(x).sum().backward()
    assert x.grad is None and lin.weight.grad.shape == (2, 3)


def test_softmax_without_dim_warns_and_picks_pytorchs_dim():
    with pytest.warns(UserWarning, match="Implicit dimension"):
        out = F.softmax(gs.zeros(2, 4))
    np.testing.assert_allclose(out.numpy(), np.full((2, 4), 0.25))


def test_tensor_softmax_methods_and_top_level_aliases():
    x = gs.tensor([[1.0, 2.0, 3.0]])
    np.testing.assert_allclose(x.softmax(-1).numpy(), gs.softmax(x, 1).numpy())
    np.testing.assert_allclose(x.log_softmax(1).numpy(), gs.log_softmax(x, -1).numpy())


def test_cross_entropy_rejects_out_of_range_targets_and_bad_reduction():
    with pytest.raises(IndexError, match="Target 5 is out of bounds"):
        F.cross_entropy(gs.zeros(2, 5), gs.tensor([0, 5]))
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        F.mse_loss(gs.zeros(2), gs.zeros(2), reduction="avg")


def test_cross_entropy_with_all_targets_ignored_is_nan():
    assert np.isnan(F.cross_entropy(gs.zeros(2, 3), gs.tensor([-100, -100])).item())


def test_cross_entropy_checks_target_shapes():
    with pytest.raises(ValueError, match=r"Expected input batch_size \(2\) to match target batch_size \(3\)"):
        F.cross_entropy(gs.zeros(2, 3), gs.tensor([0, 1, 2]))
    with pytest.raises(RuntimeError, match=r"Expected target size \[2, 4\], got \[2, 5\]"):
        F.cross_entropy(gs.zeros(2, 3, 4), gs.zeros(2, 5, dtype=gs.int64))


def test_inplace_activations_write_into_their_input():
    x = gs.tensor([-1.0, 2.0])
    assert F.relu(x, inplace=True) is x and x.tolist() == [0.0, 2.0]
    y = gs.tensor([-1.0, 2.0])
    assert nn.LeakyReLU(0.5, inplace=True)(y) is y and y.tolist() == [-0.5, 2.0]


def test_one_hot():
    out = F.one_hot(gs.tensor([0, 2, 1]))
    assert out.dtype == gs.int64 and out.tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert F.one_hot(gs.tensor([1]), 4).tolist() == [[0, 1, 0, 0]]
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        F.one_hot(gs.tensor([3]), 3)


def test_max_pool_return_indices_are_flat_positions_in_each_plane():
    x = gs.tensor([[[[1.0, 5.0, 2.0, 0.0], [3.0, 4.0, 7.0, 7.0]]]])
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    assert out.tolist() == [[[[5.0, 7.0]]]]
    assert idx.tolist() == [[[[1, 6]]]]  # the tie between 6 and 7 goes to the first


def test_max_pool_ties_send_the_gradient_to_the_first_maximum():
    x = gs.tensor([[[[2.0, 2.0], [2.0, 2.0]]]], requires_grad=True)
    F.max_pool2d(x, 2).sum().backward()
    assert x.grad.tolist() == [[[[1.0, 0.0], [0.0, 0.0]]]]


# ------------------------------------------------------------------ gradients through whole layers
@pytest.mark.parametrize("make, shape", [
    (lambda: nn.LSTM(2, 2, bidirectional=True), (2, 1, 2)),
    (lambda: nn.GRU(2, 3, batch_first=True), (2, 3, 2)),
    (lambda: nn.RNN(2, 2, nonlinearity="relu"), (3, 1, 2)),
    (lambda: nn.MultiheadAttention(4, 2, add_bias_kv=True), (3, 2, 4)),
    (lambda: nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.BatchNorm2d(3), nn.GELU(), nn.MaxPool2d(2)),
     (2, 2, 4, 4)),
    (lambda: nn.Sequential(nn.Embedding(5, 4), nn.LayerNorm(4), nn.Linear(4, 2)), None),
])
def test_layers_pass_gradcheck_and_gradgradcheck_in_fast_mode(make, shape):
    gs.manual_seed(0)
    layer = make().double()
    params = list(layer.parameters())
    if shape is None:
        x = gs.tensor([[0, 3, 1], [4, 4, 2]])
        inputs = params
    else:
        x = gs.randn(shape, dtype=gs.float64, requires_grad=True)
        inputs = [x] + params

    def run(*args):
        out = layer(x, x, x) if isinstance(layer, nn.MultiheadAttention) else layer(x)
        first = out[0] if isinstance(out, tuple) else out
        return first.sin().sum() if isinstance(out, tuple) else out
    assert gs.autograd.gradcheck(run, inputs, fast_mode=True)
    assert gs.autograd.gradgradcheck(run, inputs, fast_mode=True)


def test_parameters_to_vector_and_back():
    lin = nn.Linear(2, 3)
    vec = nn.utils.parameters_to_vector(lin.parameters())
    assert vec.shape == (9,) and vec.requires_grad
    nn.utils.vector_to_parameters(gs.arange(9.0), lin.parameters())
    assert lin.weight.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]] and lin.bias.tolist() == [6.0, 7.0, 8.0]


def test_top_level_aliases_of_functional_ops():
    x = gs.randn(2, 3, 4)
    np.testing.assert_allclose(gs.max_pool1d(x, 2).numpy(), F.max_pool1d(x, 2).numpy())
    np.testing.assert_allclose(gs.layer_norm(x, (4,)).numpy(), F.layer_norm(x, (4,)).numpy())
    assert gs.dropout(x, 0.5, False) is x


def test_nn_modules_batchnorm_is_where_the_batch_norms_and_their_base_live():
    # davda54/sam's bypass_bn.py: from torch.nn.modules.batchnorm import _BatchNorm; isinstance(module, _BatchNorm)
    from gradserve.engine.nn.modules.batchnorm import BatchNorm2d, _BatchNorm
    assert gs.nn.modules.batchnorm._BatchNorm is _BatchNorm and BatchNorm2d is gs.nn.BatchNorm2d
    model = gs.nn.Sequential(gs.nn.Conv2d(3, 4, 3), gs.nn.BatchNorm2d(4), gs.nn.BatchNorm1d(4), gs.nn.LayerNorm(4))
    assert [isinstance(m, _BatchNorm) for m in model] == [False, True, True, False]


def test_nn_modules_loss_is_where_the_losses_and_their_bases_live():
    import gradserve.engine.nn.modules.loss as loss
    assert gs.nn.modules.loss is loss
    assert issubclass(gs.nn.NLLLoss, loss._WeightedLoss) and issubclass(loss._WeightedLoss, loss._Loss)
    assert loss.CrossEntropyLoss is gs.nn.CrossEntropyLoss
    assert all(issubclass(getattr(loss, n), loss._Loss) for n in loss.__all__)


def test_nn_modules_utils_and_reduction_are_pytorchs():
    # torchbnn: from torch.nn.modules.utils import _single, _pair, _triple; from torch.nn import _reduction
    from gradserve.engine.nn import _reduction
    from gradserve.engine.nn.modules.utils import _ntuple, _pair, _quadruple, _reverse_repeat_tuple, _single, _triple
    assert (_single(3), _pair(3), _triple([1, 2, 3]), _quadruple(0.5)) == ((3,), (3, 3), (1, 2, 3), (0.5,) * 4)
    assert _pair((4, 5)) == (4, 5) and _ntuple(3, "_t")(2) == (2, 2, 2) and _ntuple(3, "_t").__name__ == "_t"
    assert _reverse_repeat_tuple((1, 2), 2) == (2, 2, 1, 1)
    assert [_reduction.get_enum(r) for r in ("none", "mean", "sum")] == [0, 1, 2]
    with pytest.warns(UserWarning, match="reduction='sum'"):
        assert _reduction.legacy_get_string(False, True) == "sum"
    assert _reduction.legacy_get_string(None, None, emit_warning=False) == "mean"
    assert _reduction.legacy_get_enum(True, False, emit_warning=False) == 0
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        _reduction.get_enum("avg")
    try:
        import torch
    except ImportError:
        return
    from torch.nn import _reduction as tr
    from torch.nn.modules import utils as tu
    assert tu._pair(7) == _pair(7) and tu._reverse_repeat_tuple((1, 2, 3), 2) == _reverse_repeat_tuple((1, 2, 3), 2)
    for sa in (None, True, False):
        for red in (None, True, False):
            assert _reduction.legacy_get_string(sa, red, False) == tr.legacy_get_string(sa, red, False)
