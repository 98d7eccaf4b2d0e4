"""torch.optim.swa_utils: AveragedModel (running mean, EMA, a caller's avg_fn, use_buffers), SWALR's
schedule, update_bn; their values by hand and against PyTorch's, and the same from a program."""
import math

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.optim import swa_utils
from gradserve.engine.program import Limits, Namespace, run

try:
    import torch
except ImportError:  # the oracle test is skipped without PyTorch
    torch = None


def _model(T, rng):
    model = T.nn.Sequential(T.nn.Linear(4, 8), T.nn.BatchNorm1d(8), T.nn.ReLU(), T.nn.Linear(8, 2))
    with T.no_grad():
        for p in model.parameters():
            p.copy_(T.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    return model


def _train(T):
    """Five SGD steps, three averages and two SWALR schedules; every figure they produce."""
    rng = np.random.default_rng(0)
    model = _model(T, rng)
    su = T.optim.swa_utils
    swa = su.AveragedModel(model)
    ema = su.AveragedModel(model, multi_avg_fn=su.get_ema_multi_avg_fn(0.9))
    ema_buffers = su.AveragedModel(model, avg_fn=su.get_ema_avg_fn(0.8), use_buffers=True)
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    cos = su.SWALR(opt, swa_lr=0.05, anneal_epochs=3, anneal_strategy="cos")
    linear = su.SWALR(T.optim.SGD(model.parameters(), lr=0.2), swa_lr=[0.01], anneal_epochs=0,
                      anneal_strategy="linear")
    x = T.tensor(rng.standard_normal((16, 4)).astype(np.float32))
    y = T.tensor(rng.integers(0, 2, 16))
    lrs = []
    for _ in range(5):
        opt.zero_grad()
        T.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        cos.step()
        linear.step()
        lrs.append((cos.get_last_lr()[0], linear.get_last_lr()[0]))
        for averaged in (swa, ema, ema_buffers):
            averaged.update_parameters(model)
    loader = [(T.tensor(rng.standard_normal((8, 4)).astype(np.float32)), 0) for _ in range(3)]
    su.update_bn(loader, swa)
    with T.no_grad():
        return {"lrs": np.array(lrs), "n": int(swa.n_averaged), "swa": swa(x).numpy(), "ema": ema(x).numpy(),
                "ema_buffers": ema_buffers(x).numpy(), "running_mean": swa.module[1].running_mean.numpy(),
                "momentum": swa.module[1].momentum, "training": swa.training}


def test_the_running_mean_of_the_parameters():
    lin = gs.nn.Linear(2, 1, bias=False)
    swa = swa_utils.AveragedModel(lin)
    for value in (1.0, 2.0, 6.0):
        with gs.no_grad():
            lin.weight.fill_(value)
        swa.update_parameters(lin)
    assert swa.n_averaged.dtype == gs.int64 and int(swa.n_averaged) == 3
    np.testing.assert_allclose(swa.module.weight.detach().numpy(), [[3.0, 3.0]])
    assert swa.module is not lin and swa.module.weight is not lin.weight
    assert not swa.module.weight.requires_grad or swa.module.weight.grad is None
    np.testing.assert_allclose(swa(gs.ones(1, 2)).detach().numpy(), [[6.0]])


def test_ema_and_a_callers_avg_fn():
    lin = gs.nn.Linear(1, 1, bias=False)
    ema = swa_utils.AveragedModel(lin, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.5))
    mine = swa_utils.AveragedModel(lin, avg_fn=lambda avg, cur, n: avg + cur + n)
    for value in (4.0, 8.0):
        with gs.no_grad():
            lin.weight.fill_(value)
        ema.update_parameters(lin)
        mine.update_parameters(lin)
    assert float(ema.module.weight) == 6.0        # first copied, then 0.5 * 4 + 0.5 * 8
    assert float(mine.module.weight) == 4.0 + 8.0 + 1
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        swa_utils.AveragedModel(lin, avg_fn=swa_utils.get_swa_avg_fn(), multi_avg_fn=swa_utils.get_swa_multi_avg_fn())
    with pytest.raises(ValueError, match=r"Invalid decay value 1.5"):
        swa_utils.get_ema_avg_fn(1.5)


