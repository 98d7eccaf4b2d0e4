# realcode: usuyama/pytorch-unet @ a0ec1374e06ca9161c21781302328b074f19391b
# realcode: https://github.com/usuyama/pytorch-unet/blob/a0ec1374e06ca9161c21781302328b074f19391b/pytorch_unet.py
# realcode: https://github.com/usuyama/pytorch-unet/blob/a0ec1374e06ca9161c21781302328b074f19391b/loss.py
# realcode: https://github.com/usuyama/pytorch-unet/blob/a0ec1374e06ca9161c21781302328b074f19391b/pytorch_unet.ipynb
# realcode: kept as written except for these adaptations:
#   - pytorch_unet.py and loss.py as written (UNet's channel widths smaller: 64, 128, 256, 512 -> 8, 8, 16, 16, each change marked), then the notebook's code cells 1 and 3 to 6; cell 0 (simulation.generate_random_data's images and the helper's plots) and cell 2 (a plot of one batch) are left out
#   - the simulated images and masks (simulation.py draws shapes with random.randint: the session's generator is not CPython's) are synthetic inputs of 16x16 pixels: sim_images as uint8 HWC, sim_masks as 6 float32 masks
#   - torchvision's transforms.ToTensor() as the function it is for a uint8 HWC array (CHW, float, divided by 255); torchsummary's summary() dropped
#   - 2000 / 200 training / validation images -> 4 / 2, batch size 25 -> 4 (the training set is one batch: its shuffle cannot change the loss), 40 epochs -> 3; a load marker after the model of cell 5 is built
#   - cell 6's figures dropped; its predictions are kept
# realcode-input: sim_images = (randint(0, 2, 4, 16, 16, 1) * 255).repeat(3, axis=3).astype('uint8')
# realcode-input: sim_masks = randint(0, 2, 4, 6, 16, 16).astype('float32')
# realcode-output: pred model.* dataset_sizes.train dataset_sizes.val inputs labels
# %% realcode: pytorch_unet.py
import torch
import torch.nn as nn

def double_conv(in_channels, out_channels):
    return nn.Sequential(
        nn.Conv2d(in_channels, out_channels, 3, padding=1),
        nn.ReLU(inplace=True),
        nn.Conv2d(out_channels, out_channels, 3, padding=1),
        nn.ReLU(inplace=True)
    )   


class UNet(nn.Module):

    def __init__(self, n_class):
        super().__init__()
                
        self.dconv_down1 = double_conv(3, 8)  # realcode: double_conv(3, 64)
        self.dconv_down2 = double_conv(8, 8)  # realcode: double_conv(64, 128)
        self.dconv_down3 = double_conv(8, 16)  # realcode: double_conv(128, 256)
        self.dconv_down4 = double_conv(16, 16)  # realcode: double_conv(256, 512)        

        self.maxpool = nn.MaxPool2d(2)
        self.upsample = nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)        
        
        self.dconv_up3 = double_conv(16 + 16, 16)  # realcode: double_conv(256 + 512, 256)
        self.dconv_up2 = double_conv(8 + 16, 8)  # realcode: double_conv(128 + 256, 128)
        self.dconv_up1 = double_conv(8 + 8, 8)  # realcode: double_conv(128 + 64, 64)
        
        self.conv_last = nn.Conv2d(8, n_class, 1)  # realcode: nn.Conv2d(64, n_class, 1)
        
        
    def forward(self, x):
        conv1 = self.dconv_down1(x)
        x = self.maxpool(conv1)

        conv2 = self.dconv_down2(x)
        x = self.maxpool(conv2)
        
        conv3 = self.dconv_down3(x)
        x = self.maxpool(conv3)   
        
        x = self.dconv_down4(x)
        
        x = self.upsample(x)        
        x = torch.cat([x, conv3], dim=1)
        
        x = self.dconv_up3(x)
        x = self.upsample(x)        
        x = torch.cat([x, conv2], dim=1)       

        x = self.dconv_up2(x)
        x = self.upsample(x)        
        x = torch.cat([x, conv1], dim=1)   
        
        x = self.dconv_up1(x)
        
        out = self.conv_last(x)
        
        return out
# %% realcode: loss.py
import torch
import torch.nn as nn

def dice_loss(pred, target, smooth = 1.):
    pred = pred.contiguous()
    target = target.contiguous()    

    intersection = (pred * target).sum(dim=2).sum(dim=2)
    
    loss = (1 - ((2. * intersection + smooth) / (pred.sum(dim=2).sum(dim=2) + target.sum(dim=2).sum(dim=2) + smooth)))
    
    return loss.mean()
# %% realcode: notebook cell 1
import numpy as np
import torch  # realcode: cell 0's imports that cell 1 uses (numpy) and torch for trans
from torch.utils.data import Dataset, DataLoader
pass  # realcode-dropped: from torchvision import transforms, datasets, models

class SimDataset(Dataset):
    def __init__(self, count, transform=None):
        self.input_images, self.target_masks = sim_images[:count].numpy(), sim_masks[:count].numpy()  # realcode: simulation.generate_random_data(192, 192, count=count) as inputs, NumPy arrays as it returns
        self.transform = transform
    
    def __len__(self):
        return len(self.input_images)
    
    def __getitem__(self, idx):        
        image = self.input_images[idx]
        mask = self.target_masks[idx]
        if self.transform:
            image = self.transform(image)
        
        return [image, mask]

