# realcode: pytorch/examples @ 77f55b912142e11fcfdf5b530231fb9c52f181e8
# realcode: https://github.com/pytorch/examples/blob/77f55b912142e11fcfdf5b530231fb9c52f181e8/mnist_forward_forward/main.py
# realcode: kept as written except for these adaptations:
#   - dropped (download): `from torchvision.datasets import MNIST`, `from torchvision.transforms import Compose, ToTensor, Normalize, Lambda`
#   - dropped: `import argparse`; argparse: its defaults as a class `args` (epochs 1000 -> 20, train_size 50000 -> 64, test_size 10000 -> 64; layer widths 500 -> 100)
#   - the `transform = Compose([...])` statement dropped (torchvision); `MNIST("./data/", train=..., download=True, transform=transform)` -> `list(zip(train_images, train_labels))` / `list(zip(test_images, test_labels))`: synthetic flattened, normalised images passed as inputs
#   - the `if __name__ == "__main__":` body run at the top level, so that load markers can split it
#   - `net = Net([784, 500, 500])` -> `net = Net([784, 100, 100]) / # %% realcode-load: net.layers`: PyTorch's initial weights are copied in
#   - `y_neg = get_y_neg(y)` -> `y_neg = get_y_neg(y) / # %% realcode-load: y_neg`: PyTorch's random negative labels are copied in
# realcode-input: train_images = randn(64, 784)
# realcode-input: train_labels = randint(0, 10, 64)
# realcode-input: test_images = randn(64, 784)
# realcode-input: test_labels = randint(0, 10, 64)
# realcode-output: x_pos x_neg net.layers.0.weight net.layers.0.bias net.layers.1.weight net.layers.1.bias
# This code is based on the implementation of Mohammad Pezeshki available at
# https://github.com/mohammadpz/pytorch_forward_forward and licensed under the MIT License.
# Modifications/Improvements to the original code have been made by Vivek V Patel.

pass  # realcode-dropped: import argparse
import torch
import torch.nn as nn
pass  # realcode-dropped: from torchvision.datasets import MNIST
pass  # realcode-dropped: from torchvision.transforms import Compose, ToTensor, Normalize, Lambda
from torch.utils.data import DataLoader
from torch.optim import Adam


def get_y_neg(y):
    y_neg = y.clone()
    for idx, y_samp in enumerate(y):
        allowed_indices = list(range(10))
        allowed_indices.remove(y_samp.item())
        y_neg[idx] = torch.tensor(allowed_indices)[
            torch.randint(len(allowed_indices), size=(1,))
        ].item()
    return y_neg.to(device)


def overlay_y_on_x(x, y, classes=10):
    x_ = x.clone()
    x_[:, :classes] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


class Net(torch.nn.Module):
    def __init__(self, dims):

        super().__init__()
        self.layers = []
        for d in range(len(dims) - 1):
            self.layers = self.layers + [Layer(dims[d], dims[d + 1]).to(device)]

    def predict(self, x):
        goodness_per_label = []
        for label in range(10):
            h = overlay_y_on_x(x, label)
            goodness = []
            for layer in self.layers:
                h = layer(h)
                goodness = goodness + [h.pow(2).mean(1)]
            goodness_per_label += [sum(goodness).unsqueeze(1)]
        goodness_per_label = torch.cat(goodness_per_label, 1)
        return goodness_per_label.argmax(1)

    def train(self, x_pos, x_neg):
        h_pos, h_neg = x_pos, x_neg
        for i, layer in enumerate(self.layers):
            print("training layer: ", i)
            h_pos, h_neg = layer.train(h_pos, h_neg)


class Layer(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.relu = torch.nn.ReLU()
        self.opt = Adam(self.parameters(), lr=args.lr)
        self.threshold = args.threshold
        self.num_epochs = args.epochs

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

    def train(self, x_pos, x_neg):
        for i in range(self.num_epochs):
            g_pos = self.forward(x_pos).pow(2).mean(1)
            g_neg = self.forward(x_neg).pow(2).mean(1)
            loss = torch.log1p(
                torch.exp(
                    torch.cat([-g_pos + self.threshold, g_neg - self.threshold])
                )
            ).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            if i % args.log_interval == 0:
                print("Loss: ", loss.item())
        return self.forward(x_pos).detach(), self.forward(x_neg).detach()


class args:  # realcode: argparse's defaults (epochs 1000 -> 20, train_size 50000 -> 64, test_size 10000 -> 64; layer widths 500 -> 100)
    epochs = 20; lr = 0.03; no_accel = False; seed = 1; save_model = False
    train_size = 64; threshold = 2; test_size = 64; log_interval = 10
use_accel = not args.no_accel and torch.accelerator.is_available()
if use_accel:
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")

train_kwargs = {"batch_size": args.train_size}
test_kwargs = {"batch_size": args.test_size}

if use_accel:
    accel_kwargs = {"num_workers": 1, "pin_memory": True, "shuffle": True}
    train_kwargs.update(accel_kwargs)
    test_kwargs.update(accel_kwargs)

pass  # realcode-dropped: transform = Compose([ToTensor(), Normalize((0.1307,), (0.3081,)), Lambda(lambda x: torch.flatten(x))])
train_loader = DataLoader(
    list(zip(train_images, train_labels)), **train_kwargs
)
test_loader = DataLoader(
    list(zip(test_images, test_labels)), **test_kwargs
)
net = Net([784, 100, 100])
# %% realcode-load: net.layers
x, y = next(iter(train_loader))
x, y = x.to(device), y.to(device)
x_pos = overlay_y_on_x(x, y)
y_neg = get_y_neg(y)
# %% realcode-load: y_neg
x_neg = overlay_y_on_x(x, y_neg)
net.train(x_pos, x_neg)
print("train error:", 1.0 - net.predict(x).eq(y).float().mean().item())
x_te, y_te = next(iter(test_loader))
x_te, y_te = x_te.to(device), y_te.to(device)
if args.save_model:
    torch.save(net.state_dict(), "mnist_ff.pt")
print("test error:", 1.0 - net.predict(x_te).eq(y_te).float().mean().item())
