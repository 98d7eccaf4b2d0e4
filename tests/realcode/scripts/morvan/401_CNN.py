# realcode: MorvanZhou/PyTorch-Tutorial @ dbe154a9e56635e51c6b0c2ccea8ae36cfb585a7
# realcode: https://github.com/MorvanZhou/PyTorch-Tutorial/blob/dbe154a9e56635e51c6b0c2ccea8ae36cfb585a7/tutorial-contents/401_CNN.py
# realcode: kept as written except for these adaptations:
#   - 50 training images (BATCH_SIZE): one batch per epoch: the loss and gradients do not depend on the order DataLoader's shuffle picks (it draws from the session's generator, not PyTorch's)
#   - dropped (plotting / file I/O / argparse / download): `plt.imshow(train_data.train_data[0].numpy(), cmap='gray')`
#   - dropped (plotting / file I/O / argparse / download): `plt.title('%i' % train_data.train_labels[0])`
#   - dropped (plotting / file I/O / argparse / download): `plt.show()`
#   - dropped (plotting / file I/O / argparse / download): `plt.cla()`
#   - dropped (plotting / file I/O / argparse / download): `c = cm.rainbow(int(255 * s / 9)); plt.text(x, y, s, backgroundcolor=c, fontsize=9)`
#   - dropped (plotting / file I/O / argparse / download): `plt.xlim(X.min(), X.max()); plt.ylim(Y.min(), Y.max()); plt.title('Visualize last layer'); plt.show(); plt.pause(0.01)`
#   - dropped (plotting / file I/O / argparse / download): `plt.ion()`
#   - dropped (plotting / file I/O / argparse / download): `plt.ioff()`
#   - dropped (plotting / file I/O / argparse / download): `import matplotlib.pyplot as plt`
#   - dropped (plotting / file I/O / argparse / download): `from matplotlib import cm`
#   - dropped (plotting / file I/O / argparse / download): `print(train_data.train_data.size())                 # (60000, 28, 28)`
#   - dropped (plotting / file I/O / argparse / download): `print(train_data.train_labels.size())               # (60000)`
#   - dropped (plotting / file I/O / argparse / download): `import os`
#   - `if not(os.path.exists('./mnist/')) or not os.listdir('./mnist/'): / # not mnist dir or mnist is empyt dir / DOWNLOAD_MNIST = True` -> ``: drop the download check (file I/O)
#   - `train_data = torchvision.datasets.MNIST( / root='./mnist/', / train=True, # this is training data / transform=torchvision.transforms.ToTensor(), # Converts a PIL.Image or numpy.ndarray to / # torch.FloatTensor of shape (C x H x W) and normalize in the range [0.0, 1.0] / download=DOWNLOAD_MNIST, / )` -> `train_data = list(zip(train_images, train_labels))`: replace the MNIST download with synthetic images and labels passed as inputs
#   - `test_data = torchvision.datasets.MNIST(root='./mnist/', train=False)` -> `pass`: replace the MNIST download with synthetic images and labels passed as inputs
#   - `torch.unsqueeze(test_data.test_data, dim=1)` -> `torch.unsqueeze(test_images, dim=1)`: replace the MNIST download with synthetic images and labels passed as inputs
#   - `test_y = test_data.test_labels[:2000]` -> `test_y = test_labels[:2000]`: replace the MNIST download with synthetic images and labels passed as inputs
#   - `optimizer = torch.optim.Adam(cnn.parameters(), lr=LR)` -> `# %% realcode-load: cnn / optimizer = torch.optim.Adam(cnn.parameters(), lr=LR)`: cell marker: PyTorch's random data / initial weights above are copied in
#   - `import torchvision` -> ``: torchvision is not used once MNIST is replaced
# realcode-input: train_images = rand(50, 1, 28, 28)
# realcode-input: train_labels = randint(0, 10, 50)
# realcode-input: test_images = randint(0, 256, 20, 28, 28)
# realcode-input: test_labels = randint(0, 10, 20)
# realcode-output: loss test_output pred_y cnn.conv1.0.weight cnn.conv1.0.bias cnn.out.bias
"""
View more, visit my tutorial page: https://mofanpy.com/tutorials/
My Youtube Channel: https://www.youtube.com/user/MorvanZhou

Dependencies:
torch: 0.4
torchvision
matplotlib
"""
# library
# standard library
pass  # realcode-dropped: import os

# third-party library
import torch
import torch.nn as nn
import torch.utils.data as Data
pass  # realcode-dropped: import matplotlib.pyplot as plt

# torch.manual_seed(1)    # reproducible

# Hyper Parameters
EPOCH = 1               # train the training data n times, to save time, we just train 1 epoch
BATCH_SIZE = 50
LR = 0.001              # learning rate
DOWNLOAD_MNIST = False


# Mnist digits dataset

train_data = list(zip(train_images, train_labels))