# use same transform for train/val for this example
def trans(image):  # realcode: transforms.Compose([transforms.ToTensor()]) (torchvision): HWC uint8 -> CHW float in [0, 1]
    return torch.from_numpy(image.transpose((2, 0, 1)).copy()).float().div(255)

train_set = SimDataset(4, transform = trans)  # realcode: 2000 -> 4 images
val_set = SimDataset(2, transform = trans)  # realcode: 200 -> 2 images

image_datasets = {
    'train': train_set, 'val': val_set
}

batch_size = 4  # realcode: 25 -> 4: the training set is one batch (shuffle=True)

dataloaders = {
    'train': DataLoader(train_set, batch_size=batch_size, shuffle=True, num_workers=0),
    'val': DataLoader(val_set, batch_size=batch_size, shuffle=True, num_workers=0)
}

dataset_sizes = {
    x: len(image_datasets[x]) for x in image_datasets.keys()
}

dataset_sizes
# %% realcode: notebook cell 3
pass  # realcode-dropped: from torchsummary import summary
import torch
import torch.nn as nn
import types; pytorch_unet = types.SimpleNamespace(UNet=UNet)  # realcode-inlined: import pytorch_unet

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

model = pytorch_unet.UNet(6)
model = model.to(device)

pass  # realcode-dropped: summary(model, input_size=(3, 224, 224)) (torchsummary)
# %% realcode: notebook cell 4
from collections import defaultdict
import torch.nn.functional as F
pass  # realcode-inlined: from loss import dice_loss

def calc_loss(pred, target, metrics, bce_weight=0.5):
    bce = F.binary_cross_entropy_with_logits(pred, target)
        
    pred = F.sigmoid(pred)
    dice = dice_loss(pred, target)
    
    loss = bce * bce_weight + dice * (1 - bce_weight)
    
    metrics['bce'] += bce.data.cpu().numpy() * target.size(0)
    metrics['dice'] += dice.data.cpu().numpy() * target.size(0)
    metrics['loss'] += loss.data.cpu().numpy() * target.size(0)
    
    return loss

def print_metrics(metrics, epoch_samples, phase):    
    outputs = []
    for k in metrics.keys():
        outputs.append("{}: {:4f}".format(k, metrics[k] / epoch_samples))
        
    print("{}: {}".format(phase, ", ".join(outputs)))    

def train_model(model, optimizer, scheduler, num_epochs=25):
    best_model_wts = copy.deepcopy(model.state_dict())
    best_loss = 1e10

    for epoch in range(num_epochs):
        print('Epoch {}/{}'.format(epoch, num_epochs - 1))
        print('-' * 10)
        
        since = time.time()

        # Each epoch has a training and validation phase
        for phase in ['train', 'val']:
            if phase == 'train':
                scheduler.step()
                for param_group in optimizer.param_groups:
                    print("LR", param_group['lr'])
                    
                model.train()  # Set model to training mode
            else:
                model.eval()   # Set model to evaluate mode

            metrics = defaultdict(float)
            epoch_samples = 0
            
            for inputs, labels in dataloaders[phase]:
                inputs = inputs.to(device)
                labels = labels.to(device)             

                # zero the parameter gradients
                optimizer.zero_grad()

                # forward
                # track history if only in train
                with torch.set_grad_enabled(phase == 'train'):
                    outputs = model(inputs)
                    loss = calc_loss(outputs, labels, metrics)

                    # backward + optimize only if in training phase
                    if phase == 'train':
                        loss.backward()
                        optimizer.step()

                # statistics
                epoch_samples += inputs.size(0)

            print_metrics(metrics, epoch_samples, phase)
            epoch_loss = metrics['loss'] / epoch_samples

            # deep copy the model
            if phase == 'val' and epoch_loss < best_loss:
                print("saving best model")
                best_loss = epoch_loss
                best_model_wts = copy.deepcopy(model.state_dict())

        time_elapsed = time.time() - since
        print('{:.0f}m {:.0f}s'.format(time_elapsed // 60, time_elapsed % 60))
    print('Best val loss: {:4f}'.format(best_loss))

    # load best model weights
    model.load_state_dict(best_model_wts)
    return model
# %% realcode: notebook cell 5
import torch
import torch.optim as optim
from torch.optim import lr_scheduler
import time
import copy

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
print(device)

num_class = 6

model = pytorch_unet.UNet(num_class).to(device)
# %% realcode-load: model

# Observe that all parameters are being optimized
optimizer_ft = optim.Adam(model.parameters(), lr=1e-4)

exp_lr_scheduler = lr_scheduler.StepLR(optimizer_ft, step_size=25, gamma=0.1)

model = train_model(model, optimizer_ft, exp_lr_scheduler, num_epochs=3)  # realcode: 40 -> 3 epochs
# %% realcode: notebook cell 6
# prediction

import math

model.eval()   # Set model to evaluate mode

test_dataset = SimDataset(3, transform = trans)  # realcode: the first 3 synthetic images
test_loader = DataLoader(test_dataset, batch_size=3, shuffle=False, num_workers=0)
        
inputs, labels = next(iter(test_loader))
inputs = inputs.to(device)
labels = labels.to(device)

pred = model(inputs)

pred = pred.data.cpu().numpy()
print(pred.shape)

pass  # realcode: the figures of the inputs, targets and predictions dropped
