# realcode: cure-lab/LTSF-Linear @ 0c113668a3b88c4c4ee586b8c5ec3e539c4de5a6
# realcode: https://github.com/cure-lab/LTSF-Linear/blob/0c113668a3b88c4c4ee586b8c5ec3e539c4de5a6/models/DLinear.py
# realcode: https://github.com/cure-lab/LTSF-Linear/blob/0c113668a3b88c4c4ee586b8c5ec3e539c4de5a6/models/NLinear.py
# realcode: https://github.com/cure-lab/LTSF-Linear/blob/0c113668a3b88c4c4ee586b8c5ec3e539c4de5a6/exp/exp_main.py
# realcode: kept as written except for these adaptations:
#   - models/DLinear.py and models/NLinear.py as written, one after the other, then a driver cell built from exp_main.py's train(): the configs of run_longExp.py as a class (seq_len 336 -> 48, pred_len 96 -> 12, 7 channels as ETTh1), DLinear shared and individual and NLinear, each trained for 3 Adam(lr=0.005) steps on MSELoss over one synthetic batch of 8 windows (features 'M'), then the eval-mode predictions of a validation batch as vali() makes them
#   - both files define `class Model` (run_longExp.py keeps them apart as DLinear.Model and NLinear.Model): the DLinear models are built in a driver cell right after DLinear.py, before NLinear.py's Model takes the name (`super(Model, self)` looks the name up when a model is built)
# realcode-input: batch_x = randn(8, 48, 7)
# realcode-input: batch_y = randn(8, 12, 7)
# realcode-input: val_x = randn(4, 48, 7)
# realcode-output: dlinear.* dlinear_ind.* nlinear.* losses preds
# %% realcode: models/DLinear.py
import torch
import torch.nn as nn
import torch.nn.functional as F
import numpy as np

