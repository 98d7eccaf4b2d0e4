# realcode: jmtomczak/intro_dgm @ 28bbc85bb9430515f9beef8a282c8bc503174725
# realcode: https://github.com/jmtomczak/intro_dgm/blob/28bbc85bb9430515f9beef8a282c8bc503174725/flows/realnvp_example.ipynb
# realcode: kept as written except for these adaptations:
#   - the notebook's code cells that compute, one after the other; the plots (samples_real, samples_generated, plot_curve: matplotlib), the model summary (pytorch_model_summary) and the files (os.mkdir, torch.save of the best model, the test loss written to a text file) left out
#   - sklearn's load_digits() -> a synthetic stand-in (`digits_data`, 128 images of 8x8 integer levels 0-16, passed as an input); the splits [:1000], [1000:1350], [1350:] shrink to [:64], [64:96], [96:], so the shuffled training set is one batch
#   - num_epochs 3 instead of 1000 and M 32 instead of 256; the test loss is evaluated on the last model instead of the best one reloaded from its file
#   - num_flows 2 instead of 8; `loss_init`, the model's loss on the first test batch before training and without dequantization, is added (compared by value): the dequantization noise is drawn by torch.rand in every training and evaluation step, which the session cannot reproduce, so what training produces is compared by shape only
# realcode-input: digits_data = randint(0, 17, 128, 64)
# realcode-rtol: 2e-4 (the losses are float32 sums held as Python floats)
# realcode-output: loss_init nll_val test_loss model.*
# realcode-shape-only: nll_val test_loss model (dequantization noise drawn by torch.rand)
# %% realcode: cell 0
pass  # realcode-dropped: import os (files)

import numpy as np
pass  # realcode-dropped: import matplotlib.pyplot as plt (plots)
import torch
pass  # realcode-dropped: from sklearn.datasets import load_digits / from sklearn import datasets (the digits come as an input)
import types
from torch.utils.data import Dataset, DataLoader
import torch.nn as nn

pass  # realcode-dropped: from pytorch_model_summary import summary (a printout)
# %% realcode: cell 4
class Digits(Dataset):
    """Scikit-Learn Digits dataset."""

    def __init__(self, mode='train', transforms=None):
        digits = types.SimpleNamespace(data=digits_data.numpy())  # realcode: load_digits()
        if mode == 'train':
            self.data = digits.data[:64].astype(np.float32)  # realcode: [:1000]
        elif mode == 'val':
            self.data = digits.data[64:96].astype(np.float32)  # realcode: [1000:1350]
        else:
            self.data = digits.data[96:].astype(np.float32)  # realcode: [1350:]

        self.transforms = transforms

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        sample = self.data[idx]
        if self.transforms:
            sample = self.transforms(sample)
        return sample
# %% realcode: cell 7
class RealNVP(nn.Module):
    def __init__(self, nets, nett, num_flows, prior, D=2, dequantization=True):
        super(RealNVP, self).__init__()
        
        print('RealNVP by JT.')
        
        self.dequantization = dequantization
        
        self.prior = prior
        self.t = torch.nn.ModuleList([nett() for _ in range(num_flows)])
        self.s = torch.nn.ModuleList([nets() for _ in range(num_flows)])
        self.num_flows = num_flows
        
        self.D = D

    def coupling(self, x, index, forward=True):
        # x: input, either images (for the first transformation) or outputs from the previous transformation
        # index: it determines the index of the transformation
        # forward: whether it is a pass from x to y (forward=True), or from y to x (forward=False)
        
        (xa, xb) = torch.chunk(x, 2, 1)
        
        s = self.s[index](xa)
        t = self.t[index](xa)
        
        if forward:
            #yb = f^{-1}(x)
            yb = (xb - t) * torch.exp(-s)
        else:
            #xb = f(y)
            yb = torch.exp(s) * xb + t
        
        return torch.cat((xa, yb), 1), s

    def permute(self, x):
        return x.flip(1)

    def f(self, x):
        log_det_J, z = x.new_zeros(x.shape[0]), x
        for i in range(self.num_flows):
            z, s = self.coupling(z, i, forward=True)
            z = self.permute(z)
            log_det_J = log_det_J - s.sum(dim=1)

        return z, log_det_J

    def f_inv(self, z):
        x = z
        for i in reversed(range(self.num_flows)):
            x = self.permute(x)
            x, _ = self.coupling(x, i, forward=False)

        return x

    def forward(self, x, reduction='avg'):
        z, log_det_J = self.f(x)
        if reduction == 'sum':
            return -(self.prior.log_prob(z) + log_det_J).sum()
        else:
            return -(self.prior.log_prob(z) + log_det_J).mean()

    def sample(self, batchSize):
        z = self.prior.sample((batchSize, self.D))
        z = z[:, 0, :]
        x = self.f_inv(z)
        return x.view(-1, self.D)
# %% realcode: cell 10
def evaluation(test_loader, name=None, model_best=None, epoch=None):
    # EVALUATION
    if model_best is None:
        # load best performing model
        model_best = torch.load(name + '.model')

    model_best.eval()
    loss = 0.
    N = 0.
    for indx_batch, test_batch in enumerate(test_loader):
        if hasattr(model, 'dequantization'):
            if model.dequantization:
                test_batch = test_batch + (1. - torch.rand(test_batch.shape))/2.
        loss_t = model_best.forward(test_batch, reduction='sum')
        loss = loss + loss_t.item()
        N = N + test_batch.shape[0]
    loss = loss / N

    if epoch is None:
        print(f'FINAL LOSS: nll={loss}')
    else:
        print(f'Epoch: {epoch}, val nll={loss}')

    return loss


