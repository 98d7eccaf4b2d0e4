# realcode: rasbt/LLMs-from-scratch @ 28c65cdfbc3338e2e040016eea4b7fdf556e4d57
# realcode: https://github.com/rasbt/LLMs-from-scratch/blob/28c65cdfbc3338e2e040016eea4b7fdf556e4d57/ch04/01_main-chapter-code/ch04.ipynb
# realcode: kept as written except for these adaptations:
#   - the notebook's code cells in order, each after a '# %%' line
#   - `from importlib.metadata import version /  / print("matplotlib version:", version("matplotlib")) / print("torch version:", version("torch")) / print("tiktoken...` -> `pass  # realcode-dropped: from importlib.metadata import version; print(... version("matplotlib") ... version("torch") ... version("tiktoken"))`: the installed-package version printout is not PyTorch
#   - `"vocab_size": 50257,    # Vocabulary size /     "context_length": 1024, # Context length /     "emb_dim": 768,         # Embedding dimension /     "n_heads":...` -> `"vocab_size": 1000,    # Vocabulary size /     "context_length": 64, # Context length /     "emb_dim": 32,         # Embedding dimension /     "n_heads": 4, ...`: shrink GPT-2 124M (vocab 50257, context 1024, width 768, 12 heads, 12 layers) to vocab 1000, context 64, width 32, 4 heads, 2 layers; dropout 0 so values compare (its masks come from the session's generator)
#   - `import tiktoken` -> `pass  # realcode-dropped: import tiktoken`: the GPT-2 tokenizer (tiktoken, not PyTorch) replaced by synthetic token ids passed as inputs
#   - `tokenizer = tiktoken.get_encoding("gpt2")` -> `pass  # realcode-dropped: tokenizer = tiktoken.get_encoding("gpt2")`: the GPT-2 tokenizer (tiktoken, not PyTorch) replaced by synthetic token ids passed as inputs
#   - `batch.append(torch.tensor(tokenizer.encode(txt1)))` -> `batch.append(torch.tensor(txt1_ids.tolist()))  # realcode: tokenizer.encode(txt1)`: the GPT-2 tokenizer (tiktoken, not PyTorch) replaced by synthetic token ids passed as inputs
#   - `batch.append(torch.tensor(tokenizer.encode(txt2)))` -> `batch.append(torch.tensor(txt2_ids.tolist()))  # realcode: tokenizer.encode(txt2)`: the GPT-2 tokenizer (tiktoken, not PyTorch) replaced by synthetic token ids passed as inputs
#   - `model = DummyGPTModel(GPT_CONFIG_124M)` -> `model = DummyGPTModel(GPT_CONFIG_124M) / # %% realcode-load: model`: cell marker: PyTorch's initial weights (and random draws) are copied in
#   - `layer = nn.Sequential(nn.Linear(5, 6), nn.ReLU())` -> `layer = nn.Sequential(nn.Linear(5, 6), nn.ReLU()) / # %% realcode-load: batch_example layer`: cell marker: PyTorch's initial weights (and random draws) are copied in
#   - `import matplotlib.pyplot as plt` -> `pass  # realcode-dropped: import matplotlib.pyplot as plt`: drop plotting
#   - `plt.figure(figsize=(8, 3))` -> `pass  # realcode-dropped: plt.figure(figsize=(8, 3))`: drop plotting
#   - `for i, (y, label) in enumerate(zip([y_gelu, y_relu], ["GELU", "ReLU"]), 1): /     plt.subplot(1, 2, i) /     plt.plot(x, y) /     plt.title(f"{label} activat...` -> `pass  # realcode-dropped: the GELU/ReLU plot loop (plt.subplot, plot, title, labels, grid), plt.tight_layout(), plt.show()`: drop plotting
#   - `x = torch.rand(2, 3, 768)` -> `x = torch.rand(2, 3, 32)  / # %% realcode-load: ffn x`: 768 (the 124M width) -> 32 with the shrunk config; cell marker: PyTorch's initial weights and draw are copied in
#   - `model_without_shortcut = ExampleDeepNeuralNetwork( /     layer_sizes, use_shortcut=False / )` -> `model_without_shortcut = ExampleDeepNeuralNetwork( /     layer_sizes, use_shortcut=False / ) / # %% realcode-load: model_without_shortcut`: cell marker: PyTorch's initial weights (and random draws) are copied in
#   - `model_with_shortcut = ExampleDeepNeuralNetwork( /     layer_sizes, use_shortcut=True / )` -> `model_with_shortcut = ExampleDeepNeuralNetwork( /     layer_sizes, use_shortcut=True / ) / # %% realcode-load: model_with_shortcut`: cell marker: PyTorch's initial weights (and random draws) are copied in
#   - `from previous_chapters import MultiHeadAttention` -> `class MultiHeadAttention(nn.Module): /     def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False): /         super().__init__() ...`: the local-module import replaced by ch04/01_main-chapter-code/previous_chapters.py's MultiHeadAttention class as written there
#   - `x = torch.rand(2, 4, 768)  # Shape: [batch_size, num_tokens, emb_dim] / block = TransformerBlock(GPT_CONFIG_124M)` -> `x = torch.rand(2, 4, 32)  # Shape: [batch_size, num_tokens, emb_dim] / block = TransformerBlock(GPT_CONFIG_124M) / # %% realcode-load: x block`: 768 (the 124M width) -> 32 with the shrunk config; cell marker: PyTorch's initial weights and draw are copied in
#   - `model = GPTModel(GPT_CONFIG_124M)` -> `model = GPTModel(GPT_CONFIG_124M) / # %% realcode-load: model`: cell marker: PyTorch's initial weights (and random draws) are copied in
#   - `encoded = tokenizer.encode(start_context)` -> `encoded = start_ids.tolist()  # realcode: tokenizer.encode(start_context)`: the GPT-2 tokenizer (tiktoken, not PyTorch) replaced by synthetic token ids passed as inputs
#   - `decoded_text = tokenizer.decode(out.squeeze(0).tolist()) / print(decoded_text)` -> `pass  # realcode-dropped: decoded_text = tokenizer.decode(out.squeeze(0).tolist()); print(decoded_text)`: the GPT-2 tokenizer (tiktoken, not PyTorch) replaced by synthetic token ids passed as inputs
# realcode-input: txt1_ids = randint(0, 1000, 4)
# realcode-input: txt2_ids = randint(0, 1000, 4)
# realcode-input: start_ids = randint(0, 1000, 4)
# realcode-atol: 1e-6 (the notebook's `mean` is the mean of a LayerNorm's output, 0 up to float32 rounding of ~2e-8)
# realcode-output: batch logits out_norm mean var out_ln y_gelu y_relu output block.* model_without_shortcut.* model_with_shortcut.* total_params total_params_gpt2 total_size_mb encoded_tensor out model.*
# %% (notebook cell 0)
pass  # realcode-dropped: from importlib.metadata import version; print(... version("matplotlib") ... version("torch") ... version("tiktoken"))
# %% (notebook cell 1)
GPT_CONFIG_124M = {
    "vocab_size": 1000,    # Vocabulary size
    "context_length": 64, # Context length
    "emb_dim": 32,         # Embedding dimension
    "n_heads": 4,          # Number of attention heads
    "n_layers": 2,         # Number of layers
    "drop_rate": 0.0,       # Dropout rate
    "qkv_bias": False       # Query-Key-Value bias
}
# %% (notebook cell 2)
import torch
import torch.nn as nn


class DummyGPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        
        # Use a placeholder for TransformerBlock
        self.trf_blocks = nn.Sequential(
            *[DummyTransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        
        # Use a placeholder for LayerNorm
        self.final_norm = DummyLayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(
            cfg["emb_dim"], cfg["vocab_size"], bias=False
        )

    def forward(self, in_idx):
        batch_size, seq_len = in_idx.shape
        tok_embeds = self.tok_emb(in_idx)
        pos_embeds = self.pos_emb(torch.arange(seq_len, device=in_idx.device))
        x = tok_embeds + pos_embeds
        x = self.drop_emb(x)
        x = self.trf_blocks(x)
        x = self.final_norm(x)
        logits = self.out_head(x)
        return logits


class DummyTransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        # A simple placeholder

    def forward(self, x):
        # This block does nothing and just returns its input.
        return x


class DummyLayerNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5):
        super().__init__()
        # The parameters here are just to mimic the LayerNorm interface.

    def forward(self, x):
        # This layer does nothing and just returns its input.
        return x
# %% (notebook cell 3)
pass  # realcode-dropped: import tiktoken

pass  # realcode-dropped: tokenizer = tiktoken.get_encoding("gpt2")

batch = []

txt1 = "Every effort moves you"
txt2 = "Every day holds a"

batch.append(torch.tensor(txt1_ids.tolist()))  # realcode: tokenizer.encode(txt1)
batch.append(torch.tensor(txt2_ids.tolist()))  # realcode: tokenizer.encode(txt2)
batch = torch.stack(batch, dim=0)
print(batch)
# %% (notebook cell 4)
torch.manual_seed(123)
model = DummyGPTModel(GPT_CONFIG_124M)
# %% realcode-load: model

logits = model(batch)
print("Output shape:", logits.shape)
print(logits)
# %% (notebook cell 5)
torch.manual_seed(123)

# create 2 training examples with 5 dimensions (features) each
batch_example = torch.randn(2, 5) 

layer = nn.Sequential(nn.Linear(5, 6), nn.ReLU())
# %% realcode-load: batch_example layer
out = layer(batch_example)
print(out)
# %% (notebook cell 6)
mean = out.mean(dim=-1, keepdim=True)
var = out.var(dim=-1, keepdim=True)

print("Mean:\n", mean)
print("Variance:\n", var)
# %% (notebook cell 7)
out_norm = (out - mean) / torch.sqrt(var)
print("Normalized layer outputs:\n", out_norm)

mean = out_norm.mean(dim=-1, keepdim=True)
var = out_norm.var(dim=-1, keepdim=True)
print("Mean:\n", mean)
print("Variance:\n", var)
# %% (notebook cell 8)
torch.set_printoptions(sci_mode=False)
print("Mean:\n", mean)
print("Variance:\n", var)
# %% (notebook cell 9)
class LayerNorm(nn.Module):
    def __init__(self, emb_dim):
        super().__init__()
        self.eps = 1e-5
        self.scale = nn.Parameter(torch.ones(emb_dim))
        self.shift = nn.Parameter(torch.zeros(emb_dim))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        norm_x = (x - mean) / torch.sqrt(var + self.eps)
        return self.scale * norm_x + self.shift
# %% (notebook cell 10)
ln = LayerNorm(emb_dim=6)
out_ln = ln(out)
# %% (notebook cell 11)
mean = out_ln.mean(dim=-1, keepdim=True)
var = out_ln.var(dim=-1, unbiased=False, keepdim=True)

print("Mean:\n", mean)
print("Variance:\n", var)
# %% (notebook cell 12)
class GELU(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(
            torch.sqrt(torch.tensor(2.0 / torch.pi)) * 
            (x + 0.044715 * torch.pow(x, 3))
        ))
# %% (notebook cell 13)
pass  # realcode-dropped: import matplotlib.pyplot as plt

gelu, relu = GELU(), nn.ReLU()

# Some sample data
x = torch.linspace(-3, 3, 100)
y_gelu, y_relu = gelu(x), relu(x)

pass  # realcode-dropped: plt.figure(figsize=(8, 3))
pass  # realcode-dropped: the GELU/ReLU plot loop (plt.subplot, plot, title, labels, grid), plt.tight_layout(), plt.show()
# %% (notebook cell 14)
class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]),
            GELU(),
            nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]),
        )

    def forward(self, x):
        return self.layers(x)
