# realcode: yunjey/pytorch-tutorial @ 0500d3df5a2a8080ccfccbc00aca0eacc21818db
# realcode: https://github.com/yunjey/pytorch-tutorial/blob/0500d3df5a2a8080ccfccbc00aca0eacc21818db/tutorials/02-intermediate/convolutional_neural_network/main.py
# realcode: kept as written except for these adaptations:
#   - 100 training images (batch_size): one batch per epoch: the loss and gradients do not depend on the order DataLoader's shuffle picks (it draws from the session's generator, not PyTorch's)
#   - dropped (plotting / file I/O / argparse / download): `torch.save(model.state_dict(), 'model.ckpt')`
#   - dropped (plotting / file I/O / argparse / download): `import torchvision`
#   - dropped (plotting / file I/O / argparse / download): `import torchvision.transforms as transforms`
#   - `train_dataset = torchvision.datasets.MNIST(root='../../data/', / train=True, / transform=transforms.ToTensor(), / download=True)` -> `train_dataset = list(zip(train_images, train_labels))`: replace the MNIST download with synthetic images and labels passed as inputs
#   - `test_dataset = torchvision.datasets.MNIST(root='../../data/', / train=False, / transform=transforms.ToTensor())` -> `test_dataset = list(zip(test_images, test_labels))`: replace the MNIST download with synthetic images and labels passed as inputs
#   - `import torchvision.transforms as transforms` -> ``: torchvision is not used once MNIST is replaced
#   - `criterion = nn.CrossEntropyLoss()` -> `# %% realcode-load: model / criterion = nn.CrossEntropyLoss()`: cell marker: PyTorch's initial weights are copied in
#   - `num_epochs = 5` -> `num_epochs = 2`: shrink 5 epochs to 2
# realcode-input: train_images = rand(100, 1, 28, 28)
# realcode-input: train_labels = randint(0, 10, 100)
# realcode-input: test_images = rand(50, 1, 28, 28)
# realcode-input: test_labels = randint(0, 10, 50)
# realcode-output: loss correct total model.layer1.0.weight model.layer1.1.running_mean model.layer2.1.weight model.fc.bias
# realcode-shape-only: model.layer1.1.running_mean model.layer1.0.weight (float32 noise amplified by Adam: the conv biases before BatchNorm have a true gradient of 0, so Adam steps them by the sign of summation noise and moves running_mean by ~1.6e-3 relative; PyTorch itself, fed the same batch rolled by one sample, misses these two by the same amounts (running_mean 1.9e-4, conv weight grad 1.36e-4), while in float64 the engine matches PyTorch through both epochs to 1e-10: tests/engine/test_nn_training_float64.py)
import torch 
import torch.nn as nn
pass  # realcode-dropped: import torchvision
pass  # realcode-dropped: 

# Device configuration
device = torch.device('cuda:0' if torch.cuda.is_available() else 'cpu')

# Hyper parameters
num_epochs = 2
num_classes = 10
batch_size = 100
learning_rate = 0.001

# MNIST dataset
train_dataset = list(zip(train_images, train_labels))

test_dataset = list(zip(test_images, test_labels))

# Data loader
train_loader = torch.utils.data.DataLoader(dataset=train_dataset,
                                           batch_size=batch_size, 
                                           shuffle=True)

test_loader = torch.utils.data.DataLoader(dataset=test_dataset,
                                          batch_size=batch_size, 
                                          shuffle=False)

# Convolutional neural network (two convolutional layers)
class ConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super(ConvNet, self).__init__()
        self.layer1 = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=5, stride=1, padding=2),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2))
        self.layer2 = nn.Sequential(
            nn.Conv2d(16, 32, kernel_size=5, stride=1, padding=2),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2))
        self.fc = nn.Linear(7*7*32, num_classes)
        
    def forward(self, x):
        out = self.layer1(x)
        out = self.layer2(out)
        out = out.reshape(out.size(0), -1)
        out = self.fc(out)
        return out

model = ConvNet(num_classes).to(device)

# Loss and optimizer
# %% realcode-load: model
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)

# Train the model
total_step = len(train_loader)
for epoch in range(num_epochs):
    for i, (images, labels) in enumerate(train_loader):
        images = images.to(device)
        labels = labels.to(device)
        
        # Forward pass
        outputs = model(images)
        loss = criterion(outputs, labels)
        
        # Backward and optimize
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        
        if (i+1) % 100 == 0:
            print ('Epoch [{}/{}], Step [{}/{}], Loss: {:.4f}' 
                   .format(epoch+1, num_epochs, i+1, total_step, loss.item()))

# Test the model
model.eval()  # eval mode (batchnorm uses moving mean/variance instead of mini-batch mean/variance)
with torch.no_grad():
    correct = 0
    total = 0
    for images, labels in test_loader:
        images = images.to(device)
        labels = labels.to(device)
        outputs = model(images)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()

    print('Test Accuracy of the model on the 10000 test images: {} %'.format(100 * correct / total))

# Save the model checkpoint
pass  # realcode-dropped: torch.save(model.state_dict(), 'model.ckpt')
