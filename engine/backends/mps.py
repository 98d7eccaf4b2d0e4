"""torch.backends.mps: Apple's Metal backend, which this engine does not have."""


def is_available():
    return False


def is_built():
    return False
