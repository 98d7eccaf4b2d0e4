# realcode: fungtion/DANN @ 476147f70bb818a63bb3461a6ecc12f97f7ab15e
# realcode: https://github.com/fungtion/DANN/blob/476147f70bb818a63bb3461a6ecc12f97f7ab15e/models/functions.py
# realcode: https://github.com/fungtion/DANN/blob/476147f70bb818a63bb3461a6ecc12f97f7ab15e/models/model.py
# realcode: https://github.com/fungtion/DANN/blob/476147f70bb818a63bb3461a6ecc12f97f7ab15e/train/main.py
# realcode: kept as written except for these adaptations:
#   - models/functions.py and models/model.py as written, one after the other, then a driver cell built from train/main.py's loop (Python 2: its print statements and xrange are not pasted): synthetic MNIST-shaped source images with labels and MNIST-M-shaped target images (batches of 8 instead of 128), the loss err_s_label + err_s_domain + err_t_domain with alpha from the schedule, Adam(lr=1e-3)
#   - `from functions import ReverseLayerF` -> `pass  # realcode-inlined: from functions import ReverseLayerF`: the package's own import (functions.py is pasted above)
#   - the model's Dropout2d layers draw masks the session cannot reproduce: the loss and every gradient are first computed once with the model in eval mode (running statistics, no dropout; the gradient reversal still applies), compared by value; then 2 training steps as main.py runs them, compared by shape only
# realcode-input: s_img = randn(8, 1, 28, 28)
# realcode-input: s_label = randint(0, 10, 8)
# realcode-input: t_img = randn(8, 3, 28, 28)
# realcode-output: eval_err eval_class eval_domain eval_grads my_net.*
# realcode-shape-only: my_net (trained with dropout)
# %% realcode: models/functions.py
from torch.autograd import Function


class ReverseLayerF(Function):

    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha

        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        output = grad_output.neg() * ctx.alpha

        return output, None



# %% realcode: models/model.py
import torch.nn as nn
pass  # realcode-inlined: from functions import ReverseLayerF


class CNNModel(nn.Module):

    def __init__(self):
        super(CNNModel, self).__init__()
        self.feature = nn.Sequential()
        self.feature.add_module('f_conv1', nn.Conv2d(3, 64, kernel_size=5))
        self.feature.add_module('f_bn1', nn.BatchNorm2d(64))
        self.feature.add_module('f_pool1', nn.MaxPool2d(2))
        self.feature.add_module('f_relu1', nn.ReLU(True))
        self.feature.add_module('f_conv2', nn.Conv2d(64, 50, kernel_size=5))
        self.feature.add_module('f_bn2', nn.BatchNorm2d(50))
        self.feature.add_module('f_drop1', nn.Dropout2d())
        self.feature.add_module('f_pool2', nn.MaxPool2d(2))
        self.feature.add_module('f_relu2', nn.ReLU(True))

        self.class_classifier = nn.Sequential()
        self.class_classifier.add_module('c_fc1', nn.Linear(50 * 4 * 4, 100))
        self.class_classifier.add_module('c_bn1', nn.BatchNorm1d(100))
        self.class_classifier.add_module('c_relu1', nn.ReLU(True))
        self.class_classifier.add_module('c_drop1', nn.Dropout2d())
        self.class_classifier.add_module('c_fc2', nn.Linear(100, 100))
        self.class_classifier.add_module('c_bn2', nn.BatchNorm1d(100))
        self.class_classifier.add_module('c_relu2', nn.ReLU(True))
        self.class_classifier.add_module('c_fc3', nn.Linear(100, 10))
        self.class_classifier.add_module('c_softmax', nn.LogSoftmax())

        self.domain_classifier = nn.Sequential()
        self.domain_classifier.add_module('d_fc1', nn.Linear(50 * 4 * 4, 100))
        self.domain_classifier.add_module('d_bn1', nn.BatchNorm1d(100))
        self.domain_classifier.add_module('d_relu1', nn.ReLU(True))
        self.domain_classifier.add_module('d_fc2', nn.Linear(100, 2))
        self.domain_classifier.add_module('d_softmax', nn.LogSoftmax(dim=1))

    def forward(self, input_data, alpha):
        input_data = input_data.expand(input_data.data.shape[0], 3, 28, 28)
        feature = self.feature(input_data)
        feature = feature.view(-1, 50 * 4 * 4)
        reverse_feature = ReverseLayerF.apply(feature, alpha)
        class_output = self.class_classifier(feature)
        domain_output = self.domain_classifier(reverse_feature)

        return class_output, domain_output

# %% realcode: driver cell, train/main.py's loop on synthetic batches
import numpy as np
import torch.optim as optim
import torch.utils.data
lr = 1e-3
image_size = 28
n_epoch = 100
my_net = CNNModel()
# %% realcode-load: my_net
optimizer = optim.Adam(my_net.parameters(), lr=lr)
loss_class = torch.nn.NLLLoss()
loss_domain = torch.nn.NLLLoss()
for p in my_net.parameters():
    p.requires_grad = True

# the loss and gradients once in eval mode (no dropout masks), alpha at p = 0.3
my_net.eval()
alpha = 2. / (1. + np.exp(-10 * 0.3)) - 1
my_net.zero_grad()
class_output, domain_output = my_net(input_data=s_img, alpha=alpha)
err_s_label = loss_class(class_output, s_label)
err_s_domain = loss_domain(domain_output, torch.zeros(8).long())
_, t_domain_output = my_net(input_data=t_img, alpha=alpha)
err_t_domain = loss_domain(t_domain_output, torch.ones(8).long())
err = err_t_domain + err_s_domain + err_s_label
err.backward()
eval_err = err.detach()
eval_class = class_output.detach()
eval_domain = torch.cat([domain_output, t_domain_output]).detach()
eval_grads = torch.cat([p.grad.flatten() for p in my_net.parameters()])

my_net.train()
len_dataloader = 2
epoch = 0
i = 0
while i < len_dataloader:
    p = float(i + epoch * len_dataloader) / n_epoch / len_dataloader
    alpha = 2. / (1. + np.exp(-10 * p)) - 1

    # training model using source data
    my_net.zero_grad()
    batch_size = len(s_label)
    input_img = torch.FloatTensor(batch_size, 3, image_size, image_size)
    class_label = torch.LongTensor(batch_size)
    domain_label = torch.zeros(batch_size)
    domain_label = domain_label.long()

    input_img.resize_as_(s_img).copy_(s_img)
    class_label.resize_as_(s_label).copy_(s_label)
    class_output, domain_output = my_net(input_data=input_img, alpha=alpha)
    err_s_label = loss_class(class_output, class_label)
    err_s_domain = loss_domain(domain_output, domain_label)

    # training model using target data
    batch_size = len(t_img)

    input_img = torch.FloatTensor(batch_size, 3, image_size, image_size)
    domain_label = torch.ones(batch_size)
    domain_label = domain_label.long()

    input_img.resize_as_(t_img).copy_(t_img)
    _, domain_output = my_net(input_data=input_img, alpha=alpha)
    err_t_domain = loss_domain(domain_output, domain_label)
    err = err_t_domain + err_s_domain + err_s_label
    err.backward()
    optimizer.step()

    i += 1
