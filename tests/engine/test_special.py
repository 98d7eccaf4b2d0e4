"""lgamma, digamma, polygamma, erfinv, mvlgamma, logit and torch.special (engine/ops/special.py,
engine/special.py): gradcheck and gradgradcheck, PyTorch's values at the poles, zeros, signed
zeros and infinities, its dtypes, errors and grad_fn names, and their reach from programs."""
import math

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.program import Limits, Namespace, run
from op_check import check_gradients, compare_with_torch, torch

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch")


def _positive(T, x):
    return x.abs() + 0.3


def _negative(T, x):
    return T.sigmoid(x) * 0.8 - 0.9     # in (-0.9, -0.1): the reflection branch, clear of the poles


def _open_unit(T, x):
    return T.sigmoid(x) * 0.9 + 0.05


CASES = {
    "lgamma": (lambda T, x: T.lgamma(_positive(T, x) * 3), [(3, 4)]),
    "lgamma_negative": (lambda T, x: _negative(T, x).lgamma(), [(3, 4)]),
    "digamma": (lambda T, x: T.digamma(_positive(T, x) * 4), [(3, 4)]),
    "digamma_negative": (lambda T, x: T.digamma(_negative(T, x) - 2), [(3, 4)]),
    "polygamma1": (lambda T, x: T.polygamma(1, _positive(T, x)), [(3, 4)]),
    "polygamma1_negative": (lambda T, x: T.polygamma(1, _negative(T, x)), [(3, 4)]),
    "polygamma2_method": (lambda T, x: _positive(T, x).polygamma(2), [(3, 4)]),
    "polygamma3": (lambda T, x: T.polygamma(3, _positive(T, x) * 5), [(2, 3)]),
    "polygamma0_is_digamma": (lambda T, x: T.polygamma(0, _positive(T, x)), [(3,)]),
    "erfinv": (lambda T, x: T.erfinv(T.tanh(x) * 0.95), [(3, 4)]),
    "mvlgamma": (lambda T, x: T.mvlgamma(_positive(T, x) + 2, 3), [(3, 4)]),
    "logit": (lambda T, x: T.logit(_open_unit(T, x)), [(3, 4)]),
    "logit_eps_method": (lambda T, x: (T.sigmoid(x * 3)).logit(eps=0.2), [(3, 4)]),
    "special_gammaln_psi": (lambda T, x: T.special.gammaln(_positive(T, x)) + T.special.psi(_positive(T, x)),
                            [(3, 4)]),
    "special_multigammaln": (lambda T, x: T.special.multigammaln(_positive(T, x) + 1, 2), [(4,)]),
    "special_ndtr_ndtri": (lambda T, x: T.special.ndtr(x) + T.special.ndtri(_open_unit(T, x)), [(3, 4)]),
    "special_entr": (lambda T, x: T.special.entr(_open_unit(T, x)), [(3, 4)]),
    "special_xlog1py": (lambda T, a, b: T.special.xlog1py(a, b.abs()), [(3, 4), (3, 4)]),
    "special_expit_logit": (lambda T, x: T.special.logit(T.special.expit(x) * 0.5 + 0.2), [(3, 4)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_special_functions_pass_gradcheck_and_gradgradcheck(name):
    check_gradients(*CASES[name])


@needs_torch
@pytest.mark.parametrize("name", list(CASES))
def test_special_functions_match_torch(name):
    compare_with_torch(*CASES[name], rtol=1e-9, atol=1e-10)


EDGES = [-math.inf, -3.0, -2.5, -1e-8, 0.0, -0.0, 1e-300, 0.5, 1.0, 1.4616321, 2.0, 10.0, 1e10, 1e306,
         math.inf, math.nan]
UNIT_EDGES = [-1.5, -1.0, -0.999999, -0.5, 0.0, -0.0, 1e-300, 0.3, 0.5, 0.7, 0.9999999999, 1 - 2 ** -53, 1.0,
              math.nan]


def _same(ours, theirs, rtol=1e-12):
    ours, theirs = np.asarray(ours, dtype=np.float64), np.asarray(theirs, dtype=np.float64)
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=0, equal_nan=True)
    # the signs of the infinities and zeros too
    signed = np.isinf(theirs) | (theirs == 0)
    assert (np.signbit(ours[signed]) == np.signbit(theirs[signed])).all()


@needs_torch
@pytest.mark.parametrize("call", [lambda T, x: T.lgamma(x), lambda T, x: T.digamma(x),
                                  lambda T, x: T.polygamma(1, x), lambda T, x: T.polygamma(2, x),
                                  lambda T, x: T.polygamma(3, x), lambda T, x: T.polygamma(6, x)],
                         ids=["lgamma", "digamma", "trigamma", "polygamma2", "polygamma3", "polygamma6"])
def test_values_at_poles_zeros_and_infinities_are_pytorchs(call):
    ours = call(gs, gs.tensor(EDGES, dtype=gs.float64)).numpy()
    theirs = call(torch, torch.tensor(EDGES, dtype=torch.float64)).numpy()
    _same(ours, theirs)


@needs_torch
def test_erfinv_at_the_ends_and_in_the_tails_is_pytorchs():
    _same(gs.erfinv(gs.tensor(UNIT_EDGES, dtype=gs.float64)).numpy(),
          torch.erfinv(torch.tensor(UNIT_EDGES, dtype=torch.float64)).numpy(), rtol=1e-14)


def test_erfinv_inverts_erf_to_the_last_bits_in_the_tails():
    # 1 - y is exact in float64 here, so erfc of the answer must give it back
    for y in (0.6, 0.99, 1 - 1e-10, 1 - 2 ** -52):
        x = gs.erfinv(gs.tensor([y], dtype=gs.float64)).item()
        assert math.erfc(x) == pytest.approx(1 - y, rel=1e-14)


@needs_torch
def test_random_points_on_both_sides_of_zero_match_torch():
    r = np.random.default_rng(3).uniform(-12, 12, 4000)
    for name in ("lgamma", "digamma"):
        ours = getattr(gs, name)(gs.tensor(r)).numpy()
        theirs = getattr(torch, name)(torch.tensor(r)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
    for n in (1, 2, 4):
        np.testing.assert_allclose(gs.polygamma(n, gs.tensor(r)).numpy(), torch.polygamma(n, torch.tensor(r)).numpy(),
                                   rtol=1e-10)
    u = np.random.default_rng(4).uniform(-1, 1, 4000)
    np.testing.assert_allclose(gs.erfinv(gs.tensor(u)).numpy(), torch.erfinv(torch.tensor(u)).numpy(), rtol=1e-13)


@needs_torch
def test_dtypes_names_and_float32_values_follow_torch():
    for T in (gs, torch):
        ints = T.tensor([1, 2, 3])
        got = [T.lgamma(ints).dtype, T.digamma(ints).dtype, T.polygamma(1, ints).dtype, T.erfinv(T.tensor([0, 1])).dtype,
               T.logit(T.tensor([0, 1])).dtype]
        assert [str(d) for d in got] == ["torch.float32"] * 5
        x = T.tensor([1.5], requires_grad=True)
        names = [T.lgamma(x).grad_fn.name(), T.digamma(x).grad_fn.name(), T.polygamma(2, x).grad_fn.name(),
                 T.erfinv(x * 0.1).grad_fn.name(), T.logit(x * 0.1).grad_fn.name()]
        assert names == ["LgammaBackward0", "DigammaBackward0", "PolygammaBackward0", "ErfinvBackward0",
                         "LogitBackward0"]
    f32 = np.random.default_rng(5).uniform(0.1, 20, 500).astype(np.float32)
    np.testing.assert_allclose(gs.lgamma(gs.tensor(f32)).numpy(), torch.lgamma(torch.tensor(f32)).numpy(), rtol=2e-6,
                               atol=2e-6)
    assert gs.lgamma(gs.tensor(f32)).dtype == gs.float32


@needs_torch
def test_logit_gradient_outside_the_unit_interval_is_pytorchs():
    for eps in (None, 0.25):
        grads = []
        for T in (gs, torch):
            x = T.tensor([0.3, 0.0, 1.0, 1.2, -0.1], dtype=T.float64, requires_grad=True)
            y = T.logit(x, eps)
            y.sum().backward()
            grads.append((y.detach().numpy(), x.grad.numpy()))
        _same(grads[0][0], grads[1][0])
        _same(grads[0][1], grads[1][1])


@needs_torch
def test_special_module_values_match_torch():
    x = [-40.0, -1.0, 0.0, 0.5, 2.0]
    for name, args in (("ndtr", (x,)), ("ndtri", ([0.0, 0.025, 0.5, 0.975, 1.0],)),
                       ("entr", ([-1.0, 0.0, 0.5, 1.0, math.nan],)),
                       ("xlog1py", ([0.0, 0.0, 2.0, 1.0], [-1.0, math.nan, 1.0, 3.0])),
                       ("multigammaln", ([2.5, 3.0], 2)), ("expit", (x,)), ("psi", ([0.5, 3.0],))):
        ours = getattr(gs.special, name)(*[gs.tensor(a, dtype=gs.float64) if isinstance(a, list) else a for a in args])
        theirs = getattr(torch.special, name)(*[torch.tensor(a, dtype=torch.float64) if isinstance(a, list) else a
                                                for a in args])
        _same(ours.numpy(), theirs.numpy(), rtol=1e-13)


def test_polygamma_refuses_negative_and_non_integer_orders_as_pytorch():
    x = gs.tensor([1.5])
    with pytest.raises(RuntimeError, match=r"polygamma\(n, x\) does not support negative n\."):
        gs.polygamma(-1, x)
    with pytest.raises(TypeError, match=r"polygamma\(\): argument 'n' \(position 1\) must be int, not float"):
        gs.polygamma(1.5, x)
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        gs.mvlgamma(x, 0)


def test_in_place_forms_write_into_the_tensor():
    x = gs.tensor([0.5, 2.5], dtype=gs.float64)
    want = gs.digamma(x).numpy()
    same = x.digamma_()
    assert same is x
    np.testing.assert_array_equal(x.numpy(), want)
    y = gs.tensor([0.25, -0.5], dtype=gs.float64)
    y.erfinv_()
    np.testing.assert_allclose(y.numpy(), [0.22531205501217808, -0.47693627620446982], rtol=1e-14)


def test_programs_reach_the_special_functions():
    ns = Namespace()
    out = run("import torch\n"
              "from torch.special import gammaln, ndtri\n"
              "x = torch.tensor([0.5, 3.0], dtype=torch.float64, requires_grad=True)\n"
              "y = gammaln(x).sum() + x.digamma().sum() + torch.polygamma(1, x).sum() + ndtri(x / 4).sum()\n"
              "y.backward()\n"
              "g = x.grad.tolist()\n"
              "v = torch.special.erfinv(torch.tensor(0.5)).item()\n", ns, Limits())
    assert out.ok, out.error.to_dict()
    from gradserve.engine.ops.special import erfinv_numpy, polygamma_numpy
    x = np.array([0.5, 3.0])
    # d/dx of lgamma + digamma + trigamma + sqrt(2) erfinv(x / 2 - 1)
    want = (polygamma_numpy(0, x) + polygamma_numpy(1, x) + polygamma_numpy(2, x)
            + math.sqrt(2) * 0.5 * 0.5 * math.sqrt(math.pi) * np.exp(erfinv_numpy(x / 2 - 1) ** 2))
    np.testing.assert_allclose(ns.globals["g"], want, rtol=1e-12)
    assert ns.globals["v"] == pytest.approx(0.4769362762044699, rel=1e-6)


@needs_torch
def test_sigmoid_keeps_its_relative_precision_far_below_zero():
    # expit is sigmoid: the tanh form it replaced gave float32 sigmoid(-15) = 2.98e-7 (PyTorch 3.06e-7)
    # and sigmoid(-20) = 0, so log(sigmoid(x)) was -inf where PyTorch's is -20
    for dtype in ("float32", "float64"):
        x = np.concatenate([[-5.0, -10.0, -15.0, -20.0, -40.0, 0.0, 30.0, math.inf, -math.inf],
                            np.random.default_rng(6).normal(0, 8, 2000)]).astype(dtype)
        ours = gs.sigmoid(gs.tensor(x)).numpy()
        theirs = torch.sigmoid(torch.tensor(x)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=4e-7 if dtype == "float32" else 1e-15, atol=0)
        assert ours.dtype == theirs.dtype
        assert gs.special.expit(gs.tensor(x)).numpy().tolist() == ours.tolist()


def test_huge_orders_are_bounded_not_hung_or_raised_from_math():
    # mvlgamma's p terms are one op sized by the element limit (a Python loop of 10**8 lgammas ran to the
    # wall-time limit); polygamma's n! past float64 gives infinities, not OverflowError
    out = run("import torch\ny = torch.mvlgamma(torch.tensor([100.0]), 10**8)", Namespace(),
              Limits(tensor_elements=10**6))
    assert not out.ok and out.error.limit == "tensor_elements"
    assert gs.polygamma(400, gs.tensor([1.0, 2.0], dtype=gs.float64)).tolist() == [-math.inf, -math.inf]
    assert gs.polygamma(401, gs.tensor([1.0], dtype=gs.float64)).tolist() == [math.inf]


def test_mvlgamma_sizes_its_terms_against_the_element_limit():
    """Hostile pass 12: the p terms an element (input.shape + (p,)) were one broadcast the element
    limit never saw: mvlgamma(full((1000,), 1e9), p=10**6) built 10**9 float64s (11.5 GB) and ran
    43 s under a 20 s wall time."""
    out = run("import torch\ny = torch.mvlgamma(torch.full((1000,), 1e9), p=10**4)", Namespace(),
              Limits(tensor_elements=10**6))
    assert not out.ok and out.error.limit == "tensor_elements", out.error.to_dict()
    assert "mvlgamma of shape [1000, 10000]" in out.error.message


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_ndtri_in_the_tails_is_pytorchs():
    """Hostile pass 12: ndtri was sqrt(2) erfinv(2p - 1), and 2p - 1 rounds to -1 below p = 1e-17
    (float64) or 3e-8 (float32): ndtri(1e-20) was -inf for PyTorch's -9.2623, float32 ndtri(1e-10)
    -inf for -6.3613, and the tails lost digits before that. Now erfcinv in the tails, down to the
    subnormals, with PyTorch's derivative and grad_fn."""
    p = np.concatenate([np.logspace(-323, np.log10(0.5), 2000), 1 - np.logspace(-16, np.log10(0.5), 1000),
                        np.random.default_rng(0).random(1000), [0.0, 1.0, -0.1, 1.1, np.nan, 0.25, 0.75, 5e-324]])
    ours, theirs = gs.special.ndtri(gs.tensor(p)).numpy(), torch.special.ndtri(torch.tensor(p)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=2e-15, atol=0, equal_nan=True)
    p32 = np.logspace(-45, np.log10(0.5), 1000).astype("float32")
    ours, theirs = gs.special.ndtri(gs.tensor(p32)).numpy(), torch.special.ndtri(torch.tensor(p32)).numpy()
    assert ours.dtype == theirs.dtype and np.isfinite(ours).all()
    np.testing.assert_allclose(ours, theirs, rtol=4e-7, atol=0)
    x = gs.tensor([1e-300, 1e-20, 0.3, 0.9], dtype=gs.float64, requires_grad=True)
    xt = torch.tensor([1e-300, 1e-20, 0.3, 0.9], dtype=torch.float64, requires_grad=True)
    y, yt = gs.special.ndtri(x), torch.special.ndtri(xt)
    y.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12)   # exp(y^2 / 2) at y = -37
    assert y.grad_fn.name() == yt.grad_fn.name() == "SpecialNdtriBackward0"
    from gradserve.engine.autograd import gradcheck, gradgradcheck
    a = gs.tensor([0.01, 0.1, 0.5, 0.97], dtype=gs.float64, requires_grad=True)
    assert gradcheck(gs.special.ndtri, [a]) and gradgradcheck(gs.special.ndtri, [a])


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_sigmoid_of_a_0d_tensor_and_where_exp_overflows_is_pytorchs():
    """Hostile pass 12: the exp(-|x|) sigmoid wrote in place into the NumPy scalar a 0-d array's abs
    gives, so torch.sigmoid(torch.tensor(0.5)) raised 'return arrays must be of ArrayType' (and with it
    nn.Sigmoid, Bernoulli(logits=...).probs on 0-d); and where PyTorch's 1 / (1 + exp(-x)) is 0
    (exp overflowing: x below -88.7 in float32, -709.8 in float64) it gave subnormals."""
    for dtype in ("float32", "float64"):
        for v in (0.5, -0.5, 0.0, -30.0):
            ours = gs.sigmoid(gs.tensor(v, dtype=getattr(gs, dtype)))
            theirs = torch.sigmoid(torch.tensor(v, dtype=getattr(torch, dtype)))
            assert ours.shape == () and str(ours.dtype) == str(theirs.dtype)
            assert ours.item() == pytest.approx(theirs.item(), rel=3e-7, abs=0)
    x = gs.tensor(0.3, requires_grad=True)
    gs.nn.Sigmoid()(x).backward()
    assert x.grad.item() == pytest.approx(0.24445831169074586, rel=1e-6)
    assert gs.distributions.Bernoulli(logits=0.3).probs.item() == pytest.approx(0.574442516811659, rel=1e-6)
    for dtype, low in (("float32", [-95.0, -100.0, -103.0]), ("float64", [-710.0, -730.0, -744.0])):
        ours = gs.sigmoid(gs.tensor(low, dtype=getattr(gs, dtype))).numpy()
        theirs = torch.sigmoid(torch.tensor(low, dtype=getattr(torch, dtype))).numpy()
        assert ours.tolist() == theirs.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_number_arguments_get_pytorchs_type_errors():
    """Hostile pass 12: ndtr(2.0), entr(2.0) and xlog1py(2, 3) raised AttributeError ('float' object has no
    attribute 'dtype' / 'new_tensor') for PyTorch's TypeError; xlog1py decided by hasattr on its arguments."""
    for call in (lambda T: T.special.ndtr(2.0), lambda T: T.special.entr(2.0), lambda T: T.special.xlog1py(2, 3)):
        errors = []
        for T in (gs, torch):
            with pytest.raises(TypeError) as e:
                call(T)
            errors.append(str(e.value))
        assert errors[0] == errors[1]
    assert gs.special.xlog1py(2.0, gs.tensor([1.0, 3.0])).tolist() == pytest.approx(
        torch.special.xlog1py(2.0, torch.tensor([1.0, 3.0])).tolist())


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_logit_eps_rules_are_pytorchs():
    """Hostile pass 12: logit's eps clamp was np.clip with [eps, 1 - eps] from Python floats, and its backward
    masked with (x >= eps) & (x <= 1 - eps): a negative eps clamped (PyTorch: no eps, NaN gradient outside
    [0, 1]), eps > 0.5 gave -0.405 for PyTorch's 0.405 (clip's order), a NaN input's gradient was 0 for
    PyTorch's NaN, and float32's upper bound was float32(1 - eps) for PyTorch's 1 - float32(eps)."""
    values = [-0.5, 0.0, 1e-7, 0.3, 0.5, 0.9999999, 1.0, 1.05, float("nan")]
    for eps in (-0.1, 1e-6, 0.6, 0.3):
        for dtype in ("float32", "float64"):
            got = []
            for T in (gs, torch):
                x = T.tensor(values, dtype=getattr(T, dtype), requires_grad=True)
                y = T.logit(x, eps)
                g, = T.autograd.grad(y.sum(), x)
                got.append((y.detach().numpy(), g.numpy()))
            np.testing.assert_allclose(got[0][0], got[1][0], rtol=3e-7, equal_nan=True)
            np.testing.assert_allclose(got[0][1], got[1][1], rtol=3e-7, equal_nan=True)


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_entr_and_xlog1py_gradients_are_pytorchs():
    """Hostile pass 12: entr and xlog1py were where() compositions whose masks also masked the
    gradients: d/dx xlog1py(x, y) at x = 0 was 0 for PyTorch's log1p(y) (1.386 at y = 3), NaN for
    PyTorch's 0 at y = -1; entr's gradient was 0 at 0 (PyTorch's inf), 0 below 0 (NaN) and 1 at NaN."""
    got = []
    for T in (gs, torch):
        x = T.tensor([0.0, -1.0, 2.0, float("inf"), float("nan"), 0.5], dtype=T.float64, requires_grad=True)
        g, = T.autograd.grad(T.special.entr(x).sum(), x, create_graph=True)
        g2, = T.autograd.grad(g.sum(), x)
        a = T.tensor([0.0, 0.0, 1.0, 2.0, 0.0, 0.0, -1.0], dtype=T.float64, requires_grad=True)
        o = T.tensor([-1.0, float("nan"), -1.0, 3.0, 3.0, -2.0, 0.5], dtype=T.float64, requires_grad=True)
        y = T.special.xlog1py(a, o)
        ga, go = T.autograd.grad(y.sum(), [a, o], create_graph=True)
        h = T.autograd.grad((ga * 1.3 + go * 0.7).sum(), [a, o])
        got.append([g.tolist(), g2.tolist(), y.tolist(), ga.tolist(), go.tolist(), h[0].tolist(), h[1].tolist()])
    for ours, theirs in zip(*got):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, equal_nan=True)
