# realcode: lucidrains/lion-pytorch @ 6a74fdc0ba572ab5683dc0270c66c20ecbc02d09
# realcode: https://github.com/lucidrains/lion-pytorch/blob/6a74fdc0ba572ab5683dc0270c66c20ecbc02d09/lion_pytorch/lion_pytorch.py
# realcode: kept as written except for these adaptations:
#   - lion_pytorch/lion_pytorch.py as written, then a driver cell built from the README's usage (the repository has no training script): a small conv net (Conv2d, BatchNorm2d, Linear) on one synthetic CIFAR-shaped batch of 8, 6 steps of each optimizer from PyTorch's initial weights, the cross-entropy minimised
# realcode-input: x = randn(8, 3, 6, 6)
# realcode-input: y = randint(0, 10, 8)
# realcode-output: losses model_lion.* model_lion_dwd.*
# %% realcode: lion_pytorch/lion_pytorch.py
from __future__ import annotations
from typing import Tuple, Callable

import torch
from torch.optim.optimizer import Optimizer

# functions

def exists(val):
    return val is not None

# update functions

def update_fn(p, grad, exp_avg, lr, wd, beta1, beta2):
    # stepweight decay

    p.data.mul_(1. - lr * wd)

    # weight update

    update = exp_avg.clone().mul_(beta1).add(grad, alpha = 1. - beta1).sign_()
    p.add_(update, alpha = -lr)

    # decay the momentum running average coefficient

    exp_avg.mul_(beta2).add_(grad, alpha = 1. - beta2)

# class

class Lion(Optimizer):
    def __init__(
        self,
        params,
        lr: float = 1e-4,
        betas: Tuple[float, float] = (0.9, 0.99),
        weight_decay: float = 0.0,
        use_triton: bool = False,
        decoupled_weight_decay: bool = False,
    ):
        assert lr > 0.
        assert all([0. <= beta <= 1. for beta in betas])

        self._init_lr = lr
        self.decoupled_wd = decoupled_weight_decay

        defaults = dict(
            lr = lr,
            betas = betas,
            weight_decay = weight_decay
        )

        super().__init__(params, defaults)

        self.update_fn = update_fn

        if use_triton:
            from lion_pytorch.triton import update_fn as triton_update_fn
            self.update_fn = triton_update_fn

    @torch.no_grad()
    def step(
        self,
        closure: Callable | None = None
    ):

        loss = None
        if exists(closure):
            with torch.enable_grad():
                loss = closure()

        for group in self.param_groups:
            for p in filter(lambda p: exists(p.grad), group['params']):

                grad, lr, wd, beta1, beta2, state, decoupled_wd, init_lr = p.grad, group['lr'], group['weight_decay'], *group['betas'], self.state[p], self.decoupled_wd, self._init_lr

                # maybe decoupled weight decay

                if decoupled_wd:
                    wd /= init_lr

                # init state - exponential moving average of gradient values

                if len(state) == 0:
                    state['exp_avg'] = torch.zeros_like(p)

                exp_avg = state['exp_avg']

                self.update_fn(
                    p,
                    grad,
                    exp_avg,
                    lr,
                    wd,
                    beta1,
                    beta2
                )

        return loss

# %% realcode: driver cell, the README's usage
import torch
import torch.nn as nn
import torch.nn.functional as F


def make_model():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 6 * 6, 10))


model_lion = make_model()
model_lion_dwd = make_model()
# %% realcode-load: model_lion model_lion_dwd
losses = []
optimizer = Lion(model_lion.parameters(), lr=1e-4, weight_decay=1e-2)
for step in range(6):
    optimizer.zero_grad()
    loss = F.cross_entropy(model_lion(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
optimizer = Lion(model_lion_dwd.parameters(), lr=3e-4, weight_decay=1e-2, decoupled_weight_decay=True)
for step in range(6):
    optimizer.zero_grad()
    loss = F.cross_entropy(model_lion_dwd(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
losses = torch.tensor(losses)
