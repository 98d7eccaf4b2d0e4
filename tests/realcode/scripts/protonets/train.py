# realcode: jakesnell/prototypical-networks @ c9bb4d258267c11cb6e23f0a19242d24ca98ad8a
# realcode: https://github.com/jakesnell/prototypical-networks/blob/c9bb4d258267c11cb6e23f0a19242d24ca98ad8a/protonets/models/factory.py
# realcode: https://github.com/jakesnell/prototypical-networks/blob/c9bb4d258267c11cb6e23f0a19242d24ca98ad8a/protonets/models/utils.py
# realcode: https://github.com/jakesnell/prototypical-networks/blob/c9bb4d258267c11cb6e23f0a19242d24ca98ad8a/protonets/models/few_shot.py
# realcode: https://github.com/jakesnell/prototypical-networks/blob/c9bb4d258267c11cb6e23f0a19242d24ca98ad8a/protonets/engine.py
# realcode: https://github.com/jakesnell/prototypical-networks/blob/c9bb4d258267c11cb6e23f0a19242d24ca98ad8a/scripts/train/few_shot/train.py
# realcode: kept as written except for these adaptations:
#   - protonets/models/factory.py, protonets/models/utils.py, protonets/models/few_shot.py and protonets/engine.py as written, one after the other, then a driver cell built from main() (the data loaders, torchnet meters, logging and saving left out)
#   - `from protonets.models import register_model /  / from .utils import euclidean_dist` -> `pass  # realcode-inlined: from protonets.models import register_model /  / pass  # realcode-inlined: from .utils import euclidean_dist`: the repository's own modules, pasted above
# realcode-input: xs = randn(3, 2, 1, 16, 16)
# realcode-input: xq = randn(3, 2, 1, 16, 16)
# realcode-output: losses accs model.* z dists
# realcode-shape-only: model.encoder.0.0.bias model.encoder.1.0.bias model.encoder.2.0.bias model.encoder.3.0.bias model.encoder.0.1.running_mean model.encoder.1.1.running_mean model.encoder.2.1.running_mean model.encoder.3.1.running_mean z dists model.encoder.3.1.bias (each Conv2d bias before a BatchNorm2d has a true gradient of 0 in training mode, and Adam moves it by about lr times the sign of float32 noise; the running means follow it, and the eval-mode z and dists depend on both. The training losses do not. The last BatchNorm2d's bias shifts every embedding alike wherever its ReLU passes all of them, which leaves every distance unchanged: those channels' true gradient is 0 as well)
# realcode-rtol: 2e-4 (losses and accs are Python floats read from float32 tensors by item(): float32's tolerance)
# %% realcode: protonets/models/factory.py
MODEL_REGISTRY = {}

def register_model(model_name):
    def decorator(f):
        MODEL_REGISTRY[model_name] = f
        return f

    return decorator

def get_model(model_name, model_opt):
    if model_name in MODEL_REGISTRY:
        return MODEL_REGISTRY[model_name](**model_opt)
    else:
        raise ValueError("Unknown model {:s}".format(model_name))

# %% realcode: protonets/models/utils.py
import torch

def euclidean_dist(x, y):
    # x: N x D
    # y: M x D
    n = x.size(0)
    m = y.size(0)
    d = x.size(1)
    assert d == y.size(1)

    x = x.unsqueeze(1).expand(n, m, d)
    y = y.unsqueeze(0).expand(n, m, d)

    return torch.pow(x - y, 2).sum(2)

# %% realcode: protonets/models/few_shot.py
import torch
import torch.nn as nn
import torch.nn.functional as F

from torch.autograd import Variable

pass  # realcode-inlined: from protonets.models import register_model

pass  # realcode-inlined: from .utils import euclidean_dist

class Flatten(nn.Module):
    def __init__(self):
        super(Flatten, self).__init__()

    def forward(self, x):
        return x.view(x.size(0), -1)

class Protonet(nn.Module):
    def __init__(self, encoder):
        super(Protonet, self).__init__()
        
        self.encoder = encoder

    def loss(self, sample):
        xs = Variable(sample['xs']) # support
        xq = Variable(sample['xq']) # query

        n_class = xs.size(0)
        assert xq.size(0) == n_class
        n_support = xs.size(1)
        n_query = xq.size(1)

        target_inds = torch.arange(0, n_class).view(n_class, 1, 1).expand(n_class, n_query, 1).long()
        target_inds = Variable(target_inds, requires_grad=False)

        if xq.is_cuda:
            target_inds = target_inds.cuda()

        x = torch.cat([xs.view(n_class * n_support, *xs.size()[2:]),
                       xq.view(n_class * n_query, *xq.size()[2:])], 0)

        z = self.encoder.forward(x)
        z_dim = z.size(-1)

        z_proto = z[:n_class*n_support].view(n_class, n_support, z_dim).mean(1)
        zq = z[n_class*n_support:]

        dists = euclidean_dist(zq, z_proto)

        log_p_y = F.log_softmax(-dists, dim=1).view(n_class, n_query, -1)

        loss_val = -log_p_y.gather(2, target_inds).squeeze().view(-1).mean()

        _, y_hat = log_p_y.max(2)
        acc_val = torch.eq(y_hat, target_inds.squeeze()).float().mean()

        return loss_val, {
            'loss': loss_val.item(),
            'acc': acc_val.item()
        }

