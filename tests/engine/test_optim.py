"""torch.optim: each optimizer's trajectory against PyTorch's for every option,
parameter groups, state dicts, zero_grad, closures, schedulers, and small
training loops that converge."""
import math

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine import nn, optim

try:
    import torch
except ImportError:  # the oracle tests are skipped without PyTorch
    torch = None

SHAPES = [(3, 4), (5,)]


def _grads(steps, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(steps)]


def _params(T, dtype, seed=1):
    rng = np.random.default_rng(seed)
    return [T.nn.Parameter(T.tensor(rng.standard_normal(s).astype(dtype))) for s in SHAPES]


def _run(T, make, dtype, steps=8, groups=None):
    """Applies the same gradient sequence through an optimizer; returns each step's parameters."""
    params = _params(T, dtype)
    opt = make(T.optim, params if groups is None else groups(params))
    history = []
    for grads in _grads(steps, dtype):
        for p, g in zip(params, grads):
            p.grad = T.tensor(g)
        opt.step()
        history.append([p.detach().cpu().numpy().copy() for p in params])
    return history, opt


OPTIMIZERS = {
    "SGD": lambda o, p: o.SGD(p, lr=0.1),
    "SGD_momentum": lambda o, p: o.SGD(p, lr=0.1, momentum=0.9),
    "SGD_dampening_weight_decay": lambda o, p: o.SGD(p, lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.01),
    "SGD_nesterov": lambda o, p: o.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
    "SGD_maximize": lambda o, p: o.SGD(p, lr=0.1, momentum=0.5, maximize=True),
    "Adam": lambda o, p: o.Adam(p, lr=0.01),
    "Adam_amsgrad_weight_decay": lambda o, p: o.Adam(p, lr=0.01, amsgrad=True, weight_decay=0.1),
    "Adam_small_betas_maximize": lambda o, p: o.Adam(p, lr=0.02, betas=(0.3, 0.6), eps=1e-6, maximize=True),
    "AdamW": lambda o, p: o.AdamW(p, lr=0.01),
    "AdamW_amsgrad": lambda o, p: o.AdamW(p, lr=0.01, weight_decay=0.3, amsgrad=True),
    "RMSprop": lambda o, p: o.RMSprop(p, lr=0.01),
    "RMSprop_centered_momentum": lambda o, p: o.RMSprop(p, lr=0.01, centered=True, momentum=0.9),
    "RMSprop_momentum_weight_decay": lambda o, p: o.RMSprop(p, lr=0.01, alpha=0.9, momentum=0.5,
                                                            weight_decay=0.1),
    "RMSprop_centered": lambda o, p: o.RMSprop(p, lr=0.01, centered=True, eps=1e-4),
    "RMSprop_maximize": lambda o, p: o.RMSprop(p, lr=0.01, momentum=0.3, maximize=True),
    "Adagrad": lambda o, p: o.Adagrad(p, lr=0.1),
    "Adagrad_maximize": lambda o, p: o.Adagrad(p, lr=0.1, eps=1e-3, maximize=True),
    "Adagrad_decay_accumulator": lambda o, p: o.Adagrad(p, lr=0.1, lr_decay=0.1, weight_decay=0.05,
                                                        initial_accumulator_value=0.5),
    "Adadelta": lambda o, p: o.Adadelta(p),
    "Adadelta_weight_decay_maximize": lambda o, p: o.Adadelta(p, lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1,
                                                              maximize=True),
    "Adamax": lambda o, p: o.Adamax(p, lr=0.01),
    "Adamax_weight_decay": lambda o, p: o.Adamax(p, lr=0.02, betas=(0.8, 0.9), weight_decay=0.1, eps=1e-4),
    "NAdam": lambda o, p: o.NAdam(p, lr=0.01),
    "NAdam_decoupled": lambda o, p: o.NAdam(p, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True,
                                            momentum_decay=0.01),
    "NAdam_weight_decay_maximize": lambda o, p: o.NAdam(p, lr=0.01, weight_decay=0.1, maximize=True),
    "RAdam": lambda o, p: o.RAdam(p, lr=0.01),
    "RAdam_early_rectified": lambda o, p: o.RAdam(p, lr=0.01, betas=(0.9, 0.5)),
    "RAdam_decoupled": lambda o, p: o.RAdam(p, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
    "RAdam_weight_decay": lambda o, p: o.RAdam(p, lr=0.01, weight_decay=0.1),
}


@pytest.mark.parametrize("dtype, rtol, atol", [(np.float64, 1e-12, 1e-14), (np.float32, 2e-6, 2e-7)],
                         ids=["float64", "float32"])
@pytest.mark.parametrize("name", list(OPTIMIZERS))
@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_trajectory_matches_torch(name, dtype, rtol, atol):
    ours, _ = _run(gs, OPTIMIZERS[name], dtype)
    theirs, _ = _run(torch, OPTIMIZERS[name], dtype)
    for step, (a, b) in enumerate(zip(ours, theirs)):
        for x, y in zip(a, b):
            assert x.dtype == y.dtype
            np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, err_msg=f"step {step}")


