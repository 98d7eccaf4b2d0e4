# realcode: LynnHo/DCGAN-LSGAN-WGAN-GP-DRAGAN-Pytorch @ 9e757de6f02dc5f3b31e380428787bf2b3137906
# realcode: https://github.com/LynnHo/DCGAN-LSGAN-WGAN-GP-DRAGAN-Pytorch/blob/9e757de6f02dc5f3b31e380428787bf2b3137906/torchlib/layers/layers.py
# realcode: https://github.com/LynnHo/DCGAN-LSGAN-WGAN-GP-DRAGAN-Pytorch/blob/9e757de6f02dc5f3b31e380428787bf2b3137906/torchprob/gan/loss.py
# realcode: https://github.com/LynnHo/DCGAN-LSGAN-WGAN-GP-DRAGAN-Pytorch/blob/9e757de6f02dc5f3b31e380428787bf2b3137906/torchprob/gan/gradient_penalty.py
# realcode: https://github.com/LynnHo/DCGAN-LSGAN-WGAN-GP-DRAGAN-Pytorch/blob/9e757de6f02dc5f3b31e380428787bf2b3137906/module.py
# realcode: https://github.com/LynnHo/DCGAN-LSGAN-WGAN-GP-DRAGAN-Pytorch/blob/9e757de6f02dc5f3b31e380428787bf2b3137906/train.py
# realcode: kept as written except for these adaptations:
#   - torchlib/layers/layers.py, torchprob/gan/loss.py, torchprob/gan/gradient_penalty.py and module.py as written, each after a '# %%' line; module.py's `import torchlib` -> a namespace of the pasted layers (torchlib.Identity is what it reads)
#   - train.py: its imports of imlib, pylib, tensorboardX, data and the packages dropped (images, paths, summaries, the dataset loaders), `py.arg(...)` / `args = py.args()` -> the defaults as a class with --gradient_penalty_mode 1-gp (so the discriminator uses layer norm and the penalty is taken), batch 64 -> 4, z_dim 128 -> 16 and 25 epochs -> 2; the output folders, checkpoint loading and tensorboard writer dropped; fashion_mnist's loader -> one synthetic batch of 32 x 32 images (input); the model, loss, optimizer and train-step sections as written, then the main loop's body for 2 epochs of that batch without the writer and the sample saving
#   - a driver cell after the networks are built and a load marker (PyTorch's initial weights): each adversarial loss mode's d_loss_fn and g_loss_fn and each gradient penalty mode on the 'real' and 'fake' sample modes (no draws) with a given z (input), then the layers' DepthToSpace / SpaceToDepth round trip and ColorTransform
#   - train_D and train_G draw z with torch.randn (and 'line' sampling draws alpha): the training results are compared by shape
# realcode-input: x_real = rand(4, 1, 32, 32) * 2 - 1
# realcode-input: z0 = randn(4, 16, 1, 1)
# realcode-input: color_x = rand(2, 3, 4, 4)
# realcode-input: color_y = rand(2, 3, 4, 4)
# realcode-output: d_losses g_losses gps gp_grad roundtrip color_out G.* D.* d_loss_last g_loss_last x_sample
# realcode-shape-only: G D d_loss_last g_loss_last x_sample (train_D and train_G draw z with torch.randn, and 'line' sampling draws alpha)
# %% realcode: torchlib/layers/layers.py
import torch


# ==============================================================================
# =                                    layer                                   =
# ==============================================================================

class Identity(torch.nn.Module):

    def __init__(self, *args, **keyword_args):
        super().__init__()

    def forward(self, x):
        return x


class Reshape(torch.nn.Module):

    def __init__(self, *new_shape):
        super().__init__()
        self._new_shape = new_shape

    def forward(self, x):
        new_shape = (x.size(i) if self._new_shape[i] == 0 else self._new_shape[i] for i in range(len(self._new_shape)))
        return x.view(*new_shape)


