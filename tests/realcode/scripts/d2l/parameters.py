# realcode: d2l-ai/d2l-en @ 23d7a5aecceee57d1292c56e90cce307f183bb0a
# realcode: https://github.com/d2l-ai/d2l-en/blob/23d7a5aecceee57d1292c56e90cce307f183bb0a/chapter_builders-guide/parameters.md
# realcode: kept as written except for these adaptations:
#   - the code cells of the PyTorch tab (and those shared by all tabs), in order, each after a '# %%' line; the d2lbook `%%tab` lines and `if tab.selected(...)` branches for other frameworks left out
#   - `net(X).shape` -> `net(X).shape / # %% realcode-load: X net`: cell marker: PyTorch's random input and lazily made weights are copied in
# realcode-output: X net.0.weight net.2.weight
# realcode-shape-only: net (the last cells build a new net whose LazyLinear layers draw their weights from the session's generator)
# %%
import torch
from torch import nn
# %%
net = nn.Sequential(nn.LazyLinear(8),
                    nn.ReLU(),
                    nn.LazyLinear(1))

X = torch.rand(size=(2, 4))
net(X).shape
# %% realcode-load: X net
# %%
net[2].state_dict()
# %%
type(net[2].bias), net[2].bias.data
# %%
net[2].weight.grad == None
# %%
[(name, param.shape) for name, param in net.named_parameters()]
# %%
# We need to give the shared layer a name so that we can refer to its
# parameters
shared = nn.LazyLinear(8)
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(),
                    shared, nn.ReLU(),
                    shared, nn.ReLU(),
                    nn.LazyLinear(1))

net(X)
# Check whether the parameters are the same
print(net[2].weight.data[0] == net[4].weight.data[0])
net[2].weight.data[0, 0] = 100
# Make sure that they are actually the same object rather than just having the
# same value
print(net[2].weight.data[0] == net[4].weight.data[0])
