"""Engine bugs that only showed on CUDA (found with the fake CuPy), each pinned on both devices."""
import numpy as np
import pytest

import gradserve.engine as gs

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]
OVERLAP = "more than one element of the written-to tensor refers to a single memory location"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("write", [
    lambda t, d: t.add_(1), lambda t, d: t.copy_(gs.ones(4, device=d)), lambda t, d: t[1:3].mul_(2),
    lambda t, d: t.clamp_(min=1.0)], ids=["add_", "copy_", "slice mul_", "clamp_"])
def test_in_place_on_an_expanded_tensor_raises(device, write):
    # CuPy's broadcast views are writable (NumPy's are read-only): the check rests on the strides
    with pytest.raises(RuntimeError, match=OVERLAP):
        write(gs.zeros(1, device=device).expand(4), device)
    x = gs.zeros(3, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match=OVERLAP):
        write((x * 1).expand(4, 3)[:, 0], device)        # through a view chain (CopySlices)
    w = gs.full((2, 4), 0.5, device=device)
    write(w[0], device)                                   # a plain view is fine to write
    assert w[1].tolist() == [0.5] * 4 and w[0].tolist() != [0.5] * 4


@pytest.mark.gpu
def test_tensor_of_a_device_array_stays_on_the_device():
    # torch.tensor / torch.as_tensor of a CuPy array give a CUDA tensor; the cpu was assumed and
    # the copy failed with CuPy's "Implicit conversion to a NumPy array is not allowed"
    import cupy
    a = cupy.arange(3.0)
    for make in (gs.tensor, gs.as_tensor, lambda x: gs.tensor(x, dtype=gs.float32)):
        t = make(a)
        assert t.device.type == "cuda" and t.tolist() == [0.0, 1.0, 2.0]
    assert gs.tensor(a, device="cpu").device.type == "cpu"
    assert gs.tensor([1.0]).device.type == "cpu" and gs.tensor(np.ones(2)).device.type == "cpu"


def _x(d):
    return gs.arange(12.0, device=d).reshape(3, 4)


def _i(d, *values):
    return gs.tensor(list(values), device=d)


# CuPy wraps out-of-range integer-array indices around (NumPy raises): every indexing op must check
# its indices itself, or a bad index silently reads or writes another element on cuda
OUT_OF_RANGE = {
    "getitem": lambda d: _x(d)[_i(d, 0, 5)],
    "getitem negative": lambda d: _x(d)[_i(d, -4)],
    "getitem column": lambda d: _x(d)[:, _i(d, 4)],
    "setitem": lambda d: _x(d).__setitem__(_i(d, 5), 1.0),
    "index_select": lambda d: _x(d).index_select(0, _i(d, 0, 5)),
    "gather": lambda d: _x(d).gather(1, _i(d, 0, 7).reshape(1, 2)),
    "take": lambda d: _x(d).take(_i(d, 12)),
    "scatter_": lambda d: _x(d).scatter_(1, _i(d, 0, 7).reshape(1, 2), 1.0),
    "scatter_add_": lambda d: _x(d).scatter_add_(1, _i(d, 0, 7).reshape(1, 2), _x(d)[:1, :2]),
    "index_add_": lambda d: _x(d).index_add_(0, _i(d, 0, 5), _x(d)[:2]),
    "index_put_ accumulate": lambda d: _x(d).index_put_((_i(d, 5),), gs.tensor(1.0, device=d), accumulate=True),
    "embedding": lambda d: gs.nn.functional.embedding(_i(d, 3), _x(d)),
    "one_hot": lambda d: gs.nn.functional.one_hot(_i(d, 5), 3),
    "nll_loss": lambda d: gs.nn.functional.nll_loss(_x(d), _i(d, 0, 1, 4)),
    "cross_entropy": lambda d: gs.nn.functional.cross_entropy(_x(d), _i(d, 0, 1, 9)),
    "take_along_dim": lambda d: gs.take_along_dim(_x(d), _i(d, 0, 7).reshape(1, 2), 1),
}


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(OUT_OF_RANGE))
def test_an_index_out_of_range_raises_on_cuda_as_on_the_cpu(name):
    errors = []
    for device in ("cpu", "cuda"):
        with pytest.raises((IndexError, RuntimeError)) as info:
            OUT_OF_RANGE[name](device)
        errors.append((info.type, str(info.value)))
    assert errors[0] == errors[1]


