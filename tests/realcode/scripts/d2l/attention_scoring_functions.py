# realcode: d2l-ai/d2l-en @ 23d7a5aecceee57d1292c56e90cce307f183bb0a
# realcode: https://github.com/d2l-ai/d2l-en/blob/23d7a5aecceee57d1292c56e90cce307f183bb0a/chapter_attention-mechanisms-and-transformers/attention-scoring-functions.md
# realcode: kept as written except for these adaptations:
#   - the code cells of the PyTorch tab (and those shared by all tabs), in order, each after a '# %%' line; the d2lbook `%load_ext` / `tab.interact_select` cell and the `%%tab` lines left out
#   - `from d2l import torch as d2l / import math / import torch / from torch import nn / ` -> `pass  # realcode-dropped: from d2l import torch as d2l / import math / import torch / from torch import nn / class d2l:  # realcode: the d2l library's aliases and check_shape this page uses, as d2l/torch.py defines them / tensor = torch.tensor / ones = torch.ones / normal = torch.normal / reshape = lambda x, *args, **kwargs: x.reshape(*args, **kwargs) / def check_shape(a, shape): / """Check the shape of a tensor. /  / Defined in :numref:`sec_rnn-scratch`""" / assert a.shape == shape, \ / f'tensor\'s shape {a.shape} != expected shape {shape}' / `: `class d2l:` holding the aliases of d2l/torch.py this page uses (tensor = torch.tensor; ones = torch.ones; normal = torch.normal; reshape = lambda x, *args, **kwargs: x.reshape(*args, **kwargs)) and its check_shape, after the imports: the d2l package is not PyTorch
#   - `values = d2l.normal(0, 1, (2, 10, 4)) / valid_lens = d2l.tensor([2, 6]) / ` -> `values = d2l.normal(0, 1, (2, 10, 4)) / valid_lens = d2l.tensor([2, 6]) / # %% realcode-load: queries keys values / `: cell marker: PyTorch's torch.normal draws are copied in
#   - `d2l.show_heatmaps(d2l.reshape(attention.attention_weights, (1, 1, 2, 10)), / xlabel='Keys', ylabel='Queries') / ` -> `dot_heatmap = d2l.reshape(attention.attention_weights, (1, 1, 2, 10))  # realcode: show_heatmaps' matrix, its plotting dropped / `: d2l.show_heatmaps dropped (plotting); the matrix it draws kept for comparison
#   - `queries = d2l.normal(0, 1, (2, 1, 20)) / ` -> `queries = d2l.normal(0, 1, (2, 1, 20)) / # %% realcode-load: queries / `: cell marker: PyTorch's torch.normal draw is copied in
#   - `d2l.show_heatmaps(d2l.reshape(attention.attention_weights, (1, 1, 2, 10)), / xlabel='Keys', ylabel='Queries') / ` -> `additive_heatmap = d2l.reshape(attention.attention_weights, (1, 1, 2, 10))  # realcode: show_heatmaps' matrix, its plotting dropped / `: d2l.show_heatmaps dropped (plotting); the matrix it draws kept for comparison
# realcode-output: dot_heatmap additive_heatmap attention.*
# realcode-shape-only: additive_heatmap attention (AdditiveAttention's lazy layers draw their weights from the session's generator at the first call)
# %%
pass  # realcode-dropped: from d2l import torch as d2l
import math
import torch
from torch import nn
class d2l:  # realcode: the d2l library's aliases and check_shape this page uses, as d2l/torch.py defines them
    tensor = torch.tensor
    ones = torch.ones
    normal = torch.normal
    reshape = lambda x, *args, **kwargs: x.reshape(*args, **kwargs)
    def check_shape(a, shape):
        """Check the shape of a tensor.

        Defined in :numref:`sec_rnn-scratch`"""
        assert a.shape == shape, \
                f'tensor\'s shape {a.shape} != expected shape {shape}'