class DepthToSpace(torch.nn.Module):

    def __init__(self, block_size):
        super().__init__()
        self.bs = block_size

    def forward(self, x):
        N, C, H, W = x.size()
        x = x.view(N, self.bs, self.bs, C // (self.bs ** 2), H, W)  # (N, bs, bs, C//bs^2, H, W)
        x = x.permute(0, 3, 4, 1, 5, 2).contiguous()  # (N, C//bs^2, H, bs, W, bs)
        x = x.view(N, C // (self.bs ** 2), H * self.bs, W * self.bs)  # (N, C//bs^2, H * bs, W * bs)
        return x


class SpaceToDepth(torch.nn.Module):

    def __init__(self, block_size):
        super().__init__()
        self.bs = block_size

    def forward(self, x):
        N, C, H, W = x.size()
        x = x.view(N, C, H // self.bs, self.bs, W // self.bs, self.bs)  # (N, C, H//bs, bs, W//bs, bs)
        x = x.permute(0, 3, 5, 1, 2, 4).contiguous()  # (N, bs, bs, C, H//bs, W//bs)
        x = x.view(N, C * (self.bs ** 2), H // self.bs, W // self.bs)  # (N, C*bs^2, H//bs, W//bs)
        return x


class ColorTransform(torch.nn.Module):

    def __init__(self):
        super().__init__()

    def forward(self, X, Y, eps=1e-5):
        N, C, H, W = X.size()

        X = X.view(N, C, -1)  # (N, C, H*W)
        Y = Y.view(N, C, -1)  # (N, C, H*W)
        O = torch.ones(N, 1, H * W, dtype=X.dtype, device=X.device)  # (N, 1, H*W)
        X_ = torch.cat((X, O), dim=1)  # (N, C+1, H*W)
        X__T = X_.permute(0, 2, 1)  # (N, H*W, C+1)

        I = torch.eye(C + 1, dtype=X.dtype, device=X.device).view(-1, C + 1, C + 1).repeat([N, 1, 1])  # (N, C+1, C+1)
        A = Y.matmul(X__T).matmul((X_.matmul(X__T) + eps * I).inverse())  # (N, C, C+1)

        return A.matmul(X_).view(N, C, H, W)  # (N, C, H, W)


# ==============================================================================
# =                                layer wrapper                               =
# ==============================================================================

def identity(x, *args, **keyword_args):
    return x
# %% realcode: torchprob/gan/loss.py
import torch


def get_gan_losses_fn():
    bce = torch.nn.BCEWithLogitsLoss()

    def d_loss_fn(r_logit, f_logit):
        r_loss = bce(r_logit, torch.ones_like(r_logit))
        f_loss = bce(f_logit, torch.zeros_like(f_logit))
        return r_loss, f_loss

    def g_loss_fn(f_logit):
        f_loss = bce(f_logit, torch.ones_like(f_logit))
        return f_loss

    return d_loss_fn, g_loss_fn


def get_hinge_v1_losses_fn():
    def d_loss_fn(r_logit, f_logit):
        r_loss = torch.max(1 - r_logit, torch.zeros_like(r_logit)).mean()
        f_loss = torch.max(1 + f_logit, torch.zeros_like(f_logit)).mean()
        return r_loss, f_loss

    def g_loss_fn(f_logit):
        f_loss = torch.max(1 - f_logit, torch.zeros_like(f_logit)).mean()
        return f_loss

    return d_loss_fn, g_loss_fn


def get_hinge_v2_losses_fn():
    def d_loss_fn(r_logit, f_logit):
        r_loss = torch.max(1 - r_logit, torch.zeros_like(r_logit)).mean()
        f_loss = torch.max(1 + f_logit, torch.zeros_like(f_logit)).mean()
        return r_loss, f_loss

    def g_loss_fn(f_logit):
        f_loss = -f_logit.mean()
        return f_loss

    return d_loss_fn, g_loss_fn


def get_lsgan_losses_fn():
    mse = torch.nn.MSELoss()

    def d_loss_fn(r_logit, f_logit):
        r_loss = mse(r_logit, torch.ones_like(r_logit))
        f_loss = mse(f_logit, torch.zeros_like(f_logit))
        return r_loss, f_loss

    def g_loss_fn(f_logit):
        f_loss = mse(f_logit, torch.ones_like(f_logit))
        return f_loss

    return d_loss_fn, g_loss_fn


def get_wgan_losses_fn():
    def d_loss_fn(r_logit, f_logit):
        r_loss = -r_logit.mean()
        f_loss = f_logit.mean()
        return r_loss, f_loss

    def g_loss_fn(f_logit):
        f_loss = -f_logit.mean()
        return f_loss

    return d_loss_fn, g_loss_fn


def get_adversarial_losses_fn(mode):
    if mode == 'gan':
        return get_gan_losses_fn()
    elif mode == 'hinge_v1':
        return get_hinge_v1_losses_fn()
    elif mode == 'hinge_v2':
        return get_hinge_v2_losses_fn()
    elif mode == 'lsgan':
        return get_lsgan_losses_fn()
    elif mode == 'wgan':
        return get_wgan_losses_fn()
# %% realcode: torchprob/gan/gradient_penalty.py
import torch


# ======================================
# =           sample method            =
# ======================================

def _sample_line(real, fake):
    shape = [real.size(0)] + [1] * (real.dim() - 1)
    alpha = torch.rand(shape, device=real.device)
    sample = real + alpha * (fake - real)
    return sample


def _sample_DRAGAN(real, fake):  # fake is useless
    beta = torch.rand_like(real)
    fake = real + 0.5 * real.std() * beta
    sample = _sample_line(real, fake)
    return sample


# ======================================
# =      gradient penalty method       =
# ======================================

def _norm(x):
    norm = x.view(x.size(0), -1).norm(p=2, dim=1)
    return norm


def _one_mean_gp(grad):
    norm = _norm(grad)
    gp = ((norm - 1)**2).mean()
    return gp


def _zero_mean_gp(grad):
    norm = _norm(grad)
    gp = (norm**2).mean()
    return gp


def _lipschitz_penalty(grad):
    norm = _norm(grad)
    gp = (torch.max(torch.zeros_like(norm), norm - 1)**2).mean()
    return gp


def gradient_penalty(f, real, fake, gp_mode, sample_mode):
    sample_fns = {
        'line': _sample_line,
        'real': lambda real, fake: real,
        'fake': lambda real, fake: fake,
        'dragan': _sample_DRAGAN,
    }

    gp_fns = {
        '1-gp': _one_mean_gp,
        '0-gp': _zero_mean_gp,
        'lp': _lipschitz_penalty,
    }

    if gp_mode == 'none':
        gp = torch.tensor(0, dtype=real.dtype, device=real.device)
    else:
        x = sample_fns[sample_mode](real, fake).detach()
        x.requires_grad = True
        pred = f(x)
        grad = torch.autograd.grad(pred, x, grad_outputs=torch.ones_like(pred), create_graph=True)[0]
        gp = gp_fns[gp_mode](grad)

    return gp
# %% realcode: module.py
import functools

import types; torchlib = types.SimpleNamespace(Identity=Identity)  # realcode-inlined: import torchlib (its layers, pasted above)

from torch import nn


def _get_norm_layer_2d(norm):
    if norm == 'none':
        return torchlib.Identity
    elif norm == 'batch_norm':
        return nn.BatchNorm2d
    elif norm == 'instance_norm':
        return functools.partial(nn.InstanceNorm2d, affine=True)
    elif norm == 'layer_norm':
        return lambda num_features: nn.GroupNorm(1, num_features)
    else:
        raise NotImplementedError


class ConvGenerator(nn.Module):

    def __init__(self,
                 input_dim=128,
                 output_channels=3,
                 dim=64,
                 n_upsamplings=4,
                 norm='batch_norm'):
        super().__init__()

        Norm = _get_norm_layer_2d(norm)

        def dconv_norm_relu(in_dim, out_dim, kernel_size=4, stride=2, padding=1):
            return nn.Sequential(
                nn.ConvTranspose2d(in_dim, out_dim, kernel_size, stride=stride, padding=padding, bias=False or Norm == torchlib.Identity),
                Norm(out_dim),
                nn.ReLU()
            )

        layers = []

        # 1: 1x1 -> 4x4
        d = min(dim * 2 ** (n_upsamplings - 1), dim * 8)
        layers.append(dconv_norm_relu(input_dim, d, kernel_size=4, stride=1, padding=0))

        # 2: upsamplings, 4x4 -> 8x8 -> 16x16 -> ...
        for i in range(n_upsamplings - 1):
            d_last = d
            d = min(dim * 2 ** (n_upsamplings - 2 - i), dim * 8)
            layers.append(dconv_norm_relu(d_last, d, kernel_size=4, stride=2, padding=1))

        layers.append(nn.ConvTranspose2d(d, output_channels, kernel_size=4, stride=2, padding=1))
        layers.append(nn.Tanh())

        self.net = nn.Sequential(*layers)

    def forward(self, z):
        x = self.net(z)
        return x


class ConvDiscriminator(nn.Module):

    def __init__(self,
                 input_channels=3,
                 dim=64,
                 n_downsamplings=4,
                 norm='batch_norm'):
        super().__init__()

        Norm = _get_norm_layer_2d(norm)

        def conv_norm_lrelu(in_dim, out_dim, kernel_size=4, stride=2, padding=1):
            return nn.Sequential(
                nn.Conv2d(in_dim, out_dim, kernel_size, stride=stride, padding=padding, bias=False or Norm == torchlib.Identity),
                Norm(out_dim),
                nn.LeakyReLU(0.2)
            )

        layers = []

        # 1: downsamplings, ... -> 16x16 -> 8x8 -> 4x4
        d = dim
        layers.append(nn.Conv2d(input_channels, d, kernel_size=4, stride=2, padding=1))
        layers.append(nn.LeakyReLU(0.2))

        for i in range(n_downsamplings - 1):
            d_last = d
            d = min(dim * 2 ** (i + 1), dim * 8)
            layers.append(conv_norm_lrelu(d_last, d, kernel_size=4, stride=2, padding=1))

        # 2: logit
        layers.append(nn.Conv2d(d, 1, kernel_size=4, stride=1, padding=0))

        self.net = nn.Sequential(*layers)

    def forward(self, x):
        y = self.net(x)
        return y
# %% realcode: train.py
import functools

pass  # realcode-dropped: import imlib as im
import numpy as np
pass  # realcode-dropped: import pylib as py
pass  # realcode-dropped: import tensorboardX
import torch
import types; torchlib = types.SimpleNamespace(Identity=Identity)  # realcode-inlined: import torchlib (pasted above)
gan = types.SimpleNamespace(get_adversarial_losses_fn=get_adversarial_losses_fn, gradient_penalty=gradient_penalty)  # realcode-inlined: import torchprob as gan (pasted above)
import tqdm

pass  # realcode-dropped: import data
module = types.SimpleNamespace(ConvGenerator=ConvGenerator, ConvDiscriminator=ConvDiscriminator)  # realcode-inlined: import module (pasted above)


# ==============================================================================
# =                                   param                                    =
# ==============================================================================

class args:  # realcode: py.arg's defaults (batch 64 -> 4, 25 epochs -> 2, z_dim 128 -> 16, gradient_penalty_mode 1-gp)
    dataset = 'fashion_mnist'
    batch_size = 4
    epochs = 2
    lr = 0.0002
    beta_1 = 0.5
    n_d = 1
    z_dim = 16
    adversarial_loss_mode = 'gan'
    gradient_penalty_mode = '1-gp'
    gradient_penalty_sample_mode = 'line'
    gradient_penalty_weight = 10.0
    experiment_name = 'none'
    gradient_penalty_d_norm = 'layer_norm'

# others
use_gpu = torch.cuda.is_available()
device = torch.device("cuda" if use_gpu else "cpu")


# ==============================================================================
# =                                    data                                    =
# ==============================================================================

# setup dataset
if args.dataset in ['cifar10', 'fashion_mnist', 'mnist']:  # 32x32
    data_loader, shape = [x_real], (32, 32, 1)  # realcode: one synthetic batch as data.make_32x32_dataset's
    n_G_upsamplings = n_D_downsamplings = 3


# ==============================================================================
# =                                   model                                    =
# ==============================================================================

# setup the normalization function for discriminator
if args.gradient_penalty_mode == 'none':
    d_norm = 'batch_norm'
else:  # cannot use batch normalization with gradient penalty
    d_norm = args.gradient_penalty_d_norm

# networks
G = module.ConvGenerator(args.z_dim, shape[-1], n_upsamplings=n_G_upsamplings).to(device)
D = module.ConvDiscriminator(shape[-1], n_downsamplings=n_D_downsamplings, norm=d_norm).to(device)
print(G)
print(D)
# %% realcode-load: G D
# %% realcode: driver cell, the losses and penalties on given inputs
d_losses, g_losses, gps = [], [], []
x_real, z0 = x_real.to(device), z0.to(device)
with torch.no_grad():
    r_logit, f_logit = D(x_real), D(G(z0))
for mode in ['gan', 'hinge_v1', 'hinge_v2', 'lsgan', 'wgan']:
    d_fn, g_fn = gan.get_adversarial_losses_fn(mode)
    d_losses.extend(d_fn(r_logit, f_logit))
    g_losses.append(g_fn(f_logit))
with torch.no_grad():
    x_fake0 = G(z0)
for gp_mode in ['none', '1-gp', '0-gp', 'lp']:
    for sample_mode in ['real', 'fake']:
        gps.append(gan.gradient_penalty(functools.partial(D), x_real, x_fake0, gp_mode=gp_mode, sample_mode=sample_mode))
gp = gps[2] + gps[5]
D.zero_grad()
gp.backward()
gp_grad = D.net[0].weight.grad.clone()
D.zero_grad()
d_losses, g_losses, gps = torch.stack(d_losses), torch.stack(g_losses), torch.stack(gps)
roundtrip = SpaceToDepth(2)(DepthToSpace(2)(torch.arange(32.).view(1, 8, 2, 2).to(device)))
color_out = ColorTransform()(color_x.to(device), color_y.to(device))
# %% realcode: train.py (continued)
# adversarial_loss_functions
d_loss_fn, g_loss_fn = gan.get_adversarial_losses_fn(args.adversarial_loss_mode)

# optimizer
G_optimizer = torch.optim.Adam(G.parameters(), lr=args.lr, betas=(args.beta_1, 0.999))
D_optimizer = torch.optim.Adam(D.parameters(), lr=args.lr, betas=(args.beta_1, 0.999))


# ==============================================================================
# =                                 train step                                 =
# ==============================================================================

def train_G():
    G.train()
    D.train()

    z = torch.randn(args.batch_size, args.z_dim, 1, 1).to(device)
    x_fake = G(z)

    x_fake_d_logit = D(x_fake)
    G_loss = g_loss_fn(x_fake_d_logit)

    G.zero_grad()
    G_loss.backward()
    G_optimizer.step()

    return {'g_loss': G_loss}


def train_D(x_real):
    G.train()
    D.train()

    z = torch.randn(args.batch_size, args.z_dim, 1, 1).to(device)
    x_fake = G(z).detach()

    x_real_d_logit = D(x_real)
    x_fake_d_logit = D(x_fake)

    x_real_d_loss, x_fake_d_loss = d_loss_fn(x_real_d_logit, x_fake_d_logit)
    gp = gan.gradient_penalty(functools.partial(D), x_real, x_fake, gp_mode=args.gradient_penalty_mode, sample_mode=args.gradient_penalty_sample_mode)

    D_loss = (x_real_d_loss + x_fake_d_loss) + gp * args.gradient_penalty_weight

    D.zero_grad()
    D_loss.backward()
    D_optimizer.step()

    return {'d_loss': x_real_d_loss + x_fake_d_loss, 'gp': gp}


@torch.no_grad()
def sample(z):
    G.eval()
    return G(z)


# ==============================================================================
# =                                    run                                     =
# ==============================================================================

ep, it_d, it_g = 0, 0, 0

# main loop
z = torch.randn(100, args.z_dim, 1, 1).to(device)  # a fixed noise for sampling

for ep_ in tqdm.trange(args.epochs, desc='Epoch Loop'):
    if ep_ < ep:
        continue
    ep += 1

    # train for an epoch
    for x_real in tqdm.tqdm(data_loader, desc='Inner Epoch Loop'):
        x_real = x_real.to(device)

        D_loss_dict = train_D(x_real)
        it_d += 1

        if it_d % args.n_d == 0:
            G_loss_dict = train_G()
            it_g += 1
d_loss_last, g_loss_last = D_loss_dict['d_loss'], G_loss_dict['g_loss']
x_sample = sample(z[:4])
