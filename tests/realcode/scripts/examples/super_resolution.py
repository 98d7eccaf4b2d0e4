# realcode: pytorch/examples @ 77f55b912142e11fcfdf5b530231fb9c52f181e8
# realcode: https://github.com/pytorch/examples/blob/77f55b912142e11fcfdf5b530231fb9c52f181e8/super_resolution/model.py
# realcode: kept as written except for these adaptations:
#   - model.py as written, then main.py (pasted together, so `from model import Net` is not needed)
#   - dropped (plotting / file I/O / argparse / download): `import argparse`
#   - dropped (plotting / file I/O / argparse / download): `from model import Net`
#   - dropped (plotting / file I/O / argparse / download): `from data import get_training_set, get_test_set`
#   - dropped (plotting / file I/O / argparse / download): `checkpoint(epoch)`
#   - `parser = argparse.ArgumentParser(description='PyTorch Super Res Example') / parser.add_argument('--upscale_factor', type=int, required=True, help="super resolution upscale factor") / parser.add_argument('--batchSize', type=int, default=64, help='training batch size') / parser.add_argument('--testBatchSize', type=int, default=10, help='testing batch size') / parser.add_argument('--nEpochs', type=int, default=2, help='number of epochs to train for') / parser.add_argument('--lr', type=float, default=0.01, help='Learning Rate. Default=0.01') / parser.add_argument('--accel', action='store_true', help='Enables acceleration for training, if available') / parser.add_argument('--threads', type=int, default=4, help='number of threads for data loader to use') / parser.add_argument('--seed', type=int, default=123, help='random seed to use. Default=123') / opt = parser.parse_args()` -> `class opt:  # realcode: argparse's defaults (upscale_factor 2, batch sizes 4) /     upscale_factor = 2; batchSize = 4; testBatchSize = 4; nEpochs = 2; lr = 0.01; accel = False; threads = 4; seed = 123`: drop argparse: its defaults as a class (--upscale_factor 2; batch sizes 64 and 10 -> 4)
#   - `train_set = get_training_set(opt.upscale_factor)` -> `train_set = list(zip(train_lr, train_hr))`: replace the BSDS300 download with synthetic low/high resolution pairs passed as inputs (one batch: DataLoader's shuffle order does not matter)
#   - `test_set = get_test_set(opt.upscale_factor)` -> `test_set = list(zip(test_lr, test_hr))`: the same for the test set
#   - `model = Net(upscale_factor=opt.upscale_factor).to(device)` -> `model = Net(upscale_factor=opt.upscale_factor).to(device) / # %% realcode-load: model`: cell marker: PyTorch's initial weights (init.orthogonal_) are copied in
# realcode-input: train_lr = rand(4, 1, 8, 8)
# realcode-input: train_hr = rand(4, 1, 16, 16)
# realcode-input: test_lr = rand(4, 1, 8, 8)
# realcode-input: test_hr = rand(4, 1, 16, 16)
# realcode-output: model.*
import torch
import torch.nn as nn
import torch.nn.init as init


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super(Net, self).__init__()

        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 64, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(64, 64, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(64, 32, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(32, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        x = self.pixel_shuffle(self.conv4(x))
        return x

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv2.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv3.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv4.weight)


# %% realcode: main.py as written from here (with the adaptations listed above)
from __future__ import print_function
pass  # realcode-dropped: import argparse
from math import log10

import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader
pass  # realcode-dropped: from model import Net
pass  # realcode-dropped: from data import get_training_set, get_test_set

# Training settings
class opt:  # realcode: argparse's defaults (upscale_factor 2, batch sizes 4)
    upscale_factor = 2; batchSize = 4; testBatchSize = 4; nEpochs = 2; lr = 0.01; accel = False; threads = 4; seed = 123

print(opt)

torch.manual_seed(opt.seed)


if opt.accel and torch.accelerator.is_available():
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")

print('===> Loading datasets')
train_set = list(zip(train_lr, train_hr))
test_set = list(zip(test_lr, test_hr))
training_data_loader = DataLoader(dataset=train_set, num_workers=opt.threads, batch_size=opt.batchSize, shuffle=True)
testing_data_loader = DataLoader(dataset=test_set, num_workers=opt.threads, batch_size=opt.testBatchSize, shuffle=False)

print('===> Building model')
model = Net(upscale_factor=opt.upscale_factor).to(device)
# %% realcode-load: model
criterion = nn.MSELoss()

optimizer = optim.Adam(model.parameters(), lr=opt.lr)


def train(epoch):
    epoch_loss = 0
    for iteration, batch in enumerate(training_data_loader, 1):
        input, target = batch[0].to(device), batch[1].to(device)

        optimizer.zero_grad()
        loss = criterion(model(input), target)
        epoch_loss += loss.item()
        loss.backward()
        optimizer.step()

        print("===> Epoch[{}]({}/{}): Loss: {:.4f}".format(epoch, iteration, len(training_data_loader), loss.item()))

    print("===> Epoch {} Complete: Avg. Loss: {:.4f}".format(epoch, epoch_loss / len(training_data_loader)))


def test():
    avg_psnr = 0
    with torch.no_grad():
        for batch in testing_data_loader:
            input, target = batch[0].to(device), batch[1].to(device)

            prediction = model(input)
            mse = criterion(prediction, target)
            psnr = 10 * log10(1 / mse.item())
            avg_psnr += psnr
    print("===> Avg. PSNR: {:.4f} dB".format(avg_psnr / len(testing_data_loader)))


def checkpoint(epoch):
    model_out_path = "model_epoch_{}.pth".format(epoch)
    torch.save(model, model_out_path)
    print("Checkpoint saved to {}".format(model_out_path))

for epoch in range(1, opt.nEpochs + 1):
    train(epoch)
    test()
    pass  # realcode-dropped: checkpoint(epoch)
