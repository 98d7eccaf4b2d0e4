# realcode: seungeunrho/minimalRL @ c8efed8481e3cd40e9739cfde220a55522555b57
# realcode: https://github.com/seungeunrho/minimalRL/blob/c8efed8481e3cd40e9739cfde220a55522555b57/REINFORCE.py
# realcode: kept as written except for these adaptations:
#   - a driver cell built from main()'s loop: CartPole's states, rewards and episode ends come in as inputs (`env_states[e, t].numpy()` standing for what env.reset()/env.step() return), and the actions `m.sample()` would draw come in as inputs too, so that the values are comparable
#   - 3 episodes of 8 steps instead of 10,000 episodes
#   - `import gym` -> `pass  # realcode-dropped: import gym`: gym is not installed; it serves only main()'s CartPole environment, replaced by the driver's synthetic transitions
#   - `if __name__ == '__main__': / main()` -> `if __name__ == '__main__': / pass  # realcode-dropped: main()`: main() runs gym's CartPole for 10,000 episodes; the driver cell below runs its loop on synthetic transitions instead
# realcode-input: env_states = randn(3, 9, 4)
# realcode-input: env_rewards = rand(3, 8)
# realcode-input: env_actions = randint(0, 2, 3, 8)
# realcode-output: pi.* probs
# %% realcode: REINFORCE.py

pass  # realcode-dropped: import gym
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

#Hyperparameters
learning_rate = 0.0002
gamma         = 0.98

class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.data = []
        
        self.fc1 = nn.Linear(4, 128)
        self.fc2 = nn.Linear(128, 2)
        self.optimizer = optim.Adam(self.parameters(), lr=learning_rate)
        
    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.softmax(self.fc2(x), dim=0)
        return x
      
    def put_data(self, item):
        self.data.append(item)
        
    def train_net(self):
        R = 0
        self.optimizer.zero_grad()
        for r, prob in self.data[::-1]:
            R = r + gamma * R
            loss = -torch.log(prob) * R
            loss.backward()
        self.optimizer.step()
        self.data = []

def main():
    env = gym.make('CartPole-v1')
    pi = Policy()
    score = 0.0
    print_interval = 20
    
    
    for n_epi in range(10000):
        s, _ = env.reset()
        done = False
        
        while not done: # CartPole-v1 forced to terminates at 500 step.
            prob = pi(torch.from_numpy(s).float())
            m = Categorical(prob)
            a = m.sample()
            s_prime, r, done, truncated, info = env.step(a.item())
            pi.put_data((r,prob[a]))
            s = s_prime
            score += r
            
        pi.train_net()
        
        if n_epi%print_interval==0 and n_epi!=0:
            print("# of episode :{}, avg score : {}".format(n_epi, score/print_interval))
            score = 0.0
    env.close()
    
if __name__ == '__main__':
    pass  # realcode-dropped: main()

# %% realcode: driver cell, main()'s loop on synthetic transitions
pi = Policy()
# %% realcode-load: pi
score = 0.0
probs = []
for n_epi in range(3):
    s = env_states[n_epi, 0].numpy()
    done = False
    t = 0
    while not done:
        prob = pi(torch.from_numpy(s).float())
        probs.append(prob.detach())
        a = env_actions[n_epi, t]   # realcode: the action m.sample() would draw
        s_prime, r, done = env_states[n_epi, t + 1].numpy(), env_rewards[n_epi, t].item(), t == 7
        pi.put_data((r, prob[a]))
        s = s_prime
        score += r
        t += 1
    pi.train_net()
probs = torch.stack(probs)