def test_buffers_are_copied_or_averaged():
    bn = gs.nn.BatchNorm1d(2)
    plain = swa_utils.AveragedModel(bn)
    with_buffers = swa_utils.AveragedModel(bn, use_buffers=True)
    for value in (2.0, 4.0):
        bn.running_mean.fill_(value)
        plain.update_parameters(bn)
        with_buffers.update_parameters(bn)
    assert plain.module.running_mean.tolist() == [4.0, 4.0]
    assert with_buffers.module.running_mean.tolist() == [3.0, 3.0]


def test_swalr_anneals_to_its_rate_and_stays():
    p = gs.nn.Parameter(gs.zeros(1))
    opt = gs.optim.SGD([p], lr=1.0)
    sched = swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=4, anneal_strategy="linear")
    lrs = [sched.get_last_lr()[0]]
    for _ in range(6):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    np.testing.assert_allclose(lrs, [1.0, 0.775, 0.55, 0.325, 0.1, 0.1, 0.1])
    state = sched.state_dict()
    assert "anneal_func" not in state and state["_anneal_strategy"] == "linear"
    again = swa_utils.SWALR(gs.optim.SGD([p], lr=1.0), swa_lr=0.1, anneal_strategy="cos")
    again.load_state_dict(state)
    assert again.anneal_func(0.5) == 0.5   # linear again
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear'"):
        swa_utils.SWALR(opt, swa_lr=0.1, anneal_strategy="step")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0"):
        swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=-1)
    assert math.isclose(swa_utils.SWALR._cosine_anneal(0.5), 0.5)


def test_update_bn_recomputes_the_statistics_as_a_cumulative_mean():
    model = gs.nn.Sequential(gs.nn.BatchNorm1d(1))
    model.eval()
    update = [gs.tensor([[0.0], [2.0]]), gs.tensor([[4.0], [6.0]])]
    swa_utils.update_bn([(b, None) for b in update], model)
    bn = model[0]
    assert bn.running_mean.tolist() == [3.0] and bn.momentum == 0.1 and not model.training
    swa_utils.update_bn([], gs.nn.Linear(1, 1))   # no BatchNorm: nothing to do


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step\\(\\)` before")   # the linear schedule's optimizer never steps
def test_matches_torch():
    ours, theirs = _train(gs), _train(torch)
    for key, value in ours.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_allclose(value, theirs[key], rtol=1e-4, atol=1e-6, err_msg=key)
        else:
            assert value == theirs[key], key


def test_from_a_program():
    outcome = run("""
import torch, torch.nn as nn
from torch.optim.swa_utils import AveragedModel, SWALR, update_bn, get_ema_multi_avg_fn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)
        self.bn = nn.BatchNorm1d(1)
    def forward(self, x):
        return self.bn(self.fc(x))
model = Net()
swa_model = AveragedModel(model)
ema_model = torch.optim.swa_utils.AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.5))
halves = AveragedModel(model, avg_fn=lambda avg, cur, n: (avg + cur) / 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = SWALR(opt, swa_lr=0.01, anneal_epochs=2)
x = torch.randn(8, 3)
for epoch in range(3):
    opt.zero_grad()
    model(x).pow(2).mean().backward()
    opt.step()
    sched.step()
    for m in (swa_model, ema_model, halves):
        m.update_parameters(model)
update_bn([(x, 0)], swa_model)
print(int(swa_model.n_averaged), sched.get_last_lr()[0], type(swa_model.module).__name__, tuple(swa_model(x).shape))
""", Namespace(), Limits())
    assert outcome.ok, outcome.error
    assert outcome.stdout == "3 0.01 Net (8, 1)\n"