# %%
def masked_softmax(X, valid_lens):  #@save
    """Perform softmax operation by masking elements on the last axis."""
    # X: 3D tensor, valid_lens: 1D or 2D tensor 
    def _sequence_mask(X, valid_len, value=0):
        maxlen = X.size(1)
        mask = torch.arange((maxlen), dtype=torch.float32,
                            device=X.device)[None, :] < valid_len[:, None]
        X[~mask] = value
        return X
    
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    else:
        shape = X.shape
        if valid_lens.dim() == 1:
            valid_lens = torch.repeat_interleave(valid_lens, shape[1])
        else:
            valid_lens = valid_lens.reshape(-1)
        # On the last axis, replace masked elements with a very large negative
        # value, whose exponentiation outputs 0
        X = _sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
        return nn.functional.softmax(X.reshape(shape), dim=-1)
# %%
masked_softmax(torch.rand(2, 2, 4), torch.tensor([2, 3]))
# %%
masked_softmax(torch.rand(2, 2, 4), d2l.tensor([[1, 3], [2, 4]]))
# %%
Q = d2l.ones((2, 3, 4))
K = d2l.ones((2, 4, 6))
d2l.check_shape(torch.bmm(Q, K), (2, 3, 6))
# %%
class DotProductAttention(nn.Module):  #@save
    """Scaled dot product attention."""
    def __init__(self, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    # Shape of queries: (batch_size, no. of queries, d)
    # Shape of keys: (batch_size, no. of key-value pairs, d)
    # Shape of values: (batch_size, no. of key-value pairs, value dimension)
    # Shape of valid_lens: (batch_size,) or (batch_size, no. of queries)
    def forward(self, queries, keys, values, valid_lens=None):
        d = queries.shape[-1]
        # Swap the last two dimensions of keys with keys.transpose(1, 2)
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)
# %%
queries = d2l.normal(0, 1, (2, 1, 2))
keys = d2l.normal(0, 1, (2, 10, 2))
values = d2l.normal(0, 1, (2, 10, 4))
valid_lens = d2l.tensor([2, 6])
# %% realcode-load: queries keys values

attention = DotProductAttention(dropout=0.5)
attention.eval()
d2l.check_shape(attention(queries, keys, values, valid_lens), (2, 1, 4))
# %%
dot_heatmap = d2l.reshape(attention.attention_weights, (1, 1, 2, 10))  # realcode: show_heatmaps' matrix, its plotting dropped
# %%
class AdditiveAttention(nn.Module):  #@save
    """Additive attention."""
    def __init__(self, num_hiddens, dropout, **kwargs):
        super(AdditiveAttention, self).__init__(**kwargs)
        self.W_k = nn.LazyLinear(num_hiddens, bias=False)
        self.W_q = nn.LazyLinear(num_hiddens, bias=False)
        self.w_v = nn.LazyLinear(1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens):
        queries, keys = self.W_q(queries), self.W_k(keys)
        # After dimension expansion, shape of queries: (batch_size, no. of
        # queries, 1, num_hiddens) and shape of keys: (batch_size, 1, no. of
        # key-value pairs, num_hiddens). Sum them up with broadcasting
        features = queries.unsqueeze(2) + keys.unsqueeze(1)
        features = torch.tanh(features)
        # There is only one output of self.w_v, so we remove the last
        # one-dimensional entry from the shape. Shape of scores: (batch_size,
        # no. of queries, no. of key-value pairs)
        scores = self.w_v(features).squeeze(-1)
        self.attention_weights = masked_softmax(scores, valid_lens)
        # Shape of values: (batch_size, no. of key-value pairs, value
        # dimension)
        return torch.bmm(self.dropout(self.attention_weights), values)
# %%
queries = d2l.normal(0, 1, (2, 1, 20))
# %% realcode-load: queries

attention = AdditiveAttention(num_hiddens=8, dropout=0.1)
attention.eval()
d2l.check_shape(attention(queries, keys, values, valid_lens), (2, 1, 4))
# %%
additive_heatmap = d2l.reshape(attention.attention_weights, (1, 1, 2, 10))  # realcode: show_heatmaps' matrix, its plotting dropped
