# realcode: karpathy/nn-zero-to-hero @ 73c3fcc741f0ec104ca850b1fb0df90e7e8d4cde
# realcode: https://github.com/karpathy/nn-zero-to-hero/blob/73c3fcc741f0ec104ca850b1fb0df90e7e8d4cde/lectures/makemore/makemore_part2_mlp.ipynb
# realcode: kept as written except for these adaptations:
#   - code cells [0, 1, 3, 6, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 33, 34] of the notebook (0-based), in order, each after a '# %%' line
#   - dropped (plotting / file I/O / argparse / download): `%matplotlib inline`
#   - dropped (plotting / file I/O / argparse / download): `plt.plot(stepi, lossi)`
#   - dropped (plotting / file I/O / argparse / download): `import matplotlib.pyplot as plt # for making figures`
#   - `words = open('names.txt', 'r').read().splitlines()` -> `words = ['emma', 'olivia', 'ava', 'isabella', 'sophia', 'charlotte', 'mia', 'amelia', 'harper', 'evelyn', 'abigail', 'emily', 'elizabeth', 'mila', 'ella', 'avery', 'sofia', 'camila', 'aria', 'scarlett', 'victoria', 'madison', 'luna', 'grace', 'chloe', 'penelope', 'layla', 'riley', 'zoey', 'nora', 'quinn', 'xavier', 'jade', 'kylie', 'wendy', 'fiona', 'ursula', 'beatrix']`: names.txt (32,033 names) replaced by 38 of its names (its first 30, and 8 more so that all 26 letters occur), written out
#   - `Xte, Yte = build_dataset(words[n2:])` -> `Xte, Yte = build_dataset(words[n2:]) / # %% realcode-load: Xtr Ytr Xdev Ydev Xte Yte`: cell marker: the split made with random.shuffle is copied in
#   - `parameters = [C, W1, b1, W2, b2]` -> `parameters = [C, W1, b1, W2, b2] / # %% realcode-load: C W1 b1 W2 b2`: cell marker: PyTorch's random draws above are copied in
#   - `for i in range(200000):` -> `for i in range(30):`: shrink 200000 steps to 30
#   - `for _ in range(20):` -> `for _ in range(3):`: sample 3 names instead of 20
# realcode-output: loss C W1 b1 W2 b2 lossi
# realcode-shape-only: loss C W1 b1 W2 b2 lossi (minibatches come from torch.randint: the session's generator is not PyTorch's)
# %%
import torch
import torch.nn.functional as F
pass  # realcode-dropped: import matplotlib.pyplot as plt # for making figures
pass  # realcode-dropped: %matplotlib inline
# %%
# read in all the words
words = ['emma', 'olivia', 'ava', 'isabella', 'sophia', 'charlotte', 'mia', 'amelia', 'harper', 'evelyn', 'abigail', 'emily', 'elizabeth', 'mila', 'ella', 'avery', 'sofia', 'camila', 'aria', 'scarlett', 'victoria', 'madison', 'luna', 'grace', 'chloe', 'penelope', 'layla', 'riley', 'zoey', 'nora', 'quinn', 'xavier', 'jade', 'kylie', 'wendy', 'fiona', 'ursula', 'beatrix']
words[:8]
# %%
# build the vocabulary of characters and mappings to/from integers
chars = sorted(list(set(''.join(words))))
stoi = {s:i+1 for i,s in enumerate(chars)}
stoi['.'] = 0
itos = {i:s for s,i in stoi.items()}
print(itos)
# %%
# build the dataset
block_size = 3 # context length: how many characters do we take to predict the next one?

def build_dataset(words):  
  X, Y = [], []
  for w in words:

    #print(w)
    context = [0] * block_size
    for ch in w + '.':
      ix = stoi[ch]
      X.append(context)
      Y.append(ix)
      #print(''.join(itos[i] for i in context), '--->', itos[ix])
      context = context[1:] + [ix] # crop and append

  X = torch.tensor(X)
  Y = torch.tensor(Y)
  print(X.shape, Y.shape)
  return X, Y

import random
random.seed(42)
random.shuffle(words)
n1 = int(0.8*len(words))
n2 = int(0.9*len(words))

Xtr, Ytr = build_dataset(words[:n1])
Xdev, Ydev = build_dataset(words[n1:n2])
Xte, Yte = build_dataset(words[n2:])
# %% realcode-load: Xtr Ytr Xdev Ydev Xte Yte
# %%
Xtr.shape, Ytr.shape # dataset
# %%
g = torch.Generator().manual_seed(2147483647) # for reproducibility
C = torch.randn((27, 10), generator=g)
W1 = torch.randn((30, 200), generator=g)
b1 = torch.randn(200, generator=g)
W2 = torch.randn((200, 27), generator=g)
b2 = torch.randn(27, generator=g)
parameters = [C, W1, b1, W2, b2]
# %% realcode-load: C W1 b1 W2 b2
# %%
sum(p.nelement() for p in parameters) # number of parameters in total
# %%
for p in parameters:
  p.requires_grad = True
# %%
lre = torch.linspace(-3, 0, 1000)
lrs = 10**lre
# %%
lri = []
lossi = []
stepi = []
# %%
for i in range(30):
  
  # minibatch construct
  ix = torch.randint(0, Xtr.shape[0], (32,))
  
  # forward pass
  emb = C[Xtr[ix]] # (32, 3, 10)
  h = torch.tanh(emb.view(-1, 30) @ W1 + b1) # (32, 200)
  logits = h @ W2 + b2 # (32, 27)
  loss = F.cross_entropy(logits, Ytr[ix])
  #print(loss.item())
  
  # backward pass
  for p in parameters:
    p.grad = None
  loss.backward()
  
  # update
  #lr = lrs[i]
  lr = 0.1 if i < 100000 else 0.01
  for p in parameters:
    p.data += -lr * p.grad

  # track stats
  #lri.append(lre[i])
  stepi.append(i)
  lossi.append(loss.log10().item())

#print(loss.item())
# %%
pass  # realcode-dropped: plt.plot(stepi, lossi)
# %%
emb = C[Xtr] # (32, 3, 2)
h = torch.tanh(emb.view(-1, 30) @ W1 + b1) # (32, 100)
logits = h @ W2 + b2 # (32, 27)
loss = F.cross_entropy(logits, Ytr)
loss
# %%
emb = C[Xdev] # (32, 3, 2)
h = torch.tanh(emb.view(-1, 30) @ W1 + b1) # (32, 100)
logits = h @ W2 + b2 # (32, 27)
loss = F.cross_entropy(logits, Ydev)
loss
# %%
context = [0] * block_size
C[torch.tensor([context])].shape
# %%


# sample from the model
g = torch.Generator().manual_seed(2147483647 + 10)

for _ in range(3):
    
    out = []
    context = [0] * block_size # initialize with all ...
    while True:
      emb = C[torch.tensor([context])] # (1,block_size,d)
      h = torch.tanh(emb.view(1, -1) @ W1 + b1)
      logits = h @ W2 + b2
      probs = F.softmax(logits, dim=1)
      ix = torch.multinomial(probs, num_samples=1, generator=g).item()
      context = context[1:] + [ix]
      out.append(ix)
      if ix == 0:
        break
    
    print(''.join(itos[i] for i in out))
