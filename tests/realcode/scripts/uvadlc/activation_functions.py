# realcode: phlippe/uvadlc_notebooks @ 0da8037c7abc32f478ff6142acceb72dbcf088ee
# realcode: https://github.com/phlippe/uvadlc_notebooks/blob/0da8037c7abc32f478ff6142acceb72dbcf088ee/docs/tutorial_notebooks/tutorial3/Activation_Functions.ipynb
# realcode: kept as written except for these adaptations:
#   - the cells that compute, one after the other: the imports (plotting, IPython and seaborn left out), the seeding, the activation functions and get_grads (cells 10-18), cell 20's vis_act_fn without its plot (it returns y and the gradients), BaseNetwork (cell 25), test_model (cell 36), measure_number_dead_neurons (cell 47) and cell 49
#   - `from tqdm.notebook import tqdm` -> `from tqdm import tqdm` (the notebook widget needs ipywidgets)
#   - the pretrained-model download (cell 7), the FashionMNIST loaders (cell 29: torchvision's download) and the checkpoint files (save_model/load_model, cell 27) left out: the images are a synthetic set of 32 FashionMNIST-shaped 1x8x8 images (64 pixels instead of 784) passed as inputs, in one batch
#   - BaseNetwork(act_fn=...) -> BaseNetwork(act_fn=..., input_size=64, hidden_sizes=[32, 32, 16]) (784-512-256-256-128 per activation function is 600k weights to record); then a driver cell built from train_model (cells 36 and 38): each activation function's network trains for 2 epochs with its SGD and cross-entropy on the synthetic set, the networks built before the loop so PyTorch's initial weights can be copied in
# realcode-input: images = randn(32, 1, 8, 8)
# realcode-input: targets = randint(0, 10, 32)
# realcode-output: act_ys act_grads test_accs nets.0.* nets.1.* nets.2.* nets.3.* nets.4.* nets.5.*
# %% realcode: cell 3 (plotting imports left out)
## Standard libraries
import os
import json
import math
import numpy as np 


## Progress bar
from tqdm import tqdm  # realcode: from tqdm.notebook import tqdm (a Jupyter widget)

## PyTorch
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data as data
import torch.optim as optim
# %% realcode: cell 5
# Path to the folder where the datasets are/should be downloaded (e.g. MNIST)
DATASET_PATH = "../data"
# Path to the folder where the pretrained models are saved
CHECKPOINT_PATH = "../saved_models/tutorial3"

# Function for setting the seed
def set_seed(seed):
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available(): # GPU operation have separate seed
        torch.cuda.manual_seed(seed)
        torch.cuda.manual_seed_all(seed)
set_seed(42)

# Additionally, some operations on a GPU are implemented stochastic for efficiency
# We want to ensure that all operations are deterministic on GPU (if used) for reproducibility
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False

# Fetching the device that will be used throughout this notebook
device = torch.device("cpu") if not torch.cuda.is_available() else torch.device("cuda:0")
print("Using device", device)
# %% realcode: cell 10
class ActivationFunction(nn.Module):
    
    def __init__(self):
        super().__init__()
        self.name = self.__class__.__name__
        self.config = {"name": self.name}
# %% realcode: cell 12
##############################

class Sigmoid(ActivationFunction):
    
    def forward(self, x):
        return 1 / (1 + torch.exp(-x))

##############################   
    
class Tanh(ActivationFunction):
    
    def forward(self, x):
        x_exp, neg_x_exp = torch.exp(x), torch.exp(-x)
        return (x_exp - neg_x_exp) / (x_exp + neg_x_exp)
    
##############################
# %% realcode: cell 14
##############################

class ReLU(ActivationFunction):
    
    def forward(self, x):
        return x * (x > 0).float()

##############################

class LeakyReLU(ActivationFunction):
    
    def __init__(self, alpha=0.1):
        super().__init__()
        self.config["alpha"] = alpha
        
    def forward(self, x):
        return torch.where(x > 0, x, self.config["alpha"] * x)

##############################
    
class ELU(ActivationFunction):
    
    def forward(self, x):
        return torch.where(x > 0, x, torch.exp(x)-1)

