# realcode: omihub777/ViT-CIFAR @ ab9043ea44cfe8311d30295fc0e0467d676187f1
# realcode: https://github.com/omihub777/ViT-CIFAR/blob/ab9043ea44cfe8311d30295fc0e0467d676187f1/layers.py
# realcode: https://github.com/omihub777/ViT-CIFAR/blob/ab9043ea44cfe8311d30295fc0e0467d676187f1/vit.py
# realcode: https://github.com/omihub777/ViT-CIFAR/blob/ab9043ea44cfe8311d30295fc0e0467d676187f1/criterions.py
# realcode: https://github.com/omihub777/ViT-CIFAR/blob/ab9043ea44cfe8311d30295fc0e0467d676187f1/main.py
# realcode: https://github.com/omihub777/ViT-CIFAR/blob/ab9043ea44cfe8311d30295fc0e0467d676187f1/utils.py
# realcode: kept as written except for these adaptations:
#   - layers.py, vit.py and criterions.py as written, one after the other, then a driver cell (below)
#   - `import torchsummary` -> `pass  # realcode-dropped: import torchsummary`: dropped (torchsummary: used only by the `__main__` demo, which is not run)
#   - `if __name__=="__main__":` -> `if False:  # realcode: the module demo (torchsummary) is not run`: the module's `__main__` demo (torchsummary.summary) is not run
#   - `import torchsummary` -> `pass  # realcode-dropped: import torchsummary`: dropped (torchsummary: used only by the `__main__` demo, which is not run)
#   - `from layers import TransformerEncoder` -> `pass  # realcode-inlined: from layers import TransformerEncoder`: the repository's own module, pasted above
#   - `if __name__ == "__main__":` -> `if False:  # realcode: the module demo (torchsummary) is not run`: the module's `__main__` demo (torchsummary.summary) is not run
# realcode-input: img = randn(4, 3, 32, 32)
# realcode-input: label = randint(0, 10, 4)
# realcode-output: words losses accs val_out val_loss lr model.*
# realcode-shape-only: model.enc.0.msa.k.bias model.enc.1.msa.k.bias (a key bias adds the same amount to every key's score before the softmax over them: its true gradient is 0, and PyTorch's is float32 noise of ~1e-9)
# realcode-rtol: 2e-4 (losses and accs are Python floats from item(): float32's tolerance)
# %% realcode: layers.py
import torch
import torch.nn as nn
import torch.nn.functional as F
pass  # realcode-dropped: import torchsummary


