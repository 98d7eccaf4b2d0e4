"""A DCGAN training step as pytorch/examples/dcgan writes it (ConvTranspose2d generator, Conv2d
discriminator, weights_init, BCELoss, two Adam optimizers), pasted as a program: it runs through
the interpreter and gives PyTorch's numbers (the weights are set deterministically after
weights_init, so both libraries start from the same point)."""
import contextlib
import io

import numpy as np
import pytest

try:
    import torch as real_torch
except ImportError:  # the suite passes without PyTorch
    real_torch = None

DCGAN = """
import torch
import torch.nn as nn
import torch.nn.parallel
import torch.optim as optim

nz, ngf, ndf, nc = 8, 4, 4, 3
batch_size = 4


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        torch.nn.init.normal_(m.weight, 0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        torch.nn.init.normal_(m.weight, 1.0, 0.02)
        torch.nn.init.zeros_(m.bias)


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.main = nn.Sequential(
            # input is Z, going into a convolution
            nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            # state size. (ngf*4) x 4 x 4
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            # state size. (ngf*2) x 8 x 8
            nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False),
            nn.Tanh()
            # state size. (nc) x 16 x 16
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
            nn.Sigmoid()
        )

    def forward(self, input):
        return self.main(input).view(-1, 1).squeeze(1)


netG = Generator()
netG.apply(weights_init)
netD = Discriminator()
netD.apply(weights_init)
# the same starting point in every library
with torch.no_grad():
    for k, p in enumerate(list(netG.parameters()) + list(netD.parameters())):
        p.copy_(torch.cos(torch.arange(p.numel(), dtype=torch.float32) * 0.37 + k).reshape(p.shape) * 0.2)

criterion = nn.BCELoss()
real_label, fake_label = 1, 0
optimizerD = optim.Adam(netD.parameters(), lr=0.0002, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=0.0002, betas=(0.5, 0.999))
real_cpu = torch.sin(torch.arange(batch_size * nc * 16 * 16, dtype=torch.float32) * 0.01).reshape(
    batch_size, nc, 16, 16)

errs = []
for i in range(3):
    # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
    netD.zero_grad()
    label = torch.full((batch_size,), real_label, dtype=real_cpu.dtype)
    output = netD(real_cpu)
    errD_real = criterion(output, label)
    errD_real.backward()
    D_x = output.mean().item()
    noise = torch.cos(torch.arange(batch_size * nz, dtype=torch.float32) * (0.5 + i)).reshape(batch_size, nz, 1, 1)
    fake = netG(noise)
    label.fill_(fake_label)
    output = netD(fake.detach())
    errD_fake = criterion(output, label)
    errD_fake.backward()
    D_G_z1 = output.mean().item()
    errD = errD_real + errD_fake
    optimizerD.step()
    # (2) Update G network: maximize log(D(G(z)))
    netG.zero_grad()
    label.fill_(real_label)
    output = netD(fake)
    errG = criterion(output, label)
    errG.backward()
    D_G_z2 = output.mean().item()
    optimizerG.step()
    errs.append([errD.item(), errG.item(), D_x, D_G_z1, D_G_z2])
    print('[%d/%d] Loss_D: %.4f Loss_G: %.4f D(x): %.4f D(G(z)): %.4f / %.4f'
          % (i, 3, errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))

shape = list(fake.shape)
first_grad = netG.main[0].weight.grad.flatten()[:20].tolist()
last_weight = netG.main[6].weight.flatten()[:20].tolist()
print(shape)
"""


def _program_source():
    # torch.nn.parallel is imported by the example but is not part of the allowlist: the
    # pasted import is dropped, the rest runs as written
    return DCGAN.replace("import torch.nn.parallel\n", "")


def test_dcgan_step_runs_as_a_program(run_ok):
    out, ns = run_ok(_program_source())
    assert ns.get("shape") == [4, 3, 16, 16]
    errs = ns.get("errs")
    assert len(errs) == 3 and all(np.isfinite(e).all() for e in errs)
    assert out.stdout.count("Loss_D:") == 3


@pytest.mark.torch
@pytest.mark.skipif(real_torch is None, reason="PyTorch is not installed")
def test_dcgan_step_gives_pytorchs_numbers(run_ok):
    out, ns = run_ok(_program_source())
    theirs = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(DCGAN, "<pytorch>", "exec"), theirs)  # noqa: S102  (the test's own source, real torch)
    np.testing.assert_allclose(ns.get("errs"), theirs["errs"], rtol=2e-4, atol=1e-6)
    np.testing.assert_allclose(ns.get("first_grad"), theirs["first_grad"], rtol=2e-3, atol=1e-7)
    np.testing.assert_allclose(ns.get("last_weight"), theirs["last_weight"], rtol=1e-4, atol=1e-6)
    assert out.stdout.splitlines()[-1] == printed.getvalue().splitlines()[-1] == "[4, 3, 16, 16]"
