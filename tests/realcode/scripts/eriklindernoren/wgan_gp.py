# realcode: eriklindernoren/PyTorch-GAN @ 36d3c77e5ff20ebe0aeefd322326a134a279b93e
# realcode: https://github.com/eriklindernoren/PyTorch-GAN/blob/36d3c77e5ff20ebe0aeefd322326a134a279b93e/implementations/wgan_gp/wgan_gp.py
# realcode: kept as written except for these adaptations:
#   - `import argparse / import os` -> `pass  # realcode-dropped: import argparse / pass  # realcode-dropped: import os`: dropped (plotting / file I/O / argparse / download)
#   - `import torchvision.transforms as transforms / from torchvision.utils import save_image` -> `pass  # realcode-dropped: import torchvision.transforms as transforms / pass  # realcode-dropped: from torchvision.utils import save_image`: dropped (plotting / file I/O / argparse / download)
#   - `from torchvision import datasets` -> `pass  # realcode-dropped: from torchvision import datasets`: dropped (plotting / file I/O / argparse / download)
#   - `os.makedirs("images", exist_ok=True)` -> `pass  # realcode-dropped: os.makedirs("images", exist_ok=True)`: drop file I/O
#   - `parser = argparse.ArgumentParser() / parser.add_argument("--n_epochs", type=int, default=200, help="number of epochs of training") / parser.add_argument("--batch_size", type=int, default=64, help="size of the batches") / parser.add_argument("--lr", type=float, default=0.0002, help="adam: learning rate") / parser.add_argument("--b1", type=float, default=0.5, help="adam: decay of first order momentu ...` -> `class opt:  # realcode: argparse's defaults; n_epochs 200 -> 2, batch_size 64 -> 16, latent_dim 100 -> 16, img_size 28 -> 8 / n_epochs = 2; batch_size = 16; lr = 0.0002; b1 = 0.5; b2 = 0.999; n_cpu = 8 / latent_dim = 16; img_size = 8; channels = 1; n_critic = 5; clip_value = 0.01; sample_interval = 400`: drop argparse: its defaults as a class, n_epochs 200 -> 2, batch_size 64 -> 16, latent_dim 100 -> 16, img_size 28 -> 8
#   - `os.makedirs("../../data/mnist", exist_ok=True) / dataloader = torch.utils.data.DataLoader( / datasets.MNIST( / "../../data/mnist", / train=True, / download=True, / transform=transforms.Compose( / [transforms.Resize(opt.img_size), transforms.ToTensor(), transforms.Normalize([0.5], [0.5])] / ), / ), / batch_size=opt.batch_size, / shuffle=True, / )` -> `dataloader = torch.utils.data.DataLoader( / list(zip(train_images, train_labels)), / batch_size=opt.batch_size, / shuffle=True, / ) /  / # %% realcode-load: generator discriminator`: MNIST replaced by synthetic images in [-1, 1] (as Normalize([0.5], [0.5]) leaves them) and labels passed as inputs, one batch (the loss does not depend on the order shuffle picks); cell marker: PyTorch's initial weights of generator discriminator are copied in
#   - `*block(opt.latent_dim, 128, normalize=False), / *block(128, 256), / *block(256, 512), / *block(512, 1024), / nn.Linear(1024, int(np.prod(img_shape))),` -> `*block(opt.latent_dim, 32, normalize=False), / *block(32, 64), / *block(64, 128), / *block(128, 256), / nn.Linear(256, int(np.prod(img_shape))),`: shrink the generator's widths 128/256/512/1024 -> 32/64/128/256
#   - `nn.Linear(int(np.prod(img_shape)), 512), / nn.LeakyReLU(0.2, inplace=True), / nn.Linear(512, 256), / nn.LeakyReLU(0.2, inplace=True), / nn.Linear(256, 1),` -> `nn.Linear(int(np.prod(img_shape)), 128), / nn.LeakyReLU(0.2, inplace=True), / nn.Linear(128, 64), / nn.LeakyReLU(0.2, inplace=True), / nn.Linear(64, 1),`: shrink the critic's widths 512/256 -> 128/64
#   - `save_image(fake_imgs.data[:25], "images/%d.png" % batches_done, nrow=5, normalize=True)` -> `pass  # realcode-dropped: save_image(fake_imgs.data[:25], "images/%...)`: drop writing image files
# realcode-input: train_images = rand(16, 1, 8, 8) * 2 - 1
# realcode-input: train_labels = randint(0, 10, 16)
# realcode-output: g_loss d_loss gradient_penalty fake_imgs generator.* discriminator.*
# realcode-shape-only: g_loss d_loss gradient_penalty fake_imgs generator discriminator (the rows DataLoader's shuffle puts in order (drawn from the session's generator, not PyTorch's) meet the np.random noise rows in another pairing, so the gradient penalty's interpolates (alpha * real + (1 - alpha) * fake, row by row), and everything trained from them, depend on the order)
pass  # realcode-dropped: import argparse
pass  # realcode-dropped: import os
import numpy as np
import math
import sys

pass  # realcode-dropped: import torchvision.transforms as transforms
pass  # realcode-dropped: from torchvision.utils import save_image

