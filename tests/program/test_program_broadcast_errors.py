"""Hostile pass 6, F4: an op whose forward failed in NumPy's broadcasting reported NumPy's
ValueError ("operands could not be broadcast together with shapes (2,) (3,)") where PyTorch raises
RuntimeError ("The size of tensor a (2) must match the size of tensor b (3) at non-singleton
dimension 0"): F.mse_loss, F.l1_loss, F.kl_div, torch.where, torch.lerp, torch.maximum, torch.fmod,
torch.pow, torch.eq, torch.clamp, ... (a + b was already right). int()/float() of a tensor of
several elements raised RuntimeError where PyTorch raises ValueError. The NumPy subset keeps NumPy's
ValueError."""
import pytest

SETUP = "a = torch.ones(2, requires_grad=True)\nb = torch.ones(3)\n"
OPS = ["F.mse_loss(a, b)", "F.l1_loss(a, b)", "F.smooth_l1_loss(a, b)", "F.huber_loss(a, b)", "F.kl_div(a, b)",
       "F.soft_margin_loss(a, b)", "F.cosine_similarity(a, b, dim=0)",
       "torch.where(a > 0, a, b)", "torch.lerp(a, b, 0.5)", "torch.addcmul(a, b, b)", "torch.addcdiv(a, b, b)",
       "torch.maximum(a, b)", "torch.minimum(a, b)", "torch.fmod(a, b)", "torch.remainder(a, b)",
       "torch.atan2(a, b)", "torch.hypot(a, b)", "torch.pow(a, b)", "torch.eq(a, b)", "torch.clamp(a, min=b)",
       "torch.logaddexp(a, b)", "torch.xlogy(a, b)", "a.new_tensor(b).add(a)"]


@pytest.mark.parametrize("op", OPS)
def test_a_broadcast_mismatch_in_an_op_is_pytorchs_runtime_error(run_err, op):
    err = run_err(SETUP + "y = " + op)
    assert err.type == "RuntimeError", err.to_dict()
    assert err.message.startswith("The size of tensor a ("), err.message
    assert "must match the size of tensor b (" in err.message and err.line == 3


def test_the_dimension_named_is_pytorchs(run_err):
    err = run_err("y = torch.maximum(torch.ones(4, 2, 3), torch.ones(5, 3))")
    assert err.type == "RuntimeError"
    assert err.message == "The size of tensor a (2) must match the size of tensor b (5) at non-singleton dimension 1"


def test_numpy_keeps_numpys_value_error(run_err):
    err = run_err("import numpy as np\ny = np.ones(2) + np.ones(3)")
    assert err.type == "ValueError" and "could not be broadcast" in err.message


@pytest.mark.parametrize("conv", ["int", "float", "complex"])
@pytest.mark.parametrize("shape", ["2", "0"])
def test_converting_a_tensor_of_several_elements_is_a_value_error(run_err, run_ok, conv, shape):
    err = run_err(f"y = {conv}(torch.ones({shape}))")
    assert err.type == "ValueError" and err.message == "only one element tensors can be converted to Python scalars"
    out, ns = run_ok(f"y = {conv}(torch.ones(1) * 3)")
    assert ns.globals["y"] == 3
