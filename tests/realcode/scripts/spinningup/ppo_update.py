# realcode: openai/spinningup @ 038665d62d569055401d91856abb287263096178
# realcode: https://github.com/openai/spinningup/blob/038665d62d569055401d91856abb287263096178/spinup/algos/pytorch/ppo/core.py
# realcode: https://github.com/openai/spinningup/blob/038665d62d569055401d91856abb287263096178/spinup/algos/pytorch/ppo/ppo.py
# realcode: kept as written except for these adaptations:
#   - core.py as written, then a driver cell built from ppo.py: compute_loss_pi and compute_loss_v as written, and update()'s policy and value loops (train_pi_iters and train_v_iters 80 -> 4, with its early stop on target_kl) on one synthetic buffer of 20 steps (observations, actions, advantages and returns come in as inputs, standing for what PPOBuffer.get() returns; the old log-probabilities are the initial policy's, as ac.step() records them), for a continuous (Box) and a discrete (Discrete) action space; mpi_avg and mpi_avg_grads are a single process's (the value itself, the gradients untouched), the logger.store calls are left out and logger.log's early-stop message is printed
#   - `from gym.spaces import Box, Discrete` -> two small stand-in classes with gym's .shape and .n, which MLPActorCritic reads (gym is not installed; the driver builds the spaces)
#   - `import scipy.signal` -> `pass  # realcode-dropped: import scipy.signal`: SciPy is not in the oracle's environment; it serves only discount_cumsum (PPOBuffer's), which the run does not take
# realcode-input: obs = randn(20, 5)
# realcode-input: act_box = randn(20, 2)
# realcode-input: act_discrete = randint(0, 4, 20)
# realcode-input: adv = randn(20)
# realcode-input: ret = randn(20)
# realcode-output: ac_box.* ac_discrete.* pi_infos losses
# %% realcode: spinup/algos/pytorch/ppo/core.py
import numpy as np
pass  # realcode-dropped: import scipy.signal
class Box:  # realcode: a stand-in for gym.spaces.Box
    def __init__(self, low, high, shape): self.shape = shape
class Discrete:  # realcode: a stand-in for gym.spaces.Discrete
    def __init__(self, n): self.n = n; self.shape = ()

import torch
import torch.nn as nn
from torch.distributions.normal import Normal
from torch.distributions.categorical import Categorical


def combined_shape(length, shape=None):
    if shape is None:
        return (length,)
    return (length, shape) if np.isscalar(shape) else (length, *shape)


def mlp(sizes, activation, output_activation=nn.Identity):
    layers = []
    for j in range(len(sizes)-1):
        act = activation if j < len(sizes)-2 else output_activation
        layers += [nn.Linear(sizes[j], sizes[j+1]), act()]
    return nn.Sequential(*layers)


def count_vars(module):
    return sum([np.prod(p.shape) for p in module.parameters()])


def discount_cumsum(x, discount):
    """
    magic from rllab for computing discounted cumulative sums of vectors.

    input: 
        vector x, 
        [x0, 
         x1, 
         x2]

    output:
        [x0 + discount * x1 + discount^2 * x2,  
         x1 + discount * x2,
         x2]
    """
    return scipy.signal.lfilter([1], [1, float(-discount)], x[::-1], axis=0)[::-1]


class Actor(nn.Module):

    def _distribution(self, obs):
        raise NotImplementedError

    def _log_prob_from_distribution(self, pi, act):
        raise NotImplementedError

    def forward(self, obs, act=None):
        # Produce action distributions for given observations, and 
        # optionally compute the log likelihood of given actions under
        # those distributions.
        pi = self._distribution(obs)
        logp_a = None
        if act is not None:
            logp_a = self._log_prob_from_distribution(pi, act)
        return pi, logp_a


class MLPCategoricalActor(Actor):
    
    def __init__(self, obs_dim, act_dim, hidden_sizes, activation):
        super().__init__()
        self.logits_net = mlp([obs_dim] + list(hidden_sizes) + [act_dim], activation)

    def _distribution(self, obs):
        logits = self.logits_net(obs)
        return Categorical(logits=logits)

    def _log_prob_from_distribution(self, pi, act):
        return pi.log_prob(act)


class MLPGaussianActor(Actor):

    def __init__(self, obs_dim, act_dim, hidden_sizes, activation):
        super().__init__()
        log_std = -0.5 * np.ones(act_dim, dtype=np.float32)
        self.log_std = torch.nn.Parameter(torch.as_tensor(log_std))
        self.mu_net = mlp([obs_dim] + list(hidden_sizes) + [act_dim], activation)

    def _distribution(self, obs):
        mu = self.mu_net(obs)
        std = torch.exp(self.log_std)
        return Normal(mu, std)

    def _log_prob_from_distribution(self, pi, act):
        return pi.log_prob(act).sum(axis=-1)    # Last axis sum needed for Torch Normal distribution


