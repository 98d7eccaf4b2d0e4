# realcode: udacity/deep-learning-v2-pytorch @ c9404fc86181fc3f0906b368697268257f348535
# realcode: https://github.com/udacity/deep-learning-v2-pytorch/blob/c9404fc86181fc3f0906b368697268257f348535/recurrent-neural-networks/time-series/Simple_RNN.ipynb
# realcode: kept as written except for these adaptations:
#   - the notebook's code cells in order, each after a '# %%' line
#   - `import matplotlib.pyplot as plt` -> `pass  # realcode-dropped: import matplotlib.pyplot as plt`: drop plotting
#   - `%matplotlib inline` -> `pass  # realcode-dropped: %matplotlib inline`: drop plotting
#   - `plt.figure(figsize=(8,5))` -> `pass  # realcode-dropped: plt.figure(figsize=(8,5))`: drop plotting
#   - `plt.plot(time_steps[1:], x, 'r.', label='input, x') # x` -> `pass  # realcode-dropped: plt.plot(time_steps[1:], x, 'r.', label='input, x') # x`: drop plotting
#   - `plt.plot(time_steps[1:], y, 'b.', label='target, y') # y` -> `pass  # realcode-dropped: plt.plot(time_steps[1:], y, 'b.', label='target, y') # y`: drop plotting
#   - `plt.legend(loc='best')` -> `pass  # realcode-dropped: plt.legend(loc='best')`: drop plotting
#   - `plt.show()` -> `pass  # realcode-dropped: plt.show()`: drop plotting
#   - `test_rnn = RNN(input_size=1, output_size=1, hidden_dim=10, n_layers=2)` -> `test_rnn = RNN(input_size=1, output_size=1, hidden_dim=10, n_layers=2) / # %% realcode-load: test_rnn`: cell marker: PyTorch's initial weights are copied in
#   - `rnn = RNN(input_size, output_size, hidden_dim, n_layers)` -> `rnn = RNN(input_size, output_size, hidden_dim, n_layers) / # %% realcode-load: rnn`: cell marker: PyTorch's initial weights are copied in
#   - `plt.plot(time_steps[1:], x, 'r.') # input` -> `pass  # realcode-dropped: plt.plot(time_steps[1:], x, 'r.') # input`: drop plotting
#   - `plt.plot(time_steps[1:], prediction.data.numpy().flatten(), 'b.') # predictions` -> `pass  # realcode-dropped: plt.plot(time_steps[1:], prediction.data.numpy().flatten(), 'b.') # predictions`: drop plotting
#   - `plt.show()` -> `pass  # realcode-dropped: plt.show()`: drop plotting
#   - `n_steps = 75` -> `n_steps = 30`: shrink 75 steps to 30
# realcode-output: x y test_input test_out test_h rnn.*
# %% (notebook cell 0)
import torch
from torch import nn
import numpy as np
pass  # realcode-dropped: import matplotlib.pyplot as plt
pass  # realcode-dropped: %matplotlib inline
# %% (notebook cell 1)
pass  # realcode-dropped: plt.figure(figsize=(8,5))

# how many time steps/data pts are in one batch of data
seq_length = 20

# generate evenly spaced data pts
time_steps = np.linspace(0, np.pi, seq_length + 1)
data = np.sin(time_steps)
data.resize((seq_length + 1, 1)) # size becomes (seq_length+1, 1), adds an input_size dimension

x = data[:-1] # all but the last piece of data
y = data[1:] # all but the first

# display the data
pass  # realcode-dropped: plt.plot(time_steps[1:], x, 'r.', label='input, x') # x
pass  # realcode-dropped: plt.plot(time_steps[1:], y, 'b.', label='target, y') # y

pass  # realcode-dropped: plt.legend(loc='best')
pass  # realcode-dropped: plt.show()
# %% (notebook cell 2)
class RNN(nn.Module):
    def __init__(self, input_size, output_size, hidden_dim, n_layers):
        super(RNN, self).__init__()
        
        self.hidden_dim=hidden_dim

        # define an RNN with specified parameters
        # batch_first means that the first dim of the input and output will be the batch_size
        self.rnn = nn.RNN(input_size, hidden_dim, n_layers, batch_first=True)
        
        # last, fully-connected layer
        self.fc = nn.Linear(hidden_dim, output_size)

    def forward(self, x, hidden):
        # x (batch_size, seq_length, input_size)
        # hidden (n_layers, batch_size, hidden_dim)
        # r_out (batch_size, time_step, hidden_size)
        batch_size = x.size(0)
        
        # get RNN outputs
        r_out, hidden = self.rnn(x, hidden)
        # shape output to be (batch_size*seq_length, hidden_dim)
        r_out = r_out.view(-1, self.hidden_dim)  
        
        # get final output 
        output = self.fc(r_out)
        
        return output, hidden
# %% (notebook cell 3)
# test that dimensions are as expected
test_rnn = RNN(input_size=1, output_size=1, hidden_dim=10, n_layers=2)
# %% realcode-load: test_rnn

# generate evenly spaced, test data pts
time_steps = np.linspace(0, np.pi, seq_length)
data = np.sin(time_steps)
data.resize((seq_length, 1))

test_input = torch.Tensor(data).unsqueeze(0) # give it a batch_size of 1 as first dimension
print('Input size: ', test_input.size())

# test out rnn sizes
test_out, test_h = test_rnn(test_input, None)
print('Output size: ', test_out.size())
print('Hidden state size: ', test_h.size())
# %% (notebook cell 4)
# decide on hyperparameters
input_size=1 
output_size=1
hidden_dim=32
n_layers=1

# instantiate an RNN
rnn = RNN(input_size, output_size, hidden_dim, n_layers)
# %% realcode-load: rnn
print(rnn)
# %% (notebook cell 5)
# MSE loss and Adam optimizer with a learning rate of 0.01
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(rnn.parameters(), lr=0.01) 
# %% (notebook cell 6)
# train the RNN
def train(rnn, n_steps, print_every):
    
    # initialize the hidden state
    hidden = None      
    
    for batch_i, step in enumerate(range(n_steps)):
        # defining the training data 
        time_steps = np.linspace(step * np.pi, (step+1)*np.pi, seq_length + 1)
        data = np.sin(time_steps)
        data.resize((seq_length + 1, 1)) # input_size=1

        x = data[:-1]
        y = data[1:]
        
        # convert data into Tensors
        x_tensor = torch.Tensor(x).unsqueeze(0) # unsqueeze gives a 1, batch_size dimension
        y_tensor = torch.Tensor(y)

        # outputs from the rnn
        prediction, hidden = rnn(x_tensor, hidden)

        ## Representing Memory ##
        # make a new variable for hidden and detach the hidden state from its history
        # this way, we don't backpropagate through the entire history
        hidden = hidden.data

        # calculate the loss
        loss = criterion(prediction, y_tensor)
        # zero gradients
        optimizer.zero_grad()
        # perform backprop and update weights
        loss.backward()
        optimizer.step()

        # display loss and predictions
        if batch_i%print_every == 0:        
            print('Loss: ', loss.item())
            pass  # realcode-dropped: plt.plot(time_steps[1:], x, 'r.') # input
            pass  # realcode-dropped: plt.plot(time_steps[1:], prediction.data.numpy().flatten(), 'b.') # predictions
            pass  # realcode-dropped: plt.show()
    
    return rnn
# %% (notebook cell 7)
# train the rnn and monitor results
n_steps = 30
print_every = 15

trained_rnn = train(rnn, n_steps, print_every)
# %% (notebook cell 8)
