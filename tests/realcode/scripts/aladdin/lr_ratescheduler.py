# realcode: aladdinpersson/Machine-Learning-Collection @ 066299e9a8645836662ec43f785358ca195d65ad
# realcode: https://github.com/aladdinpersson/Machine-Learning-Collection/blob/066299e9a8645836662ec43f785358ca195d65ad/ML/Pytorch/Basics/pytorch_lr_ratescheduler.py
# realcode: kept as written except for these adaptations:
#   - `import torchvision.datasets as datasets` / `import torchvision.transforms as transforms` -> dropped: torchvision is not used once MNIST is replaced
#   - `train_dataset = datasets.MNIST(root='dataset/', train=True, / transform=transforms.ToTensor(), download=True)` -> `train_dataset = list(zip(train_images, train_labels))`: replace the MNIST download with synthetic images and labels passed as inputs; the images come flattened (128, 784) because the script's check_accuracy feeds its loader's images to the Linear model without the training loop's reshape (with MNIST's (1, 28, 28) images that call raises in PyTorch too)
#   - 128 training images (batch_size): one batch per epoch: the loss and gradients do not depend on the order DataLoader's shuffle picks (it draws from the session's generator, not PyTorch's)
#   - `verbose=True` dropped from ReduceLROnPlateau(...): PyTorch 2.13 no longer accepts the argument (TypeError)
#   - `num_epochs = 100` -> `num_epochs = 12`: shrink 100 epochs to 12 (enough for patience=5 to cut the rate once: the learning rate 0.1 makes the loss stall)
#   - `criterion = nn.CrossEntropyLoss()` -> `# %% realcode-load: model / criterion = nn.CrossEntropyLoss()`: cell marker: PyTorch's initial weights are copied in
# realcode-input: train_images = rand(128, 784)
# realcode-input: train_labels = randint(0, 10, 128)
# realcode-rtol: 1e-3 (Adam at lr 0.1 amplifies float32 rounding: PyTorch's own float32 run of this model differs from its float64 run by 4e-4 of model.0.weight's magnitude)
# realcode-output: loss mean_loss model.*
'''
Example code of how to use a learning rate scheduler simple, in this
case with a (very) small and simple Feedforward Network training on MNIST
dataset with a learning rate scheduler. In this case ReduceLROnPlateau
scheduler is used, but can easily be changed to any of the other schedulers
available.

Video explanation: https://youtu.be/P31hB37g4Ak
Got any questions leave a comment on youtube :)

Programmed by Aladdin Persson <aladdin.persson at hotmail dot com>
*    2020-04-10 Initial programming

'''

# Imports
import torch
import torch.nn as nn # All neural network modules, nn.Linear, nn.Conv2d, BatchNorm, Loss functions
import torch.optim as optim # For all Optimization algorithms, SGD, Adam, etc.
from torch.utils.data import DataLoader # Gives easier dataset managment and creates mini batches
pass  # realcode-dropped: import torchvision.datasets as datasets
pass  # realcode-dropped: import torchvision.transforms as transforms

# Set device
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

# Hyperparameters
num_classes = 10 
learning_rate = 0.1
batch_size = 128
num_epochs = 12

# Define a very simple model
model = nn.Sequential(nn.Linear(784, 50), nn.ReLU(), nn.Linear(50, 10)).to(device)

# Load Data
train_dataset = list(zip(train_images, train_labels))
train_loader = DataLoader(dataset=train_dataset, batch_size=batch_size, shuffle=True)

# %% realcode-load: model
# Loss and optimizer
criterion = nn.CrossEntropyLoss() 
optimizer = optim.Adam(model.parameters(), lr=learning_rate)

# Define Scheduler
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer,factor=0.1, patience=5)

# Train Network
for epoch in range(1, num_epochs):
    losses = []
    
    for batch_idx, (data, targets) in enumerate(train_loader):
        # Get data to cuda if possible
        data = data.reshape(data.shape[0], -1)
        data = data.to(device=device)
        targets = targets.to(device=device)
        
        # forward
        scores = model(data)
        loss = criterion(scores, targets)
        
        losses.append(loss.item())
        
        # backward
        loss.backward()
        
        # gradient descent or adam step
        # scheduler.step(loss)
        optimizer.step()
        optimizer.zero_grad()
        
    mean_loss = sum(losses)/len(losses)
    
    # After each epoch do scheduler.step, note in this scheduler we need to send 
    # in loss for that epoch!
    scheduler.step(mean_loss)
    print(f'Cost at epoch {epoch} is {mean_loss}')

# Check accuracy on training & test to see how good our model
def check_accuracy(loader, model):
    num_correct = 0
    num_samples = 0
    model.eval()
    
    with torch.no_grad():
        for x, y in loader:
            x = x.to(device=device)
            y = y.to(device=device)
            
            scores = model(x)
            _, predictions = scores.max(1)
            num_correct += (predictions == y).sum()
            num_samples += predictions.size(0)
        
        print(f'Got {num_correct} / {num_samples} with accuracy {float(num_correct)/float(num_samples)*100:.2f}') 
    
    model.train()

check_accuracy(train_loader, model)
