# realcode: yunjey/pytorch-tutorial @ 0500d3df5a2a8080ccfccbc00aca0eacc21818db
# realcode: https://github.com/yunjey/pytorch-tutorial/blob/0500d3df5a2a8080ccfccbc00aca0eacc21818db/tutorials/02-intermediate/bidirectional_recurrent_neural_network/main.py
# realcode: kept as written except for these adaptations:
#   - 100 training images (batch_size): one batch per epoch: the loss and gradients do not depend on the order DataLoader's shuffle picks (it draws from the session's generator, not PyTorch's)
#   - dropped (plotting / file I/O / argparse / download): `torch.save(model.state_dict(), 'model.ckpt')`
#   - dropped (plotting / file I/O / argparse / download): `import torchvision`
#   - dropped (plotting / file I/O / argparse / download): `import torchvision.transforms as transforms`
#   - `train_dataset = torchvision.datasets.MNIST(root='../../data/', / train=True, / transform=transforms.ToTensor(), / download=True)` -> `train_dataset = list(zip(train_images, train_labels))`: replace the MNIST download with synthetic images and labels passed as inputs
#   - `test_dataset = torchvision.datasets.MNIST(root='../../data/', / train=False, / transform=transforms.ToTensor())` -> `test_dataset = list(zip(test_images, test_labels))`: replace the MNIST download with synthetic images and labels passed as inputs
#   - `import torchvision.transforms as transforms` -> ``: torchvision is not used once MNIST is replaced
#   - `criterion = nn.CrossEntropyLoss()` -> `# %% realcode-load: model / criterion = nn.CrossEntropyLoss()`: cell marker: PyTorch's initial weights are copied in
#   - `hidden_size = 128` -> `hidden_size = 32`: shrink 128 hidden units to 32
# realcode-input: train_images = rand(100, 1, 28, 28)
# realcode-input: train_labels = randint(0, 10, 100)
# realcode-input: test_images = rand(50, 1, 28, 28)
# realcode-input: test_labels = randint(0, 10, 50)
# realcode-output: loss correct total model.fc.weight model.fc.bias model.lstm.weight_hh_l0_reverse model.lstm.bias_ih_l1_reverse model.lstm.weight_ih_l0
import torch 
import torch.nn as nn
pass  # realcode-dropped: import torchvision
pass  # realcode-dropped: 

# Device configuration
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

# Hyper-parameters
sequence_length = 28
input_size = 28
hidden_size = 32
num_layers = 2
num_classes = 10
batch_size = 100
num_epochs = 2
learning_rate = 0.003

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

# Bidirectional recurrent neural network (many-to-one)
class BiRNN(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, num_classes):
        super(BiRNN, self).__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(hidden_size*2, num_classes)  # 2 for bidirection
    
    def forward(self, x):
        # Set initial states
        h0 = torch.zeros(self.num_layers*2, x.size(0), self.hidden_size).to(device) # 2 for bidirection 
        c0 = torch.zeros(self.num_layers*2, x.size(0), self.hidden_size).to(device)
        
        # Forward propagate LSTM
        out, _ = self.lstm(x, (h0, c0))  # out: tensor of shape (batch_size, seq_length, hidden_size*2)
        
        # Decode the hidden state of the last time step
        out = self.fc(out[:, -1, :])
        return out

model = BiRNN(input_size, hidden_size, num_layers, num_classes).to(device)


# Loss and optimizer
# %% realcode-load: model
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    
# Train the model
total_step = len(train_loader)
for epoch in range(num_epochs):
    for i, (images, labels) in enumerate(train_loader):
        images = images.reshape(-1, sequence_length, input_size).to(device)
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
with torch.no_grad():
    correct = 0
    total = 0
    for images, labels in test_loader:
        images = images.reshape(-1, sequence_length, input_size).to(device)
        labels = labels.to(device)
        outputs = model(images)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()

    print('Test Accuracy of the model on the 10000 test images: {} %'.format(100 * correct / total)) 

# Save the model checkpoint
pass  # realcode-dropped: torch.save(model.state_dict(), 'model.ckpt')
