"""torch.distributions in programs: every import form, Categorical and Normal objects a program holds
(their public API only), gradients through log_prob and rsample."""
import math

import numpy as np
import pytest


def test_import_forms_and_categorical_sampling(run_ok):
    out, ns = run_ok("""
    import torch
    from torch.distributions.categorical import Categorical
    from torch.distributions import Normal
    import torch.distributions as D
    torch.manual_seed(1)
    logits = torch.tensor([[1.0, 1.0, 3.0]], requires_grad=True)
    m = Categorical(logits=logits)
    samples = m.sample((10,))
    lp = m.log_prob(torch.tensor([2]))
    (lp.sum() + m.entropy().sum()).backward()
    n = D.Normal(torch.zeros(2, requires_grad=True), 2.0)
    x = n.rsample((3,))
    print(samples.shape, samples.dtype, m.batch_shape, torch.distributions.Categorical is Categorical, Normal is D.Normal)
    """)
    assert out.stdout == "torch.Size([10, 1]) torch.int64 torch.Size([1]) True True\n"
    assert ns.get("lp").item() == pytest.approx(3 - math.log(2 * math.e + math.exp(3)))
    assert ns.get("logits").grad is not None and ns.get("x").shape == (3, 2) and ns.get("x").requires_grad


def test_distribution_private_state_stays_out_of_reach(run_err):
    err = run_err("""
    import torch
    m = torch.distributions.Categorical(probs=torch.tensor([0.5, 0.5]))
    m._param
    """)
    assert err.type == "AttributeError"


def test_argument_errors_reach_the_program_as_pytorchs(run_err):
    err = run_err("""
    import torch
    torch.distributions.Normal(torch.zeros(1), torch.zeros(1))
    """)
    assert err.type == "ValueError" and "GreaterThan" in err.message and err.line == 3


def test_programs_cannot_change_the_process_wide_validation_default(run_err):
    # Distribution.set_default_validate_args sets a class attribute: in a shared worker one session
    # would turn argument checks off for every other
    from gradserve.engine.distributions.distribution import Distribution
    for src in ("torch.distributions.Distribution.set_default_validate_args(False)",
                "torch.distributions.Normal(0.0, 1.0).set_default_validate_args(False)"):
        err = run_err("import torch\n" + src + "\n")
        assert err.type == "AttributeError", err
    assert Distribution._validate_default is True


def test_kl_divergence_in_programs_and_no_process_wide_registry(run_ok, run_err):
    _, ns = run_ok("""
    from torch.distributions import Normal
    from torch.distributions.kl import kl_divergence
    import torch.distributions as D
    kl = kl_divergence(Normal(torch.zeros(2), torch.ones(2)), Normal(torch.ones(2), 2 * torch.ones(2)))
    kl2 = D.kl_divergence(Normal(0.0, 1.0), Normal(1.0, 2.0))
    """)
    assert np.allclose(ns.get("kl").numpy(), 0.4431471824645996) and np.isclose(ns.get("kl2").item(), 0.4431472)
    # register_kl would put a program's function into the process's registry, seen by every session
    assert run_err("from torch.distributions.kl import register_kl").type == "ImportError"
