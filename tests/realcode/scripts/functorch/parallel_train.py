# realcode: pytorch/functorch @ 5a63b387e3c05fc255f8b39aa7144b222b406f9a
# realcode: https://github.com/pytorch/functorch/blob/5a63b387e3c05fc255f8b39aa7144b222b406f9a/examples/ensembling/parallel_train.py
# realcode: kept as written except for these adaptations:
#   - examples/ensembling/parallel_train.py as written, run with its default device
#   - `parser = argparse.ArgumentParser(description="Functorch Ensembled Models") / parser.add_argument( / "--device", / type=str, / default="cpu", / help="CPU or GPU ID for this process (default: 'cpu')", / ) / args = parser.parse_args()` -> `class args:  # realcode: argparse's default / device = "cpu"`: drop argparse: its default as a class
#   - `points, labels = make_spirals(100, noise_std=0.05)` -> `points, labels = spiral_points, spiral_labels  # realcode: make_spirals(100, noise_std=0.05) as inputs`: make_spirals' points (torch.randint signs and torch.randn noise, the session's draws) are inputs: 100 points of the two spirals, made with NumPy
#   - `func_model, weights = make_functional(MLPClassifier().to(DEVICE))` -> `func_model, weights = make_functional(MLPClassifier().to(DEVICE)) / # %% realcode-load: weights`: cell marker: PyTorch's initial weights are copied in
#   - `for i in range(2000): / loss, weights = train_step_fn(weights, points, labels) / if i % 100 == 0:` -> `for i in range(20):  # realcode: 2000 -> 20 / loss, weights = train_step_fn(weights, points, labels) / if i % 5 == 0:  # realcode: 100 -> 5`: step 4: 2000 steps -> 20, printing every 5
#   - `for i in range(2000): / loss, batched_weights = parallel_train_step_fn(batched_weights, points, labels) / if i % 200 == 0: / print(loss)` -> `for i in range(10):  # realcode: 2000 -> 10 / loss, batched_weights = parallel_train_step_fn(batched_weights, points, labels) / if i % 5 == 0:  # realcode: 200 -> 5 / print(loss) / return loss, batched_weights  # realcode: kept for comparison`: step 6: 2000 steps -> 10, printing every 5; its last loss and weights returned to be compared
#   - `step6()` -> `loss6, batched_weights = step6()  # realcode: its result kept / loss4 = train_step_fn(weights, points, labels)[0]  # realcode: step 4's loss after training`: step 6's result and step 4's final loss kept for comparison
# realcode-input: t_ = np.linspace(0, 1, 100)
# realcode-input: sign_ = randint(0, 2, 100) * 2 - 1
# realcode-input: spiral_points = np.stack([t_ ** 0.5 * sign_ * np.cos(t_ ** 0.5 * 2 * np.pi) + normal(0, 0.05, 100, dtype='float64'), t_ ** 0.5 * sign_ * np.sin(t_ ** 0.5 * 2 * np.pi) + normal(0, 0.05, 100, dtype='float64')], 1).astype('float32')
# realcode-input: spiral_labels = (sign_ > 0).astype('int64')
# realcode-output: loss4 weights.0 weights.1 weights.2 weights.3 loss6 batched_weights.0 batched_weights.3
# realcode-shape-only: loss6 batched_weights (step 6's models are built inside init_fn: their weights are the session's own draws)
# %% realcode: examples/ensembling/parallel_train.py
import argparse
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from functorch import make_functional, grad_and_value, vmap, combine_state_for_ensemble

# Adapted from http://willwhitney.com/parallel-training-jax.html
# The original code comes with the following citation:
# @misc{Whitney2021Parallelizing,
#     author = {William F. Whitney},
#     title = { {Parallelizing neural networks on one GPU with JAX} },
#     year = {2021},
#     url = {http://willwhitney.com/parallel-training-jax.html},
# }

# GOAL: Demonstrate that it is possible to use eager-mode vmap
# to parallelize training over models.

class args:  # realcode: argparse's default
    device = "cpu"


DEVICE = args.device

# Step 1: Make some spirals


