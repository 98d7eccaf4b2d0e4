# realcode: d2l-ai/d2l-en @ 23d7a5aecceee57d1292c56e90cce307f183bb0a
# realcode: https://github.com/d2l-ai/d2l-en/blob/23d7a5aecceee57d1292c56e90cce307f183bb0a/chapter_convolutional-neural-networks/pooling.md
# realcode: kept as written except for these adaptations:
#   - the code cells of the PyTorch tab (and those shared by all tabs), in order, each after a '# %%' line; the d2lbook `%%tab` lines and `if tab.selected(...)` branches for other frameworks left out
#   - `from d2l import torch as d2l` -> `class d2l:` holding the aliases of d2l/torch.py this page uses (zeros = torch.zeros; tensor = torch.tensor; arange = torch.arange; float32 = torch.float32; concat = torch.cat; reshape = lambda x, *args, **kwargs: x.reshape(*args, **kwargs)), after the imports: the d2l package is not PyTorch
# realcode-output: X
# %%
pass  # realcode-dropped: from d2l import torch as d2l
import torch
from torch import nn
class d2l:  # realcode: the d2l library's aliases this page uses, as d2l/torch.py defines them
    zeros = torch.zeros
    tensor = torch.tensor
    arange = torch.arange
    float32 = torch.float32
    concat = torch.cat
    reshape = lambda x, *args, **kwargs: x.reshape(*args, **kwargs)
# %%
def pool2d(X, pool_size, mode='max'):
    p_h, p_w = pool_size
    Y = d2l.zeros((X.shape[0] - p_h + 1, X.shape[1] - p_w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            if mode == 'max':
                Y[i, j] = X[i: i + p_h, j: j + p_w].max()
            elif mode == 'avg':
                Y[i, j] = X[i: i + p_h, j: j + p_w].mean()
    return Y
# %%
X = d2l.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
pool2d(X, (2, 2))
# %%
pool2d(X, (2, 2), 'avg')
# %%
X = d2l.reshape(d2l.arange(16, dtype=d2l.float32), (1, 1, 4, 4))
X
# %%
pool2d = nn.MaxPool2d(3)
# Pooling has no model parameters, hence it needs no initialization
pool2d(X)
# %%
pool2d = nn.MaxPool2d(3, padding=1, stride=2)
pool2d(X)
# %%
pool2d = nn.MaxPool2d((2, 3), stride=(2, 3), padding=(0, 1))
pool2d(X)
# %%
X = d2l.concat((X, X + 1), 1)
X
# %%
pool2d = nn.MaxPool2d(3, padding=1, stride=2)
pool2d(X)
