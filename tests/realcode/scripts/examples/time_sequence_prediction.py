# realcode: pytorch/examples @ 77f55b912142e11fcfdf5b530231fb9c52f181e8
# realcode: https://github.com/pytorch/examples/blob/77f55b912142e11fcfdf5b530231fb9c52f181e8/time_sequence_prediction/train.py
# realcode: kept as written except for these adaptations:
#   - dropped (plotting / file I/O / argparse / download): `plt.figure(figsize=(30,10))`
#   - dropped (plotting / file I/O / argparse / download): `plt.title('Predict future values for time sequences\n(Dashlines are predicted values)', fontsize=30)`
#   - dropped (plotting / file I/O / argparse / download): `plt.xlabel('x', fontsize=20)`
#   - dropped (plotting / file I/O / argparse / download): `plt.ylabel('y', fontsize=20)`
#   - dropped (plotting / file I/O / argparse / download): `plt.xticks(fontsize=20)`
#   - dropped (plotting / file I/O / argparse / download): `plt.yticks(fontsize=20)`
#   - dropped (plotting / file I/O / argparse / download): `plt.plot(np.arange(input.size(1)), yi[:input.size(1)], color, linewidth = 2.0)`
#   - dropped (plotting / file I/O / argparse / download): `plt.plot(np.arange(input.size(1), input.size(1) + future), yi[input.size(1):], color + ':', linewidth = 2.0)`
#   - dropped (plotting / file I/O / argparse / download): `plt.savefig('predict%d.pdf'%i)`
#   - dropped (plotting / file I/O / argparse / download): `plt.close()`
#   - dropped (plotting / file I/O / argparse / download): `import matplotlib`
#   - dropped (plotting / file I/O / argparse / download): `import matplotlib.pyplot as plt`
#   - dropped (plotting / file I/O / argparse / download): `matplotlib.use('Agg')`
#   - dropped (plotting / file I/O / argparse / download): `draw(y[0], 'r')`
#   - dropped (plotting / file I/O / argparse / download): `draw(y[1], 'g')`
#   - dropped (plotting / file I/O / argparse / download): `draw(y[2], 'b')`
#   - dropped (plotting / file I/O / argparse / download): `import argparse`
#   - dropped (plotting / file I/O / argparse / download): `parser.add_argument('--steps', type=int, default=15, help='steps to run')`
#   - the `if __name__ == '__main__':` body runs at the top level (as it does when the file runs as a script), so that cell markers can split it: needed for the marker below
#   - `parser = argparse.ArgumentParser()` -> `class opt:  # realcode: argparse's defaults, steps 15 -> 2 /     steps = 2`: drop argparse: its defaults as a class, 15 steps shrunk to 2
#   - `opt = parser.parse_args()` -> `pass`: drop argparse
#   - `data = torch.load('traindata.pt')` -> `data = traindata.numpy()`: the file written by generate_sine_wave.py comes in as an input (its recipe, 8 sequences of 100 steps instead of 100 of 1000)
#   - `future = 1000` -> `future = 20`: shrink 1000 predicted steps to 20
#   - `criterion = nn.MSELoss()` -> `# %% realcode-load: seq / criterion = nn.MSELoss()`: cell marker: PyTorch's random data / initial weights above are copied in
# realcode-input: traindata = np.sin((np.arange(100)[None, :] + randint(-80, 80, 8, 1)) / 20.0)
# realcode-output: pred loss y seq.*
# realcode-rtol: 1e-6 (float64 throughout, but 2 LBFGS steps of up to 20 inner iterations each amplify rounding)
from __future__ import print_function
pass  # realcode-dropped: import argparse
import torch
import torch.nn as nn
import torch.optim as optim
import numpy as np
pass  # realcode-dropped: import matplotlib
pass  # realcode-dropped: matplotlib.use('Agg')
pass  # realcode-dropped: import matplotlib.pyplot as plt

class Sequence(nn.Module):
    def __init__(self):
        super(Sequence, self).__init__()
        self.lstm1 = nn.LSTMCell(1, 51)
        self.lstm2 = nn.LSTMCell(51, 51)
        self.linear = nn.Linear(51, 1)

    def forward(self, input, future = 0):
        outputs = []
        h_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)

        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):# if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


class opt:  # realcode: argparse's defaults, steps 15 -> 2
    steps = 2
pass  # realcode-dropped: parser.add_argument('--steps', type=int, default=15, help='steps to run')
pass
# set random seed to 0
np.random.seed(0)
torch.manual_seed(0)
# load data and make training set
data = traindata.numpy()
input = torch.from_numpy(data[3:, :-1])
target = torch.from_numpy(data[3:, 1:])
test_input = torch.from_numpy(data[:3, :-1])
test_target = torch.from_numpy(data[:3, 1:])
# build the model
seq = Sequence()
seq.double()
# %% realcode-load: seq
criterion = nn.MSELoss()
# use LBFGS as optimizer since we can load the whole data to train
optimizer = optim.LBFGS(seq.parameters(), lr=0.8)
#begin to train
for i in range(opt.steps):
    print('STEP: ', i)
    def closure():
        optimizer.zero_grad()
        out = seq(input)
        loss = criterion(out, target)
        print('loss:', loss.item())
        loss.backward()
        return loss
    optimizer.step(closure)
    # begin to predict, no need to track gradient here
    with torch.no_grad():
        future = 20
        pred = seq(test_input, future=future)
        loss = criterion(pred[:, :-future], test_target)
        print('test loss:', loss.item())
        y = pred.detach().numpy()
    # draw the result
    pass  # realcode-dropped: plt.figure(figsize=(30,10))
    pass  # realcode-dropped: plt.title('Predict future values for time sequences\n(Dashlines are predicted values)', fontsize=30)
    pass  # realcode-dropped: plt.xlabel('x', fontsize=20)
    pass  # realcode-dropped: plt.ylabel('y', fontsize=20)
    pass  # realcode-dropped: plt.xticks(fontsize=20)
    pass  # realcode-dropped: plt.yticks(fontsize=20)
    def draw(yi, color):
        pass  # realcode-dropped: plt.plot(np.arange(input.size(1)), yi[:input.size(1)], color, linewidth = 2.0)
        pass  # realcode-dropped: plt.plot(np.arange(input.size(1), input.size(1) + future), yi[input.size(1):], color + ':', linewidth = 2.0)
    pass  # realcode-dropped: draw(y[0], 'r')
    pass  # realcode-dropped: draw(y[1], 'g')
    pass  # realcode-dropped: draw(y[2], 'b')
    pass  # realcode-dropped: plt.savefig('predict%d.pdf'%i)
    pass  # realcode-dropped: plt.close()
