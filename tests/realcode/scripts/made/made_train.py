# realcode: karpathy/pytorch-made @ 81886ccc8270cdf3a2b32cbbca5c7feab422f907
# realcode: https://github.com/karpathy/pytorch-made/blob/81886ccc8270cdf3a2b32cbbca5c7feab422f907/run.py
# realcode: kept as written except for these adaptations:
#   - `from made import MADE` -> made.py (the module run.py imports, same commit) inlined, without its `if __name__ == '__main__':` test, which an import does not run
#   - dropped (argparse): `import argparse`
#   - the `if __name__ == '__main__':` body at the top level, dedented (a load marker splits it)
#   - argparse's defaults as a class; --data-path (required) is the synthetic inputs; hiddens 500 -> 100
#   - dropped (file I/O): `print("loading binarized mnist from", args.data_path)`
#   - `mnist = np.load(args.data_path) / xtr, xte = mnist['train_data'], mnist['valid_data']` -> `xtr, xte = train_data.numpy(), valid_data.numpy()`: binarized MNIST (binarized_mnist.npz) replaced by synthetic 0/1 inputs of 200 and 100 rows
#   - `xtr = torch.from_numpy(xtr).cuda() / xte = torch.from_numpy(xte).cuda()` -> `xtr = torch.from_numpy(xtr) / xte = torch.from_numpy(xte)`: on the CPU (the script moves everything to CUDA unconditionally)
#   - `model.cuda()` -> `# %% realcode-load: model`: on the CPU; cell marker: PyTorch's initial weights are copied in
#   - `for epoch in range(100):` -> `for epoch in range(2):`: shrink 100 epochs to 2
# realcode-input: train_data = (rand(200, 784) > 0.5).astype('float32')
# realcode-input: valid_data = (rand(100, 784) > 0.5).astype('float32')
# realcode-output: model.* opt.param_groups.0.lr
"""
Trains MADE on Binarized MNIST, which can be downloaded here:
https://github.com/mgermain/MADE/releases/download/ICML2015/binarized_mnist.npz
"""
pass  # realcode-dropped: import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable

import numpy as np

import torch
import torch.nn as nn
import torch.nn.functional as F

# ------------------------------------------------------------------------------

class MaskedLinear(nn.Linear):
    """ same as Linear except has a configurable mask on the weights """
    
    def __init__(self, in_features, out_features, bias=True):
        super().__init__(in_features, out_features, bias)        
        self.register_buffer('mask', torch.ones(out_features, in_features))
        
    def set_mask(self, mask):
        self.mask.data.copy_(torch.from_numpy(mask.astype(np.uint8).T))
        
    def forward(self, input):
        return F.linear(input, self.mask * self.weight, self.bias)

class MADE(nn.Module):
    def __init__(self, nin, hidden_sizes, nout, num_masks=1, natural_ordering=False):
        """
        nin: integer; number of inputs
        hidden sizes: a list of integers; number of units in hidden layers
        nout: integer; number of outputs, which usually collectively parameterize some kind of 1D distribution
              note: if nout is e.g. 2x larger than nin (perhaps the mean and std), then the first nin
              will be all the means and the second nin will be stds. i.e. output dimensions depend on the
              same input dimensions in "chunks" and should be carefully decoded downstream appropriately.
              the output of running the tests for this file makes this a bit more clear with examples.
        num_masks: can be used to train ensemble over orderings/connections
        natural_ordering: force natural ordering of dimensions, don't use random permutations
        """
        
        super().__init__()
        self.nin = nin
        self.nout = nout
        self.hidden_sizes = hidden_sizes
        assert self.nout % self.nin == 0, "nout must be integer multiple of nin"
        
        # define a simple MLP neural net
        self.net = []
        hs = [nin] + hidden_sizes + [nout]
        for h0,h1 in zip(hs, hs[1:]):
            self.net.extend([
                    MaskedLinear(h0, h1),
                    nn.ReLU(),
                ])
        self.net.pop() # pop the last ReLU for the output layer
        self.net = nn.Sequential(*self.net)
        
        # seeds for orders/connectivities of the model ensemble
        self.natural_ordering = natural_ordering
        self.num_masks = num_masks
        self.seed = 0 # for cycling through num_masks orderings
        
        self.m = {}
        self.update_masks() # builds the initial self.m connectivity
        # note, we could also precompute the masks and cache them, but this
        # could get memory expensive for large number of masks.
        
    def update_masks(self):
        if self.m and self.num_masks == 1: return # only a single seed, skip for efficiency
        L = len(self.hidden_sizes)
        
        # fetch the next seed and construct a random stream
        rng = np.random.RandomState(self.seed)
        self.seed = (self.seed + 1) % self.num_masks
        
        # sample the order of the inputs and the connectivity of all neurons
        self.m[-1] = np.arange(self.nin) if self.natural_ordering else rng.permutation(self.nin)
        for l in range(L):
            self.m[l] = rng.randint(self.m[l-1].min(), self.nin-1, size=self.hidden_sizes[l])
        
        # construct the mask matrices
        masks = [self.m[l-1][:,None] <= self.m[l][None,:] for l in range(L)]
        masks.append(self.m[L-1][:,None] < self.m[-1][None,:])
        
        # handle the case where nout = nin * k, for integer k > 1
        if self.nout > self.nin:
            k = int(self.nout / self.nin)
            # replicate the mask across the other outputs
            masks[-1] = np.concatenate([masks[-1]]*k, axis=1)
        
        # set the masks in all MaskedLinear layers
        layers = [l for l in self.net.modules() if isinstance(l, MaskedLinear)]
        for l,m in zip(layers, masks):
            l.set_mask(m)
    
    def forward(self, x):
        return self.net(x)


