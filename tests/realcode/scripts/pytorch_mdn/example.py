# realcode: sagelywizard/pytorch-mdn @ b5744b88eea88bc138fc19bc66c87e81dd5e340a
# realcode: https://github.com/sagelywizard/pytorch-mdn/blob/b5744b88eea88bc138fc19bc66c87e81dd5e340a/mdn/mdn.py
# realcode: https://github.com/sagelywizard/pytorch-mdn/blob/b5744b88eea88bc138fc19bc66c87e81dd5e340a/example/example.py
# realcode: kept as written except for these adaptations:
#   - mdn/mdn.py and example/example.py as written, one after the other
#   - `import matplotlib.pyplot as plt` -> `pass  # realcode-dropped: import matplotlib.pyplot as plt`: dropped (plotting)
#   - `sys.path.append('../mdn') / import mdn` -> `pass  # realcode-dropped: sys.path.append('../mdn') / import types; mdn = types.SimpleNamespace(MDN=MDN, mdn_loss=mdn_loss, sample=sample)  # realcode-inlined: import mdn`: the repository's own module mdn, pasted above, bound as a namespace
#   - `cluster1 = torch.randn((50, input_dims + output_dims)) / 4` -> `cluster1 = noise1 / 4  # realcode: torch.randn((50, input_dims + output_dims)) as an input`: the training clusters' torch.randn draws are inputs
#   - `cluster2 = torch.randn((50, input_dims + output_dims)) / 4` -> `cluster2 = noise2 / 4  # realcode: torch.randn((50, input_dims + output_dims)) as an input`: as above
#   - `cluster3 = torch.randn((50, input_dims + output_dims)) / 4` -> `cluster3 = noise3 / 4  # realcode: torch.randn((50, input_dims + output_dims)) as an input`: as above
#   - `optimizer = optim.Adam(model.parameters())` -> `# %% realcode-load: model / optimizer = optim.Adam(model.parameters())`: cell marker: PyTorch's initial parameters are copied in
#   - `for epoch in range(1000):` -> `for epoch in range(60):  # realcode: 1000 epochs -> 60`: 1000 epochs -> 60
#   - `print('Saving samples.png... ', end='')` -> `pass  # realcode: the figure dropped`: dropped (plotting): the figure of the targets and samples and its file
#   - `fig = plt.figure() / ax = fig.add_subplot(projection='3d')` -> ``: dropped (plotting)
#   - `ax.scatter(xs, ys, zs, label='target') / ax.scatter(xs, ys, samples, label='samples') / ax.legend() / fig.savefig('samples.png') / print('Done')` -> ``: dropped (plotting, file I/O)
# realcode-input: noise1 = randn(50, 3)
# realcode-input: noise2 = randn(50, 3)
# realcode-input: noise3 = randn(50, 3)
# realcode-output: training_set loss pi sigma mu model.* samples xs zs
# realcode-shape-only: samples (Categorical draws and torch.randn from the session's generator)
# %% realcode: mdn/mdn.py
"""A module for a mixture density network layer

For more info on MDNs, see _Mixture Desity Networks_ by Bishop, 1994.
"""
import torch
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Variable
from torch.distributions import Categorical
import math


ONEOVERSQRT2PI = 1.0 / math.sqrt(2 * math.pi)


class MDN(nn.Module):
    """A mixture density network layer

    The input maps to the parameters of a MoG probability distribution, where
    each Gaussian has O dimensions and diagonal covariance.

    Arguments:
        in_features (int): the number of dimensions in the input
        out_features (int): the number of dimensions in the output
        num_gaussians (int): the number of Gaussians per output dimensions

    Input:
        minibatch (BxD): B is the batch size and D is the number of input
            dimensions.

    Output:
        (pi, sigma, mu) (BxG, BxGxO, BxGxO): B is the batch size, G is the
            number of Gaussians, and O is the number of dimensions for each
            Gaussian. Pi is a multinomial distribution of the Gaussians. Sigma
            is the standard deviation of each Gaussian. Mu is the mean of each
            Gaussian.
    """

    def __init__(self, in_features, out_features, num_gaussians):
        super(MDN, self).__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.num_gaussians = num_gaussians
        self.pi = nn.Sequential(
            nn.Linear(in_features, num_gaussians),
            nn.Softmax(dim=1)
        )
        self.sigma = nn.Linear(in_features, out_features * num_gaussians)
        self.mu = nn.Linear(in_features, out_features * num_gaussians)

    def forward(self, minibatch):
        pi = self.pi(minibatch)
        sigma = torch.exp(self.sigma(minibatch))
        sigma = sigma.view(-1, self.num_gaussians, self.out_features)
        mu = self.mu(minibatch)
        mu = mu.view(-1, self.num_gaussians, self.out_features)
        return pi, sigma, mu


