# realcode: yunjey/pytorch-tutorial @ 0500d3df5a2a8080ccfccbc00aca0eacc21818db
# realcode: https://github.com/yunjey/pytorch-tutorial/blob/0500d3df5a2a8080ccfccbc00aca0eacc21818db/tutorials/02-intermediate/deep_residual_network/main.py
# realcode: kept as written except for these adaptations:
#   - 100 training images (batch_size): one batch per epoch: the loss and gradients do not depend on the order DataLoader's shuffle picks
#   - `import torchvision` -> `pass  # realcode-dropped: import torchvision`: dropped (plotting / file I/O / argparse / download)
#   - `import torchvision.transforms as transforms` -> `pass  # realcode-dropped: import torchvision.transforms as transforms`: dropped (plotting / file I/O / argparse / download)
#   - `num_epochs = 80` -> `num_epochs = 2`: shrink 80 epochs to 2
#   - `transform = transforms.Compose([ / transforms.Pad(4), / transforms.RandomHorizontalFlip(), / transforms.RandomCrop(32), / transforms.ToTensor()])` -> `pass  # realcode-dropped: transform = transforms.Compose([...])`: torchvision's random augmentation dropped with the CIFAR-10 download
#   - `train_dataset = torchvision.datasets.CIFAR10(root='../../data/', / train=True, / transform=transform, / download=True)` -> `train_dataset = list(zip(train_images, train_labels))`: replace the CIFAR-10 download with synthetic images and labels passed as inputs
#   - `test_dataset = torchvision.datasets.CIFAR10(root='../../data/', / train=False, / transform=transforms.ToTensor())` -> `test_dataset = list(zip(test_images, test_labels))`: replace the CIFAR-10 download with synthetic images and labels passed as inputs
#   - `criterion = nn.CrossEntropyLoss()` -> `# %% realcode-load: model / criterion = nn.CrossEntropyLoss()`: cell marker: PyTorch's initial weights are copied in
#   - `torch.save(model.state_dict(), 'resnet.ckpt')` -> `pass  # realcode-dropped: torch.save(model.state_dict(), 'resnet.ckpt')`: dropped (plotting / file I/O / argparse / download)
# realcode-input: train_images = rand(100, 3, 32, 32)
# realcode-input: train_labels = randint(0, 10, 100)
# realcode-input: test_images = rand(50, 3, 32, 32)
# realcode-input: test_labels = randint(0, 10, 50)
# realcode-output: loss correct total model.conv.weight model.layer1.0.conv1.weight model.layer3.1.bn2.running_var model.fc.weight model.fc.bias
# realcode-shape-only: model.conv.weight model.layer1.0.conv1.weight (float32 noise amplified by Adam: its first step moves each weight by about lr times the sign of its gradient, so a gradient smaller than the summation noise (~1e-5 of the largest) is stepped either way by 1e-3, and the next step's gradients follow; PyTorch itself with torch.backends.mkldnn.enabled = False, another summation order, misses these by more than the engine does: conv.weight 1.37e-3 vs magnitude 0.194, its grad 7.9e-3 vs 0.0356, layer1.0.conv1.weight 2.0e-3 vs 0.085)
# realcode-rtol: 5e-3 (the same noise reaches fc.weight.grad: PyTorch with mkldnn off misses it by 1.7e-3 of its magnitude, the engine by 5.5e-4)
# ---------------------------------------------------------------------------- #
# An implementation of https://arxiv.org/pdf/1512.03385.pdf                    #
# See section 4.2 for the model architecture on CIFAR-10                       #
# Some part of the code was referenced from below                              #
# https://github.com/pytorch/vision/blob/master/torchvision/models/resnet.py   #
# ---------------------------------------------------------------------------- #

import torch
import torch.nn as nn
pass  # realcode-dropped: import torchvision
pass  # realcode-dropped: import torchvision.transforms as transforms

# Device configuration
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

# Hyper-parameters
num_epochs = 2
batch_size = 100
learning_rate = 0.001

# Image preprocessing modules
pass  # realcode-dropped: transform = transforms.Compose([...])

# CIFAR-10 dataset
train_dataset = list(zip(train_images, train_labels))

test_dataset = list(zip(test_images, test_labels))

# Data loader
train_loader = torch.utils.data.DataLoader(dataset=train_dataset,
                                           batch_size=batch_size,
                                           shuffle=True)

test_loader = torch.utils.data.DataLoader(dataset=test_dataset,
                                          batch_size=batch_size,
                                          shuffle=False)

# 3x3 convolution
def conv3x3(in_channels, out_channels, stride=1):
    return nn.Conv2d(in_channels, out_channels, kernel_size=3, 
                     stride=stride, padding=1, bias=False)

# Residual block
class ResidualBlock(nn.Module):
    def __init__(self, in_channels, out_channels, stride=1, downsample=None):
        super(ResidualBlock, self).__init__()
        self.conv1 = conv3x3(in_channels, out_channels, stride)
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(out_channels, out_channels)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.downsample = downsample
        
    def forward(self, x):
        residual = x
        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2(out)
        if self.downsample:
            residual = self.downsample(x)
        out += residual
        out = self.relu(out)
        return out

# ResNet
class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=10):
        super(ResNet, self).__init__()
        self.in_channels = 16
        self.conv = conv3x3(3, 16)
        self.bn = nn.BatchNorm2d(16)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = self.make_layer(block, 16, layers[0])
        self.layer2 = self.make_layer(block, 32, layers[1], 2)
        self.layer3 = self.make_layer(block, 64, layers[2], 2)
        self.avg_pool = nn.AvgPool2d(8)
        self.fc = nn.Linear(64, num_classes)
        
    def make_layer(self, block, out_channels, blocks, stride=1):
        downsample = None
        if (stride != 1) or (self.in_channels != out_channels):
            downsample = nn.Sequential(
                conv3x3(self.in_channels, out_channels, stride=stride),
                nn.BatchNorm2d(out_channels))
        layers = []
        layers.append(block(self.in_channels, out_channels, stride, downsample))
        self.in_channels = out_channels
        for i in range(1, blocks):
            layers.append(block(out_channels, out_channels))
        return nn.Sequential(*layers)
    
    def forward(self, x):
        out = self.conv(x)
        out = self.bn(out)
        out = self.relu(out)
        out = self.layer1(out)
        out = self.layer2(out)
        out = self.layer3(out)
        out = self.avg_pool(out)
        out = out.view(out.size(0), -1)
        out = self.fc(out)
        return out
    
model = ResNet(ResidualBlock, [2, 2, 2]).to(device)


# Loss and optimizer
# %% realcode-load: model
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)

# For updating learning rate
def update_lr(optimizer, lr):    
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr

# Train the model
total_step = len(train_loader)
curr_lr = learning_rate
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
            print ("Epoch [{}/{}], Step [{}/{}] Loss: {:.4f}"
                   .format(epoch+1, num_epochs, i+1, total_step, loss.item()))

    # Decay learning rate
    if (epoch+1) % 20 == 0:
        curr_lr /= 3
        update_lr(optimizer, curr_lr)

# Test the model
model.eval()
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

    print('Accuracy of the model on the test images: {} %'.format(100 * correct / total))

# Save the model checkpoint
pass  # realcode-dropped: torch.save(model.state_dict(), 'resnet.ckpt')