# ------------------------------------------------------------------------------
def run_epoch(split, upto=None):
    torch.set_grad_enabled(split=='train') # enable/disable grad for efficiency of forwarding test batches
    model.train() if split == 'train' else model.eval()
    nsamples = 1 if split == 'train' else args.samples
    x = xtr if split == 'train' else xte
    N,D = x.size()
    B = 100 # batch size
    nsteps = N//B if upto is None else min(N//B, upto)
    lossfs = []
    for step in range(nsteps):
        
        # fetch the next batch of data
        xb = Variable(x[step*B:step*B+B])
        
        # get the logits, potentially run the same batch a number of times, resampling each time
        xbhat = torch.zeros_like(xb)
        for s in range(nsamples):
            # perform order/connectivity-agnostic training by resampling the masks
            if step % args.resample_every == 0 or split == 'test': # if in test, cycle masks every time
                model.update_masks()
            # forward the model
            xbhat += model(xb)
        xbhat /= nsamples
        
        # evaluate the binary cross entropy loss
        loss = F.binary_cross_entropy_with_logits(xbhat, xb, size_average=False) / B
        lossf = loss.data.item()
        lossfs.append(lossf)
        
        # backward/update
        if split == 'train':
            opt.zero_grad()
            loss.backward()
            opt.step()
        
    print("%s epoch average loss: %f" % (split, np.mean(lossfs)))
# ------------------------------------------------------------------------------

# realcode: the `if __name__ == '__main__':` body at the top level (a load marker splits it)
class args:  # realcode: argparse's defaults (data-path is the synthetic inputs); hiddens 500 -> 100
    hiddens = '100'; num_masks = 1; resample_every = 20; samples = 1
# --------------------------------------------------------------------------

# reproducibility is good
np.random.seed(42)
torch.manual_seed(42)
torch.cuda.manual_seed_all(42)

# load the dataset
pass  # realcode-dropped: print("loading binarized mnist from", args.data_path)
xtr, xte = train_data.numpy(), valid_data.numpy()
xtr = torch.from_numpy(xtr)
xte = torch.from_numpy(xte)

# construct model and ship to GPU
hidden_list = list(map(int, args.hiddens.split(',')))
model = MADE(xtr.size(1), hidden_list, xtr.size(1), num_masks=args.num_masks)
print("number of model parameters:",sum([np.prod(p.size()) for p in model.parameters()]))
# %% realcode-load: model

# set up the optimizer
opt = torch.optim.Adam(model.parameters(), 1e-3, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=45, gamma=0.1)

# start the training
for epoch in range(2):
    print("epoch %d" % (epoch, ))
    scheduler.step(epoch)
    run_epoch('test', upto=5) # run only a few batches for approximate test accuracy
    run_epoch('train')

print("optimization done. full test set eval:")
run_epoch('test')

