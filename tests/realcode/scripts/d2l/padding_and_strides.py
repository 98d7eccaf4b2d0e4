# realcode: d2l-ai/d2l-en @ 23d7a5aecceee57d1292c56e90cce307f183bb0a
# realcode: https://github.com/d2l-ai/d2l-en/blob/23d7a5aecceee57d1292c56e90cce307f183bb0a/chapter_convolutional-neural-networks/padding-and-strides.md
# realcode: kept as written except for these adaptations:
#   - the code cells of the PyTorch tab (and those shared by all tabs), in order, each after a '# %%' line; the d2lbook `%%tab` lines and `if tab.selected(...)` branches for other frameworks left out
#   - the Conv2d layers' random weights are not compared: the cells print shapes
#   - `X = torch.rand(size=(8, 8))` -> `X = torch.rand(size=(8, 8)) / # %% realcode-load: X`: cell marker: PyTorch's random input is copied in
# realcode-output: X
# %%
import torch
from torch import nn
# %%
# We define a helper function to calculate convolutions. It initializes the
# convolutional layer weights and performs corresponding dimensionality
# elevations and reductions on the input and output
def comp_conv2d(conv2d, X):
    # (1, 1) indicates that batch size and the number of channels are both 1
    X = X.reshape((1, 1) + X.shape)
    Y = conv2d(X)
    # Strip the first two dimensions: examples and channels
    return Y.reshape(Y.shape[2:])

# 1 row and column is padded on either side, so a total of 2 rows or columns
# are added
conv2d = nn.LazyConv2d(1, kernel_size=3, padding=1)
X = torch.rand(size=(8, 8))
# %% realcode-load: X
comp_conv2d(conv2d, X).shape
# %%
# We use a convolution kernel with height 5 and width 3. The padding on either
# side of the height and width are 2 and 1, respectively
conv2d = nn.LazyConv2d(1, kernel_size=(5, 3), padding=(2, 1))
comp_conv2d(conv2d, X).shape
# %%
conv2d = nn.LazyConv2d(1, kernel_size=3, padding=1, stride=2)
comp_conv2d(conv2d, X).shape
# %%
conv2d = nn.LazyConv2d(1, kernel_size=(3, 5), padding=(0, 1), stride=(3, 4))
comp_conv2d(conv2d, X).shape
