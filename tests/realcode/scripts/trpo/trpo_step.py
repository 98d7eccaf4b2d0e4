# realcode: ikostrikov/pytorch-trpo @ e200eb8a23b3c7941a0091efb9750dafa4b23cbb
# realcode: https://github.com/ikostrikov/pytorch-trpo/blob/e200eb8a23b3c7941a0091efb9750dafa4b23cbb/utils.py
# realcode: https://github.com/ikostrikov/pytorch-trpo/blob/e200eb8a23b3c7941a0091efb9750dafa4b23cbb/models.py
# realcode: https://github.com/ikostrikov/pytorch-trpo/blob/e200eb8a23b3c7941a0091efb9750dafa4b23cbb/trpo.py
# realcode: https://github.com/ikostrikov/pytorch-trpo/blob/e200eb8a23b3c7941a0091efb9750dafa4b23cbb/main.py
# realcode: kept as written except for these adaptations:
#   - utils.py, models.py and trpo.py as written, one after the other, then a driver cell built from main.py: float64 tensors by default (torch.set_default_tensor_type('torch.DoubleTensor'), as main.py sets), Policy and Value for a Reacher-shaped task (11 observations, 2 actions), and update_params() on one synthetic batch of 24 transitions (states, actions, rewards and episode ends come in as inputs, standing for what gym's Reacher and select_action's torch.normal draws give): the returns, deltas and GAE advantages as written, then the TRPO policy step (trpo_step with get_loss and get_kl: the conjugate gradients over Hessian-vector products of the KL, create_graph=True, and the line search)
#   - update_params() fits the value network with scipy.optimize.fmin_l_bfgs_b; SciPy is not in the oracle's environment, so the driver leaves that fit out (the value network only gives the baselines of the advantages) and `import scipy.optimize` is dropped with it
#   - `from utils import *` -> `pass  # realcode-inlined: from utils import *`: the package's own import (utils.py is pasted above)
# realcode-input: states = randn(24, 11, dtype="float64")
# realcode-input: actions = randn(24, 2, dtype="float64")
# realcode-input: rewards = randn(24, dtype="float64")
# realcode-input: masks = rand(24, dtype="float64")
# realcode-output: policy_net.* value_net.* advantages loss_before loss_after
# %% realcode: utils.py
import math

import numpy as np

import torch


def normal_entropy(std):
    var = std.pow(2)
    entropy = 0.5 + 0.5 * torch.log(2 * var * math.pi)
    return entropy.sum(1, keepdim=True)


def normal_log_density(x, mean, log_std, std):
    var = std.pow(2)
    log_density = -(x - mean).pow(2) / (
        2 * var) - 0.5 * math.log(2 * math.pi) - log_std
    return log_density.sum(1, keepdim=True)


def get_flat_params_from(model):
    params = []
    for param in model.parameters():
        params.append(param.data.view(-1))

    flat_params = torch.cat(params)
    return flat_params


def set_flat_params_to(model, flat_params):
    prev_ind = 0
    for param in model.parameters():
        flat_size = int(np.prod(list(param.size())))
        param.data.copy_(
            flat_params[prev_ind:prev_ind + flat_size].view(param.size()))
        prev_ind += flat_size


def get_flat_grad_from(net, grad_grad=False):
    grads = []
    for param in net.parameters():
        if grad_grad:
            grads.append(param.grad.grad.view(-1))
        else:
            grads.append(param.grad.view(-1))

    flat_grad = torch.cat(grads)
    return flat_grad

# %% realcode: models.py
import torch
import torch.autograd as autograd
import torch.nn as nn


class Policy(nn.Module):
    def __init__(self, num_inputs, num_outputs):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(num_inputs, 64)
        self.affine2 = nn.Linear(64, 64)

        self.action_mean = nn.Linear(64, num_outputs)
        self.action_mean.weight.data.mul_(0.1)
        self.action_mean.bias.data.mul_(0.0)

        self.action_log_std = nn.Parameter(torch.zeros(1, num_outputs))

        self.saved_actions = []
        self.rewards = []
        self.final_value = 0

    def forward(self, x):
        x = torch.tanh(self.affine1(x))
        x = torch.tanh(self.affine2(x))

        action_mean = self.action_mean(x)
        action_log_std = self.action_log_std.expand_as(action_mean)
        action_std = torch.exp(action_log_std)

        return action_mean, action_log_std, action_std


class Value(nn.Module):
    def __init__(self, num_inputs):
        super(Value, self).__init__()
        self.affine1 = nn.Linear(num_inputs, 64)
        self.affine2 = nn.Linear(64, 64)
        self.value_head = nn.Linear(64, 1)
        self.value_head.weight.data.mul_(0.1)
        self.value_head.bias.data.mul_(0.0)

    def forward(self, x):
        x = torch.tanh(self.affine1(x))
        x = torch.tanh(self.affine2(x))

        state_values = self.value_head(x)
        return state_values

# %% realcode: trpo.py
import numpy as np

import torch
from torch.autograd import Variable
pass  # realcode-inlined: from utils import *


