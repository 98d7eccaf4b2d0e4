# realcode: mlelarge/dataflowr @ 26ea95711a1d847d773958e5e7a54f2780d5e2dd
# realcode: https://github.com/mlelarge/dataflowr/blob/26ea95711a1d847d773958e5e7a54f2780d5e2dd/Module14/14_batchnorm_simple.ipynb
# realcode: kept as written except for these adaptations:
#   - the notebook's code cells in order, each after a '# %%' line; `%matplotlib inline` and every matplotlib line dropped (plotting: the scatter of cell 5, plot_histogram's call and its figure in cell 10, the plots of cells 11, 18 and 22)
#   - ExperimentParams: num_samples 2000 -> 64 (one training batch of 64, so the DataLoader's shuffle does not change the losses) and num_epochs 12 -> 3; the second part's `args.num_epochs = 10` -> 2
#   - a load marker after the two nets are built (cell 7): PyTorch's normal_ draws are copied in
#   - cells 16-17: `from sklearn import datasets` dropped and datasets.make_circles(n_samples=..., factor=.5, noise=.05) replaced by synthetic points and labels (inputs; scikit-learn is not beside the oracle); the second part re-draws its weights with p.normal_ inside its loop, so its losses and accuracies are compared by shape only
# realcode-input: circles_x = randn(64, 2, dtype="float64")
# realcode-input: circles_y = randint(0, 2, 64)
# realcode-input: circles_test_x = randn(200, 2, dtype="float64")
# realcode-input: circles_test_y = randint(0, 2, 200)
# realcode-output: preds.0 preds.1 train_x train_y losses accuracies
# realcode-shape-only: losses accuracies (the second part re-draws every weight with p.normal_ in its loop)
# realcode-shape-only: preds.1 (the batch-normalised net: the biases of its Linear layers, each before a BatchNorm1d, get gradients that are rounding noise (BatchNorm removes them: ~1e-5 of random sign in PyTorch as here), which Adam scales to full lr-sized steps, and its eval-mode running means follow them)
# %% (notebook cell 1)
pass  # realcode-dropped: %matplotlib inline
# %matplotlib notebook
import numpy as np
pass  # realcode-dropped: import matplotlib.pyplot as plt

import torch
from torch import nn
import torch.utils.data as Data
import torch.nn.functional as F

torch.manual_seed(42)
np.random.seed(42)
# %% (notebook cell 4)
class ExperimentParams():
    def __init__(self):
        self.num_samples = 64  # realcode: 2000 -> 64, one training batch
        self.batch_size = 64
        self.lr = 3e-2
        self.n_hidden = 8
        self.num_epochs = 3  # realcode: 12 -> 3
        self.num_workers = 4
                
        self.device = 'cuda' if torch.cuda.is_available() else 'cpu'
        self.data_dir = '/home/docker_user/'
        

args = ExperimentParams()
# %% (notebook cell 5)
# training data
x = np.linspace(-7, 10, args.num_samples)[:, np.newaxis]
noise = np.random.normal(0, 2, x.shape)
y = np.square(x) - 5 + noise

# test data
test_x = np.linspace(-7, 10, 200)[:, np.newaxis]
noise = np.random.normal(0, 2, test_x.shape)
test_y = np.square(test_x) - 5 + noise

train_x, train_y = torch.from_numpy(x).float(), torch.from_numpy(y).float()
test_x, test_y = torch.from_numpy(test_x).float(), torch.from_numpy(test_y).float()

train_dataset = Data.TensorDataset(train_x, train_y)
train_loader = Data.DataLoader(dataset=train_dataset, batch_size=args.batch_size, shuffle=True, num_workers=2,)

