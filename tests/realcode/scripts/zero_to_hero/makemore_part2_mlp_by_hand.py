# realcode: karpathy/nn-zero-to-hero @ 73c3fcc741f0ec104ca850b1fb0df90e7e8d4cde
# realcode: https://github.com/karpathy/nn-zero-to-hero/blob/73c3fcc741f0ec104ca850b1fb0df90e7e8d4cde/lectures/makemore/makemore_part2_mlp.ipynb
# realcode: kept as written except for these adaptations:
#   - code cells [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19] of the notebook (0-based), in order, each after a '# %%' line
#   - dropped (plotting / file I/O / argparse / download): `%matplotlib inline`
#   - dropped (plotting / file I/O / argparse / download): `import matplotlib.pyplot as plt # for making figures`
#   - `words = open('names.txt', 'r').read().splitlines()` -> `words = ['emma', 'olivia', 'ava', 'isabella', 'sophia']`: names.txt replaced by its first 5 names, written out (the lecture's cells 7-19 work on the 32 examples they make)
#   - `Xte, Yte = build_dataset(words[n2:])` -> `Xte, Yte = build_dataset(words[n2:]) / # %% realcode-load: Xtr Ytr Xdev Ydev Xte Yte`: cell marker: the split made with random.shuffle is copied in
#   - `C = torch.randn((27, 2))` -> `C = torch.randn((27, 2)) / # %% realcode-load: C`: cell marker: PyTorch's random draws above are copied in
#   - `b1 = torch.randn(100)` -> `b1 = torch.randn(100) / # %% realcode-load: W1 b1`: cell marker: PyTorch's random draws above are copied in
#   - `b2 = torch.randn(27)` -> `b2 = torch.randn(27) / # %% realcode-load: W2 b2`: cell marker: PyTorch's random draws above are copied in
# realcode-output: loss prob counts logits h emb X Y Xtr
# %%
import torch
import torch.nn.functional as F
pass  # realcode-dropped: import matplotlib.pyplot as plt # for making figures
pass  # realcode-dropped: %matplotlib inline
# %%
# read in all the words
words = ['emma', 'olivia', 'ava', 'isabella', 'sophia']
words[:8]
# %%
len(words)
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
# %%
X.shape, X.dtype, Y.shape, Y.dtype
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
C = torch.randn((27, 2))
# %% realcode-load: C
# %%
emb = C[X]
emb.shape
# %%
W1 = torch.randn((6, 100))
b1 = torch.randn(100)
# %% realcode-load: W1 b1
# %%
h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
# %%
h
# %%
h.shape
# %%
W2 = torch.randn((100, 27))
b2 = torch.randn(27)
# %% realcode-load: W2 b2
# %%
logits = h @ W2 + b2
# %%
logits.shape
# %%
counts = logits.exp()
# %%
prob = counts / counts.sum(1, keepdims=True)
# %%
prob.shape
# %%
loss = -prob[torch.arange(32), Y].log().mean()
loss
