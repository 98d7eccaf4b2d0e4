# realcode: Spijkervet/SimCLR @ 2738efae85b3ca1b70b7919c5d7a7837d9d75235
# realcode: https://github.com/Spijkervet/SimCLR/blob/2738efae85b3ca1b70b7919c5d7a7837d9d75235/simclr/modules/identity.py
# realcode: https://github.com/Spijkervet/SimCLR/blob/2738efae85b3ca1b70b7919c5d7a7837d9d75235/simclr/modules/gather.py
# realcode: https://github.com/Spijkervet/SimCLR/blob/2738efae85b3ca1b70b7919c5d7a7837d9d75235/simclr/modules/nt_xent.py
# realcode: https://github.com/Spijkervet/SimCLR/blob/2738efae85b3ca1b70b7919c5d7a7837d9d75235/simclr/modules/lars.py
# realcode: https://github.com/Spijkervet/SimCLR/blob/2738efae85b3ca1b70b7919c5d7a7837d9d75235/simclr/modules/logistic_regression.py
# realcode: https://github.com/Spijkervet/SimCLR/blob/2738efae85b3ca1b70b7919c5d7a7837d9d75235/simclr/simclr.py
# realcode: https://github.com/Spijkervet/SimCLR/blob/2738efae85b3ca1b70b7919c5d7a7837d9d75235/model.py
# realcode: https://github.com/Spijkervet/SimCLR/blob/2738efae85b3ca1b70b7919c5d7a7837d9d75235/main.py
# realcode: https://github.com/Spijkervet/SimCLR/blob/2738efae85b3ca1b70b7919c5d7a7837d9d75235/linear_evaluation.py
# realcode: https://github.com/Spijkervet/SimCLR/blob/2738efae85b3ca1b70b7919c5d7a7837d9d75235/config/config.yaml
# realcode: kept as written except for these adaptations:
#   - simclr/modules/{identity,gather,nt_xent,lars,logistic_regression}.py, simclr/simclr.py and model.py as written, each after a '# %%' line; imports of the package's own modules -> `pass  # realcode-inlined: ... (pasted above)`; simclr.py's `import torchvision` and its import of resnet_hacks' modify_resnet_model dropped (unused there)
#   - main.py: train() as written except `x_i = x_i.cuda(non_blocking=True)` and `x_j = x_j.cuda(non_blocking=True)` -> `.cuda(non_blocking=True)` left out (the CPU), and the SummaryWriter's add_scalar dropped; main() -> a driver cell with config/config.yaml's values as a class (batch 128 -> 8, 100 epochs -> 3, image size 224 -> 16; optimizer 'Adam' as configured), TransformsSimCLR's augmented CIFAR-10 pairs -> one synthetic batch of view pairs (inputs), get_resnet's torchvision resnet18 (torchvision is in neither environment) -> a small conv encoder with the fc layer SimCLR replaces; the DDP/DataParallel, SummaryWriter and save_model calls dropped
#   - linear_evaluation.py: inference, get_features, create_data_loaders_from_arrays, train and test as written; its __main__ -> a driver cell (the trained SimCLR model in place of the checkpoint it loads, synthetic labelled train/test batches, logistic_epochs 500 -> 5, logistic_batch_size 256 -> 8); the logistic regression is named logreg there (the script's model is the SimCLR model of the cell before)
#   - a load marker after the encoder and SimCLR model are built, and after the logistic regression is
# realcode-input: x_i = randn(8, 3, 16, 16)
# realcode-input: x_j = x_i + normal(0, 0.1, 8, 3, 16, 16)
# realcode-input: lin_x = randn(16, 3, 16, 16)
# realcode-input: lin_y = randint(0, 10, 16)
# realcode-output: losses model.* train_X test_X lin_losses lin_accs final_loss final_acc logreg.*
# realcode-rtol: 2e-4 (lin_losses, lin_accs, final_loss and final_acc are Python floats read from float32 tensors by item(): float32's tolerance)
# %% realcode: simclr/modules/identity.py
import torch.nn as nn


