# realcode: zhchuu/normalizing-flows-tutorial-pytorch @ 038cccbb96131753df15d86c831d7ae735523ee5
# realcode: https://github.com/zhchuu/normalizing-flows-tutorial-pytorch/blob/038cccbb96131753df15d86c831d7ae735523ee5/nflows/base.py
# realcode: https://github.com/zhchuu/normalizing-flows-tutorial-pytorch/blob/038cccbb96131753df15d86c831d7ae735523ee5/nflows/realnvp.py
# realcode: https://github.com/zhchuu/normalizing-flows-tutorial-pytorch/blob/038cccbb96131753df15d86c831d7ae735523ee5/nflows/bn.py
# realcode: https://github.com/zhchuu/normalizing-flows-tutorial-pytorch/blob/038cccbb96131753df15d86c831d7ae735523ee5/02_nf_training_framework.ipynb
# realcode: kept as written except for these adaptations:
#   - nflows/base.py, nflows/realnvp.py and nflows/bn.py as written, each after a '# %%' line, then the notebook's code cells in order; `from nflows.base import Flow` and cell 14's imports of the package -> `pass  # realcode-inlined: ... (pasted above)`
#   - cell 3: `import matplotlib.pyplot as plt` dropped (plotting); cells 18, 20, 25 and 27-28: the plot_flows definition and calls and the scatter plots dropped
#   - cell 6: sklearn's make_moons(n_samples=1000, noise=.05) and StandardScaler -> a synthetic standardised two-moons-shaped set of 256 points (input, made the same way: two noisy half circles, each column scaled to mean 0 and std 1); the `samples = torch.tensor(X).type(torch.float)` line kept
#   - cell 22: 20001 iterations -> 41 (printing every 1000 -> every 10, the printed losses kept in a list); cells 20, 25 and 27: the flows' last outputs (zs[-1], xs[-1]) bound to names to be compared; cell 28 (a second sample, scattered) dropped
#   - load markers after nf is built (its Linear layers' initial weights) and after each source_density.sample (PyTorch's draws are copied in)
# realcode-input: t = rand(128, dtype="float64") * np.pi
# realcode-input: noise = normal(0, 0.05, 256, 2, dtype="float64")
# realcode-input: moons_raw = np.concatenate([np.stack([np.cos(t), np.sin(t)], 1), np.stack([1 - np.cos(t), 0.5 - np.sin(t)], 1)]) + noise
# realcode-input: X = (moons_raw - np.mean(moons_raw, 0)) / np.std(moons_raw, 0)
# realcode-output: zs_before losses zs_after xs sources nf.*
# realcode-shape-only: nf.flows.0.s_net.10.bias nf.flows.2.s_net.10.bias nf.flows.4.s_net.10.bias nf.flows.6.s_net.10.bias nf.flows.7.beta (their true gradients are 0, so Adam steps them on rounding noise: each coupling's last s_net bias scales its output dimension by exp(-b), which the BatchNormFlow right after it divides out while the two log-determinants' terms in b cancel; the last BatchNormFlow's beta has gradient mean(z) = beta, 0 at the start. Float64 runs of both libraries agree on every other output to 1e-11 of its magnitude (with .type(torch.float) dropped), and on these only as far as their noise does)
# realcode-rtol: 1e-3 (float32: the outputs these noisy parameters feed (the s_nets' hidden layers, the last gamma's gradient) move by up to 6e-4 of their magnitude between two float32 runs)
# realcode-atol: 2e-6 (gradients of ~1e-4 fed by the noisy parameters above)
# %% realcode: nflows/base.py
from torch import nn


class Flow(nn.Module):
    '''
    Basic flow structure
    '''
    def __init__(self):
        super(Flow, self).__init__()

    def forward(self, z):
        '''
        Args:
        z (tensor): samples of the source distribution with size (batch_size, )

        Returns:
        (tensors): transformed samples of the target distribution with size (batch_size, )
        '''
        pass

    def inverse(self, x):
        '''
        Args:
        x (tensor): samples of the target distribution with size (batch_size, )

        Returns:
        (tensors): transformed samples of the source distribution with size (batch_size, )
        '''
        pass


class FlowSequential(nn.Sequential):
    def forward(self, z):
        xs = [z]
        sum_log_abs_det_jacobians = 0
        for module in self:
            z, log_abs_det_jacobian = module(z)
            xs.append(z)
            sum_log_abs_det_jacobians = sum_log_abs_det_jacobians + log_abs_det_jacobian
        return xs, sum_log_abs_det_jacobians

    def inverse(self, x):
        zs = [x]
        sum_log_abs_det_jacobians = 0
        for module in reversed(self):
            x, log_abs_det_jacobian = module.inverse(x)
            zs.append(x)
            sum_log_abs_det_jacobians = sum_log_abs_det_jacobians + log_abs_det_jacobian

        return zs, sum_log_abs_det_jacobians