##############################
    
class Swish(ActivationFunction):
    
    def forward(self, x):
        return x * torch.sigmoid(x)
    
##############################
# %% realcode: cell 16
act_fn_by_name = {
    "sigmoid": Sigmoid,
    "tanh": Tanh,
    "relu": ReLU,
    "leakyrelu": LeakyReLU,
    "elu": ELU,
    "swish": Swish
}
# %% realcode: cell 18
def get_grads(act_fn, x):
    """
    Computes the gradients of an activation function at specified positions.
    
    Inputs:
        act_fn - An object of the class "ActivationFunction" with an implemented forward pass.
        x - 1D input tensor. 
    Output:
        A tensor with the same size of x containing the gradients of act_fn at x.
    """
    x = x.clone().requires_grad_() # Mark the input as tensor for which we want to store gradients
    out = act_fn(x)
    out.sum().backward() # Summing results in an equal gradient flow to each element in x
    return x.grad # Accessing the gradients of x by "x.grad"
# %% realcode: cell 20 (the plot left out)
def vis_act_fn(act_fn, ax, x):
    # Run activation function
    y = act_fn(x)
    y_grads = get_grads(act_fn, x)
    # Push x, y and gradients back to cpu for plotting
    x, y, y_grads = x.cpu().numpy(), y.cpu().numpy(), y_grads.cpu().numpy()
    return y, y_grads  # realcode: the plot left out

# Add activation functions if wanted
act_fns = [act_fn() for act_fn in act_fn_by_name.values()]
x = torch.linspace(-5, 5, 1000) # Range on which we want to visualize the activation functions
act_ys, act_grads = [], []
for i, act_fn in enumerate(act_fns):
    y, y_grads = vis_act_fn(act_fn, None, x)  # realcode: vis_act_fn(act_fn, ax[divmod(i,2)], x), the plot left out
    act_ys.append(torch.from_numpy(y))
    act_grads.append(torch.from_numpy(y_grads))
act_ys, act_grads = torch.stack(act_ys), torch.stack(act_grads)
# %% realcode: cell 25
class BaseNetwork(nn.Module):
    
    def __init__(self, act_fn, input_size=784, num_classes=10, hidden_sizes=[512, 256, 256, 128]):
        """
        Inputs:
            act_fn - Object of the activation function that should be used as non-linearity in the network.
            input_size - Size of the input images in pixels
            num_classes - Number of classes we want to predict
            hidden_sizes - A list of integers specifying the hidden layer sizes in the NN
        """
        super().__init__()
        
        # Create the network based on the specified hidden sizes
        layers = []
        layer_sizes = [input_size] + hidden_sizes
        for layer_index in range(1, len(layer_sizes)):
            layers += [nn.Linear(layer_sizes[layer_index-1], layer_sizes[layer_index]),
                       act_fn]
        layers += [nn.Linear(layer_sizes[-1], num_classes)]
        self.layers = nn.Sequential(*layers) # nn.Sequential summarizes a list of modules into a single module, applying them in sequence
        
        # We store all hyperparameters in a dictionary for saving and loading of the model
        self.config = {"act_fn": act_fn.config, "input_size": input_size, "num_classes": num_classes, "hidden_sizes": hidden_sizes} 
        
    def forward(self, x):
        x = x.view(x.size(0), -1) # Reshape images to a flat vector
        out = self.layers(x)
        return out    
# %% realcode: cell 36 (test_model; train_model's loop is the driver below)
def test_model(net, data_loader):
    """
    Test a model on a specified dataset.
    
    Inputs:
        net - Trained model of type BaseNetwork
        data_loader - DataLoader object of the dataset to test on (validation or test)
    """
    net.eval()
    true_preds, count = 0., 0
    for imgs, labels in data_loader:
        imgs, labels = imgs.to(device), labels.to(device)
        with torch.no_grad():
            preds = net(imgs).argmax(dim=-1)
            true_preds += (preds == labels).sum().item()
            count += labels.shape[0]
    test_acc = true_preds / count
    return test_acc 
