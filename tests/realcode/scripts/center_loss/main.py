# realcode: KaiyangZhou/pytorch-center-loss @ 082ffa21c065426843f26129be51bb1cfd554806
# realcode: https://github.com/KaiyangZhou/pytorch-center-loss/blob/082ffa21c065426843f26129be51bb1cfd554806/center_loss.py
# realcode: https://github.com/KaiyangZhou/pytorch-center-loss/blob/082ffa21c065426843f26129be51bb1cfd554806/models.py
# realcode: https://github.com/KaiyangZhou/pytorch-center-loss/blob/082ffa21c065426843f26129be51bb1cfd554806/utils.py
# realcode: https://github.com/KaiyangZhou/pytorch-center-loss/blob/082ffa21c065426843f26129be51bb1cfd554806/main.py
# realcode: kept as written except for these adaptations:
#   - center_loss.py, models.py and main.py as written, one after the other, each after a '# %%' line
#   - `import matplotlib / matplotlib.use('Agg') / from matplotlib import pyplot as plt / ` -> `pass  # realcode-dropped: import matplotlib / pass  # realcode-dropped: matplotlib.use('Agg') / pass  # realcode-dropped: from matplotlib import pyplot as plt / `: dropped (plotting: plot_features is only called with --plot)
#   - `import datasets / import models / from utils import AverageMeter, Logger / from center_loss import CenterLoss / ` -> `pass  # realcode-dropped: import datasets / import types; models = types.SimpleNamespace(create=create)  # realcode-inlined: import models (models.py, pasted above) / # realcode-inlined: from utils import AverageMeter (utils.py's class, pasted here); Logger dropped / class AverageMeter(object): / """Computes and stores the average and current value. /  / Code imported from https://github.com/pytorch/examples/blob/master/imagenet/main.py#L247-L262 / """ / def __init__(self): / self.reset() /  / def reset(self): / self.val = 0 / self.avg = 0 / self.sum = 0 / self.count = 0 /  / def update(self, val, n=1): / self.val = val / self.sum += val * n / self.count += n / self.avg = self.sum / self.count / pass  # realcode-inlined: from center_loss import CenterLoss (pasted above) / `: the repository's own center_loss.py and models.py pasted above (models bound as a namespace), utils.py's AverageMeter pasted here; datasets (torchvision's MNIST download) and utils' Logger (it writes the console to a file) dropped
#   - `parser = argparse.ArgumentParser("Center Loss Example") / # dataset / parser.add_argument('-d', '--dataset', type=str, default='mnist', choices=['mnist']) / parser.add_argument('-j', '--workers', default=4, type=int, / help="number of data loading workers (default: 4)") / # optimization / parser.add_argument('--batch-size', type=int, default=128) / parser.add_argument('--lr-model', type=float, default=0.001, help="learning rate for model") / parser.add_argument('--lr-cent', type=float, default=0.5, help="learning rate for center loss") / parser.add_argument('--weight-cent', type=float, default=1, help="weight for center loss") / parser.add_argument('--max-epoch', type=int, default=100) / parser.add_argument('--stepsize', type=int, default=20) / parser.add_argument('--gamma', type=float, default=0.5, help="learning rate decay") / # model / parser.add_argument('--model', type=str, default='cnn') / # misc / parser.add_argument('--eval-freq', type=int, default=10) / parser.add_argument('--print-freq', type=int, default=50) / parser.add_argument('--gpu', type=str, default='0') / parser.add_argument('--seed', type=int, default=1) / parser.add_argument('--use-cpu', action='store_true') / parser.add_argument('--save-dir', type=str, default='log') / parser.add_argument('--plot', action='store_true', help="whether to plot features for every epoch") /  / args = parser.parse_args() / ` -> `class args:  # realcode: the parser's defaults as a class (batch size 128 -> 8, 100 epochs -> 1, stepsize 20 -> 2; one step: from the second on, float32 gradients below fc1 differ by a few percent between PyTorch and the engine while float64 runs agree to 1e-14, the center loss's |x|^2 + |c|^2 - 2x.c cancelling once the centres near their features) / dataset = 'mnist' / workers = 4 / batch_size = 8 / lr_model = 0.001 / lr_cent = 0.5 / weight_cent = 1 / max_epoch = 1 / stepsize = 2 / gamma = 0.5 / model = 'cnn' / eval_freq = 10 / print_freq = 50 / gpu = '0' / seed = 1 / use_cpu = False / save_dir = 'log' / plot = False / `: argparse: the parser's defaults as a class (batch size 128 -> 8, 100 epochs -> 1, stepsize 20 -> 2; one step: from the second on, float32 gradients below fc1 differ by a few percent between PyTorch and the engine while float64 runs agree to 1e-14, the center loss's |x|^2 + |c|^2 - 2x.c cancelling once the centres near their features)
#   - `if __name__ == '__main__': / main() / ` -> `if __name__ == '__main__': / pass  # realcode-dropped: main() / # %% realcode-driver: main()'s body at the top level, so PyTorch's initial weights can be copied in after the models are built / torch.manual_seed(args.seed) / pass  # realcode-dropped: os.environ['CUDA_VISIBLE_DEVICES'] = args.gpu / use_gpu = torch.cuda.is_available() / if args.use_cpu: use_gpu = False /  / pass  # realcode-dropped: sys.stdout = Logger(osp.join(args.save_dir, 'log_' + args.dataset + '.txt')) /  / if use_gpu: / print("Currently using GPU: {}".format(args.gpu)) / cudnn.benchmark = True / torch.cuda.manual_seed_all(args.seed) / else: / print("Currently using CPU") /  / print("Creating dataset: {}".format(args.dataset)) / class dataset:  # realcode: datasets.create's MNIST replaced by one synthetic training batch and one test batch (inputs) / trainloader = [(train_data, train_labels)] / testloader = [(test_data, test_labels)] / num_classes = 10 /  / trainloader, testloader = dataset.trainloader, dataset.testloader /  / print("Creating model: {}".format(args.model)) / model = models.create(name=args.model, num_classes=dataset.num_classes) /  / if use_gpu: / model = nn.DataParallel(model).cuda() /  / criterion_xent = nn.CrossEntropyLoss() / criterion_cent = CenterLoss(num_classes=dataset.num_classes, feat_dim=2, use_gpu=use_gpu) / # %% realcode-load: model criterion_cent / optimizer_model = torch.optim.SGD(model.parameters(), lr=args.lr_model, weight_decay=5e-04, momentum=0.9) / optimizer_centloss = torch.optim.SGD(criterion_cent.parameters(), lr=args.lr_cent) /  / if args.stepsize > 0: / scheduler = lr_scheduler.StepLR(optimizer_model, step_size=args.stepsize, gamma=args.gamma) /  / start_time = time.time() /  / for epoch in range(args.max_epoch): / print("==> Epoch {}/{}".format(epoch+1, args.max_epoch)) / train(model, criterion_xent, criterion_cent, / optimizer_model, optimizer_centloss, / trainloader, use_gpu, dataset.num_classes, epoch) /  / if args.stepsize > 0: scheduler.step() /  / if args.eval_freq > 0 and (epoch+1) % args.eval_freq == 0 or (epoch+1) == args.max_epoch: / print("==> Test") / acc, err = test(model, testloader, use_gpu, dataset.num_classes, epoch) / print("Accuracy (%): {}\t Error rate (%): {}".format(acc, err)) /  / elapsed = round(time.time() - start_time) / elapsed = str(datetime.timedelta(seconds=elapsed)) / print("Finished. Total elapsed time (h:m:s): {}".format(elapsed)) / `: main() is not called; a driver cell built from its body runs it at the top level (the MNIST dataset replaced by one synthetic training batch and one test batch, as the loaders shuffle; CUDA_VISIBLE_DEVICES and the file Logger dropped) with a load marker after the model and the center loss are built
# realcode-input: train_data = randn(8, 1, 28, 28)
# realcode-input: train_labels = randint(0, 10, 8)
# realcode-input: test_data = randn(8, 1, 28, 28)
# realcode-input: test_labels = randint(0, 10, 8)
# realcode-output: model.* criterion_cent.* acc err
# %% realcode: center_loss.py
import torch
import torch.nn as nn