def conjugate_gradients(Avp, b, nsteps, residual_tol=1e-10):
    x = torch.zeros(b.size())
    r = b.clone()
    p = b.clone()
    rdotr = torch.dot(r, r)
    for i in range(nsteps):
        _Avp = Avp(p)
        alpha = rdotr / torch.dot(p, _Avp)
        x += alpha * p
        r -= alpha * _Avp
        new_rdotr = torch.dot(r, r)
        betta = new_rdotr / rdotr
        p = r + betta * p
        rdotr = new_rdotr
        if rdotr < residual_tol:
            break
    return x


def linesearch(model,
               f,
               x,
               fullstep,
               expected_improve_rate,
               max_backtracks=10,
               accept_ratio=.1):
    fval = f(True).data
    print("fval before", fval.item())
    for (_n_backtracks, stepfrac) in enumerate(.5**np.arange(max_backtracks)):
        xnew = x + stepfrac * fullstep
        set_flat_params_to(model, xnew)
        newfval = f(True).data
        actual_improve = fval - newfval
        expected_improve = expected_improve_rate * stepfrac
        ratio = actual_improve / expected_improve
        print("a/e/r", actual_improve.item(), expected_improve.item(), ratio.item())

        if ratio.item() > accept_ratio and actual_improve.item() > 0:
            print("fval after", newfval.item())
            return True, xnew
    return False, x


def trpo_step(model, get_loss, get_kl, max_kl, damping):
    loss = get_loss()
    grads = torch.autograd.grad(loss, model.parameters())
    loss_grad = torch.cat([grad.view(-1) for grad in grads]).data

    def Fvp(v):
        kl = get_kl()
        kl = kl.mean()

        grads = torch.autograd.grad(kl, model.parameters(), create_graph=True)
        flat_grad_kl = torch.cat([grad.view(-1) for grad in grads])

        kl_v = (flat_grad_kl * Variable(v)).sum()
        grads = torch.autograd.grad(kl_v, model.parameters())
        flat_grad_grad_kl = torch.cat([grad.contiguous().view(-1) for grad in grads]).data

        return flat_grad_grad_kl + v * damping

    stepdir = conjugate_gradients(Fvp, -loss_grad, 10)

    shs = 0.5 * (stepdir * Fvp(stepdir)).sum(0, keepdim=True)

    lm = torch.sqrt(shs / max_kl)
    fullstep = stepdir / lm[0]

    neggdotstepdir = (-loss_grad * stepdir).sum(0, keepdim=True)
    print(("lagrange multiplier:", lm[0], "grad_norm:", loss_grad.norm()))

    prev_params = get_flat_params_from(model)
    success, new_params = linesearch(model, get_loss, prev_params, fullstep,
                                     neggdotstepdir / lm[0])
    set_flat_params_to(model, new_params)

    return loss

# %% realcode: driver cell, main.py's update_params() on a synthetic batch
from torch.autograd import Variable
torch.set_default_tensor_type('torch.DoubleTensor')

class args:   # main.py's argparse defaults
    gamma = 0.995
    tau = 0.97
    l2_reg = 1e-3
    max_kl = 1e-2
    damping = 1e-1

num_inputs, num_actions = 11, 2
policy_net = Policy(num_inputs, num_actions)
value_net = Value(num_inputs)
# %% realcode-load: policy_net value_net
masks = (masks > 0.1).double()
values = value_net(Variable(states))

returns = torch.Tensor(actions.size(0),1)
deltas = torch.Tensor(actions.size(0),1)
advantages = torch.Tensor(actions.size(0),1)

prev_return = 0
prev_value = 0
prev_advantage = 0
for i in reversed(range(rewards.size(0))):
    returns[i] = rewards[i] + args.gamma * prev_return * masks[i]
    deltas[i] = rewards[i] + args.gamma * prev_value * masks[i] - values.data[i]
    advantages[i] = deltas[i] + args.gamma * args.tau * prev_advantage * masks[i]

    prev_return = returns[i, 0]
    prev_value = values.data[i, 0]
    prev_advantage = advantages[i, 0]

advantages = (advantages - advantages.mean()) / advantages.std()

action_means, action_log_stds, action_stds = policy_net(Variable(states))
fixed_log_prob = normal_log_density(Variable(actions), action_means, action_log_stds, action_stds).data.clone()

def get_loss(volatile=False):
    if volatile:
        with torch.no_grad():
            action_means, action_log_stds, action_stds = policy_net(Variable(states))
    else:
        action_means, action_log_stds, action_stds = policy_net(Variable(states))

    log_prob = normal_log_density(Variable(actions), action_means, action_log_stds, action_stds)
    action_loss = -Variable(advantages) * torch.exp(log_prob - Variable(fixed_log_prob))
    return action_loss.mean()


def get_kl():
    mean1, log_std1, std1 = policy_net(Variable(states))

    mean0 = Variable(mean1.data)
    log_std0 = Variable(log_std1.data)
    std0 = Variable(std1.data)
    kl = log_std1 - log_std0 + (std0.pow(2) + (mean0 - mean1).pow(2)) / (2.0 * std1.pow(2)) - 0.5
    return kl.sum(1, keepdim=True)

loss_before = trpo_step(policy_net, get_loss, get_kl, args.max_kl, args.damping).detach()
loss_after = get_loss(True)
