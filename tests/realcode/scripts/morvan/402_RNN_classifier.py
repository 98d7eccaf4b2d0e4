# realcode: MorvanZhou/PyTorch-Tutorial @ dbe154a9e56635e51c6b0c2ccea8ae36cfb585a7
# realcode: https://github.com/MorvanZhou/PyTorch-Tutorial/blob/dbe154a9e56635e51c6b0c2ccea8ae36cfb585a7/tutorial-contents/402_RNN_classifier.py
# realcode: kept as written except for these adaptations:
#   - 64 training images (BATCH_SIZE): one batch per epoch: the loss and gradients do not depend on the order DataLoader's shuffle picks (it draws from the session's generator, not PyTorch's)
#   - dropped (plotting / file I/O / argparse / download): `plt.imshow(train_data.train_data[0].numpy(), cmap='gray')`
#   - dropped (plotting / file I/O / argparse / download): `plt.title('%i' % train_data.train_labels[0])`
#   - dropped (plotting / file I/O / argparse / download): `plt.show()`
#   - dropped (plotting / file I/O / argparse / download): `import matplotlib.pyplot as plt`
#   - dropped (plotting / file I/O / argparse / download): `print(train_data.train_data.size())     # (60000, 28, 28)`
#   - dropped (plotting / file I/O / argparse / download): `print(train_data.train_labels.size())   # (60000)`
#   - dropped (plotting / file I/O / argparse / download): `import torchvision.datasets as dsets`
#   - dropped (plotting / file I/O / argparse / download): `import torchvision.transforms as transforms`
#   - `train_data = dsets.MNIST( / root='./mnist/', / train=True, # this is training data / transform=transforms.ToTensor(), # Converts a PIL.Image or numpy.ndarray to / # torch.FloatTensor of shape (C x H x W) and normalize in the range [0.0, 1.0] / download=DOWNLOAD_MNIST, # download it if you don't have it / )` -> `train_data = list(zip(train_images, train_labels))`: replace the MNIST download with synthetic images and labels passed as inputs
#   - `test_data = dsets.MNIST(root='./mnist/', train=False, transform=transforms.ToTensor())` -> `pass`: replace the MNIST download with synthetic images and labels passed as inputs
#   - `test_x = test_data.test_data.type(torch.FloatTensor)` -> `test_x = test_images.type(torch.FloatTensor)`: replace the MNIST download with synthetic images and labels passed as inputs
#   - `test_y = test_data.test_labels.numpy()[:2000]` -> `test_y = test_labels.numpy()[:2000]`: replace the MNIST download with synthetic images and labels passed as inputs
#   - `optimizer = torch.optim.Adam(rnn.parameters(), lr=LR)` -> `# %% realcode-load: rnn / optimizer = torch.optim.Adam(rnn.parameters(), lr=LR)`: cell marker: PyTorch's random data / initial weights above are copied in
# realcode-input: train_images = rand(64, 1, 28, 28)
# realcode-input: train_labels = randint(0, 10, 64)
# realcode-input: test_images = randint(0, 256, 20, 28, 28)
# realcode-input: test_labels = randint(0, 10, 20)
# realcode-output: loss test_output rnn.out.weight rnn.out.bias rnn.rnn.bias_hh_l0
"""
View more, visit my tutorial page: https://mofanpy.com/tutorials/
My Youtube Channel: https://www.youtube.com/user/MorvanZhou

Dependencies:
torch: 0.4
matplotlib
torchvision
"""
import torch
from torch import nn
pass  # realcode-dropped: import torchvision.datasets as dsets
pass  # realcode-dropped: import torchvision.transforms as transforms
pass  # realcode-dropped: import matplotlib.pyplot as plt


# torch.manual_seed(1)    # reproducible

# Hyper Parameters
EPOCH = 1               # train the training data n times, to save time, we just train 1 epoch
BATCH_SIZE = 64
TIME_STEP = 28          # rnn time step / image height
INPUT_SIZE = 28         # rnn input size / image width
LR = 0.01               # learning rate
DOWNLOAD_MNIST = True   # set to True if haven't download the data


# Mnist digital dataset
train_data = list(zip(train_images, train_labels))

# plot one example
pass  # realcode-dropped: print(train_data.train_data.size())     # (60000, 28, 28)
pass  # realcode-dropped: print(train_data.train_labels.size())   # (60000)
pass  # realcode-dropped: plt.imshow(train_data.train_data[0].numpy(), cmap='gray')
pass  # realcode-dropped: plt.title('%i' % train_data.train_labels[0])
pass  # realcode-dropped: plt.show()

# Data Loader for easy mini-batch return in training
train_loader = torch.utils.data.DataLoader(dataset=train_data, batch_size=BATCH_SIZE, shuffle=True)

# convert test data into Variable, pick 2000 samples to speed up testing
pass
test_x = test_images.type(torch.FloatTensor)[:2000]/255.   # shape (2000, 28, 28) value in range(0,1)
test_y = test_labels.numpy()[:2000]    # covert to numpy array


class RNN(nn.Module):
    def __init__(self):
        super(RNN, self).__init__()

        self.rnn = nn.LSTM(         # if use nn.RNN(), it hardly learns
            input_size=INPUT_SIZE,
            hidden_size=64,         # rnn hidden unit
            num_layers=1,           # number of rnn layer
            batch_first=True,       # input & output will has batch size as 1s dimension. e.g. (batch, time_step, input_size)
        )

        self.out = nn.Linear(64, 10)

    def forward(self, x):
        # x shape (batch, time_step, input_size)
        # r_out shape (batch, time_step, output_size)
        # h_n shape (n_layers, batch, hidden_size)
        # h_c shape (n_layers, batch, hidden_size)
        r_out, (h_n, h_c) = self.rnn(x, None)   # None represents zero initial hidden state

        # choose r_out at the last time step
        out = self.out(r_out[:, -1, :])
        return out


rnn = RNN()
print(rnn)

# %% realcode-load: rnn
optimizer = torch.optim.Adam(rnn.parameters(), lr=LR)   # optimize all cnn parameters
loss_func = nn.CrossEntropyLoss()                       # the target label is not one-hotted

# training and testing
for epoch in range(EPOCH):
    for step, (b_x, b_y) in enumerate(train_loader):        # gives batch data
        b_x = b_x.view(-1, 28, 28)              # reshape x to (batch, time_step, input_size)

        output = rnn(b_x)                               # rnn output
        loss = loss_func(output, b_y)                   # cross entropy loss
        optimizer.zero_grad()                           # clear gradients for this training step
        loss.backward()                                 # backpropagation, compute gradients
        optimizer.step()                                # apply gradients

        if step % 50 == 0:
            test_output = rnn(test_x)                   # (samples, time_step, input_size)
            pred_y = torch.max(test_output, 1)[1].data.numpy()
            accuracy = float((pred_y == test_y).astype(int).sum()) / float(test_y.size)
            print('Epoch: ', epoch, '| train loss: %.4f' % loss.data.numpy(), '| test accuracy: %.2f' % accuracy)

# print 10 predictions from test data
test_output = rnn(test_x[:10].view(-1, 28, 28))
pred_y = torch.max(test_output, 1)[1].data.numpy()
print(pred_y, 'prediction number')
print(test_y[:10], 'real number')

