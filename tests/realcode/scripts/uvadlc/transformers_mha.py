# realcode: phlippe/uvadlc_notebooks @ 0da8037c7abc32f478ff6142acceb72dbcf088ee
# realcode: https://github.com/phlippe/uvadlc_notebooks/blob/0da8037c7abc32f478ff6142acceb72dbcf088ee/docs/tutorial_notebooks/tutorial6/Transformers_and_MHAttention.ipynb
# realcode: kept as written except for these adaptations:
#   - the cells that compute, one after the other (imports without plotting, torchvision and PyTorch Lightning; `pl.seed_everything(42)` -> `torch.manual_seed(42)`): scaled_dot_product and its demo, expand_mask, MultiheadAttention, EncoderBlock, TransformerEncoder, PositionalEncoding, CosineWarmupScheduler and its set-up (cells 9-30 without the plots), ReverseDataset (cell 35)
#   - TransformerPredictor and ReversePredictor are PyTorch Lightning modules (pl.LightningModule, trainer.fit): a driver cell builds TransformerPredictor's network (_create_model) as a plain nn.Module and runs ReversePredictor's _calculate_loss for 3 steps of Adam with the CosineWarmupScheduler and gradient clipping at 5 (the Trainer's gradient_clip_val), on one batch of 16 reversed sequences (the notebook's dataset of 50000 drawn by torch.randint: the batch is copied in from PyTorch at a load marker), then get_attention_maps
# realcode-atol: 3e-5 (the keys' part of qkv_proj.bias has a gradient of rounding noise, softmax being invariant to a shift of its logits, which Adam turns into steps of +-lr: 1.5e-5 apart after 3 steps)
# realcode-output: values attention lr_factors lrs losses attention_maps model.*
# %% realcode: cell 3 (plotting, torchvision and PyTorch Lightning imports left out)
## Standard libraries
import os
import numpy as np 
import random
import math
import json
from functools import partial

## Progress bar
from tqdm.notebook import tqdm

## PyTorch
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data as data
import torch.optim as optim

# Path to the folder where the datasets are/should be downloaded (e.g. CIFAR10)
DATASET_PATH = "../data"
# Path to the folder where the pretrained models are saved
CHECKPOINT_PATH = "../saved_models/tutorial6"

# Setting the seed
torch.manual_seed(42)  # realcode: pl.seed_everything(42)

# Ensure that all operations are deterministic on GPU (if used) for reproducibility
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False

device = torch.device("cuda:0") if torch.cuda.is_available() else torch.device("cpu")
print("Device:", device)
# %% realcode: cell 9
def scaled_dot_product(q, k, v, mask=None):
    d_k = q.size()[-1]
    attn_logits = torch.matmul(q, k.transpose(-2, -1))
    attn_logits = attn_logits / math.sqrt(d_k)
    if mask is not None:
        attn_logits = attn_logits.masked_fill(mask == 0, -9e15)
    attention = F.softmax(attn_logits, dim=-1)
    values = torch.matmul(attention, v)
    return values, attention
# %% realcode: cell 11
seq_len, d_k = 3, 2
torch.manual_seed(42)  # realcode: pl.seed_everything(42)
q = torch.randn(seq_len, d_k)
k = torch.randn(seq_len, d_k)
v = torch.randn(seq_len, d_k)
# %% realcode-load: q k v
values, attention = scaled_dot_product(q, k, v)
print("Q\n", q)
print("K\n", k)
print("V\n", v)
print("Values\n", values)
print("Attention\n", attention)
# %% realcode: cell 14
# Helper function to support different mask shapes.
# Output shape supports (batch_size, number of heads, seq length, seq length)
# If 2D: broadcasted over batch size and number of heads
# If 3D: broadcasted over number of heads
# If 4D: leave as is
def expand_mask(mask):
    assert mask.ndim >= 2, "Mask must be at least 2-dimensional with seq_length x seq_length"
    if mask.ndim == 3:
        mask = mask.unsqueeze(1)
    while mask.ndim < 4:
        mask = mask.unsqueeze(0)
    return mask