# %% realcode: cell 29 (synthetic data) and a driver built from cells 36 and 38
train_set = data.TensorDataset(images, targets)   # realcode: FashionMNIST(root=DATASET_PATH, train=True, transform=transform, download=True)
val_loader = data.DataLoader(train_set, batch_size=1024, shuffle=False, drop_last=False)
train_loader = data.DataLoader(train_set, batch_size=1024, shuffle=True, drop_last=False)
nets = []
for act_fn_name in act_fn_by_name:
    set_seed(42)
    act_fn = act_fn_by_name[act_fn_name]()
    nets.append(BaseNetwork(act_fn=act_fn, input_size=64, hidden_sizes=[32, 32, 16]).to(device))  # realcode: BaseNetwork(act_fn=act_fn)
# %% realcode-load: nets
test_accs = []
for act_fn_name, net in zip(act_fn_by_name, nets):
    print(f"Training BaseNetwork with {act_fn_name} activation...")
    # train_model(net, f"FashionMNIST_{act_fn_name}", overwrite=False), without its checkpoint files and plot:
    max_epochs, batch_size = 2, 256
    optimizer = optim.SGD(net.parameters(), lr=1e-2, momentum=0.9) # Default parameters, feel free to change
    loss_module = nn.CrossEntropyLoss() 
    train_loader_local = data.DataLoader(train_set, batch_size=batch_size, shuffle=True, drop_last=False, pin_memory=True)
    val_scores = []
    for epoch in range(max_epochs):
        net.train()
        true_preds, count = 0., 0
        for imgs, labels in train_loader_local:
            imgs, labels = imgs.to(device), labels.to(device) # To GPU
            optimizer.zero_grad() # Zero-grad can be placed anywhere before "loss.backward()"
            preds = net(imgs)
            loss = loss_module(preds, labels)
            loss.backward()
            optimizer.step()
            # Record statistics during training
            true_preds += (preds.argmax(dim=-1) == labels).sum()
            count += labels.shape[0]
        train_acc = true_preds / count
        val_acc = test_model(net, val_loader)
        val_scores.append(val_acc)
        print(f"[Epoch {epoch+1:2d}] Training accuracy: {train_acc*100.0:05.2f}%, Validation accuracy: {val_acc*100.0:05.2f}%")
    test_acc = test_model(net, val_loader)
    print((f" Test accuracy: {test_acc*100.0:4.2f}% ").center(50, "=")+"\n")
    test_accs.append(test_acc)
test_accs = torch.tensor(test_accs)
# %% realcode: cell 47
def measure_number_dead_neurons(net):

    # For each neuron, we create a boolean variable initially set to 1. If it has an activation unequals 0 at any time,
    # we set this variable to 0. After running through the whole training set, only dead neurons will have a 1.
    neurons_dead = [
        torch.ones(layer.weight.shape[0], device=device, dtype=torch.bool) for layer in net.layers[:-1] if isinstance(layer, nn.Linear)
    ] # Same shapes as hidden size in BaseNetwork

    net.eval()
    with torch.no_grad():
        for imgs, labels in tqdm(train_loader, leave=False): # Run through whole training set
            layer_index = 0
            imgs = imgs.to(device)
            imgs = imgs.view(imgs.size(0), -1)
            for layer in net.layers[:-1]:
                imgs = layer(imgs)
                if isinstance(layer, ActivationFunction):
                    # Are all activations == 0 in the batch, and we did not record the opposite in the last batches?
                    neurons_dead[layer_index] = torch.logical_and(neurons_dead[layer_index], (imgs == 0).all(dim=0))
                    layer_index += 1
    number_neurons_dead = [t.sum().item() for t in neurons_dead]
    print("Number of dead neurons:", number_neurons_dead)
    print("In percentage:", ", ".join([f"{(100.0 * num_dead / tens.shape[0]):4.2f}%" for tens, num_dead in zip(neurons_dead, number_neurons_dead)]))
# %% realcode: cell 49
set_seed(42)
net_relu = BaseNetwork(act_fn=ReLU(), input_size=64, hidden_sizes=[32, 32, 16]).to(device)  # realcode: BaseNetwork(act_fn=ReLU())
# %% realcode-load: net_relu
measure_number_dead_neurons(net_relu)
