# realcode: phlippe/uvadlc_notebooks @ 0da8037c7abc32f478ff6142acceb72dbcf088ee
# realcode: https://github.com/phlippe/uvadlc_notebooks/blob/0da8037c7abc32f478ff6142acceb72dbcf088ee/docs/tutorial_notebooks/tutorial2/Introduction_to_PyTorch.ipynb
# realcode: kept as written except for these adaptations:
#   - the code cells up to the evaluation (cell 111), one after the other, with the plotting imports and plots (matplotlib, seaborn, IPython; visualize_samples, visualize_classification) left out, as are the TensorBoard cells after it
#   - cell 57 (the CPU/GPU timing of a 5000x5000 matmul with CUDA events) left out; `torch.save(state_dict, "our_model.tar")` / `torch.load("our_model.tar")` (cells 103, 105) left out: the new model loads the state dict in memory
#   - `from tqdm.notebook import tqdm` -> `from tqdm import tqdm` (the notebook widget needs ipywidgets); the training set has 128 points instead of 2500 (one shuffled batch), the test set 300 instead of 500; the XOR datasets' points (torch.randint and torch.randn) are copied in from PyTorch at load markers
# realcode-output: W h grad_x model.* new_model.* acc
# %% realcode: cell 2 (plotting imports left out)
## Standard libraries
import os
import math
import numpy as np
import time

## Progress bar
from tqdm import tqdm  # realcode: from tqdm.notebook import tqdm
# %% realcode: cell 4
import torch
print("Using torch", torch.__version__)
# %% realcode: cell 6
torch.manual_seed(42) # Setting the seed
# %% realcode: cell 8
x = torch.Tensor(2, 3, 4)
print(x)
# %% realcode: cell 10
# Create a tensor from a (nested) list
x = torch.Tensor([[1, 2], [3, 4]])
print(x)
# %% realcode: cell 11
# Create a tensor with random values between 0 and 1 with the shape [2, 3, 4]
x = torch.rand(2, 3, 4)
print(x)
# %% realcode: cell 13
shape = x.shape
print("Shape:", x.shape)

size = x.size()
print("Size:", size)

dim1, dim2, dim3 = x.size()
print("Size:", dim1, dim2, dim3)
# %% realcode: cell 15
np_arr = np.array([[1, 2], [3, 4]])
tensor = torch.from_numpy(np_arr)

print("Numpy array:", np_arr)
print("PyTorch tensor:", tensor)
# %% realcode: cell 17
tensor = torch.arange(4)
np_arr = tensor.numpy()

print("PyTorch tensor:", tensor)
print("Numpy array:", np_arr)
# %% realcode: cell 20
x1 = torch.rand(2, 3)
x2 = torch.rand(2, 3)
y = x1 + x2

print("X1", x1)
print("X2", x2)
print("Y", y)
# %% realcode: cell 22
x1 = torch.rand(2, 3)
x2 = torch.rand(2, 3)
print("X1 (before)", x1)
print("X2 (before)", x2)

x2.add_(x1)
print("X1 (after)", x1)
print("X2 (after)", x2)
# %% realcode: cell 24
x = torch.arange(6)
print("X", x)
# %% realcode: cell 25
x = x.view(2, 3)
print("X", x)
# %% realcode: cell 26
x = x.permute(1, 0) # Swapping dimension 0 and 1
print("X", x)
# %% realcode: cell 28
x = torch.arange(6)
x = x.view(2, 3)
print("X", x)
# %% realcode: cell 29
W = torch.arange(9).view(3, 3) # We can also stack multiple operations in a single line
print("W", W)
# %% realcode: cell 30
h = torch.matmul(x, W) # Verify the result by calculating it by hand too!
print("h", h)
# %% realcode: cell 32
x = torch.arange(12).view(3, 4)
print("X", x)
# %% realcode: cell 33
print(x[:, 1])   # Second column
# %% realcode: cell 34
print(x[0])      # First row
# %% realcode: cell 35
print(x[:2, -1]) # First two rows, last column
# %% realcode: cell 36
print(x[1:3, :]) # Middle two rows
# %% realcode: cell 38
x = torch.ones((3,))
print(x.requires_grad)
# %% realcode: cell 40
x.requires_grad_(True)
print(x.requires_grad)
# %% realcode: cell 42
x = torch.arange(3, dtype=torch.float32, requires_grad=True) # Only float tensors can have gradients
print("X", x)
# %% realcode: cell 44
a = x + 2
b = a ** 2
c = b + 3
y = c.mean()
print("Y", y)
# %% realcode: cell 46
y.backward()
# %% realcode: cell 48
print(x.grad)
grad_x = x.grad  # realcode: kept for comparison
# %% realcode: cell 51
gpu_avail = torch.cuda.is_available()
print(f"Is the GPU available? {gpu_avail}")
# %% realcode: cell 53
device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
print("Device", device)
# %% realcode: cell 55
x = torch.zeros(2, 3)
x = x.to(device)
print("X", x)
# %% realcode: cell 59
# GPU operations have a separate seed we also want to set
if torch.cuda.is_available():
    torch.cuda.manual_seed(42)
    torch.cuda.manual_seed_all(42)