def gaussian_probability(sigma, mu, target):
    """Returns the probability of `target` given MoG parameters `sigma` and `mu`.

    Arguments:
        sigma (BxGxO): The standard deviation of the Gaussians. B is the batch
            size, G is the number of Gaussians, and O is the number of
            dimensions per Gaussian.
        mu (BxGxO): The means of the Gaussians. B is the batch size, G is the
            number of Gaussians, and O is the number of dimensions per Gaussian.
        target (BxI): A batch of target. B is the batch size and I is the number of
            input dimensions.

    Returns:
        probabilities (BxG): The probability of each point in the probability
            of the distribution in the corresponding sigma/mu index.
    """
    target = target.unsqueeze(1).expand_as(sigma)
    ret = ONEOVERSQRT2PI * torch.exp(-0.5 * ((target - mu) / sigma)**2) / sigma
    return torch.prod(ret, 2)


def mdn_loss(pi, sigma, mu, target):
    """Calculates the error, given the MoG parameters and the target

    The loss is the negative log likelihood of the data given the MoG
    parameters.
    """
    prob = pi * gaussian_probability(sigma, mu, target)
    nll = -torch.log(torch.sum(prob, dim=1))
    return torch.mean(nll)


def sample(pi, sigma, mu):
    """Draw samples from a MoG.
    """
    # Choose which gaussian we'll sample from
    pis = Categorical(pi).sample().view(pi.size(0), 1, 1)
    # Choose a random sample, one randn for batch X output dims
    # Do a (output dims)X(batch size) tensor here, so the broadcast works in
    # the next step, but we have to transpose back.
    gaussian_noise = torch.randn(
        (sigma.size(2), sigma.size(0)), requires_grad=False)
    variance_samples = sigma.gather(1, pis).detach().squeeze()
    mean_samples = mu.detach().gather(1, pis).squeeze()
    return (gaussian_noise * variance_samples + mean_samples).transpose(0, 1)

# %% realcode: example/example.py
"""A script that shows how to use the MDN. It's a simple MDN with a single
nonlinearity that's trained to output 1D samples given a 2D input.
"""
pass  # realcode-dropped: import matplotlib.pyplot as plt
import sys
pass  # realcode-dropped: sys.path.append('../mdn')
import types; mdn = types.SimpleNamespace(MDN=MDN, mdn_loss=mdn_loss, sample=sample)  # realcode-inlined: import mdn
import torch
import torch.nn as nn
import torch.optim as optim

input_dims = 2
output_dims = 1
num_gaussians = 5


def translate_cluster(cluster, dim, amount):
    """Translates a cluster in a particular dimension by some amount
    """
    translation = torch.ones(cluster.size(0)) * amount
    cluster.transpose(0, 1)[dim].add_(translation)
    return cluster


print("Generating training data... ", end='')
cluster1 = noise1 / 4  # realcode: torch.randn((50, input_dims + output_dims)) as an input
cluster1 = translate_cluster(cluster1, 1, 1.2)
cluster2 = noise2 / 4  # realcode: torch.randn((50, input_dims + output_dims)) as an input
cluster2 = translate_cluster(cluster2, 0, -1.2)
cluster3 = noise3 / 4  # realcode: torch.randn((50, input_dims + output_dims)) as an input
cluster3 = translate_cluster(cluster3, 2, -1.2)
training_set = torch.cat([cluster1, cluster2, cluster3])
print('Done')

print("Initializing model... ", end='')
model = nn.Sequential(
    nn.Linear(input_dims, 5),
    nn.Tanh(),
    mdn.MDN(5, output_dims, num_gaussians)
)

# %% realcode-load: model
optimizer = optim.Adam(model.parameters())
print('Done')

print('Training model... ', end='')
sys.stdout.flush()
for epoch in range(60):  # realcode: 1000 epochs -> 60
    model.zero_grad()
    pi, sigma, mu = model(training_set[:, 0:input_dims])
    loss = mdn.mdn_loss(pi, sigma, mu, training_set[:, input_dims:])
    loss.backward()
    optimizer.step()
    if epoch % 100 == 99:
        print(f' {round(epoch/10)}%', end='')
        sys.stdout.flush()
print(' Done')

print('Generating samples... ', end='')
pi, sigma, mu = model(training_set[:, 0:input_dims])
samples = mdn.sample(pi, sigma, mu)
print('Done')

pass  # realcode: the figure dropped

xs = training_set[:, 0]
ys = training_set[:, 1]
zs = training_set[:, 2]
