# realcode: XifengGuo/CapsNet-Pytorch @ 8a5a3572d91eb9479425168d3d565eb02e78be46
# realcode: https://github.com/XifengGuo/CapsNet-Pytorch/blob/8a5a3572d91eb9479425168d3d565eb02e78be46/capsulelayers.py
# realcode: https://github.com/XifengGuo/CapsNet-Pytorch/blob/8a5a3572d91eb9479425168d3d565eb02e78be46/capsulenet.py
# realcode: kept as written except for these adaptations:
#   - capsulelayers.py and capsulenet.py as written, one after the other (show_reconstruction, test, train and load_mnist are defined but not called), then a driver cell (below)
#   - `b = Variable(torch.zeros(x.size(0), self.out_num_caps, self.in_num_caps)).cuda()` -> `b = Variable(torch.zeros(x.size(0), self.out_num_caps, self.in_num_caps))  # realcode: .cuda() left out`: `.cuda()` left out (the CPU)
#   - `from torchvision import transforms, datasets / from capsulelayers import DenseCapsule, PrimaryCapsule` -> `pass  # realcode-dropped: from torchvision import transforms, datasets / pass  # realcode-inlined: from capsulelayers import DenseCapsule, PrimaryCapsule`: torchvision dropped (MNIST and its transforms: the data are synthetic); the repository's own module pasted above
#   - `self.conv1 = nn.Conv2d(input_size[0], 256, kernel_size=9, stride=1, padding=0)` -> `self.conv1 = nn.Conv2d(input_size[0], 16, kernel_size=9, stride=1, padding=0)  # realcode: 256 -> 16 channels`: smaller sizes: conv1's 256 channels -> 16
#   - `self.primarycaps = PrimaryCapsule(256, 256, 8, kernel_size=9, stride=2, padding=0)` -> `self.primarycaps = PrimaryCapsule(16, 32, 8, kernel_size=9, stride=2, padding=0)  # realcode: 256 -> 32 channels (4 capsule types)`: smaller sizes: the primary capsules' 256 channels (32 types of 8) -> 32 (4 types of 8)
#   - `self.digitcaps = DenseCapsule(in_num_caps=32*6*6, in_dim_caps=8,` -> `self.digitcaps = DenseCapsule(in_num_caps=4*6*6, in_dim_caps=8,  # realcode: 32*6*6 -> 4*6*6`: smaller sizes: 32*6*6 -> 4*6*6 input capsules
#   - `nn.Linear(16*classes, 512), / nn.ReLU(inplace=True), / nn.Linear(512, 1024), / nn.ReLU(inplace=True), / nn.Linear(1024, input_size[0] * input_size[1] * input_size[2]),` -> `nn.Linear(16*classes, 32),  # realcode: 512 -> 32 / nn.ReLU(inplace=True), / nn.Linear(32, 64),  # realcode: 512, 1024 -> 32, 64 / nn.ReLU(inplace=True), / nn.Linear(64, input_size[0] * input_size[1] * input_size[2]),  # realcode: 1024 -> 64`: smaller sizes: the decoder's 512 and 1024 units -> 32 and 64
#   - `y = Variable(torch.zeros(length.size()).scatter_(1, index.view(-1, 1).cpu().data, 1.).cuda())` -> `y = Variable(torch.zeros(length.size()).scatter_(1, index.view(-1, 1).cpu().data, 1.))  # realcode: .cuda() left out`: `.cuda()` left out (the CPU)
#   - `if __name__ == "__main__": / import argparse / import os /  / # setting the hyper parameters / parser = argparse.ArgumentParser(description="Capsule Network on MNIST.") / parser.add_argument('--epochs', default=50, type=int) / parser.add_argument('--batch_size', default=100, type=int) / parser.add_argument('--lr', default=0.001, type=float, / help="Initial learning rate") / parser.add_argument('--lr_decay', default=0.9, type=float, / help="The value multiplied by lr at each epoch. Set a larger value for larger epochs") / parser.add_argument('--lam_recon', default=0.0005 * 784, type=float, / help="The coefficient for the loss of decoder") / parser.add_argument('-r', '--routings', default=3, type=int, / help="Number of iterations used in routing algorithm. should > 0")  # num_routing should > 0 / parser.add_argument('--shift_pixels', default=2, type=int, / help="Number of pixels to shift at most in each direction.") / parser.add_argument('--data_dir', default='./data', / help="Directory of data. If no data, use \'--download\' flag to download it") / parser.add_argument('--download', action='store_true', / help="Download the required data.") / parser.add_argument('--save_dir', default='./result') / parser.add_argument('-t', '--testing', action='store_true', / help="Test the trained model on testing dataset") / parser.add_argument('-w', '--weights', default=None, / help="The path of the saved weights. Should be specified when testing") / args = parser.parse_args() / print(args) / if not os.path.exists(args.save_dir): / os.makedirs(args.save_dir) /  / # load data / train_loader, test_loader = load_mnist(args.data_dir, download=False, batch_size=args.batch_size) /  / # define model / model = CapsuleNet(input_size=[1, 28, 28], classes=10, routings=3) / model.cuda() / print(model) /  / # train or test / if args.weights is not None:  # init the model weights with provided one / model.load_state_dict(torch.load(args.weights)) / if not args.testing: / train(model, train_loader, test_loader, args) / else:  # testing / if args.weights is None: / print('No weights are provided. Will test using random initialized weights.') / test_loss, test_acc = test(model=model, test_loader=test_loader, args=args) / print('test acc = %.4f, test loss = %.5f' % (test_acc, test_loss)) / show_reconstruction(model, test_loader, 50, args)` -> `pass  # realcode: the command-line entry (argparse, MNIST, training with file logs) replaced by the driver cell below`: the `if __name__ == "__main__":` entry (argparse, MNIST download, train() with its csv log and saved weights) replaced by the driver cell below
# realcode-input: images = rand(4, 1, 28, 28)
# realcode-input: labels = randint(0, 10, 4)
# realcode-output: losses y_pred_test x_recon_test pred model.*
# %% realcode: capsulelayers.py
"""
Some key layers used for constructing a Capsule Network. These layers can used to construct CapsNet on other dataset,
not just on MNIST.

Author: Xifeng Guo, E-mail: `guoxifeng1990@163.com`, Github: `https://github.com/XifengGuo/CapsNet-Pytorch`
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


def squash(inputs, axis=-1):
    """
    The non-linear activation used in Capsule. It drives the length of a large vector to near 1 and small vector to 0
    :param inputs: vectors to be squashed
    :param axis: the axis to squash
    :return: a Tensor with same size as inputs
    """
    norm = torch.norm(inputs, p=2, dim=axis, keepdim=True)
    scale = norm**2 / (1 + norm**2) / (norm + 1e-8)
    return scale * inputs


class DenseCapsule(nn.Module):
    """
    The dense capsule layer. It is similar to Dense (FC) layer. Dense layer has `in_num` inputs, each is a scalar, the
    output of the neuron from the former layer, and it has `out_num` output neurons. DenseCapsule just expands the
    output of the neuron from scalar to vector. So its input size = [None, in_num_caps, in_dim_caps] and output size = \
    [None, out_num_caps, out_dim_caps]. For Dense Layer, in_dim_caps = out_dim_caps = 1.

    :param in_num_caps: number of cpasules inputted to this layer
    :param in_dim_caps: dimension of input capsules
    :param out_num_caps: number of capsules outputted from this layer
    :param out_dim_caps: dimension of output capsules
    :param routings: number of iterations for the routing algorithm
    """
    def __init__(self, in_num_caps, in_dim_caps, out_num_caps, out_dim_caps, routings=3):
        super(DenseCapsule, self).__init__()
        self.in_num_caps = in_num_caps
        self.in_dim_caps = in_dim_caps
        self.out_num_caps = out_num_caps
        self.out_dim_caps = out_dim_caps
        self.routings = routings
        self.weight = nn.Parameter(0.01 * torch.randn(out_num_caps, in_num_caps, out_dim_caps, in_dim_caps))

    def forward(self, x):
        # x.size=[batch, in_num_caps, in_dim_caps]
        # expanded to    [batch, 1,            in_num_caps, in_dim_caps,  1]
        # weight.size   =[       out_num_caps, in_num_caps, out_dim_caps, in_dim_caps]
        # torch.matmul: [out_dim_caps, in_dim_caps] x [in_dim_caps, 1] -> [out_dim_caps, 1]
        # => x_hat.size =[batch, out_num_caps, in_num_caps, out_dim_caps]
        x_hat = torch.squeeze(torch.matmul(self.weight, x[:, None, :, :, None]), dim=-1)

        # In forward pass, `x_hat_detached` = `x_hat`;
        # In backward, no gradient can flow from `x_hat_detached` back to `x_hat`.
        x_hat_detached = x_hat.detach()

        # The prior for coupling coefficient, initialized as zeros.
        # b.size = [batch, out_num_caps, in_num_caps]
        b = Variable(torch.zeros(x.size(0), self.out_num_caps, self.in_num_caps))  # realcode: .cuda() left out

        assert self.routings > 0, 'The \'routings\' should be > 0.'
        for i in range(self.routings):
            # c.size = [batch, out_num_caps, in_num_caps]
            c = F.softmax(b, dim=1)

            # At last iteration, use `x_hat` to compute `outputs` in order to backpropagate gradient
            if i == self.routings - 1:
                # c.size expanded to [batch, out_num_caps, in_num_caps, 1           ]
                # x_hat.size     =   [batch, out_num_caps, in_num_caps, out_dim_caps]
                # => outputs.size=   [batch, out_num_caps, 1,           out_dim_caps]
                outputs = squash(torch.sum(c[:, :, :, None] * x_hat, dim=-2, keepdim=True))
                # outputs = squash(torch.matmul(c[:, :, None, :], x_hat))  # alternative way
            else:  # Otherwise, use `x_hat_detached` to update `b`. No gradients flow on this path.
                outputs = squash(torch.sum(c[:, :, :, None] * x_hat_detached, dim=-2, keepdim=True))
                # outputs = squash(torch.matmul(c[:, :, None, :], x_hat_detached))  # alternative way

                # outputs.size       =[batch, out_num_caps, 1,           out_dim_caps]
                # x_hat_detached.size=[batch, out_num_caps, in_num_caps, out_dim_caps]
                # => b.size          =[batch, out_num_caps, in_num_caps]
                b = b + torch.sum(outputs * x_hat_detached, dim=-1)

        return torch.squeeze(outputs, dim=-2)


class PrimaryCapsule(nn.Module):
    """
    Apply Conv2D with `out_channels` and then reshape to get capsules
    :param in_channels: input channels
    :param out_channels: output channels
    :param dim_caps: dimension of capsule
    :param kernel_size: kernel size
    :return: output tensor, size=[batch, num_caps, dim_caps]
    """
    def __init__(self, in_channels, out_channels, dim_caps, kernel_size, stride=1, padding=0):
        super(PrimaryCapsule, self).__init__()
        self.dim_caps = dim_caps
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        outputs = self.conv2d(x)
        outputs = outputs.view(x.size(0), -1, self.dim_caps)
        return squash(outputs)

# %% realcode: capsulenet.py
"""
Pytorch implementation of CapsNet in paper Dynamic Routing Between Capsules.
The current version maybe only works for TensorFlow backend. Actually it will be straightforward to re-write to TF code.
Adopting to other backends should be easy, but I have not tested this.