# %% (notebook cell 15)
print(GPT_CONFIG_124M["emb_dim"])
# %% (notebook cell 16)
ffn = FeedForward(GPT_CONFIG_124M)

# input shape: [batch_size, num_token, emb_size]
x = torch.rand(2, 3, 32) 
# %% realcode-load: ffn x
out = ffn(x)
print(out.shape)
# %% (notebook cell 17)
class ExampleDeepNeuralNetwork(nn.Module):
    def __init__(self, layer_sizes, use_shortcut):
        super().__init__()
        self.use_shortcut = use_shortcut
        self.layers = nn.ModuleList([
            nn.Sequential(nn.Linear(layer_sizes[0], layer_sizes[1]), GELU()),
            nn.Sequential(nn.Linear(layer_sizes[1], layer_sizes[2]), GELU()),
            nn.Sequential(nn.Linear(layer_sizes[2], layer_sizes[3]), GELU()),
            nn.Sequential(nn.Linear(layer_sizes[3], layer_sizes[4]), GELU()),
            nn.Sequential(nn.Linear(layer_sizes[4], layer_sizes[5]), GELU())
        ])

    def forward(self, x):
        for layer in self.layers:
            # Compute the output of the current layer
            layer_output = layer(x)
            # Check if shortcut can be applied
            if self.use_shortcut and x.shape == layer_output.shape:
                x = x + layer_output
            else:
                x = layer_output
        return x


