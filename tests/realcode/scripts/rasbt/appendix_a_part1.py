# realcode: rasbt/LLMs-from-scratch @ 28c65cdfbc3338e2e040016eea4b7fdf556e4d57
# realcode: https://github.com/rasbt/LLMs-from-scratch/blob/28c65cdfbc3338e2e040016eea4b7fdf556e4d57/appendix-A/01_main-chapter-code/code-part1.ipynb
# realcode: kept as written except for these adaptations:
#   - the notebook's code cells in order, each after a '# %%' line
#   - `torch.manual_seed(123) /  / model = NeuralNetwork(50, 3)` -> `torch.manual_seed(123) /  / model = NeuralNetwork(50, 3) / # %% realcode-load: model`: cell marker: PyTorch's initial weights are copied in
#   - `X = torch.rand((1, 50))` -> `X = torch.rand((1, 50)) / # %% realcode-load: X`: cell marker: PyTorch's torch.rand draw is copied in
#   - `model = NeuralNetwork(num_inputs=2, num_outputs=2)` -> `model = NeuralNetwork(num_inputs=2, num_outputs=2) / # %% realcode-load: model`: cell marker: PyTorch's initial weights are copied in
#   - `torch.save(model.state_dict(), "model.pth")` -> `pass  # realcode-dropped: torch.save(model.state_dict(), "model.pth")`: drop file I/O
#   - `model.load_state_dict(torch.load("model.pth", weights_only=True))` -> `pass  # realcode-dropped: model.load_state_dict(torch.load("model.pth", weights_only=True))`: drop file I/O
# realcode-output: tensor3d_2 tensor3d_3 floatvec grad_L_w1 grad_L_b w1 b num_params X out loss outputs probas predictions
# realcode-shape-only: loss outputs probas predictions (trained on DataLoader(shuffle=True) batches of 2 of 5 examples with drop_last: the order comes from the session's generator)
# %% (notebook cell 0)
import torch

print(torch.__version__)
# %% (notebook cell 1)
print(torch.cuda.is_available())
# %% (notebook cell 2)
import torch
import numpy as np

# create a 0D tensor (scalar) from a Python integer
tensor0d = torch.tensor(1)

# create a 1D tensor (vector) from a Python list
tensor1d = torch.tensor([1, 2, 3])

# create a 2D tensor from a nested Python list
tensor2d = torch.tensor([[1, 2], 
                         [3, 4]])

# create a 3D tensor from a nested Python list
tensor3d_1 = torch.tensor([[[1, 2], [3, 4]], 
                           [[5, 6], [7, 8]]])

# create a 3D tensor from NumPy array
ary3d = np.array([[[1, 2], [3, 4]], 
                  [[5, 6], [7, 8]]])
tensor3d_2 = torch.tensor(ary3d)  # Copies NumPy array
tensor3d_3 = torch.from_numpy(ary3d)  # Shares memory with NumPy array
# %% (notebook cell 3)
ary3d[0, 0, 0] = 999
print(tensor3d_2) # remains unchanged
# %% (notebook cell 4)
print(tensor3d_3) # changes because of memory sharing
# %% (notebook cell 5)
tensor1d = torch.tensor([1, 2, 3])
print(tensor1d.dtype)
# %% (notebook cell 6)
floatvec = torch.tensor([1.0, 2.0, 3.0])
print(floatvec.dtype)
# %% (notebook cell 7)
floatvec = tensor1d.to(torch.float32)
print(floatvec.dtype)
# %% (notebook cell 8)
tensor2d = torch.tensor([[1, 2, 3], 
                         [4, 5, 6]])
tensor2d
# %% (notebook cell 9)
tensor2d.shape
# %% (notebook cell 10)
tensor2d.reshape(3, 2)
# %% (notebook cell 11)
tensor2d.view(3, 2)
# %% (notebook cell 12)
tensor2d.T
# %% (notebook cell 13)
tensor2d.matmul(tensor2d.T)
# %% (notebook cell 14)
tensor2d @ tensor2d.T
# %% (notebook cell 15)
import torch.nn.functional as F

y = torch.tensor([1.0])  # true label
x1 = torch.tensor([1.1]) # input feature
w1 = torch.tensor([2.2]) # weight parameter
b = torch.tensor([0.0])  # bias unit

z = x1 * w1 + b          # net input
a = torch.sigmoid(z)     # activation & output

loss = F.binary_cross_entropy(a, y)
print(loss)
# %% (notebook cell 16)
import torch.nn.functional as F
from torch.autograd import grad

y = torch.tensor([1.0])
x1 = torch.tensor([1.1])
w1 = torch.tensor([2.2], requires_grad=True)
b = torch.tensor([0.0], requires_grad=True)

z = x1 * w1 + b 
a = torch.sigmoid(z)

loss = F.binary_cross_entropy(a, y)

grad_L_w1 = grad(loss, w1, retain_graph=True)
grad_L_b = grad(loss, b, retain_graph=True)

print(grad_L_w1)
print(grad_L_b)
# %% (notebook cell 17)
loss.backward()