class Identity(nn.Module):
    def __init__(self):
        super(Identity, self).__init__()

    def forward(self, x):
        return x
# %% realcode: simclr/modules/gather.py
import torch
import torch.distributed as dist


class GatherLayer(torch.autograd.Function):
    """Gather tensors from all process, supporting backward propagation."""

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        output = [torch.zeros_like(input) for _ in range(dist.get_world_size())]
        dist.all_gather(output, input)
        return tuple(output)

    @staticmethod
    def backward(ctx, *grads):
        (input,) = ctx.saved_tensors
        grad_out = torch.zeros_like(input)
        grad_out[:] = grads[dist.get_rank()]
        return grad_out
# %% realcode: simclr/modules/nt_xent.py
import torch
import torch.nn as nn
import torch.distributed as dist
pass  # realcode-inlined: from .gather import GatherLayer (pasted above)


class NT_Xent(nn.Module):
    def __init__(self, batch_size, temperature, world_size):
        super(NT_Xent, self).__init__()
        self.batch_size = batch_size
        self.temperature = temperature
        self.world_size = world_size

        self.mask = self.mask_correlated_samples(batch_size, world_size)
        self.criterion = nn.CrossEntropyLoss(reduction="sum")
        self.similarity_f = nn.CosineSimilarity(dim=2)

    def mask_correlated_samples(self, batch_size, world_size):
        N = 2 * batch_size * world_size
        mask = torch.ones((N, N), dtype=bool)
        mask = mask.fill_diagonal_(0)
        for i in range(batch_size * world_size):
            mask[i, batch_size * world_size + i] = 0
            mask[batch_size * world_size + i, i] = 0
        return mask

    def forward(self, z_i, z_j):
        """
        We do not sample negative examples explicitly.
        Instead, given a positive pair, similar to (Chen et al., 2017), we treat the other 2(N − 1) augmented examples within a minibatch as negative examples.
        """
        N = 2 * self.batch_size * self.world_size

        if self.world_size > 1:
            z_i = torch.cat(GatherLayer.apply(z_i), dim=0)
            z_j = torch.cat(GatherLayer.apply(z_j), dim=0)
        z = torch.cat((z_i, z_j), dim=0)

        sim = self.similarity_f(z.unsqueeze(1), z.unsqueeze(0)) / self.temperature

        sim_i_j = torch.diag(sim, self.batch_size * self.world_size)
        sim_j_i = torch.diag(sim, -self.batch_size * self.world_size)

        # We have 2N samples, but with Distributed training every GPU gets N examples too, resulting in: 2xNxN
        positive_samples = torch.cat((sim_i_j, sim_j_i), dim=0).reshape(N, 1)
        negative_samples = sim[self.mask].reshape(N, -1)

        labels = torch.zeros(N).to(positive_samples.device).long()
        logits = torch.cat((positive_samples, negative_samples), dim=1)
        loss = self.criterion(logits, labels)
        loss /= N
        return loss
# %% realcode: simclr/modules/lars.py
"""
LARS: Layer-wise Adaptive Rate Scaling

Converted from TensorFlow to PyTorch
https://github.com/google-research/simclr/blob/master/lars_optimizer.py
"""

import torch
from torch.optim.optimizer import Optimizer, required
import re

EETA_DEFAULT = 0.001


