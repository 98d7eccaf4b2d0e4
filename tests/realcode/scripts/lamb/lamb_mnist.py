# realcode: cybertronai/pytorch-lamb @ d3ab8dccf6717977c1ad0d6b95499f6b25bba41b
# realcode: https://github.com/cybertronai/pytorch-lamb/blob/d3ab8dccf6717977c1ad0d6b95499f6b25bba41b/pytorch_lamb/lamb.py
# realcode: https://github.com/cybertronai/pytorch-lamb/blob/d3ab8dccf6717977c1ad0d6b95499f6b25bba41b/test_lamb.py
# realcode: kept as written except for these adaptations:
#   - pytorch_lamb/lamb.py and test_lamb.py (the package's MNIST example) as written, one after the other, each after a '# %%' line, then a driver cell running main()'s body
#   - `from tensorboardX import SummaryWriter` (lamb.py) -> a `SummaryWriter` class whose add_histogram and add_scalar keep nothing: TensorBoard logging dropped (file I/O); log_lamb_rs is kept as written and still runs
#   - test_lamb.py: `from tensorboardX import SummaryWriter`, `from torchvision import datasets, transforms` dropped; `from pytorch_lamb import Lamb, log_lamb_rs` inlined (lamb.py pasted above)
#   - main() is not called (its body is the driver cell, with a load marker after the model is built); argparse's defaults become a class (epochs 6 -> 2, test batch size 1000 -> 64)
#   - datasets.MNIST (download, ToTensor, Normalize) -> TensorDataset of synthetic images and labels (inputs); one training batch of 64, so the shuffle does not change the loss
#   - the driver's last line collects the trust ratios log_lamb_rs logs, to compare
# realcode-input: train_images = randn(64, 1, 28, 28)
# realcode-input: train_labels = randint(0, 10, 64)
# realcode-input: test_images = randn(64, 1, 28, 28)
# realcode-input: test_labels = randint(0, 10, 64)
# realcode-output: model.* trust_ratios
# %% realcode: pytorch_lamb/lamb.py
"""Lamb optimizer."""

import collections
import math

import torch
class SummaryWriter:  # realcode-dropped: from tensorboardX import SummaryWriter (TensorBoard logging); a writer that keeps nothing
    def add_histogram(self, *args): pass
    def add_scalar(self, *args): pass
from torch.optim import Optimizer


def log_lamb_rs(optimizer: Optimizer, event_writer: SummaryWriter, token_count: int):
    """Log a histogram of trust ratio scalars in across layers."""
    results = collections.defaultdict(list)
    for group in optimizer.param_groups:
        for p in group['params']:
            state = optimizer.state[p]
            for i in ('weight_norm', 'adam_norm', 'trust_ratio'):
                if i in state:
                    results[i].append(state[i])

    for k, v in results.items():
        event_writer.add_histogram(f'lamb/{k}', torch.tensor(v), token_count)

class Lamb(Optimizer):
    r"""Implements Lamb algorithm.

    It has been proposed in `Large Batch Optimization for Deep Learning: Training BERT in 76 minutes`_.

    Arguments:
        params (iterable): iterable of parameters to optimize or dicts defining
            parameter groups
        lr (float, optional): learning rate (default: 1e-3)
        betas (Tuple[float, float], optional): coefficients used for computing
            running averages of gradient and its square (default: (0.9, 0.999))
        eps (float, optional): term added to the denominator to improve
            numerical stability (default: 1e-8)
        weight_decay (float, optional): weight decay (L2 penalty) (default: 0)
        adam (bool, optional): always use trust ratio = 1, which turns this into
            Adam. Useful for comparison purposes.

    .. _Large Batch Optimization for Deep Learning: Training BERT in 76 minutes:
        https://arxiv.org/abs/1904.00962
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6,
                 weight_decay=0, adam=False):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError("Invalid beta parameter at index 0: {}".format(betas[0]))
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError("Invalid beta parameter at index 1: {}".format(betas[1]))
        defaults = dict(lr=lr, betas=betas, eps=eps,
                        weight_decay=weight_decay)
        self.adam = adam
        super(Lamb, self).__init__(params, defaults)

    def step(self, closure=None):
        """Performs a single optimization step.

        Arguments:
            closure (callable, optional): A closure that reevaluates the model
                and returns the loss.
        """
        loss = None
        if closure is not None:
            loss = closure()

        for group in self.param_groups:
            for p in group['params']:
                if p.grad is None:
                    continue
                grad = p.grad.data
                if grad.is_sparse:
                    raise RuntimeError('Lamb does not support sparse gradients, consider SparseAdam instad.')

                state = self.state[p]

                # State initialization
                if len(state) == 0:
                    state['step'] = 0
                    # Exponential moving average of gradient values
                    state['exp_avg'] = torch.zeros_like(p.data)
                    # Exponential moving average of squared gradient values
                    state['exp_avg_sq'] = torch.zeros_like(p.data)

                exp_avg, exp_avg_sq = state['exp_avg'], state['exp_avg_sq']
                beta1, beta2 = group['betas']

                state['step'] += 1

                # Decay the first and second moment running average coefficient
                # m_t
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                # v_t
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

                # Paper v3 does not use debiasing.
                # bias_correction1 = 1 - beta1 ** state['step']
                # bias_correction2 = 1 - beta2 ** state['step']
                # Apply bias to lr to avoid broadcast.
                step_size = group['lr'] # * math.sqrt(bias_correction2) / bias_correction1

                weight_norm = p.data.pow(2).sum().sqrt().clamp(0, 10)

                adam_step = exp_avg / exp_avg_sq.sqrt().add(group['eps'])
                if group['weight_decay'] != 0:
                    adam_step.add_(p.data, alpha=group['weight_decay'])

                adam_norm = adam_step.pow(2).sum().sqrt()
                if weight_norm == 0 or adam_norm == 0:
                    trust_ratio = 1
                else:
                    trust_ratio = weight_norm / adam_norm
                state['weight_norm'] = weight_norm
                state['adam_norm'] = adam_norm
                state['trust_ratio'] = trust_ratio
                if self.adam:
                    trust_ratio = 1

                p.data.add_(adam_step, alpha=-step_size * trust_ratio)

        return loss
# %% realcode: test_lamb.py
"""MNIST example.