# %% realcode: cell 15
class MultiheadAttention(nn.Module):
    
    def __init__(self, input_dim, embed_dim, num_heads):
        super().__init__()
        assert embed_dim % num_heads == 0, "Embedding dimension must be 0 modulo number of heads."
        
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        
        # Stack all weight matrices 1...h together for efficiency
        # Note that in many implementations you see "bias=False" which is optional
        self.qkv_proj = nn.Linear(input_dim, 3*embed_dim)
        self.o_proj = nn.Linear(embed_dim, input_dim)
        
        self._reset_parameters()

    def _reset_parameters(self):
        # Original Transformer initialization, see PyTorch documentation
        nn.init.xavier_uniform_(self.qkv_proj.weight)
        self.qkv_proj.bias.data.fill_(0)
        nn.init.xavier_uniform_(self.o_proj.weight)
        self.o_proj.bias.data.fill_(0)

    def forward(self, x, mask=None, return_attention=False):
        batch_size, seq_length, _ = x.size()
        if mask is not None:
            mask = expand_mask(mask)
        qkv = self.qkv_proj(x)
        
        # Separate Q, K, V from linear output
        qkv = qkv.reshape(batch_size, seq_length, self.num_heads, 3*self.head_dim)
        qkv = qkv.permute(0, 2, 1, 3) # [Batch, Head, SeqLen, Dims]
        q, k, v = qkv.chunk(3, dim=-1)
        
        # Determine value outputs
        values, attention = scaled_dot_product(q, k, v, mask=mask)
        values = values.permute(0, 2, 1, 3) # [Batch, SeqLen, Head, Dims]
        values = values.reshape(batch_size, seq_length, self.embed_dim)
        o = self.o_proj(values)
        
        if return_attention:
            return o, attention
        else:
            return o
# %% realcode: cell 18
class EncoderBlock(nn.Module):
    
    def __init__(self, input_dim, num_heads, dim_feedforward, dropout=0.0):
        """
        Inputs:
            input_dim - Dimensionality of the input
            num_heads - Number of heads to use in the attention block
            dim_feedforward - Dimensionality of the hidden layer in the MLP
            dropout - Dropout probability to use in the dropout layers
        """
        super().__init__()
        
        # Attention layer
        self.self_attn = MultiheadAttention(input_dim, input_dim, num_heads)
        
        # Two-layer MLP
        self.linear_net = nn.Sequential(
            nn.Linear(input_dim, dim_feedforward),
            nn.Dropout(dropout),
            nn.ReLU(inplace=True),
            nn.Linear(dim_feedforward, input_dim)
        )
        
        # Layers to apply in between the main layers
        self.norm1 = nn.LayerNorm(input_dim)
        self.norm2 = nn.LayerNorm(input_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        # Attention part
        attn_out = self.self_attn(x, mask=mask)
        x = x + self.dropout(attn_out)
        x = self.norm1(x)
        
        # MLP part
        linear_out = self.linear_net(x)
        x = x + self.dropout(linear_out)
        x = self.norm2(x)
        
        return x
# %% realcode: cell 20
class TransformerEncoder(nn.Module):
    
    def __init__(self, num_layers, **block_args):
        super().__init__()
        self.layers = nn.ModuleList([EncoderBlock(**block_args) for _ in range(num_layers)])

    def forward(self, x, mask=None):
        for l in self.layers:
            x = l(x, mask=mask)
        return x

    def get_attention_maps(self, x, mask=None):
        attention_maps = []
        for l in self.layers:
            _, attn_map = l.self_attn(x, mask=mask, return_attention=True)
            attention_maps.append(attn_map)
            x = l(x)
        return attention_maps
# %% realcode: cell 22
class PositionalEncoding(nn.Module):

    def __init__(self, d_model, max_len=5000):
        """
        Inputs
            d_model - Hidden dimensionality of the input.
            max_len - Maximum length of a sequence to expect.
        """
        super().__init__()

        # Create matrix of [SeqLen, HiddenDim] representing the positional encoding for max_len inputs
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0)
        
        # register_buffer => Tensor which is not a parameter, but should be part of the modules state.
        # Used for tensors that need to be on the same device as the module.
        # persistent=False tells PyTorch to not add the buffer to the state dict (e.g. when we save the model) 
        self.register_buffer('pe', pe, persistent=False)

    def forward(self, x):
        x = x + self.pe[:, :x.size(1)]
        return x
# %% realcode: cell 24 (the plot left out)
encod_block = PositionalEncoding(d_model=48, max_len=96)
pe = encod_block.pe.squeeze().T.cpu().numpy()
# %% realcode: cell 29
class CosineWarmupScheduler(optim.lr_scheduler._LRScheduler):
    
    def __init__(self, optimizer, warmup, max_iters):
        self.warmup = warmup
        self.max_num_iters = max_iters
        super().__init__(optimizer)
        
    def get_lr(self):
        lr_factor = self.get_lr_factor(epoch=self.last_epoch)
        return [base_lr * lr_factor for base_lr in self.base_lrs]
    
    def get_lr_factor(self, epoch):
        lr_factor = 0.5 * (1 + np.cos(np.pi * epoch / self.max_num_iters))
        if epoch <= self.warmup:
            lr_factor *= epoch * 1.0 / self.warmup
        return lr_factor