class moving_avg(nn.Module):
    """
    Moving average block to highlight the trend of time series
    """
    def __init__(self, kernel_size, stride):
        super(moving_avg, self).__init__()
        self.kernel_size = kernel_size
        self.avg = nn.AvgPool1d(kernel_size=kernel_size, stride=stride, padding=0)

    def forward(self, x):
        # padding on the both ends of time series
        front = x[:, 0:1, :].repeat(1, (self.kernel_size - 1) // 2, 1)
        end = x[:, -1:, :].repeat(1, (self.kernel_size - 1) // 2, 1)
        x = torch.cat([front, x, end], dim=1)
        x = self.avg(x.permute(0, 2, 1))
        x = x.permute(0, 2, 1)
        return x


class series_decomp(nn.Module):
    """
    Series decomposition block
    """
    def __init__(self, kernel_size):
        super(series_decomp, self).__init__()
        self.moving_avg = moving_avg(kernel_size, stride=1)

    def forward(self, x):
        moving_mean = self.moving_avg(x)
        res = x - moving_mean
        return res, moving_mean

class Model(nn.Module):
    """
    Decomposition-Linear
    """
    def __init__(self, configs):
        super(Model, self).__init__()
        self.seq_len = configs.seq_len
        self.pred_len = configs.pred_len

        # Decompsition Kernel Size
        kernel_size = 25
        self.decompsition = series_decomp(kernel_size)
        self.individual = configs.individual
        self.channels = configs.enc_in

        if self.individual:
            self.Linear_Seasonal = nn.ModuleList()
            self.Linear_Trend = nn.ModuleList()
            
            for i in range(self.channels):
                self.Linear_Seasonal.append(nn.Linear(self.seq_len,self.pred_len))
                self.Linear_Trend.append(nn.Linear(self.seq_len,self.pred_len))

                # Use this two lines if you want to visualize the weights
                # self.Linear_Seasonal[i].weight = nn.Parameter((1/self.seq_len)*torch.ones([self.pred_len,self.seq_len]))
                # self.Linear_Trend[i].weight = nn.Parameter((1/self.seq_len)*torch.ones([self.pred_len,self.seq_len]))
        else:
            self.Linear_Seasonal = nn.Linear(self.seq_len,self.pred_len)
            self.Linear_Trend = nn.Linear(self.seq_len,self.pred_len)
            
            # Use this two lines if you want to visualize the weights
            # self.Linear_Seasonal.weight = nn.Parameter((1/self.seq_len)*torch.ones([self.pred_len,self.seq_len]))
            # self.Linear_Trend.weight = nn.Parameter((1/self.seq_len)*torch.ones([self.pred_len,self.seq_len]))

    def forward(self, x):
        # x: [Batch, Input length, Channel]
        seasonal_init, trend_init = self.decompsition(x)
        seasonal_init, trend_init = seasonal_init.permute(0,2,1), trend_init.permute(0,2,1)
        if self.individual:
            seasonal_output = torch.zeros([seasonal_init.size(0),seasonal_init.size(1),self.pred_len],dtype=seasonal_init.dtype).to(seasonal_init.device)
            trend_output = torch.zeros([trend_init.size(0),trend_init.size(1),self.pred_len],dtype=trend_init.dtype).to(trend_init.device)
            for i in range(self.channels):
                seasonal_output[:,i,:] = self.Linear_Seasonal[i](seasonal_init[:,i,:])
                trend_output[:,i,:] = self.Linear_Trend[i](trend_init[:,i,:])
        else:
            seasonal_output = self.Linear_Seasonal(seasonal_init)
            trend_output = self.Linear_Trend(trend_init)

        x = seasonal_output + trend_output
        return x.permute(0,2,1) # to [Batch, Output length, Channel]

# %% realcode: driver cell, the DLinear models (built before NLinear.py rebinds Model)
class configs:   # run_longExp.py's arguments for ETTh1, shorter windows
    seq_len = 48
    label_len = 24
    pred_len = 12
    enc_in = 7
    individual = False
    features = 'M'
    learning_rate = 0.005

class configs_ind(configs):
    individual = True

dlinear = Model(configs)
dlinear_ind = Model(configs_ind)
# %% realcode-load: dlinear dlinear_ind

# %% realcode: models/NLinear.py
import torch
import torch.nn as nn
import torch.nn.functional as F
import numpy as np

class Model(nn.Module):
    """
    Normalization-Linear
    """
    def __init__(self, configs):
        super(Model, self).__init__()
        self.seq_len = configs.seq_len
        self.pred_len = configs.pred_len
        
        # Use this line if you want to visualize the weights
        # self.Linear.weight = nn.Parameter((1/self.seq_len)*torch.ones([self.pred_len,self.seq_len]))
        self.channels = configs.enc_in
        self.individual = configs.individual
        if self.individual:
            self.Linear = nn.ModuleList()
            for i in range(self.channels):
                self.Linear.append(nn.Linear(self.seq_len,self.pred_len))
        else:
            self.Linear = nn.Linear(self.seq_len, self.pred_len)

    def forward(self, x):
        # x: [Batch, Input length, Channel]
        seq_last = x[:,-1:,:].detach()
        x = x - seq_last
        if self.individual:
            output = torch.zeros([x.size(0),self.pred_len,x.size(2)],dtype=x.dtype).to(x.device)
            for i in range(self.channels):
                output[:,:,i] = self.Linear[i](x[:,:,i])
            x = output
        else:
            x = self.Linear(x.permute(0,2,1)).permute(0,2,1)
        x = x + seq_last
        return x # [Batch, Output length, Channel]
nlinear = Model(configs_ind)

# %% realcode: driver cell, exp_main.py's train() and vali() on synthetic windows
import torch.optim as optim

# %% realcode-load: nlinear
criterion = nn.MSELoss()
losses, preds = [], []
for model in (dlinear, dlinear_ind, nlinear):
    model_optim = optim.Adam(model.parameters(), lr=configs.learning_rate)
    model.train()
    for i in range(3):
        model_optim.zero_grad()
        outputs = model(batch_x.float())
        f_dim = -1 if configs.features == 'MS' else 0
        outputs = outputs[:, -configs.pred_len:, f_dim:]
        y = batch_y[:, -configs.pred_len:, f_dim:]
        loss = criterion(outputs, y)
        losses.append(loss.item())
        loss.backward()
        model_optim.step()
    model.eval()
    with torch.no_grad():
        preds.append(model(val_x.float()).detach())
losses = torch.tensor(losses)
preds = torch.stack(preds)