class CenterLoss(nn.Module):
    """Center loss.
    
    Reference:
    Wen et al. A Discriminative Feature Learning Approach for Deep Face Recognition. ECCV 2016.
    
    Args:
        num_classes (int): number of classes.
        feat_dim (int): feature dimension.
    """
    def __init__(self, num_classes=10, feat_dim=2, use_gpu=True):
        super(CenterLoss, self).__init__()
        self.num_classes = num_classes
        self.feat_dim = feat_dim
        self.use_gpu = use_gpu

        if self.use_gpu:
            self.centers = nn.Parameter(torch.randn(self.num_classes, self.feat_dim).cuda())
        else:
            self.centers = nn.Parameter(torch.randn(self.num_classes, self.feat_dim))

    def forward(self, x, labels):
        """
        Args:
            x: feature matrix with shape (batch_size, feat_dim).
            labels: ground truth labels with shape (batch_size).
        """
        batch_size = x.size(0)
        distmat = torch.pow(x, 2).sum(dim=1, keepdim=True).expand(batch_size, self.num_classes) + \
                  torch.pow(self.centers, 2).sum(dim=1, keepdim=True).expand(self.num_classes, batch_size).t()
        distmat.addmm_(1, -2, x, self.centers.t())

        classes = torch.arange(self.num_classes).long()
        if self.use_gpu: classes = classes.cuda()
        labels = labels.unsqueeze(1).expand(batch_size, self.num_classes)
        mask = labels.eq(classes.expand(batch_size, self.num_classes))

        dist = distmat * mask.float()
        loss = dist.clamp(min=1e-12, max=1e+12).sum() / batch_size

        return loss
