# realcode: benmoseley/harmonic-oscillator-pinn @ f00c5d9c8ac778f82186c1f2501c2dc2c8fb1de4
# realcode: https://github.com/benmoseley/harmonic-oscillator-pinn/blob/f00c5d9c8ac778f82186c1f2501c2dc2c8fb1de4/Harmonic%20oscillator%20PINN.ipynb
# realcode: kept as written except for these adaptations:
#   - the notebook's code cells, one after the other (markdown cells left out)
#   - `from PIL import Image` / `import matplotlib.pyplot as plt` -> dropped (the GIF and the figures)
#   - save_gif_PIL and plot_result are defined as written but never called; the figure cell after the data (plt.figure ... plt.show()) is dropped
#   - in both training loops, the plotting branch keeps its `yh = model(x).detach()` (and `xp = x_physics.detach()`) and drops plot_result, plt.savefig, files.append, plt.show / plt.close; save_gif_PIL(...) after each loop is dropped
#   - `for i in range(1000):` -> `for i in range(60):` and `for i in range(20000):` -> `for i in range(40):` (fewer steps); the plotting branches' periods 10 and 150 -> 20 and 20 so that they run
#   - `model = FCN(1,1,32,3)` -> followed by `# %% realcode-load: model` (twice): PyTorch's initial weights under torch.manual_seed(123) are copied in
# realcode-output: x y x_data y_data model_nn.* yh_nn loss_nn model.* yh xp loss loss1 loss2 physics dx dx2
# realcode-atol: 5e-8 (the last gradients of the first network sum residuals that nearly cancel once it fits the data: model_nn.fce.bias.grad is 4e-5 with float32 rounding of 2e-8 in it)
# %% realcode: cell 1
pass  # realcode-dropped: from PIL import Image

import numpy as np
import torch
import torch.nn as nn
pass  # realcode-dropped: import matplotlib.pyplot as plt
# %% realcode: cell 2
def save_gif_PIL(outfile, files, fps=5, loop=0):
    "Helper function for saving GIFs"
    imgs = [Image.open(file) for file in files]
    imgs[0].save(fp=outfile, format='GIF', append_images=imgs[1:], save_all=True, duration=int(1000/fps), loop=loop)
    
def oscillator(d, w0, x):
    """Defines the analytical solution to the 1D underdamped harmonic oscillator problem. 
    Equations taken from: https://beltoforion.de/en/harmonic_oscillator/"""
    assert d < w0
    w = np.sqrt(w0**2-d**2)
    phi = np.arctan(-d/w)
    A = 1/(2*np.cos(phi))
    cos = torch.cos(phi+w*x)
    sin = torch.sin(phi+w*x)
    exp = torch.exp(-d*x)
    y  = exp*2*A*cos
    return y

class FCN(nn.Module):
    "Defines a connected network"
    
    def __init__(self, N_INPUT, N_OUTPUT, N_HIDDEN, N_LAYERS):
        super().__init__()
        activation = nn.Tanh
        self.fcs = nn.Sequential(*[
                        nn.Linear(N_INPUT, N_HIDDEN),
                        activation()])
        self.fch = nn.Sequential(*[
                        nn.Sequential(*[
                            nn.Linear(N_HIDDEN, N_HIDDEN),
                            activation()]) for _ in range(N_LAYERS-1)])
        self.fce = nn.Linear(N_HIDDEN, N_OUTPUT)
        
    def forward(self, x):
        x = self.fcs(x)
        x = self.fch(x)
        x = self.fce(x)
        return x
# %% realcode: cell 4
d, w0 = 2, 20

# get the analytical solution over the full domain
x = torch.linspace(0,1,500).view(-1,1)
y = oscillator(d, w0, x).view(-1,1)
print(x.shape, y.shape)

# slice out a small number of points from the LHS of the domain
x_data = x[0:200:20]
y_data = y[0:200:20]
print(x_data.shape, y_data.shape)
# %% realcode: cell 6
def plot_result(x,y,x_data,y_data,yh,xp=None):
    "Pretty plot training results"
    plt.figure(figsize=(8,4))
    plt.plot(x,y, color="grey", linewidth=2, alpha=0.8, label="Exact solution")
    plt.plot(x,yh, color="tab:blue", linewidth=4, alpha=0.8, label="Neural network prediction")
    plt.scatter(x_data, y_data, s=60, color="tab:orange", alpha=0.4, label='Training data')
    if xp is not None:
        plt.scatter(xp, -0*torch.ones_like(xp), s=60, color="tab:green", alpha=0.4, 
                    label='Physics loss training locations')
    l = plt.legend(loc=(1.01,0.34), frameon=False, fontsize="large")
    plt.setp(l.get_texts(), color="k")
    plt.xlim(-0.05, 1.05)
    plt.ylim(-1.1, 1.1)
    plt.text(1.065,0.7,"Training step: %i"%(i+1),fontsize="xx-large",color="k")
    plt.axis("off")
    
    
# train standard neural network to fit training data
torch.manual_seed(123)
model = FCN(1,1,32,3)
# %% realcode-load: model
optimizer = torch.optim.Adam(model.parameters(),lr=1e-3)
files = []
for i in range(60):
    optimizer.zero_grad()
    yh = model(x_data)
    loss = torch.mean((yh-y_data)**2)# use mean squared error
    loss.backward()
    optimizer.step()
    
    
    # plot the result as training progresses
    if (i+1) % 20 == 0: 
        
        yh = model(x).detach()
        
model_nn, yh_nn, loss_nn = model, yh, loss  # realcode: kept for comparison (the next cell rebinds them)
# %% realcode: cell 8
x_physics = torch.linspace(0,1,30).view(-1,1).requires_grad_(True)# sample locations over the problem domain
mu, k = 2*d, w0**2

torch.manual_seed(123)
model = FCN(1,1,32,3)
# %% realcode-load: model
optimizer = torch.optim.Adam(model.parameters(),lr=1e-4)
files = []
for i in range(40):
    optimizer.zero_grad()
    
    # compute the "data loss"
    yh = model(x_data)
    loss1 = torch.mean((yh-y_data)**2)# use mean squared error
    
    # compute the "physics loss"
    yhp = model(x_physics)
    dx  = torch.autograd.grad(yhp, x_physics, torch.ones_like(yhp), create_graph=True)[0]# computes dy/dx
    dx2 = torch.autograd.grad(dx,  x_physics, torch.ones_like(dx),  create_graph=True)[0]# computes d^2y/dx^2
    physics = dx2 + mu*dx + k*yhp# computes the residual of the 1D harmonic oscillator differential equation
    loss2 = (1e-4)*torch.mean(physics**2)
    
    # backpropagate joint loss
    loss = loss1 + loss2# add two loss terms together
    loss.backward()
    optimizer.step()
    
    
    # plot the result as training progresses
    if (i+1) % 20 == 0: 
        
        yh = model(x).detach()
        xp = x_physics.detach()
