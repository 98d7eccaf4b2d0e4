# realcode: karpathy/nn-zero-to-hero @ 73c3fcc741f0ec104ca850b1fb0df90e7e8d4cde
# realcode: https://github.com/karpathy/nn-zero-to-hero/blob/73c3fcc741f0ec104ca850b1fb0df90e7e8d4cde/lectures/makemore/makemore_part1_bigrams.ipynb
# realcode: kept as written except for these adaptations:
#   - code cells [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58] of the notebook (0-based), in order, each after a '# %%' line
#   - cells 18-22 (which read P before the notebook defines it) left out
#   - probs, xenc and the sampled names are not compared at the end: the last cell draws them with torch.multinomial
#   - dropped (plotting / file I/O / argparse / download): `%matplotlib inline`
#   - dropped (plotting / file I/O / argparse / download): `plt.figure(figsize=(16,16))`
#   - dropped (plotting / file I/O / argparse / download): `plt.imshow(N, cmap='Blues')`
#   - dropped (plotting / file I/O / argparse / download): `plt.text(j, i, chstr, ha="center", va="bottom", color='gray')`
#   - dropped (plotting / file I/O / argparse / download): `plt.text(j, i, N[i, j].item(), ha="center", va="top", color='gray')`
#   - dropped (plotting / file I/O / argparse / download): `plt.axis('off');`
#   - dropped (plotting / file I/O / argparse / download): `plt.imshow(xenc)`
#   - dropped (plotting / file I/O / argparse / download): `import matplotlib.pyplot as plt`
#   - `words = open('names.txt', 'r').read().splitlines()` -> `words = ['emma', 'olivia', 'ava', 'isabella', 'sophia', 'charlotte', 'mia', 'amelia', 'harper', 'evelyn', 'abigail', 'emily', 'elizabeth', 'mila', 'ella', 'avery', 'sofia', 'camila', 'aria', 'scarlett', 'victoria', 'madison', 'luna', 'grace', 'chloe', 'penelope', 'layla', 'riley', 'zoey', 'nora', 'quinn', 'xavier', 'jade', 'kylie', 'wendy', 'fiona', 'ursula', 'beatrix']`: names.txt (32,033 names) replaced by 38 of its names (its first 30, and 8 more so that all 26 letters occur), written out
#   - `W = torch.randn((27, 1))` -> `W = torch.randn((27, 1)) / # %% realcode-load: W`: cell marker: PyTorch's random draws above are copied in
#   - `W = torch.randn((27, 27), generator=g) / # %%` -> `W = torch.randn((27, 27), generator=g) / # %% / # %% realcode-load: W`: cell marker: PyTorch's random draws above are copied in
#   - `W = torch.randn((27, 27), generator=g, requires_grad=True) / # %% / # forward pass` -> `W = torch.randn((27, 27), generator=g, requires_grad=True) / # %% / # forward pass / # %% realcode-load: W`: cell marker: PyTorch's random draws above are copied in
#   - `print('number of examples: ', num) /  / # initialize the 'network' / g = torch.Generator().manual_seed(2147483647) / W = torch.randn((27, 27), generator=g, requires_grad=True)` -> `print('number of examples: ', num) /  / # initialize the 'network' / g = torch.Generator().manual_seed(2147483647) / W = torch.randn((27, 27), generator=g, requires_grad=True) / # %% realcode-load: W`: cell marker: PyTorch's random draws above are copied in
# realcode-output: N P nll log_likelihood loss W
# %%
words = ['emma', 'olivia', 'ava', 'isabella', 'sophia', 'charlotte', 'mia', 'amelia', 'harper', 'evelyn', 'abigail', 'emily', 'elizabeth', 'mila', 'ella', 'avery', 'sofia', 'camila', 'aria', 'scarlett', 'victoria', 'madison', 'luna', 'grace', 'chloe', 'penelope', 'layla', 'riley', 'zoey', 'nora', 'quinn', 'xavier', 'jade', 'kylie', 'wendy', 'fiona', 'ursula', 'beatrix']
# %%
words[:10]
# %%
len(words)
# %%
min(len(w) for w in words)
# %%
max(len(w) for w in words)
# %%
b = {}
for w in words:
  chs = ['<S>'] + list(w) + ['<E>']
  for ch1, ch2 in zip(chs, chs[1:]):
    bigram = (ch1, ch2)
    b[bigram] = b.get(bigram, 0) + 1
