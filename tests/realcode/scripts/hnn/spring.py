# realcode: greydanus/hamiltonian-nn @ bcc362235dc623ffe48f22ccc22417e02e9803b4
# realcode: https://github.com/greydanus/hamiltonian-nn/blob/bcc362235dc623ffe48f22ccc22417e02e9803b4/nn_models.py
# realcode: https://github.com/greydanus/hamiltonian-nn/blob/bcc362235dc623ffe48f22ccc22417e02e9803b4/hnn.py
# realcode: https://github.com/greydanus/hamiltonian-nn/blob/bcc362235dc623ffe48f22ccc22417e02e9803b4/utils.py
# realcode: https://github.com/greydanus/hamiltonian-nn/blob/bcc362235dc623ffe48f22ccc22417e02e9803b4/experiment-spring/train.py
# realcode: https://github.com/greydanus/hamiltonian-nn/blob/bcc362235dc623ffe48f22ccc22417e02e9803b4/experiment-spring/data.py
# realcode: kept as written except for these adaptations:
#   - nn_models.py and hnn.py as written, the functions of utils.py they use, then experiment-spring/train.py's train() body from '# init model and optimizer' on (its seeding left to the harness) as a driver cell, dedented, with a load marker after the model is built; a last cell reads the Levi-Civita matrix and takes one rk4 step of the learned field
#   - `from utils import choose_nonlinearity` -> `pass  # realcode-inlined: from utils import choose_nonlinearity (the function is pasted below, before it is called)`: the repository's own module, pasted below
#   - `from nn_models import MLP / from utils import rk4` -> `pass  # realcode-inlined: from nn_models import MLP / pass  # realcode-inlined: from utils import rk4`: the repository's own modules, pasted above and below
# realcode-input: x_in = randn(25, 2)
# realcode-input: test_x_in = randn(25, 2)
# realcode-input: dx_in = np.stack([2 * x_in[:, 1], -2 * x_in[:, 0]], 1).astype('float32')
# realcode-input: test_dx_in = np.stack([2 * test_x_in[:, 1], -2 * test_x_in[:, 0]], 1).astype('float32')
# realcode-output: stats.train_loss stats.test_loss model.* train_dist test_dist train_dxdt_hat M rk4_step
# realcode-rtol: 2e-4 (stats holds Python floats read from float32 tensors by item(): float32's tolerance)
# %% realcode: nn_models.py
# Hamiltonian Neural Networks | 2019
# Sam Greydanus, Misko Dzamba, Jason Yosinski

import torch
import numpy as np
pass  # realcode-inlined: from utils import choose_nonlinearity (the function is pasted below, before it is called)

class MLP(torch.nn.Module):
  '''Just a salt-of-the-earth MLP'''
  def __init__(self, input_dim, hidden_dim, output_dim, nonlinearity='tanh'):
    super(MLP, self).__init__()
    self.linear1 = torch.nn.Linear(input_dim, hidden_dim)
    self.linear2 = torch.nn.Linear(hidden_dim, hidden_dim)
    self.linear3 = torch.nn.Linear(hidden_dim, output_dim, bias=None)

    for l in [self.linear1, self.linear2, self.linear3]:
      torch.nn.init.orthogonal_(l.weight) # use a principled initialization

    self.nonlinearity = choose_nonlinearity(nonlinearity)

  def forward(self, x, separate_fields=False):
    h = self.nonlinearity( self.linear1(x) )
    h = self.nonlinearity( self.linear2(h) )
    return self.linear3(h)

class MLPAutoencoder(torch.nn.Module):
  '''A salt-of-the-earth MLP Autoencoder + some edgy res connections'''
  def __init__(self, input_dim, hidden_dim, latent_dim, nonlinearity='tanh'):
    super(MLPAutoencoder, self).__init__()
    self.linear1 = torch.nn.Linear(input_dim, hidden_dim)
    self.linear2 = torch.nn.Linear(hidden_dim, hidden_dim)
    self.linear3 = torch.nn.Linear(hidden_dim, hidden_dim)
    self.linear4 = torch.nn.Linear(hidden_dim, latent_dim)

    self.linear5 = torch.nn.Linear(latent_dim, hidden_dim)
    self.linear6 = torch.nn.Linear(hidden_dim, hidden_dim)
    self.linear7 = torch.nn.Linear(hidden_dim, hidden_dim)
    self.linear8 = torch.nn.Linear(hidden_dim, input_dim)

    for l in [self.linear1, self.linear2, self.linear3, self.linear4, \
              self.linear5, self.linear6, self.linear7, self.linear8]:
      torch.nn.init.orthogonal_(l.weight)  # use a principled initialization

    self.nonlinearity = choose_nonlinearity(nonlinearity)

  def encode(self, x):
    h = self.nonlinearity( self.linear1(x) )
    h = h + self.nonlinearity( self.linear2(h) )
    h = h + self.nonlinearity( self.linear3(h) )
    return self.linear4(h)

  def decode(self, z):
    h = self.nonlinearity( self.linear5(z) )
    h = h + self.nonlinearity( self.linear6(h) )
    h = h + self.nonlinearity( self.linear7(h) )
    return self.linear8(h)

  def forward(self, x):
    z = self.encode(x)
    x_hat = self.decode(z)
    return x_hat

