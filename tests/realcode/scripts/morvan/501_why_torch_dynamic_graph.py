# realcode: MorvanZhou/PyTorch-Tutorial @ dbe154a9e56635e51c6b0c2ccea8ae36cfb585a7
# realcode: https://github.com/MorvanZhou/PyTorch-Tutorial/blob/dbe154a9e56635e51c6b0c2ccea8ae36cfb585a7/tutorial-contents/501_why_torch_dynamic_graph.py
# realcode: kept as written except for these adaptations:
#   - dropped (plotting / file I/O / argparse / download): `plt.figure(1, figsize=(12, 5))`
#   - dropped (plotting / file I/O / argparse / download): `plt.ion()   # continuously plot`
#   - dropped (plotting / file I/O / argparse / download): `plt.plot(steps, y_np.flatten(), 'r-')`
#   - dropped (plotting / file I/O / argparse / download): `plt.plot(steps, prediction.data.numpy().flatten(), 'b-')`
#   - dropped (plotting / file I/O / argparse / download): `plt.draw()`
#   - dropped (plotting / file I/O / argparse / download): `plt.pause(0.05)`
#   - dropped (plotting / file I/O / argparse / download): `plt.ioff()`
#   - dropped (plotting / file I/O / argparse / download): `plt.show()`
#   - dropped (plotting / file I/O / argparse / download): `import matplotlib.pyplot as plt`
#   - `optimizer = torch.optim.Adam(rnn.parameters(), lr=LR)` -> `# %% realcode-load: rnn / optimizer = torch.optim.Adam(rnn.parameters(), lr=LR)`: cell marker: PyTorch's random data / initial weights above are copied in
#   - `for i in range(60):` -> `for i in range(20):`: shrink 60 steps to 20
# realcode-output: loss rnn.*
# realcode-shape-only: loss rnn (np.random.randint picks the sequence lengths: the program's NumPy draws from the session's generator)
"""
View more, visit my tutorial page: https://mofanpy.com/tutorials/
My Youtube Channel: https://www.youtube.com/user/MorvanZhou

Dependencies:
torch: 0.4
matplotlib
numpy
"""
import torch
from torch import nn
import numpy as np
pass  # realcode-dropped: import matplotlib.pyplot as plt

# torch.manual_seed(1)    # reproducible

# Hyper Parameters
INPUT_SIZE = 1          # rnn input size / image width
LR = 0.02               # learning rate


class RNN(nn.Module):
    def __init__(self):
        super(RNN, self).__init__()

        self.rnn = nn.RNN(
            input_size=1,
            hidden_size=32,     # rnn hidden unit
            num_layers=1,       # number of rnn layer
            batch_first=True,   # input & output will has batch size as 1s dimension. e.g. (batch, time_step, input_size)
        )
        self.out = nn.Linear(32, 1)

    def forward(self, x, h_state):
        # x (batch, time_step, input_size)
        # h_state (n_layers, batch, hidden_size)
        # r_out (batch, time_step, output_size)
        r_out, h_state = self.rnn(x, h_state)

        outs = []                                   # this is where you can find torch is dynamic
        for time_step in range(r_out.size(1)):      # calculate output for each time step
            outs.append(self.out(r_out[:, time_step, :]))
        return torch.stack(outs, dim=1), h_state


rnn = RNN()
print(rnn)

# %% realcode-load: rnn
optimizer = torch.optim.Adam(rnn.parameters(), lr=LR)   # optimize all cnn parameters
loss_func = nn.MSELoss()                                # the target label is not one-hotted

h_state = None   # for initial hidden state

pass  # realcode-dropped: plt.figure(1, figsize=(12, 5))
pass  # realcode-dropped: plt.ion()   # continuously plot

########################  Below is different #########################

################ static time steps ##########
# for step in range(60):
#     start, end = step * np.pi, (step+1)*np.pi   # time steps
#     # use sin predicts cos
#     steps = np.linspace(start, end, 10, dtype=np.float32)

################ dynamic time steps #########
step = 0
for i in range(20):
    dynamic_steps = np.random.randint(1, 4)  # has random time steps
    start, end = step * np.pi, (step + dynamic_steps) * np.pi  # different time steps length
    step += dynamic_steps

    # use sin predicts cos
    steps = np.linspace(start, end, 10 * dynamic_steps, dtype=np.float32)

#######################  Above is different ###########################

    print(len(steps))       # print how many time step feed to RNN

    x_np = np.sin(steps)    # float32 for converting torch FloatTensor
    y_np = np.cos(steps)

    x = torch.from_numpy(x_np[np.newaxis, :, np.newaxis])    # shape (batch, time_step, input_size)
    y = torch.from_numpy(y_np[np.newaxis, :, np.newaxis])

    prediction, h_state = rnn(x, h_state)   # rnn output
    # !! next step is important !!
    h_state = h_state.data        # repack the hidden state, break the connection from last iteration

    loss = loss_func(prediction, y)         # cross entropy loss
    optimizer.zero_grad()                   # clear gradients for this training step
    loss.backward()                         # backpropagation, compute gradients
    optimizer.step()                        # apply gradients

    # plotting
    pass  # realcode-dropped: plt.plot(steps, y_np.flatten(), 'r-')
    pass  # realcode-dropped: plt.plot(steps, prediction.data.numpy().flatten(), 'b-')
    pass  # realcode-dropped: plt.draw()
    pass  # realcode-dropped: plt.pause(0.05)

pass  # realcode-dropped: plt.ioff()
pass  # realcode-dropped: plt.show()