# %% realcode: cell 30 (the plot left out)
# Needed for initializing the lr scheduler
p = nn.Parameter(torch.empty(4,4))
optimizer = optim.Adam([p], lr=1e-3)
lr_scheduler = CosineWarmupScheduler(optimizer=optimizer, warmup=100, max_iters=2000)

# Plotting
epochs = list(range(2000))
lr_factors = torch.tensor([lr_scheduler.get_lr_factor(e) for e in epochs])  # realcode: plt.plot(epochs, [lr_scheduler.get_lr_factor(e) for e in epochs])
# %% realcode: cell 35
class ReverseDataset(data.Dataset):

    def __init__(self, num_categories, seq_len, size):
        super().__init__()
        self.num_categories = num_categories
        self.seq_len = seq_len
        self.size = size
        
        self.data = torch.randint(self.num_categories, size=(self.size, self.seq_len))
  
    def __len__(self):
        return self.size

    def __getitem__(self, idx):
        inp_data = self.data[idx]
        labels = torch.flip(inp_data, dims=(0,))
        return inp_data, labels
# %% realcode: driver cell, TransformerPredictor._create_model and ReversePredictor._calculate_loss without PyTorch Lightning
class hparams:
    input_dim, model_dim, num_heads, num_classes, num_layers, dropout, input_dropout = 10, 32, 1, 10, 1, 0.0, 0.0
    lr, warmup, max_iters = 5e-4, 2, 10

model = nn.Module()
# TransformerPredictor._create_model
# Input dim -> Model dim
model.input_net = nn.Sequential(
    nn.Dropout(hparams.input_dropout),
    nn.Linear(hparams.input_dim, hparams.model_dim)
)
# Positional encoding for sequences
model.positional_encoding = PositionalEncoding(d_model=hparams.model_dim)
# Transformer
model.transformer = TransformerEncoder(num_layers=hparams.num_layers,
                                       input_dim=hparams.model_dim,
                                       dim_feedforward=2*hparams.model_dim,
                                       num_heads=hparams.num_heads,
                                       dropout=hparams.dropout)
# Output classifier per sequence lement
model.output_net = nn.Sequential(
    nn.Linear(hparams.model_dim, hparams.model_dim),
    nn.LayerNorm(hparams.model_dim),
    nn.ReLU(inplace=True),
    nn.Dropout(hparams.dropout),
    nn.Linear(hparams.model_dim, hparams.num_classes)
)

def forward(x, mask=None, add_positional_encoding=True):
    x = model.input_net(x)
    if add_positional_encoding:
        x = model.positional_encoding(x)
    x = model.transformer(x, mask=mask)
    x = model.output_net(x)
    return x

@torch.no_grad()
def get_attention_maps(x, mask=None, add_positional_encoding=True):
    x = model.input_net(x)
    if add_positional_encoding:
        x = model.positional_encoding(x)
    attention_maps = model.transformer.get_attention_maps(x, mask=mask)
    return attention_maps

dataset = partial(ReverseDataset, 10, 16)
train_set = dataset(16)
# %% realcode-load: model train_set.data
train_loader = data.DataLoader(train_set, batch_size=16, shuffle=True, drop_last=True)
optimizer = optim.Adam(model.parameters(), lr=hparams.lr)
lr_scheduler = CosineWarmupScheduler(optimizer, warmup=hparams.warmup, max_iters=hparams.max_iters)
losses, lrs = [], []
for step in range(3):
    for batch in train_loader:
        # ReversePredictor._calculate_loss
        inp_data, labels = batch
        inp_data = F.one_hot(inp_data, num_classes=hparams.num_classes).float()
        preds = forward(inp_data, add_positional_encoding=True)
        loss = F.cross_entropy(preds.view(-1,preds.size(-1)), labels.view(-1))
        acc = (preds.argmax(dim=-1) == labels).float().mean()
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5)
        optimizer.step()
        lr_scheduler.step()
        losses.append(loss.item())
        lrs.append(optimizer.param_groups[0]["lr"])
losses, lrs = torch.tensor(losses), torch.tensor(lrs)
data_input, labels = next(iter(data.DataLoader(train_set, batch_size=16)))
inp_data = F.one_hot(data_input, num_classes=hparams.num_classes).float()
attention_maps = get_attention_maps(inp_data)[0]
