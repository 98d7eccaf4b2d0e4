"""Training on CUDA: every optimizer, a CNN, a transformer layer, init and gradient clipping give the
CPU's numbers (float64, the same seed; random draws are made on the host for both devices)."""
import numpy as np
import pytest

import gradserve.engine as gs
from test_optim import FOREACH, OPTIMIZERS

pytestmark = pytest.mark.gpu

SHAPES = [(3, 4), (5,)]


def _host(t):
    assert t.device.type in ("cpu", "cuda")
    return t.detach().cpu().numpy().copy()      # on the CPU, numpy() shares the memory


def _trajectory(name, device, foreach=None, steps=5):
    rng = np.random.default_rng(0)
    params = [gs.nn.Parameter(gs.tensor(rng.standard_normal(s), device=device)) for s in SHAPES]
    opt = OPTIMIZERS[name](gs.optim, params)
    if foreach is not None:
        for group in opt.param_groups:
            group["foreach"] = foreach
    history = []
    for step in range(steps):
        for i, p in enumerate(params):
            p.grad = None if (step == 2 and i == 1) else gs.tensor(rng.standard_normal(SHAPES[i]), device=device)
        opt.step()
        if step == 2:                        # a state_dict round trip keeps the state on the device
            saved = opt.state_dict()
            opt = OPTIMIZERS[name](gs.optim, params)
            opt.load_state_dict(saved)
        for state in opt.state.values():
            for value in state.values():
                if isinstance(value, gs.Tensor) and value.ndim > 0:
                    assert value.device.type == device
        history.append([_host(p) for p in params])
    return history


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_optimizer_on_cuda_matches_cpu(name):
    for a, b in zip(_trajectory(name, "cpu"), _trajectory(name, "cuda")):
        for x, y in zip(a, b):
            np.testing.assert_allclose(y, x, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", FOREACH)
def test_foreach_optimizer_on_cuda_matches_cpu(name):
    for a, b in zip(_trajectory(name, "cpu", foreach=False), _trajectory(name, "cuda", foreach=True)):
        for x, y in zip(a, b):
            np.testing.assert_allclose(y, x, rtol=1e-12, atol=1e-14)


def test_lbfgs_on_cuda_matches_cpu():
    def run(device):
        x = gs.nn.Parameter(gs.tensor([1.5, -0.5], dtype=gs.float64, device=device))
        opt = gs.optim.LBFGS([x], lr=0.5, max_iter=10, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = (1 - x[0]) ** 2 + 10 * (x[1] - x[0] ** 2) ** 2
            loss.backward()
            return loss
        for _ in range(3):
            opt.step(closure)
        return _host(x)
    np.testing.assert_allclose(run("cuda"), run("cpu"), rtol=1e-12)


class _CNN(gs.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = gs.nn.Conv2d(1, 4, 3, padding=1)
        self.bn = gs.nn.BatchNorm2d(4)
        self.conv2 = gs.nn.Conv2d(4, 6, 3, stride=2)
        self.drop = gs.nn.Dropout(0.3)
        self.fc = gs.nn.Linear(6 * 2 * 2, 3)

    def forward(self, x):
        x = gs.nn.functional.max_pool2d(gs.relu(self.bn(self.conv1(x))), 2)
        x = gs.nn.functional.avg_pool2d(gs.tanh(self.conv2(x)), 1)
        return self.fc(self.drop(x.flatten(1)))


def _train_cnn(device, steps=3):
    gs.manual_seed(0)
    model = _CNN().double()
    model.to(device)
    opt = gs.optim.Adam(model.parameters(), lr=0.01)
    rng = np.random.default_rng(1)
    x = gs.tensor(rng.standard_normal((5, 1, 10, 10)), device=device)
    y = gs.tensor([0, 2, 1, 1, 0], device=device)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = gs.nn.functional.cross_entropy(model(x), y, label_smoothing=0.1)
        loss.backward()
        gs.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    model.eval()
    with gs.no_grad():
        pred = model(x).argmax(1)
    assert pred.device.type == device
    return losses, {k: _host(v) for k, v in model.state_dict().items()}, _host(pred)


def test_cnn_training_on_cuda_matches_cpu():
    losses_c, state_c, pred_c = _train_cnn("cpu")
    losses_g, state_g, pred_g = _train_cnn("cuda")
    np.testing.assert_allclose(losses_g, losses_c, rtol=1e-10)
    assert state_c.keys() == state_g.keys()
    for k in state_c:
        np.testing.assert_allclose(state_g[k], state_c[k], rtol=1e-9, atol=1e-12, err_msg=k)
    assert pred_g.tolist() == pred_c.tolist()


def test_transformer_and_embedding_on_cuda_match_cpu():
    def run(device):
        gs.manual_seed(0)
        emb = gs.nn.Embedding(10, 8, padding_idx=0).double().to(device)
        layer = gs.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.1, batch_first=True)
        layer = layer.double().to(device)
        tokens = gs.tensor([[1, 4, 0, 9], [3, 3, 2, 0]], device=device)
        mask = gs.nn.Transformer.generate_square_subsequent_mask(4, device=device, dtype=gs.float64)
        out = layer(emb(tokens), src_mask=mask, src_key_padding_mask=tokens == 0)
        loss = out.pow(2).mean()
        loss.backward()
        return [_host(out), _host(emb.weight.grad)] + [_host(p.grad) for p in layer.parameters()]
    for a, b in zip(run("cpu"), run("cuda")):
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("init", [
    lambda w: gs.nn.init.uniform_(w, -0.5, 0.5), lambda w: gs.nn.init.normal_(w, 0.0, 2.0),
    lambda w: gs.nn.init.xavier_uniform_(w), lambda w: gs.nn.init.kaiming_normal_(w, nonlinearity="relu"),
    lambda w: gs.nn.init.trunc_normal_(w, std=0.5), lambda w: gs.nn.init.orthogonal_(w),
    lambda w: gs.nn.init.constant_(w, 0.25), lambda w: gs.nn.init.eye_(w), lambda w: gs.nn.init.zeros_(w),
    lambda w: gs.nn.init.dirac_(w.view(2, 2, 6)),
], ids=["uniform", "normal", "xavier_uniform", "kaiming_normal", "trunc_normal", "orthogonal", "constant",
        "eye", "zeros", "dirac"])
def test_init_on_cuda_matches_cpu(init):
    values = []
    for device in ("cpu", "cuda"):
        gs.manual_seed(3)
        w = gs.empty(4, 6, dtype=gs.float64, device=device)
        out = init(w)
        assert out.device.type == device and w.device.type == device
        values.append(_host(w))
    np.testing.assert_allclose(values[1], values[0], rtol=1e-12)


def test_clip_grad_and_lr_scheduler_on_cuda():
    p = gs.nn.Parameter(gs.ones(3, device="cuda"))
    q = gs.nn.Parameter(gs.ones(2, device="cuda"))
    p.grad = gs.tensor([3.0, 4.0, 0.0], device="cuda")
    q.grad = gs.tensor([0.0, 12.0], device="cuda")
    total = gs.nn.utils.clip_grad_norm_([p, q], 1.0)
    assert total.device.type == "cuda" and abs(total.item() - 13.0) < 1e-6
    np.testing.assert_allclose(_host(p.grad), [3 / 13, 4 / 13, 0], rtol=1e-5)
    gs.nn.utils.clip_grad_value_([q], 0.5)
    assert q.grad.tolist() == [0.0, 0.5]
    inf_norm = gs.nn.utils.clip_grad_norm_([p, q], 10.0, norm_type="inf")
    assert inf_norm.item() == pytest.approx(0.5)
    opt = gs.optim.SGD([p, q], lr=0.1, momentum=0.9)
    sched = gs.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    for loss in (gs.tensor(1.0, device="cuda"), gs.tensor(2.0, device="cuda")):
        opt.step()
        sched.step(loss)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.01)