class LARS(Optimizer):
    """
    Layer-wise Adaptive Rate Scaling for large batch training.
    Introduced by "Large Batch Training of Convolutional Networks" by Y. You,
    I. Gitman, and B. Ginsburg. (https://arxiv.org/abs/1708.03888)
    """

    def __init__(
        self,
        params,
        lr=required,
        momentum=0.9,
        use_nesterov=False,
        weight_decay=0.0,
        exclude_from_weight_decay=None,
        exclude_from_layer_adaptation=None,
        classic_momentum=True,
        eeta=EETA_DEFAULT,
    ):
        """Constructs a LARSOptimizer.
        Args:
        lr: A `float` for learning rate.
        momentum: A `float` for momentum.
        use_nesterov: A 'Boolean' for whether to use nesterov momentum.
        weight_decay: A `float` for weight decay.
        exclude_from_weight_decay: A list of `string` for variable screening, if
            any of the string appears in a variable's name, the variable will be
            excluded for computing weight decay. For example, one could specify
            the list like ['batch_normalization', 'bias'] to exclude BN and bias
            from weight decay.
        exclude_from_layer_adaptation: Similar to exclude_from_weight_decay, but
            for layer adaptation. If it is None, it will be defaulted the same as
            exclude_from_weight_decay.
        classic_momentum: A `boolean` for whether to use classic (or popular)
            momentum. The learning rate is applied during momeuntum update in
            classic momentum, but after momentum for popular momentum.
        eeta: A `float` for scaling of learning rate when computing trust ratio.
        name: The name for the scope.
        """

        self.epoch = 0
        defaults = dict(
            lr=lr,
            momentum=momentum,
            use_nesterov=use_nesterov,
            weight_decay=weight_decay,
            exclude_from_weight_decay=exclude_from_weight_decay,
            exclude_from_layer_adaptation=exclude_from_layer_adaptation,
            classic_momentum=classic_momentum,
            eeta=eeta,
        )

        super(LARS, self).__init__(params, defaults)
        self.lr = lr
        self.momentum = momentum
        self.weight_decay = weight_decay
        self.use_nesterov = use_nesterov
        self.classic_momentum = classic_momentum
        self.eeta = eeta
        self.exclude_from_weight_decay = exclude_from_weight_decay
        # exclude_from_layer_adaptation is set to exclude_from_weight_decay if the
        # arg is None.
        if exclude_from_layer_adaptation:
            self.exclude_from_layer_adaptation = exclude_from_layer_adaptation
        else:
            self.exclude_from_layer_adaptation = exclude_from_weight_decay

    def step(self, epoch=None, closure=None):
        loss = None
        if closure is not None:
            loss = closure()

        if epoch is None:
            epoch = self.epoch
            self.epoch += 1

        for group in self.param_groups:
            weight_decay = group["weight_decay"]
            momentum = group["momentum"]
            eeta = group["eeta"]
            lr = group["lr"]

            for p in group["params"]:
                if p.grad is None:
                    continue

                param = p.data
                grad = p.grad.data

                param_state = self.state[p]

                # TODO: get param names
                # if self._use_weight_decay(param_name):
                grad += self.weight_decay * param

                if self.classic_momentum:
                    trust_ratio = 1.0

                    # TODO: get param names
                    # if self._do_layer_adaptation(param_name):
                    w_norm = torch.norm(param)
                    g_norm = torch.norm(grad)

                    device = g_norm.get_device()
                    trust_ratio = torch.where(
                        w_norm.ge(0),
                        torch.where(
                            g_norm.ge(0),
                            (self.eeta * w_norm / g_norm),
                            torch.Tensor([1.0]).to(device),
                        ),
                        torch.Tensor([1.0]).to(device),
                    ).item()

                    scaled_lr = lr * trust_ratio
                    if "momentum_buffer" not in param_state:
                        next_v = param_state["momentum_buffer"] = torch.zeros_like(
                            p.data
                        )
                    else:
                        next_v = param_state["momentum_buffer"]

                    next_v.mul_(momentum).add_(scaled_lr, grad)
                    if self.use_nesterov:
                        update = (self.momentum * next_v) + (scaled_lr * grad)
                    else:
                        update = next_v

                    p.data.add_(-update)
                else:
                    raise NotImplementedError

        return loss

    def _use_weight_decay(self, param_name):
        """Whether to use L2 weight decay for `param_name`."""
        if not self.weight_decay:
            return False
        if self.exclude_from_weight_decay:
            for r in self.exclude_from_weight_decay:
                if re.search(r, param_name) is not None:
                    return False
        return True

    def _do_layer_adaptation(self, param_name):
        """Whether to do layer-wise learning rate adaptation for `param_name`."""
        if self.exclude_from_layer_adaptation:
            for r in self.exclude_from_layer_adaptation:
                if re.search(r, param_name) is not None:
                    return False
        return True
