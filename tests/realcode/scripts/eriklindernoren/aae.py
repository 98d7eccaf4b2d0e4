# realcode: eriklindernoren/PyTorch-GAN @ 36d3c77e5ff20ebe0aeefd322326a134a279b93e
# realcode: https://github.com/eriklindernoren/PyTorch-GAN/blob/36d3c77e5ff20ebe0aeefd322326a134a279b93e/implementations/aae/aae.py
# realcode: kept as written except for these adaptations:
#   - `import argparse / import os` -> `pass  # realcode-dropped: import argparse / pass  # realcode-dropped: import os`: dropped (plotting / file I/O / argparse / download)
#   - `import torchvision.transforms as transforms / from torchvision.utils import save_image` -> `pass  # realcode-dropped: import torchvision.transforms as transforms / pass  # realcode-dropped: from torchvision.utils import save_image`: dropped (plotting / file I/O / argparse / download)
#   - `from torchvision import datasets` -> `pass  # realcode-dropped: from torchvision import datasets`: dropped (plotting / file I/O / argparse / download)
#   - `os.makedirs("images", exist_ok=True)` -> `pass  # realcode-dropped: os.makedirs("images", exist_ok=True)`: drop file I/O
#   - `parser = argparse.ArgumentParser() / parser.add_argument("--n_epochs", type=int, default=200, help="number of epochs of training") / parser.add_argument("--batch_size", type=int, default=64, help="size of the batches") / parser.add_argument("--lr", type=float, default=0.0002, help="adam: learning rate") / parser.add_argument("--b1", type=float, default=0.5, help="adam: decay of first order momentu ...` -> `class opt:  # realcode: argparse's defaults; n_epochs 200 -> 2, batch_size 64 -> 16, img_size 32 -> 8 / n_epochs = 2; batch_size = 16; lr = 0.0002; b1 = 0.5; b2 = 0.999; n_cpu = 8 / latent_dim = 10; img_size = 8; channels = 1; sample_interval = 400`: drop argparse: its defaults as a class, n_epochs 200 -> 2, batch_size 64 -> 16, img_size 32 -> 8
#   - `os.makedirs("../../data/mnist", exist_ok=True) / dataloader = torch.utils.data.DataLoader( / datasets.MNIST( / "../../data/mnist", / train=True, / download=True, / transform=transforms.Compose( / [transforms.Resize(opt.img_size), transforms.ToTensor(), transforms.Normalize([0.5], [0.5])] / ), / ), / batch_size=opt.batch_size, / shuffle=True, / )` -> `dataloader = torch.utils.data.DataLoader( / list(zip(train_images, train_labels)), / batch_size=opt.batch_size, / shuffle=True, / ) /  / # %% realcode-load: encoder decoder discriminator`: MNIST replaced by synthetic images in [-1, 1] (as Normalize([0.5], [0.5]) leaves them) and labels passed as inputs, one batch (the loss does not depend on the order shuffle picks); cell marker: PyTorch's initial weights of encoder decoder discriminator are copied in
#   - `nn.Linear(int(np.prod(img_shape)), 512), / nn.LeakyReLU(0.2, inplace=True), / nn.Linear(512, 512), / nn.BatchNorm1d(512), / nn.LeakyReLU(0.2, inplace=True), / ) /  / self.mu = nn.Linear(512, opt.latent_dim) / self.logvar = nn.Linear(512, opt.latent_dim)` -> `nn.Linear(int(np.prod(img_shape)), 64), / nn.LeakyReLU(0.2, inplace=True), / nn.Linear(64, 64), / nn.BatchNorm1d(64), / nn.LeakyReLU(0.2, inplace=True), / ) /  / self.mu = nn.Linear(64, opt.latent_dim) / self.logvar = nn.Linear(64, opt.latent_dim)`: shrink the encoder's width 512 -> 64
#   - `nn.Linear(opt.latent_dim, 512), / nn.LeakyReLU(0.2, inplace=True), / nn.Linear(512, 512), / nn.BatchNorm1d(512), / nn.LeakyReLU(0.2, inplace=True), / nn.Linear(512, int(np.prod(img_shape))),` -> `nn.Linear(opt.latent_dim, 64), / nn.LeakyReLU(0.2, inplace=True), / nn.Linear(64, 64), / nn.BatchNorm1d(64), / nn.LeakyReLU(0.2, inplace=True), / nn.Linear(64, int(np.prod(img_shape))),`: shrink the decoder's width 512 -> 64
#   - `nn.Linear(opt.latent_dim, 512), / nn.LeakyReLU(0.2, inplace=True), / nn.Linear(512, 256), / nn.LeakyReLU(0.2, inplace=True), / nn.Linear(256, 1),` -> `nn.Linear(opt.latent_dim, 64), / nn.LeakyReLU(0.2, inplace=True), / nn.Linear(64, 32), / nn.LeakyReLU(0.2, inplace=True), / nn.Linear(32, 1),`: shrink the discriminator's widths 512/256 -> 64/32
#   - `save_image(gen_imgs.data, "images/%d.png" % batches_done, nrow=n_row, normalize=True)` -> `pass  # realcode-dropped: save_image(gen_imgs.data, "images/%d.png"...)`: drop writing image files
# realcode-input: train_images = rand(16, 1, 8, 8) * 2 - 1
# realcode-input: train_labels = randint(0, 10, 16)
# realcode-output: g_loss d_loss encoded_imgs decoded_imgs encoder.* decoder.* discriminator.*
# realcode-shape-only: g_loss d_loss encoded_imgs decoded_imgs encoder decoder discriminator (the rows DataLoader's shuffle puts in order (drawn from the session's generator, not PyTorch's) meet the np.random noise rows in another pairing, so the encoder's reparameterised codes, and everything trained from them, depend on the order)
pass  # realcode-dropped: import argparse
pass  # realcode-dropped: import os
import numpy as np
import math
import itertools

