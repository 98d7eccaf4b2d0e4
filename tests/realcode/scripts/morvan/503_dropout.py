# realcode: MorvanZhou/PyTorch-Tutorial @ dbe154a9e56635e51c6b0c2ccea8ae36cfb585a7
# realcode: https://github.com/MorvanZhou/PyTorch-Tutorial/blob/dbe154a9e56635e51c6b0c2ccea8ae36cfb585a7/tutorial-contents/503_dropout.py
# realcode: kept as written except for these adaptations:
#   - dropped (plotting / file I/O / argparse / download): `plt.scatter(x.data.numpy(), y.data.numpy(), c='magenta', s=50, alpha=0.5, label='train')`
#   - dropped (plotting / file I/O / argparse / download): `plt.scatter(test_x.data.numpy(), test_y.data.numpy(), c='cyan', s=50, alpha=0.5, label='test')`
#   - dropped (plotting / file I/O / argparse / download): `plt.legend(loc='upper left')`
#   - dropped (plotting / file I/O / argparse / download): `plt.ylim((-2.5, 2.5))`
#   - dropped (plotting / file I/O / argparse / download): `plt.show()`
#   - dropped (plotting / file I/O / argparse / download): `plt.ion()   # something about plotting`
#   - dropped (plotting / file I/O / argparse / download): `plt.cla()`
#   - dropped (plotting / file I/O / argparse / download): `plt.scatter(x.data.numpy(), y.data.numpy(), c='magenta', s=50, alpha=0.3, label='train')`
#   - dropped (plotting / file I/O / argparse / download): `plt.scatter(test_x.data.numpy(), test_y.data.numpy(), c='cyan', s=50, alpha=0.3, label='test')`
#   - dropped (plotting / file I/O / argparse / download): `plt.plot(test_x.data.numpy(), test_pred_ofit.data.numpy(), 'r-', lw=3, label='overfitting')`
#   - dropped (plotting / file I/O / argparse / download): `plt.plot(test_x.data.numpy(), test_pred_drop.data.numpy(), 'b--', lw=3, label='dropout(50%)')`
#   - dropped (plotting / file I/O / argparse / download): `plt.text(0, -1.2, 'overfitting loss=%.4f' % loss_func(test_pred_ofit, test_y).data.numpy(), fontdict={'size': 20, 'color':  'red'})`
#   - dropped (plotting / file I/O / argparse / download): `plt.text(0, -1.5, 'dropout loss=%.4f' % loss_func(test_pred_drop, test_y).data.numpy(), fontdict={'size': 20, 'color': 'blue'})`
#   - dropped (plotting / file I/O / argparse / download): `plt.legend(loc='upper left'); plt.ylim((-2.5, 2.5));plt.pause(0.1)`
#   - dropped (plotting / file I/O / argparse / download): `plt.ioff()`
#   - dropped (plotting / file I/O / argparse / download): `plt.show()`
#   - dropped (plotting / file I/O / argparse / download): `import matplotlib.pyplot as plt`
#   - `optimizer_ofit = torch.optim.Adam` -> `# %% realcode-load: x y test_x test_y net_overfitting net_dropped / optimizer_ofit = torch.optim.Adam`: cell marker: PyTorch's random data / initial weights above are copied in
#   - `for t in range(500):` -> `for t in range(30):`: shrink 500 steps to 30
#   - `N_HIDDEN = 300` -> `N_HIDDEN = 50`: shrink 300 hidden units to 50
# realcode-output: loss_ofit pred_ofit test_pred_ofit net_overfitting.* loss_drop net_dropped.*
# realcode-shape-only: loss_drop net_dropped (dropout masks draw from the session's generator)
"""
View more, visit my tutorial page: https://mofanpy.com/tutorials/
My Youtube Channel: https://www.youtube.com/user/MorvanZhou

Dependencies:
torch: 0.4
matplotlib
"""
import torch
pass  # realcode-dropped: import matplotlib.pyplot as plt

# torch.manual_seed(1)    # reproducible

N_SAMPLES = 20
N_HIDDEN = 50

# training data
x = torch.unsqueeze(torch.linspace(-1, 1, N_SAMPLES), 1)
y = x + 0.3*torch.normal(torch.zeros(N_SAMPLES, 1), torch.ones(N_SAMPLES, 1))