def print_gradients(model, x):
    # Forward pass
    output = model(x)
    target = torch.tensor([[0.]])

    # Calculate loss based on how close the target
    # and output are
    loss = nn.MSELoss()
    loss = loss(output, target)
    
    # Backward pass to calculate the gradients
    loss.backward()

    for name, param in model.named_parameters():
        if 'weight' in name:
            # Print the mean absolute gradient of the weights
            print(f"{name} has gradient mean of {param.grad.abs().mean().item()}")
# %% (notebook cell 18)
layer_sizes = [3, 3, 3, 3, 3, 1]  

sample_input = torch.tensor([[1., 0., -1.]])

torch.manual_seed(123)
model_without_shortcut = ExampleDeepNeuralNetwork(
    layer_sizes, use_shortcut=False
)
# %% realcode-load: model_without_shortcut
print_gradients(model_without_shortcut, sample_input)
# %% (notebook cell 19)
torch.manual_seed(123)
model_with_shortcut = ExampleDeepNeuralNetwork(
    layer_sizes, use_shortcut=True
)
# %% realcode-load: model_with_shortcut
print_gradients(model_with_shortcut, sample_input)
# %% (notebook cell 20)
# If the `previous_chapters.py` file is not available locally,
# you can import it from the `llms-from-scratch` PyPI package.
# For details, see: https://github.com/rasbt/LLMs-from-scratch/tree/main/pkg
# E.g.,
# from llms_from_scratch.ch03 import MultiHeadAttention

class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads  # Reduce the projection dim to match desired output dim

        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # Linear layer to combine head outputs
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape

        keys = self.W_key(x)  # Shape: (b, num_tokens, d_out)
        queries = self.W_query(x)
        values = self.W_value(x)

        # We implicitly split the matrix by adding a `num_heads` dimension
        # Unroll last dim: (b, num_tokens, d_out) -> (b, num_tokens, num_heads, head_dim)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)

        # Transpose: (b, num_tokens, num_heads, head_dim) -> (b, num_heads, num_tokens, head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)

        # Compute scaled dot-product attention (aka self-attention) with a causal mask
        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head

        # Original mask truncated to the number of tokens and converted to boolean
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]

        # Use the mask to fill attention scores
        attn_scores.masked_fill_(mask_bool, -torch.inf)

        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)

        # Shape: (b, num_tokens, num_heads, head_dim)
        context_vec = (attn_weights @ values).transpose(1, 2)

        # Combine heads, where self.d_out = self.num_heads * self.head_dim
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        context_vec = self.out_proj(context_vec)  # optional projection

        return context_vec


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = MultiHeadAttention(
            d_in=cfg["emb_dim"],
            d_out=cfg["emb_dim"],
            context_length=cfg["context_length"],
            num_heads=cfg["n_heads"], 
            dropout=cfg["drop_rate"],
            qkv_bias=cfg["qkv_bias"])
        self.ff = FeedForward(cfg)
        self.norm1 = LayerNorm(cfg["emb_dim"])
        self.norm2 = LayerNorm(cfg["emb_dim"])
        self.drop_shortcut = nn.Dropout(cfg["drop_rate"])

    def forward(self, x):
        # Shortcut connection for attention block
        shortcut = x
        x = self.norm1(x)
        x = self.att(x)  # Shape [batch_size, num_tokens, emb_size]
        x = self.drop_shortcut(x)
        x = x + shortcut  # Add the original input back

        # Shortcut connection for feed forward block
        shortcut = x
        x = self.norm2(x)
        x = self.ff(x)
        x = self.drop_shortcut(x)
        x = x + shortcut  # Add the original input back

        return x
