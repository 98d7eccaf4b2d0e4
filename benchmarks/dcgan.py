"""One DCGAN training step (pytorch/examples/dcgan's networks: nz=100, ngf=ndf=64, 64x64 RGB),
gradserve against PyTorch in the same run, float32, both on the CPU with the same BLAS threads.

(gen) the generator alone: forward (five ConvTranspose2d, BatchNorm, ReLU, Tanh), a loss, backward,
      an Adam step: what ConvTranspose2d costs.
(step) the whole GAN step as the example writes it: the discriminator on a real and a fake batch
      (BCELoss), its Adam step, then the generator's loss through the discriminator and its step.

Prints each framework's median over rounds and the ratio. With ``--clock cpu`` everything runs
on one thread (OpenBLAS and PyTorch) and each figure is that thread's CPU time, which a
descheduled process does not accrue: on a loaded machine the wall clock measures the scheduler.

    python benchmarks/dcgan.py [--batch N] [--repeat N] [--rounds N] [--threads N] [--clock wall|cpu]
"""
import argparse
import os
import sys
import statistics
import time

import numpy as np

import gradserve.engine as gs

try:
    import torch
except ImportError:
    torch = None

NZ, NGF, NDF, NC = 100, 64, 64, 3


def generator(T):
    nn = T.nn
    return nn.Sequential(
        nn.ConvTranspose2d(NZ, NGF * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(NGF * 8), nn.ReLU(True),
        nn.ConvTranspose2d(NGF * 8, NGF * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(NGF * 4), nn.ReLU(True),
        nn.ConvTranspose2d(NGF * 4, NGF * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(NGF * 2), nn.ReLU(True),
        nn.ConvTranspose2d(NGF * 2, NGF, 4, 2, 1, bias=False), nn.BatchNorm2d(NGF), nn.ReLU(True),
        nn.ConvTranspose2d(NGF, NC, 4, 2, 1, bias=False), nn.Tanh())


def discriminator(T):
    nn = T.nn
    return nn.Sequential(
        nn.Conv2d(NC, NDF, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(NDF, NDF * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(NDF * 2), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(NDF * 2, NDF * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(NDF * 4), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(NDF * 4, NDF * 8, 4, 2, 1, bias=False), nn.BatchNorm2d(NDF * 8), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(NDF * 8, 1, 4, 1, 0, bias=False), nn.Sigmoid())


def generator_step(T, batch):
    net = generator(T)
    opt = T.optim.Adam(net.parameters(), lr=2e-4, betas=(0.5, 0.999))
    noise = T.tensor(np.random.default_rng(0).standard_normal((batch, NZ, 1, 1)).astype(np.float32))
    target = T.tensor(np.random.default_rng(1).uniform(-1, 1, (batch, NC, 64, 64)).astype(np.float32))

    def step():
        opt.zero_grad()
        loss = ((net(noise) - target) ** 2).mean()
        loss.backward()
        opt.step()
    return step


def gan_step(T, batch):
    G, D = generator(T), discriminator(T)
    opt_g = T.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = T.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    criterion = T.nn.BCELoss()
    rng = np.random.default_rng(0)
    real = T.tensor(rng.uniform(-1, 1, (batch, NC, 64, 64)).astype(np.float32))
    noise = T.tensor(rng.standard_normal((batch, NZ, 1, 1)).astype(np.float32))
    ones, zeros = T.ones(batch), T.zeros(batch)

    def step():
        D.zero_grad()
        err_real = criterion(D(real).view(-1), ones)
        err_real.backward()
        fake = G(noise)
        err_fake = criterion(D(fake.detach()).view(-1), zeros)
        err_fake.backward()
        opt_d.step()
        G.zero_grad()
        err_g = criterion(D(fake).view(-1), ones)
        err_g.backward()
        opt_g.step()
    return step


clock = time.perf_counter


def median_time(step, repeat):
    step()   # warm up
    times = []
    for _ in range(repeat):
        t0 = clock()
        step()
        times.append(clock() - t0)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = parser.parse_args()
    global clock
    if args.clock == "cpu":
        if os.environ.get("OPENBLAS_NUM_THREADS") != "1":   # read when NumPy loads: start again with it
            os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, OPENBLAS_NUM_THREADS="1"))
        clock, args.threads = time.thread_time, 1
    print(f"load average {os.getloadavg()[0]:.1f}, clock {args.clock}", flush=True)
    if torch is not None and args.threads:
        torch.set_num_threads(args.threads)
    for label, make in (("(gen) generator step", generator_step), ("(step) DCGAN step", gan_step)):
        ours, theirs = [], []
        for _ in range(args.rounds):
            ours.append(median_time(make(gs, args.batch), args.repeat))
            if torch is not None:
                theirs.append(median_time(make(torch, args.batch), args.repeat))
        line = f"{label}, batch {args.batch}: gradserve {statistics.median(ours) * 1e3:.0f} ms"
        if theirs:
            t = statistics.median(theirs)
            line += f", PyTorch {t * 1e3:.0f} ms, ratio {statistics.median(ours) / t:.2f}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