# %% realcode: simclr/modules/logistic_regression.py
import torch.nn as nn


class LogisticRegression(nn.Module):
    def __init__(self, n_features, n_classes):
        super(LogisticRegression, self).__init__()

        self.model = nn.Linear(n_features, n_classes)

    def forward(self, x):
        return self.model(x)
# %% realcode: simclr/simclr.py
import torch.nn as nn
pass  # realcode-dropped: import torchvision (unused here)

pass  # realcode-dropped: from simclr.modules.resnet_hacks import modify_resnet_model (unused here)
pass  # realcode-inlined: from simclr.modules.identity import Identity (pasted above)


class SimCLR(nn.Module):
    """
    We opt for simplicity and adopt the commonly used ResNet (He et al., 2016) to obtain hi = f(x ̃i) = ResNet(x ̃i) where hi ∈ Rd is the output after the average pooling layer.
    """

    def __init__(self, encoder, projection_dim, n_features):
        super(SimCLR, self).__init__()

        self.encoder = encoder
        self.n_features = n_features

        # Replace the fc layer with an Identity function
        self.encoder.fc = Identity()

        # We use a MLP with one hidden layer to obtain z_i = g(h_i) = W(2)σ(W(1)h_i) where σ is a ReLU non-linearity.
        self.projector = nn.Sequential(
            nn.Linear(self.n_features, self.n_features, bias=False),
            nn.ReLU(),
            nn.Linear(self.n_features, projection_dim, bias=False),
        )

    def forward(self, x_i, x_j):
        h_i = self.encoder(x_i)
        h_j = self.encoder(x_j)

        z_i = self.projector(h_i)
        z_j = self.projector(h_j)
        return h_i, h_j, z_i, z_j
# %% realcode: model.py
import os
import torch

pass  # realcode-inlined: from simclr import SimCLR (pasted above)
pass  # realcode-inlined: from simclr.modules import LARS (pasted above)


def load_optimizer(args, model):

    scheduler = None
    if args.optimizer == "Adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)  # TODO: LARS
    elif args.optimizer == "LARS":
        # optimized using LARS with linear learning rate scaling
        # (i.e. LearningRate = 0.3 × BatchSize/256) and weight decay of 10−6.
        learning_rate = 0.3 * args.batch_size / 256
        optimizer = LARS(
            model.parameters(),
            lr=learning_rate,
            weight_decay=args.weight_decay,
            exclude_from_weight_decay=["batch_normalization", "bias"],
        )

        # "decay the learning rate with the cosine decay schedule without restarts"
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(
            optimizer, args.epochs, eta_min=0, last_epoch=-1
        )
    else:
        raise NotImplementedError

    return optimizer, scheduler


def save_model(args, model, optimizer):
    out = os.path.join(args.model_path, "checkpoint_{}.tar".format(args.current_epoch))

    # To save a DataParallel model generically, save the model.module.state_dict().
    # This way, you have the flexibility to load the model any way you want to any device you want.
    if isinstance(model, torch.nn.DataParallel):
        torch.save(model.module.state_dict(), out)
    else:
        torch.save(model.state_dict(), out)
# %% realcode: main.py's train()
import os
import numpy as np
import torch