Usage:
       Launch `python CapsNet.py -h` for usage help

Result:
    Validation accuracy > 99.6% after 50 epochs.
    Speed: About 73s/epoch on a single GTX1070 GPU card and 43s/epoch on a GTX1080Ti GPU.

Author: Xifeng Guo, E-mail: `guoxifeng1990@163.com`, Github: `https://github.com/XifengGuo/CapsNet-Pytorch`
"""

import torch
from torch import nn
from torch.optim import Adam, lr_scheduler
from torch.autograd import Variable
pass  # realcode-dropped: from torchvision import transforms, datasets
pass  # realcode-inlined: from capsulelayers import DenseCapsule, PrimaryCapsule


class CapsuleNet(nn.Module):
    """
    A Capsule Network on MNIST.
    :param input_size: data size = [channels, width, height]
    :param classes: number of classes
    :param routings: number of routing iterations
    Shape:
        - Input: (batch, channels, width, height), optional (batch, classes) .
        - Output:((batch, classes), (batch, channels, width, height))
    """
    def __init__(self, input_size, classes, routings):
        super(CapsuleNet, self).__init__()
        self.input_size = input_size
        self.classes = classes
        self.routings = routings

        # Layer 1: Just a conventional Conv2D layer
        self.conv1 = nn.Conv2d(input_size[0], 16, kernel_size=9, stride=1, padding=0)  # realcode: 256 -> 16 channels

        # Layer 2: Conv2D layer with `squash` activation, then reshape to [None, num_caps, dim_caps]
        self.primarycaps = PrimaryCapsule(16, 32, 8, kernel_size=9, stride=2, padding=0)  # realcode: 256 -> 32 channels (4 capsule types)

        # Layer 3: Capsule layer. Routing algorithm works here.
        self.digitcaps = DenseCapsule(in_num_caps=4*6*6, in_dim_caps=8,  # realcode: 32*6*6 -> 4*6*6
                                      out_num_caps=classes, out_dim_caps=16, routings=routings)

        # Decoder network.
        self.decoder = nn.Sequential(
            nn.Linear(16*classes, 32),  # realcode: 512 -> 32
            nn.ReLU(inplace=True),
            nn.Linear(32, 64),  # realcode: 512, 1024 -> 32, 64
            nn.ReLU(inplace=True),
            nn.Linear(64, input_size[0] * input_size[1] * input_size[2]),  # realcode: 1024 -> 64
            nn.Sigmoid()
        )

        self.relu = nn.ReLU()

    def forward(self, x, y=None):
        x = self.relu(self.conv1(x))
        x = self.primarycaps(x)
        x = self.digitcaps(x)
        length = x.norm(dim=-1)
        if y is None:  # during testing, no label given. create one-hot coding using `length`
            index = length.max(dim=1)[1]
            y = Variable(torch.zeros(length.size()).scatter_(1, index.view(-1, 1).cpu().data, 1.))  # realcode: .cuda() left out
        reconstruction = self.decoder((x * y[:, :, None]).view(x.size(0), -1))
        return length, reconstruction.view(-1, *self.input_size)


def caps_loss(y_true, y_pred, x, x_recon, lam_recon):
    """
    Capsule loss = Margin loss + lam_recon * reconstruction loss.
    :param y_true: true labels, one-hot coding, size=[batch, classes]
    :param y_pred: predicted labels by CapsNet, size=[batch, classes]
    :param x: input data, size=[batch, channels, width, height]
    :param x_recon: reconstructed data, size is same as `x`
    :param lam_recon: coefficient for reconstruction loss
    :return: Variable contains a scalar loss value.
    """
    L = y_true * torch.clamp(0.9 - y_pred, min=0.) ** 2 + \
        0.5 * (1 - y_true) * torch.clamp(y_pred - 0.1, min=0.) ** 2
    L_margin = L.sum(dim=1).mean()

    L_recon = nn.MSELoss()(x_recon, x)

    return L_margin + lam_recon * L_recon


def show_reconstruction(model, test_loader, n_images, args):
    import matplotlib.pyplot as plt
    from utils import combine_images
    from PIL import Image
    import numpy as np

    model.eval()
    for x, _ in test_loader:
        x = Variable(x[:min(n_images, x.size(0))].cuda(), volatile=True)
        _, x_recon = model(x)
        data = np.concatenate([x.data, x_recon.data])
        img = combine_images(np.transpose(data, [0, 2, 3, 1]))
        image = img * 255
        Image.fromarray(image.astype(np.uint8)).save(args.save_dir + "/real_and_recon.png")
        print()
        print('Reconstructed images are saved to %s/real_and_recon.png' % args.save_dir)
        print('-' * 70)
        plt.imshow(plt.imread(args.save_dir + "/real_and_recon.png", ))
        plt.show()
        break


def test(model, test_loader, args):
    model.eval()
    test_loss = 0
    correct = 0
    for x, y in test_loader:
        y = torch.zeros(y.size(0), 10).scatter_(1, y.view(-1, 1), 1.)
        x, y = Variable(x.cuda(), volatile=True), Variable(y.cuda())
        y_pred, x_recon = model(x)
        test_loss += caps_loss(y, y_pred, x, x_recon, args.lam_recon).data[0] * x.size(0)  # sum up batch loss
        y_pred = y_pred.data.max(1)[1]
        y_true = y.data.max(1)[1]
        correct += y_pred.eq(y_true).cpu().sum()

    test_loss /= len(test_loader.dataset)
    return test_loss, correct / len(test_loader.dataset)


def train(model, train_loader, test_loader, args):
    """
    Training a CapsuleNet
    :param model: the CapsuleNet model
    :param train_loader: torch.utils.data.DataLoader for training data
    :param test_loader: torch.utils.data.DataLoader for test data
    :param args: arguments
    :return: The trained model
    """
    print('Begin Training' + '-'*70)
    from time import time
    import csv
    logfile = open(args.save_dir + '/log.csv', 'w')
    logwriter = csv.DictWriter(logfile, fieldnames=['epoch', 'loss', 'val_loss', 'val_acc'])
    logwriter.writeheader()

    t0 = time()
    optimizer = Adam(model.parameters(), lr=args.lr)
    lr_decay = lr_scheduler.ExponentialLR(optimizer, gamma=args.lr_decay)
    best_val_acc = 0.
    for epoch in range(args.epochs):
        model.train()  # set to training mode
        lr_decay.step()  # decrease the learning rate by multiplying a factor `gamma`
        ti = time()
        training_loss = 0.0
        for i, (x, y) in enumerate(train_loader):  # batch training
            y = torch.zeros(y.size(0), 10).scatter_(1, y.view(-1, 1), 1.)  # change to one-hot coding
            x, y = Variable(x.cuda()), Variable(y.cuda())  # convert input data to GPU Variable

            optimizer.zero_grad()  # set gradients of optimizer to zero
            y_pred, x_recon = model(x, y)  # forward
            loss = caps_loss(y, y_pred, x, x_recon, args.lam_recon)  # compute loss
            loss.backward()  # backward, compute all gradients of loss w.r.t all Variables
            training_loss += loss.data[0] * x.size(0)  # record the batch loss
            optimizer.step()  # update the trainable parameters with computed gradients

        # compute validation loss and acc
        val_loss, val_acc = test(model, test_loader, args)
        logwriter.writerow(dict(epoch=epoch, loss=training_loss / len(train_loader.dataset),
                                val_loss=val_loss, val_acc=val_acc))
        print("==> Epoch %02d: loss=%.5f, val_loss=%.5f, val_acc=%.4f, time=%ds"
              % (epoch, training_loss / len(train_loader.dataset),
                 val_loss, val_acc, time() - ti))
        if val_acc > best_val_acc:  # update best validation acc and save model
            best_val_acc = val_acc
            torch.save(model.state_dict(), args.save_dir + '/epoch%d.pkl' % epoch)
            print("best val_acc increased to %.4f" % best_val_acc)
    logfile.close()
    torch.save(model.state_dict(), args.save_dir + '/trained_model.pkl')
    print('Trained model saved to \'%s/trained_model.h5\'' % args.save_dir)
    print("Total time = %ds" % (time() - t0))
    print('End Training' + '-' * 70)
    return model


def load_mnist(path='./data', download=False, batch_size=100, shift_pixels=2):
    """
    Construct dataloaders for training and test data. Data augmentation is also done here.
    :param path: file path of the dataset
    :param download: whether to download the original data
    :param batch_size: batch size
    :param shift_pixels: maximum number of pixels to shift in each direction
    :return: train_loader, test_loader
    """
    kwargs = {'num_workers': 1, 'pin_memory': True}

    train_loader = torch.utils.data.DataLoader(
        datasets.MNIST(path, train=True, download=download,
                       transform=transforms.Compose([transforms.RandomCrop(size=28, padding=shift_pixels),
                                                     transforms.ToTensor()])),
        batch_size=batch_size, shuffle=True, **kwargs)
    test_loader = torch.utils.data.DataLoader(
        datasets.MNIST(path, train=False, download=download,
                       transform=transforms.ToTensor()),
        batch_size=batch_size, shuffle=True, **kwargs)

    return train_loader, test_loader


pass  # realcode: the command-line entry (argparse, MNIST, training with file logs) replaced by the driver cell below

# %% realcode: driver built from train() (its inner loop body) and test() of capsulenet.py: 3 steps on one synthetic batch of 4 28x28 images, then the test-mode forward (y=None: the one-hot of the longest capsule); the .cuda() moves left out (CPU), and train()'s `training_loss += loss.data[0] * x.size(0)` bookkeeping left out (PyTorch 0.3's indexing of a 0-dim tensor, an IndexError in today's PyTorch)
class args:  # realcode: the script's argparse defaults that train() reads (lr 0.001, lam_recon 0.0005 * 784)
    lr = 0.001; lr_decay = 0.9; lam_recon = 0.0005 * 784; routings = 3

model = CapsuleNet(input_size=[1, 28, 28], classes=10, routings=3)
# %% realcode-load: model
optimizer = Adam(model.parameters(), lr=args.lr)
lr_decay = lr_scheduler.ExponentialLR(optimizer, gamma=args.lr_decay)
model.train()  # set to training mode
lr_decay.step()  # decrease the learning rate by multiplying a factor `gamma`
losses = []
for i, (x, y) in enumerate([(images, labels)] * 3):  # batch training
    y = torch.zeros(y.size(0), 10).scatter_(1, y.view(-1, 1), 1.)  # change to one-hot coding
    x, y = Variable(x), Variable(y)  # realcode: .cuda() left out

    optimizer.zero_grad()  # set gradients of optimizer to zero
    y_pred, x_recon = model(x, y)  # forward
    loss = caps_loss(y, y_pred, x, x_recon, args.lam_recon)  # compute loss
    loss.backward()  # backward, compute all gradients of loss w.r.t all Variables
    losses.append(loss.item())  # realcode: the loss recorded
    optimizer.step()  # update the trainable parameters with computed gradients

model.eval()
y_pred_test, x_recon_test = model(images)
pred = y_pred_test.data.max(1)[1]
