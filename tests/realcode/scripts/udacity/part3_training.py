# realcode: udacity/deep-learning-v2-pytorch @ c9404fc86181fc3f0906b368697268257f348535
# realcode: https://github.com/udacity/deep-learning-v2-pytorch/blob/c9404fc86181fc3f0906b368697268257f348535/intro-to-pytorch/Part%203%20-%20Training%20Neural%20Networks%20%28Solution%29.ipynb
# realcode: kept as written except for these adaptations:
#   - the notebook's code cells in order, each after a '# %%' line
#   - `from six.moves import urllib / opener = urllib.request.build_opener() / opener.addheaders = [('User-agent', 'Mozilla/5.0')] / urllib.request.install_opener(o...` -> `pass  # realcode-dropped: from six.moves import urllib; opener = urllib.request.build_opener(); opener.addheaders = [...]; urllib.request.install_opener(opener)`: drop the download workaround
#   - `from torchvision import datasets, transforms` -> `pass  # realcode-dropped: from torchvision import datasets, transforms`: the dataset download (torchvision) is replaced by synthetic inputs
#   - `transform = transforms.Compose([transforms.ToTensor(), /                                 transforms.Normalize((0.5,), (0.5,)), /                             ...` -> `pass  # realcode-dropped: transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])`: the dataset download (torchvision) is replaced by synthetic inputs
#   - `trainset = datasets.MNIST('~/.pytorch/MNIST_data/', download=True, train=True, transform=transform)` -> `trainset = torch.utils.data.TensorDataset(mnist_images, mnist_labels)  # realcode: datasets.MNIST('~/.pytorch/MNIST_data/', download=True, train=True, transf...`: MNIST replaced by 64 synthetic normalised images and labels (one batch of 64, so shuffle=True does not change the loss)
#   - `nn.Linear(64, 10))` -> `nn.Linear(64, 10)) / # %% realcode-load: model`: cell marker: PyTorch's initial weights are copied in
#   - a `# %% realcode-load: model` line after each of the three later `model = nn.Sequential(...)` constructions (cells 3, 10, 15): cell markers, PyTorch's initial weights are copied in
#   - `x = torch.randn(2,2, requires_grad=True)` -> `x = torch.randn(2,2, requires_grad=True) / # %% realcode-load: x`: cell marker: PyTorch's torch.randn draw is copied in
#   - `%matplotlib inline` -> `pass  # realcode-dropped: %matplotlib inline`: drop plotting
#   - `import helper` -> `pass  # realcode-dropped: import helper`: drop plotting (helper.py only draws)
#   - `helper.view_classify(img.view(1, 28, 28), ps)` -> `pass  # realcode-dropped: helper.view_classify(img.view(1, 28, 28), ps)`: drop plotting
# realcode-input: mnist_images = rand(64, 1, 28, 28) * 2 - 1
# realcode-input: mnist_labels = randint(0, 10, 64)
# realcode-output: x y z loss logits logps output running_loss ps model.*
# realcode-shape-only: ps logps logits output (rows of a shuffled batch: which image comes where is drawn from the session's generator, not PyTorch's; the loss, order-free, is compared)
# %% (notebook cell 0)
# The MNIST datasets are hosted on yann.lecun.com that has moved under CloudFlare protection
# Run this script to enable the datasets download
# Reference: https://github.com/pytorch/vision/issues/1938

pass  # realcode-dropped: from six.moves import urllib; opener = urllib.request.build_opener(); opener.addheaders = [...]; urllib.request.install_opener(opener)
# %% (notebook cell 1)
import torch
from torch import nn
import torch.nn.functional as F
pass  # realcode-dropped: from torchvision import datasets, transforms

# Define a transform to normalize the data
pass  # realcode-dropped: transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
# Download and load the training data
trainset = torch.utils.data.TensorDataset(mnist_images, mnist_labels)  # realcode: datasets.MNIST('~/.pytorch/MNIST_data/', download=True, train=True, transform=transform)
trainloader = torch.utils.data.DataLoader(trainset, batch_size=64, shuffle=True)
# %% (notebook cell 2)
# Build a feed-forward network
model = nn.Sequential(nn.Linear(784, 128),
                      nn.ReLU(),
                      nn.Linear(128, 64),
                      nn.ReLU(),
                      nn.Linear(64, 10))