from torch.utils.data import DataLoader
pass  # realcode-dropped: from torchvision import datasets
from torch.autograd import Variable

import torch.nn as nn
import torch.nn.functional as F
import torch.autograd as autograd
import torch

pass  # realcode-dropped: os.makedirs("images", exist_ok=True)

class opt:  # realcode: argparse's defaults; n_epochs 200 -> 2, batch_size 64 -> 16, latent_dim 100 -> 16, img_size 28 -> 8
    n_epochs = 2; batch_size = 16; lr = 0.0002; b1 = 0.5; b2 = 0.999; n_cpu = 8
    latent_dim = 16; img_size = 8; channels = 1; n_critic = 5; clip_value = 0.01; sample_interval = 400
print(opt)

img_shape = (opt.channels, opt.img_size, opt.img_size)

cuda = True if torch.cuda.is_available() else False


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()

        def block(in_feat, out_feat, normalize=True):
            layers = [nn.Linear(in_feat, out_feat)]
            if normalize:
                layers.append(nn.BatchNorm1d(out_feat, 0.8))
            layers.append(nn.LeakyReLU(0.2, inplace=True))
            return layers

        self.model = nn.Sequential(
            *block(opt.latent_dim, 32, normalize=False),
            *block(32, 64),
            *block(64, 128),
            *block(128, 256),
            nn.Linear(256, int(np.prod(img_shape))),
            nn.Tanh()
        )

    def forward(self, z):
        img = self.model(z)
        img = img.view(img.shape[0], *img_shape)
        return img


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()

        self.model = nn.Sequential(
            nn.Linear(int(np.prod(img_shape)), 128),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(128, 64),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(64, 1),
        )

    def forward(self, img):
        img_flat = img.view(img.shape[0], -1)
        validity = self.model(img_flat)
        return validity


# Loss weight for gradient penalty
lambda_gp = 10

# Initialize generator and discriminator
generator = Generator()
discriminator = Discriminator()

if cuda:
    generator.cuda()
    discriminator.cuda()

# Configure data loader
dataloader = torch.utils.data.DataLoader(
    list(zip(train_images, train_labels)),
    batch_size=opt.batch_size,
    shuffle=True,
)

# %% realcode-load: generator discriminator

# Optimizers
optimizer_G = torch.optim.Adam(generator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))

Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor


def compute_gradient_penalty(D, real_samples, fake_samples):
    """Calculates the gradient penalty loss for WGAN GP"""
    # Random weight term for interpolation between real and fake samples
    alpha = Tensor(np.random.random((real_samples.size(0), 1, 1, 1)))
    # Get random interpolation between real and fake samples
    interpolates = (alpha * real_samples + ((1 - alpha) * fake_samples)).requires_grad_(True)
    d_interpolates = D(interpolates)
    fake = Variable(Tensor(real_samples.shape[0], 1).fill_(1.0), requires_grad=False)
    # Get gradient w.r.t. interpolates
    gradients = autograd.grad(
        outputs=d_interpolates,
        inputs=interpolates,
        grad_outputs=fake,
        create_graph=True,
        retain_graph=True,
        only_inputs=True,
    )[0]
    gradients = gradients.view(gradients.size(0), -1)
    gradient_penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
    return gradient_penalty


# ----------
#  Training
# ----------

batches_done = 0
for epoch in range(opt.n_epochs):
    for i, (imgs, _) in enumerate(dataloader):

        # Configure input
        real_imgs = Variable(imgs.type(Tensor))

        # ---------------------
        #  Train Discriminator
        # ---------------------

        optimizer_D.zero_grad()

        # Sample noise as generator input
        z = Variable(Tensor(np.random.normal(0, 1, (imgs.shape[0], opt.latent_dim))))

        # Generate a batch of images
        fake_imgs = generator(z)

        # Real images
        real_validity = discriminator(real_imgs)
        # Fake images
        fake_validity = discriminator(fake_imgs)
        # Gradient penalty
        gradient_penalty = compute_gradient_penalty(discriminator, real_imgs.data, fake_imgs.data)
        # Adversarial loss
        d_loss = -torch.mean(real_validity) + torch.mean(fake_validity) + lambda_gp * gradient_penalty

        d_loss.backward()
        optimizer_D.step()

        optimizer_G.zero_grad()

        # Train the generator every n_critic steps
        if i % opt.n_critic == 0:

            # -----------------
            #  Train Generator
            # -----------------

            # Generate a batch of images
            fake_imgs = generator(z)
            # Loss measures generator's ability to fool the discriminator
            # Train on fake images
            fake_validity = discriminator(fake_imgs)
            g_loss = -torch.mean(fake_validity)

            g_loss.backward()
            optimizer_G.step()

            print(
                "[Epoch %d/%d] [Batch %d/%d] [D loss: %f] [G loss: %f]"
                % (epoch, opt.n_epochs, i, len(dataloader), d_loss.item(), g_loss.item())
            )

            if batches_done % opt.sample_interval == 0:
                pass  # realcode-dropped: save_image(fake_imgs.data[:25], "images/%...)

            batches_done += opt.n_critic
