# realcode: rasbt/machine-learning-book @ 35ab3774e8e249c43a98209d8efd94c060102003
# realcode: https://github.com/rasbt/machine-learning-book/blob/35ab3774e8e249c43a98209d8efd94c060102003/ch12/ch12_part1.py
# realcode: kept as written except for these adaptations:
#   - the script up to the image-file part, lines 349-554 (the image-file part (cat_dog_images via pathlib, PIL, torchvision transforms, CelebA and MNIST downloads, matplotlib), with the notebook's figure cells and the closing converter cell) dropped: they read image folders and download datasets
#   - dropped (the package version check: python_environment_check.py is a helper file in the repository's root (sys is imported only to put it on the path)): `import sys`
#   - dropped (the package version check: python_environment_check.py is a helper file in the repository's root (sys is imported only to put it on the path)): `from python_environment_check import check_packages`
#   - dropped (the package version check: python_environment_check.py is a helper file in the repository's root (sys is imported only to put it on the path)): `sys.path.insert(0, '..')`
#   - dropped (the package version check: python_environment_check.py is a helper file in the repository's root (sys is imported only to put it on the path)): `check_packages(d)`
#   - dropped (used only by the image-file part (cat_dog_images via pathlib, PIL, torchvision transforms, CelebA and MNIST downloads, matplotlib)): `import pathlib`
#   - dropped (plotting): `import matplotlib.pyplot as plt`
#   - dropped (used only by the image-file part (cat_dog_images via pathlib, PIL, torchvision transforms, CelebA and MNIST downloads, matplotlib) (os.path.basename)): `import os`
#   - dropped (used only by the image-file part (cat_dog_images via pathlib, PIL, torchvision transforms, CelebA and MNIST downloads, matplotlib)): `from PIL import Image`
#   - dropped (used only by the image-file part (cat_dog_images via pathlib, PIL, torchvision transforms, CelebA and MNIST downloads, matplotlib)): `import torchvision.transforms as transforms`
#   - dropped (used only by the image-file part (cat_dog_images via pathlib, PIL, torchvision transforms, CelebA and MNIST downloads, matplotlib)): `import torchvision`
#   - dropped (figures shown in the notebook (IPythonImage is not defined in the exported script)): `IPythonImage(filename='figures/12_01.png', width=500)`
#   - dropped (figures shown in the notebook): `IPythonImage(filename='figures/12_02.png', width=500)`
#   - `t2 = torch.normal(mean=0, std=1, size=(5, 2))` -> `t2 = torch.normal(mean=0, std=1, size=(5, 2)) / # %% realcode-load: t1 t2`: cell marker: PyTorch's random draws are copied in
#   - `t = torch.rand(3, 5)` -> `t = torch.rand(3, 5) / # %% realcode-load: t`: cell marker: PyTorch's random draw is copied in
#   - `t = torch.rand(6)` -> `t = torch.rand(6) / # %% realcode-load: t`: cell marker: PyTorch's random draw is copied in
#   - `t = torch.rand(5)` -> `t = torch.rand(5) / # %% realcode-load: t`: cell marker: PyTorch's random draw is copied in
#   - `t_x = torch.rand([4, 3], dtype=torch.float32)` -> `t_x = torch.rand([4, 3], dtype=torch.float32) / # %% realcode-load: t_x`: cell marker: PyTorch's random draw is copied in
# realcode-output: t_a t_b t_ones rand_tensor t_a_new t_tr t_reshape t_sqz t1 t2 t3 t4 t5 t6 norm_t1 t_splits.0 t_splits.1 C S item example.0 example.1 batch.0 batch.1 t_x t_y
# realcode-shape-only: rand_tensor batch.0 batch.1 (rand_tensor: the session's draw, printed only; batch: DataLoader's shuffle draws from the session's generator)
# coding: utf-8


pass  # realcode-dropped: import sys
pass  # realcode-dropped: from python_environment_check import check_packages
import torch
import numpy as np
from torch.utils.data import DataLoader
from torch.utils.data import Dataset
from torch.utils.data import TensorDataset
pass  # realcode-dropped: import pathlib
pass  # realcode-dropped: import matplotlib.pyplot as plt
pass  # realcode-dropped: import os
pass  # realcode-dropped: from PIL import Image
pass  # realcode-dropped: import torchvision.transforms as transforms
pass  # realcode-dropped: import torchvision
from itertools import islice

# # Machine Learning with PyTorch and Scikit-Learn  
# # -- Code Examples

# ## Package version checks

# Add folder to path in order to load from the check_packages.py script:



pass  # realcode-dropped: sys.path.insert(0, '..')


# Check recommended package versions:





d = {
    'numpy': '1.21.2',
    'matplotlib': '3.4.3',
    'torch': '1.9.0',
}
pass  # realcode-dropped: check_packages(d)


# # Chapter 12: Parallelizing Neural Network Training with PyTorch (Part 1/2)
# 

