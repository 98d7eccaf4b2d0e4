# realcode: yunjey/pytorch-tutorial @ 0500d3df5a2a8080ccfccbc00aca0eacc21818db
# realcode: https://github.com/yunjey/pytorch-tutorial/blob/0500d3df5a2a8080ccfccbc00aca0eacc21818db/tutorials/01-basics/linear_regression/main.py
# realcode: kept as written except for these adaptations:
#   - dropped (plotting / file I/O / argparse / download): `plt.plot(x_train, y_train, 'ro', label='Original data')`
#   - dropped (plotting / file I/O / argparse / download): `plt.plot(x_train, predicted, label='Fitted line')`
#   - dropped (plotting / file I/O / argparse / download): `plt.legend()`
#   - dropped (plotting / file I/O / argparse / download): `plt.show()`
#   - dropped (plotting / file I/O / argparse / download): `import matplotlib.pyplot as plt`
#   - dropped (plotting / file I/O / argparse / download): `torch.save(model.state_dict(), 'model.ckpt')`
#   - `criterion = nn.MSELoss()` -> `# %% realcode-load: model / criterion = nn.MSELoss()`: cell marker: PyTorch's random data / initial weights above are copied in
# realcode-output: loss outputs predicted model.*
import torch
import torch.nn as nn
import numpy as np
pass  # realcode-dropped: import matplotlib.pyplot as plt


# Hyper-parameters
input_size = 1
output_size = 1
num_epochs = 60
learning_rate = 0.001

# Toy dataset
x_train = np.array([[3.3], [4.4], [5.5], [6.71], [6.93], [4.168], 
                    [9.779], [6.182], [7.59], [2.167], [7.042], 
                    [10.791], [5.313], [7.997], [3.1]], dtype=np.float32)

y_train = np.array([[1.7], [2.76], [2.09], [3.19], [1.694], [1.573], 
                    [3.366], [2.596], [2.53], [1.221], [2.827], 
                    [3.465], [1.65], [2.904], [1.3]], dtype=np.float32)

# Linear regression model
model = nn.Linear(input_size, output_size)

# Loss and optimizer
# %% realcode-load: model
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)  

# Train the model
for epoch in range(num_epochs):
    # Convert numpy arrays to torch tensors
    inputs = torch.from_numpy(x_train)
    targets = torch.from_numpy(y_train)

    # Forward pass
    outputs = model(inputs)
    loss = criterion(outputs, targets)
    
    # Backward and optimize
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    
    if (epoch+1) % 5 == 0:
        print ('Epoch [{}/{}], Loss: {:.4f}'.format(epoch+1, num_epochs, loss.item()))

# Plot the graph
predicted = model(torch.from_numpy(x_train)).detach().numpy()
pass  # realcode-dropped: plt.plot(x_train, y_train, 'ro', label='Original data')
pass  # realcode-dropped: plt.plot(x_train, predicted, label='Fitted line')
pass  # realcode-dropped: plt.legend()
pass  # realcode-dropped: plt.show()

# Save the model checkpoint
pass  # realcode-dropped: torch.save(model.state_dict(), 'model.ckpt')
