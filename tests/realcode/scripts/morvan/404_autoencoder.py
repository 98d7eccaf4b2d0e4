# realcode: MorvanZhou/PyTorch-Tutorial @ dbe154a9e56635e51c6b0c2ccea8ae36cfb585a7
# realcode: https://github.com/MorvanZhou/PyTorch-Tutorial/blob/dbe154a9e56635e51c6b0c2ccea8ae36cfb585a7/tutorial-contents/404_autoencoder.py
# realcode: kept as written except for these adaptations:
#   - 64 training images (BATCH_SIZE): one batch per epoch: the loss and gradients do not depend on the order DataLoader's shuffle picks (it draws from the session's generator, not PyTorch's)
#   - dropped (plotting / file I/O / argparse / download): `plt.imshow(train_data.train_data[2].numpy(), cmap='gray')`
#   - dropped (plotting / file I/O / argparse / download): `plt.title('%i' % train_data.train_labels[2])`
#   - dropped (plotting / file I/O / argparse / download): `plt.show()`
#   - dropped (plotting / file I/O / argparse / download): `f, a = plt.subplots(2, N_TEST_IMG, figsize=(5, 2))`
#   - dropped (plotting / file I/O / argparse / download): `plt.ion()   # continuously plot`
#   - dropped (plotting / file I/O / argparse / download): `plt.draw(); plt.pause(0.05)`
#   - dropped (plotting / file I/O / argparse / download): `plt.ioff()`
#   - dropped (plotting / file I/O / argparse / download): `plt.show()`
#   - dropped (plotting / file I/O / argparse / download): `fig = plt.figure(2); ax = Axes3D(fig)`
#   - dropped (plotting / file I/O / argparse / download): `plt.show()`
#   - dropped (plotting / file I/O / argparse / download): `import matplotlib.pyplot as plt`
#   - dropped (plotting / file I/O / argparse / download): `from matplotlib import cm`
#   - dropped (plotting / file I/O / argparse / download): `print(train_data.train_data.size())     # (60000, 28, 28)`
#   - dropped (plotting / file I/O / argparse / download): `print(train_data.train_labels.size())   # (60000)`
#   - dropped (plotting / file I/O / argparse / download): `from mpl_toolkits.mplot3d import Axes3D`
#   - dropped (plotting / file I/O / argparse / download): `import torchvision`
#   - dropped (plotting / file I/O / argparse / download): `a[0][i].imshow(np.reshape(view_data.data.numpy()[i], (28, 28)), cmap='gray'); a[0][i].set_xticks(()); a[0][i].set_yticks(())`
#   - dropped (plotting / file I/O / argparse / download): `a[1][i].imshow(np.reshape(decoded_data.data.numpy()[i], (28, 28)), cmap='gray')`
#   - dropped (plotting / file I/O / argparse / download): `a[1][i].clear()`
#   - dropped (plotting / file I/O / argparse / download): `a[1][i].set_xticks(()); a[1][i].set_yticks(())`
#   - dropped (plotting / file I/O / argparse / download): `c = cm.rainbow(int(255*s/9)); ax.text(x, y, z, s, backgroundcolor=c)`
#   - dropped (plotting / file I/O / argparse / download): `ax.set_xlim(X.min(), X.max()); ax.set_ylim(Y.min(), Y.max()); ax.set_zlim(Z.min(), Z.max())`
#   - `train_data = torchvision.datasets.MNIST( / root='./mnist/', / train=True, # this is training data / transform=torchvision.transforms.ToTensor(), # Converts a PIL.Image or numpy.ndarray to / # torch.FloatTensor of shape (C x H x W) and normalize in the range [0.0, 1.0] / download=DOWNLOAD_MNIST, # download it if you don't have it / )` -> `train_data = list(zip(train_images, train_labels))`: replace the MNIST download with synthetic images and labels passed as inputs
#   - `view_data = train_data.train_data[:N_TEST_IMG]` -> `view_data = train_images_uint8[:N_TEST_IMG]`: replace the MNIST download with synthetic images and labels passed as inputs
#   - `view_data = train_data.train_data[:200]` -> `view_data = train_images_uint8[:200]`: replace the MNIST download with synthetic images and labels passed as inputs
#   - `values = train_data.train_labels[:200].numpy()` -> `values = train_labels[:200].numpy()`: replace the MNIST download with synthetic images and labels passed as inputs
#   - `EPOCH = 10` -> `EPOCH = 3`: shrink 10 epochs to 3
#   - `optimizer = torch.optim.Adam(autoencoder.parameters(), lr=LR)` -> `# %% realcode-load: autoencoder / optimizer = torch.optim.Adam(autoencoder.parameters(), lr=LR)`: cell marker: PyTorch's random data / initial weights above are copied in
# realcode-input: train_images = rand(64, 1, 28, 28)
# realcode-input: train_labels = randint(0, 10, 64)
# realcode-input: train_images_uint8 = randint(0, 256, 64, 28, 28)
# realcode-output: loss encoded_data autoencoder.encoder.4.weight autoencoder.encoder.6.weight autoencoder.decoder.0.weight autoencoder.decoder.6.bias
"""
View more, visit my tutorial page: https://mofanpy.com/tutorials/
My Youtube Channel: https://www.youtube.com/user/MorvanZhou

Dependencies:
torch: 0.4
matplotlib
numpy
"""
import torch
import torch.nn as nn
import torch.utils.data as Data
pass  # realcode-dropped: import torchvision
pass  # realcode-dropped: import matplotlib.pyplot as plt
pass  # realcode-dropped: from mpl_toolkits.mplot3d import Axes3D
pass  # realcode-dropped: from matplotlib import cm
import numpy as np