# show data
pass  # realcode-dropped: plt.scatter(...), plt.legend(...) (plotting)
# %% (notebook cell 6)
class Net(nn.Module):
    def __init__(self, n_hidden,batch_normalization=False, bias_init= -0.2):
        super(Net, self).__init__()
        self.n_hidden = n_hidden
        self.do_bn = batch_normalization
        self.fcs = []
        self.bns = []
        self.bn_input = nn.BatchNorm1d(1, momentum=0.5)  
        self.activation = nn.Tanh()
        self.bias_init = bias_init 
        
        for i in range(self.n_hidden):               # build hidden layers and BN layers
            input_size = 1 if i == 0 else 10
            fc = nn.Linear(input_size, 10)
            setattr(self, 'fc%i' % i, fc)       # IMPORTANT set layer to the Module
            self._set_init(fc)                  # parameters initialization
            self.fcs.append(fc)
            if self.do_bn:
                bn = nn.BatchNorm1d(10, momentum=0.5)
                setattr(self, 'bn%i' % i, bn)   # IMPORTANT set layer to the Module
                self.bns.append(bn)

        self.predict = nn.Linear(10, 1)         # output layer
        self._set_init(self.predict)            # parameters initialization

    def _set_init(self, layer):
        nn.init.normal_(layer.weight, mean=0., std=.1)
        nn.init.constant_(layer.bias, self.bias_init)

    def forward(self, x):
        pre_activation = [x]
        if self.do_bn: 
            x = self.bn_input(x)     # input batch normalization
        
        layer_input = [x]
        for i in range(self.n_hidden):
            x = self.fcs[i](x)
            pre_activation.append(x)
            if self.do_bn: 
                x = self.bns[i](x)   # batch normalization
            x = self.activation(x)
            layer_input.append(x)
        
        out = self.predict(x)
        return out, layer_input, pre_activation
# %% (notebook cell 7)
nets = [Net(n_hidden=args.n_hidden, batch_normalization=False), Net(n_hidden=args.n_hidden, batch_normalization=True)]

print(*nets)    # print net architecture
# %% realcode-load: nets
# %% (notebook cell 8)
optimizers = [torch.optim.Adam(net.parameters(), lr=args.lr) for net in nets]

loss_fn = torch.nn.MSELoss()
# %% (notebook cell 9)
def plot_histogram(l_in, l_in_bn, pre_ac, pre_ac_bn):
    for i, (ax_pa, ax_pa_bn, ax,  ax_bn) in enumerate(zip(axs[0, :], axs[1, :], axs[2, :], axs[3, :])):
        [a.clear() for a in [ax_pa, ax_pa_bn, ax, ax_bn]]
        if i == 0: 
            p_range = (-7, 10)
            the_range = (-7, 10)
        else:
            p_range = (-4, 4)
            the_range = (-1, 1)
            
        ax_pa.set_title('L' + str(i))
        ax_pa.hist(pre_ac[i].data.numpy().ravel(), bins=10, range=p_range, color='orange', alpha=0.5);
        ax_pa_bn.hist(pre_ac_bn[i].data.numpy().ravel(), bins=10, range=p_range, color='green', alpha=0.5)
        ax.hist(l_in[i].data.numpy().ravel(), bins=10, range=the_range, color='orange');
        ax_bn.hist(l_in_bn[i].data.numpy().ravel(), bins=10, range=the_range, color='green')
        
        for a in [ax_pa, ax, ax_pa_bn, ax_bn]: 
            a.set_yticks(())
            a.set_xticks(())
       
        ax_pa_bn.set_xticks(p_range)
        ax_bn.set_xticks(the_range)
        axs[0, 0].set_ylabel('PreAct');
        axs[1, 0].set_ylabel('BN PreAct');
        axs[2, 0].set_ylabel('Act');
        axs[3, 0].set_ylabel('BN Act')
    plt.pause(0.01)
# %% (notebook cell 10)
# training
losses = [[], []]  # record loss for two networks
for epoch in range(args.num_epochs):
    print('Epoch: ', epoch)
    layer_inputs, pre_acts = [], []
    for net, l in zip(nets, losses):
        net.eval()              # set eval mode to fix moving_mean and moving_var
        pred, layer_input, pre_act = net(test_x)
        l.append(loss_fn(pred, test_y).item())
        layer_inputs.append(layer_input)
        pre_acts.append(pre_act)
        net.train()             # free moving_mean and moving_var

        
    pass  # realcode-dropped: f, axs = plt.subplots(4, args.n_hidden+1, figsize=(10, 5)) (plotting)
    pass  # realcode-dropped: plot_histogram(*layer_inputs, *pre_acts) (plotting)

    for step, (b_x, b_y) in enumerate(train_loader):
        for net, opt in zip(nets, optimizers):     # train for each network
            pred, _, _ = net(b_x)
            loss = loss_fn(pred, b_y)
            opt.zero_grad()
            loss.backward()
            opt.step()    # it will also learns the parameters in Batch Normalization
            