class MLPCritic(nn.Module):

    def __init__(self, obs_dim, hidden_sizes, activation):
        super().__init__()
        self.v_net = mlp([obs_dim] + list(hidden_sizes) + [1], activation)

    def forward(self, obs):
        return torch.squeeze(self.v_net(obs), -1) # Critical to ensure v has right shape.



class MLPActorCritic(nn.Module):


    def __init__(self, observation_space, action_space, 
                 hidden_sizes=(64,64), activation=nn.Tanh):
        super().__init__()

        obs_dim = observation_space.shape[0]

        # policy builder depends on action space
        if isinstance(action_space, Box):
            self.pi = MLPGaussianActor(obs_dim, action_space.shape[0], hidden_sizes, activation)
        elif isinstance(action_space, Discrete):
            self.pi = MLPCategoricalActor(obs_dim, action_space.n, hidden_sizes, activation)

        # build value function
        self.v  = MLPCritic(obs_dim, hidden_sizes, activation)

    def step(self, obs):
        with torch.no_grad():
            pi = self.pi._distribution(obs)
            a = pi.sample()
            logp_a = self.pi._log_prob_from_distribution(pi, a)
            v = self.v(obs)
        return a.numpy(), v.numpy(), logp_a.numpy()

    def act(self, obs):
        return self.step(obs)[0]
# %% realcode: driver cell, ppo.py's losses and update() on a synthetic buffer
from torch.optim import Adam
clip_ratio = 0.2
pi_lr = 3e-4
vf_lr = 1e-3
train_pi_iters = 4
train_v_iters = 4
target_kl = 0.01

def mpi_avg(x):
    return x   # one process

def mpi_avg_grads(module):
    pass       # one process

ac_box = MLPActorCritic(Box(-1.0, 1.0, (5,)), Box(-1.0, 1.0, (2,)))
ac_discrete = MLPActorCritic(Box(-1.0, 1.0, (5,)), Discrete(4))
# %% realcode-load: ac_box ac_discrete
pi_infos, losses = [], []
for ac, act in ((ac_box, act_box), (ac_discrete, act_discrete)):
    with torch.no_grad():
        logp = ac.pi(obs, act)[1]
    data = dict(obs=obs, act=act, ret=ret, adv=adv, logp=logp)

    def compute_loss_pi(data):
        obs, act, adv, logp_old = data['obs'], data['act'], data['adv'], data['logp']

        # Policy loss
        pi, logp = ac.pi(obs, act)
        ratio = torch.exp(logp - logp_old)
        clip_adv = torch.clamp(ratio, 1-clip_ratio, 1+clip_ratio) * adv
        loss_pi = -(torch.min(ratio * adv, clip_adv)).mean()

        # Useful extra info
        approx_kl = (logp_old - logp).mean().item()
        ent = pi.entropy().mean().item()
        clipped = ratio.gt(1+clip_ratio) | ratio.lt(1-clip_ratio)
        clipfrac = torch.as_tensor(clipped, dtype=torch.float32).mean().item()
        pi_info = dict(kl=approx_kl, ent=ent, cf=clipfrac)

        return loss_pi, pi_info

    # Set up function for computing value loss
    def compute_loss_v(data):
        obs, ret = data['obs'], data['ret']
        return ((ac.v(obs) - ret)**2).mean()

    pi_optimizer = Adam(ac.pi.parameters(), lr=pi_lr)
    vf_optimizer = Adam(ac.v.parameters(), lr=vf_lr)

    pi_l_old, pi_info_old = compute_loss_pi(data)
    pi_l_old = pi_l_old.item()
    v_l_old = compute_loss_v(data).item()

    # Train policy with multiple steps of gradient descent
    for i in range(train_pi_iters):
        pi_optimizer.zero_grad()
        loss_pi, pi_info = compute_loss_pi(data)
        kl = mpi_avg(pi_info['kl'])
        if kl > 1.5 * target_kl:
            print('Early stopping at step %d due to reaching max kl.'%i)
            break
        loss_pi.backward()
        mpi_avg_grads(ac.pi)    # average grads across MPI processes
        pi_optimizer.step()

    # Value function learning
    for i in range(train_v_iters):
        vf_optimizer.zero_grad()
        loss_v = compute_loss_v(data)
        loss_v.backward()
        mpi_avg_grads(ac.v)    # average grads across MPI processes
        vf_optimizer.step()

    pi_infos.append([pi_info['kl'], pi_info_old['ent'], pi_info['cf']])
    losses.append([pi_l_old, v_l_old, loss_pi.item(), loss_v.item()])
pi_infos = torch.tensor(pi_infos)
losses = torch.tensor(losses)
