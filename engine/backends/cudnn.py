"""torch.backends.cudnn: PyTorch's flags, with their defaults; no cuDNN runs here."""
benchmark = False
deterministic = False
enabled = True
allow_tf32 = True


def is_available():
    """Whether cuDNN can be used: never, the engine's GPU path is CuPy's own kernels."""
    return False


def version():
    return None