# %% realcode: nflows/realnvp.py
'''
Reference:
https://github.com/kamenbliznashki/normalizing_flows/blob/master/maf.py
'''
import copy
import torch
from torch import nn
pass  # realcode-inlined: from nflows.base import Flow (pasted above)


class LinearMaskedCoupling(Flow):
    """ Modified RealNVP Coupling Layers per the MAF paper """
    def __init__(self, input_size, hidden_size, n_hidden, mask, cond_label_size=None):
        super().__init__()

        self.register_buffer('mask', mask)

        # scale function
        s_net = [nn.Linear(input_size + (cond_label_size if cond_label_size is not None else 0), hidden_size)]
        for _ in range(n_hidden):
            s_net += [nn.Tanh(), nn.Linear(hidden_size, hidden_size)]
        s_net += [nn.Tanh(), nn.Linear(hidden_size, input_size)]
        self.s_net = nn.Sequential(*s_net)

        # translation function
        self.t_net = copy.deepcopy(self.s_net)
        # replace Tanh with ReLU's per MAF paper
        for i in range(len(self.t_net)):
            if not isinstance(self.t_net[i], nn.Linear): self.t_net[i] = nn.ReLU()

    def forward(self, x, y=None):
        # apply mask
        mx = x * self.mask

        # run through model
        s = self.s_net(mx if y is None else torch.cat([y, mx], dim=1))
        t = self.t_net(mx if y is None else torch.cat([y, mx], dim=1))
        u = mx + (1 - self.mask) * (x - t) * torch.exp(-s)  # cf RealNVP eq 8 where u corresponds to x (here we're modeling u)

        log_abs_det_jacobian = torch.sum(- (1 - self.mask) * s, dim=1)  # log det du/dx; cf RealNVP 8 and 6; note, sum over input_size done at model log_prob

        return u, log_abs_det_jacobian

    def inverse(self, u, y=None):
        # apply mask
        mu = u * self.mask

        # run through model
        s = self.s_net(mu if y is None else torch.cat([y, mu], dim=1))
        t = self.t_net(mu if y is None else torch.cat([y, mu], dim=1))
        x = mu + (1 - self.mask) * (u * s.exp() + t)  # cf RealNVP eq 7

        log_abs_det_jacobian = torch.sum((1 - self.mask) * s, dim=1)  # log det dx/du

        return x, log_abs_det_jacobian

# %% realcode: nflows/bn.py
'''
Reference:
https://github.com/kamenbliznashki/normalizing_flows/blob/master/maf.py
https://github.com/acids-ircam/pytorch_flows/blob/master/flows_04.ipynb
'''
import torch
from torch import nn
pass  # realcode-inlined: from nflows.base import Flow (pasted above)


class BatchNormFlow(Flow):

    def __init__(self, dim, momentum=0.95, eps=1e-5):
        super().__init__()
        # Running batch statistics
        self.r_mean = torch.zeros(dim)
        self.r_var = torch.ones(dim)
        # Momentum
        self.momentum = momentum
        self.eps = eps
        # Trainable scale and shift
        self.gamma = nn.Parameter(torch.ones(dim))
        self.beta = nn.Parameter(torch.zeros(dim))

    def forward(self, z):
        if self.training:
            # Current batch stats
            self.b_mean = z.mean(0)
            self.b_var = (z - self.b_mean).pow(2).mean(0) + self.eps
            # Running mean and var
            self.r_mean = self.momentum * self.r_mean + ((1 - self.momentum) * self.b_mean)
            self.r_var = self.momentum * self.r_var + ((1 - self.momentum) * self.b_var)
            mean = self.b_mean
            var = self.b_var
        else:
            mean = self.r_mean
            var = self.r_var
        x_hat = (z - mean) / torch.sqrt(var + self.eps)
        x = self.gamma * x_hat + self.beta

        log_abs_det_jacobian = torch.log(self.gamma) - 0.5 * torch.log(var + self.eps)
        log_abs_det_jacobian = log_abs_det_jacobian.sum().unsqueeze(0).repeat(z.size(0), 1).squeeze()

        return x, log_abs_det_jacobian

    def inverse(self, x):
        if self.training:
            mean = self.b_mean
            var = self.b_var
        else:
            mean = self.r_mean
            var = self.r_var
        z_hat = (x - self.beta) / self.gamma
        z = z_hat * torch.sqrt(var + self.eps) + mean

        log_abs_det_jacobian = 0.5 * torch.log(var + self.eps) - torch.log(self.gamma)
        log_abs_det_jacobian = log_abs_det_jacobian.sum().unsqueeze(0).repeat(x.size(0), 1).squeeze()

        return z, log_abs_det_jacobian

