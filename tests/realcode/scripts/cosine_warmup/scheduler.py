# realcode: katsura-jp/pytorch-cosine-annealing-with-warmup @ 12d03c07553aedd3d9e9155e2b3e31ce8c64081a
# realcode: https://github.com/katsura-jp/pytorch-cosine-annealing-with-warmup/blob/12d03c07553aedd3d9e9155e2b3e31ce8c64081a/cosine_annealing_warmup/scheduler.py
# realcode: https://github.com/katsura-jp/pytorch-cosine-annealing-with-warmup/blob/12d03c07553aedd3d9e9155e2b3e31ce8c64081a/README.md
# realcode: kept as written except for these adaptations:
#   - cosine_annealing_warmup/scheduler.py as written, then a driver cell built from the README's example (`model = ...` a small nn.Linear regression on synthetic data; train() one SGD step; valid() dropped), for the README's case 2 shrunk (first_cycle_steps 200 -> 20, warmup_steps 50 -> 5, 60 epochs: three cycles) and, stepped with explicit epochs, cycle_mult 2.0
#   - a load marker after the model is built (PyTorch's initial weights are copied in); the learning rates are collected to compare
# realcode-input: x = randn(32, 4)
# realcode-input: y = randn(32, 1)
# realcode-output: model.* lrs lrs_mult scheduler.cycle scheduler.step_in_cycle scheduler2.cycle scheduler2.cur_cycle_steps
# %% realcode: cosine_annealing_warmup/scheduler.py
import math
import torch
from torch.optim.lr_scheduler import _LRScheduler

class CosineAnnealingWarmupRestarts(_LRScheduler):
    """
        optimizer (Optimizer): Wrapped optimizer.
        first_cycle_steps (int): First cycle step size.
        cycle_mult(float): Cycle steps magnification. Default: -1.
        max_lr(float): First cycle's max learning rate. Default: 0.1.
        min_lr(float): Min learning rate. Default: 0.001.
        warmup_steps(int): Linear warmup step size. Default: 0.
        gamma(float): Decrease rate of max learning rate by cycle. Default: 1.
        last_epoch (int): The index of last epoch. Default: -1.
    """
    
    def __init__(self,
                 optimizer : torch.optim.Optimizer,
                 first_cycle_steps : int,
                 cycle_mult : float = 1.,
                 max_lr : float = 0.1,
                 min_lr : float = 0.001,
                 warmup_steps : int = 0,
                 gamma : float = 1.,
                 last_epoch : int = -1
        ):
        assert warmup_steps < first_cycle_steps
        
        self.first_cycle_steps = first_cycle_steps # first cycle step size
        self.cycle_mult = cycle_mult # cycle steps magnification
        self.base_max_lr = max_lr # first max learning rate
        self.max_lr = max_lr # max learning rate in the current cycle
        self.min_lr = min_lr # min learning rate
        self.warmup_steps = warmup_steps # warmup step size
        self.gamma = gamma # decrease rate of max learning rate by cycle
        
        self.cur_cycle_steps = first_cycle_steps # first cycle step size
        self.cycle = 0 # cycle count
        self.step_in_cycle = last_epoch # step size of the current cycle
        
        super(CosineAnnealingWarmupRestarts, self).__init__(optimizer, last_epoch)
        
        # set learning rate min_lr
        self.init_lr()
    
    def init_lr(self):
        self.base_lrs = []
        for param_group in self.optimizer.param_groups:
            param_group['lr'] = self.min_lr
            self.base_lrs.append(self.min_lr)
    
    def get_lr(self):
        if self.step_in_cycle == -1:
            return self.base_lrs
        elif self.step_in_cycle < self.warmup_steps:
            return [(self.max_lr - base_lr)*self.step_in_cycle / self.warmup_steps + base_lr for base_lr in self.base_lrs]
        else:
            return [base_lr + (self.max_lr - base_lr) \
                    * (1 + math.cos(math.pi * (self.step_in_cycle-self.warmup_steps) \
                                    / (self.cur_cycle_steps - self.warmup_steps))) / 2
                    for base_lr in self.base_lrs]

    def step(self, epoch=None):
        if epoch is None:
            epoch = self.last_epoch + 1
            self.step_in_cycle = self.step_in_cycle + 1
            if self.step_in_cycle >= self.cur_cycle_steps:
                self.cycle += 1
                self.step_in_cycle = self.step_in_cycle - self.cur_cycle_steps
                self.cur_cycle_steps = int((self.cur_cycle_steps - self.warmup_steps) * self.cycle_mult) + self.warmup_steps
        else:
            if epoch >= self.first_cycle_steps:
                if self.cycle_mult == 1.:
                    self.step_in_cycle = epoch % self.first_cycle_steps
                    self.cycle = epoch // self.first_cycle_steps
                else:
                    n = int(math.log((epoch / self.first_cycle_steps * (self.cycle_mult - 1) + 1), self.cycle_mult))
                    self.cycle = n
                    self.step_in_cycle = epoch - int(self.first_cycle_steps * (self.cycle_mult ** n - 1) / (self.cycle_mult - 1))
                    self.cur_cycle_steps = self.first_cycle_steps * self.cycle_mult ** (n)
            else:
                self.cur_cycle_steps = self.first_cycle_steps
                self.step_in_cycle = epoch
                
        self.max_lr = self.base_max_lr * (self.gamma**self.cycle)
        self.last_epoch = math.floor(epoch)
        for param_group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            param_group['lr'] = lr
# %% realcode-driver: the README's example
import torch.nn as nn
import torch.optim as optim
pass  # realcode-inlined: from cosine_annealing_warmup import CosineAnnealingWarmupRestarts (scheduler.py, pasted above)

model = nn.Linear(4, 1)  # realcode: model = ...
# %% realcode-load: model
optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-5) # lr is min lr
scheduler = CosineAnnealingWarmupRestarts(optimizer,
                                          first_cycle_steps=20,
                                          cycle_mult=1.0,
                                          max_lr=0.1,
                                          min_lr=0.001,
                                          warmup_steps=5,
                                          gamma=0.5)


def train():  # realcode: the README's train(), one SGD step on the synthetic regression
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


lrs = []
n_epoch = 60
for epoch in range(n_epoch):
    train()
    pass  # realcode-dropped: valid()
    scheduler.step()
    lrs.append(optimizer.param_groups[0]['lr'])
lrs = torch.tensor(lrs, dtype=torch.float64)

optimizer2 = optim.SGD(nn.Linear(4, 1).parameters(), lr=0.1)
scheduler2 = CosineAnnealingWarmupRestarts(optimizer2, first_cycle_steps=10, cycle_mult=2.0, max_lr=0.1, min_lr=0.001, warmup_steps=2, gamma=0.5)
lrs_mult = []
for epoch in range(0, 70, 3):
    scheduler2.step(epoch)
    lrs_mult.append(optimizer2.param_groups[0]['lr'])
lrs_mult = torch.tensor(lrs_mult, dtype=torch.float64)