@register_model('protonet_conv')
def load_protonet_conv(**kwargs):
    x_dim = kwargs['x_dim']
    hid_dim = kwargs['hid_dim']
    z_dim = kwargs['z_dim']

    def conv_block(in_channels, out_channels):
        return nn.Sequential(
            nn.Conv2d(in_channels, out_channels, 3, padding=1),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
            nn.MaxPool2d(2)
        )

    encoder = nn.Sequential(
        conv_block(x_dim[0], hid_dim),
        conv_block(hid_dim, hid_dim),
        conv_block(hid_dim, hid_dim),
        conv_block(hid_dim, z_dim),
        Flatten()
    )

    return Protonet(encoder)

# %% realcode: protonets/engine.py
from tqdm import tqdm

class Engine(object):
    def __init__(self):
        hook_names = ['on_start', 'on_start_epoch', 'on_sample', 'on_forward',
                      'on_backward', 'on_end_epoch', 'on_update', 'on_end']

        self.hooks = { }
        for hook_name in hook_names:
            self.hooks[hook_name] = lambda state: None

    def train(self, **kwargs):
        state = {
            'model': kwargs['model'],
            'loader': kwargs['loader'],
            'optim_method': kwargs['optim_method'],
            'optim_config': kwargs['optim_config'],
            'max_epoch': kwargs['max_epoch'],
            'epoch': 0, # epochs done so far
            't': 0, # samples seen so far
            'batch': 0, # samples seen in current epoch
            'stop': False
        }

        state['optimizer'] = state['optim_method'](state['model'].parameters(), **state['optim_config'])

        self.hooks['on_start'](state)
        while state['epoch'] < state['max_epoch'] and not state['stop']:
            state['model'].train()

            self.hooks['on_start_epoch'](state)

            state['epoch_size'] = len(state['loader'])

            for sample in tqdm(state['loader'], desc="Epoch {:d} train".format(state['epoch'] + 1)):
                state['sample'] = sample
                self.hooks['on_sample'](state)

                state['optimizer'].zero_grad()
                loss, state['output'] = state['model'].loss(state['sample'])
                self.hooks['on_forward'](state)

                loss.backward()
                self.hooks['on_backward'](state)

                state['optimizer'].step()

                state['t'] += 1
                state['batch'] += 1
                self.hooks['on_update'](state)

            state['epoch'] += 1
            state['batch'] = 0
            self.hooks['on_end_epoch'](state)

        self.hooks['on_end'](state)

# %% realcode: driver built from scripts/train/few_shot/train.py's main(): the model from the registry (sizes smaller), Engine.train with main()'s on_start / on_start_epoch / on_update hooks (StepLR, the per-update outputs kept in a list instead of torchnet meters), on one synthetic 3-way 2-shot 2-query episode
import torch.optim as optim
import torch.optim.lr_scheduler as lr_scheduler

opt = {'model.model_name': 'protonet_conv', 'model.x_dim': '1,16,16', 'model.hid_dim': 8, 'model.z_dim': 8,
       'train.decay_every': 2, 'train.learning_rate': 0.001, 'train.weight_decay': 0.0, 'train.epochs': 4}
opt['model.x_dim'] = list(map(int, opt['model.x_dim'].split(',')))
model_opt = {'x_dim': opt['model.x_dim'], 'hid_dim': opt['model.hid_dim'], 'z_dim': opt['model.z_dim']}
model = get_model(opt['model.model_name'], model_opt)
# %% realcode-load: model
engine = Engine()
outputs = []

def on_start(state):
    state['scheduler'] = lr_scheduler.StepLR(state['optimizer'], opt['train.decay_every'], gamma=0.5)
engine.hooks['on_start'] = on_start

def on_start_epoch(state):
    state['scheduler'].step()
engine.hooks['on_start_epoch'] = on_start_epoch

def on_update(state):
    outputs.append(state['output'])
engine.hooks['on_update'] = on_update

engine.train(
    model = model,
    loader = [{'xs': xs, 'xq': xq}],
    optim_method = getattr(optim, 'Adam'),
    optim_config = { 'lr': opt['train.learning_rate'],
                     'weight_decay': opt['train.weight_decay'] },
    max_epoch = opt['train.epochs']
)
losses = [o['loss'] for o in outputs]
accs = [o['acc'] for o in outputs]
z = model.encoder.forward(xq.view(6, 1, 16, 16))
dists = euclidean_dist(z, z[:3])
