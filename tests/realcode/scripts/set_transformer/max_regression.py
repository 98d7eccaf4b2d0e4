# realcode: juho-lee/set_transformer @ 73432c640ac78140496d6738416c54d32c686d65
# realcode: https://github.com/juho-lee/set_transformer/blob/73432c640ac78140496d6738416c54d32c686d65/modules.py
# realcode: https://github.com/juho-lee/set_transformer/blob/73432c640ac78140496d6738416c54d32c686d65/models.py
# realcode: https://github.com/juho-lee/set_transformer/blob/73432c640ac78140496d6738416c54d32c686d65/max_regression_demo.ipynb
# realcode: kept as written except for these adaptations:
#   - modules.py and models.py as written, then the notebook's first cell (gen_data, SmallDeepSet, SmallSetTransformer, train) and its training cell without the plot: each of the four models trains for 3 steps of batches of 32 instead of 500 of 1024 (gen_data draws from np.random, seeded alike in every mode)
#   - `from modules import *` and `from modules import SAB, PMA` -> `pass  # realcode-inlined: ...`: modules.py is pasted above
#   - `.cuda()` on the model, the loss and the batches -> left out (`# realcode: .cuda()`): on the CPU
#   - then models.py's SetTransformer (ISAB, PMA, SAB with layer norm) and DeepSet on one synthetic batch of sets, their outputs' sum backpropagated (the repository's training scripts need ModelNet and mixture data)
# realcode-input: X = randn(2, 10, 3)
# realcode-atol: 1e-7 (the keys' bias gradients are zero in exact arithmetic, softmax being invariant to a shift of all its logits: both sides give rounding noise of 1e-9)
# realcode-output: losses st_out deepset_out set_transformer.* deep_set.*
# %% realcode: modules.py
import torch
import torch.nn as nn
import torch.nn.functional as F
import math

class MAB(nn.Module):
    def __init__(self, dim_Q, dim_K, dim_V, num_heads, ln=False):
        super(MAB, self).__init__()
        self.dim_V = dim_V
        self.num_heads = num_heads
        self.fc_q = nn.Linear(dim_Q, dim_V)
        self.fc_k = nn.Linear(dim_K, dim_V)
        self.fc_v = nn.Linear(dim_K, dim_V)
        if ln:
            self.ln0 = nn.LayerNorm(dim_V)
            self.ln1 = nn.LayerNorm(dim_V)
        self.fc_o = nn.Linear(dim_V, dim_V)

    def forward(self, Q, K):
        Q = self.fc_q(Q)
        K, V = self.fc_k(K), self.fc_v(K)

        dim_split = self.dim_V // self.num_heads
        Q_ = torch.cat(Q.split(dim_split, 2), 0)
        K_ = torch.cat(K.split(dim_split, 2), 0)
        V_ = torch.cat(V.split(dim_split, 2), 0)

        A = torch.softmax(Q_.bmm(K_.transpose(1,2))/math.sqrt(self.dim_V), 2)
        O = torch.cat((Q_ + A.bmm(V_)).split(Q.size(0), 0), 2)
        O = O if getattr(self, 'ln0', None) is None else self.ln0(O)
        O = O + F.relu(self.fc_o(O))
        O = O if getattr(self, 'ln1', None) is None else self.ln1(O)
        return O

class SAB(nn.Module):
    def __init__(self, dim_in, dim_out, num_heads, ln=False):
        super(SAB, self).__init__()
        self.mab = MAB(dim_in, dim_in, dim_out, num_heads, ln=ln)

    def forward(self, X):
        return self.mab(X, X)

class ISAB(nn.Module):
    def __init__(self, dim_in, dim_out, num_heads, num_inds, ln=False):
        super(ISAB, self).__init__()
        self.I = nn.Parameter(torch.Tensor(1, num_inds, dim_out))
        nn.init.xavier_uniform_(self.I)
        self.mab0 = MAB(dim_out, dim_in, dim_out, num_heads, ln=ln)
        self.mab1 = MAB(dim_in, dim_out, dim_out, num_heads, ln=ln)

    def forward(self, X):
        H = self.mab0(self.I.repeat(X.size(0), 1, 1), X)
        return self.mab1(X, H)

class PMA(nn.Module):
    def __init__(self, dim, num_heads, num_seeds, ln=False):
        super(PMA, self).__init__()
        self.S = nn.Parameter(torch.Tensor(1, num_seeds, dim))
        nn.init.xavier_uniform_(self.S)
        self.mab = MAB(dim, dim, dim, num_heads, ln=ln)

    def forward(self, X):
        return self.mab(self.S.repeat(X.size(0), 1, 1), X)

# %% realcode: models.py
pass  # realcode-inlined: from modules import *

