# realcode: pytorch/tutorials @ c53e7d4efc0e39e455c531d21ec7db28ba220214
# realcode: https://github.com/pytorch/tutorials/blob/c53e7d4efc0e39e455c531d21ec7db28ba220214/beginner_source/basics/buildmodel_tutorial.py
# realcode: kept as written except for these adaptations:
#   - the module docstring and the prose comment blocks (the tutorial's text, rendered by sphinx-gallery) shortened; every code line kept as written
#   - dropped (download): `from torchvision import datasets, transforms` (imported, not used)
#   - `nn.Linear(28*28, 512), / nn.ReLU(), / nn.Linear(512, 512), / nn.ReLU(), / nn.Linear(512, 10),` -> the same with 64 for 512: shrink the hidden layers
#   - `print(model)` -> the same / `# %% realcode-load: model`: cell marker: PyTorch's initial weights are copied in
#   - `X = torch.rand(1, 28, 28, device=device)`, `input_image = torch.rand(3,28,28)` (twice), `layer1 = nn.Linear(in_features=28*28, out_features=20)`, `seq_modules = nn.Sequential(...)`: each followed by a cell marker copying in PyTorch's random draws (X, input_image, layer1, seq_modules)
# realcode-output: X y_pred flat_image hidden1 logits pred_probab model.* seq_modules.*
import os
import torch
from torch import nn
from torch.utils.data import DataLoader
pass  # realcode-dropped: from torchvision import datasets, transforms


#############################################
# Get Device for Training
# -----------------------
# (the tutorial's text, shortened)

device = (
    "cuda"
    if torch.cuda.is_available()
    else "mps"
    if torch.backends.mps.is_available()
    else "cpu"
)
print(f"Using {device} device")

##############################################
# Define the Class
# -------------------------
# (the tutorial's text, shortened)

class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28*28, 64),
            nn.ReLU(),
            nn.Linear(64, 64),
            nn.ReLU(),
            nn.Linear(64, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits

##############################################
# We create an instance of ``NeuralNetwork``, and move it to the ``device``, and print
# its structure.

model = NeuralNetwork().to(device)
print(model)
# %% realcode-load: model


##############################################
# (the tutorial's text, shortened)

X = torch.rand(1, 28, 28, device=device)
# %% realcode-load: X
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")


##############################################
# Model Layers
# -------------------------
# (the tutorial's text, shortened)

input_image = torch.rand(3,28,28)
# %% realcode-load: input_image
print(input_image.size())

##################################################
# nn.Flatten
# ^^^^^^^^^^^^^^^^^^^^^^

flatten = nn.Flatten()
flat_image = flatten(input_image)
print(flat_image.size())

##############################################
# nn.Linear
# ^^^^^^^^^^^^^^^^^^^^^^
#
layer1 = nn.Linear(in_features=28*28, out_features=20)
# %% realcode-load: layer1
hidden1 = layer1(flat_image)
print(hidden1.size())


#################################################
# nn.ReLU
# ^^^^^^^^^^^^^^^^^^^^^^

print(f"Before ReLU: {hidden1}\n\n")
hidden1 = nn.ReLU()(hidden1)
print(f"After ReLU: {hidden1}")



#################################################
# nn.Sequential
# ^^^^^^^^^^^^^^^^^^^^^^

seq_modules = nn.Sequential(
    flatten,
    layer1,
    nn.ReLU(),
    nn.Linear(20, 10)
)
# %% realcode-load: seq_modules
input_image = torch.rand(3,28,28)
# %% realcode-load: input_image
logits = seq_modules(input_image)

################################################################
# nn.Softmax
# ^^^^^^^^^^^^^^^^^^^^^^

softmax = nn.Softmax(dim=1)
pred_probab = softmax(logits)


#################################################
# Model Parameters
# -------------------------
# (the tutorial's text, shortened)


print(f"Model structure: {model}\n\n")

for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \n")