# Additionally, some operations on a GPU are implemented stochastic for efficiency
# We want to ensure that all operations are deterministic on GPU (if used) for reproducibility
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
# %% realcode: cell 62
import torch.nn as nn
# %% realcode: cell 64
import torch.nn.functional as F
# %% realcode: cell 66
class MyModule(nn.Module):

    def __init__(self):
        super().__init__()
        # Some init for my module

    def forward(self, x):
        # Function for performing the calculation of the module.
        pass
# %% realcode: cell 68
class SimpleClassifier(nn.Module):

    def __init__(self, num_inputs, num_hidden, num_outputs):
        super().__init__()
        # Initialize the modules we need to build the network
        self.linear1 = nn.Linear(num_inputs, num_hidden)
        self.act_fn = nn.Tanh()
        self.linear2 = nn.Linear(num_hidden, num_outputs)

    def forward(self, x):
        # Perform the calculation of the model to determine the prediction
        x = self.linear1(x)
        x = self.act_fn(x)
        x = self.linear2(x)
        return x
# %% realcode: cell 70
model = SimpleClassifier(num_inputs=2, num_hidden=4, num_outputs=1)
# Printing a module shows all its submodules
print(model)
# %% realcode: cell 72
for name, param in model.named_parameters():
    print(f"Parameter {name}, shape {param.shape}")
# %% realcode: cell 75
import torch.utils.data as data
# %% realcode: cell 78
class XORDataset(data.Dataset):

    def __init__(self, size, std=0.1):
        """
        Inputs:
            size - Number of data points we want to generate
            std - Standard deviation of the noise (see generate_continuous_xor function)
        """
        super().__init__()
        self.size = size
        self.std = std
        self.generate_continuous_xor()

    def generate_continuous_xor(self):
        # Each data point in the XOR dataset has two variables, x and y, that can be either 0 or 1
        # The label is their XOR combination, i.e. 1 if only x or only y is 1 while the other is 0.
        # If x=y, the label is 0.
        data = torch.randint(low=0, high=2, size=(self.size, 2), dtype=torch.float32)
        label = (data.sum(dim=1) == 1).to(torch.long)
        # To make it slightly more challenging, we add a bit of gaussian noise to the data points.
        data += self.std * torch.randn(data.shape)

        self.data = data
        self.label = label

    def __len__(self):
        # Number of data point we have. Alternatively self.data.shape[0], or self.label.shape[0]
        return self.size

    def __getitem__(self, idx):
        # Return the idx-th data point of the dataset
        # If we have multiple things to return (data point and label), we can return them as tuple
        data_point = self.data[idx]
        data_label = self.label[idx]
        return data_point, data_label
# %% realcode-load: model
# %% realcode: cell 80
dataset = XORDataset(size=200)
# %% realcode-load: dataset.data dataset.label
print("Size of dataset:", len(dataset))
print("Data point 0:", dataset[0])
# %% realcode: cell 85
data_loader = data.DataLoader(dataset, batch_size=8, shuffle=True)
# %% realcode: cell 86
# next(iter(...)) catches the first batch of the data loader
# If shuffle is True, this will return a different batch every time we run this cell
# For iterating over the whole dataset, we can simple use "for batch in data_loader: ..."
data_inputs, data_labels = next(iter(data_loader))

