"""Hostile pass 11 (tests/hostile_attack11_log.md): program-side findings.

F1: ``torch.broadcast_tensors`` returned views past tensor_elements (the expand guard programs meet
did not cover it), so ``a + 0`` built a tensor past the limit with no error.
F2: ``torch.multinomial`` (and ``Categorical.sample``) allocated its ``num_samples`` result before any
check: past the limit it failed as "session_bytes: out of memory" after asking for the memory.
F3: losses and distances that broadcast input and target inside the engine (``F.l1_loss``,
``F.kl_div``, ``F.pairwise_distance``, ``torch.dist``, ...) built intermediates past tensor_elements
(a scalar answer, or "session_bytes: out of memory" once past the address space).
"""
import pytest

from gradserve.engine.program import Limits

LIMITS = Limits(tensor_elements=1 << 22, session_bytes=256 << 20, wall_time_s=20.0)
# (4096, 1) against (1, 1025): 4,198,400 elements, just past 2**22
A, B = "torch.ones(4096, 1)", "torch.ones(1, 1025)"


def _is_elements(error):
    assert error.type == "LimitExceeded" and error.limit == "tensor_elements", (error.type, error.message)


@pytest.mark.parametrize("program", [
    f"a, b = torch.broadcast_tensors({A}, {B})\ny = a + 0",
    f"a, b = torch.broadcast_tensors({A}, {B})",
    f"w = torch.ones(4096, 1, requires_grad=True)\na, b = torch.broadcast_tensors(w, {B})\n(a * 2).sum().backward()",
])
def test_broadcast_tensors_counts_the_broadcast_shape(program, run_err):
    _is_elements(run_err(program, limits=LIMITS))


def test_broadcast_tensors_within_the_limit_still_works(run_ok):
    out, ns = run_ok("a, b = torch.broadcast_tensors(torch.ones(3, 1), torch.ones(1, 4))\ns = (a + b).sum()",
                     limits=LIMITS)
    assert float(ns.get("s").item()) == 24.0


@pytest.mark.parametrize("program", [
    "x = torch.multinomial(torch.ones(2), 4_200_000, replacement=True)",
    "x = torch.multinomial(torch.ones(4, 2), 1_100_000, replacement=True)",
    "x = torch.multinomial(torch.ones(2), 2**40, replacement=True)",    # 8 TiB asked for at once
    "x = torch.distributions.Categorical(torch.ones(2)).sample((2**20, 2**20))",
    "x = torch.distributions.Categorical(torch.ones(2)).sample((4_200_000,))",
])
def test_multinomial_counts_its_result_before_allocating(program, run_err):
    _is_elements(run_err(program, limits=LIMITS))


def test_multinomial_argument_errors_are_pytorchs(run_err, run_ok):
    assert run_err("torch.multinomial(torch.ones(2), 0)", limits=LIMITS).type == "RuntimeError"
    assert run_err("torch.multinomial(torch.ones(2), 2.5)", limits=LIMITS).type == "TypeError"
    out, ns = run_ok("x = torch.multinomial(torch.ones(3, 4), 5, replacement=True)", limits=LIMITS)
    assert tuple(ns.get("x").shape) == (3, 5)


@pytest.mark.parametrize("call", [
    f"F.l1_loss({A}, {B}, reduction='sum')",
    f"F.mse_loss({A}, {B})",
    f"F.smooth_l1_loss({A}, {B})",
    f"F.huber_loss({A}, {B})",
    f"F.kl_div({A}, {B}, reduction='sum')",
    f"F.poisson_nll_loss({A}, {B})",
    f"F.soft_margin_loss({A}, {B})",
    f"F.hinge_embedding_loss({A}, {B})",
    "F.pairwise_distance(torch.ones(4096, 1, 1), torch.ones(1, 1025, 1))",
    "F.cosine_similarity(torch.ones(4096, 1, 2), torch.ones(1, 1025, 2), dim=-1)",
    f"torch.dist({A}, {B})",
    f"nn.L1Loss()({A}, {B})",
])
def test_engine_composites_count_their_broadcast(call, run_err):
    _is_elements(run_err("import warnings\nwarnings.simplefilter('ignore')\ny = " + call, limits=LIMITS))


