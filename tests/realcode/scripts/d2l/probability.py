# realcode: d2l-ai/d2l-en @ 23d7a5aecceee57d1292c56e90cce307f183bb0a
# realcode: https://github.com/d2l-ai/d2l-en/blob/23d7a5aecceee57d1292c56e90cce307f183bb0a/chapter_preliminaries/probability.md
# realcode: kept as written except for these adaptations:
#   - the code cells of the PyTorch tab (and those shared by all tabs), in order, each after a '# %%' line; the d2lbook `%load_ext` / `tab.interact_select` cell and the `%%tab` lines left out
#   - `%matplotlib inline / from d2l import torch as d2l / ` -> `pass  # realcode-dropped: %matplotlib inline / pass  # realcode-dropped: from d2l import torch as d2l / `: the %matplotlib magic and the d2l package (it serves only the plotting below) dropped
#   - `d2l.set_figsize((4.5, 3.5)) / d2l.plt.plot(estimates[:, 0], label=("P(coin=heads)")) / d2l.plt.plot(estimates[:, 1], label=("P(coin=tails)")) / d2l.plt.axhline(y=0.5, color='black', linestyle='dashed') / d2l.plt.gca().set_xlabel('Samples') / d2l.plt.gca().set_ylabel('Estimated probability') / d2l.plt.legend(); / ` -> `pass  # realcode-dropped: the figure of the running estimates (d2l.set_figsize, d2l.plt.plot, axhline, labels, legend) / `: dropped (plotting); the estimates it plots are compared by shape
# realcode-output: heads tails fair_probs counts cum_counts estimates
# realcode-shape-only: heads tails counts cum_counts estimates (coin tosses: Python's random and torch.distributions.Multinomial's draws)
# %%
pass  # realcode-dropped: %matplotlib inline
pass  # realcode-dropped: from d2l import torch as d2l
import random
import torch
from torch.distributions.multinomial import Multinomial
# %%
num_tosses = 100
heads = sum([random.random() > 0.5 for _ in range(num_tosses)])
tails = num_tosses - heads
print("heads, tails: ", [heads, tails])
# %%
fair_probs = torch.tensor([0.5, 0.5])
Multinomial(100, fair_probs).sample()
# %%
Multinomial(100, fair_probs).sample() / 100
# %%
counts = Multinomial(10000, fair_probs).sample()
counts / 10000
# %%
counts = Multinomial(1, fair_probs).sample((10000,))
cum_counts = counts.cumsum(dim=0)
estimates = cum_counts / cum_counts.sum(dim=1, keepdims=True)
estimates = estimates.numpy()

pass  # realcode-dropped: the figure of the running estimates (d2l.set_figsize, d2l.plt.plot, axhline, labels, legend)
