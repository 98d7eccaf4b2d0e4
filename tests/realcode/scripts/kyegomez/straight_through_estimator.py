# realcode: kyegomez/BitNet @ 154f03962e43560df097718dd6771c8c37075776
# realcode: https://github.com/kyegomez/BitNet/blob/154f03962e43560df097718dd6771c8c37075776/bitnet/straight_through_estimator.py
# realcode: kept as written except for these adaptations:
#   - `x = torch.randn(1, 3, 32, 32)` -> `x = torch.randn(1, 3, 32, 32) / # %% realcode-load: x`: cell marker: PyTorch's draw is copied in
#   - a driver cell at the end: the estimator inside a small graph (ste(w * 2.0) weighted by a synthetic target) and a backward pass, so the custom Function's backward is used
# realcode-input: target = randn(1, 3, 32, 32)
# realcode-output: y loss w
"""Straightthorough estimator """

import torch 
import torch.nn as nn


class STEFunc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        return torch.sign(torch.clamp(input, min=-1.0, max=1.0))
    
    @staticmethod
    def backward(ctx, grad_output):
        #Bypass the non differterable operations
        return grad_output
    
class STE(nn.Module):
    def forward(self, input):
        return STEFunc.apply(input)
    

# random input
x = torch.randn(1, 3, 32, 32)
# %% realcode-load: x

# STE
ste = STE()

# forward
y = ste(x)

print(y)

# %% realcode: driver cell: the estimator inside a small graph and a backward pass
w = x.clone().requires_grad_()
loss = (ste(w * 2.0) * target).sum()
loss.backward()