def train(args, train_loader, model, criterion, optimizer, writer):
    loss_epoch = 0
    for step, ((x_i, x_j), _) in enumerate(train_loader):
        optimizer.zero_grad()
        x_i = x_i  # realcode: .cuda(non_blocking=True) left out (the CPU)
        x_j = x_j  # realcode: .cuda(non_blocking=True) left out (the CPU)

        # positive pair, with encoding
        h_i, h_j, z_i, z_j = model(x_i, x_j)

        loss = criterion(z_i, z_j)
        loss.backward()

        optimizer.step()

        if dist.is_available() and dist.is_initialized():
            loss = loss.data.clone()
            dist.all_reduce(loss.div_(dist.get_world_size()))

        if args.nr == 0 and step % 50 == 0:
            print(f"Step [{step}/{len(train_loader)}]\t Loss: {loss.item()}")

        if args.nr == 0:
            pass  # realcode-dropped: writer.add_scalar("Loss/train_epoch", loss.item(), args.global_step)
            args.global_step += 1

        loss_epoch += loss.item()
    return loss_epoch
# %% realcode: driver cell, built from main.py's main()
class args:  # realcode: config/config.yaml's values (sizes shrunk)
    nodes = 1
    gpus = 1
    nr = 0
    dataparallel = 0
    workers = 8
    seed = 42
    batch_size = 8
    image_size = 16
    start_epoch = 0
    epochs = 3
    dataset = "CIFAR10"
    resnet = "resnet18"
    projection_dim = 64
    optimizer = "Adam"
    weight_decay = 1.0e-6
    temperature = 0.5
    world_size = 1
    device = torch.device("cpu")

torch.manual_seed(args.seed)
np.random.seed(args.seed)

train_loader = [((x_i, x_j), torch.zeros(8))]  # realcode: one synthetic batch of view pairs

class SmallEncoder(nn.Module):  # realcode: stands for torchvision's resnet18 (convolutions without bias before batch norm, global pool, fc)
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(16, 1000)

    def forward(self, x):
        return self.fc(self.conv(x))

# initialize ResNet
encoder = SmallEncoder()
n_features = encoder.fc.in_features  # get dimensions of fc layer

# initialize model
model = SimCLR(encoder, args.projection_dim, n_features)
# %% realcode-load: model
model = model.to(args.device)

# optimizer / loss
optimizer, scheduler = load_optimizer(args, model)
criterion = NT_Xent(args.batch_size, args.temperature, args.world_size)

args.global_step = 0
args.current_epoch = 0
losses = []
for epoch in range(args.start_epoch, args.epochs):
    lr = optimizer.param_groups[0]["lr"]
    loss_epoch = train(args, train_loader, model, criterion, optimizer, None)

    if args.nr == 0 and scheduler:
        scheduler.step()

    if args.nr == 0:
        print(
            f"Epoch [{epoch}/{args.epochs}]\t Loss: {loss_epoch / len(train_loader)}\t lr: {round(lr, 5)}"
        )
        args.current_epoch += 1
    losses.append(loss_epoch)
losses = torch.tensor(losses)
# %% realcode: linear_evaluation.py (inference, get_features, create_data_loaders_from_arrays, train, test)
def inference(loader, simclr_model, device):
    feature_vector = []
    labels_vector = []
    for step, (x, y) in enumerate(loader):
        x = x.to(device)

        # get encoding
        with torch.no_grad():
            h, _, z, _ = simclr_model(x, x)

        h = h.detach()

        feature_vector.extend(h.cpu().detach().numpy())
        labels_vector.extend(y.numpy())

        if step % 20 == 0:
            print(f"Step [{step}/{len(loader)}]\t Computing features...")

    feature_vector = np.array(feature_vector)
    labels_vector = np.array(labels_vector)
    print("Features shape {}".format(feature_vector.shape))
    return feature_vector, labels_vector


def get_features(simclr_model, train_loader, test_loader, device):
    train_X, train_y = inference(train_loader, simclr_model, device)
    test_X, test_y = inference(test_loader, simclr_model, device)
    return train_X, train_y, test_X, test_y