print(w1.grad)
print(b.grad)
# %% (notebook cell 18)
class NeuralNetwork(torch.nn.Module):
    def __init__(self, num_inputs, num_outputs):
        super().__init__()

        self.layers = torch.nn.Sequential(
                
            # 1st hidden layer
            torch.nn.Linear(num_inputs, 30),
            torch.nn.ReLU(),

            # 2nd hidden layer
            torch.nn.Linear(30, 20),
            torch.nn.ReLU(),

            # output layer
            torch.nn.Linear(20, num_outputs),
        )

    def forward(self, x):
        logits = self.layers(x)
        return logits
# %% (notebook cell 19)
model = NeuralNetwork(50, 3)
# %% (notebook cell 20)
print(model)
# %% (notebook cell 21)
num_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
print("Total number of trainable model parameters:", num_params)
# %% (notebook cell 22)
print(model.layers[0].weight)
# %% (notebook cell 23)
torch.manual_seed(123)

model = NeuralNetwork(50, 3)
# %% realcode-load: model
print(model.layers[0].weight)
# %% (notebook cell 24)
print(model.layers[0].weight.shape)
# %% (notebook cell 25)
torch.manual_seed(123)

X = torch.rand((1, 50))
# %% realcode-load: X
out = model(X)
print(out)
# %% (notebook cell 26)
with torch.no_grad():
    out = model(X)
print(out)
# %% (notebook cell 27)
with torch.no_grad():
    out = torch.softmax(model(X), dim=1)
print(out)
# %% (notebook cell 28)
X_train = torch.tensor([
    [-1.2, 3.1],
    [-0.9, 2.9],
    [-0.5, 2.6],
    [2.3, -1.1],
    [2.7, -1.5]
])

y_train = torch.tensor([0, 0, 0, 1, 1])
# %% (notebook cell 29)
X_test = torch.tensor([
    [-0.8, 2.8],
    [2.6, -1.6],
])

y_test = torch.tensor([0, 1])
# %% (notebook cell 30)
from torch.utils.data import Dataset


class ToyDataset(Dataset):
    def __init__(self, X, y):
        self.features = X
        self.labels = y

    def __getitem__(self, index):
        one_x = self.features[index]
        one_y = self.labels[index]        
        return one_x, one_y

    def __len__(self):
        return self.labels.shape[0]

train_ds = ToyDataset(X_train, y_train)
test_ds = ToyDataset(X_test, y_test)
# %% (notebook cell 31)
len(train_ds)
# %% (notebook cell 32)
from torch.utils.data import DataLoader

torch.manual_seed(123)

train_loader = DataLoader(
    dataset=train_ds,
    batch_size=2,
    shuffle=True,
    num_workers=0
)
# %% (notebook cell 33)
test_ds = ToyDataset(X_test, y_test)

test_loader = DataLoader(
    dataset=test_ds,
    batch_size=2,
    shuffle=False,
    num_workers=0
)
# %% (notebook cell 34)
for idx, (x, y) in enumerate(train_loader):
    print(f"Batch {idx+1}:", x, y)
# %% (notebook cell 35)
train_loader = DataLoader(
    dataset=train_ds,
    batch_size=2,
    shuffle=True,
    num_workers=0,
    drop_last=True
)
# %% (notebook cell 36)
for idx, (x, y) in enumerate(train_loader):
    print(f"Batch {idx+1}:", x, y)
# %% (notebook cell 37)
import torch.nn.functional as F


torch.manual_seed(123)
model = NeuralNetwork(num_inputs=2, num_outputs=2)
# %% realcode-load: model
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)

num_epochs = 3

for epoch in range(num_epochs):
    
    model.train()
    for batch_idx, (features, labels) in enumerate(train_loader):

        logits = model(features)
        
        loss = F.cross_entropy(logits, labels) # Loss function
        
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    
        ### LOGGING
        print(f"Epoch: {epoch+1:03d}/{num_epochs:03d}"
              f" | Batch {batch_idx+1:03d}/{len(train_loader):03d}"
              f" | Train/Val Loss: {loss:.2f}")

    model.eval()
    # Optional model evaluation
# %% (notebook cell 38)
model.eval()

with torch.no_grad():
    outputs = model(X_train)

print(outputs)
# %% (notebook cell 39)
torch.set_printoptions(sci_mode=False)
probas = torch.softmax(outputs, dim=1)
print(probas)

predictions = torch.argmax(probas, dim=1)
print(predictions)
# %% (notebook cell 40)
predictions = torch.argmax(outputs, dim=1)
print(predictions)
# %% (notebook cell 41)
predictions == y_train
# %% (notebook cell 42)
torch.sum(predictions == y_train)
# %% (notebook cell 43)
def compute_accuracy(model, dataloader):

    model.eval()
    correct = 0.0
    total_examples = 0
    
    for idx, (features, labels) in enumerate(dataloader):
        
        with torch.no_grad():
            logits = model(features)
        
        predictions = torch.argmax(logits, dim=1)
        compare = labels == predictions
        correct += torch.sum(compare)
        total_examples += len(compare)

    return (correct / total_examples).item()
# %% (notebook cell 44)
compute_accuracy(model, train_loader)
# %% (notebook cell 45)
compute_accuracy(model, test_loader)
# %% (notebook cell 46)
pass  # realcode-dropped: torch.save(model.state_dict(), "model.pth")
# %% (notebook cell 47)
model = NeuralNetwork(2, 2) # needs to match the original model exactly
pass  # realcode-dropped: model.load_state_dict(torch.load("model.pth", weights_only=True))
