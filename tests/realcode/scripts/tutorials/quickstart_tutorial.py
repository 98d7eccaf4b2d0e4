# realcode: pytorch/tutorials @ afcd669d56554c2ef46f2da92edbfaf8c54043ec
# realcode: https://github.com/pytorch/tutorials/blob/afcd669d56554c2ef46f2da92edbfaf8c54043ec/beginner_source/basics/quickstart_tutorial.py
# realcode: kept as written except for these adaptations:
#   - the module docstring and the prose comment blocks (the tutorial's text, rendered by sphinx-gallery) shortened; every code line kept as written
#   - dropped (download): `from torchvision import datasets`, `from torchvision.transforms import ToTensor`
#   - `training_data = datasets.FashionMNIST(root="data", train=True, download=True, transform=ToTensor(),)` -> `training_data = list(zip(train_images, train_labels))` and the same for `test_data`: replace the FashionMNIST download with synthetic images and labels passed as inputs (64 each: one batch)
#   - `nn.Linear(28*28, 512), / nn.ReLU(), / nn.Linear(512, 512), / nn.ReLU(), / nn.Linear(512, 10)` -> the same with 64 for 512: shrink the hidden layers
#   - `print(model)` (the first) -> the same / `# %% realcode-load: model`: cell marker: PyTorch's initial weights are copied in
#   - `epochs = 5` -> `epochs = 2`: shrink 5 epochs to 2
#   - `torch.save(model.state_dict(), "model.pth")` -> `saved_state_dict = model.state_dict()  # realcode: torch.save(model.state_dict(), "model.pth")` and `model.load_state_dict(torch.load("model.pth", weights_only=True))` -> `model.load_state_dict(saved_state_dict)  # realcode: ...`: the file round trip kept in memory
# realcode-input: train_images = rand(64, 1, 28, 28)
# realcode-input: train_labels = randint(0, 10, 64)
# realcode-input: test_images = rand(64, 1, 28, 28)
# realcode-input: test_labels = randint(0, 10, 64)
# realcode-output: pred model.*
"""
Quickstart
===================

(the tutorial's text, shortened)
"""

import torch
from torch import nn
from torch.utils.data import DataLoader
pass  # realcode-dropped: from torchvision import datasets
pass  # realcode-dropped: from torchvision.transforms import ToTensor

######################################################################
# (the tutorial's text, shortened)

# Download training data from open datasets.
training_data = list(zip(train_images, train_labels))

# Download test data from open datasets.
test_data = list(zip(test_images, test_labels))

######################################################################
# (the tutorial's text, shortened)

batch_size = 64

# Create data loaders.
train_dataloader = DataLoader(training_data, batch_size=batch_size)
test_dataloader = DataLoader(test_data, batch_size=batch_size)

for X, y in test_dataloader:
    print(f"Shape of X [N, C, H, W]: {X.shape}")
    print(f"Shape of y: {y.shape} {y.dtype}")
    break

################################
# Creating Models
# ------------------
# (the tutorial's text, shortened)

# Get cpu, gpu or mps device for training.
device = (
    "cuda"
    if torch.cuda.is_available()
    else "mps"
    if torch.backends.mps.is_available()
    else "cpu"
)
print(f"Using {device} device")

# Define model
class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28*28, 64),
            nn.ReLU(),
            nn.Linear(64, 64),
            nn.ReLU(),
            nn.Linear(64, 10)
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits

model = NeuralNetwork().to(device)
print(model)
# %% realcode-load: model

#####################################################################
# Optimizing the Model Parameters
# ----------------------------------------
# (the tutorial's text, shortened)

loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)


#######################################################################
# (the tutorial's text, shortened)

def train(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device), y.to(device)

        # Compute prediction error
        pred = model(X)
        loss = loss_fn(pred, y)

        # Backpropagation
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

        if batch % 100 == 0:
            loss, current = loss.item(), (batch + 1) * len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")

##############################################################################
# We also check the model's performance against the test dataset to ensure it is learning.

def test(dataloader, model, loss_fn):
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            X, y = X.to(device), y.to(device)
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")

##############################################################################
# (the tutorial's text, shortened)

epochs = 2
for t in range(epochs):
    print(f"Epoch {t+1}\n-------------------------------")
    train(train_dataloader, model, loss_fn, optimizer)
    test(test_dataloader, model, loss_fn)
print("Done!")

######################################################################
# Saving Models
# -------------
# A common way to save a model is to serialize the internal state dictionary (containing the model parameters).

saved_state_dict = model.state_dict()  # realcode: torch.save(model.state_dict(), "model.pth")
print("Saved PyTorch Model State to model.pth")



######################################################################
# Loading Models
# ----------------------------
#
# The process for loading a model includes re-creating the model structure and loading
# the state dictionary into it.

model = NeuralNetwork().to(device)
model.load_state_dict(saved_state_dict)  # realcode: torch.load("model.pth", weights_only=True)

#############################################################
# This model can now be used to make predictions.

classes = [
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
]

model.eval()
x, y = test_data[0][0], test_data[0][1]
with torch.no_grad():
    x = x.to(device)
    pred = model(x)
    predicted, actual = classes[pred[0].argmax(0)], classes[y]
    print(f'Predicted: "{predicted}", Actual: "{actual}"')
