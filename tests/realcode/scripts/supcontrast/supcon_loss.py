# realcode: HobbitLong/SupContrast @ 66a8fe53880d6a1084b2e4e0db0a019024d6d41a
# realcode: https://github.com/HobbitLong/SupContrast/blob/66a8fe53880d6a1084b2e4e0db0a019024d6d41a/losses.py
# realcode: https://github.com/HobbitLong/SupContrast/blob/66a8fe53880d6a1084b2e4e0db0a019024d6d41a/main_supcon.py
# realcode: kept as written except for these adaptations:
#   - losses.py as written, then a driver cell built from main_supcon.py's train(): two views of a synthetic batch of 8 go through an encoder, are split and stacked into [bsz, n_views, dim] as train() does, and SupConLoss(temperature=0.07) is minimised with SGD for 3 steps ('SupCon' with labels), then the 'SimCLR' loss (no labels), contrast_mode='one' and an explicit mask; the encoder is a small stand-in for SupConResNet (a linear trunk and its MLP head with F.normalize, as SupConResNet ends) because resnet50 on 32x32 images is far beyond a run of seconds
# realcode-input: view1 = randn(8, 12)
# realcode-input: view2 = randn(8, 12)
# realcode-input: labels = randint(0, 3, 8)
# realcode-output: encoder.* head.* losses loss_simclr loss_one loss_mask
# %% realcode: losses.py
"""
Author: Yonglong Tian (yonglong@mit.edu)
Date: May 07, 2020
"""
from __future__ import print_function

import torch
import torch.nn as nn


class SupConLoss(nn.Module):
    """Supervised Contrastive Learning: https://arxiv.org/pdf/2004.11362.pdf.
    It also supports the unsupervised contrastive loss in SimCLR"""
    def __init__(self, temperature=0.07, contrast_mode='all',
                 base_temperature=0.07):
        super(SupConLoss, self).__init__()
        self.temperature = temperature
        self.contrast_mode = contrast_mode
        self.base_temperature = base_temperature

    def forward(self, features, labels=None, mask=None):
        """Compute loss for model. If both `labels` and `mask` are None,
        it degenerates to SimCLR unsupervised loss:
        https://arxiv.org/pdf/2002.05709.pdf

        Args:
            features: hidden vector of shape [bsz, n_views, ...].
            labels: ground truth of shape [bsz].
            mask: contrastive mask of shape [bsz, bsz], mask_{i,j}=1 if sample j
                has the same class as sample i. Can be asymmetric.
        Returns:
            A loss scalar.
        """
        device = (torch.device('cuda')
                  if features.is_cuda
                  else torch.device('cpu'))

        if len(features.shape) < 3:
            raise ValueError('`features` needs to be [bsz, n_views, ...],'
                             'at least 3 dimensions are required')
        if len(features.shape) > 3:
            features = features.view(features.shape[0], features.shape[1], -1)

        batch_size = features.shape[0]
        if labels is not None and mask is not None:
            raise ValueError('Cannot define both `labels` and `mask`')
        elif labels is None and mask is None:
            mask = torch.eye(batch_size, dtype=torch.float32).to(device)
        elif labels is not None:
            labels = labels.contiguous().view(-1, 1)
            if labels.shape[0] != batch_size:
                raise ValueError('Num of labels does not match num of features')
            mask = torch.eq(labels, labels.T).float().to(device)
        else:
            mask = mask.float().to(device)

        contrast_count = features.shape[1]
        contrast_feature = torch.cat(torch.unbind(features, dim=1), dim=0)
        if self.contrast_mode == 'one':
            anchor_feature = features[:, 0]
            anchor_count = 1
        elif self.contrast_mode == 'all':
            anchor_feature = contrast_feature
            anchor_count = contrast_count
        else:
            raise ValueError('Unknown mode: {}'.format(self.contrast_mode))

        # compute logits
        anchor_dot_contrast = torch.div(
            torch.matmul(anchor_feature, contrast_feature.T),
            self.temperature)
        # for numerical stability
        logits_max, _ = torch.max(anchor_dot_contrast, dim=1, keepdim=True)
        logits = anchor_dot_contrast - logits_max.detach()

        # tile mask
        mask = mask.repeat(anchor_count, contrast_count)
        # mask-out self-contrast cases
        logits_mask = torch.scatter(
            torch.ones_like(mask),
            1,
            torch.arange(batch_size * anchor_count).view(-1, 1).to(device),
            0
        )
        mask = mask * logits_mask

        # compute log_prob
        exp_logits = torch.exp(logits) * logits_mask
        log_prob = logits - torch.log(exp_logits.sum(1, keepdim=True))

        # compute mean of log-likelihood over positive
        # modified to handle edge cases when there is no positive pair
        # for an anchor point. 
        # Edge case e.g.:- 
        # features of shape: [4,1,...]
        # labels:            [0,1,1,2]
        # loss before mean:  [nan, ..., ..., nan] 
        mask_pos_pairs = mask.sum(1)
        mask_pos_pairs = torch.where(mask_pos_pairs < 1e-6, 1, mask_pos_pairs)
        mean_log_prob_pos = (mask * log_prob).sum(1) / mask_pos_pairs

        # loss
        loss = - (self.temperature / self.base_temperature) * mean_log_prob_pos
        loss = loss.view(anchor_count, batch_size).mean()

        return loss

# %% realcode: driver cell, main_supcon.py's train() on a synthetic batch
import torch.nn.functional as F
encoder = nn.Sequential(nn.Linear(12, 32), nn.ReLU(inplace=True))
head = nn.Sequential(nn.Linear(32, 32), nn.ReLU(inplace=True), nn.Linear(32, 16))
# %% realcode-load: encoder head
def model(x):
    return F.normalize(head(encoder(x)), dim=1)   # as SupConResNet.forward ends
criterion = SupConLoss(temperature=0.07)
optimizer = torch.optim.SGD(list(encoder.parameters()) + list(head.parameters()), lr=0.05, momentum=0.9, weight_decay=1e-4)
losses = []
for idx in range(3):
    images = torch.cat([view1, view2], dim=0)
    bsz = labels.shape[0]
    features = model(images)
    f1, f2 = torch.split(features, [bsz, bsz], dim=0)
    features = torch.cat([f1.unsqueeze(1), f2.unsqueeze(1)], dim=1)
    loss = criterion(features, labels)
    losses.append(loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
losses = torch.tensor(losses)
features = torch.stack([model(view1), model(view2)], dim=1)
loss_simclr = criterion(features).detach()
loss_one = SupConLoss(temperature=0.1, contrast_mode='one')(features, labels).detach()
loss_mask = criterion(features, mask=torch.eq(labels.view(-1, 1), labels.view(1, -1)).float()).detach()
