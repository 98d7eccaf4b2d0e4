# realcode: pytorch/functorch @ 5a63b387e3c05fc255f8b39aa7144b222b406f9a
# realcode: https://github.com/pytorch/functorch/blob/5a63b387e3c05fc255f8b39aa7144b222b406f9a/examples/maml_regression/evjang_transforms_module.py
# realcode: kept as written except for these adaptations:
#   - examples/maml_regression/evjang_transforms_module.py as written (the tasks drawn with np.random, which the session's NumPy generator draws as NumPy does)
#   - `import matplotlib.pyplot as plt` -> `pass  # realcode-dropped: import matplotlib.pyplot as plt`: dropped (plotting)
#   - `import matplotlib as mpl / mpl.use('Agg')` -> `pass  # realcode-dropped: import matplotlib as mpl; mpl.use('Agg')`: dropped (plotting)
#   - `net, params = make_functional(ThreeLayerNet())` -> `net, params = make_functional(ThreeLayerNet()) / # %% realcode-load: params`: cell marker: PyTorch's initial parameters (make_functional's copies) are copied in
#   - `for it in range(20000):` -> `for it in range(30):  # realcode: 20000 -> 30 iterations`: 20000 meta-iterations -> 30
#   - `plt.plot(test_x.data.numpy(), test_y.data.numpy(), label='sin(x)') / plt.plot(test_x.data.numpy(), test_f.data.numpy(), label='net(x)') / plt.plot(t_x.data.numpy(), t_y.data.numpy(), 'o', label='Examples') / plt.legend() / plt.savefig('maml-sine.png') / plt.figure() / plt.plot(np.convolve(losses, [.05] * 20)) / plt.savefig('losses.png')` -> `pass  # realcode-dropped: the figures of the test task's fit and of the smoothed losses, and their files`: dropped (plotting, file I/O): the two figures and their files
# realcode-output: losses params.0 params.1 params.2 params.3 params.4 params.5 t_params.0 t_params.5 test_f t_loss test_x
# realcode-shape-only: t_params test_f t_loss (the test task's amplitude, phase and points are drawn with torch's uniform_ from the session's generator)
# realcode-rtol: 2e-4 (losses are float32 meta-losses through a second-order inner step: float32's tolerance)
# %% realcode: examples/maml_regression/evjang_transforms_module.py
# This example code was modified from https://github.com/ericjang/maml-jax .
#
# The original code comes with the following license:
# https://github.com/ericjang/maml-jax/blob/master/LICENSE
# Copyright Eric Jang
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#       http://www.apache.org/licenses/LICENSE-2.0
#

from functorch import grad, vmap, make_functional
pass  # realcode-dropped: import matplotlib.pyplot as plt
import math
import torch
import numpy as np
from torch import nn
from torch.nn import functional as F
pass  # realcode-dropped: import matplotlib as mpl; mpl.use('Agg')


class ThreeLayerNet(nn.Module):
    def __init__(self):
        super(ThreeLayerNet, self).__init__()
        self.fc1 = nn.Linear(1, 40)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(40, 40)
        self.relu2 = nn.ReLU()
        self.fc3 = nn.Linear(40, 1)

    def forward(self, x):
        x = self.fc1(x)
        x = self.relu1(x)
        x = self.fc2(x)
        x = self.relu2(x)
        x = self.fc3(x)
        return x

# The prototype doesn't like F.mse_loss.


def mse_loss(x, y):
    return torch.mean((x - y) ** 2)


net, params = make_functional(ThreeLayerNet())
# %% realcode-load: params
opt = torch.optim.Adam(params, lr=1e-3)
alpha = 0.1

K = 20
losses = []
num_tasks = 4


def sample_tasks(outer_batch_size, inner_batch_size):
    # Select amplitude and phase for the task
    As = []
    phases = []
    for _ in range(outer_batch_size):
        As.append(np.random.uniform(low=0.1, high=.5))
        phases.append(np.random.uniform(low=0., high=np.pi))

    def get_batch():
        xs, ys = [], []
        for A, phase in zip(As, phases):
            x = np.random.uniform(low=-5., high=5., size=(inner_batch_size, 1))
            y = A * np.sin(x + phase)
            xs.append(x)
            ys.append(y)
        return torch.tensor(xs, dtype=torch.float), torch.tensor(ys, dtype=torch.float)
    x1, y1 = get_batch()
    x2, y2 = get_batch()
    return x1, y1, x2, y2


for it in range(30):  # realcode: 20000 -> 30 iterations
    loss2 = 0.0
    opt.zero_grad()

    def get_loss_for_task(x1, y1, x2, y2):
        def inner_loss(params, x1, y1):
            f = net(params, x1)
            loss = mse_loss(f, y1)
            return loss

        grads = grad(inner_loss)(params, x1, y1)
        new_params = [(params[i] - alpha * grads[i]) for i in range(len(params))]

        v_f = net(new_params, x2)
        return mse_loss(v_f, y2)

    task = sample_tasks(num_tasks, K)
    inner_losses = vmap(get_loss_for_task)(task[0], task[1], task[2], task[3])
    loss2 = sum(inner_losses) / len(inner_losses)
    loss2.backward()

    opt.step()

    if it % 100 == 0:
        print('Iteration %d -- Outer Loss: %.4f' % (it, loss2))
    losses.append(loss2.detach())

t_A = torch.tensor(0.0).uniform_(0.1, 0.5)
t_b = torch.tensor(0.0).uniform_(0.0, math.pi)

t_x = torch.empty(4, 1).uniform_(-5, 5)
t_y = t_A * torch.sin(t_x + t_b)

opt.zero_grad()

t_params = params
for k in range(5):
    t_f = net(t_params, t_x)
    t_loss = F.l1_loss(t_f, t_y)

    grads = torch.autograd.grad(t_loss, t_params, create_graph=True)
    t_params = [(t_params[i] - alpha * grads[i]) for i in range(len(params))]


test_x = torch.arange(-2 * math.pi, 2 * math.pi, step=0.01).unsqueeze(1)
test_y = t_A * torch.sin(test_x + t_b)

test_f = net(t_params, test_x)

pass  # realcode-dropped: the figures of the test task's fit and of the smoothed losses, and their files
