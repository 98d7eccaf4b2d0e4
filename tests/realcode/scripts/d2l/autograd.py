# realcode: d2l-ai/d2l-en @ 23d7a5aecceee57d1292c56e90cce307f183bb0a
# realcode: https://github.com/d2l-ai/d2l-en/blob/23d7a5aecceee57d1292c56e90cce307f183bb0a/chapter_preliminaries/autograd.md
# realcode: kept as written except for these adaptations:
#   - the code cells of the PyTorch tab (and those shared by all tabs), in order, each after a '# %%' line; the d2lbook `%%tab` lines and `if tab.selected(...)` branches for other frameworks left out
#   - `a = torch.randn(size=(), requires_grad=True)` -> `a = torch.randn(size=(), requires_grad=True) / # %% realcode-load: a`: cell marker: PyTorch's random initial weights / draws above are copied in
# realcode-output: x y a d
# %%
import torch
# %%
x = torch.arange(4.0)
x
# %%
# Can also create x = torch.arange(4.0, requires_grad=True)
x.requires_grad_(True)
x.grad  # The gradient is None by default
# %%
y = 2 * torch.dot(x, x)
y
# %%
y.backward()
x.grad
# %%
x.grad == 4 * x
# %%
x.grad.zero_()  # Reset the gradient
y = x.sum()
y.backward()
x.grad
# %%
x.grad.zero_()
y = x * x
y.backward(gradient=torch.ones(len(y)))  # Faster: y.sum().backward()
x.grad
# %%
x.grad.zero_()
y = x * x
u = y.detach()
z = u * x

z.sum().backward()
x.grad == u
# %%
x.grad.zero_()
y.sum().backward()
x.grad == 2 * x
# %%
def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c
# %%
a = torch.randn(size=(), requires_grad=True)
# %% realcode-load: a
d = f(a)
d.backward()
# %%
a.grad == d / a
