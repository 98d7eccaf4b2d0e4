"""torch.optim.swa_utils: weight averaging (stochastic weight averaging and exponential moving averages
of a model's parameters, ``AveragedModel``), the SWA learning-rate schedule (``SWALR``), and
``update_bn``, which recomputes BatchNorm statistics for the averaged weights. As PyTorch's: the
averages are updated in place under no_grad, the first update copies the model, and an ``avg_fn`` /
``multi_avg_fn`` given by the caller (a program's own function) replaces the running mean."""
import copy
import math

from .. import autograd
from ..nn.module import Module
from ..nn.normalization import _BatchNorm
from ..ops.creation import tensor
from .. import dtypes as _dt
from .lr_scheduler import LRScheduler, _format_param

__all__ = ["AveragedModel", "SWALR", "update_bn", "get_ema_avg_fn", "get_ema_multi_avg_fn", "get_swa_avg_fn",
           "get_swa_multi_avg_fn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """The in-place update of a list of averages towards a list of current values by ``1 - decay``:
    W_ema <- decay * W_ema + (1 - decay) * W."""
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _):
        with autograd.no_grad():
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                if p_ema.is_floating_point() or p_ema.is_complex():
                    p_ema.lerp_(p_model, 1 - decay)
                else:
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """The in-place update of a list of running means by one more value each (``num_averaged`` so far)."""
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with autograd.no_grad():
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                if p_avg.is_floating_point() or p_avg.is_complex():
                    p_avg.lerp_(p_model, float(1 / (num_averaged + 1)))
                else:
                    p_avg.copy_(p_avg + (p_model - p_avg) / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """The EMA of one parameter: decay * W_ema + (1 - decay) * W, returned (not in place)."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with autograd.no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """The running mean of one parameter after one more value, returned (not in place)."""
    def swa_update(averaged_param, current_param, num_averaged):
        with autograd.no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and with ``use_buffers`` its buffers) are the average of
    the model's over the calls of ``update_parameters``: their running mean by default, or what
    ``avg_fn(averaged, current, n_averaged)`` returns, or what ``multi_avg_fn(averaged_list,
    current_list, n_averaged)`` writes in place (``get_ema_multi_avg_fn`` for an EMA). Calling it
    runs the averaged copy."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=_dt.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Averages ``model``'s current parameters (and buffers with ``use_buffers``) into this copy's;
        without ``use_buffers`` the buffers (BatchNorm's statistics) are copied from the model."""
        if self.use_buffers:
            averaged = list(self.module.parameters()) + list(self.module.buffers())
            current = list(model.parameters()) + list(model.buffers())
        else:
            averaged, current = list(self.parameters()), list(model.parameters())
        first = int(self.n_averaged.item()) == 0
        averaged_detached, current_detached = [], []
        with autograd.no_grad():
            for p_averaged, p_model in zip(averaged, current):
                p_model_ = p_model.detach().to(p_averaged.device)
                averaged_detached.append(p_averaged.detach())
                current_detached.append(p_model_)
                if first:
                    p_averaged.detach().copy_(p_model_)
            if not first:
                if self.avg_fn is None:
                    multi_avg_fn = self.multi_avg_fn or get_swa_multi_avg_fn()
                    multi_avg_fn(averaged_detached, current_detached, self.n_averaged)
                else:
                    for p_averaged, p_model in zip(averaged_detached, current_detached):
                        p_averaged.copy_(self.avg_fn(p_averaged, p_model, self.n_averaged))
            if not self.use_buffers:
                for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                    b_swa.detach().copy_(b_model.detach().to(b_swa.device))
            self.n_averaged += 1


def update_bn(loader, model, device=None):
    """Recomputes the BatchNorm running statistics of ``model`` by one pass over ``loader`` (batches
    that are tensors, or lists/tuples whose first element is the input), as a cumulative average; the
    model's training mode and the layers' momenta are restored after."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with autograd.no_grad():
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's learning rate to its ``swa_lr`` over ``anneal_epochs`` steps ("cos" or
    "linear"), then holds it there."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        for lr, group in zip(_format_param("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def get_lr(self):
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def state_dict(self):
        """The scheduler's state, without the optimizer and the annealing function (its name is kept)."""
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