# %% realcode: hnn.py
# Hamiltonian Neural Networks | 2019
# Sam Greydanus, Misko Dzamba, Jason Yosinski

import torch
import numpy as np

pass  # realcode-inlined: from nn_models import MLP
pass  # realcode-inlined: from utils import rk4

class HNN(torch.nn.Module):
    '''Learn arbitrary vector fields that are sums of conservative and solenoidal fields'''
    def __init__(self, input_dim, differentiable_model, field_type='solenoidal',
                    baseline=False, assume_canonical_coords=True):
        super(HNN, self).__init__()
        self.baseline = baseline
        self.differentiable_model = differentiable_model
        self.assume_canonical_coords = assume_canonical_coords
        self.M = self.permutation_tensor(input_dim) # Levi-Civita permutation tensor
        self.field_type = field_type

    def forward(self, x):
        # traditional forward pass
        if self.baseline:
            return self.differentiable_model(x)

        y = self.differentiable_model(x)
        assert y.dim() == 2 and y.shape[1] == 2, "Output tensor should have shape [batch_size, 2]"
        return y.split(1,1)

    def rk4_time_derivative(self, x, dt):
        return rk4(fun=self.time_derivative, y0=x, t=0, dt=dt)

    def time_derivative(self, x, t=None, separate_fields=False):
        '''NEURAL ODE-STLE VECTOR FIELD'''
        if self.baseline:
            return self.differentiable_model(x)

        '''NEURAL HAMILTONIAN-STLE VECTOR FIELD'''
        F1, F2 = self.forward(x) # traditional forward pass

        conservative_field = torch.zeros_like(x) # start out with both components set to 0
        solenoidal_field = torch.zeros_like(x)

        if self.field_type != 'solenoidal':
            dF1 = torch.autograd.grad(F1.sum(), x, create_graph=True)[0] # gradients for conservative field
            conservative_field = dF1 @ torch.eye(*self.M.shape)

        if self.field_type != 'conservative':
            dF2 = torch.autograd.grad(F2.sum(), x, create_graph=True)[0] # gradients for solenoidal field
            solenoidal_field = dF2 @ self.M.t()

        if separate_fields:
            return [conservative_field, solenoidal_field]

        return conservative_field + solenoidal_field

    def permutation_tensor(self,n):
        M = None
        if self.assume_canonical_coords:
            M = torch.eye(n)
            M = torch.cat([M[n//2:], -M[:n//2]])
        else:
            '''Constructs the Levi-Civita permutation tensor'''
            M = torch.ones(n,n) # matrix of ones
            M *= 1 - torch.eye(n) # clear diagonals
            M[::2] *= -1 # pattern of signs
            M[:,::2] *= -1
    
            for i in range(n): # make asymmetric
                for j in range(i+1, n):
                    M[i,j] *= -1
        return M


class PixelHNN(torch.nn.Module):
    def __init__(self, input_dim, hidden_dim, autoencoder,
                 field_type='solenoidal', nonlinearity='tanh', baseline=False):
        super(PixelHNN, self).__init__()
        self.autoencoder = autoencoder
        self.baseline = baseline

        output_dim = input_dim if baseline else 2
        nn_model = MLP(input_dim, hidden_dim, output_dim, nonlinearity)
        self.hnn = HNN(input_dim, differentiable_model=nn_model, field_type=field_type, baseline=baseline)

    def encode(self, x):
        return self.autoencoder.encode(x)

    def decode(self, z):
        return self.autoencoder.decode(z)

    def time_derivative(self, z, separate_fields=False):
        return self.hnn.time_derivative(z, separate_fields)

    def forward(self, x):
        z = self.encode(x)
        z_next = z + self.time_derivative(z)
        return self.decode(z_next)

# %% realcode: utils.py (the functions nn_models.py, hnn.py and train.py use; the rest reads and writes files and needs SciPy and imageio)
def rk4(fun, y0, t, dt, *args, **kwargs):
  dt2 = dt / 2.0
  k1 = fun(y0, t, *args, **kwargs)
  k2 = fun(y0 + dt2 * k1, t + dt2, *args, **kwargs)
  k3 = fun(y0 + dt2 * k2, t + dt2, *args, **kwargs)
  k4 = fun(y0 + dt * k3, t + dt, *args, **kwargs)
  dy = dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
  return dy


def L2_loss(u, v):
  return (u-v).pow(2).mean()


def choose_nonlinearity(name):
  nl = None
  if name == 'tanh':
    nl = torch.tanh
  elif name == 'relu':
    nl = torch.relu
  elif name == 'sigmoid':
    nl = torch.sigmoid
  elif name == 'softplus':
    nl = torch.nn.functional.softplus
  elif name == 'selu':
    nl = torch.nn.functional.selu
  elif name == 'elu':
    nl = torch.nn.functional.elu
  elif name == 'swish':
    nl = lambda x: x * torch.sigmoid(x)
  else:
    raise ValueError("nonlinearity not recognized")
  return nl

# %% realcode: train(args)'s body, run at the top level so that a load marker can follow the model's construction (its orthogonal_ initialisation draws from the session's generator); get_dataset (SciPy's solve_ivp, np.random noise) replaced by synthetic states whose derivatives are the spring's own, (dq/dt, dp/dt) = (2p, -2q)
class args:  # realcode: get_args()'s defaults; hidden_dim 200 -> 32, total_steps 2000 -> 40
    input_dim = 2; hidden_dim = 32; learn_rate = 1e-3; nonlinearity = 'tanh'; total_steps = 40; print_every = 10
    name = 'spring'; baseline = False; use_rk4 = False; verbose = True; field_type = 'solenoidal'; seed = 0

# init model and optimizer
if args.verbose:
  print("Training baseline model:" if args.baseline else "Training HNN model:")

output_dim = args.input_dim if args.baseline else 2
nn_model = MLP(args.input_dim, args.hidden_dim, output_dim, args.nonlinearity)
model = HNN(args.input_dim, differentiable_model=nn_model,
            field_type=args.field_type, baseline=args.baseline)
# %% realcode-load: model
optim = torch.optim.Adam(model.parameters(), args.learn_rate, weight_decay=1e-4)

# arrange data
data = {'x': x_in, 'test_x': test_x_in, 'dx': dx_in, 'test_dx': test_dx_in}  # realcode: get_dataset's arrays as inputs
x = torch.tensor( data['x'], requires_grad=True, dtype=torch.float32)
test_x = torch.tensor( data['test_x'], requires_grad=True, dtype=torch.float32)
dxdt = torch.Tensor(data['dx'])
test_dxdt = torch.Tensor(data['test_dx'])

# vanilla train loop
stats = {'train_loss': [], 'test_loss': []}
for step in range(args.total_steps+1):

  # train step
  dxdt_hat = model.rk4_time_derivative(x) if args.use_rk4 else model.time_derivative(x)
  loss = L2_loss(dxdt, dxdt_hat)
  loss.backward() ; optim.step() ; optim.zero_grad()

  # run test data
  test_dxdt_hat = model.rk4_time_derivative(test_x) if args.use_rk4 else model.time_derivative(test_x)
  test_loss = L2_loss(test_dxdt, test_dxdt_hat)

  # logging
  stats['train_loss'].append(loss.item())
  stats['test_loss'].append(test_loss.item())
  if args.verbose and step % args.print_every == 0:
    print("step {}, train_loss {:.4e}, test_loss {:.4e}".format(step, loss.item(), test_loss.item()))

train_dxdt_hat = model.time_derivative(x)
train_dist = (dxdt - train_dxdt_hat)**2
test_dxdt_hat = model.time_derivative(test_x)
test_dist = (test_dxdt - test_dxdt_hat)**2
print('Final train loss {:.4e} +/- {:.4e}\nFinal test loss {:.4e} +/- {:.4e}'
  .format(train_dist.mean().item(), train_dist.std().item()/np.sqrt(train_dist.shape[0]),
          test_dist.mean().item(), test_dist.std().item()/np.sqrt(test_dist.shape[0])))


# %%
M = model.M
rk4_step = rk4(fun=model.time_derivative, y0=test_x[:4], t=0, dt=0.1)