def create_data_loaders_from_arrays(X_train, y_train, X_test, y_test, batch_size):
    train = torch.utils.data.TensorDataset(
        torch.from_numpy(X_train), torch.from_numpy(y_train)
    )
    train_loader = torch.utils.data.DataLoader(
        train, batch_size=batch_size, shuffle=False
    )

    test = torch.utils.data.TensorDataset(
        torch.from_numpy(X_test), torch.from_numpy(y_test)
    )
    test_loader = torch.utils.data.DataLoader(
        test, batch_size=batch_size, shuffle=False
    )
    return train_loader, test_loader


def train(args, loader, simclr_model, model, criterion, optimizer):
    loss_epoch = 0
    accuracy_epoch = 0
    for step, (x, y) in enumerate(loader):
        optimizer.zero_grad()

        x = x.to(args.device)
        y = y.to(args.device)

        output = model(x)
        loss = criterion(output, y)

        predicted = output.argmax(1)
        acc = (predicted == y).sum().item() / y.size(0)
        accuracy_epoch += acc

        loss.backward()
        optimizer.step()

        loss_epoch += loss.item()
        # if step % 100 == 0:
        #     print(
        #         f"Step [{step}/{len(loader)}]\t Loss: {loss.item()}\t Accuracy: {acc}"
        #     )

    return loss_epoch, accuracy_epoch


def test(args, loader, simclr_model, model, criterion, optimizer):
    loss_epoch = 0
    accuracy_epoch = 0
    model.eval()
    for step, (x, y) in enumerate(loader):
        model.zero_grad()

        x = x.to(args.device)
        y = y.to(args.device)

        output = model(x)
        loss = criterion(output, y)

        predicted = output.argmax(1)
        acc = (predicted == y).sum().item() / y.size(0)
        accuracy_epoch += acc

        loss_epoch += loss.item()

    return loss_epoch, accuracy_epoch
# %% realcode: driver cell, linear_evaluation.py's __main__
args.logistic_batch_size = 8
args.logistic_epochs = 5
train_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(lin_x[:8], lin_y[:8]),  # realcode: synthetic labelled images
    batch_size=args.logistic_batch_size,
    shuffle=False,
    drop_last=True,
)

test_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(lin_x[8:], lin_y[8:]),
    batch_size=args.logistic_batch_size,
    shuffle=False,
    drop_last=True,
)

simclr_model = model  # realcode: the model trained above, in place of the checkpoint
simclr_model = simclr_model.to(args.device)
simclr_model.eval()

## Logistic Regression
n_classes = 10  # CIFAR-10 / STL-10
logreg = LogisticRegression(simclr_model.n_features, n_classes)
# %% realcode-load: logreg
logreg = logreg.to(args.device)

optimizer = torch.optim.Adam(logreg.parameters(), lr=3e-4)
criterion = torch.nn.CrossEntropyLoss()

print("### Creating features from pre-trained context model ###")
(train_X, train_y, test_X, test_y) = get_features(
    simclr_model, train_loader, test_loader, args.device
)

arr_train_loader, arr_test_loader = create_data_loaders_from_arrays(
    train_X, train_y, test_X, test_y, args.logistic_batch_size
)

lin_losses, lin_accs = [], []
for epoch in range(args.logistic_epochs):
    loss_epoch, accuracy_epoch = train(
        args, arr_train_loader, simclr_model, logreg, criterion, optimizer
    )
    print(
        f"Epoch [{epoch}/{args.logistic_epochs}]\t Loss: {loss_epoch / len(arr_train_loader)}\t Accuracy: {accuracy_epoch / len(arr_train_loader)}"
    )
    lin_losses.append(loss_epoch)
    lin_accs.append(accuracy_epoch)

# final testing
final_loss, final_acc = test(
    args, arr_test_loader, simclr_model, logreg, criterion, optimizer
)
print(
    f"[FINAL]\t Loss: {final_loss / len(arr_test_loader)}\t Accuracy: {final_acc / len(arr_test_loader)}"
)