def samples_real(name, test_loader):
    # REAL-------
    num_x = 4
    num_y = 4
    x = next(iter(test_loader)).detach().numpy()

    fig, ax = plt.subplots(num_x, num_y)
    for i, ax in enumerate(ax.flatten()):
        plottable_image = np.reshape(x[i], (8, 8))
        ax.imshow(plottable_image, cmap='gray')
        ax.axis('off')

    plt.savefig(name+'_real_images.pdf', bbox_inches='tight')
    plt.close()


def samples_generated(name, data_loader, extra_name=''):
    x = next(iter(data_loader)).detach().numpy()

    # GENERATIONS-------
    model_best = torch.load(name + '.model')
    model_best.eval()

    num_x = 4
    num_y = 4
    x = model_best.sample(num_x * num_y)
    x = x.detach().numpy()

    fig, ax = plt.subplots(num_x, num_y)
    for i, ax in enumerate(ax.flatten()):
        plottable_image = np.reshape(x[i], (8, 8))
        ax.imshow(plottable_image, cmap='gray')
        ax.axis('off')

    plt.savefig(name + '_generated_images' + extra_name + '.pdf', bbox_inches='tight')
    plt.close()


def plot_curve(name, nll_val):
    plt.plot(np.arange(len(nll_val)), nll_val, linewidth='3')
    plt.xlabel('epochs')
    plt.ylabel('nll')
    plt.savefig(name + '_nll_val_curve.pdf', bbox_inches='tight')
    plt.close()
# %% realcode: cell 11
def training(name, max_patience, num_epochs, model, optimizer, training_loader, val_loader):
    nll_val = []
    best_nll = 1000.
    patience = 0

    # Main loop
    for e in range(num_epochs):
        # TRAINING
        model.train()
        for indx_batch, batch in enumerate(training_loader):
            if hasattr(model, 'dequantization'):
                if model.dequantization:
                    batch = batch + (1. - torch.rand(batch.shape))/2.
            loss = model.forward(batch)

            optimizer.zero_grad()
            loss.backward(retain_graph=True)
            optimizer.step()

        # Validation
        loss_val = evaluation(val_loader, model_best=model, epoch=e)
        nll_val.append(loss_val)  # save for plotting

        if e == 0:
            print('saved!')
            pass  # realcode: torch.save(model, name + '.model')
            best_nll = loss_val
        else:
            if loss_val < best_nll:
                print('saved!')
                pass  # realcode: torch.save(model, name + '.model')
                best_nll = loss_val
                patience = 0

                pass  # realcode: samples_generated(name, val_loader, extra_name="_epoch_" + str(e))
            else:
                patience = patience + 1

        if patience > max_patience:
            break

    nll_val = np.asarray(nll_val)

    return nll_val
# %% realcode: cell 13
train_data = Digits(mode='train')
val_data = Digits(mode='val')
test_data = Digits(mode='test')

training_loader = DataLoader(train_data, batch_size=64, shuffle=True)
val_loader = DataLoader(val_data, batch_size=64, shuffle=False)
test_loader = DataLoader(test_data, batch_size=64, shuffle=False)

result_dir = 'results/'
pass  # realcode: if not(os.path.exists(result_dir)): os.mkdir(result_dir)
name = 'realnvp'
# %% realcode: cell 15
D = 64   # input dimension
M = 32  # the number of neurons in scale (s) and translation (t) nets  # realcode: 256

lr = 1e-3 # learning rate
num_epochs = 3 # max. number of epochs  # realcode: 1000
max_patience = 20 # an early stopping is used, if training doesn't improve for longer than 20 epochs, it is stopped
# %% realcode: cell 17
# The number of invertible transformations
num_flows = 2  # realcode: 8

# scale (s) network
nets = lambda: nn.Sequential(nn.Linear(D // 2, M), nn.LeakyReLU(),
                             nn.Linear(M, M), nn.LeakyReLU(),
                             nn.Linear(M, D // 2), nn.Tanh())

# translation (t) network
nett = lambda: nn.Sequential(nn.Linear(D // 2, M), nn.LeakyReLU(),
                             nn.Linear(M, M), nn.LeakyReLU(),
                             nn.Linear(M, D // 2))

# Prior (a.k.a. the base distribution): Gaussian
prior = torch.distributions.MultivariateNormal(torch.zeros(D), torch.eye(D))
# Init RealNVP
model = RealNVP(nets, nett, num_flows, prior, D=D, dequantization=True)
# Print the summary (like in Keras)
pass  # realcode: print(summary(model, torch.zeros(1, 64), show_input=False, show_hierarchical=False))
# %% realcode: cell 19
# %% realcode-load: model
loss_init = model.forward(next(iter(test_loader))).detach()  # realcode: added (see the header)
# OPTIMIZER
optimizer = torch.optim.Adamax([p for p in model.parameters() if p.requires_grad == True], lr=lr)
# %% realcode: cell 20
# Training procedure
nll_val = training(name=result_dir + name, max_patience=max_patience, num_epochs=num_epochs, model=model, optimizer=optimizer,
                       training_loader=training_loader, val_loader=val_loader)
# %% realcode: cell 21
test_loss = evaluation(test_loader, model_best=model)  # realcode: evaluation(name=result_dir + name, test_loader=test_loader), the saved best model
pass  # realcode: f = open(result_dir + name + '_test_loss.txt', "w") / f.write(str(test_loss)) / f.close()

pass  # realcode: samples_real(result_dir + name, test_loader) / plot_curve(result_dir + name, nll_val)