@pytest.mark.parametrize("name", ["SGD_momentum", "Adam", "RMSprop_centered_momentum", "Adagrad"])
@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_param_groups_with_their_own_hyperparameters_match_torch(name):
    def groups(params):
        return [{"params": [params[0]]}, {"params": [params[1]], "lr": 0.001, "weight_decay": 0.2}]
    ours, opt = _run(gs, OPTIMIZERS[name], np.float64, groups=groups)
    theirs, opt_t = _run(torch, OPTIMIZERS[name], np.float64, groups=groups)
    for a, b in zip(ours, theirs):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-12)
    assert [sorted(g) for g in opt.param_groups] == [sorted(g) for g in opt_t.param_groups]


@pytest.mark.parametrize("name", ["SGD_momentum", "Adam_amsgrad_weight_decay", "AdamW", "RMSprop_centered_momentum",
                                  "Adagrad_decay_accumulator"])
def test_state_dict_round_trip_continues_the_same_trajectory(name):
    make = OPTIMIZERS[name]
    straight, _ = _run(gs, make, np.float64, steps=6)
    params = _params(gs, np.float64)
    opt = make(gs.optim, params)
    grads = _grads(6, np.float64)
    for g in grads[:3]:
        for p, gi in zip(params, g):
            p.grad = gs.tensor(gi)
        opt.step()
    saved = opt.state_dict()
    resumed = make(gs.optim, params)
    resumed.load_state_dict(saved)
    for g in grads[3:]:
        for p, gi in zip(params, g):
            p.grad = gs.tensor(gi)
        resumed.step()
    for p, x in zip(params, straight[-1]):
        np.testing.assert_allclose(p.detach().numpy(), x, rtol=1e-14)
    # loading copies the state: stepping the new optimizer leaves the saved dict alone
    assert all(saved["state"][0][k] is not resumed.state[params[0]][k] for k in saved["state"][0])


@pytest.mark.parametrize("name", ["SGD", "SGD_momentum", "Adam", "AdamW", "RMSprop_centered_momentum", "Adagrad"])
@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_state_dict_layout_matches_torch(name):
    _, ours = _run(gs, OPTIMIZERS[name], np.float32, steps=2)
    _, theirs = _run(torch, OPTIMIZERS[name], np.float32, steps=2)
    a, b = ours.state_dict(), theirs.state_dict()
    assert list(a["state"]) == list(b["state"])
    for k in b["state"]:
        assert sorted(a["state"][k]) == sorted(b["state"][k])
        for key, value in b["state"][k].items():
            assert a["state"][k][key].dtype.name == str(value.dtype).removeprefix("torch.")
            np.testing.assert_allclose(a["state"][k][key].numpy(), value.numpy(), rtol=2e-6, atol=1e-7)
    for ga, gb in zip(a["param_groups"], b["param_groups"]):
        assert ga["params"] == gb["params"]
        assert {k: v for k, v in ga.items() if k in gb} == {k: v for k, v in gb.items() if k in ga}


