# realcode: d2l-ai/d2l-en @ 23d7a5aecceee57d1292c56e90cce307f183bb0a
# realcode: https://github.com/d2l-ai/d2l-en/blob/23d7a5aecceee57d1292c56e90cce307f183bb0a/chapter_builders-guide/custom-layer.md
# realcode: kept as written except for these adaptations:
#   - the code cells of the PyTorch tab (and those shared by all tabs), in order, each after a '# %%' line; the d2lbook `%%tab` lines and `if tab.selected(...)` branches for other frameworks left out
#   - `from d2l import torch as d2l` -> `class d2l:` holding the aliases of d2l/torch.py this page uses (tensor = torch.tensor; rand = torch.rand), after the imports: the d2l package is not PyTorch
#   - `Y = net(d2l.rand(4, 8)) / Y.mean()` -> `Y = net(d2l.rand(4, 8)) / Y.mean() / # %% realcode-load: net`: cell marker: PyTorch's random draws above are copied in
#   - `linear = MyLinear(5, 3)` -> `linear = MyLinear(5, 3) / # %% realcode-load: linear`: cell marker: PyTorch's random draws above are copied in
# realcode-output: Y net.0.weight linear.weight linear.bias
# realcode-shape-only: Y net (Y's input and the lazy layer's weights are drawn from the session's generator before the marker; the last cell rebinds net to layers drawn from it)
# %%
pass  # realcode-dropped: from d2l import torch as d2l
import torch
from torch import nn
from torch.nn import functional as F
class d2l:  # realcode: the d2l library's aliases this page uses, as d2l/torch.py defines them
    tensor = torch.tensor
    rand = torch.rand
# %%
class CenteredLayer(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, X):
        return X - X.mean()
# %%
layer = CenteredLayer()
layer(d2l.tensor([1.0, 2, 3, 4, 5]))
# %%
net = nn.Sequential(nn.LazyLinear(128), CenteredLayer())
# %%
Y = net(d2l.rand(4, 8))
Y.mean()
# %% realcode-load: net
# %%
class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units,))
        
    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)
# %%
linear = MyLinear(5, 3)
# %% realcode-load: linear
linear.weight
# %%
linear(torch.rand(2, 5))
# %%
net = nn.Sequential(MyLinear(64, 8), MyLinear(8, 1))
net(torch.rand(2, 64))
