# realcode: seungeunrho/minimalRL @ c8efed8481e3cd40e9739cfde220a55522555b57
# realcode: https://github.com/seungeunrho/minimalRL/blob/c8efed8481e3cd40e9739cfde220a55522555b57/dqn.py
# realcode: kept as written except for these adaptations:
#   - a driver cell built from main(): the replay buffer is filled with 32 synthetic transitions (inputs: states, actions, rewards, episode ends) instead of CartPole's, then train() runs as main() calls it and q_target is refreshed as main() does; the buffer holds exactly batch_size transitions, so random.sample only reorders them and the mean loss does not depend on the order
#   - two rounds of train() instead of 10,000 episodes
#   - `import gym` -> `pass  # realcode-dropped: import gym`: gym is not installed; it serves only main()'s CartPole environment, replaced by the driver's synthetic transitions
#   - `if __name__ == '__main__': / main()` -> `if __name__ == '__main__': / pass  # realcode-dropped: main()`: main() runs gym's CartPole for 10,000 episodes; the driver cell below runs its loop on synthetic transitions instead
# realcode-input: env_states = randn(33, 4)
# realcode-input: env_rewards = rand(32)
# realcode-input: env_actions = randint(0, 2, 32)
# realcode-input: env_dones = (rand(32) > 0.8)
# realcode-output: q.* q_target.* q_out
# %% realcode: dqn.py

pass  # realcode-dropped: import gym
import collections
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

#Hyperparameters
learning_rate = 0.0005
gamma         = 0.98
buffer_limit  = 50000
batch_size    = 32

class ReplayBuffer():
    def __init__(self):
        self.buffer = collections.deque(maxlen=buffer_limit)
    
    def put(self, transition):
        self.buffer.append(transition)
    
    def sample(self, n):
        mini_batch = random.sample(self.buffer, n)
        s_lst, a_lst, r_lst, s_prime_lst, done_mask_lst = [], [], [], [], []
        
        for transition in mini_batch:
            s, a, r, s_prime, done_mask = transition
            s_lst.append(s)
            a_lst.append([a])
            r_lst.append([r])
            s_prime_lst.append(s_prime)
            done_mask_lst.append([done_mask])

        return torch.tensor(s_lst, dtype=torch.float), torch.tensor(a_lst), \
               torch.tensor(r_lst), torch.tensor(s_prime_lst, dtype=torch.float), \
               torch.tensor(done_mask_lst)
    
    def size(self):
        return len(self.buffer)

class Qnet(nn.Module):
    def __init__(self):
        super(Qnet, self).__init__()
        self.fc1 = nn.Linear(4, 128)
        self.fc2 = nn.Linear(128, 128)
        self.fc3 = nn.Linear(128, 2)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x
      
    def sample_action(self, obs, epsilon):
        out = self.forward(obs)
        coin = random.random()
        if coin < epsilon:
            return random.randint(0,1)
        else : 
            return out.argmax().item()
            
def train(q, q_target, memory, optimizer):
    for i in range(10):
        s,a,r,s_prime,done_mask = memory.sample(batch_size)

        q_out = q(s)
        q_a = q_out.gather(1,a)
        max_q_prime = q_target(s_prime).max(1)[0].unsqueeze(1)
        target = r + gamma * max_q_prime * done_mask
        loss = F.smooth_l1_loss(q_a, target)
        
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

def main():
    env = gym.make('CartPole-v1')
    q = Qnet()
    q_target = Qnet()
    q_target.load_state_dict(q.state_dict())
    memory = ReplayBuffer()

    print_interval = 20
    score = 0.0  
    optimizer = optim.Adam(q.parameters(), lr=learning_rate)

    for n_epi in range(10000):
        epsilon = max(0.01, 0.08 - 0.01*(n_epi/200)) #Linear annealing from 8% to 1%
        s, _ = env.reset()
        done = False

        while not done:
            a = q.sample_action(torch.from_numpy(s).float(), epsilon)      
            s_prime, r, done, truncated, info = env.step(a)
            done_mask = 0.0 if done else 1.0
            memory.put((s,a,r/100.0,s_prime, done_mask))
            s = s_prime

            score += r
            if done:
                break
            
        if memory.size()>2000:
            train(q, q_target, memory, optimizer)

        if n_epi%print_interval==0 and n_epi!=0:
            q_target.load_state_dict(q.state_dict())
            print("n_episode :{}, score : {:.1f}, n_buffer : {}, eps : {:.1f}%".format(
                                                            n_epi, score/print_interval, memory.size(), epsilon*100))
            score = 0.0
    env.close()

if __name__ == '__main__':
    pass  # realcode-dropped: main()

# %% realcode: driver cell, main()'s setup and training calls on synthetic transitions
q = Qnet()
q_target = Qnet()
# %% realcode-load: q
q_target.load_state_dict(q.state_dict())
memory = ReplayBuffer()
optimizer = optim.Adam(q.parameters(), lr=learning_rate)
for i in range(32):
    s, s_prime = env_states[i].numpy(), env_states[i + 1].numpy()
    a = env_actions[i].item()
    done = bool(env_dones[i])
    done_mask = 0.0 if done else 1.0
    memory.put((s, a, env_rewards[i].item()/100.0, s_prime, done_mask))
for n_epi in range(2):
    train(q, q_target, memory, optimizer)
    q_target.load_state_dict(q.state_dict())
q_out = q(env_states)
