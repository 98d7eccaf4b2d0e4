# realcode: MorvanZhou/PyTorch-Tutorial @ dbe154a9e56635e51c6b0c2ccea8ae36cfb585a7
# realcode: https://github.com/MorvanZhou/PyTorch-Tutorial/blob/dbe154a9e56635e51c6b0c2ccea8ae36cfb585a7/tutorial-contents/301_regression.py
# realcode: kept as written except for these adaptations:
#   - dropped (plotting / file I/O / argparse / download): `# plt.scatter(x.data.numpy(), y.data.numpy())`
#   - dropped (plotting / file I/O / argparse / download): `# plt.show()`
#   - dropped (plotting / file I/O / argparse / download): `plt.ion()   # something about plotting`
#   - dropped (plotting / file I/O / argparse / download): `plt.cla()`
#   - dropped (plotting / file I/O / argparse / download): `plt.scatter(x.data.numpy(), y.data.numpy())`
#   - dropped (plotting / file I/O / argparse / download): `plt.plot(x.data.numpy(), prediction.data.numpy(), 'r-', lw=5)`
#   - dropped (plotting / file I/O / argparse / download): `plt.text(0.5, 0, 'Loss=%.4f' % loss.data.numpy(), fontdict={'size': 20, 'color':  'red'})`
#   - dropped (plotting / file I/O / argparse / download): `plt.pause(0.1)`
#   - dropped (plotting / file I/O / argparse / download): `plt.ioff()`
#   - dropped (plotting / file I/O / argparse / download): `plt.show()`
#   - dropped (plotting / file I/O / argparse / download): `import matplotlib.pyplot as plt`
#   - `optimizer = torch.optim.SGD` -> `# %% realcode-load: x y net / optimizer = torch.optim.SGD`: cell marker: PyTorch's random data / initial weights above are copied in
#   - `for t in range(200):` -> `for t in range(60):`: shrink 200 steps to 60
# realcode-output: loss prediction net.*
"""
View more, visit my tutorial page: https://mofanpy.com/tutorials/
My Youtube Channel: https://www.youtube.com/user/MorvanZhou

Dependencies:
torch: 0.4
matplotlib
"""
import torch
import torch.nn.functional as F
pass  # realcode-dropped: import matplotlib.pyplot as plt

# torch.manual_seed(1)    # reproducible

x = torch.unsqueeze(torch.linspace(-1, 1, 100), dim=1)  # x data (tensor), shape=(100, 1)
y = x.pow(2) + 0.2*torch.rand(x.size())                 # noisy y data (tensor), shape=(100, 1)

# torch can only train on Variable, so convert them to Variable
# The code below is deprecated in Pytorch 0.4. Now, autograd directly supports tensors
# x, y = Variable(x), Variable(y)

pass  # realcode-dropped: # plt.scatter(x.data.numpy(), y.data.numpy())
pass  # realcode-dropped: # plt.show()


class Net(torch.nn.Module):
    def __init__(self, n_feature, n_hidden, n_output):
        super(Net, self).__init__()
        self.hidden = torch.nn.Linear(n_feature, n_hidden)   # hidden layer
        self.predict = torch.nn.Linear(n_hidden, n_output)   # output layer

    def forward(self, x):
        x = F.relu(self.hidden(x))      # activation function for hidden layer
        x = self.predict(x)             # linear output
        return x

net = Net(n_feature=1, n_hidden=10, n_output=1)     # define the network
print(net)  # net architecture

# %% realcode-load: x y net
optimizer = torch.optim.SGD(net.parameters(), lr=0.2)
loss_func = torch.nn.MSELoss()  # this is for regression mean squared loss

pass  # realcode-dropped: plt.ion()   # something about plotting

for t in range(60):
    prediction = net(x)     # input x and predict based on x

    loss = loss_func(prediction, y)     # must be (1. nn output, 2. target)

    optimizer.zero_grad()   # clear gradients for next train
    loss.backward()         # backpropagation, compute gradients
    optimizer.step()        # apply gradients

    if t % 5 == 0:
        # plot and show learning process
        pass  # realcode-dropped: plt.cla()
        pass  # realcode-dropped: plt.scatter(x.data.numpy(), y.data.numpy())
        pass  # realcode-dropped: plt.plot(x.data.numpy(), prediction.data.numpy(), 'r-', lw=5)
        pass  # realcode-dropped: plt.text(0.5, 0, 'Loss=%.4f' % loss.data.numpy(), fontdict={'size': 20, 'color':  'red'})
        pass  # realcode-dropped: plt.pause(0.1)

pass  # realcode-dropped: plt.ioff()
pass  # realcode-dropped: plt.show()
