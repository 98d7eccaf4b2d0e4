# realcode: seungeunrho/minimalRL @ c8efed8481e3cd40e9739cfde220a55522555b57
# realcode: https://github.com/seungeunrho/minimalRL/blob/c8efed8481e3cd40e9739cfde220a55522555b57/ppo.py
# realcode: kept as written except for these adaptations:
#   - a driver cell built from main()'s loop: CartPole's states, rewards and episode ends come in as inputs (`env_states[e, t].numpy()` standing for what env.reset()/env.step() return), and the actions `m.sample()` would draw come in as inputs too, so that the values are comparable
#   - 2 episodes of 2 rollouts of T_horizon (20) steps instead of 10,000 episodes
#   - `import gym` -> `pass  # realcode-dropped: import gym`: gym is not installed; it serves only main()'s CartPole environment, replaced by the driver's synthetic transitions
#   - `if __name__ == '__main__': / main()` -> `if __name__ == '__main__': / pass  # realcode-dropped: main()`: main() runs gym's CartPole for 10,000 episodes; the driver cell below runs its loop on synthetic transitions instead
# realcode-input: env_states = randn(2, 41, 4)
# realcode-input: env_rewards = rand(2, 40)
# realcode-input: env_actions = randint(0, 2, 2, 40)
# realcode-output: model.*
# %% realcode: ppo.py

pass  # realcode-dropped: import gym
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

#Hyperparameters
learning_rate = 0.0005
gamma         = 0.98
lmbda         = 0.95
eps_clip      = 0.1
K_epoch       = 3
T_horizon     = 20

class PPO(nn.Module):
    def __init__(self):
        super(PPO, self).__init__()
        self.data = []
        
        self.fc1   = nn.Linear(4,256)
        self.fc_pi = nn.Linear(256,2)
        self.fc_v  = nn.Linear(256,1)
        self.optimizer = optim.Adam(self.parameters(), lr=learning_rate)

    def pi(self, x, softmax_dim = 0):
        x = F.relu(self.fc1(x))
        x = self.fc_pi(x)
        prob = F.softmax(x, dim=softmax_dim)
        return prob
    
    def v(self, x):
        x = F.relu(self.fc1(x))
        v = self.fc_v(x)
        return v
      
    def put_data(self, transition):
        self.data.append(transition)
        
    def make_batch(self):
        s_lst, a_lst, r_lst, s_prime_lst, prob_a_lst, done_lst = [], [], [], [], [], []
        for transition in self.data:
            s, a, r, s_prime, prob_a, done = transition
            
            s_lst.append(s)
            a_lst.append([a])
            r_lst.append([r])
            s_prime_lst.append(s_prime)
            prob_a_lst.append([prob_a])
            done_mask = 0 if done else 1
            done_lst.append([done_mask])
            
        s,a,r,s_prime,done_mask, prob_a = torch.tensor(s_lst, dtype=torch.float), torch.tensor(a_lst), \
                                          torch.tensor(r_lst), torch.tensor(s_prime_lst, dtype=torch.float), \
                                          torch.tensor(done_lst, dtype=torch.float), torch.tensor(prob_a_lst)
        self.data = []
        return s, a, r, s_prime, done_mask, prob_a
        
    def train_net(self):
        s, a, r, s_prime, done_mask, prob_a = self.make_batch()

        for i in range(K_epoch):
            td_target = r + gamma * self.v(s_prime) * done_mask
            delta = td_target - self.v(s)
            delta = delta.detach().numpy()

            advantage_lst = []
            advantage = 0.0
            for delta_t in delta[::-1]:
                advantage = gamma * lmbda * advantage + delta_t[0]
                advantage_lst.append([advantage])
            advantage_lst.reverse()
            advantage = torch.tensor(advantage_lst, dtype=torch.float)

            pi = self.pi(s, softmax_dim=1)
            pi_a = pi.gather(1,a)
            ratio = torch.exp(torch.log(pi_a) - torch.log(prob_a))  # a/b == exp(log(a)-log(b))

            surr1 = ratio * advantage
            surr2 = torch.clamp(ratio, 1-eps_clip, 1+eps_clip) * advantage
            loss = -torch.min(surr1, surr2) + F.smooth_l1_loss(self.v(s) , td_target.detach())

            self.optimizer.zero_grad()
            loss.mean().backward()
            self.optimizer.step()
        
def main():
    env = gym.make('CartPole-v1')
    model = PPO()
    score = 0.0
    print_interval = 20

    for n_epi in range(10000):
        s, _ = env.reset()
        done = False
        while not done:
            for t in range(T_horizon):
                prob = model.pi(torch.from_numpy(s).float())
                m = Categorical(prob)
                a = m.sample().item()
                s_prime, r, done, truncated, info = env.step(a)

                model.put_data((s, a, r/100.0, s_prime, prob[a].item(), done))
                s = s_prime

                score += r
                if done:
                    break

            model.train_net()

        if n_epi%print_interval==0 and n_epi!=0:
            print("# of episode :{}, avg score : {:.1f}".format(n_epi, score/print_interval))
            score = 0.0

    env.close()

if __name__ == '__main__':
    pass  # realcode-dropped: main()

# %% realcode: driver cell, main()'s loop on synthetic transitions
model = PPO()
# %% realcode-load: model
score = 0.0
for n_epi in range(2):
    s = env_states[n_epi, 0].numpy()
    done = False
    step = 0
    while not done:
        for t in range(T_horizon):
            prob = model.pi(torch.from_numpy(s).float())
            a = env_actions[n_epi, step].item()   # realcode: the action m.sample().item() would draw
            s_prime, r, done = env_states[n_epi, step + 1].numpy(), env_rewards[n_epi, step].item(), step == 39
            model.put_data((s, a, r/100.0, s_prime, prob[a].item(), done))
            s = s_prime
            score += r
            step += 1
            if done:
                break
        model.train_net()
