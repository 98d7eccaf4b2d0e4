# realcode: d2l-ai/d2l-en @ 23d7a5aecceee57d1292c56e90cce307f183bb0a
# realcode: https://github.com/d2l-ai/d2l-en/blob/23d7a5aecceee57d1292c56e90cce307f183bb0a/chapter_convolutional-neural-networks/conv-layer.md
# realcode: kept as written except for these adaptations:
#   - the code cells of the PyTorch tab (and those shared by all tabs), in order, each after a '# %%' line; the d2lbook `%%tab` lines and `if tab.selected(...)` branches for other frameworks left out
#   - `from d2l import torch as d2l` -> `class d2l:` holding the aliases of d2l/torch.py this page uses (ones = torch.ones; zeros = torch.zeros; tensor = torch.tensor; reshape = lambda x, *args, **kwargs: x.reshape(*args, **kwargs); reduce_sum = lambda x, *args, **kwargs: x.sum(*args, **kwargs); transpose = lambda x, *args, **kwargs: x.t(*args, **kwargs)), after the imports: the d2l package is not PyTorch
# realcode-output: X Y K conv2d.weight
# realcode-shape-only: conv2d (the lazy layer draws its weights from the session's generator inside the training loop)
# %%
pass  # realcode-dropped: from d2l import torch as d2l
import torch
from torch import nn
class d2l:  # realcode: the d2l library's aliases this page uses, as d2l/torch.py defines them
    ones = torch.ones
    zeros = torch.zeros
    tensor = torch.tensor
    reshape = lambda x, *args, **kwargs: x.reshape(*args, **kwargs)
    reduce_sum = lambda x, *args, **kwargs: x.sum(*args, **kwargs)
    transpose = lambda x, *args, **kwargs: x.t(*args, **kwargs)
# %%
def corr2d(X, K):  #@save
    """Compute 2D cross-correlation."""
    h, w = K.shape
    Y = d2l.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = d2l.reduce_sum((X[i: i + h, j: j + w] * K))
    return Y
# %%
X = d2l.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
K = d2l.tensor([[0.0, 1.0], [2.0, 3.0]])
corr2d(X, K)
# %%
class Conv2D(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(kernel_size))
        self.bias = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        return corr2d(x, self.weight) + self.bias
# %%
X = d2l.ones((6, 8))
X[:, 2:6] = 0
X
# %%
K = d2l.tensor([[1.0, -1.0]])
# %%
Y = corr2d(X, K)
Y
# %%
corr2d(d2l.transpose(X), K)
# %%
# Construct a two-dimensional convolutional layer with 1 output channel and a
# kernel of shape (1, 2). For the sake of simplicity, we ignore the bias here
conv2d = nn.LazyConv2d(1, kernel_size=(1, 2), bias=False)

# The two-dimensional convolutional layer uses four-dimensional input and
# output in the format of (example, channel, height, width), where the batch
# size (number of examples in the batch) and the number of channels are both 1
X = X.reshape((1, 1, 6, 8))
Y = Y.reshape((1, 1, 6, 7))
lr = 3e-2  # Learning rate

for i in range(10):
    Y_hat = conv2d(X)
    l = (Y_hat - Y) ** 2
    conv2d.zero_grad()
    l.sum().backward()
    # Update the kernel
    conv2d.weight.data[:] -= lr * conv2d.weight.grad
    if (i + 1) % 2 == 0:
        print(f'epoch {i + 1}, loss {l.sum():.3f}')
# %%
d2l.reshape(conv2d.weight.data, (1, 2))
