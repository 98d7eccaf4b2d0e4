"""torch.nn.parallel: DataParallel as real scripts wrap their models in it.

A session runs on one device, so DataParallel runs its module there as it is (PyTorch does the
same when it is given a single device or none is available): the wrapped module is ``.module``,
and its parameters and state_dict keys carry the ``module.`` prefix, as in PyTorch.
"""
from .module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = list(device_ids) if device_ids is not None else []
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """``module(*inputs)`` on the session's device (one replica)."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return module(*inputs, **(module_kwargs or {}))