# %%
sorted(b.items(), key = lambda kv: -kv[1])
# %%
import torch
# %%
N = torch.zeros((27, 27), dtype=torch.int32)
# %%
chars = sorted(list(set(''.join(words))))
stoi = {s:i+1 for i,s in enumerate(chars)}
stoi['.'] = 0
itos = {i:s for s,i in stoi.items()}
# %%

for w in words:
  chs = ['.'] + list(w) + ['.']
  for ch1, ch2 in zip(chs, chs[1:]):
    ix1 = stoi[ch1]
    ix2 = stoi[ch2]
    N[ix1, ix2] += 1
    
# %%
pass  # realcode-dropped: import matplotlib.pyplot as plt
pass  # realcode-dropped: %matplotlib inline

pass  # realcode-dropped: plt.figure(figsize=(16,16))
pass  # realcode-dropped: plt.imshow(N, cmap='Blues')
for i in range(27):
    for j in range(27):
        chstr = itos[i] + itos[j]
        pass  # realcode-dropped: plt.text(j, i, chstr, ha="center", va="bottom", color='gray')
        pass  # realcode-dropped: plt.text(j, i, N[i, j].item(), ha="center", va="top", color='gray')
pass  # realcode-dropped: plt.axis('off');
# %%
N[0]
# %%
p = N[0].float()
p = p / p.sum()
p
# %%
g = torch.Generator().manual_seed(2147483647)
ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
itos[ix]
# %%
g = torch.Generator().manual_seed(2147483647)
p = torch.rand(3, generator=g)
p = p / p.sum()
p
# %%
torch.multinomial(p, num_samples=100, replacement=True, generator=g)
# %%
p.shape
# %%
P = (N+1).float()
P /= P.sum(1, keepdims=True)
# %%
g = torch.Generator().manual_seed(2147483647)

for i in range(5):
  
  out = []
  ix = 0
  while True:
    p = P[ix]
    ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
    out.append(itos[ix])
    if ix == 0:
      break
  print(''.join(out))
# %%
# GOAL: maximize likelihood of the data w.r.t. model parameters (statistical modeling)
# equivalent to maximizing the log likelihood (because log is monotonic)
# equivalent to minimizing the negative log likelihood
# equivalent to minimizing the average negative log likelihood

# log(a*b*c) = log(a) + log(b) + log(c)
# %%
log_likelihood = 0.0
n = 0

for w in words:
#for w in ["andrejq"]:
  chs = ['.'] + list(w) + ['.']
  for ch1, ch2 in zip(chs, chs[1:]):
    ix1 = stoi[ch1]
    ix2 = stoi[ch2]
    prob = P[ix1, ix2]
    logprob = torch.log(prob)
    log_likelihood += logprob
    n += 1
    #print(f'{ch1}{ch2}: {prob:.4f} {logprob:.4f}')

print(f'{log_likelihood=}')
nll = -log_likelihood
print(f'{nll=}')
print(f'{nll/n}')
# %%
# create the training set of bigrams (x,y)
xs, ys = [], []

for w in words[:1]:
  chs = ['.'] + list(w) + ['.']
  for ch1, ch2 in zip(chs, chs[1:]):
    ix1 = stoi[ch1]
    ix2 = stoi[ch2]
    print(ch1, ch2)
    xs.append(ix1)
    ys.append(ix2)
    
xs = torch.tensor(xs)
ys = torch.tensor(ys)
# %%
xs
# %%
ys
# %%
import torch.nn.functional as F
xenc = F.one_hot(xs, num_classes=27).float()
xenc
# %%
xenc.shape
# %%
pass  # realcode-dropped: plt.imshow(xenc)
# %%
xenc.dtype
# %%
W = torch.randn((27, 1))
# %% realcode-load: W
xenc @ W
# %%
logits = xenc @ W # log-counts
counts = logits.exp() # equivalent N
probs = counts / counts.sum(1, keepdims=True)
probs
# %%
probs[0]
# %%
probs[0].shape
# %%
probs[0].sum()
# %%
# (5, 27) @ (27, 27) -> (5, 27)
# %%
# SUMMARY ------------------------------>>>>
# %%
xs
# %%
ys
# %%
# randomly initialize 27 neurons' weights. each neuron receives 27 inputs
g = torch.Generator().manual_seed(2147483647)
W = torch.randn((27, 27), generator=g)
# %%
# %% realcode-load: W
xenc = F.one_hot(xs, num_classes=27).float() # input to the network: one-hot encoding
logits = xenc @ W # predict log-counts
counts = logits.exp() # counts, equivalent to N
probs = counts / counts.sum(1, keepdims=True) # probabilities for next character
# btw: the last 2 lines here are together called a 'softmax'
# %%
probs.shape
# %%

