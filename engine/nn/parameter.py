"""Parameter: a Tensor that a Module registers as one of its parameters."""
import copy

from ..tensor import Tensor, _host

__all__ = ["Parameter", "UninitializedParameter"]


class Parameter(Tensor):
    """A kind of Tensor that is to be considered a module parameter (``torch.nn.Parameter``).

    It shares memory with the tensor it wraps and requires grad by default.
    Only its type differs from a Tensor: assigning one to a Module attribute
    registers it, and ops on it return plain Tensors.
    """
    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from ..ops.creation import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter expects a Tensor as data, but got {type(data).__name__}")
        if requires_grad and data._data.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        self = object.__new__(cls)
        self._init_from(data._data, bool(requires_grad))
        return self

    def __init__(self, data=None, requires_grad=True):
        pass  # all set up in __new__; Tensor.__init__ would rebuild the data

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (_host(self._data), self.requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = Parameter(Tensor._adopt_array(self._data.copy(), False, None), self.requires_grad)
        memo[id(self)] = result
        if self.grad is not None:
            result.grad = copy.deepcopy(self.grad, memo)
        return result


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet (the lazy modules'): it holds no data until
    ``materialize`` gives it a shape, and then it is an ordinary Parameter (the same object, so an
    optimizer made before keeps it)."""
    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from ..ops.creation import empty
        self = Parameter.__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)
        return self

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def materialize(self, shape, device=None, dtype=None):
        """Creates this parameter's data with ``shape`` (uninitialized values, zeroed here)."""
        from ..ops.creation import empty
        data = empty(tuple(shape), device=device or self.device, dtype=dtype or self.dtype)
        self._data = data._data
        self._version[0] += 1
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return "<UninitializedParameter>"

    __str__ = __repr__

    def __deepcopy__(self, memo):
        result = UninitializedParameter(self.requires_grad, self.device, self.dtype)
        memo[id(self)] = result
        return result


def _rebuild_parameter(data, requires_grad):
    return Parameter(Tensor._adopt_array(data, False, None), requires_grad)