# a CPU tensor of no dimensions goes with CUDA tensors as a scalar, as in PyTorch; any other CPU
# tensor is refused with PyTorch's message (it reached CuPy as "Unsupported type numpy.ndarray")
WITH_A_CPU_SCALAR = {
    "mul": lambda a, s: a * s, "rmul": lambda a, s: s * a, "add_": lambda a, s: a.clone().add_(s),
    "where": lambda a, s: gs.where(a > 1, a, s), "maximum": lambda a, s: gs.maximum(a, s),
    "clamp": lambda a, s: a.clamp(min=s), "pow": lambda a, s: (a * a + 1) ** s, "lerp": lambda a, s: gs.lerp(a, a * 2, s),
    "masked_fill": lambda a, s: a.masked_fill(a > 1, s), "div": lambda a, s: a / s,
}


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(WITH_A_CPU_SCALAR))
def test_a_cpu_scalar_tensor_joins_a_cuda_op(name):
    op = WITH_A_CPU_SCALAR[name]
    x = np.array([[0.5, 1.5, 2.0], [3.0, -1.0, 4.0]])
    results = []
    for device in ("cpu", "cuda"):
        a = gs.tensor(x, device=device, requires_grad=True)
        s = gs.tensor(2.5, dtype=gs.float64, requires_grad=True)       # on the cpu both times
        y = op(a, s)
        assert y.device.type == device
        y.sum().backward()
        assert a.grad.device.type == device and (s.grad is None or s.grad.device.type == "cpu")
        results.append((y.detach().cpu().numpy(), a.grad.cpu().numpy(), None if s.grad is None else s.grad.item()))
    (yc, gac, gsc), (yg, gag, gsg) = results
    np.testing.assert_allclose(yg, yc, rtol=1e-12)
    np.testing.assert_allclose(gag, gac, rtol=1e-12)
    assert gsg == pytest.approx(gsc, rel=1e-12) if gsc is not None else gsg is None


SAME_DEVICE = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"


@pytest.mark.gpu
@pytest.mark.parametrize("op", [
    lambda a, b: a + b, lambda a, b: b * a, lambda a, b: a.mul_(b), lambda a, b: gs.cat([a, b[None]]),
    lambda a, b: a @ b, lambda a, b: gs.nn.functional.mse_loss(a, b.expand(2, 3)),
    lambda a, b: gs.where(a > 0, a, b),
], ids=["add", "rmul", "mul_", "cat", "matmul", "mse_loss", "where"])
def test_a_cpu_tensor_with_dimensions_is_refused_by_a_cuda_op(op):
    a, b = gs.ones(2, 3, device="cuda"), gs.ones(3)
    with pytest.raises(RuntimeError) as info:
        op(a, b)
    assert str(info.value) == SAME_DEVICE


@pytest.mark.gpu
def test_assigning_a_cpu_tensor_into_a_cuda_tensor_copies_it():
    a = gs.zeros(2, 3, device="cuda")
    a[0] = gs.tensor([1.0, 2.0, 3.0])
    a[1, gs.tensor([0, 2])] = gs.tensor([7.0, 8.0])
    a[:, 1:2] = gs.tensor(5.0)
    assert a.device.type == "cuda" and a.tolist() == [[1.0, 5.0, 3.0], [7.0, 5.0, 8.0]]
    w = gs.zeros(3, device="cuda", requires_grad=True) * 1
    v = gs.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w[:] = v * 2
    w.sum().backward()
    assert v.grad.device.type == "cpu" and v.grad.tolist() == [2.0, 2.0, 2.0]