# %% (notebook cell 11)
pass  # realcode-dropped: the training-loss plot (plt.figure, plt.plot, plt.xlabel, plt.ylabel, plt.ylim, plt.legend)

# evaluation
# set net to eval mode to freeze the parameters in batch normalization layers
[net.eval() for net in nets]    # set eval mode to fix moving_mean and moving_var
preds = [net(test_x)[0] for net in nets]
pass  # realcode-dropped: the prediction plot (plt.figure, plt.plot, plt.scatter, plt.legend, plt.show)
# %% (notebook cell 16)
pass  # realcode-dropped: from sklearn import datasets
# %% (notebook cell 17)
x, y = circles_x.numpy(), circles_y.numpy()  # realcode: datasets.make_circles(n_samples=args.num_samples, factor=.5, noise=.05)
train_x, train_y = torch.from_numpy(x).float(), torch.from_numpy(y).long()

# test data
test_x, test_y = circles_test_x.numpy(), circles_test_y.numpy()  # realcode: datasets.make_circles(n_samples=200, factor=.5, noise=.05)
test_x, test_y = torch.from_numpy(test_x).float(), torch.from_numpy(test_y).long()


train_dataset = Data.TensorDataset(train_x, train_y)
train_loader = Data.DataLoader(dataset=train_dataset, batch_size=args.batch_size, shuffle=True, num_workers=2,)
# %% (notebook cell 18)
pass  # realcode-dropped: cell 18, the scatter plot of the data
# %% (notebook cell 20)
def create_model(with_batchnorm, nc = 32, depth = 16):
    modules = []
    modules.append(nn.Linear(2, nc))
    if with_batchnorm: 
        modules.append(nn.BatchNorm1d(nc))
    
    modules.append(nn.ReLU())
    for d in range(depth):
        modules.append(nn.Linear(nc, nc))
        if with_batchnorm: 
            modules.append(nn.BatchNorm1d(nc))
        modules.append(nn.ReLU())
    
    modules.append(nn.Linear(nc, 2))
    
    return nn.Sequential(*modules)
# %% (notebook cell 21)
stds = [1e-3, 1e-2, 1e-1, 1e0, 1e1]
args.num_epochs = 2  # realcode: 10 -> 2

accuracies = [[], []]
losses = [[], []]  # record test loss for two networks
for std in stds:
    print(f'Initializing nets with std: {std}')
    nets = [create_model(with_batchnorm=False), create_model(with_batchnorm=True)]
    
    optimizers = [torch.optim.Adam(net.parameters(), lr=args.lr) for net in nets]

    loss_fn = torch.nn.CrossEntropyLoss()
    for net in nets:
        with torch.no_grad():
            for p in net.parameters(): p.normal_(0, std)

    net.train()
    for epoch in range(args.num_epochs):
        for step, (b_x, b_y) in enumerate(train_loader):
            for net, opt in zip(nets, optimizers):     # train for each network
                output = net(b_x)
                loss = loss_fn(output, b_y)
                opt.zero_grad()
                loss.backward()
                opt.step()    # it will also learns the parameters in Batch Normalization

    for net, l, acc in zip(nets, losses, accuracies):
        net.eval()
        output = net(test_x)
        l.append(loss_fn(output, test_y).item())
        _,pred = torch.max(output.data,1)
        corrects = torch.sum(pred == test_y).float()/test_y.numel()
        acc.append(corrects.item())
# %% (notebook cell 22)
pass  # realcode-dropped: cell 22, the plots of the test losses and accuracies
