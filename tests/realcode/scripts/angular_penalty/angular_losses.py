# realcode: cvqluu/Angular-Penalty-Softmax-Losses-Pytorch @ c41d599622b6a6ba7e5be6faf3a01da1202024ea
# realcode: https://github.com/cvqluu/Angular-Penalty-Softmax-Losses-Pytorch/blob/c41d599622b6a6ba7e5be6faf3a01da1202024ea/loss_functions.py
# realcode: https://github.com/cvqluu/Angular-Penalty-Softmax-Losses-Pytorch/blob/c41d599622b6a6ba7e5be6faf3a01da1202024ea/train_fMNIST.py
# realcode: kept as written except for these adaptations:
#   - loss_functions.py as written (a library file), then a driver cell built from train_fMNIST.py's train_am: parse_args()'s defaults as a class (40 epochs -> 3), the cosface, sphereface and arcface losses built at the top level before a load marker copying PyTorch's initial weights in, each trained with train_am's loop (tqdm dropped) on one synthetic batch of 3-d embeddings (what models.py's ConvNet projects images to; ConvNet itself, 1.6M weights a model, is left out to keep the recorded initial weights small)
# realcode-input: train_embeds = randn(16, 3, requires_grad=True)
# realcode-input: train_labels = randint(0, 10, 16)
# realcode-output: adms.cosface.* adms.sphereface.* adms.arcface.* losses.cosface losses.sphereface losses.arcface train_embeds
# %% realcode: loss_functions.py
import torch
import torch.nn as nn
import torch.nn.functional as F


class AngularPenaltySMLoss(nn.Module):

    def __init__(self, in_features, out_features, loss_type='arcface', eps=1e-7, s=None, m=None):
        '''
        Angular Penalty Softmax Loss

        Three 'loss_types' available: ['arcface', 'sphereface', 'cosface']
        These losses are described in the following papers: 
        
        ArcFace: https://arxiv.org/abs/1801.07698
        SphereFace: https://arxiv.org/abs/1704.08063
        CosFace/Ad Margin: https://arxiv.org/abs/1801.05599

        '''
        super(AngularPenaltySMLoss, self).__init__()
        loss_type = loss_type.lower()
        assert loss_type in  ['arcface', 'sphereface', 'cosface']
        if loss_type == 'arcface':
            self.s = 64.0 if not s else s
            self.m = 0.5 if not m else m
        if loss_type == 'sphereface':
            self.s = 64.0 if not s else s
            self.m = 1.35 if not m else m
        if loss_type == 'cosface':
            self.s = 30.0 if not s else s
            self.m = 0.4 if not m else m
        self.loss_type = loss_type
        self.in_features = in_features
        self.out_features = out_features
        self.fc = nn.Linear(in_features, out_features, bias=False)
        self.eps = eps

    def forward(self, x, labels):
        '''
        input shape (N, in_features)
        '''
        assert len(x) == len(labels)
        assert torch.min(labels) >= 0
        assert torch.max(labels) < self.out_features
        
        for W in self.fc.parameters():
            W = F.normalize(W, p=2, dim=1)

        x = F.normalize(x, p=2, dim=1)

        wf = self.fc(x)
        if self.loss_type == 'cosface':
            numerator = self.s * (torch.diagonal(wf.transpose(0, 1)[labels]) - self.m)
        if self.loss_type == 'arcface':
            numerator = self.s * torch.cos(torch.acos(torch.clamp(torch.diagonal(wf.transpose(0, 1)[labels]), -1.+self.eps, 1-self.eps)) + self.m)
        if self.loss_type == 'sphereface':
            numerator = self.s * torch.cos(self.m * torch.acos(torch.clamp(torch.diagonal(wf.transpose(0, 1)[labels]), -1.+self.eps, 1-self.eps)))

        excl = torch.cat([torch.cat((wf[i, :y], wf[i, y+1:])).unsqueeze(0) for i, y in enumerate(labels)], dim=0)
        denominator = torch.exp(numerator) + torch.sum(torch.exp(self.s * excl), dim=1)
        L = numerator - torch.log(denominator)
        return -torch.mean(L)
# %% realcode-driver: train_fMNIST.py's train_am loop on the loss head, fed synthetic 3-d embeddings (what ConvNet's fc_projection gives it)
class args:  # realcode: parse_args()'s defaults as a class (40 epochs -> 3)
    batch_size = 512
    num_epochs = 3
    seed = 1234
    lr = 0.01
    use_cuda = False
use_cuda = args.use_cuda and torch.cuda.is_available()
device = torch.device("cuda" if use_cuda else "cpu")
torch.manual_seed(args.seed)
train_loader = [(train_embeds, train_labels)]  # realcode: one synthetic batch of embeddings and labels
adms = {loss_type: AngularPenaltySMLoss(3, 10, loss_type=loss_type).to(device) for loss_type in ['cosface', 'sphereface', 'arcface']}
# %% realcode-load: adms.cosface adms.sphereface adms.arcface
losses = {}
for loss_type in ['cosface', 'sphereface', 'arcface']:
    model = adms[loss_type]
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    total_step = len(train_loader)
    for epoch in range(args.num_epochs):
        for i, (feats, labels) in enumerate(train_loader):
            feats = feats.to(device)
            labels = labels.to(device)
            loss = model(feats, labels=labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if (i+1) % 100 == 0:
                print('{}: Epoch [{}/{}], Step [{}/{}], Loss: {:.4f}'
                    .format(loss_type, epoch+1, args.num_epochs, i+1, total_step, loss.item()))

        if((epoch+1) % 8 == 0):
            for param_group in optimizer.param_groups:
                param_group['lr'] = param_group['lr']/4
    losses[loss_type] = loss
