"""``torch.linalg``: what the engine has of it so far (matrix_power; the norms are ``torch.norm``)."""
from .ops.linalg import matrix_power

__all__ = ["matrix_power"]
