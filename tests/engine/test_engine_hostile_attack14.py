"""Hostile pass 14 (tests/hostile_attack14_log.md): engine-side findings, against PyTorch where it is
installed.

F4: factories took any number as a size (``int(s)``): ``zeros(2.5)`` was a tensor of 2 and ``zeros(True)``
one of 1, where PyTorch raises TypeError. F5: ``ctx.save_for_backward(x, 3)`` found the bad argument with
``tensors.index``, which compares it with the tensors elementwise: "Boolean value of Tensor with more
than one value is ambiguous" instead of PyTorch's TypeError.
"""
import numpy as np
import pytest

import gradserve.engine as E

FACTORIES = ["zeros", "ones", "empty", "rand", "randn"]
BAD_SIZES = [(2.5,), ((2.5, 3),), (2, 2.0), (True,), ("tensor_f",)]
GOOD_SIZES = [(3,), ((2, 3),), ([2, 3],), ((),), ("int64",), ("tensor_i",), (2, "tensor_i")]


def _size(lib, args):
    out = []
    for a in args:
        if a == "tensor_f":
            a = lib.tensor(2.0)
        elif a == "tensor_i":
            a = lib.tensor(3)
        elif a == "int64":
            a = np.int64(3)
        out.append(a)
    return out


@pytest.mark.parametrize("name", FACTORIES)
@pytest.mark.parametrize("args", BAD_SIZES, ids=repr)
def test_a_size_that_is_not_an_int_is_a_type_error(name, args):
    with pytest.raises(TypeError, match="must be tuple of ints"):
        getattr(E, name)(*_size(E, args))


@pytest.mark.parametrize("name", FACTORIES)
@pytest.mark.parametrize("args", GOOD_SIZES, ids=repr)
def test_int_like_sizes_are_taken(name, args):
    assert getattr(E, name)(*_size(E, args)).shape == E.zeros(*_size(E, args)).shape


def test_full_takes_only_int_sizes():
    with pytest.raises(TypeError, match="must be tuple of ints"):
        E.full((2.5,), 1.0)
    assert E.full((2,), 1.0).shape == (2,)


@pytest.mark.parametrize("name", FACTORIES)
@pytest.mark.parametrize("args", BAD_SIZES + GOOD_SIZES, ids=repr)
def test_sizes_match_pytorch(name, args):
    torch = pytest.importorskip("torch")
    try:
        theirs = tuple(getattr(torch, name)(*_size(torch, args)).shape)
    except TypeError:
        with pytest.raises(TypeError):
            getattr(E, name)(*_size(E, args))
    else:
        assert tuple(getattr(E, name)(*_size(E, args)).shape) == theirs


def _function(lib):
    class Saves(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3, None)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g
    return Saves


def test_save_for_backward_of_a_non_tensor_is_pytorchs_type_error():
    with pytest.raises(TypeError) as ours:
        _function(E).apply(E.ones(2, requires_grad=True))
    assert str(ours.value) == "save_for_backward can only save variables, but argument 1 is of type int"
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError) as theirs:
        _function(torch).apply(torch.ones(2, requires_grad=True))
    assert str(ours.value) == str(theirs.value)


# F6: F.pad with a negative width past what is left of a dimension took less (a slice) where PyTorch's
# narrow raises; expand to a negative size was NumPy's ValueError.
PADS = [(-4, 0), (-2, -2), (-4, 2), (-3, 0), (-1, -2), (-1, 5), (2, -5)]


@pytest.mark.parametrize("widths", PADS, ids=repr)
def test_negative_padding_past_the_size_matches_pytorch(widths):
    torch = pytest.importorskip("torch")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    try:
        theirs = torch.nn.functional.pad(torch.tensor(x), widths).numpy()
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match="narrow"):
            E.nn.functional.pad(E.tensor(x), widths)
        assert "narrow" in str(e)
    else:
        np.testing.assert_array_equal(E.nn.functional.pad(E.tensor(x), widths).numpy(), theirs)


def test_negative_padding_past_the_size_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="narrow"):
        E.nn.functional.pad(E.ones(3), (-4, 2))


@pytest.mark.parametrize("sizes", [(-5,), (-2, 1), (1, -3)], ids=repr)
def test_expand_to_a_negative_size_is_a_runtime_error(sizes):
    with pytest.raises(RuntimeError):
        E.ones(1, 1).expand(*sizes) if len(sizes) == 2 else E.ones(1).expand(*sizes)