Based on https://github.com/pytorch/examples/blob/master/mnist/main.py
"""

from __future__ import print_function
import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
import tqdm
pass  # realcode-dropped: from tensorboardX import SummaryWriter (the stand-in above)
pass  # realcode-dropped: from torchvision import datasets, transforms
pass  # realcode-inlined: from pytorch_lamb import Lamb, log_lamb_rs (lamb.py, pasted above)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 20, 5, 1)
        self.conv2 = nn.Conv2d(20, 50, 5, 1)
        self.fc1 = nn.Linear(4*4*50, 500)
        self.fc2 = nn.Linear(500, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(x, 2, 2)
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2, 2)
        x = x.view(-1, 4*4*50)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)
    
def train(args, model, device, train_loader, optimizer, epoch, event_writer):
    model.train()
    tqdm_bar = tqdm.tqdm(train_loader)
    for batch_idx, (data, target) in enumerate(tqdm_bar):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            step = batch_idx * len(data) + (epoch-1) * len(train_loader.dataset)
            log_lamb_rs(optimizer, event_writer, step)
            event_writer.add_scalar('loss', loss.item(), step)
            tqdm_bar.set_description(
                f'Train epoch {epoch} Loss: {loss.item():.6f}')

def test(args, model, device, test_loader, event_writer:SummaryWriter, epoch):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item() # sum up batch loss
            pred = output.argmax(dim=1, keepdim=True) # get the index of the max log-probability
            correct += pred.eq(target.view_as(pred)).sum().item()

    test_loss /= len(test_loader.dataset)
    acc = correct / len(test_loader.dataset)
    event_writer.add_scalar('loss/test_loss', test_loss, epoch - 1)
    event_writer.add_scalar('loss/test_acc', acc, epoch - 1)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset),
        100. * acc))

def main():
    pass  # realcode-dropped: main()'s body runs in the driver cell below, so PyTorch's initial weights can be copied in
# %% realcode-driver: main()'s body at the top level (argparse's defaults as a class, epochs 6 -> 2, test batch 1000 -> 64; MNIST replaced by synthetic batches)
class args:  # realcode: argparse's defaults, epochs 6 -> 2, test batch size 1000 -> 64
    batch_size = 64; optimizer = 'lamb'; test_batch_size = 64; epochs = 2; lr = 0.0025; wd = 0.01; seed = 1; log_interval = 10
use_cuda = torch.cuda.is_available()

torch.manual_seed(args.seed)

device = torch.device("cuda" if use_cuda else "cpu")

kwargs = {'num_workers': 1, 'pin_memory': True} if use_cuda else {}
train_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(train_images, train_labels),  # realcode: datasets.MNIST('../data', train=True, download=True, transform=...)
    batch_size=args.batch_size, shuffle=True, **kwargs)
test_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(test_images, test_labels),  # realcode: datasets.MNIST('../data', train=False, transform=...)
    batch_size=args.test_batch_size, shuffle=True, **kwargs)


model = Net().to(device)
# %% realcode-load: model
optimizer = Lamb(model.parameters(), lr=args.lr, weight_decay=args.wd, betas=(.9, .999), adam=(args.optimizer == 'adam'))
writer = SummaryWriter()
for epoch in range(1, args.epochs + 1):
    train(args, model, device, train_loader, optimizer, epoch, writer)
    test(args, model, device, test_loader, writer, epoch)
trust_ratios = torch.tensor([optimizer.state[p]['trust_ratio'] for p in model.parameters()])  # realcode: what log_lamb_rs logs, kept to compare
