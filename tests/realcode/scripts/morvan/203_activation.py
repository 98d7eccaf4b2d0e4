# realcode: MorvanZhou/PyTorch-Tutorial @ dbe154a9e56635e51c6b0c2ccea8ae36cfb585a7
# realcode: https://github.com/MorvanZhou/PyTorch-Tutorial/blob/dbe154a9e56635e51c6b0c2ccea8ae36cfb585a7/tutorial-contents/203_activation.py
# realcode: kept as written except for these adaptations:
#   - dropped (plotting / file I/O / argparse / download): `plt.figure(1, figsize=(8, 6))`
#   - dropped (plotting / file I/O / argparse / download): `plt.subplot(221)`
#   - dropped (plotting / file I/O / argparse / download): `plt.plot(x_np, y_relu, c='red', label='relu')`
#   - dropped (plotting / file I/O / argparse / download): `plt.ylim((-1, 5))`
#   - dropped (plotting / file I/O / argparse / download): `plt.legend(loc='best')`
#   - dropped (plotting / file I/O / argparse / download): `plt.subplot(222)`
#   - dropped (plotting / file I/O / argparse / download): `plt.plot(x_np, y_sigmoid, c='red', label='sigmoid')`
#   - dropped (plotting / file I/O / argparse / download): `plt.ylim((-0.2, 1.2))`
#   - dropped (plotting / file I/O / argparse / download): `plt.legend(loc='best')`
#   - dropped (plotting / file I/O / argparse / download): `plt.subplot(223)`
#   - dropped (plotting / file I/O / argparse / download): `plt.plot(x_np, y_tanh, c='red', label='tanh')`
#   - dropped (plotting / file I/O / argparse / download): `plt.ylim((-1.2, 1.2))`
#   - dropped (plotting / file I/O / argparse / download): `plt.legend(loc='best')`
#   - dropped (plotting / file I/O / argparse / download): `plt.subplot(224)`
#   - dropped (plotting / file I/O / argparse / download): `plt.plot(x_np, y_softplus, c='red', label='softplus')`
#   - dropped (plotting / file I/O / argparse / download): `plt.ylim((-0.2, 6))`
#   - dropped (plotting / file I/O / argparse / download): `plt.legend(loc='best')`
#   - dropped (plotting / file I/O / argparse / download): `plt.show()`
#   - dropped (plotting / file I/O / argparse / download): `import matplotlib.pyplot as plt`
# realcode-output: x
"""
View more, visit my tutorial page: https://mofanpy.com/tutorials/
My Youtube Channel: https://www.youtube.com/user/MorvanZhou

Dependencies:
torch: 0.4
matplotlib
"""
import torch
import torch.nn.functional as F
from torch.autograd import Variable
pass  # realcode-dropped: import matplotlib.pyplot as plt

# fake data
x = torch.linspace(-5, 5, 200)  # x data (tensor), shape=(100, 1)
x = Variable(x)
x_np = x.data.numpy()   # numpy array for plotting

# following are popular activation functions
y_relu = torch.relu(x).data.numpy()
y_sigmoid = torch.sigmoid(x).data.numpy()
y_tanh = torch.tanh(x).data.numpy()
y_softplus = F.softplus(x).data.numpy() # there's no softplus in torch
# y_softmax = torch.softmax(x, dim=0).data.numpy() softmax is a special kind of activation function, it is about probability

# plt to visualize these activation function
pass  # realcode-dropped: plt.figure(1, figsize=(8, 6))
pass  # realcode-dropped: plt.subplot(221)
pass  # realcode-dropped: plt.plot(x_np, y_relu, c='red', label='relu')
pass  # realcode-dropped: plt.ylim((-1, 5))
pass  # realcode-dropped: plt.legend(loc='best')

pass  # realcode-dropped: plt.subplot(222)
pass  # realcode-dropped: plt.plot(x_np, y_sigmoid, c='red', label='sigmoid')
pass  # realcode-dropped: plt.ylim((-0.2, 1.2))
pass  # realcode-dropped: plt.legend(loc='best')

pass  # realcode-dropped: plt.subplot(223)
pass  # realcode-dropped: plt.plot(x_np, y_tanh, c='red', label='tanh')
pass  # realcode-dropped: plt.ylim((-1.2, 1.2))
pass  # realcode-dropped: plt.legend(loc='best')

pass  # realcode-dropped: plt.subplot(224)
pass  # realcode-dropped: plt.plot(x_np, y_softplus, c='red', label='softplus')
pass  # realcode-dropped: plt.ylim((-0.2, 6))
pass  # realcode-dropped: plt.legend(loc='best')

pass  # realcode-dropped: plt.show()