# %% realcode: models.py
import torch
import torch.nn as nn
from torch.nn import functional as F

import math

class ConvNet(nn.Module):
    """LeNet++ as described in the Center Loss paper."""
    def __init__(self, num_classes):
        super(ConvNet, self).__init__()
        self.conv1_1 = nn.Conv2d(1, 32, 5, stride=1, padding=2)
        self.prelu1_1 = nn.PReLU()
        self.conv1_2 = nn.Conv2d(32, 32, 5, stride=1, padding=2)
        self.prelu1_2 = nn.PReLU()
        
        self.conv2_1 = nn.Conv2d(32, 64, 5, stride=1, padding=2)
        self.prelu2_1 = nn.PReLU()
        self.conv2_2 = nn.Conv2d(64, 64, 5, stride=1, padding=2)
        self.prelu2_2 = nn.PReLU()
        
        self.conv3_1 = nn.Conv2d(64, 128, 5, stride=1, padding=2)
        self.prelu3_1 = nn.PReLU()
        self.conv3_2 = nn.Conv2d(128, 128, 5, stride=1, padding=2)
        self.prelu3_2 = nn.PReLU()
        
        self.fc1 = nn.Linear(128*3*3, 2)
        self.prelu_fc1 = nn.PReLU()
        self.fc2 = nn.Linear(2, num_classes)

    def forward(self, x):
        x = self.prelu1_1(self.conv1_1(x))
        x = self.prelu1_2(self.conv1_2(x))
        x = F.max_pool2d(x, 2)
        
        x = self.prelu2_1(self.conv2_1(x))
        x = self.prelu2_2(self.conv2_2(x))
        x = F.max_pool2d(x, 2)
        
        x = self.prelu3_1(self.conv3_1(x))
        x = self.prelu3_2(self.conv3_2(x))
        x = F.max_pool2d(x, 2)
        
        x = x.view(-1, 128*3*3)
        x = self.prelu_fc1(self.fc1(x))
        y = self.fc2(x)

        return x, y

__factory = {
    'cnn': ConvNet,
}

def create(name, num_classes):
    if name not in __factory.keys():
        raise KeyError("Unknown model: {}".format(name))
    return __factory[name](num_classes)

if __name__ == '__main__':
    pass# %% realcode: main.py
import os
import sys
import argparse
import datetime
import time
import os.path as osp
pass  # realcode-dropped: import matplotlib
pass  # realcode-dropped: matplotlib.use('Agg')
pass  # realcode-dropped: from matplotlib import pyplot as plt
import numpy as np

import torch
import torch.nn as nn
from torch.optim import lr_scheduler
import torch.backends.cudnn as cudnn

pass  # realcode-dropped: import datasets
import types; models = types.SimpleNamespace(create=create)  # realcode-inlined: import models (models.py, pasted above)
# realcode-inlined: from utils import AverageMeter (utils.py's class, pasted here); Logger dropped
class AverageMeter(object):
    """Computes and stores the average and current value.
       
       Code imported from https://github.com/pytorch/examples/blob/master/imagenet/main.py#L247-L262
    """
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count
pass  # realcode-inlined: from center_loss import CenterLoss (pasted above)

class args:  # realcode: the parser's defaults as a class (batch size 128 -> 8, 100 epochs -> 1, stepsize 20 -> 2; one step: from the second on, float32 gradients below fc1 differ by a few percent between PyTorch and the engine while float64 runs agree to 1e-14, the center loss's |x|^2 + |c|^2 - 2x.c cancelling once the centres near their features)
    dataset = 'mnist'
    workers = 4
    batch_size = 8
    lr_model = 0.001
    lr_cent = 0.5
    weight_cent = 1
    max_epoch = 1
    stepsize = 2
    gamma = 0.5
    model = 'cnn'
    eval_freq = 10
    print_freq = 50
    gpu = '0'
    seed = 1
    use_cpu = False
    save_dir = 'log'
    plot = False