pass  # realcode-dropped: import torchvision.transforms as transforms
pass  # realcode-dropped: from torchvision.utils import save_image

from torch.utils.data import DataLoader
pass  # realcode-dropped: from torchvision import datasets
from torch.autograd import Variable

import torch.nn as nn
import torch.nn.functional as F
import torch

pass  # realcode-dropped: os.makedirs("images", exist_ok=True)

class opt:  # realcode: argparse's defaults; n_epochs 200 -> 2, batch_size 64 -> 16, img_size 32 -> 8
    n_epochs = 2; batch_size = 16; lr = 0.0002; b1 = 0.5; b2 = 0.999; n_cpu = 8
    latent_dim = 10; img_size = 8; channels = 1; sample_interval = 400
print(opt)

img_shape = (opt.channels, opt.img_size, opt.img_size)

cuda = True if torch.cuda.is_available() else False


def reparameterization(mu, logvar):
    std = torch.exp(logvar / 2)
    sampled_z = Variable(Tensor(np.random.normal(0, 1, (mu.size(0), opt.latent_dim))))
    z = sampled_z * std + mu
    return z


class Encoder(nn.Module):
    def __init__(self):
        super(Encoder, self).__init__()

        self.model = nn.Sequential(
            nn.Linear(int(np.prod(img_shape)), 64),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(64, 64),
            nn.BatchNorm1d(64),
            nn.LeakyReLU(0.2, inplace=True),
        )

        self.mu = nn.Linear(64, opt.latent_dim)
        self.logvar = nn.Linear(64, opt.latent_dim)

    def forward(self, img):
        img_flat = img.view(img.shape[0], -1)
        x = self.model(img_flat)
        mu = self.mu(x)
        logvar = self.logvar(x)
        z = reparameterization(mu, logvar)
        return z


class Decoder(nn.Module):
    def __init__(self):
        super(Decoder, self).__init__()

        self.model = nn.Sequential(
            nn.Linear(opt.latent_dim, 64),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(64, 64),
            nn.BatchNorm1d(64),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(64, int(np.prod(img_shape))),
            nn.Tanh(),
        )

    def forward(self, z):
        img_flat = self.model(z)
        img = img_flat.view(img_flat.shape[0], *img_shape)
        return img


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()

        self.model = nn.Sequential(
            nn.Linear(opt.latent_dim, 64),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(64, 32),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(32, 1),
            nn.Sigmoid(),
        )

    def forward(self, z):
        validity = self.model(z)
        return validity


# Use binary cross-entropy loss
adversarial_loss = torch.nn.BCELoss()
pixelwise_loss = torch.nn.L1Loss()

# Initialize generator and discriminator
encoder = Encoder()
decoder = Decoder()
discriminator = Discriminator()

if cuda:
    encoder.cuda()
    decoder.cuda()
    discriminator.cuda()
    adversarial_loss.cuda()
    pixelwise_loss.cuda()

# Configure data loader
dataloader = torch.utils.data.DataLoader(
    list(zip(train_images, train_labels)),
    batch_size=opt.batch_size,
    shuffle=True,
)

# %% realcode-load: encoder decoder discriminator

# Optimizers
optimizer_G = torch.optim.Adam(
    itertools.chain(encoder.parameters(), decoder.parameters()), lr=opt.lr, betas=(opt.b1, opt.b2)
)
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=opt.lr, betas=(opt.b1, opt.b2))

Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor


def sample_image(n_row, batches_done):
    """Saves a grid of generated digits"""
    # Sample noise
    z = Variable(Tensor(np.random.normal(0, 1, (n_row ** 2, opt.latent_dim))))
    gen_imgs = decoder(z)
    pass  # realcode-dropped: save_image(gen_imgs.data, "images/%d.png"...)


# ----------
#  Training
# ----------

for epoch in range(opt.n_epochs):
    for i, (imgs, _) in enumerate(dataloader):

        # Adversarial ground truths
        valid = Variable(Tensor(imgs.shape[0], 1).fill_(1.0), requires_grad=False)
        fake = Variable(Tensor(imgs.shape[0], 1).fill_(0.0), requires_grad=False)

        # Configure input
        real_imgs = Variable(imgs.type(Tensor))

        # -----------------
        #  Train Generator
        # -----------------

        optimizer_G.zero_grad()

        encoded_imgs = encoder(real_imgs)
        decoded_imgs = decoder(encoded_imgs)

        # Loss measures generator's ability to fool the discriminator
        g_loss = 0.001 * adversarial_loss(discriminator(encoded_imgs), valid) + 0.999 * pixelwise_loss(
            decoded_imgs, real_imgs
        )

        g_loss.backward()
        optimizer_G.step()

        # ---------------------
        #  Train Discriminator
        # ---------------------

        optimizer_D.zero_grad()

        # Sample noise as discriminator ground truth
        z = Variable(Tensor(np.random.normal(0, 1, (imgs.shape[0], opt.latent_dim))))

        # Measure discriminator's ability to classify real from generated samples
        real_loss = adversarial_loss(discriminator(z), valid)
        fake_loss = adversarial_loss(discriminator(encoded_imgs.detach()), fake)
        d_loss = 0.5 * (real_loss + fake_loss)

        d_loss.backward()
        optimizer_D.step()

        print(
            "[Epoch %d/%d] [Batch %d/%d] [D loss: %f] [G loss: %f]"
            % (epoch, opt.n_epochs, i, len(dataloader), d_loss.item(), g_loss.item())
        )

        batches_done = epoch * len(dataloader) + i
        if batches_done % opt.sample_interval == 0:
            sample_image(n_row=10, batches_done=batches_done)
