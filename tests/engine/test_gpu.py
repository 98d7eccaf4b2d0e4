"""The engine on CUDA through CuPy: the same ops and backward as on the CPU.

Every test is marked ``gpu`` and skipped without CuPy and a CUDA device.
"""
import numpy as np
import pytest

import gradserve.engine as gs

pytestmark = pytest.mark.gpu


def _cupy():
    import cupy
    return cupy


def test_cuda_is_available():
    assert gs.cuda.is_available() and gs.cuda.device_count() >= 1


@pytest.mark.parametrize("make", [
    lambda: gs.zeros(2, 3, device="cuda"),
    lambda: gs.ones(4, device="cuda", dtype=gs.float64),
    lambda: gs.full((2,), 1.5, device="cuda"),
    lambda: gs.tensor([[1.0, 2.0]], device="cuda"),
    lambda: gs.arange(5, device="cuda"),
    lambda: gs.linspace(0, 1, 5, device="cuda"),
    lambda: gs.eye(3, device="cuda"),
    lambda: gs.rand(3, device="cuda"),
    lambda: gs.randn(3, device="cuda"),
    lambda: gs.randint(0, 5, (3,), device="cuda"),
])
def test_creation_on_cuda(make):
    t = make()
    assert t.device.type == "cuda" and t.is_cuda
    assert isinstance(t._data, _cupy().ndarray)


def test_cpu_cuda_round_trip_keeps_values_and_dtype():
    x = gs.tensor([[1.5, -2.0], [3.0, 4.25]], dtype=gs.float64)
    y = x.cuda()
    assert y.device.type == "cuda" and y.dtype == gs.float64
    z = y.cpu()
    assert z.device.type == "cpu" and isinstance(z._data, np.ndarray)
    assert z.tolist() == x.tolist()
    assert y.to("cpu").tolist() == x.tolist() and x.to("cuda").device.type == "cuda"


def test_item_tolist_and_numpy_on_cuda():
    y = gs.tensor([1.0, 2.0], device="cuda")
    assert y.tolist() == [1.0, 2.0] and y[1].item() == 2.0
    with pytest.raises(TypeError):
        y.numpy()
    assert np.asarray(y).tolist() == [1.0, 2.0]


def test_elementwise_and_reduction_ops_on_cuda():
    a = gs.tensor([1.0, 2.0, 3.0], device="cuda")
    b = gs.tensor([[0.5], [2.0]], device="cuda")
    y = ((a * b + 1).exp().log() - a.sin()).sum(1)
    expected = ((np.array([1.0, 2.0, 3.0]) * np.array([[0.5], [2.0]]) + 1) - np.sin([1.0, 2.0, 3.0])).sum(1)
    assert y.device.type == "cuda"
    np.testing.assert_allclose(y.cpu().numpy(), expected, rtol=1e-5)


def test_backward_on_cuda_matches_cpu():
    def loss(device):
        gs.manual_seed(0)
        w = gs.randn(4, 3, dtype=gs.float64).to(device).requires_grad_()
        x = gs.randn(5, 4, dtype=gs.float64).to(device)
        y = (x @ w).tanh().sum() + (w * w).mean()
        y.backward()
        return y.item(), w.grad
    v_cpu, g_cpu = loss("cpu")
    v_gpu, g_gpu = loss("cuda")
    assert g_gpu.device.type == "cuda"
    assert abs(v_cpu - v_gpu) < 1e-9
    np.testing.assert_allclose(g_gpu.cpu().numpy(), g_cpu.numpy(), rtol=1e-9)


def test_gradient_flows_back_across_devices():
    x = gs.tensor([1.0, 2.0], requires_grad=True)
    y = (x.cuda() * 3).cpu().sum()
    y.backward()
    assert x.grad.device.type == "cpu" and x.grad.tolist() == [3.0, 3.0]


def test_higher_order_gradients_on_cuda():
    x = gs.tensor([2.0], device="cuda", requires_grad=True)
    (g,) = gs.autograd.grad((x ** 3).sum(), x, create_graph=True)
    (h,) = gs.autograd.grad(g.sum(), x)
    assert h.device.type == "cuda" and h.item() == 12.0


def test_anomaly_mode_on_cuda():
    x = gs.zeros(2, device="cuda", requires_grad=True)
    with gs.autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match="SqrtBackward0"):
            (x.sqrt() * 0).sum().backward()


def test_repr_names_the_device():
    assert repr(gs.tensor([1.0, 2.0], device="cuda")) == "tensor([1., 2.], device='cuda:0')"


def test_mixing_devices_raises():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        gs.ones(2) + gs.ones(2, device="cuda")
    assert (gs.tensor(2.0) * gs.ones(2, device="cuda")).device.type == "cuda"   # a cpu scalar tensor may join


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_on_cuda(fast_mode):
    x = gs.tensor([0.5, -1.5, 2.0], dtype=gs.float64, device="cuda", requires_grad=True)
    assert gs.autograd.gradcheck(lambda a: (a * a).sin(), (x,), fast_mode=fast_mode)
    assert gs.autograd.gradgradcheck(lambda a: (a * a).sin(), (x,), fast_mode=fast_mode)


def test_graph_export_summarises_cuda_tensors():
    import json
    x = gs.tensor([1.0, float("nan")], device="cuda", requires_grad=True)
    doc = gs.graph.to_json((x * 2).sum())
    assert doc["nodes"][0]["value"]["head"] == [1.0, "NaN"]
    json.dumps(doc, allow_nan=False)


def test_cuda_empty_cache_frees_the_pools_unused_blocks_and_is_a_no_op_without_a_gpu(monkeypatch):
    """torch.cuda.empty_cache() (PPO-PyTorch calls it when it picks the GPU): CuPy's pool gives its
    unused blocks back; without a GPU it does nothing, as PyTorch's."""
    import gradserve.engine as gs
    freed = []
    import cupy
    monkeypatch.setattr(cupy.get_default_memory_pool(), "free_all_blocks", lambda stream=None: freed.append(1))
    gs.cuda.empty_cache()
    assert freed == ([1] if gs.cuda.is_available() else [])


def test_cuda_get_device_name_names_the_device():
    import gradserve.engine as gs
    if gs.cuda.is_available():
        assert isinstance(gs.cuda.get_device_name(), str) and gs.cuda.get_device_name(gs.device("cuda:0"))
    else:
        with pytest.raises(AssertionError, match="not compiled with CUDA"):
            gs.cuda.get_device_name()
