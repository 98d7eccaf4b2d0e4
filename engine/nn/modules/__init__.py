"""``torch.nn.modules``: the layers under the package path PyTorch defines them in.

Code written against PyTorch imports from here (``from torch.nn.modules.module import Module``,
pygcn's layers.py); the classes are the ones ``torch.nn`` exports.
"""
import importlib as _importlib

_nn = _importlib.import_module(__name__.rpartition(".")[0])
__all__ = sorted(n for n, v in vars(_nn).items()
                 if not n.startswith("_") and isinstance(v, type) and issubclass(v, _nn.Module))
globals().update({n: getattr(_nn, n) for n in __all__})

from . import batchnorm, loss, module, utils  # noqa: E402