def main():
    torch.manual_seed(args.seed)
    os.environ['CUDA_VISIBLE_DEVICES'] = args.gpu
    use_gpu = torch.cuda.is_available()
    if args.use_cpu: use_gpu = False

    sys.stdout = Logger(osp.join(args.save_dir, 'log_' + args.dataset + '.txt'))

    if use_gpu:
        print("Currently using GPU: {}".format(args.gpu))
        cudnn.benchmark = True
        torch.cuda.manual_seed_all(args.seed)
    else:
        print("Currently using CPU")

    print("Creating dataset: {}".format(args.dataset))
    dataset = datasets.create(
        name=args.dataset, batch_size=args.batch_size, use_gpu=use_gpu,
        num_workers=args.workers,
    )

    trainloader, testloader = dataset.trainloader, dataset.testloader

    print("Creating model: {}".format(args.model))
    model = models.create(name=args.model, num_classes=dataset.num_classes)

    if use_gpu:
        model = nn.DataParallel(model).cuda()

    criterion_xent = nn.CrossEntropyLoss()
    criterion_cent = CenterLoss(num_classes=dataset.num_classes, feat_dim=2, use_gpu=use_gpu)
    optimizer_model = torch.optim.SGD(model.parameters(), lr=args.lr_model, weight_decay=5e-04, momentum=0.9)
    optimizer_centloss = torch.optim.SGD(criterion_cent.parameters(), lr=args.lr_cent)

    if args.stepsize > 0:
        scheduler = lr_scheduler.StepLR(optimizer_model, step_size=args.stepsize, gamma=args.gamma)

    start_time = time.time()

    for epoch in range(args.max_epoch):
        print("==> Epoch {}/{}".format(epoch+1, args.max_epoch))
        train(model, criterion_xent, criterion_cent,
              optimizer_model, optimizer_centloss,
              trainloader, use_gpu, dataset.num_classes, epoch)

        if args.stepsize > 0: scheduler.step()

        if args.eval_freq > 0 and (epoch+1) % args.eval_freq == 0 or (epoch+1) == args.max_epoch:
            print("==> Test")
            acc, err = test(model, testloader, use_gpu, dataset.num_classes, epoch)
            print("Accuracy (%): {}\t Error rate (%): {}".format(acc, err))

    elapsed = round(time.time() - start_time)
    elapsed = str(datetime.timedelta(seconds=elapsed))
    print("Finished. Total elapsed time (h:m:s): {}".format(elapsed))

def train(model, criterion_xent, criterion_cent,
          optimizer_model, optimizer_centloss,
          trainloader, use_gpu, num_classes, epoch):
    model.train()
    xent_losses = AverageMeter()
    cent_losses = AverageMeter()
    losses = AverageMeter()
    
    if args.plot:
        all_features, all_labels = [], []

    for batch_idx, (data, labels) in enumerate(trainloader):
        if use_gpu:
            data, labels = data.cuda(), labels.cuda()
        features, outputs = model(data)
        loss_xent = criterion_xent(outputs, labels)
        loss_cent = criterion_cent(features, labels)
        loss_cent *= args.weight_cent
        loss = loss_xent + loss_cent
        optimizer_model.zero_grad()
        optimizer_centloss.zero_grad()
        loss.backward()
        optimizer_model.step()
        # by doing so, weight_cent would not impact on the learning of centers
        for param in criterion_cent.parameters():
            param.grad.data *= (1. / args.weight_cent)
        optimizer_centloss.step()
        
        losses.update(loss.item(), labels.size(0))
        xent_losses.update(loss_xent.item(), labels.size(0))
        cent_losses.update(loss_cent.item(), labels.size(0))

        if args.plot:
            if use_gpu:
                all_features.append(features.data.cpu().numpy())
                all_labels.append(labels.data.cpu().numpy())
            else:
                all_features.append(features.data.numpy())
                all_labels.append(labels.data.numpy())

        if (batch_idx+1) % args.print_freq == 0:
            print("Batch {}/{}\t Loss {:.6f} ({:.6f}) XentLoss {:.6f} ({:.6f}) CenterLoss {:.6f} ({:.6f})" \
                  .format(batch_idx+1, len(trainloader), losses.val, losses.avg, xent_losses.val, xent_losses.avg, cent_losses.val, cent_losses.avg))

    if args.plot:
        all_features = np.concatenate(all_features, 0)
        all_labels = np.concatenate(all_labels, 0)
        plot_features(all_features, all_labels, num_classes, epoch, prefix='train')