# test data
test_x = torch.unsqueeze(torch.linspace(-1, 1, N_SAMPLES), 1)
test_y = test_x + 0.3*torch.normal(torch.zeros(N_SAMPLES, 1), torch.ones(N_SAMPLES, 1))

# show data
pass  # realcode-dropped: plt.scatter(x.data.numpy(), y.data.numpy(), c='magenta', s=50, alpha=0.5, label='train')
pass  # realcode-dropped: plt.scatter(test_x.data.numpy(), test_y.data.numpy(), c='cyan', s=50, alpha=0.5, label='test')
pass  # realcode-dropped: plt.legend(loc='upper left')
pass  # realcode-dropped: plt.ylim((-2.5, 2.5))
pass  # realcode-dropped: plt.show()

net_overfitting = torch.nn.Sequential(
    torch.nn.Linear(1, N_HIDDEN),
    torch.nn.ReLU(),
    torch.nn.Linear(N_HIDDEN, N_HIDDEN),
    torch.nn.ReLU(),
    torch.nn.Linear(N_HIDDEN, 1),
)

net_dropped = torch.nn.Sequential(
    torch.nn.Linear(1, N_HIDDEN),
    torch.nn.Dropout(0.5),  # drop 50% of the neuron
    torch.nn.ReLU(),
    torch.nn.Linear(N_HIDDEN, N_HIDDEN),
    torch.nn.Dropout(0.5),  # drop 50% of the neuron
    torch.nn.ReLU(),
    torch.nn.Linear(N_HIDDEN, 1),
)

print(net_overfitting)  # net architecture
print(net_dropped)

# %% realcode-load: x y test_x test_y net_overfitting net_dropped
optimizer_ofit = torch.optim.Adam(net_overfitting.parameters(), lr=0.01)
optimizer_drop = torch.optim.Adam(net_dropped.parameters(), lr=0.01)
loss_func = torch.nn.MSELoss()

pass  # realcode-dropped: plt.ion()   # something about plotting

for t in range(30):
    pred_ofit = net_overfitting(x)
    pred_drop = net_dropped(x)
    loss_ofit = loss_func(pred_ofit, y)
    loss_drop = loss_func(pred_drop, y)

    optimizer_ofit.zero_grad()
    optimizer_drop.zero_grad()
    loss_ofit.backward()
    loss_drop.backward()
    optimizer_ofit.step()
    optimizer_drop.step()

    if t % 10 == 0:
        # change to eval mode in order to fix drop out effect
        net_overfitting.eval()
        net_dropped.eval()  # parameters for dropout differ from train mode

        # plotting
        pass  # realcode-dropped: plt.cla()
        test_pred_ofit = net_overfitting(test_x)
        test_pred_drop = net_dropped(test_x)
        pass  # realcode-dropped: plt.scatter(x.data.numpy(), y.data.numpy(), c='magenta', s=50, alpha=0.3, label='train')
        pass  # realcode-dropped: plt.scatter(test_x.data.numpy(), test_y.data.numpy(), c='cyan', s=50, alpha=0.3, label='test')
        pass  # realcode-dropped: plt.plot(test_x.data.numpy(), test_pred_ofit.data.numpy(), 'r-', lw=3, label='overfitting')
        pass  # realcode-dropped: plt.plot(test_x.data.numpy(), test_pred_drop.data.numpy(), 'b--', lw=3, label='dropout(50%)')
        pass  # realcode-dropped: plt.text(0, -1.2, 'overfitting loss=%.4f' % loss_func(test_pred_ofit, test_y).data.numpy(), fontdict={'size': 20, 'color':  'red'})
        pass  # realcode-dropped: plt.text(0, -1.5, 'dropout loss=%.4f' % loss_func(test_pred_drop, test_y).data.numpy(), fontdict={'size': 20, 'color': 'blue'})
        pass  # realcode-dropped: plt.legend(loc='upper left'); plt.ylim((-2.5, 2.5));plt.pause(0.1)

        # change back to train mode
        net_overfitting.train()
        net_dropped.train()

pass  # realcode-dropped: plt.ioff()
pass  # realcode-dropped: plt.show()
