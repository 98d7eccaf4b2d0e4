# realcode: d2l-ai/d2l-en @ 23d7a5aecceee57d1292c56e90cce307f183bb0a
# realcode: https://github.com/d2l-ai/d2l-en/blob/23d7a5aecceee57d1292c56e90cce307f183bb0a/chapter_convolutional-neural-networks/channels.md
# realcode: kept as written except for these adaptations:
#   - the code cells of the PyTorch tab (and those shared by all tabs), in order, each after a '# %%' line; the d2lbook `%%tab` lines and `if tab.selected(...)` branches for other frameworks left out
#   - d2l.corr2d (d2l/torch.py, defined on the conv-layer page) copied into the class as written
#   - `from d2l import torch as d2l` -> `class d2l:` holding the aliases of d2l/torch.py this page uses (zeros = torch.zeros; tensor = torch.tensor; stack = torch.stack; normal = torch.normal; matmul = torch.matmul; abs = torch.abs; reshape = lambda x, *args, **kwargs: x.reshape(*args, **kwargs); reduce_sum = lambda x, *args, **kwargs: x.sum(*args, **kwargs); d2l.corr2d), after the imports: the d2l package is not PyTorch
#   - `K = d2l.normal(0, 1, (2, 3, 1, 1))` -> `K = d2l.normal(0, 1, (2, 3, 1, 1)) / # %% realcode-load: X K`: cell marker: PyTorch's random draws above are copied in
# realcode-output: X K Y1 Y2
# %%
pass  # realcode-dropped: from d2l import torch as d2l
import torch
class d2l:  # realcode: the d2l library's aliases this page uses, as d2l/torch.py defines them
    zeros = torch.zeros
    tensor = torch.tensor
    stack = torch.stack
    normal = torch.normal
    matmul = torch.matmul
    abs = torch.abs
    reshape = lambda x, *args, **kwargs: x.reshape(*args, **kwargs)
    reduce_sum = lambda x, *args, **kwargs: x.sum(*args, **kwargs)
    def corr2d(X, K):
        """Compute 2D cross-correlation.

        Defined in :numref:`sec_conv_layer`"""
        h, w = K.shape
        Y = d2l.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
        for i in range(Y.shape[0]):
            for j in range(Y.shape[1]):
                Y[i, j] = d2l.reduce_sum((X[i: i + h, j: j + w] * K))
        return Y
# %%
def corr2d_multi_in(X, K):
    # Iterate through the 0th dimension (channel) of K first, then add them up
    return sum(d2l.corr2d(x, k) for x, k in zip(X, K))
# %%
X = d2l.tensor([[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]],
               [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]])
K = d2l.tensor([[[0.0, 1.0], [2.0, 3.0]], [[1.0, 2.0], [3.0, 4.0]]])

corr2d_multi_in(X, K)
# %%
def corr2d_multi_in_out(X, K):
    # Iterate through the 0th dimension of K, and each time, perform
    # cross-correlation operations with input X. All of the results are
    # stacked together
    return d2l.stack([corr2d_multi_in(X, k) for k in K], 0)
# %%
K = d2l.stack((K, K + 1, K + 2), 0)
K.shape
# %%
corr2d_multi_in_out(X, K)
# %%
def corr2d_multi_in_out_1x1(X, K):
    c_i, h, w = X.shape
    c_o = K.shape[0]
    X = d2l.reshape(X, (c_i, h * w))
    K = d2l.reshape(K, (c_o, c_i))
    # Matrix multiplication in the fully connected layer
    Y = d2l.matmul(K, X)
    return d2l.reshape(Y, (c_o, h, w))
# %%
X = d2l.normal(0, 1, (3, 3, 3))
K = d2l.normal(0, 1, (2, 3, 1, 1))
# %% realcode-load: X K
Y1 = corr2d_multi_in_out_1x1(X, K)
Y2 = corr2d_multi_in_out(X, K)
assert float(d2l.reduce_sum(d2l.abs(Y1 - Y2))) < 1e-6
