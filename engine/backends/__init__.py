"""torch.backends: the switches real scripts flip for cuDNN, CUDA and MPS.

NumPy and CuPy have no cuDNN autotuner or TF32 mode to switch, so the flags are read and set
for the program's own information only (a program sets them per session: see the allowlist's
``settable``), and the availability probes answer as a machine without those backends does.
"""
from . import cudnn, mps

__all__ = ["cudnn", "mps"]
