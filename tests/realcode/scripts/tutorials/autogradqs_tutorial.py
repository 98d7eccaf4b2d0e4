# realcode: pytorch/tutorials @ db77dcf6e3637924f43852c014f2af9978b0f891
# realcode: https://github.com/pytorch/tutorials/blob/db77dcf6e3637924f43852c014f2af9978b0f891/beginner_source/basics/autogradqs_tutorial.py
# realcode: kept as written except for these adaptations:
#   - the module docstring and the prose comment blocks (the tutorial's text, rendered by sphinx-gallery) shortened; every code line kept as written
#   - `b = torch.randn(3, requires_grad=True)` -> the same / `# %% realcode-load: w b`: cell marker: PyTorch's random initial weights are copied in
# realcode-output: x y w b z z_det loss inp out
"""
Automatic Differentiation with ``torch.autograd``
=================================================

(the tutorial's text, shortened)
"""

import torch

x = torch.ones(5)  # input tensor
y = torch.zeros(3)  # expected output
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
# %% realcode-load: w b
z = torch.matmul(x, w)+b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)


######################################################################
# Tensors, Functions and Computational graph
# ------------------------------------------
#
# (the tutorial's text, shortened)
#

print(f"Gradient function for z = {z.grad_fn}")
print(f"Gradient function for loss = {loss.grad_fn}")

######################################################################
# Computing Gradients
# -------------------
#
# (the tutorial's text, shortened)
#

loss.backward()
print(w.grad)
print(b.grad)


######################################################################
# Disabling Gradient Tracking
# ---------------------------
#
# (the tutorial's text, shortened)
#

z = torch.matmul(x, w)+b
print(z.requires_grad)

with torch.no_grad():
    z = torch.matmul(x, w)+b
print(z.requires_grad)


######################################################################
# Another way to achieve the same result is to use the ``detach()`` method
# on the tensor:
#

z = torch.matmul(x, w)+b
z_det = z.detach()
print(z_det.requires_grad)

######################################################################
# Optional Reading: Tensor Gradients and Jacobian Products
# --------------------------------------------------------
#
# (the tutorial's text, shortened)
#

inp = torch.eye(4, 5, requires_grad=True)
out = (inp+1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")
