"""Lazy modules: LazyLinear, LazyConv1d/2d, LazyBatchNorm1d/2d take their input size (in_features,
in_channels, num_features) from the first input they see, then become the ordinary module.

Until then their parameters are UninitializedParameters; the first call builds the ordinary
module with the size found, moves its freshly initialised values into those same Parameter
objects (so an optimizer made before keeps working, as in PyTorch) and changes the module's class.
"""
from .conv import Conv1d, Conv2d
from .linear import Linear
from .module import Module
from .normalization import BatchNorm1d, BatchNorm2d
from .parameter import UninitializedParameter

__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyBatchNorm1d", "LazyBatchNorm2d"]


class _LazyModule(Module):
    """Shared by the lazy modules: ``cls_to_become`` is built on the first input, from
    ``_size_attr`` (read from dim 1, or the last dim for Linear) and the constructor arguments."""
    cls_to_become = None
    _size_attr = None
    _param_names = ("weight", "bias")

    def _lazy_init(self, args, kwargs, has_params):
        Module.__init__(self)
        self._lazy_args = (args, kwargs)
        setattr(self, self._size_attr, 0)
        kw = {k: kwargs[k] for k in ("device", "dtype") if k in kwargs}
        for name in self._param_names:
            if has_params(name):
                setattr(self, name, UninitializedParameter(**kw))
            else:
                self.register_parameter(name, None)

    def has_uninitialized_params(self):
        return any(isinstance(p, UninitializedParameter) for p in self._parameters.values())

    def _input_size(self, input):
        return input.shape[1] if input.ndim > 1 else input.shape[0]

    def initialize_parameters(self, input):
        """Builds the module for ``input``'s size and takes over its initialised parameters."""
        if not self.has_uninitialized_params():
            return
        args, kwargs = self._lazy_args
        built = self.cls_to_become(self._input_size(input), *args, **kwargs)
        for name, p in self._parameters.items():
            if p is not None:
                new = built._parameters[name]
                p.materialize(tuple(new.shape), dtype=new.dtype)
                p._data[...] = new._data
        for key, value in vars(built).items():
            if key not in ("_parameters", "_modules") and not key.startswith("_lazy"):
                if key == "_buffers":
                    self._buffers.update(value)
                elif not key.startswith("_") or key == "_non_persistent_buffers_set":
                    self.__dict__[key] = value

    def forward(self, *args, **kwargs):
        if self.has_uninitialized_params():
            self.initialize_parameters(args[0])
        self.__dict__.pop("_lazy_args", None)
        self.__class__ = self.cls_to_become
        return self.forward(*args, **kwargs)


class LazyLinear(_LazyModule, Linear):
    """A Linear whose in_features is taken from its first input (``torch.nn.LazyLinear``)."""
    cls_to_become = Linear
    _size_attr = "in_features"

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        self._lazy_init((out_features,), dict(bias=bias, device=device, dtype=dtype),
                        lambda name: name == "weight" or bias)
        self.out_features = out_features

    def _input_size(self, input):
        return input.shape[-1]

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()


class _LazyConvNd(_LazyModule):
    _size_attr = "in_channels"

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        self._lazy_init((out_channels, kernel_size),
                        dict(stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias,
                             padding_mode=padding_mode, device=device, dtype=dtype),
                        lambda name: name == "weight" or bias)
        self.out_channels = out_channels

    def _input_size(self, input):
        nd = self.cls_to_become._nd
        return input.shape[0] if input.ndim == nd + 1 else input.shape[1]


class LazyConv1d(_LazyConvNd, Conv1d):
    """A Conv1d whose in_channels is taken from its first input (``torch.nn.LazyConv1d``)."""
    cls_to_become = Conv1d


class LazyConv2d(_LazyConvNd, Conv2d):
    """A Conv2d whose in_channels is taken from its first input (``torch.nn.LazyConv2d``)."""
    cls_to_become = Conv2d


class _LazyBatchNorm(_LazyModule):
    _size_attr = "num_features"

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None):
        self._lazy_init((), dict(eps=eps, momentum=momentum, affine=affine, track_running_stats=track_running_stats,
                                 device=device, dtype=dtype), lambda name: affine)
        self.eps, self.momentum, self.affine, self.track_running_stats = eps, momentum, affine, track_running_stats
        for name in ("running_mean", "running_var", "num_batches_tracked"):
            self.register_buffer(name, None)


class LazyBatchNorm1d(_LazyBatchNorm, BatchNorm1d):
    """A BatchNorm1d whose num_features is taken from its first input (``torch.nn.LazyBatchNorm1d``)."""
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyBatchNorm, BatchNorm2d):
    """A BatchNorm2d whose num_features is taken from its first input (``torch.nn.LazyBatchNorm2d``)."""
    cls_to_become = BatchNorm2d