def test_load_state_dict_rejects_mismatched_groups():
    opt = optim.SGD([nn.Parameter(gs.zeros(2))], lr=0.1)
    other = optim.SGD([nn.Parameter(gs.zeros(2)), nn.Parameter(gs.zeros(1))], lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size"):
        opt.load_state_dict(other.state_dict())


def test_load_state_dict_restores_hyperparameters():
    p = nn.Parameter(gs.zeros(2))
    opt = optim.Adam([p], lr=0.5)
    opt2 = optim.Adam([p], lr=0.1)
    opt2.load_state_dict(opt.state_dict())
    assert opt2.param_groups[0]["lr"] == 0.5 and opt2.param_groups[0]["params"][0] is p


def test_zero_grad_sets_to_none_or_zeroes():
    p = nn.Parameter(gs.ones(3))
    opt = optim.SGD([p], lr=0.1)
    (p * 2).sum().backward()
    grad = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is grad and p.grad.tolist() == [0.0, 0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None


def test_parameters_without_grad_are_skipped():
    a, b = nn.Parameter(gs.ones(2)), nn.Parameter(gs.ones(2))
    opt = optim.Adam([a, b], lr=0.1)
    a.sum().backward()
    opt.step()
    assert b.tolist() == [1.0, 1.0] and b not in opt.state and a in opt.state


def test_step_bumps_the_version_so_stale_graphs_refuse_backward():
    p = nn.Parameter(gs.ones(2))
    opt = optim.SGD([p], lr=0.1)
    y = (p * p).sum()
    p.grad = gs.ones(2)
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_step_with_closure_returns_the_loss():
    p = nn.Parameter(gs.tensor([2.0]))
    opt = optim.SGD([p], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss
    with gs.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 4.0 and p.tolist() == [1.0]


def test_optimizer_argument_errors():
    with pytest.raises(ValueError, match="Invalid learning rate"):
        optim.SGD([nn.Parameter(gs.zeros(1))], lr=-1)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.Adam([])
    with pytest.raises(ValueError, match="Nesterov momentum requires"):
        optim.SGD([nn.Parameter(gs.zeros(1))], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
        optim.Adam([nn.Parameter(gs.zeros(1))], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([nn.Parameter(gs.zeros(1)) * 2], lr=0.1)
    with pytest.raises(TypeError, match="iterable of Tensors"):
        optim.SGD(nn.Parameter(gs.zeros(1)), lr=0.1)
    p = nn.Parameter(gs.zeros(1))
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)


def test_add_param_group_fills_defaults():
    opt = optim.SGD([nn.Parameter(gs.zeros(1))], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": nn.Parameter(gs.zeros(2)), "lr": 0.01})
    assert opt.param_groups[1]["momentum"] == 0.9 and opt.param_groups[1]["lr"] == 0.01


# ------------------------------------------------------------------ schedulers
SCHEDULERS = {
    "StepLR": lambda s, o: s.StepLR(o, step_size=3, gamma=0.5),
    "CosineAnnealingLR": lambda s, o: s.CosineAnnealingLR(o, T_max=5, eta_min=0.01),
    "CosineAnnealingLR_no_floor": lambda s, o: s.CosineAnnealingLR(o, T_max=7),
    "MultiStepLR": lambda s, o: s.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.3),
    "ExponentialLR": lambda s, o: s.ExponentialLR(o, gamma=0.9),
    "LambdaLR": lambda s, o: s.LambdaLR(o, lr_lambda=lambda epoch: 1 / (1 + epoch)),
    "LambdaLR_per_group": lambda s, o: s.LambdaLR(o, lr_lambda=[lambda e: 0.5 ** e, lambda e: 1 + e]),
    "MultiplicativeLR": lambda s, o: s.MultiplicativeLR(o, lr_lambda=lambda e: 0.95),
    "LinearLR": lambda s, o: s.LinearLR(o, start_factor=0.25, total_iters=6),
    "LinearLR_decay": lambda s, o: s.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=10),
    "ConstantLR": lambda s, o: s.ConstantLR(o, factor=0.5, total_iters=4),
    "PolynomialLR": lambda s, o: s.PolynomialLR(o, total_iters=12, power=2.0),
    "OneCycleLR": lambda s, o: s.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=26),
    "OneCycleLR_linear_three_phase": lambda s, o: s.OneCycleLR(o, max_lr=0.8, epochs=2, steps_per_epoch=13,
                                                               anneal_strategy="linear", three_phase=True,
                                                               pct_start=0.25),
    "SequentialLR_warmup_then_cosine": lambda s, o: s.SequentialLR(
        o, [s.LinearLR(o, start_factor=0.1, total_iters=5), s.CosineAnnealingLR(o, T_max=20)], milestones=[5]),
    "SequentialLR_three": lambda s, o: s.SequentialLR(
        o, [s.ConstantLR(o, factor=0.5, total_iters=3), s.ExponentialLR(o, gamma=0.9), s.StepLR(o, 4)],
        milestones=[4, 12]),
    "ChainedScheduler": lambda s, o: s.ChainedScheduler([s.ConstantLR(o, factor=0.5, total_iters=4),
                                                         s.ExponentialLR(o, gamma=0.9)]),
}


def _lrs(T, make, epochs=25):
    params = [T.nn.Parameter(T.zeros(1)), T.nn.Parameter(T.zeros(1))]
    opt = T.optim.SGD([{"params": [params[0]]}, {"params": [params[1]], "lr": 0.3}], lr=0.1)
    sched = make(T.optim.lr_scheduler, opt)
    lrs = [sched.get_last_lr()]
    for _ in range(epochs):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
        assert [g["lr"] for g in opt.param_groups] == lrs[-1]
    return lrs


@pytest.mark.parametrize("name", list(SCHEDULERS))
@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_scheduler_matches_torch(name):
    np.testing.assert_allclose(_lrs(gs, SCHEDULERS[name]), _lrs(torch, SCHEDULERS[name]), rtol=1e-12, atol=1e-15)


def _plateau_run(T, **kwargs):
    p = T.nn.Parameter(T.zeros(1))
    opt = T.optim.SGD([p], lr=1.0)
    sched = T.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
    metrics = [5.0, 4.0, 4.0, 4.0, 3.9999, 4.1, 4.2, 4.3, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 2.0, 2.5, 2.5, 2.5]
    out = []
    for m in metrics:
        opt.step()
        sched.step(T.tensor(m))
        out.append(sched.get_last_lr()[0])
    return out


@pytest.mark.parametrize("kwargs", [dict(patience=2), dict(mode="max", factor=0.5, patience=1, cooldown=2),
                                    dict(patience=1, threshold=0.5, threshold_mode="abs", min_lr=0.05)])
@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_reduce_lr_on_plateau_matches_torch(kwargs):
    assert _plateau_run(gs, **kwargs) == _plateau_run(torch, **kwargs)


def test_reduce_lr_on_plateau_reduces_after_patience_and_respects_min_lr():
    lrs = _plateau_run(gs, patience=1, factor=0.5, min_lr=0.3)
    assert lrs[:4] == [1.0, 1.0, 1.0, 0.5] and min(lrs) == 0.3


def test_one_cycle_sets_momentum_and_refuses_stepping_past_the_end():
    p = gs.nn.Parameter(gs.zeros(1))
    opt = gs.optim.Adam([p], lr=0.1)
    sched = gs.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=4)
    assert opt.param_groups[0]["betas"][0] == 0.95 and sched.get_last_lr() == [pytest.approx(0.04)]
    for _ in range(4):
        opt.step()
        sched.step()
    with pytest.raises(ValueError, match="Tried to step"):
        sched.step()


def test_step_lr_values():
    lrs = [lr[0] for lr in _lrs(gs, SCHEDULERS["StepLR"], epochs=7)]
    assert lrs == pytest.approx([0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025])


def test_cosine_annealing_reaches_eta_min_at_t_max():
    lrs = [lr[0] for lr in _lrs(gs, SCHEDULERS["CosineAnnealingLR"], epochs=5)]
    assert lrs[0] == pytest.approx(0.1) and lrs[5] == pytest.approx(0.01)
    assert lrs[2] == pytest.approx(0.01 + 0.09 * (1 + math.cos(math.pi * 2 / 5)) / 2)


def test_scheduler_state_dict_round_trip():
    opt = optim.SGD([nn.Parameter(gs.zeros(1))], lr=0.1)
    sched = optim.lr_scheduler.StepLR(opt, step_size=2)
    for _ in range(3):
        sched.step()
    state = sched.state_dict()
    assert "optimizer" not in state and state["last_epoch"] == 3
    other = optim.lr_scheduler.StepLR(optim.SGD([nn.Parameter(gs.zeros(1))], lr=0.1), step_size=2)
    other.load_state_dict(state)
    assert other.last_epoch == 3 and other.get_last_lr() == sched.get_last_lr()


@pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")
def test_a_scheduler_subclassing_the_old_lrscheduler_name_steps_as_pytorchs():
    # uvadlc's CosineWarmupScheduler(optim.lr_scheduler._LRScheduler) overrides get_lr
    def rates(lib):
        class CosineWarmupScheduler(lib.optim.lr_scheduler._LRScheduler):
            def __init__(self, optimizer, warmup, max_iters):
                self.warmup, self.max_num_iters = warmup, max_iters
                super().__init__(optimizer)

            def get_lr(self):
                factor = 0.5 * (1 + np.cos(np.pi * self.last_epoch / self.max_num_iters))
                if self.last_epoch <= self.warmup:
                    factor *= self.last_epoch * 1.0 / self.warmup
                return [base_lr * factor for base_lr in self.base_lrs]

        opt = lib.optim.Adam([lib.nn.Parameter(lib.zeros(2))], lr=1e-3)
        sched = CosineWarmupScheduler(opt, warmup=3, max_iters=10)
        assert isinstance(sched, lib.optim.lr_scheduler.LRScheduler)
        out = []
        for _ in range(8):
            opt.step()
            sched.step()
            out.append(opt.param_groups[0]["lr"])
        return out
    assert rates(gs) == rates(torch)


# ------------------------------------------------------------------ training loops
def _blobs(n=200, seed=0):
    rng = np.random.default_rng(seed)
    centers = np.array([[2.0, 0.0], [-2.0, 1.0], [0.0, -2.5]])
    labels = rng.integers(0, 3, n)
    return (centers[labels] + rng.standard_normal((n, 2)) * 0.6).astype(np.float32), labels


@pytest.mark.parametrize("make", [
    lambda p: optim.SGD(p, lr=0.1, momentum=0.9),
    lambda p: optim.Adam(p, lr=0.02),
    lambda p: optim.AdamW(p, lr=0.02),
    lambda p: optim.RMSprop(p, lr=0.01),
    lambda p: optim.Adagrad(p, lr=0.2),
], ids=["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_training_a_small_classifier_converges(make):
    gs.manual_seed(0)
    x, y = _blobs()
    xs, ys = gs.tensor(x), gs.tensor(y)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = make(model.parameters())
    sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=60)
    first = None
    for _ in range(60):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(xs), ys)
        loss.backward()
        opt.step()
        sched.step()
        first = loss.item() if first is None else first
    model.eval()
    with gs.no_grad():
        accuracy = (model(xs).argmax(1) == ys).float().mean().item()
    assert loss.item() < 0.3 * first and accuracy > 0.9


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_a_full_training_loop_follows_torch_step_for_step():
    """Model, loss, backward, clipping, optimizer and scheduler together, float64, against PyTorch."""
    x, y = _blobs(64)

    def build(T):
        T.manual_seed(0)
        return T.nn.Sequential(T.nn.Linear(2, 8), T.nn.BatchNorm1d(8), T.nn.Tanh(), T.nn.Linear(8, 3)).double()

    theirs, ours = build(torch), build(gs)
    ours.load_state_dict({k: gs.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    runs = []
    for T, model in ((torch, theirs), (gs, ours)):
        opt = T.optim.Adam(model.parameters(), lr=0.05, weight_decay=0.01)
        sched = T.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        xs, ys = T.tensor(x.astype(np.float64)), T.tensor(y)
        losses = []
        for _ in range(6):
            opt.zero_grad()
            loss = T.nn.functional.cross_entropy(model(xs), ys, label_smoothing=0.05)
            loss.backward()
            T.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            losses.append(loss.item())
        runs.append((losses, {k: v.detach().numpy() for k, v in model.state_dict().items()}))
    np.testing.assert_allclose(runs[1][0], runs[0][0], rtol=1e-10)
    for k, v in runs[0][1].items():
        np.testing.assert_allclose(runs[1][1][k], v, rtol=1e-9, atol=1e-12, err_msg=k)


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_lbfgs_follows_torch(line_search):
    def run(T):
        rng = np.random.default_rng(3)
        a = T.tensor(rng.standard_normal((6, 3)))
        b = T.tensor(rng.standard_normal(6))
        w = T.nn.Parameter(T.zeros(3, dtype=T.float64))
        c = T.nn.Parameter(T.tensor([0.5], dtype=T.float64))
        opt = T.optim.LBFGS([w, c], lr=0.8, max_iter=6, history_size=4, line_search_fn=line_search)
        losses = []
        for _ in range(3):
            def closure():
                opt.zero_grad()
                loss = ((a @ w + c - b) ** 2).mean() + (w ** 4).sum() * 0.1
                loss.backward()
                return loss
            losses.append(opt.step(closure).item())
        return losses, w.detach().numpy(), opt.state[w]["func_evals"], opt.state[w]["n_iter"]
    ours, theirs = run(gs), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-9, atol=1e-12)
    assert ours[2:] == theirs[2:]


def test_lbfgs_refuses_parameter_groups():
    with pytest.raises(ValueError, match="per-parameter options"):
        gs.optim.LBFGS([{"params": [gs.nn.Parameter(gs.zeros(1))]}, {"params": [gs.nn.Parameter(gs.zeros(1))]}])


# ------------------------------------------------------------------ foreach: the whole group at once
FOREACH = ["SGD", "SGD_momentum", "SGD_dampening_weight_decay", "SGD_nesterov", "SGD_maximize", "Adam",
           "Adam_amsgrad_weight_decay", "Adam_small_betas_maximize", "AdamW", "AdamW_amsgrad", "RMSprop",
           "RMSprop_centered_momentum", "RMSprop_momentum_weight_decay", "RMSprop_centered", "RMSprop_maximize",
           "Adagrad", "Adagrad_decay_accumulator", "Adagrad_maximize"]
FOREACH_SHAPES = [(3, 4), (5,), (2, 3), (4,)]


def _foreach_run(T, name, foreach, steps=7):
    """Four parameters in two groups (the second with its own lr), some of them without a
    gradient on some steps, and a state_dict round trip into a fresh optimizer half way."""
    rng = np.random.default_rng(3)
    params = [T.nn.Parameter(T.tensor(rng.standard_normal(s).astype(np.float32))) for s in FOREACH_SHAPES]

    def make():
        opt = OPTIMIZERS[name](T.optim, [{"params": params[:3]}, {"params": params[3:], "lr": 0.003}])
        for group in opt.param_groups:
            group["foreach"] = foreach
        return opt
    opt = make()
    history = []
    for step in range(steps):
        for i, p in enumerate(params):
            skip = (step == 2 and i == 1) or (step == 4 and i in (0, 2))
            p.grad = None if skip else T.tensor(rng.standard_normal(FOREACH_SHAPES[i]).astype(np.float32))
        opt.step()
        if step == 3:
            saved = opt.state_dict()
            opt = make()
            opt.load_state_dict(saved)
        history.append([p.detach().numpy().copy() for p in params])
    return history, opt


@pytest.mark.parametrize("name", FOREACH)
def test_foreach_updates_equal_the_per_parameter_path(name):
    flat, opt = _foreach_run(gs, name, None)
    single, _ = _foreach_run(gs, name, False)
    for a, b in zip(flat, single):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    assert opt._flats   # the last steps ran on the flat layout


@pytest.mark.parametrize("name", FOREACH)
@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_foreach_updates_match_torch(name):
    ours, opt = _foreach_run(gs, name, None)
    theirs, opt_t = _foreach_run(torch, name, None)
    for a, b in zip(ours, theirs):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=2e-6, atol=2e-7)
    a, b = opt.state_dict(), opt_t.state_dict()
    assert sorted(a["state"]) == sorted(b["state"])
    for k in a["state"]:
        assert sorted(a["state"][k]) == sorted(b["state"][k])
        for key, value in a["state"][k].items():
            np.testing.assert_allclose(value.numpy(), b["state"][k][key].numpy(), rtol=2e-6, atol=2e-7)


def test_foreach_state_is_a_view_of_one_buffer_per_name():
    params = [gs.nn.Parameter(gs.randn(3, 2)), gs.nn.Parameter(gs.randn(4))]
    opt = gs.optim.Adam(params)
    for p in params:
        p.grad = gs.ones_like(p)
    opt.step()
    layout = next(iter(opt._flats.values()))
    assert layout.flat["exp_avg"].shape == (10,)
    assert opt.state[params[1]]["exp_avg"]._data.base is layout.flat["exp_avg"]
    assert opt.state[params[0]]["exp_avg"].shape == (3, 2)


def test_session_bytes_count_the_flat_state_once_and_nothing_beyond_it():
    from gradserve.engine.program.memory import tensor_bytes
    params = [gs.nn.Parameter(gs.randn(3, 2)), gs.nn.Parameter(gs.randn(4))]
    opt = gs.optim.Adam(params)
    for p in params:
        p.grad = gs.ones_like(p)
    opt.step()
    assert opt._flats
    # parameters and gradients (40 + 40), exp_avg and exp_avg_sq (one 40-byte buffer each), two steps
    assert tensor_bytes([opt]) == 40 + 40 + 2 * 40 + 2 * 4


def _warm_restarts_and_cyclic(T):
    """Rates, cycle state and momenta of CosineAnnealingWarmRestarts (T_mult 2 and 1, fractional step
    epochs) and CyclicLR (three modes with SGD's momentum, a custom scale_fn with Adam's beta1), then errors."""
    out = []
    p = T.nn.Parameter(T.zeros(2))
    opt = T.optim.SGD([p], lr=0.1, momentum=0.9)
    s = T.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001)
    for _ in range(12):
        opt.step()
        s.step()
        out.append((s.get_last_lr(), s.T_i, s.T_cur, s.last_epoch))
    for e in (0.5, 3.25, 10.0, 20.7):
        s.step(e)
        out.append((s.get_last_lr(), s.T_i, s.T_cur, s.last_epoch))
    opt = T.optim.SGD([p], lr=0.1, momentum=0.9)
    s = T.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=4)
    for _ in range(9):
        opt.step()
        s.step()
        out.append(s.get_last_lr())
    for mode, kw in (("triangular", {}), ("triangular2", {}), ("exp_range", {"gamma": 0.9})):
        opt = T.optim.SGD([p], lr=0.1, momentum=0.9)
        s = T.optim.lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=2, mode=mode,
                                          **kw)
        for _ in range(12):
            opt.step()
            s.step()
            out.append((s.get_last_lr(), opt.param_groups[0]["momentum"]))
    opt = T.optim.Adam([p], lr=0.1)
    s = T.optim.lr_scheduler.CyclicLR(opt, base_lr=[0.001], max_lr=0.01, step_size_up=4, scale_fn=lambda x: 0.5 ** x,
                                      scale_mode="iterations")
    for _ in range(6):
        opt.step()
        s.step()
        out.append((s.get_last_lr(), opt.param_groups[0]["betas"]))
    for bad in (lambda: T.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=0),
                lambda: T.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=1.5),
                lambda: T.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2).step(-1),
                lambda: T.optim.lr_scheduler.CyclicLR(T.optim.Adagrad([p]), 0.1, 1.0),
                lambda: T.optim.lr_scheduler.CyclicLR(opt, 0.1, 1.0, mode="x"),
                lambda: T.optim.lr_scheduler.CyclicLR(opt, [0.1, 0.2], 1.0)):
        try:
            bad()
            out.append(None)
        except ValueError as e:
            out.append(str(e))
    return out


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_warm_restarts_and_cyclic_schedules_match_pytorch_to_the_last_bit():
    assert _warm_restarts_and_cyclic(gs) == _warm_restarts_and_cyclic(torch)
