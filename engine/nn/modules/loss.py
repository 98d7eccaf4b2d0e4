"""``torch.nn.modules.loss``: where PyTorch defines the losses, with their bases ``_Loss`` and
``_WeightedLoss`` (IBM's pytorch-seq2seq checks ``issubclass(type(criterion), nn.modules.loss._Loss)``).
Programs reach the public losses here, and the two bases by name (the allowlist lists them)."""
import importlib as _importlib

from ..loss import _Loss, _WeightedLoss  # noqa: F401

_nn = _importlib.import_module(__name__.rpartition(".")[0].rpartition(".")[0])
__all__ = sorted(n for n, v in vars(_nn).items()
                 if not n.startswith("_") and isinstance(v, type) and issubclass(v, _Loss))
globals().update({n: getattr(_nn, n) for n in __all__})