# torch.manual_seed(1)    # reproducible

# Hyper Parameters
EPOCH = 3
BATCH_SIZE = 64
LR = 0.005         # learning rate
DOWNLOAD_MNIST = False
N_TEST_IMG = 5

# Mnist digits dataset
train_data = list(zip(train_images, train_labels))

# plot one example
pass  # realcode-dropped: print(train_data.train_data.size())     # (60000, 28, 28)
pass  # realcode-dropped: print(train_data.train_labels.size())   # (60000)
pass  # realcode-dropped: plt.imshow(train_data.train_data[2].numpy(), cmap='gray')
pass  # realcode-dropped: plt.title('%i' % train_data.train_labels[2])
pass  # realcode-dropped: plt.show()

# Data Loader for easy mini-batch return in training, the image batch shape will be (50, 1, 28, 28)
train_loader = Data.DataLoader(dataset=train_data, batch_size=BATCH_SIZE, shuffle=True)


class AutoEncoder(nn.Module):
    def __init__(self):
        super(AutoEncoder, self).__init__()

        self.encoder = nn.Sequential(
            nn.Linear(28*28, 128),
            nn.Tanh(),
            nn.Linear(128, 64),
            nn.Tanh(),
            nn.Linear(64, 12),
            nn.Tanh(),
            nn.Linear(12, 3),   # compress to 3 features which can be visualized in plt
        )
        self.decoder = nn.Sequential(
            nn.Linear(3, 12),
            nn.Tanh(),
            nn.Linear(12, 64),
            nn.Tanh(),
            nn.Linear(64, 128),
            nn.Tanh(),
            nn.Linear(128, 28*28),
            nn.Sigmoid(),       # compress to a range (0, 1)
        )

    def forward(self, x):
        encoded = self.encoder(x)
        decoded = self.decoder(encoded)
        return encoded, decoded


autoencoder = AutoEncoder()

# %% realcode-load: autoencoder
optimizer = torch.optim.Adam(autoencoder.parameters(), lr=LR)
loss_func = nn.MSELoss()

# initialize figure
pass  # realcode-dropped: f, a = plt.subplots(2, N_TEST_IMG, figsize=(5, 2))
pass  # realcode-dropped: plt.ion()   # continuously plot

# original data (first row) for viewing
view_data = train_images_uint8[:N_TEST_IMG].view(-1, 28*28).type(torch.FloatTensor)/255.
for i in range(N_TEST_IMG):
    pass  # realcode-dropped: a[0][i].imshow(np.reshape(view_data.data.numpy()[i], (28, 28)), cmap='gray'); a[0][i].set_xticks(()); a[0][i].set_yticks(())

for epoch in range(EPOCH):
    for step, (x, b_label) in enumerate(train_loader):
        b_x = x.view(-1, 28*28)   # batch x, shape (batch, 28*28)
        b_y = x.view(-1, 28*28)   # batch y, shape (batch, 28*28)

        encoded, decoded = autoencoder(b_x)

        loss = loss_func(decoded, b_y)      # mean square error
        optimizer.zero_grad()               # clear gradients for this training step
        loss.backward()                     # backpropagation, compute gradients
        optimizer.step()                    # apply gradients

        if step % 100 == 0:
            print('Epoch: ', epoch, '| train loss: %.4f' % loss.data.numpy())

            # plotting decoded image (second row)
            _, decoded_data = autoencoder(view_data)
            for i in range(N_TEST_IMG):
                pass  # realcode-dropped: a[1][i].clear()
                pass  # realcode-dropped: a[1][i].imshow(np.reshape(decoded_data.data.numpy()[i], (28, 28)), cmap='gray')
                pass  # realcode-dropped: a[1][i].set_xticks(()); a[1][i].set_yticks(())
            pass  # realcode-dropped: plt.draw(); plt.pause(0.05)

pass  # realcode-dropped: plt.ioff()
pass  # realcode-dropped: plt.show()

# visualize in 3D plot
view_data = train_images_uint8[:200].view(-1, 28*28).type(torch.FloatTensor)/255.
encoded_data, _ = autoencoder(view_data)
pass  # realcode-dropped: fig = plt.figure(2); ax = Axes3D(fig)
X, Y, Z = encoded_data.data[:, 0].numpy(), encoded_data.data[:, 1].numpy(), encoded_data.data[:, 2].numpy()
values = train_labels[:200].numpy()
for x, y, z, s in zip(X, Y, Z, values):
    pass  # realcode-dropped: c = cm.rainbow(int(255*s/9)); ax.text(x, y, z, s, backgroundcolor=c)
pass  # realcode-dropped: ax.set_xlim(X.min(), X.max()); ax.set_ylim(Y.min(), Y.max()); ax.set_zlim(Z.min(), Z.max())
pass  # realcode-dropped: plt.show()
