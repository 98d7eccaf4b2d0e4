# realcode: AdeelH/pytorch-multi-class-focal-loss @ 2477bf68ac61d2d2e5e044c63f70b156073c5ffd
# realcode: https://github.com/AdeelH/pytorch-multi-class-focal-loss/blob/2477bf68ac61d2d2e5e044c63f70b156073c5ffd/focal_loss.py
# realcode: kept as written except for these adaptations:
#   - focal_loss.py as written (the library file), then a driver cell built from the README's usage: focal_loss() with per-class alpha and gamma=2 on a segmentation-shaped batch (N, C, d1, d2) with ignored labels, 'mean', 'sum' and 'none' reductions, the gradients of a small 1x1-conv classifier trained for 3 SGD steps, and FocalLoss's repr
# realcode-input: images = randn(2, 3, 5, 4)
# realcode-input: labels = randint(-1, 4, 2, 5, 4)
# realcode-atol: 1e-6 (gamma0_vs_ce is FocalLoss with gamma=0 less F.cross_entropy: zero up to float32 rounding)
# realcode-output: net.* loss_mean loss_sum loss_none losses gamma0_vs_ce
# %% realcode: focal_loss.py
from typing import Optional, Sequence

import torch
from torch import Tensor
from torch import nn
from torch.nn import functional as F


class FocalLoss(nn.Module):
    """ Focal Loss, as described in https://arxiv.org/abs/1708.02002.

    It is essentially an enhancement to cross entropy loss and is
    useful for classification tasks when there is a large class imbalance.
    x is expected to contain raw, unnormalized scores for each class.
    y is expected to contain class labels.

    Shape:
        - x: (batch_size, C) or (batch_size, C, d1, d2, ..., dK), K > 0.
        - y: (batch_size,) or (batch_size, d1, d2, ..., dK), K > 0.
    """

    def __init__(self,
                 alpha: Optional[Tensor] = None,
                 gamma: float = 0.,
                 reduction: str = 'mean',
                 ignore_index: int = -100):
        """Constructor.

        Args:
            alpha (Tensor, optional): Weights for each class. Defaults to None.
            gamma (float, optional): A constant, as described in the paper.
                Defaults to 0.
            reduction (str, optional): 'mean', 'sum' or 'none'.
                Defaults to 'mean'.
            ignore_index (int, optional): class label to ignore.
                Defaults to -100.
        """
        if reduction not in ('mean', 'sum', 'none'):
            raise ValueError(
                'Reduction must be one of: "mean", "sum", "none".')

        super().__init__()
        self.alpha = alpha
        self.gamma = gamma
        self.ignore_index = ignore_index
        self.reduction = reduction

        self.nll_loss = nn.NLLLoss(
            weight=alpha, reduction='none', ignore_index=ignore_index)

    def __repr__(self):
        arg_keys = ['alpha', 'gamma', 'ignore_index', 'reduction']
        arg_vals = [self.__dict__[k] for k in arg_keys]
        arg_strs = [f'{k}={v!r}' for k, v in zip(arg_keys, arg_vals)]
        arg_str = ', '.join(arg_strs)
        return f'{type(self).__name__}({arg_str})'

    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        if x.ndim > 2:
            # (N, C, d1, d2, ..., dK) --> (N * d1 * ... * dK, C)
            c = x.shape[1]
            x = x.permute(0, *range(2, x.ndim), 1).reshape(-1, c)
            # (N, d1, d2, ..., dK) --> (N * d1 * ... * dK,)
            y = y.view(-1)

        unignored_mask = y != self.ignore_index
        y = y[unignored_mask]
        if len(y) == 0:
            return torch.tensor(0.)
        x = x[unignored_mask]

        # compute weighted cross entropy term: -alpha * log(pt)
        # (alpha is already part of self.nll_loss)
        log_p = F.log_softmax(x, dim=-1)
        ce = self.nll_loss(log_p, y)

        # get true class column from each row
        all_rows = torch.arange(len(x))
        log_pt = log_p[all_rows, y]

        # compute focal term: (1 - pt)^gamma
        pt = log_pt.exp()
        focal_term = (1 - pt)**self.gamma

        # the full loss: -alpha * ((1 - pt)^gamma) * log(pt)
        loss = focal_term * ce

        if self.reduction == 'mean':
            loss = loss.mean()
        elif self.reduction == 'sum':
            loss = loss.sum()

        return loss


def focal_loss(alpha: Optional[Sequence] = None,
               gamma: float = 0.,
               reduction: str = 'mean',
               ignore_index: int = -100,
               device='cpu',
               dtype=torch.float32) -> FocalLoss:
    """Factory function for FocalLoss.

    Args:
        alpha (Sequence, optional): Weights for each class. Will be converted
            to a Tensor if not None. Defaults to None.
        gamma (float, optional): A constant, as described in the paper.
            Defaults to 0.
        reduction (str, optional): 'mean', 'sum' or 'none'.
            Defaults to 'mean'.
        ignore_index (int, optional): class label to ignore.
            Defaults to -100.
        device (str, optional): Device to move alpha to. Defaults to 'cpu'.
        dtype (torch.dtype, optional): dtype to cast alpha to.
            Defaults to torch.float32.

    Returns:
        A FocalLoss object
    """
    if alpha is not None:
        if not isinstance(alpha, Tensor):
            alpha = torch.tensor(alpha)
        alpha = alpha.to(device=device, dtype=dtype)

    fl = FocalLoss(
        alpha=alpha,
        gamma=gamma,
        reduction=reduction,
        ignore_index=ignore_index)
    return fl

# %% realcode: driver cell, the README's usage on a synthetic segmentation batch
net = nn.Conv2d(3, 4, kernel_size=1)
# %% realcode-load: net
y = labels.clone()
y[y < 0] = -100   # the default ignore_index
criterion = focal_loss(alpha=[0.1, 0.2, 0.3, 0.4], gamma=2, reduction='mean', ignore_index=-100, device='cpu', dtype=torch.float32)
print(criterion)
optimizer = torch.optim.SGD(net.parameters(), lr=0.5)
losses = []
for step in range(3):
    optimizer.zero_grad()
    loss = criterion(net(images), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.detach())
losses = torch.stack(losses)
x = net(images)
loss_mean = criterion(x, y).detach()
loss_sum = focal_loss(alpha=[0.1, 0.2, 0.3, 0.4], gamma=2, reduction='sum')(x, y).detach()
loss_none = focal_loss(gamma=1.5, reduction='none')(x, y).detach()
gamma0_vs_ce = (focal_loss(gamma=0.)(x, y) - F.cross_entropy(x, y)).detach()