# F4: ``t.grad = g`` took a grad of any shape or dtype: backward and the optimizers then failed with
# NumPy's errors, or an SGD step broadcast a one-element grad over the whole parameter silently
@pytest.mark.parametrize("program, message", [
    ("x = torch.ones(2, requires_grad=True)\nx.grad = torch.ones(7)", "different size"),
    ("p = nn.Parameter(torch.ones(2, 2))\np.grad = torch.ones(1)\noptim.SGD([p], lr=1.0).step()", "different size"),
    ("x = torch.ones(2, requires_grad=True)\nx.grad = torch.ones(2, dtype=torch.int64)", "different type"),
    ("x = torch.ones(2, requires_grad=True)\nx.grad = x", "its own grad"),
])
def test_assigned_grad_is_checked_as_pytorch_does(program, message, run_err):
    error = run_err(program, limits=LIMITS)
    assert error.type == "RuntimeError" and message in error.message, error.to_dict()


def test_assigned_grad_of_the_right_shape_still_works(run_ok):
    out, ns = run_ok("p = nn.Parameter(torch.ones(2, 2))\np.grad = torch.full((2, 2), 0.5)\n"
                     "optim.SGD([p], lr=1.0).step()\nq = torch.ones(2, requires_grad=True)\nq.grad = None",
                     limits=LIMITS)
    assert ns.get("p").detach().numpy().tolist() == [[0.5, 0.5], [0.5, 0.5]]


# F5: a size of a 65,000-bit integer (under integer_size) made the limit's own message raise Python's
# "Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits()"
# ValueError: the program got a ValueError naming a host function instead of the limit's error
@pytest.mark.parametrize("call, limit", [
    ("torch.zeros(b)", "tensor_elements"),
    ("torch.randn(b)", "tensor_elements"),
    ("torch.ones(3).expand(b)", "tensor_elements"),
    ("torch.ones(3).repeat(b)", "tensor_elements"),
    ("nn.Linear(b, 1)", "tensor_elements"),
    ("F.one_hot(torch.tensor([1]), b)", "tensor_elements"),
    ("np.zeros(b)", "tensor_elements"),
    ("[1] * b", "sequence_length"),
    ("'a' * b", "string_length"),
    ("bytes(b)", "string_length"),
])
def test_a_huge_size_gets_the_limits_error(call, limit, run_err):
    error = run_err(f"import numpy as np\nb = 2**65000\nx = {call}", limits=LIMITS)
    assert error.type == "LimitExceeded" and error.limit == limit, (error.type, error.message)
    assert "2**65000" in error.message or "2**65001" in error.message, error.message


# F7: np.set_printoptions(edgeitems=...) large printed whole arrays past the 100,000-element bound that
# threshold has (2 * edgeitems of each dimension are printed): str() of 2**22 zeros ran past wall_time,
# and with precision=64 it would build hundreds of MB of text before string_length could say anything
@pytest.mark.parametrize("shape", ["2**18", "(2**10, 2**9)", "(64, 64, 64)"])
def test_numpy_edgeitems_cannot_print_a_large_array_whole(shape, run_ok):
    out, ns = run_ok(f"import numpy as np\nnp.set_printoptions(edgeitems=10**9)\ns = str(np.zeros({shape}))\n"
                     f"r = repr(np.zeros({shape}))", limits=LIMITS)
    for name in ("s", "r"):
        text = ns.get(name)
        assert "..." in text and len(text) < 1_500_000, (name, len(text))


def test_numpy_edgeitems_still_applies_to_small_arrays(run_ok):
    out, ns = run_ok("import numpy as np\nnp.set_printoptions(edgeitems=2, threshold=5)\ns = str(np.arange(10))",
                     limits=LIMITS)
    assert ns.get("s") == "[0 1 ... 8 9]"
