# realcode: aladdinpersson/Machine-Learning-Collection @ 157a5f458f272a513eb6b4a19d6613aec32dc21c
# realcode: https://github.com/aladdinpersson/Machine-Learning-Collection/blob/157a5f458f272a513eb6b4a19d6613aec32dc21c/ML/Pytorch/Basics/pytorch_simple_CNN.py
# realcode: kept as written except for these adaptations:
#   - `import torchvision.datasets as datasets` / `import torchvision.transforms as transforms` -> dropped: torchvision is not used once MNIST is replaced
#   - `train_dataset = datasets.MNIST(...)` / `test_dataset = datasets.MNIST(...)` -> `list(zip(train_images, train_labels))` / `list(zip(test_images, test_labels))`: replace the MNIST download with synthetic images and labels passed as inputs
#   - 64 training images (batch_size): one batch per epoch: the loss and gradients do not depend on the order DataLoader's shuffle picks (it draws from the session's generator, not PyTorch's)
#   - `num_epochs = 5` -> `num_epochs = 3`: shrink 5 epochs to 3
#   - `check_accuracy(train_loader, model)` / `check_accuracy(test_loader, model)` -> dropped: the function reads `loader.dataset.train`, an attribute of torchvision's MNIST dataset that the synthetic list lacks, and only prints
#   - `criterion = nn.CrossEntropyLoss()` -> `# %% realcode-load: model / criterion = nn.CrossEntropyLoss()`: cell marker: PyTorch's initial weights are copied in
# realcode-input: train_images = rand(64, 1, 28, 28)
# realcode-input: train_labels = randint(0, 10, 64)
# realcode-input: test_images = rand(32, 1, 28, 28)
# realcode-input: test_labels = randint(0, 10, 32)
# realcode-shape-only: scores (its rows follow the order DataLoader's shuffle draws from the session's generator)
# realcode-output: loss scores model.*
'''
Example code of a simple CNN network training on MNIST dataset.
The code is intended to show how to create a CNN network as well
as how to initialize loss, optimizer, etc. in a simple way to get
training to work with function that checks accuracy as well.

Video explanation: https://youtu.be/wnK3uWv_WkU
Got any questions leave a comment on youtube :)

Programmed by Aladdin Persson <aladdin.persson at hotmail dot com>
*    2020-04-08 Initial coding

'''

# Imports
import torch
import torch.nn as nn # All neural network modules, nn.Linear, nn.Conv2d, BatchNorm, Loss functions
import torch.optim as optim # For all Optimization algorithms, SGD, Adam, etc.
import torch.nn.functional as F # All functions that don't have any parameters
from torch.utils.data import DataLoader # Gives easier dataset managment and creates mini batches
pass  # realcode-dropped: import torchvision.datasets as datasets
pass  # realcode-dropped: import torchvision.transforms as transforms

# Simple CNN
class CNN(nn.Module):
    def __init__(self, in_channels = 1, num_classes = 10):
        super(CNN, self).__init__()
        self.conv1 = nn.Conv2d(in_channels=1, out_channels=8, kernel_size=(3,3), stride=(1,1), padding=(1,1))
        self.pool = nn.MaxPool2d(kernel_size=(2,2), stride = (2,2))
        self.conv2 = nn.Conv2d(in_channels=8, out_channels=16, kernel_size=(3,3), stride=(1,1), padding=(1,1))
        self.fc1 = nn.Linear(16*7*7, num_classes)
    
    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = self.pool(x)
        x = F.relu(self.conv2(x))
        x = self.pool(x)
        x = x.reshape(x.shape[0], -1)
        x = self.fc1(x)
        
        return x

# Set device
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

# Hyperparameters
in_channel = 1
num_classes = 10 
learning_rate = 0.001
batch_size = 64
num_epochs = 3

# Load Data
train_dataset = list(zip(train_images, train_labels))
train_loader = DataLoader(dataset=train_dataset, batch_size=batch_size, shuffle=True)
test_dataset = list(zip(test_images, test_labels))
test_loader = DataLoader(dataset=test_dataset, batch_size=batch_size, shuffle=True)

# Initialize network
model = CNN().to(device)

# %% realcode-load: model
# Loss and optimizer
criterion = nn.CrossEntropyLoss() 
optimizer = optim.Adam(model.parameters(), lr=learning_rate)

# Train Network
for epoch in range(num_epochs):
    for batch_idx, (data, targets) in enumerate(train_loader):
        # Get data to cuda if possible
        data = data.to(device=device)
        targets = targets.to(device=device)
        
        # forward
        scores = model(data)
        loss = criterion(scores, targets)
        
        # backward
        optimizer.zero_grad()
        loss.backward()
        
        # gradient descent or adam step
        optimizer.step()

# Check accuracy on training & test to see how good our model

def check_accuracy(loader, model):
    if loader.dataset.train:
        print("Checking accuracy on training data")
    else:
        print("Checking accuracy on test data")
        
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

pass  # realcode-dropped: check_accuracy(train_loader, model)
pass  # realcode-dropped: check_accuracy(test_loader, model)
