# realcode: udacity/deep-learning-v2-pytorch @ c9404fc86181fc3f0906b368697268257f348535
# realcode: https://github.com/udacity/deep-learning-v2-pytorch/blob/c9404fc86181fc3f0906b368697268257f348535/intro-to-pytorch/Part%201%20-%20Tensors%20in%20PyTorch%20%28Solution%29.ipynb
# realcode: kept as written except for these adaptations:
#   - the notebook's code cells in order, each after a '# %%' line
#   - `bias = torch.randn((1, 1))` -> `bias = torch.randn((1, 1)) / # %% realcode-load: features weights bias`: cell marker: PyTorch's torch.randn draws are copied in
#   - `B2 = torch.randn((1, n_output))` -> `B2 = torch.randn((1, n_output)) / # %% realcode-load: features W1 W2 B1 B2`: cell marker: PyTorch's torch.randn draws are copied in
# realcode-output: y h output a b
# realcode-shape-only: a b (np.random.rand: a program's NumPy generator is not seeded like the host's)
# %% (notebook cell 0)
# First, import PyTorch
import torch
# %% (notebook cell 1)
def activation(x):
    """ Sigmoid activation function 
    
        Arguments
        ---------
        x: torch.Tensor
    """
    return 1/(1+torch.exp(-x))
# %% (notebook cell 2)
### Generate some data
torch.manual_seed(7) # Set the random seed so things are predictable

# Features are 5 random normal variables
features = torch.randn((1, 5))
# True weights for our data, random normal variables again
weights = torch.randn_like(features)
# and a true bias term
bias = torch.randn((1, 1))
# %% realcode-load: features weights bias
# %% (notebook cell 3)
### Solution

# Now, make our labels from our data and true weights

y = activation(torch.sum(features * weights) + bias)
y = activation((features * weights).sum() + bias)
# %% (notebook cell 4)
## Solution

y = activation(torch.mm(features, weights.view(5,1)) + bias)
# %% (notebook cell 5)
### Generate some data
torch.manual_seed(7) # Set the random seed so things are predictable

# Features are 3 random normal variables
features = torch.randn((1, 3))

# Define the size of each layer in our network
n_input = features.shape[1]     # Number of input units, must match number of input features
n_hidden = 2                    # Number of hidden units 
n_output = 1                    # Number of output units

# Weights for inputs to hidden layer
W1 = torch.randn(n_input, n_hidden)
# Weights for hidden layer to output layer
W2 = torch.randn(n_hidden, n_output)

# and bias terms for hidden and output layers
B1 = torch.randn((1, n_hidden))
B2 = torch.randn((1, n_output))
# %% realcode-load: features W1 W2 B1 B2
# %% (notebook cell 6)
### Solution

h = activation(torch.mm(features, W1) + B1)
output = activation(torch.mm(h, W2) + B2)
print(output)
# %% (notebook cell 7)
import numpy as np
a = np.random.rand(4,3)
a
# %% (notebook cell 8)
b = torch.from_numpy(a)
b
# %% (notebook cell 9)
b.numpy()
# %% (notebook cell 10)
# Multiply PyTorch Tensor by 2, in place
b.mul_(2)
# %% (notebook cell 11)
# Numpy array matches new values from Tensor
a
