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
