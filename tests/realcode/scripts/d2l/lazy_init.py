# realcode: d2l-ai/d2l-en @ 23d7a5aecceee57d1292c56e90cce307f183bb0a
# realcode: https://github.com/d2l-ai/d2l-en/blob/23d7a5aecceee57d1292c56e90cce307f183bb0a/chapter_builders-guide/lazy-init.md
# realcode: kept as written except for these adaptations:
#   - the code cells of the PyTorch tab (and those shared by all tabs), in order, each after a '# %%' line; the d2lbook `%%tab` lines and `if tab.selected(...)` branches for other frameworks left out
#   - the last cell (`@d2l.add_to_class(d2l.Module)`, extending the d2l library's own Module class, marked #@save) left out
#   - `from d2l import torch as d2l` -> `class d2l:` holding the aliases of d2l/torch.py this page uses (tensor = torch.tensor), after the imports: the d2l package is not PyTorch
#   - `X = torch.rand(2, 20)` -> `X = torch.rand(2, 20) / # %% realcode-load: X`: cell marker: PyTorch's random draws above are copied in
# realcode-output: X net.*
# realcode-shape-only: net (the lazy layers draw their weights from the session's generator)
# %%
pass  # realcode-dropped: from d2l import torch as d2l
import torch
from torch import nn
class d2l:  # realcode: the d2l library's aliases this page uses, as d2l/torch.py defines them
    tensor = torch.tensor
# %%
net = nn.Sequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))
# %%
net[0].weight
# %%
X = torch.rand(2, 20)
# %% realcode-load: X
net(X)

net[0].weight.shape