def make_spirals(n_samples, noise_std=0., rotations=1.):
    ts = torch.linspace(0, 1, n_samples, device=DEVICE)
    rs = ts ** 0.5
    thetas = rs * rotations * 2 * math.pi
    signs = torch.randint(0, 2, (n_samples,), device=DEVICE) * 2 - 1
    labels = (signs > 0).to(torch.long).to(DEVICE)

    xs = rs * signs * torch.cos(thetas) + torch.randn(n_samples, device=DEVICE) * noise_std
    ys = rs * signs * torch.sin(thetas) + torch.randn(n_samples, device=DEVICE) * noise_std
    points = torch.stack([xs, ys], dim=1)
    return points, labels


points, labels = spiral_points, spiral_labels  # realcode: make_spirals(100, noise_std=0.05) as inputs


# Step 2: Define two-layer MLP and loss function
class MLPClassifier(nn.Module):
    def __init__(self, hidden_dim=32, n_classes=2):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.n_classes = n_classes

        self.fc1 = nn.Linear(2, self.hidden_dim)
        self.fc2 = nn.Linear(self.hidden_dim, self.n_classes)

    def forward(self, x):
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        x = F.log_softmax(x, -1)
        return x


loss_fn = nn.NLLLoss()

# Step 3: Make the model functional(!!) and define a training function.
# NB: this mechanism doesn't exist in PyTorch today, but we want it to:
# https://github.com/pytorch/pytorch/issues/49171
func_model, weights = make_functional(MLPClassifier().to(DEVICE))
# %% realcode-load: weights


def train_step_fn(weights, batch, targets, lr=0.2):
    def compute_loss(weights, batch, targets):
        output = func_model(weights, batch)
        loss = loss_fn(output, targets)
        return loss

    grad_weights, loss = grad_and_value(compute_loss)(weights, batch, targets)

    # NB: PyTorch is missing a "functional optimizer API" (possibly coming soon)
    # so we are going to re-implement SGD here.
    new_weights = []
    with torch.no_grad():
        for grad_weight, weight in zip(grad_weights, weights):
            new_weights.append(weight - grad_weight * lr)

    return loss, new_weights


# Step 4: Let's verify this actually trains.
# We should see the loss decrease.
def step4():
    global weights
    for i in range(20):  # realcode: 2000 -> 20
        loss, weights = train_step_fn(weights, points, labels)
        if i % 5 == 0:  # realcode: 100 -> 5
            print(loss)


step4()

# Step 5: We're ready for multiple models. Let's define an init_fn
# that, given a number of models, returns to us all of the weights.


def init_fn(num_models):
    models = [MLPClassifier().to(DEVICE) for _ in range(num_models)]
    _, params, _ = combine_state_for_ensemble(models)
    return params

# Step 6: Now, can we try multiple models at the same time?
# The answer is: yes! `loss` is a 2-tuple, and we can see that the value keeps
# on decreasing


def step6():
    parallel_train_step_fn = vmap(train_step_fn, in_dims=(0, None, None))
    batched_weights = init_fn(num_models=2)
    for i in range(10):  # realcode: 2000 -> 10
        loss, batched_weights = parallel_train_step_fn(batched_weights, points, labels)
        if i % 5 == 0:  # realcode: 200 -> 5
            print(loss)
    return loss, batched_weights  # realcode: kept for comparison


loss6, batched_weights = step6()  # realcode: its result kept
loss4 = train_step_fn(weights, points, labels)[0]  # realcode: step 4's loss after training

# Step 7: Now, the flaw with step 6 is that we were training on the same exact
# data. This can lead to all of the models in the ensemble overfitting in the
# same way. The solution that http://willwhitney.com/parallel-training-jax.html
# applies is to randomly subset the data in a way that the models do not recieve
# exactly the same data in each training step!
# Because the goal of this doc is to show that we can use eager-mode vmap to
# achieve similar things as JAX, the rest of this is left as an exercise to the reader.

# In conclusion, to achieve what http://willwhitney.com/parallel-training-jax.html
# does, we used the following additional items that PyTorch does not have:
# 1. NN module functional API that turns a module into a (state, state_less_fn) pair
# 2. Functional optimizers
# 3. A "functional" grad API (that effectively wraps autograd.grad)
# 4. Composability between the functional grad API and torch.vmap.
