"""Instance normalisation: each channel of each sample normalised over its spatial dims (PyTorch's
nn/modules/instancenorm.py). No affine and no running statistics by default."""
import warnings

from . import functional as F
from .normalization import _BatchNorm

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_BatchNorm):
    _no_batch_dim = 0

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.ndim - self._no_batch_dim
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          UserWarning, stacklevel=2)
        if input.ndim == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation over (N, C, L) or unbatched (C, L) inputs."""
    _expected_dims = (2, 3)
    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation over (N, C, H, W) or unbatched (C, H, W) inputs."""
    _expected_dims = (3, 4)
    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation over (N, C, D, H, W) or unbatched (C, D, H, W) inputs."""
    _expected_dims = (4, 5)
    _no_batch_dim = 4