nlls = torch.zeros(5)
for i in range(5):
  # i-th bigram:
  x = xs[i].item() # input character index
  y = ys[i].item() # label character index
  print('--------')
  print(f'bigram example {i+1}: {itos[x]}{itos[y]} (indexes {x},{y})')
  print('input to the neural net:', x)
  print('output probabilities from the neural net:', probs[i])
  print('label (actual next character):', y)
  p = probs[i, y]
  print('probability assigned by the net to the the correct character:', p.item())
  logp = torch.log(p)
  print('log likelihood:', logp.item())
  nll = -logp
  print('negative log likelihood:', nll.item())
  nlls[i] = nll

print('=========')
print('average negative log likelihood, i.e. loss =', nlls.mean().item())
# %%
# --------- !!! OPTIMIZATION !!! yay --------------
# %%
xs
# %%
ys
# %%
# randomly initialize 27 neurons' weights. each neuron receives 27 inputs
g = torch.Generator().manual_seed(2147483647)
W = torch.randn((27, 27), generator=g, requires_grad=True)
# %%
# forward pass
# %% realcode-load: W
xenc = F.one_hot(xs, num_classes=27).float() # input to the network: one-hot encoding
logits = xenc @ W # predict log-counts
counts = logits.exp() # counts, equivalent to N
probs = counts / counts.sum(1, keepdims=True) # probabilities for next character
loss = -probs[torch.arange(5), ys].log().mean()
# %%
print(loss.item())
# %%
# backward pass
W.grad = None # set to zero the gradient
loss.backward()
# %%
W.data += -0.1 * W.grad
# %%
# --------- !!! OPTIMIZATION !!! yay, but this time actually --------------
# %%
# create the dataset
xs, ys = [], []
for w in words:
  chs = ['.'] + list(w) + ['.']
  for ch1, ch2 in zip(chs, chs[1:]):
    ix1 = stoi[ch1]
    ix2 = stoi[ch2]
    xs.append(ix1)
    ys.append(ix2)
xs = torch.tensor(xs)
ys = torch.tensor(ys)
num = xs.nelement()
print('number of examples: ', num)

# initialize the 'network'
g = torch.Generator().manual_seed(2147483647)
W = torch.randn((27, 27), generator=g, requires_grad=True)
# %% realcode-load: W
# %%
# gradient descent
for k in range(1):
  
  # forward pass
  xenc = F.one_hot(xs, num_classes=27).float() # input to the network: one-hot encoding
  logits = xenc @ W # predict log-counts
  counts = logits.exp() # counts, equivalent to N
  probs = counts / counts.sum(1, keepdims=True) # probabilities for next character
  loss = -probs[torch.arange(num), ys].log().mean() + 0.01*(W**2).mean()
  print(loss.item())
  
  # backward pass
  W.grad = None # set to zero the gradient
  loss.backward()
  
  # update
  W.data += -50 * W.grad
# %%
# finally, sample from the 'neural net' model
g = torch.Generator().manual_seed(2147483647)

for i in range(5):
  
  out = []
  ix = 0
  while True:
    
    # ----------
    # BEFORE:
    #p = P[ix]
    # ----------
    # NOW:
    xenc = F.one_hot(torch.tensor([ix]), num_classes=27).float()
    logits = xenc @ W # predict log-counts
    counts = logits.exp() # counts, equivalent to N
    p = counts / counts.sum(1, keepdims=True) # probabilities for next character
    # ----------
    
    ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
    out.append(itos[ix])
    if ix == 0:
      break
  print(''.join(out))
