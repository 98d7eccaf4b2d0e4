# realcode: AntixK/PyTorch-VAE @ a6896b944c918dd7030e7d795a8c13e5c6345ec7
# realcode: https://github.com/AntixK/PyTorch-VAE/blob/a6896b944c918dd7030e7d795a8c13e5c6345ec7/models/types_.py
# realcode: https://github.com/AntixK/PyTorch-VAE/blob/a6896b944c918dd7030e7d795a8c13e5c6345ec7/models/base.py
# realcode: https://github.com/AntixK/PyTorch-VAE/blob/a6896b944c918dd7030e7d795a8c13e5c6345ec7/models/vanilla_vae.py
# realcode: kept as written except for these adaptations:
#   - models/types_.py, models/base.py and models/vanilla_vae.py, as written, one after the other, then a driver cell built from experiment.py (PyTorch Lightning's trainer, logging and image saving left out; as described on its marker); the CelebA batch comes in as inputs
#   - `from .types_ import *` -> `pass  # realcode-inlined: from .types_ import *`: the package's own import, the module is pasted above
#   - `from models import BaseVAE` -> `pass  # realcode-inlined: from models import BaseVAE`: the package's own import, the module is pasted above
#   - `from .types_ import *` -> `pass  # realcode-inlined: from .types_ import *`: the package's own import, the module is pasted above
# realcode: why the engine's values differ (left xfail): Adam on gradients that are float32 noise. The convolutions' biases before BatchNorm2d have a true gradient of 0 (the norm removes any constant); float32 leaves ~1e-9 there, and Adam's first step (lr 0.005) moves each such bias by lr in the direction of that noise's sign. PyTorch's own float64 run differs from its float32 recording by 3.7e-2 of final_layer.0.bias's magnitude (the engine: 6.0e-2), and, through the running statistics, by 9e-3 of recons_eval's (the engine: 1.2e-2). Coin flips of float32 rounding, not a precision defect. Run in float64 from the same weights, the engine and PyTorch agree to 2.3e-10 of the magnitude of every deterministic value (the gradients of those biases are float64 noise of 1e-17 on both sides, far below Adam's eps, so neither moves them)
# realcode-input: real_img = rand(4, 3, 8, 8) * 2 - 1
# realcode-input: labels = randint(0, 40, 4)
# realcode-output: sampled_mu sampled_log_var sampled_recons logged_loss sampled_loss generated mu log_var recons loss lr mu_eval log_var_eval recons_eval model.*
# realcode-shape-only: sampled_recons logged_loss sampled_loss generated (drawn from the reparameterisation noise)
# %% realcode: models/types_.py
from typing import List, Callable, Union, Any, TypeVar, Tuple
# from torch import tensor as Tensor

Tensor = TypeVar('torch.tensor')

# %% realcode: models/base.py
pass  # realcode-inlined: from .types_ import *
from torch import nn
from abc import abstractmethod

class BaseVAE(nn.Module):
    
    def __init__(self) -> None:
        super(BaseVAE, self).__init__()

    def encode(self, input: Tensor) -> List[Tensor]:
        raise NotImplementedError

    def decode(self, input: Tensor) -> Any:
        raise NotImplementedError

    def sample(self, batch_size:int, current_device: int, **kwargs) -> Tensor:
        raise NotImplementedError

    def generate(self, x: Tensor, **kwargs) -> Tensor:
        raise NotImplementedError

    @abstractmethod
    def forward(self, *inputs: Tensor) -> Tensor:
        pass

    @abstractmethod
    def loss_function(self, *inputs: Any, **kwargs) -> Tensor:
        pass

# %% realcode: models/vanilla_vae.py
import torch
pass  # realcode-inlined: from models import BaseVAE
from torch import nn
from torch.nn import functional as F
pass  # realcode-inlined: from .types_ import *