class TransformerEncoder(nn.Module):
    def __init__(self, feats:int, mlp_hidden:int, head:int=8, dropout:float=0.):
        super(TransformerEncoder, self).__init__()
        self.la1 = nn.LayerNorm(feats)
        self.msa = MultiHeadSelfAttention(feats, head=head, dropout=dropout)
        self.la2 = nn.LayerNorm(feats)
        self.mlp = nn.Sequential(
            nn.Linear(feats, mlp_hidden),
            nn.GELU(),
            nn.Dropout(dropout),
            nn.Linear(mlp_hidden, feats),
            nn.GELU(),
            nn.Dropout(dropout),
        )

    def forward(self, x):
        out = self.msa(self.la1(x)) + x
        out = self.mlp(self.la2(out)) + out
        return out


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, feats:int, head:int=8, dropout:float=0.):
        super(MultiHeadSelfAttention, self).__init__()
        self.head = head
        self.feats = feats
        self.sqrt_d = self.feats**0.5

        self.q = nn.Linear(feats, feats)
        self.k = nn.Linear(feats, feats)
        self.v = nn.Linear(feats, feats)

        self.o = nn.Linear(feats, feats)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        b, n, f = x.size()
        q = self.q(x).view(b, n, self.head, self.feats//self.head).transpose(1,2)
        k = self.k(x).view(b, n, self.head, self.feats//self.head).transpose(1,2)
        v = self.v(x).view(b, n, self.head, self.feats//self.head).transpose(1,2)

        score = F.softmax(torch.einsum("bhif, bhjf->bhij", q, k)/self.sqrt_d, dim=-1) #(b,h,n,n)
        attn = torch.einsum("bhij, bhjf->bihf", score, v) #(b,n,h,f//h)
        o = self.dropout(self.o(attn.flatten(2)))
        return o

class MultiHeadDepthwiseSelfAttention(nn.Module):
    def __init__(self, feats:int, head:int=8, dropout:float=0):
        super(MultiHeadDepthwiseSelfAttention, self).__init__()
        ...

    def forward(self, x):
        
        ...

if False:  # realcode: the module demo (torchsummary) is not run
    b,n,f = 4, 16, 128
    x = torch.randn(b,n,f)
    # net = MultiHeadSelfAttention(f)
    net = TransformerEncoder(f)
    torchsummary.summary(net, (n,f))
    # out = net(x)
    # print(out.shape)

# %% realcode: vit.py
import torch
import torch.nn as nn
pass  # realcode-dropped: import torchsummary

pass  # realcode-inlined: from layers import TransformerEncoder

class ViT(nn.Module):
    def __init__(self, in_c:int=3, num_classes:int=10, img_size:int=32, patch:int=8, dropout:float=0., num_layers:int=7, hidden:int=384, mlp_hidden:int=384*4, head:int=8, is_cls_token:bool=True):
        super(ViT, self).__init__()
        # hidden=384

        self.patch = patch # number of patches in one row(or col)
        self.is_cls_token = is_cls_token
        self.patch_size = img_size//self.patch
        f = (img_size//self.patch)**2*3 # 48 # patch vec length
        num_tokens = (self.patch**2)+1 if self.is_cls_token else (self.patch**2)

        self.emb = nn.Linear(f, hidden) # (b, n, f)
        self.cls_token = nn.Parameter(torch.randn(1, 1, hidden)) if is_cls_token else None
        self.pos_emb = nn.Parameter(torch.randn(1,num_tokens, hidden))
        enc_list = [TransformerEncoder(hidden,mlp_hidden=mlp_hidden, dropout=dropout, head=head) for _ in range(num_layers)]
        self.enc = nn.Sequential(*enc_list)
        self.fc = nn.Sequential(
            nn.LayerNorm(hidden),
            nn.Linear(hidden, num_classes) # for cls_token
        )


    def forward(self, x):
        out = self._to_words(x)
        out = self.emb(out)
        if self.is_cls_token:
            out = torch.cat([self.cls_token.repeat(out.size(0),1,1), out],dim=1)
        out = out + self.pos_emb
        out = self.enc(out)
        if self.is_cls_token:
            out = out[:,0]
        else:
            out = out.mean(1)
        out = self.fc(out)
        return out

    def _to_words(self, x):
        """
        (b, c, h, w) -> (b, n, f)
        """
        out = x.unfold(2, self.patch_size, self.patch_size).unfold(3, self.patch_size, self.patch_size).permute(0,2,3,4,5,1)
        out = out.reshape(x.size(0), self.patch**2 ,-1)
        return out


if False:  # realcode: the module demo (torchsummary) is not run
    b,c,h,w = 4, 3, 32, 32
    x = torch.randn(b, c, h, w)
    net = ViT(in_c=c, num_classes= 10, img_size=h, patch=16, dropout=0.1, num_layers=7, hidden=384, head=12, mlp_hidden=384, is_cls_token=False)
    # out = net(x)
    # out.mean().backward()
    torchsummary.summary(net, (c,h,w))
    # print(out.shape)
    

# %% realcode: criterions.py
import torch
import torch.nn as nn

class LabelSmoothingCrossEntropyLoss(nn.Module):
    def __init__(self, classes, smoothing=0.0, dim=-1):
        super(LabelSmoothingCrossEntropyLoss, self).__init__()
        self.confidence = 1.0 - smoothing
        self.smoothing = smoothing
        self.cls = classes
        self.dim = dim

    def forward(self, pred, target):
        pred = pred.log_softmax(dim=self.dim)
        with torch.no_grad():
            true_dist = torch.zeros_like(pred)
            true_dist.fill_(self.smoothing / (self.cls - 1))
            true_dist.scatter_(1, target.data.unsqueeze(1), self.confidence)
        return torch.mean(torch.sum(-true_dist * pred, dim=self.dim))    

# %% realcode: driver built from main.py and utils.py: utils.get_model's ViT call and get_criterion's label-smoothing branch with main.py's argparse defaults (sizes smaller), configure_optimizers' Adam and CosineAnnealingLR (the warmup_scheduler package left out), and training_step / validation_step's lines run without PyTorch Lightning, 4 steps on one synthetic CIFAR-shaped batch of 4 images
class args:  # realcode: main.py's defaults with --label-smoothing; hidden 384 -> 16, mlp_hidden 384 -> 32, num_layers 7 -> 2, head 12 -> 4, patch 8 -> 4
    num_classes = 10; patch = 4; lr = 1e-3; min_lr = 1e-5; beta1 = 0.9; beta2 = 0.999; max_epochs = 200
    weight_decay = 5e-5; criterion = "ce"; label_smoothing = True; smoothing = 0.1; dropout = 0.0; head = 4
    num_layers = 2; hidden = 16; mlp_hidden = 32; is_cls_token = True; in_c = 3; size = 32


model = ViT(
    args.in_c,
    args.num_classes,
    img_size=args.size,
    patch=args.patch,
    dropout=args.dropout,
    mlp_hidden=args.mlp_hidden,
    num_layers=args.num_layers,
    hidden=args.hidden,
    head=args.head,
    is_cls_token=args.is_cls_token
    )
# %% realcode-load: model
criterion = LabelSmoothingCrossEntropyLoss(args.num_classes, smoothing=args.smoothing)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(args.beta1, args.beta2), weight_decay=args.weight_decay)
base_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.max_epochs, eta_min=args.min_lr)
words = model._to_words(img)
losses, accs = [], []
for step in range(4):
    out = model(img)
    loss = criterion(out, label)
    acc = torch.eq(out.argmax(-1), label).float().mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    base_scheduler.step()
    losses.append(loss.item())
    accs.append(acc.item())
model.eval()
with torch.no_grad():
    val_out = model(img)
    val_loss = criterion(val_out, label)
lr = optimizer.param_groups[0]["lr"]