# The shape of the outputs are [batch_size, d_1,...,d_N] where d_1,...,d_N are the
# dimensions of the data point returned from the dataset class
print("Data inputs", data_inputs.shape, "\n", data_inputs)
print("Data labels", data_labels.shape, "\n", data_labels)
# %% realcode: cell 89
loss_module = nn.BCEWithLogitsLoss()
# %% realcode: cell 91
# Input to the optimizer are the parameters of the model: model.parameters()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
# %% realcode: cell 94
train_dataset = XORDataset(size=128)  # realcode: size=2500
# %% realcode-load: train_dataset.data train_dataset.label
train_data_loader = data.DataLoader(train_dataset, batch_size=128, shuffle=True)
# %% realcode: cell 96
# Push model to device. Has to be only done once
model.to(device)
# %% realcode: cell 98
def train_model(model, optimizer, data_loader, loss_module, num_epochs=100):
    # Set model to train mode
    model.train()

    # Training loop
    for epoch in tqdm(range(num_epochs)):
        for data_inputs, data_labels in data_loader:

            ## Step 1: Move input data to device (only strictly necessary if we use GPU)
            data_inputs = data_inputs.to(device)
            data_labels = data_labels.to(device)

            ## Step 2: Run the model on the input data
            preds = model(data_inputs)
            preds = preds.squeeze(dim=1) # Output is [Batch size, 1], but we want [Batch size]

            ## Step 3: Calculate the loss
            loss = loss_module(preds, data_labels.float())

            ## Step 4: Perform backpropagation
            # Before calculating the gradients, we need to ensure that they are all zero.
            # The gradients would not be overwritten, but actually added to the existing ones.
            optimizer.zero_grad()
            # Perform backpropagation
            loss.backward()

            ## Step 5: Update the parameters
            optimizer.step()
# %% realcode: cell 99
train_model(model, optimizer, train_data_loader, loss_module)
# %% realcode: cell 101
state_dict = model.state_dict()
print(state_dict)
# %% realcode: cell 105
# Load state dict from the disk (make sure it is the same name as above)
pass  # realcode: state_dict = torch.load("our_model.tar"), the state dict in memory

# Create a new model and load the state
new_model = SimpleClassifier(num_inputs=2, num_hidden=4, num_outputs=1)
new_model.load_state_dict(state_dict)

# Verify that the parameters are the same
print("Original model\n", model.state_dict())
print("\nLoaded model\n", new_model.state_dict())
# %% realcode: cell 108
test_dataset = XORDataset(size=300)  # realcode: size=500
# %% realcode-load: test_dataset.data test_dataset.label
# drop_last -> Don't drop the last batch although it is smaller than 128
test_data_loader = data.DataLoader(test_dataset, batch_size=128, shuffle=False, drop_last=False)
# %% realcode: cell 110
def eval_model(model, data_loader):
    model.eval() # Set model to eval mode
    true_preds, num_preds = 0., 0.

    with torch.no_grad(): # Deactivate gradients for the following code
        for data_inputs, data_labels in data_loader:

            # Determine prediction of model on dev set
            data_inputs, data_labels = data_inputs.to(device), data_labels.to(device)
            preds = model(data_inputs)
            preds = preds.squeeze(dim=1)
            preds = torch.sigmoid(preds) # Sigmoid to map predictions between 0 and 1
            pred_labels = (preds >= 0.5).long() # Binarize predictions to 0 and 1

            # Keep records of predictions for the accuracy metric (true_preds=TP+TN, num_preds=TP+TN+FP+FN)
            true_preds += (pred_labels == data_labels).sum()
            num_preds += data_labels.shape[0]

    acc = true_preds / num_preds
    print(f"Accuracy of the model: {100.0*acc:4.2f}%")
    return acc  # realcode: added, for comparison
# %% realcode: cell 111
acc = eval_model(model, test_data_loader)