class VanillaVAE(BaseVAE):


    def __init__(self,
                 in_channels: int,
                 latent_dim: int,
                 hidden_dims: List = None,
                 **kwargs) -> None:
        super(VanillaVAE, self).__init__()

        self.latent_dim = latent_dim

        modules = []
        if hidden_dims is None:
            hidden_dims = [32, 64, 128, 256, 512]

        # Build Encoder
        for h_dim in hidden_dims:
            modules.append(
                nn.Sequential(
                    nn.Conv2d(in_channels, out_channels=h_dim,
                              kernel_size= 3, stride= 2, padding  = 1),
                    nn.BatchNorm2d(h_dim),
                    nn.LeakyReLU())
            )
            in_channels = h_dim

        self.encoder = nn.Sequential(*modules)
        self.fc_mu = nn.Linear(hidden_dims[-1]*4, latent_dim)
        self.fc_var = nn.Linear(hidden_dims[-1]*4, latent_dim)


        # Build Decoder
        modules = []

        self.decoder_input = nn.Linear(latent_dim, hidden_dims[-1] * 4)

        hidden_dims.reverse()

        for i in range(len(hidden_dims) - 1):
            modules.append(
                nn.Sequential(
                    nn.ConvTranspose2d(hidden_dims[i],
                                       hidden_dims[i + 1],
                                       kernel_size=3,
                                       stride = 2,
                                       padding=1,
                                       output_padding=1),
                    nn.BatchNorm2d(hidden_dims[i + 1]),
                    nn.LeakyReLU())
            )



        self.decoder = nn.Sequential(*modules)

        self.final_layer = nn.Sequential(
                            nn.ConvTranspose2d(hidden_dims[-1],
                                               hidden_dims[-1],
                                               kernel_size=3,
                                               stride=2,
                                               padding=1,
                                               output_padding=1),
                            nn.BatchNorm2d(hidden_dims[-1]),
                            nn.LeakyReLU(),
                            nn.Conv2d(hidden_dims[-1], out_channels= 3,
                                      kernel_size= 3, padding= 1),
                            nn.Tanh())

    def encode(self, input: Tensor) -> List[Tensor]:
        """
        Encodes the input by passing through the encoder network
        and returns the latent codes.
        :param input: (Tensor) Input tensor to encoder [N x C x H x W]
        :return: (Tensor) List of latent codes
        """
        result = self.encoder(input)
        result = torch.flatten(result, start_dim=1)

        # Split the result into mu and var components
        # of the latent Gaussian distribution
        mu = self.fc_mu(result)
        log_var = self.fc_var(result)

        return [mu, log_var]

    def decode(self, z: Tensor) -> Tensor:
        """
        Maps the given latent codes
        onto the image space.
        :param z: (Tensor) [B x D]
        :return: (Tensor) [B x C x H x W]
        """
        result = self.decoder_input(z)
        result = result.view(-1, 512, 2, 2)
        result = self.decoder(result)
        result = self.final_layer(result)
        return result

    def reparameterize(self, mu: Tensor, logvar: Tensor) -> Tensor:
        """
        Reparameterization trick to sample from N(mu, var) from
        N(0,1).
        :param mu: (Tensor) Mean of the latent Gaussian [B x D]
        :param logvar: (Tensor) Standard deviation of the latent Gaussian [B x D]
        :return: (Tensor) [B x D]
        """
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return eps * std + mu

    def forward(self, input: Tensor, **kwargs) -> List[Tensor]:
        mu, log_var = self.encode(input)
        z = self.reparameterize(mu, log_var)
        return  [self.decode(z), input, mu, log_var]

    def loss_function(self,
                      *args,
                      **kwargs) -> dict:
        """
        Computes the VAE loss function.
        KL(N(\mu, \sigma), N(0, 1)) = \log \frac{1}{\sigma} + \frac{\sigma^2 + \mu^2}{2} - \frac{1}{2}
        :param args:
        :param kwargs:
        :return:
        """
        recons = args[0]
        input = args[1]
        mu = args[2]
        log_var = args[3]

        kld_weight = kwargs['M_N'] # Account for the minibatch samples from the dataset
        recons_loss =F.mse_loss(recons, input)


        kld_loss = torch.mean(-0.5 * torch.sum(1 + log_var - mu ** 2 - log_var.exp(), dim = 1), dim = 0)

        loss = recons_loss + kld_weight * kld_loss
        return {'loss': loss, 'Reconstruction_Loss':recons_loss.detach(), 'KLD':-kld_loss.detach()}

    def sample(self,
               num_samples:int,
               current_device: int, **kwargs) -> Tensor:
        """
        Samples from the latent space and return the corresponding
        image space map.
        :param num_samples: (Int) Number of samples
        :param current_device: (Int) Device to run the model
        :return: (Tensor)
        """
        z = torch.randn(num_samples,
                        self.latent_dim)

        z = z.to(current_device)

        samples = self.decode(z)
        return samples

    def generate(self, x: Tensor, **kwargs) -> Tensor:
        """
        Given an input image x, returns the reconstructed image
        :param x: (Tensor) [B x C x H x W]
        :return: (Tensor) [B x C x H x W]
        """

        return self.forward(x)[0]

# %% realcode: driver cell, built from experiment.py (VAEXperiment.training_step, lines 33-45, and configure_optimizers' Adam and ExponentialLR) with configs/vae.yaml's values (LR 0.005, weight_decay 0.0, scheduler_gamma 0.95, kld_weight 0.00025): the model with hidden_dims [16, 512] on synthetic 8x8 images (decode's view(-1, 512, 2, 2) needs 512 channels at 2x2), one training step through forward (its reparameterisation draws noise, so those values are compared by shape), then a step with z = mu (no draws)
from torch import optim
params = {'LR': 0.005, 'weight_decay': 0.0, 'scheduler_gamma': 0.95, 'kld_weight': 0.00025}
model = VanillaVAE(in_channels=3, latent_dim=8, hidden_dims=[16, 512])
# %% realcode-load: model
optimizer = optim.Adam(model.parameters(), lr=params['LR'], weight_decay=params['weight_decay'])
scheduler = optim.lr_scheduler.ExponentialLR(optimizer, gamma=params['scheduler_gamma'])

results = model(real_img, labels=labels)
train_loss = model.loss_function(*results,
                                 M_N=params['kld_weight'],
                                 optimizer_idx=0,
                                 batch_idx=0)
logged = {key: val.item() for key, val in train_loss.items()}
sampled_loss = train_loss['loss']
sampled_recons, _, sampled_mu, sampled_log_var = results
logged_loss = logged['loss']
generated = model.generate(real_img, labels=labels)

# %% realcode-load: model
optimizer.zero_grad()
mu, log_var = model.encode(real_img)
recons = model.decode(mu)
det_loss = model.loss_function(recons, real_img, mu, log_var, M_N=params['kld_weight'])
loss = det_loss['loss']
loss.backward()
optimizer.step()
scheduler.step()
lr = scheduler.get_last_lr()[0]
model.eval()
with torch.no_grad():
    mu_eval, log_var_eval = model.encode(real_img)
    recons_eval = model.decode(mu_eval)