def test(model, testloader, use_gpu, num_classes, epoch):
    model.eval()
    correct, total = 0, 0
    if args.plot:
        all_features, all_labels = [], []

    with torch.no_grad():
        for data, labels in testloader:
            if use_gpu:
                data, labels = data.cuda(), labels.cuda()
            features, outputs = model(data)
            predictions = outputs.data.max(1)[1]
            total += labels.size(0)
            correct += (predictions == labels.data).sum()
            
            if args.plot:
                if use_gpu:
                    all_features.append(features.data.cpu().numpy())
                    all_labels.append(labels.data.cpu().numpy())
                else:
                    all_features.append(features.data.numpy())
                    all_labels.append(labels.data.numpy())

    if args.plot:
        all_features = np.concatenate(all_features, 0)
        all_labels = np.concatenate(all_labels, 0)
        plot_features(all_features, all_labels, num_classes, epoch, prefix='test')

    acc = correct * 100. / total
    err = 100. - acc
    return acc, err

def plot_features(features, labels, num_classes, epoch, prefix):
    """Plot features on 2D plane.

    Args:
        features: (num_instances, num_features).
        labels: (num_instances). 
    """
    colors = ['C0', 'C1', 'C2', 'C3', 'C4', 'C5', 'C6', 'C7', 'C8', 'C9']
    for label_idx in range(num_classes):
        plt.scatter(
            features[labels==label_idx, 0],
            features[labels==label_idx, 1],
            c=colors[label_idx],
            s=1,
        )
    plt.legend(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'], loc='upper right')
    dirname = osp.join(args.save_dir, prefix)
    if not osp.exists(dirname):
        os.mkdir(dirname)
    save_name = osp.join(dirname, 'epoch_' + str(epoch+1) + '.png')
    plt.savefig(save_name, bbox_inches='tight')
    plt.close()

if __name__ == '__main__':
    pass  # realcode-dropped: main()
# %% realcode-driver: main()'s body at the top level, so PyTorch's initial weights can be copied in after the models are built
torch.manual_seed(args.seed)
pass  # realcode-dropped: os.environ['CUDA_VISIBLE_DEVICES'] = args.gpu
use_gpu = torch.cuda.is_available()
if args.use_cpu: use_gpu = False

pass  # realcode-dropped: sys.stdout = Logger(osp.join(args.save_dir, 'log_' + args.dataset + '.txt'))

if use_gpu:
    print("Currently using GPU: {}".format(args.gpu))
    cudnn.benchmark = True
    torch.cuda.manual_seed_all(args.seed)
else:
    print("Currently using CPU")

print("Creating dataset: {}".format(args.dataset))
class dataset:  # realcode: datasets.create's MNIST replaced by one synthetic training batch and one test batch (inputs)
    trainloader = [(train_data, train_labels)]
    testloader = [(test_data, test_labels)]
    num_classes = 10

trainloader, testloader = dataset.trainloader, dataset.testloader

print("Creating model: {}".format(args.model))
model = models.create(name=args.model, num_classes=dataset.num_classes)

if use_gpu:
    model = nn.DataParallel(model).cuda()

criterion_xent = nn.CrossEntropyLoss()
criterion_cent = CenterLoss(num_classes=dataset.num_classes, feat_dim=2, use_gpu=use_gpu)
# %% realcode-load: model criterion_cent
optimizer_model = torch.optim.SGD(model.parameters(), lr=args.lr_model, weight_decay=5e-04, momentum=0.9)
optimizer_centloss = torch.optim.SGD(criterion_cent.parameters(), lr=args.lr_cent)

if args.stepsize > 0:
    scheduler = lr_scheduler.StepLR(optimizer_model, step_size=args.stepsize, gamma=args.gamma)

start_time = time.time()

for epoch in range(args.max_epoch):
    print("==> Epoch {}/{}".format(epoch+1, args.max_epoch))
    train(model, criterion_xent, criterion_cent,
          optimizer_model, optimizer_centloss,
          trainloader, use_gpu, dataset.num_classes, epoch)

    if args.stepsize > 0: scheduler.step()

    if args.eval_freq > 0 and (epoch+1) % args.eval_freq == 0 or (epoch+1) == args.max_epoch:
        print("==> Test")
        acc, err = test(model, testloader, use_gpu, dataset.num_classes, epoch)
        print("Accuracy (%): {}\t Error rate (%): {}".format(acc, err))

elapsed = round(time.time() - start_time)
elapsed = str(datetime.timedelta(seconds=elapsed))
print("Finished. Total elapsed time (h:m:s): {}".format(elapsed))