# %% (notebook cell 21)
torch.manual_seed(123)

x = torch.rand(2, 4, 32)  # Shape: [batch_size, num_tokens, emb_dim]
block = TransformerBlock(GPT_CONFIG_124M)
# %% realcode-load: x block
output = block(x)

print("Input shape:", x.shape)
print("Output shape:", output.shape)
# %% (notebook cell 22)
class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        
        self.trf_blocks = nn.Sequential(
            *[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        
        self.final_norm = LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(
            cfg["emb_dim"], cfg["vocab_size"], bias=False
        )

    def forward(self, in_idx):
        batch_size, seq_len = in_idx.shape
        tok_embeds = self.tok_emb(in_idx)
        pos_embeds = self.pos_emb(torch.arange(seq_len, device=in_idx.device))
        x = tok_embeds + pos_embeds  # Shape [batch_size, num_tokens, emb_size]
        x = self.drop_emb(x)
        x = self.trf_blocks(x)
        x = self.final_norm(x)
        logits = self.out_head(x)
        return logits
# %% (notebook cell 23)
torch.manual_seed(123)
model = GPTModel(GPT_CONFIG_124M)
# %% realcode-load: model

out = model(batch)
print("Input batch:\n", batch)
print("\nOutput shape:", out.shape)
print(out)
# %% (notebook cell 24)
total_params = sum(p.numel() for p in model.parameters())
print(f"Total number of parameters: {total_params:,}")
# %% (notebook cell 25)
print("Token embedding layer shape:", model.tok_emb.weight.shape)
print("Output layer shape:", model.out_head.weight.shape)
# %% (notebook cell 26)
total_params_gpt2 =  total_params - sum(p.numel() for p in model.out_head.parameters())
print(f"Number of trainable parameters considering weight tying: {total_params_gpt2:,}")
# %% (notebook cell 27)
# Calculate the total size in bytes (assuming float32, 4 bytes per parameter)
total_size_bytes = total_params * 4

# Convert to megabytes
total_size_mb = total_size_bytes / (1024 * 1024)

print(f"Total size of the model: {total_size_mb:.2f} MB")
# %% (notebook cell 28)
def generate_text_simple(model, idx, max_new_tokens, context_size):
    # idx is (batch, n_tokens) array of indices in the current context
    for _ in range(max_new_tokens):
        
        # Crop current context if it exceeds the supported context size
        # E.g., if LLM supports only 5 tokens, and the context size is 10
        # then only the last 5 tokens are used as context
        idx_cond = idx[:, -context_size:]
        
        # Get the predictions
        with torch.no_grad():
            logits = model(idx_cond)
        
        # Focus only on the last time step
        # (batch, n_tokens, vocab_size) becomes (batch, vocab_size)
        logits = logits[:, -1, :]  

        # Apply softmax to get probabilities
        probas = torch.softmax(logits, dim=-1)  # (batch, vocab_size)

        # Get the idx of the vocab entry with the highest probability value
        idx_next = torch.argmax(probas, dim=-1, keepdim=True)  # (batch, 1)

        # Append sampled index to the running sequence
        idx = torch.cat((idx, idx_next), dim=1)  # (batch, n_tokens+1)

    return idx
# %% (notebook cell 29)
start_context = "Hello, I am"

encoded = start_ids.tolist()  # realcode: tokenizer.encode(start_context)
print("encoded:", encoded)

encoded_tensor = torch.tensor(encoded).unsqueeze(0)
print("encoded_tensor.shape:", encoded_tensor.shape)
# %% (notebook cell 30)
model.eval() # disable dropout

out = generate_text_simple(
    model=model,
    idx=encoded_tensor, 
    max_new_tokens=6, 
    context_size=GPT_CONFIG_124M["context_length"]
)

print("Output:", out)
print("Output length:", len(out[0]))
# %% (notebook cell 31)
pass  # realcode-dropped: decoded_text = tokenizer.decode(out.squeeze(0).tolist()); print(decoded_text)
# %% (notebook cell 32)
