"""PyTorch's argument parser for the parameters it declares as tensors: a number (or anything else)
there is a TypeError naming the function, the parameter and its position, as PyTorch's, not an
AttributeError from inside the op or a result computed from a broadcast number."""
import functools

from ..tensor import Tensor


def require_tensor(function, parameter, value, position):
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument '{parameter}' (position {position}) must be Tensor, "
                        f"not {type(value).__name__}")


def tensor_parameters(*names):
    """Decorates a function whose leading parameters ``names`` PyTorch declares as Tensor."""
    def decorate(fn):
        count = len(names)

        @functools.wraps(fn)
        def checked(*args, **kwargs):
            for i, value in enumerate(args[:count]):
                if not isinstance(value, Tensor):
                    require_tensor(fn.__name__, names[i], value, i + 1)
            for i in range(len(args), count):
                if names[i] in kwargs:
                    require_tensor(fn.__name__, names[i], kwargs[names[i]], i + 1)
            return fn(*args, **kwargs)
        return checked
    return decorate
