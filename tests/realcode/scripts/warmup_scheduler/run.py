# realcode: ildoonet/pytorch-gradual-warmup-lr @ 7021d63a49106e22c79b40564a7d39930e7b0f53
# realcode: https://github.com/ildoonet/pytorch-gradual-warmup-lr/blob/7021d63a49106e22c79b40564a7d39930e7b0f53/warmup_scheduler/scheduler.py
# realcode: https://github.com/ildoonet/pytorch-gradual-warmup-lr/blob/7021d63a49106e22c79b40564a7d39930e7b0f53/warmup_scheduler/run.py
# realcode: kept as written except for these adaptations:
#   - warmup_scheduler/scheduler.py and warmup_scheduler/run.py (the package's demonstration) as written, one after the other, each after a '# %%' line
#   - `from warmup_scheduler import GradualWarmupScheduler / ` -> `pass  # realcode-inlined: from warmup_scheduler import GradualWarmupScheduler (scheduler.py, pasted above) / `: the package's own scheduler module pasted above
#   - `model = [torch.nn.Parameter(torch.randn(2, 2, requires_grad=True))] / ` -> `model = [torch.nn.Parameter(torch.randn(2, 2, requires_grad=True))] / # %% realcode-load: model / if __name__ == '__main__':  # realcode: the body continues after the load marker / `: cell marker: PyTorch's torch.randn draw is copied in (the `if __name__` body is split at the marker and goes on under the same test)
# realcode-output: model optim.param_groups.0.lr scheduler_warmup.last_epoch scheduler_steplr.last_epoch
# %% realcode: warmup_scheduler/scheduler.py
from torch.optim.lr_scheduler import _LRScheduler
from torch.optim.lr_scheduler import ReduceLROnPlateau


class GradualWarmupScheduler(_LRScheduler):
    """ Gradually warm-up(increasing) learning rate in optimizer.
    Proposed in 'Accurate, Large Minibatch SGD: Training ImageNet in 1 Hour'.

    Args:
        optimizer (Optimizer): Wrapped optimizer.
        multiplier: target learning rate = base lr * multiplier if multiplier > 1.0. if multiplier = 1.0, lr starts from 0 and ends up with the base_lr.
        total_epoch: target learning rate is reached at total_epoch, gradually
        after_scheduler: after target_epoch, use this scheduler(eg. ReduceLROnPlateau)
    """

    def __init__(self, optimizer, multiplier, total_epoch, after_scheduler=None):
        self.multiplier = multiplier
        if self.multiplier < 1.:
            raise ValueError('multiplier should be greater thant or equal to 1.')
        self.total_epoch = total_epoch
        self.after_scheduler = after_scheduler
        self.finished = False
        super(GradualWarmupScheduler, self).__init__(optimizer)

    def get_lr(self):
        if self.last_epoch > self.total_epoch:
            if self.after_scheduler:
                if not self.finished:
                    self.after_scheduler.base_lrs = [base_lr * self.multiplier for base_lr in self.base_lrs]
                    self.finished = True
                return self.after_scheduler.get_last_lr()
            return [base_lr * self.multiplier for base_lr in self.base_lrs]

        if self.multiplier == 1.0:
            return [base_lr * (float(self.last_epoch) / self.total_epoch) for base_lr in self.base_lrs]
        else:
            return [base_lr * ((self.multiplier - 1.) * self.last_epoch / self.total_epoch + 1.) for base_lr in self.base_lrs]

    def step_ReduceLROnPlateau(self, metrics, epoch=None):
        if epoch is None:
            epoch = self.last_epoch + 1
        self.last_epoch = epoch if epoch != 0 else 1  # ReduceLROnPlateau is called at the end of epoch, whereas others are called at beginning
        if self.last_epoch <= self.total_epoch:
            warmup_lr = [base_lr * ((self.multiplier - 1.) * self.last_epoch / self.total_epoch + 1.) for base_lr in self.base_lrs]
            for param_group, lr in zip(self.optimizer.param_groups, warmup_lr):
                param_group['lr'] = lr
        else:
            if epoch is None:
                self.after_scheduler.step(metrics, None)
            else:
                self.after_scheduler.step(metrics, epoch - self.total_epoch)

    def step(self, epoch=None, metrics=None):
        if type(self.after_scheduler) != ReduceLROnPlateau:
            if self.finished and self.after_scheduler:
                if epoch is None:
                    self.after_scheduler.step(None)
                else:
                    self.after_scheduler.step(epoch - self.total_epoch)
                self.last_epoch = self.after_scheduler.last_epoch + self.total_epoch + 1
                self._last_lr = self.after_scheduler.get_last_lr()
            else:
                return super(GradualWarmupScheduler, self).step(epoch)
        else:
            self.step_ReduceLROnPlateau(metrics, epoch)
# %% realcode: warmup_scheduler/run.py
import torch
from torch.optim.lr_scheduler import StepLR, ExponentialLR
from torch.optim.sgd import SGD

pass  # realcode-inlined: from warmup_scheduler import GradualWarmupScheduler (scheduler.py, pasted above)


if __name__ == '__main__':
    model = [torch.nn.Parameter(torch.randn(2, 2, requires_grad=True))]
# %% realcode-load: model
if __name__ == '__main__':  # realcode: the body continues after the load marker
    optim = SGD(model, 0.1)

    # scheduler_warmup is chained with schduler_steplr
    scheduler_steplr = StepLR(optim, step_size=10, gamma=0.1)
    scheduler_warmup = GradualWarmupScheduler(optim, multiplier=1, total_epoch=5, after_scheduler=scheduler_steplr)

    # this zero gradient update is needed to avoid a warning message, issue #8.
    optim.zero_grad()
    optim.step()

    for epoch in range(1, 20):
        scheduler_warmup.step(epoch)
        print(epoch, optim.param_groups[0]['lr'])

        optim.step()    # backward pass (update network)