class DeepSet(nn.Module):
    def __init__(self, dim_input, num_outputs, dim_output, dim_hidden=128):
        super(DeepSet, self).__init__()
        self.num_outputs = num_outputs
        self.dim_output = dim_output
        self.enc = nn.Sequential(
                nn.Linear(dim_input, dim_hidden),
                nn.ReLU(),
                nn.Linear(dim_hidden, dim_hidden),
                nn.ReLU(),
                nn.Linear(dim_hidden, dim_hidden),
                nn.ReLU(),
                nn.Linear(dim_hidden, dim_hidden))
        self.dec = nn.Sequential(
                nn.Linear(dim_hidden, dim_hidden),
                nn.ReLU(),
                nn.Linear(dim_hidden, dim_hidden),
                nn.ReLU(),
                nn.Linear(dim_hidden, dim_hidden),
                nn.ReLU(),
                nn.Linear(dim_hidden, num_outputs*dim_output))

    def forward(self, X):
        X = self.enc(X).mean(-2)
        X = self.dec(X).reshape(-1, self.num_outputs, self.dim_output)
        return X

class SetTransformer(nn.Module):
    def __init__(self, dim_input, num_outputs, dim_output,
            num_inds=32, dim_hidden=128, num_heads=4, ln=False):
        super(SetTransformer, self).__init__()
        self.enc = nn.Sequential(
                ISAB(dim_input, dim_hidden, num_heads, num_inds, ln=ln),
                ISAB(dim_hidden, dim_hidden, num_heads, num_inds, ln=ln))
        self.dec = nn.Sequential(
                PMA(dim_hidden, num_heads, num_outputs, ln=ln),
                SAB(dim_hidden, dim_hidden, num_heads, ln=ln),
                SAB(dim_hidden, dim_hidden, num_heads, ln=ln),
                nn.Linear(dim_hidden, dim_output))

    def forward(self, X):
        return self.dec(self.enc(X))

# %% realcode: max_regression_demo.ipynb cell 0
import torch
import torch.nn as nn
pass  # realcode-inlined: from modules import SAB, PMA
import numpy as np


def gen_data(batch_size, max_length=10, test=False):
    length = np.random.randint(1, max_length + 1)
    x = np.random.randint(1, 100, (batch_size, length))
    y = np.max(x, axis=1)
    x, y = np.expand_dims(x, axis=2), np.expand_dims(y, axis=1)
    return x, y


class SmallDeepSet(nn.Module):
    def __init__(self, pool="max"):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Linear(in_features=1, out_features=64),
            nn.ReLU(),
            nn.Linear(in_features=64, out_features=64),
            nn.ReLU(),
            nn.Linear(in_features=64, out_features=64),
            nn.ReLU(),
            nn.Linear(in_features=64, out_features=64),
        )
        self.dec = nn.Sequential(
            nn.Linear(in_features=64, out_features=64),
            nn.ReLU(),
            nn.Linear(in_features=64, out_features=1),
        )
        self.pool = pool

    def forward(self, x):
        x = self.enc(x)
        if self.pool == "max":
            x = x.max(dim=1)[0]
        elif self.pool == "mean":
            x = x.mean(dim=1)
        elif self.pool == "sum":
            x = x.sum(dim=1)
        x = self.dec(x)
        return x


class SmallSetTransformer(nn.Module):
    def __init__(self,):
        super().__init__()
        self.enc = nn.Sequential(
            SAB(dim_in=1, dim_out=64, num_heads=4),
            SAB(dim_in=64, dim_out=64, num_heads=4),
        )
        self.dec = nn.Sequential(
            PMA(dim=64, num_heads=4, num_seeds=1),
            nn.Linear(in_features=64, out_features=1),
        )

    def forward(self, x):
        x = self.enc(x)
        x = self.dec(x)
        return x.squeeze(-1)


def train(model):
    model = model  # realcode: .cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    criterion = nn.L1Loss()  # realcode: .cuda()
    losses = []
    for _ in range(3):  # realcode: 500 steps
        x, y = gen_data(batch_size=2 ** 5, max_length=10)  # realcode: 2 ** 10
        x, y = torch.from_numpy(x).float(), torch.from_numpy(y).float()  # realcode: .cuda()
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
# %% realcode: cell 2 (the plot left out)
models = [
    ("Set Transformer", SmallSetTransformer()),
    ("Deep Sets (max)", SmallDeepSet("max")),
    ("Deep Sets (mean)", SmallDeepSet("mean")),
    ("Deep Sets (sum)", SmallDeepSet("sum")),
]
# %% realcode-load: models.0.1 models.1.1 models.2.1 models.3.1
all_losses = []
for _name, _model in models:
    _losses = train(_model)
    all_losses.append(_losses)
losses = torch.tensor(all_losses)
# %% realcode: driver cell, models.py's SetTransformer and DeepSet
set_transformer = SetTransformer(3, 2, 5, num_inds=4, dim_hidden=16, num_heads=4, ln=True)
deep_set = DeepSet(3, 2, 5, dim_hidden=16)
# %% realcode-load: set_transformer deep_set
st_out = set_transformer(X)
deepset_out = deep_set(X)
(st_out.sum() + deepset_out.sum()).backward()