# plot one example
pass  # realcode-dropped: print(train_data.train_data.size())                 # (60000, 28, 28)
pass  # realcode-dropped: print(train_data.train_labels.size())               # (60000)
pass  # realcode-dropped: plt.imshow(train_data.train_data[0].numpy(), cmap='gray')
pass  # realcode-dropped: plt.title('%i' % train_data.train_labels[0])
pass  # realcode-dropped: plt.show()

# Data Loader for easy mini-batch return in training, the image batch shape will be (50, 1, 28, 28)
train_loader = Data.DataLoader(dataset=train_data, batch_size=BATCH_SIZE, shuffle=True)

# pick 2000 samples to speed up testing
pass
test_x = torch.unsqueeze(test_images, dim=1).type(torch.FloatTensor)[:2000]/255.   # shape from (2000, 28, 28) to (2000, 1, 28, 28), value in range(0,1)
test_y = test_labels[:2000]


class CNN(nn.Module):
    def __init__(self):
        super(CNN, self).__init__()
        self.conv1 = nn.Sequential(         # input shape (1, 28, 28)
            nn.Conv2d(
                in_channels=1,              # input height
                out_channels=16,            # n_filters
                kernel_size=5,              # filter size
                stride=1,                   # filter movement/step
                padding=2,                  # if want same width and length of this image after Conv2d, padding=(kernel_size-1)/2 if stride=1
            ),                              # output shape (16, 28, 28)
            nn.ReLU(),                      # activation
            nn.MaxPool2d(kernel_size=2),    # choose max value in 2x2 area, output shape (16, 14, 14)
        )
        self.conv2 = nn.Sequential(         # input shape (16, 14, 14)
            nn.Conv2d(16, 32, 5, 1, 2),     # output shape (32, 14, 14)
            nn.ReLU(),                      # activation
            nn.MaxPool2d(2),                # output shape (32, 7, 7)
        )
        self.out = nn.Linear(32 * 7 * 7, 10)   # fully connected layer, output 10 classes

    def forward(self, x):
        x = self.conv1(x)
        x = self.conv2(x)
        x = x.view(x.size(0), -1)           # flatten the output of conv2 to (batch_size, 32 * 7 * 7)
        output = self.out(x)
        return output, x    # return x for visualization


cnn = CNN()
print(cnn)  # net architecture

# %% realcode-load: cnn
optimizer = torch.optim.Adam(cnn.parameters(), lr=LR)   # optimize all cnn parameters
loss_func = nn.CrossEntropyLoss()                       # the target label is not one-hotted

# following function (plot_with_labels) is for visualization, can be ignored if not interested
pass  # realcode-dropped: from matplotlib import cm
try: from sklearn.manifold import TSNE; HAS_SK = True
except: HAS_SK = False; print('Please install sklearn for layer visualization')
def plot_with_labels(lowDWeights, labels):
    pass  # realcode-dropped: plt.cla()
    X, Y = lowDWeights[:, 0], lowDWeights[:, 1]
    for x, y, s in zip(X, Y, labels):
        pass  # realcode-dropped: c = cm.rainbow(int(255 * s / 9)); plt.text(x, y, s, backgroundcolor=c, fontsize=9)
    pass  # realcode-dropped: plt.xlim(X.min(), X.max()); plt.ylim(Y.min(), Y.max()); plt.title('Visualize last layer'); plt.show(); plt.pause(0.01)

pass  # realcode-dropped: plt.ion()
# training and testing
for epoch in range(EPOCH):
    for step, (b_x, b_y) in enumerate(train_loader):   # gives batch data, normalize x when iterate train_loader

        output = cnn(b_x)[0]               # cnn output
        loss = loss_func(output, b_y)   # cross entropy loss
        optimizer.zero_grad()           # clear gradients for this training step
        loss.backward()                 # backpropagation, compute gradients
        optimizer.step()                # apply gradients

        if step % 50 == 0:
            test_output, last_layer = cnn(test_x)
            pred_y = torch.max(test_output, 1)[1].data.numpy()
            accuracy = float((pred_y == test_y.data.numpy()).astype(int).sum()) / float(test_y.size(0))
            print('Epoch: ', epoch, '| train loss: %.4f' % loss.data.numpy(), '| test accuracy: %.2f' % accuracy)
            if HAS_SK:
                # Visualization of trained flatten layer (T-SNE)
                tsne = TSNE(perplexity=30, n_components=2, init='pca', n_iter=5000)
                plot_only = 500
                low_dim_embs = tsne.fit_transform(last_layer.data.numpy()[:plot_only, :])
                labels = test_y.numpy()[:plot_only]
                plot_with_labels(low_dim_embs, labels)
pass  # realcode-dropped: plt.ioff()

# print 10 predictions from test data
test_output, _ = cnn(test_x[:10])
pred_y = torch.max(test_output, 1)[1].data.numpy()
print(pred_y, 'prediction number')
print(test_y[:10].numpy(), 'real number')
