"""The breadth layers and losses (transposed convolution, the extra activations, pooling,
EmbeddingBag, the margin and likelihood losses) on CUDA: values and gradients equal to the
CPU's, from the same op tables as their CPU tests. Cases whose constants are built on the CPU
inside the table (targets, class indices, offsets) run where those constants can follow."""
import numpy as np
import pytest

import gradserve.engine as gs
from op_check import arrays, as_tuple, compare_devices, values
from test_nn_convtranspose import CASES as CONV_TRANSPOSE
from test_nn_extra_layers import CASES as LAYERS
from test_nn_extra_losses import CASES as LOSSES
from test_nn_pool_bag import CASES as POOL_BAG

pytestmark = pytest.mark.gpu

CASES = {**CONV_TRANSPOSE, **LAYERS, **{k: v for k, v in POOL_BAG.items() if not k.startswith("embedding_bag")}}
# these build targets, indices or offsets with T.tensor: run with a T whose tensors are made on CUDA
WITH_CONSTANTS = {**LOSSES, **{k: v for k, v in POOL_BAG.items() if k.startswith("embedding_bag")}}


class _CudaEngine:
    """gradserve.engine, except that T.tensor makes its tensor on CUDA."""

    def __getattr__(self, name):
        return getattr(gs, name)

    def tensor(self, data, **kwargs):
        return gs.tensor(data, device="cuda", **kwargs)


@pytest.mark.parametrize("name", list(CASES))
def test_matches_the_cpu(name):
    fn, shapes = CASES[name]
    compare_devices(fn, shapes)


@pytest.mark.parametrize("name", list(WITH_CONSTANTS))
def test_with_constants_matches_the_cpu(name):
    fn, shapes = WITH_CONSTANTS[name]
    data = arrays(shapes)
    cpu = [gs.tensor(a, requires_grad=True) for a in data]
    gpu = [gs.tensor(a, device="cuda", requires_grad=True) for a in data]
    out_c, out_g = as_tuple(fn(gs, *cpu)), as_tuple(fn(_CudaEngine(), *gpu))
    loss_c = loss_g = 0
    for k, (c, g) in enumerate(zip(out_c, out_g)):
        assert g.device.type == "cuda"
        np.testing.assert_allclose(values(g), values(c), rtol=1e-7, atol=1e-9)
        w = np.random.default_rng(k).standard_normal(tuple(c.shape))
        loss_c = loss_c + (c * gs.tensor(w)).sum()
        loss_g = loss_g + (g * gs.tensor(w, device="cuda")).sum()
    for a, b in zip(gs.autograd.grad(loss_c, cpu), gs.autograd.grad(loss_g, gpu)):
        np.testing.assert_allclose(values(b), values(a), rtol=1e-7, atol=1e-9)