# %% realcode-load: model

# Define the loss
criterion = nn.CrossEntropyLoss()

# Get our data
images, labels = next(iter(trainloader))
# Flatten images
images = images.view(images.shape[0], -1)

# Forward pass, get our logits
logits = model(images)
# Calculate the loss with the logits and the labels
loss = criterion(logits, labels)

print(loss)
# %% (notebook cell 3)
## Solution

# Build a feed-forward network
model = nn.Sequential(nn.Linear(784, 128),
                      nn.ReLU(),
                      nn.Linear(128, 64),
                      nn.ReLU(),
                      nn.Linear(64, 10),
                      nn.LogSoftmax(dim=1))
# %% realcode-load: model

# Define the loss
criterion = nn.NLLLoss()

# Get our data
images, labels = next(iter(trainloader))
# Flatten images
images = images.view(images.shape[0], -1)

# Forward pass, get our log-probabilities
logps = model(images)
# Calculate the loss with the logps and the labels
loss = criterion(logps, labels)

print(loss)
# %% (notebook cell 4)
x = torch.randn(2,2, requires_grad=True)
# %% realcode-load: x
print(x)
# %% (notebook cell 5)
y = x**2
print(y)
# %% (notebook cell 6)
## grad_fn shows the function that generated this variable
print(y.grad_fn)
# %% (notebook cell 7)
z = y.mean()
print(z)
# %% (notebook cell 8)
print(x.grad)
# %% (notebook cell 9)
z.backward()
print(x.grad)
print(x/2)
# %% (notebook cell 10)
# Build a feed-forward network
model = nn.Sequential(nn.Linear(784, 128),
                      nn.ReLU(),
                      nn.Linear(128, 64),
                      nn.ReLU(),
                      nn.Linear(64, 10),
                      nn.LogSoftmax(dim=1))
# %% realcode-load: model

criterion = nn.NLLLoss()
images, labels = next(iter(trainloader))
images = images.view(images.shape[0], -1)

logps = model(images)
loss = criterion(logps, labels)
# %% (notebook cell 11)
print('Before backward pass: \n', model[0].weight.grad)

loss.backward()

print('After backward pass: \n', model[0].weight.grad)
# %% (notebook cell 12)
from torch import optim

# Optimizers require the parameters to optimize and a learning rate
optimizer = optim.SGD(model.parameters(), lr=0.01)
# %% (notebook cell 13)
print('Initial weights - ', model[0].weight)

images, labels = next(iter(trainloader))
images.resize_(64, 784)

# Clear the gradients, do this because gradients are accumulated
optimizer.zero_grad()

# Forward pass, then backward pass, then update weights
output = model(images)
loss = criterion(output, labels)
loss.backward()
print('Gradient -', model[0].weight.grad)
# %% (notebook cell 14)
# Take an update step and few the new weights
optimizer.step()
print('Updated weights - ', model[0].weight)
# %% (notebook cell 15)
model = nn.Sequential(nn.Linear(784, 128),
                      nn.ReLU(),
                      nn.Linear(128, 64),
                      nn.ReLU(),
                      nn.Linear(64, 10),
                      nn.LogSoftmax(dim=1))
# %% realcode-load: model

criterion = nn.NLLLoss()
optimizer = optim.SGD(model.parameters(), lr=0.003)

epochs = 5
for e in range(epochs):
    running_loss = 0
    for images, labels in trainloader:
        # Flatten MNIST images into a 784 long vector
        images = images.view(images.shape[0], -1)
    
        # TODO: Training pass
        optimizer.zero_grad()
        
        output = model(images)
        loss = criterion(output, labels)
        loss.backward()
        optimizer.step()
        
        running_loss += loss.item()
    else:
        print(f"Training loss: {running_loss/len(trainloader)}")
# %% (notebook cell 16)
pass  # realcode-dropped: %matplotlib inline
pass  # realcode-dropped: import helper

images, labels = next(iter(trainloader))

img = images[0].view(1, 784)
# Turn off gradients to speed up this part
with torch.no_grad():
    logps = model(img)

# Output of the network are log-probabilities, need to take exponential for probabilities
ps = torch.exp(logps)
pass  # realcode-dropped: helper.view_classify(img.view(1, 28, 28), ps)