# %% (notebook cell 3)
import math
import torch
from torch import nn
import numpy as np
from torch import optim
from torch import distributions as distrib
pass  # realcode-dropped: import matplotlib.pyplot as plt
# %% (notebook cell 6)
pass  # realcode-dropped: from sklearn import cluster, datasets, mixture
pass  # realcode-dropped: from sklearn.preprocessing import StandardScaler

batch_size = 100
n_samples = 1000
pass  # realcode-dropped: noisy_moons = datasets.make_moons(n_samples=n_samples, noise=.05)
pass  # realcode-dropped: X, y = noisy_moons
pass  # realcode-dropped: X = StandardScaler().fit_transform(X)  (X: the synthetic standardised moons, an input)
samples = torch.tensor(X).type(torch.float)
pass  # realcode-dropped: plt.scatter(samples[:, 0], samples[:, 1], s=10, color='red');
# %% (notebook cell 14)
# Here some modern flows were implemented 
pass  # realcode-inlined: from nflows.base import FlowSequential (pasted above)
pass  # realcode-inlined: from nflows.realnvp import LinearMaskedCoupling (pasted above)
pass  # realcode-inlined: from nflows.bn import BatchNormFlow (pasted above)
# %% (notebook cell 15)
class RealNVP(nn.Module):
    '''
    Construct flows from target density (train data) to source density (known density i.e., Gaussian distribution.)
    x indicates train data while z indicates source samples
    target density -> source density
              q(x) -> p(z)
    '''
    def __init__(self, n_blocks, input_size, hidden_size, n_hidden, source_density):
        super(RealNVP, self).__init__()
        
        bijectors = []
        mask = torch.arange(input_size).float() % 2
        for i in range(n_blocks):
            bijectors += [LinearMaskedCoupling(input_size, hidden_size, n_hidden, mask)]
            mask = 1 - mask
            bijectors += [BatchNormFlow(input_size)]

        self.bijectors = bijectors
        self.source_density = source_density
        self.flows = FlowSequential(*bijectors)

    def forward(self, x):
        '''
        T(x) = z
        '''
        zs, sum_log_abs_det_jacobians = self.flows(x)
        return zs, sum_log_abs_det_jacobians

    def inverse(self, z):
        '''
        T^{-1}(z) = x
        '''
        xs, sum_log_abs_det_jacobians = self.flows.inverse(z)
        return xs, sum_log_abs_det_jacobians

    def log_prob(self, x):
        '''
        \log q(x) = \log p(z) + log_abs_det_jacobian
        '''
        zs, sum_log_abs_det_jacobians = self.forward(x)
        return self.source_density.log_prob(zs[-1]) + sum_log_abs_det_jacobians
# %% (notebook cell 16)
source_density = distrib.MultivariateNormal(torch.zeros(2), torch.eye(2))
nf = RealNVP(n_blocks=4, input_size=2, hidden_size=4, n_hidden=4, source_density=source_density)
# %% realcode-load: nf
pass  # realcode-dropped: cell 18, plot_flows (plotting)
# %% (notebook cell 20)
# train distribution -> known distribution
# q(x) -> p(z)
zs, _ = nf(samples)
pass  # realcode-dropped: plot_flows(zs)
zs_before = zs[-1]  # realcode: the flow's output, compared
# %% (notebook cell 22)
optimizer = optim.Adam(nf.parameters(), lr=1e-3)
scheduler = optim.lr_scheduler.ExponentialLR(optimizer, 0.99994)
# scheduler = optim.lr_scheduler.MultiStepLR(optimizer, milestones=[7000], gamma=0.1)

losses = []  # realcode: the printed losses, compared
# Train
for it in range(41):
    # samples of built toy distribution as train data
    loss = - nf.log_prob(samples).mean()

    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()

    if it % 10 == 0:
        print(it, loss.item())
        losses.append(loss.item())
# %% (notebook cell 25)
# train distribution -> known distribution
# q(x) -> p(z)
zs, _, = nf(samples)
pass  # realcode-dropped: plot_flows(zs)
zs_after = zs[-1]  # realcode: compared
# %% (notebook cell 27)
sources = source_density.sample((512, ))
# %% realcode-load: sources
xs, _, = nf.inverse(sources)
pass  # realcode-dropped: plot_flows(xs)
xs = xs[-1]  # realcode: the inverse flow's output, compared