# - [PyTorch and training performance](#PyTorch-and-training-performance)
#   - [Performance challenges](#Performance-challenges)
#   - [What is PyTorch?](#What-is-PyTorch?)
#   - [How we will learn PyTorch](#How-we-will-learn-PyTorch)
# - [First steps with PyTorch](#First-steps-with-PyTorch)
#   - [Installing PyTorch](#Installing-PyTorch)
#   - [Creating tensors in PyTorch](#Creating-tensors-in-PyTorch)
#   - [Manipulating the data type and shape of a tensor](#Manipulating-the-data-type-and-shape-of-a-tensor)
#   - [Applying mathematical operations to tensors](#Applying-mathematical-operations-to-tensors)
#   - [Split, stack, and concatenate tensors](#Split,-stack,-and-concatenate-tensors)

# Note that the optional watermark extension is a small IPython notebook plugin that I developed to make the code reproducible. You can just skip the following line(s).





# ## PyTorch and training performance

# ### Performance challenges



pass  # realcode-dropped: IPythonImage(filename='figures/12_01.png', width=500)


# ### What is PyTorch?



pass  # realcode-dropped: IPythonImage(filename='figures/12_02.png', width=500)


# ### How we will learn PyTorch

# ## First steps with PyTorch

# ### Installing PyTorch



#! pip install torch





print('PyTorch version:', torch.__version__)

np.set_printoptions(precision=3)






# ### Creating tensors in PyTorch



a = [1, 2, 3]
b = np.array([4, 5, 6], dtype=np.int32)

t_a = torch.tensor(a)
t_b = torch.from_numpy(b)

print(t_a)
print(t_b)




torch.is_tensor(a), torch.is_tensor(t_a)




t_ones = torch.ones(2, 3)

t_ones.shape




print(t_ones)




rand_tensor = torch.rand(2,3)

print(rand_tensor)


# ### Manipulating the data type and shape of a tensor



t_a_new = t_a.to(torch.int64)

print(t_a_new.dtype)




t = torch.rand(3, 5)
# %% realcode-load: t

t_tr = torch.transpose(t, 0, 1)
print(t.shape, ' --> ', t_tr.shape)




t = torch.zeros(30)

t_reshape = t.reshape(5, 6)

print(t_reshape.shape)




t = torch.zeros(1, 2, 1, 4, 1)

t_sqz = torch.squeeze(t, 2)

print(t.shape, ' --> ', t_sqz.shape)


# ### Applying mathematical operations to tensors



torch.manual_seed(1)

t1 = 2 * torch.rand(5, 2) - 1
t2 = torch.normal(mean=0, std=1, size=(5, 2))
# %% realcode-load: t1 t2




t3 = torch.multiply(t1, t2)
print(t3)




t4 = torch.mean(t1, axis=0)
print(t4)




t5 = torch.matmul(t1, torch.transpose(t2, 0, 1))

print(t5)




t6 = torch.matmul(torch.transpose(t1, 0, 1), t2)

print(t6)




norm_t1 = torch.linalg.norm(t1, ord=2, dim=1)

print(norm_t1)




np.sqrt(np.sum(np.square(t1.numpy()), axis=1))


# ### Split, stack, and concatenate tensors



torch.manual_seed(1)

t = torch.rand(6)
# %% realcode-load: t

print(t)

t_splits = torch.chunk(t, 3)

[item.numpy() for item in t_splits]




torch.manual_seed(1)
t = torch.rand(5)
# %% realcode-load: t

print(t)

t_splits = torch.split(t, split_size_or_sections=[3, 2])
 
[item.numpy() for item in t_splits]




A = torch.ones(3)
B = torch.zeros(2)

C = torch.cat([A, B], axis=0)
print(C)




A = torch.ones(3)
B = torch.zeros(3)

S = torch.stack([A, B], axis=1)
print(S)


# ## Building input pipelines in PyTorch

# ### Creating a PyTorch DataLoader from existing tensors




t = torch.arange(6, dtype=torch.float32)
data_loader = DataLoader(t)




for item in data_loader:
    print(item)




data_loader = DataLoader(t, batch_size=3, drop_last=False)

for i, batch in enumerate(data_loader, 1):
    print(f'batch {i}:', batch)


# ### Combining two tensors into a joint dataset




class JointDataset(Dataset):
    def __init__(self, x, y):
        self.x = x
        self.y = y
    def __len__(self):
        return len(self.x)
    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]




torch.manual_seed(1)

t_x = torch.rand([4, 3], dtype=torch.float32)
# %% realcode-load: t_x
t_y = torch.arange(4)
joint_dataset = JointDataset(t_x, t_y)

# Or use TensorDataset directly
joint_dataset = TensorDataset(t_x, t_y)

for example in joint_dataset:
    print('  x: ', example[0], 
          '  y: ', example[1])


# ### Shuffle, batch, and repeat



torch.manual_seed(1)
data_loader = DataLoader(dataset=joint_dataset, batch_size=2, shuffle=True)

for i, batch in enumerate(data_loader, 1):
        print(f'batch {i}:', 'x:', batch[0], 
              '\n         y:', batch[1])
        
for epoch in range(2):
    print(f'epoch {epoch+1}')
    for i, batch in enumerate(data_loader, 1):
        print(f'batch {i}:', 'x:', batch[0], 
              '\n         y:', batch[1])


# ### Creating a dataset from files on your local storage disk




