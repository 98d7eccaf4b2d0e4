# realcode: michaelrzhang/lookahead @ c4fd85f73cdaa6450eacf7d52d9050d9ff98a6e1
# realcode: https://github.com/michaelrzhang/lookahead/blob/c4fd85f73cdaa6450eacf7d52d9050d9ff98a6e1/lookahead_pytorch.py
# realcode: kept as written except for these adaptations:
#   - lookahead_pytorch.py as written, then a driver cell built from the README's usage (the repository has no training script): a small conv net (Conv2d, BatchNorm2d, Linear) on one synthetic CIFAR-shaped batch of 8, 6 steps of each optimizer from PyTorch's initial weights, the cross-entropy minimised
# realcode-input: x = randn(8, 3, 6, 6)
# realcode-input: y = randint(0, 10, 8)
# realcode-output: losses model_la_sgd.* model_la_adam.* model_la_reset.*
# %% realcode: lookahead_pytorch.py
from collections import defaultdict

import torch
from torch.optim.optimizer import Optimizer


class Lookahead(Optimizer):
    r"""PyTorch implementation of the lookahead wrapper.

    Lookahead Optimizer: https://arxiv.org/abs/1907.08610
    """

    def __init__(self, optimizer, la_steps=5, la_alpha=0.8, pullback_momentum="none"):
        """optimizer: inner optimizer
        la_steps (int): number of lookahead steps
        la_alpha (float): linear interpolation factor. 1.0 recovers the inner optimizer.
        pullback_momentum (str): change to inner optimizer momentum on interpolation update
        """
        self.optimizer = optimizer
        self._la_step = 0  # counter for inner optimizer
        self.la_alpha = la_alpha
        self._total_la_steps = la_steps
        pullback_momentum = pullback_momentum.lower()
        assert pullback_momentum in ["reset", "pullback", "none"]
        self.pullback_momentum = pullback_momentum

        self.state = defaultdict(dict)

        # Cache the current optimizer parameters
        for group in optimizer.param_groups:
            for p in group['params']:
                param_state = self.state[p]
                param_state['cached_params'] = torch.zeros_like(p.data)
                param_state['cached_params'].copy_(p.data)
                if self.pullback_momentum == "pullback":
                    param_state['cached_mom'] = torch.zeros_like(p.data)

    def __getstate__(self):
        return {
            'state': self.state,
            'optimizer': self.optimizer,
            'la_alpha': self.la_alpha,
            '_la_step': self._la_step,
            '_total_la_steps': self._total_la_steps,
            'pullback_momentum': self.pullback_momentum
        }

    def zero_grad(self):
        self.optimizer.zero_grad()

    def get_la_step(self):
        return self._la_step

    def state_dict(self):
        return self.optimizer.state_dict()

    def load_state_dict(self, state_dict):
        self.optimizer.load_state_dict(state_dict)

    def _backup_and_load_cache(self):
        """Useful for performing evaluation on the slow weights (which typically generalize better)
        """
        for group in self.optimizer.param_groups:
            for p in group['params']:
                param_state = self.state[p]
                param_state['backup_params'] = torch.zeros_like(p.data)
                param_state['backup_params'].copy_(p.data)
                p.data.copy_(param_state['cached_params'])

    def _clear_and_load_backup(self):
        for group in self.optimizer.param_groups:
            for p in group['params']:
                param_state = self.state[p]
                p.data.copy_(param_state['backup_params'])
                del param_state['backup_params']

    @property
    def param_groups(self):
        return self.optimizer.param_groups

    def step(self, closure=None):
        """Performs a single Lookahead optimization step.
        Arguments:
            closure (callable, optional): A closure that reevaluates the model
                and returns the loss.
        """
        loss = self.optimizer.step(closure)
        self._la_step += 1

        if self._la_step >= self._total_la_steps:
            self._la_step = 0
            # Lookahead and cache the current optimizer parameters
            for group in self.optimizer.param_groups:
                for p in group['params']:
                    param_state = self.state[p]
                    p.data.mul_(self.la_alpha).add_(param_state['cached_params'], alpha=1.0 - self.la_alpha)  # crucial line
                    param_state['cached_params'].copy_(p.data)
                    if self.pullback_momentum == "pullback":
                        internal_momentum = self.optimizer.state[p]["momentum_buffer"]
                        self.optimizer.state[p]["momentum_buffer"] = internal_momentum.mul_(self.la_alpha).add_(
                            1.0 - self.la_alpha, param_state["cached_mom"])
                        param_state["cached_mom"] = self.optimizer.state[p]["momentum_buffer"]
                    elif self.pullback_momentum == "reset":
                        self.optimizer.state[p]["momentum_buffer"] = torch.zeros_like(p.data)

        return loss

# %% realcode: driver cell, the README's usage
import torch
import torch.nn as nn
import torch.nn.functional as F


def make_model():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 6 * 6, 10))


model_la_sgd = make_model()
model_la_adam = make_model()
model_la_reset = make_model()
# %% realcode-load: model_la_sgd model_la_adam model_la_reset
losses = []
optimizer = Lookahead(torch.optim.SGD(model_la_sgd.parameters(), lr=0.1, momentum=0.9), la_steps=2, la_alpha=0.5, pullback_momentum='pullback')
for step in range(6):
    optimizer.zero_grad()
    loss = F.cross_entropy(model_la_sgd(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
optimizer = Lookahead(torch.optim.Adam(model_la_adam.parameters(), lr=1e-3), la_steps=3, la_alpha=0.8)
for step in range(6):
    optimizer.zero_grad()
    loss = F.cross_entropy(model_la_adam(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
optimizer = Lookahead(torch.optim.SGD(model_la_reset.parameters(), lr=0.1, momentum=0.9), la_steps=2, pullback_momentum='reset')
for step in range(6):
    optimizer.zero_grad()
    loss = F.cross_entropy(model_la_reset(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
losses = torch.tensor(losses)
